"""The DCG family's gain maps and discounts, ideal DCG, SDCG and yaap: each
alone as a ratio to the floor F of run.py's workloads W1-W3, one run.

Run: ``python benchmarks/bench_gains.py`` from the repository root
(``--repeats N``). Prints one Markdown table per workload: medians over
repeats, and each over F (``y_score.max(axis=1)`` plus
``np.count_nonzero(y_true, axis=1)``, run.py's floor). yaap reads the whole
ranking (it has no cut-off), as ``map_at_k_score(k=None)``, shown beside it;
on W3's tie groups its exact expectation is too large and it raises (the
row says so).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout
import run  # noqa: E402  (run.py's workloads and floor)

import sklearn_rankk as rk  # noqa: E402


def main():
    run.measure_tables(__doc__, timed, threads=None)


def timed(y_true, y_score, k):
    """The calls timed on one workload."""
    z = {"zero_division": 0.0}
    rows = {
        "ndcg": lambda: rk.ndcg_at_k_score(y_true, y_score, k=k, **z),
        "ndcg, gains={1: 3.5, 2: 9}": lambda: rk.ndcg_at_k_score(
            y_true, y_score, k=k, gains={1: 3.5, 2: 9}, **z
        ),
        "ndcg, gains=np.sqrt": lambda: rk.ndcg_at_k_score(
            y_true, y_score, k=k, gains=np.sqrt, **z
        ),
        "ndcg, discount='reciprocal'": lambda: rk.ndcg_at_k_score(
            y_true, y_score, k=k, discount="reciprocal", **z
        ),
        "dcg, discount='jarvelin'": lambda: rk.dcg_at_k_score(
            y_true, y_score, k=k, discount="jarvelin"
        ),
        "ideal_dcg": lambda: rk.ideal_dcg_at_k_score(y_true, y_score, k=k),
        "sdcg": lambda: rk.sdcg_at_k_score(y_true, y_score, k=k),
        "map, k=None (whole ranking)": lambda: rk.map_at_k_score(
            y_true, y_score, k=None, **z
        ),
        "yaap (whole ranking)": lambda: rk.yaap_score(y_true, y_score),
    }
    return rows


if __name__ == "__main__":
    main()
