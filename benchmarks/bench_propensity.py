"""Propensity-scored P@k and nDCG@k: each alone as a ratio to the floor F of
run.py's workloads W1-W3, one run.

Run: ``python benchmarks/bench_propensity.py`` from the repository root
(``--repeats N``). One thread, as run.py's per-measure rows. Prints one
Markdown table per workload: medians over
repeats, and each over F (``y_score.max(axis=1)`` plus
``np.count_nonzero(y_true, axis=1)``, run.py's floor). The weights are
:func:`inverse_propensity` of the workload's own ``y_true`` (computed once,
outside the timings); P@k and nDCG@k are shown beside them, and
``inverse_propensity`` itself.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout
import run  # noqa: E402  (run.py's workloads and floor)

import sklearn_rankk as rk  # noqa: E402


def main():
    run.measure_tables(__doc__, timed, threads=1)


def timed(y_true, y_score, k):
    """The calls timed on one workload."""
    w = rk.inverse_propensity(y_true)
    z = {"zero_division": 0.0}
    rows = {
        "precision": lambda: rk.precision_at_k_score(y_true, y_score, k=k),
        "ndcg": lambda: rk.ndcg_at_k_score(y_true, y_score, k=k, **z),
        "psprecision": lambda: rk.psprecision_at_k_score(
            y_true, y_score, k=k, propensity=w, **z
        ),
        "psndcg": lambda: rk.psndcg_at_k_score(y_true, y_score, k=k, propensity=w, **z),
        "psprecision, average='mean'": lambda: rk.psprecision_at_k_score(
            y_true, y_score, k=k, propensity=w, average="mean", **z
        ),
        "inverse_propensity(y_true)": lambda: rk.inverse_propensity(y_true),
    }
    return rows


if __name__ == "__main__":
    main()
