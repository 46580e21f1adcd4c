"""``python -m sklearn_rankk``: the trec_eval-compatible command line."""

from ._io.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
