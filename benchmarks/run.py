"""All speed benchmarks, side by side with the peers, in one run.

Run: ``python benchmarks/run.py`` (``--quick`` for a smoke run on small sizes;
``--repeats N``). Prints a Markdown table per workload: medians over repeats,
the ratio to the floor F (one numpy read pass over ``y_score``,
``max(axis=1)``, plus one over a dense ``y_true``) and the ratio to
scikit-learn's ``ndcg_score`` with ties averaged, all measured in this run;
then the peak extra memory of one all-metrics pass.

Workloads (fixed seeds):

* W1 multilabel: 10,000 x 1,000 float64 scores, ~3% binary relevance, k=10.
* W2 recsys: 2,000 x 50,000 float32 scores, CSR relevance, ~20 positives a
  row, k=20.
* W3 ties: W1 with scores rounded to one decimal, graded relevance 0..4.
* W4 one CV fold: 200 x 100, k=5.

Peers, each fed from the same matrices with the conversion a user would have
to write included: scikit-learn ``ndcg_score`` (both tie modes), ranx and
pytrec_eval (dicts of dicts, every cell; skipped on W2, where that means
10^8 dict entries), torchmetrics if installed. ranx is called once before
timing so that its numba compilation is not counted.
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
from functools import partial

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import ndcg_score

import sklearn_rankk as rk
from sklearn_rankk._core import engine
from sklearn_rankk._core.registry import METRICS


def workloads(quick):
    scale = 10 if quick else 1
    rng = np.random.default_rng(1)
    n = 10_000 // scale
    scores = rng.random((n, 1_000))
    binary = rng.random((n, 1_000)) < 0.03
    yield "W1 multilabel", binary, scores, 10
    rng = np.random.default_rng(2)
    n2, m2 = 2_000 // scale, 50_000
    rows = np.repeat(np.arange(n2), 20)
    cols = np.concatenate([rng.choice(m2, 20, replace=False) for _ in range(n2)])
    y2 = sp.csr_matrix((np.ones(n2 * 20, dtype=np.int8), (rows, cols)), (n2, m2))
    yield "W2 recsys", y2, rng.random((n2, m2), dtype=np.float32), 20
    rng = np.random.default_rng(3)
    graded = rng.integers(0, 5, size=(n, 1_000)) * binary
    yield "W3 ties", graded, np.round(scores, 1), 10
    rng = np.random.default_rng(4)
    yield "W4 CV fold", rng.random((200, 100)) < 0.05, rng.random((200, 100)), 5


def all_metrics(y_true, y_score, k, ignore_ties):
    """All nine metrics from one top-k pass."""
    requests = [
        engine.make_request(metric, k if metric.needs_k else None)
        for metric in METRICS.values()
    ]
    return engine.row_values(requests, y_true, y_score, ignore_ties=ignore_ties)


def floor(y_true, y_score):
    dense = y_true.toarray() if sp.issparse(y_true) else y_true
    return y_score.max(axis=1), dense.max(axis=1)


def to_dicts(y_true, y_score):
    """Qrels and run as dicts of dicts, the form ranx and trec_eval take."""
    dense = y_true.toarray() if sp.issparse(y_true) else np.asarray(y_true)
    qrels, run = {}, {}
    docs = [f"d{j}" for j in range(y_score.shape[1])]
    for i in range(y_score.shape[0]):
        q = f"q{i}"
        rel = np.flatnonzero(dense[i])
        qrels[q] = {docs[j]: int(dense[i, j]) for j in rel} or {docs[0]: 0}
        run[q] = dict(zip(docs, y_score[i].tolist()))
    return qrels, run


def ranx_ndcg(y_true, y_score, k):
    from ranx import Qrels, Run, evaluate

    qrels, run = to_dicts(y_true, y_score)
    return evaluate(Qrels(qrels), Run(run), f"ndcg@{k}")


def pytrec_ndcg(y_true, y_score, k):
    import pytrec_eval

    qrels, run = to_dicts(y_true, y_score)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut.{k}"})
    return np.mean([v[f"ndcg_cut_{k}"] for v in evaluator.evaluate(run).values()])


def torchmetrics_ndcg(y_true, y_score, k):
    import torch
    from torchmetrics.functional.retrieval import retrieval_normalized_dcg

    dense = y_true.toarray() if sp.issparse(y_true) else np.asarray(y_true)
    t, s = torch.as_tensor(dense.astype(np.float32)), torch.as_tensor(y_score)
    return float(
        torch.stack(
            [retrieval_normalized_dcg(s[i], t[i], top_k=k) for i in range(len(s))]
        ).mean()
    )


def median_time(func, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        func()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def available(module):
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def cases_for(name, y_true, y_score, k):
    cases = {"floor F": partial(floor, y_true, y_score)}
    dense_ok = not sp.issparse(y_true)
    if dense_ok:
        cases["sklearn ndcg_score (ties averaged)"] = partial(
            ndcg_score, y_true, y_score, k=k
        )
        cases["sklearn ndcg_score ignore_ties"] = partial(
            ndcg_score, y_true, y_score, k=k, ignore_ties=True
        )
    for threads in (1, 2):
        for ignore in (False, True):
            mode = "ignore_ties" if ignore else "tie-aware"
            cases[f"rankk all 9 metrics, one pass, {mode}, {threads} thr"] = (
                threads,
                partial(all_metrics, y_true, y_score, k, ignore),
            )
    for metric, info in METRICS.items():
        kw = {"k": k} if info.needs_k else {}
        cases[f"rankk {metric} alone, tie-aware, 1 thr"] = (
            1,
            partial(
                getattr(rk, info.function_name),
                y_true,
                y_score,
                zero_division=0.0,
                **kw,
            ),
        )
    for threads, ignore in ((2, False), (1, True), (2, True)):
        mode = "ignore_ties" if ignore else "tie-aware"
        cases[f"rankk ndcg alone, {mode}, {threads} thr"] = (
            threads,
            partial(
                rk.ndcg_at_k_score,
                y_true,
                y_score,
                k=k,
                ignore_ties=ignore,
                zero_division=0.0,
            ),
        )
    if dense_ok and available("ranx"):
        ranx_ndcg(y_true[:2], y_score[:2], k)  # numba compilation, not timed
        cases["ranx ndcg (dict conversion included)"] = partial(
            ranx_ndcg, y_true, y_score, k
        )
    if dense_ok and available("pytrec_eval"):
        cases["pytrec_eval ndcg_cut (dict conversion included)"] = partial(
            pytrec_ndcg, y_true, y_score, k
        )
    if available("torchmetrics"):
        cases["torchmetrics ndcg (per-query loop)"] = partial(
            torchmetrics_ndcg, y_true, y_score, k
        )
    return cases


def peak_memory(func):
    tracemalloc.start()
    try:
        func()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1/10 of the rows")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    memory = []
    for name, y_true, y_score, k in workloads(args.quick):
        shape = "x".join(map(str, y_score.shape))
        print(f"\n### {name}: {shape} {y_score.dtype}, k={k}\n")
        print("| what | median (ms) | / floor F | / sklearn ndcg |")
        print("|---|---:|---:|---:|")
        timings = {}
        for label, case in cases_for(name, y_true, y_score, k).items():
            threads, func = case if isinstance(case, tuple) else (None, case)
            slow = label.startswith(("ranx", "pytrec", "torch", "sklearn"))
            repeats = min(args.repeats, 3) if slow else args.repeats
            if threads is None:
                timings[label] = median_time(func, repeats)
            else:
                with rk.num_threads(threads):
                    timings[label] = median_time(func, repeats)
        base = timings["floor F"]
        ref = timings.get("sklearn ndcg_score (ties averaged)")
        for label, t in timings.items():
            vs_ref = f"{t / ref:.3f}" if ref else "n/a"
            print(f"| {label} | {t * 1e3:.1f} | {t / base:.1f} | {vs_ref} |")
        if name.startswith(("W1", "W2")):
            with rk.num_threads(1):
                peak = peak_memory(partial(all_metrics, y_true, y_score, k, False))
            memory.append((name, y_score.nbytes, peak))
    print("\n### Peak extra memory, all nine metrics in one pass (tracemalloc)\n")
    print("| workload | y_score (MB) | peak extra (MB) | share of y_score |")
    print("|---|---:|---:|---:|")
    for name, nbytes, peak in memory:
        print(
            f"| {name} | {nbytes / 1e6:.0f} | {peak / 1e6:.1f} | {peak / nbytes:.1%} |"
        )


if __name__ == "__main__":
    main()
