"""The intent-aware measures (P-IA, S-recall, alpha-nDCG, ERR-IA, nERR-IA):
each alone as a ratio to the floor F, on W1- and W3-like workloads with 4
intents, one run.

Run: ``python benchmarks/bench_diversity.py`` from the repository root
(``--repeats N``, ``--quick`` for a tenth of the rows). The workloads take
run.py's W1 and W3 scores (10,000 x 1,000: float64, and rounded to one
decimal, heavy ties) with ``y_true`` of shape (10,000, 1,000, 4), int8, each
item relevant to each intent with probability 0.75% (about 3% relevant to
some intent, as W1), k=10. F is one numpy read of the inputs, as run.py's:
``y_score.max(axis=1)`` plus ``np.count_nonzero(y_true, axis=(1, 2))``.
Each measure is one kernel pass over every intent (one selection per row),
the greedy ideal ranking of alpha-nDCG and nERR-IA included.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout
import run  # noqa: E402  (run.py's workloads)

import sklearn_rankk as rk  # noqa: E402

N_INTENTS = 4


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    for name, title, _, y_score, k in run.workloads(args.quick):
        if name in ("W1", "W3"):
            rng = np.random.default_rng(27)
            y_true = (rng.random((*y_score.shape, N_INTENTS)) < 0.0075).astype(np.int8)
            table(name, title, y_true, y_score, k, args.repeats)


def table(name, title, y_true, y_score, k, repeats):
    """One workload's table."""

    def floor():
        return y_score.max(axis=1), np.count_nonzero(y_true, axis=(1, 2))

    f = run.median_time(floor, 2 * repeats)
    z = {"zero_division": 0.0, "k": k}
    rows = {
        "intent_aware_precision_at_k": rk.intent_aware_precision_at_k,
        "subtopic_recall_at_k": rk.subtopic_recall_at_k,
        "alpha_ndcg_at_k": rk.alpha_ndcg_at_k,
        "err_ia_at_k": rk.err_ia_at_k,
        "nerr_ia_at_k": rk.nerr_ia_at_k,
    }
    print(f"\n### {name}-like: {title}, {N_INTENTS} intents, k={k}\n")
    print(f"F = {f * 1e3:.1f} ms\n")
    print("| measure | ms | / F | ignore_ties=True: ms | / F |")
    print("|---|---|---|---|---|")
    for label, func in rows.items():
        t = run.median_time(lambda g=func: g(y_true, y_score, **z), repeats)
        t2 = run.median_time(
            lambda g=func: g(y_true, y_score, ignore_ties=True, **z), repeats
        )
        print(
            f"| {label} | {t * 1e3:.1f} | {t / f:.1f} | {t2 * 1e3:.1f} | {t2 / f:.1f} |"
        )


if __name__ == "__main__":
    main()
