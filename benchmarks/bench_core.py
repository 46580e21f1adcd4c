"""Time the numpy top-k engine against scikit-learn's ndcg_score, in one run.

Run: ``python benchmarks/bench_core.py`` (add ``--quick`` for a smoke run).
Prints a Markdown table of medians over repeats and their ratio to
scikit-learn's ``ndcg_score`` on the same matrices, and to the floor F: one
numpy read pass over ``y_score`` (``max(axis=1)``) plus one over ``y_true``.

Workloads (fixed seeds), from issue 4:

* W1 multilabel: 10,000 x 1,000 float64 scores, ~3% binary relevance, k=10.
* W3 ties: W1 with scores rounded to one decimal, graded relevance 0..4.
* W4 one CV fold: 200 x 100, k=5.
"""

import argparse
import statistics
import time
from functools import partial

import numpy as np
from sklearn.metrics import ndcg_score

import sklearn_rankk as rk


def workloads(quick):
    rng = np.random.default_rng(0)
    n = 1_000 if quick else 10_000
    scores = rng.random((n, 1_000))
    binary = rng.random((n, 1_000)) < 0.03
    graded = rng.integers(0, 5, size=(n, 1_000)) * binary
    yield "W1 multilabel", binary, scores, 10
    yield "W3 ties", graded, np.round(scores, 1), 10
    rng = np.random.default_rng(4)
    yield "W4 CV fold", rng.random((200, 100)) < 0.05, rng.random((200, 100)), 5


def read_pass(y_true, y_score):
    """One read pass over each matrix: the memory-bandwidth floor."""
    return y_score.max(axis=1), y_true.max(axis=1)


def median_time(func, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        func()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, 1 repeat")
    args = parser.parse_args()
    repeats = 1 if args.quick else 5
    print("| workload | what | median (ms) | / sklearn ndcg | / floor F |")
    print("|---|---|---:|---:|---:|")
    for name, y_true, y_score, k in workloads(args.quick):
        cases = {
            "floor F (read y_score + y_true)": partial(read_pass, y_true, y_score),
            "sklearn ndcg_score": partial(ndcg_score, y_true, y_score, k=k),
            "sklearn ndcg_score ignore_ties": partial(
                ndcg_score, y_true, y_score, k=k, ignore_ties=True
            ),
        }
        for metric in ("precision", "mrr", "map", "ndcg"):
            f = getattr(rk, f"{metric}_at_k_score")
            for ignore in (False, True):
                label = f"rankk {metric}@{k}" + (" ignore_ties" if ignore else "")
                cases[label] = partial(
                    f, y_true, y_score, k=k, ignore_ties=ignore, zero_division=0.0
                )
        timings = {label: median_time(fn, repeats) for label, fn in cases.items()}
        ref = timings["sklearn ndcg_score"]
        floor_time = timings["floor F (read y_score + y_true)"]
        shape = "x".join(map(str, y_score.shape))
        for label, t in timings.items():
            print(
                f"| {name} ({shape}, k={k}) | {label} | {t * 1e3:.1f} | "
                f"{t / ref:.2f} | {t / floor_time:.1f} |"
            )


if __name__ == "__main__":
    main()
