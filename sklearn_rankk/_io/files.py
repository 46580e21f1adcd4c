"""The command line's TREC files, read and joined without numpy.

:func:`file_rows` joins a qrels file and a run query by query in the
compiled parser (trec.hpp's ``TrecJoin``): into numpy arrays for
:func:`~sklearn_rankk.from_trec` and the metrics, or into ``array.array``
for the command line, which evaluates them through the same kernel without
importing numpy. The errors name the file and line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .._core import _kernel


def read_bytes(source):
    """(bytes, name) of a path or an open file (text or binary); gzip data
    (found by its magic bytes, whatever the file's name) decompressed."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            data, name = f.read(), os.fspath(source)
    elif hasattr(source, "read"):
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        data, name = bytes(data), str(getattr(source, "name", "<file>"))
    else:
        raise TypeError(
            f"Expected a path or an open file; got {type(source).__name__}."
        )
    if data[:2] == b"\x1f\x8b":
        import gzip

        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise ValueError(f"{name}: not a readable gzip file ({exc}).") from None
    return data, name


def raise_bad_line(kind, what, line, message, data, names):
    """The error of a line that is not UTF-8 (``what="utf-8"``) or is
    malformed, naming the file and line."""
    where = f"{names[kind]}:{line}"
    if what == "utf-8":
        text = data[kind].split(b"\n")[line - 1]
        try:
            text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{where}: not UTF-8 text ({exc.reason}).") from None
        raise ValueError(f"{where}: not UTF-8 text.")
    raise ValueError(f"{where}: {message}{_swapped_hint(kind, data, line)}")


#: Fields of a line of each kind of file.
_FIELDS = {"qrels": 4, "run": 6}


def _swapped_hint(kind, data, lineno):
    """A hint when a malformed line has the other kind's fields: the run
    given as the qrels, or the qrels as the run."""
    if not data.get(kind):
        return ""
    line = data[kind].split(b"\n")[lineno - 1]
    other = "run" if kind == "qrels" else "qrels"
    if len(line.split()) != _FIELDS[other]:
        return ""
    return (
        f" It looks like a {other} file: give the qrels file first, then the "
        f"run (sklearn-rankk QRELS RUN, as trec_eval)."
    )


def is_file(source):
    return isinstance(source, (str, os.PathLike)) or hasattr(source, "read")


@dataclass
class TrecRows:
    """A run joined with its judgments: one segment of flat arrays per query.

    Attributes
    ----------
    y_true : ndarray of shape (n_entries,)
        Grades (0 for unjudged documents); ``array.array`` of int64 (and
        ``y_score`` and ``offsets`` too) from :func:`file_rows` with ``lite``.
    y_score : ndarray of shape (n_entries,), float64
        Scores; ``-inf`` for judged documents of positive grade the run lacks.
    offsets : ndarray of int64 of shape (n_queries + 1,)
        Query ``i`` is ``offsets[i]:offsets[i + 1]``: its retrieved documents
        by score descending, tied ones by docno ascending, then its judged
        documents of positive grade that it did not retrieve.
    qids : list of str
        The query of each segment, sorted as trec_eval sorts them.
    runid : str
        The tag of the run's last line (trec_eval's ``runid``).
    unretrieved : list of str
        Queries of the qrels with no results in the run, left out (without
        ``complete``), sorted as ``qids``.
    """

    y_true: object
    y_score: object
    offsets: object
    qids: list
    runid: str = ""
    unretrieved: list = ()


def no_common_query(n_run, n_judged):
    return ValueError(
        f"No query has both results in the run and judgments in the qrels "
        f"(run: {n_run} queries, qrels: {n_judged}); check that the query ids "
        f"match."
    )


def file_rows(
    qrels, run, *, complete, mark_unjudged, max_retrieved, judged_only, lite=False
):
    """:func:`trec_rows` of two files, joined by the compiled parser query
    by query (no table of every docno, no copy of the segments); with
    ``lite``, the segments are ``array.array`` and numpy is not imported."""
    data, names = {}, {}
    for kind, source in (("qrels", qrels), ("run", run)):
        data[kind], names[kind] = read_bytes(source)
    found = _kernel.join_trec_files(
        data["qrels"],
        data["run"],
        complete,
        mark_unjudged,
        max_retrieved,
        judged_only,
        lite,
    )
    if isinstance(found, tuple):
        if found[0] == "none":
            raise no_common_query(found[1], found[2])
        if found[0] == "duplicate":
            _, kind, line, doc, qid = found
            what = "judged" if kind == "qrels" else "listed"
            raise ValueError(
                f"{names[kind]}:{line}: document {doc!r} is {what} twice for "
                f"query {qid!r}."
            )
        raise_bad_line(found[1], found[0], found[2], found[-1], data, names)
    del data
    return TrecRows(
        found["y_true"],
        found["y_score"],
        found["offsets"],
        found["qids"],
        found["runid"],
        found["left_out"],
    )
