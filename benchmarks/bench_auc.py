"""AUC and its kin on the in-memory workloads of run.py, as ratios to F.

Run: ``python benchmarks/bench_auc.py`` (``--quick`` for small sizes,
``--repeats N``, ``--only W1,W3``). Each row is the median over repeats,
one thread, as a ratio to the floor F of its workload (run.py's: one numpy
read of the inputs) measured in the same run. scikit-learn's
``roc_auc_score`` called row by row is the peer (on the first 200 rows,
scaled to all of them).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import roc_auc_score

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from run import floor, median_time, workloads  # noqa: E402

import sklearn_rankk as rk  # noqa: E402


def sklearn_rows(y_true, y_score, n=200):
    """roc_auc_score on each of the first n rows (defined ones)."""
    dense = y_true[:n].toarray() if sp.issparse(y_true) else np.asarray(y_true[:n])
    total = 0.0
    for t, s in zip(dense, y_score[:n]):
        labels = t > 0
        if labels.any() and not labels.all():
            total += roc_auc_score(labels, s)
    return total


def table(name, title, y_true, y_score, k, repeats):
    """One workload's table: each call's median seconds and ratio to F."""
    n = y_score.shape[0]
    calls = {
        "floor F": lambda: floor(y_true, y_score),
        "auc (whole row)": lambda: rk.auc_score(y_true, y_score, zero_division=0.0),
        "auc, ignore_ties": lambda: rk.auc_score(
            y_true, y_score, zero_division=0.0, ignore_ties=True
        ),
        f"auc@{k}": lambda: rk.auc_score(y_true, y_score, k=k, zero_division=0.0),
        "auc, max_fpr=0.1": lambda: rk.auc_score(
            y_true, y_score, max_fpr=0.1, zero_division=0.0
        ),
        'auc, average="relevant" (GAUC)': lambda: rk.auc_score(
            y_true, y_score, average="relevant", zero_division=0.0
        ),
        "pairwise_accuracy": lambda: rk.pairwise_accuracy_score(
            y_true, y_score, zero_division=0.0
        ),
    }
    times = {label: median_time(f, repeats) for label, f in calls.items()}
    peer = median_time(lambda: sklearn_rows(y_true, y_score), 1) * n / 200
    f = times["floor F"]
    print(f"\n### {name}: {title}, k={k}\n")
    print("| | seconds | ratio to F |")
    print("|---|---|---|")
    for label, t in times.items():
        print(f"| {label} | {t:.4f} | {t / f:.2f} |")
    print(f"| sklearn roc_auc_score per row (scaled) | {peer:.3f} | {peer / f:.0f} |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default="W1,W2,W3")
    args = parser.parse_args()
    only = set(args.only.split(","))
    for name, title, y_true, y_score, k in workloads(args.quick):
        if name in only:
            table(name, title, y_true, y_score, k, args.repeats)


if __name__ == "__main__":
    main()
