"""All speed and memory benchmarks, side by side with the peers, in one run.

Run: ``python benchmarks/run.py`` (``--quick`` for a smoke run on small
sizes; ``--repeats N``; ``--in-memory`` for W1-W4 only; ``--only W4,heavy``
for some sections; ``--metrics a,b`` for some metrics; ``--measures-only``
for F and each measure alone in W1-W4). Prints Markdown
tables: medians over repeats, each as a ratio to the floor F of its
workload, measured in the same run, and next to the peers. BLAS runs on one
thread throughout (``threadpoolctl``, and ``OPENBLAS_NUM_THREADS=1`` for the
command lines it times); the kernel's threads are set per row.

The floor F is one numpy read of the inputs: ``y_score.max(axis=1)`` plus
``np.count_nonzero(y_true, axis=1)`` (relevance as given: dense int64, or
CSR).

In-memory workloads (fixed seeds):

* W1: 10,000 x 1,000 float64 scores, ~3% relevant (dense int64 0/1), k=10.
* W2: 2,000 x 50,000 float32 scores, CSR relevance (~20 a row), k=20.
* W3: W1's scores rounded to one decimal (heavy ties), grades 0..4, k=10.
* W4: W3's scores with grades 0..4 drawn for 10% of the items (about 80
  relevant a row, inside tie groups of about 100), k=10.
* Heavy ties: one row whose items all tie (1,000, 3,000 and 10,000 items,
  100 of them relevant with grades 1..4), every metric once; a metric that
  took over 5 s on a row is not run on the longer ones.
* W5: 10,000 samples x 100 classes, 1-D class labels, k=5 (hit@k against
  ``top_k_accuracy_score``).

Rows: each metric alone (at k, and over the whole ranking, k=None, for a
metric that takes it; partial AUC, GAUC, a gain map and discount tables;
the beyond-accuracy measures too, with a popularity ramp) and the full
``ranking_report`` (all nine metrics at k), one thread unless said
otherwise; "ragged" is the same data given flat with ``qid`` (one segment
per query, no padding). Peers: scikit-learn ``ndcg_score``
(ties averaged, and ``ignore_ties=True``) and ``top_k_accuracy_score``;
pytrec_eval and ranx where installed (the conversion to their dicts of dicts
included: that is what a user of the matrices has to do; ranx is called once
before timing so that numba's compilation is not counted).

Then: extra memory of ragged qid input (4,000 queries of 10 documents and one
of 10,000), and TREC files: a 1,000,000-line run (10,000 queries) read and
evaluated by ``from_trec`` + ``ranking_report``, by the command line, and by
pytrec_eval (parse + evaluate); and the command line's peak memory on a run
with one 60,000-document query.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import ndcg_score, top_k_accuracy_score
from threadpoolctl import threadpool_limits

import sklearn_rankk as rk
from sklearn_rankk._core.registry import METRICS


def workloads(quick, only=None):
    """(name, title, y_true, y_score, k) of W1-W4 in turn; with ``only`` (a
    name), that one alone (W2's data is then made only for W2)."""
    scale = 10 if quick else 1
    rng = np.random.default_rng(1)
    n = 10_000 // scale
    scores = rng.random((n, 1_000))
    binary = (rng.random((n, 1_000)) < 0.03).astype(np.int64)
    if only in (None, "W1"):
        yield "W1", "10,000 x 1,000 float64, 3% relevant", binary, scores, 10
    if only in (None, "W2"):
        rng = np.random.default_rng(2)
        n2, m2 = 2_000 // scale, 50_000
        rows = np.repeat(np.arange(n2), 20)
        cols = np.concatenate([rng.choice(m2, 20, replace=False) for _ in range(n2)])
        y2 = sp.csr_matrix((np.ones(n2 * 20, dtype=np.int8), (rows, cols)), (n2, m2))
        yield (
            "W2",
            "2,000 x 50,000 float32, CSR relevance",
            y2,
            rng.random((n2, m2), dtype=np.float32),
            20,
        )
    if only in (None, "W3"):
        rng = np.random.default_rng(3)
        graded = rng.integers(0, 5, size=(n, 1_000)) * binary
        yield (
            "W3",
            "W1 rounded to 0.1 (ties), grades 0-4",
            graded,
            np.round(scores, 1),
            10,
        )
    if only in (None, "W4"):
        rng = np.random.default_rng(4)
        drawn = rng.random((n, 1_000)) < 0.1
        dense = rng.integers(0, 5, size=(n, 1_000)) * drawn
        yield (
            "W4",
            "W3's scores, grades 0-4 for 10% of items",
            dense,
            np.round(scores, 1),
            10,
        )


def floor(y_true, y_score):
    counts = y_true.getnnz(axis=1) if sp.issparse(y_true) else None
    if counts is None:
        counts = np.count_nonzero(y_true, axis=1)
    return y_score.max(axis=1), counts


def median_time(func, repeats, threads=1):
    times = []
    with rk.num_threads(threads):
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


def flat(y_true, y_score):
    """The same rows as flat arrays with query ids (one query per row)."""
    n, m = y_score.shape
    dense = y_true.toarray() if sp.issparse(y_true) else np.asarray(y_true)
    return dense.ravel(), y_score.ravel(), np.repeat(np.arange(n), m)


def report(y_true, y_score, k, **kwargs):
    return rk.ranking_report(y_true, y_score, k=k, zero_division=0.0, **kwargs)


def in_memory(
    name, title, y_true, y_score, k, repeats, metrics=None, measures_only=False
):
    """One workload's table (``measures_only``: F and each measure alone)."""
    rows = {"floor F (numpy read of the inputs)": (1, lambda: floor(y_true, y_score))}
    for metric, info in METRICS.items():
        if metrics and metric not in metrics:
            continue
        function = getattr(rk, info.function_name)
        kw = {"k": k} if info.needs_k else {}
        rows[f"{metric} alone"] = (
            1,
            lambda f=function, kw=kw: f(y_true, y_score, zero_division=0.0, **kw),
        )
        if info.allow_k_none:  # the whole ranking too
            rows[f"{metric}, k=None alone"] = (
                1,
                lambda f=function: f(y_true, y_score, k=None, zero_division=0.0),
            )
    # Issue 27's variants of the measures above: partial AUC and GAUC, the
    # DCG family with a gain map or a discount table (their own paths); each
    # runs when its metric or its key (auc_max_fpr, gauc, ndcg_gains,
    # ndcg_gains_whole, ndcg_reciprocal, dcg_jarvelin) is asked for.
    z = {"zero_division": 0.0}
    for metric, key, label, func in (
        (
            "auc",
            "auc_max_fpr",
            "auc, max_fpr=0.1",
            lambda: rk.auc_score(y_true, y_score, k=None, max_fpr=0.1, **z),
        ),
        (
            "auc",
            "gauc",
            'auc, average="relevant" (GAUC)',
            lambda: rk.auc_score(y_true, y_score, k=None, average="relevant", **z),
        ),
        (
            "ndcg",
            "ndcg_gains",
            "ndcg, gains={1: 3.5, 2: 9}",
            lambda: rk.ndcg_at_k_score(y_true, y_score, k=k, gains={1: 3.5, 2: 9}, **z),
        ),
        (
            "ndcg",
            "ndcg_gains_whole",
            "ndcg, k=None, gains={1: 3.5, 2: 9}",
            lambda: rk.ndcg_at_k_score(
                y_true, y_score, k=None, gains={1: 3.5, 2: 9}, **z
            ),
        ),
        (
            "ndcg",
            "ndcg_reciprocal",
            'ndcg, discount="reciprocal"',
            lambda: rk.ndcg_at_k_score(
                y_true, y_score, k=k, discount="reciprocal", **z
            ),
        ),
        (
            "dcg",
            "dcg_jarvelin",
            'dcg, discount="jarvelin"',
            lambda: rk.dcg_at_k_score(y_true, y_score, k=k, discount="jarvelin"),
        ),
    ):
        if not metrics or metric in metrics or key in metrics:
            rows[f"{label} alone"] = (1, func)
    # Beyond-accuracy measures (y_score only; popularity: a fixed ramp).
    pop = np.arange(y_score.shape[1], 0, -1, dtype=np.float64)
    for label, func in (
        ("item_exposure", lambda: rk.item_exposure(y_score, k=k)),
        ("catalog_coverage", lambda: rk.catalog_coverage_at_k(y_score, k=k)),
        ("gini_index", lambda: rk.gini_index_at_k(y_score, k=k)),
        ("entropy", lambda: rk.entropy_at_k(y_score, k=k)),
        ("average_popularity", lambda: rk.average_popularity_at_k(y_score, pop, k=k)),
        ("novelty", lambda: rk.novelty_at_k(y_score, pop, k=k)),
        ("long_tail_share", lambda: rk.long_tail_share_at_k(y_score, pop, k=k)),
    ):
        if not metrics or label in metrics:
            rows[f"{label} alone"] = (1, func)
    if not measures_only:
        rows.update(others(y_true, y_score, k))
    times = {}
    for label, (threads, func) in rows.items():
        slow = label.startswith(("ranx", "pytrec", "sklearn"))
        try:
            times[label] = median_time(
                func, min(repeats, 3) if slow else repeats, threads
            )
        except ValueError as error:
            times[label] = refused(error)
    print_table(name, title, k, times)


def others(y_true, y_score, k):
    """The report, threads, the ragged path and the peers' rows."""
    rows = {}
    rows["ranking_report, all nine"] = (1, lambda: report(y_true, y_score, k))
    rows["ranking_report, all nine, ignore_ties"] = (
        1,
        lambda: report(y_true, y_score, k, ignore_ties=True),
    )
    rows["ranking_report, all nine, 2 threads"] = (
        2,
        lambda: report(y_true, y_score, k),
    )
    rows["ndcg alone, 2 threads"] = (
        2,
        lambda: rk.ndcg_at_k_score(y_true, y_score, k=k, zero_division=0.0),
    )
    if not sp.issparse(y_true):  # W2's flat form would be 100M documents
        ft, fs, qid = flat(y_true, y_score)
        rows["ragged (qid): ndcg alone"] = (
            1,
            lambda: rk.ndcg_at_k_score(ft, fs, k=k, qid=qid, zero_division=0.0),
        )
        rows["ragged (qid): ranking_report, all nine"] = (
            1,
            lambda: report(ft, fs, k, qid=qid),
        )
        rows["sklearn ndcg_score (ties averaged)"] = (
            1,
            lambda: ndcg_score(y_true, y_score, k=k),
        )
        rows["sklearn ndcg_score, ignore_ties=True"] = (
            1,
            lambda: ndcg_score(y_true, y_score, k=k, ignore_ties=True),
        )
        if available("pytrec_eval"):
            rows["pytrec_eval ndcg_cut (dicts included)"] = (
                1,
                lambda: pytrec_ndcg(y_true, y_score, k),
            )
        if available("ranx"):
            ranx_ndcg(y_true[:2], y_score[:2], k)  # numba compilation, not timed
            rows["ranx ndcg (dicts included)"] = (
                1,
                lambda: ranx_ndcg(y_true, y_score, k),
            )
    return rows


def print_table(name, title, k, times):
    base = times["floor F (numpy read of the inputs)"]
    ours = times.get("ndcg alone")
    print(f"\n## {name}: {title}, k={k}\n")
    print("| what | median (ms) | / F | sklearn ndcg_score / this |")
    print("|---|---:|---:|---:|")
    sk = times.get("sklearn ndcg_score (ties averaged)")
    for label, t in times.items():
        if t is None:
            print(f"| {label} | raises (ties too many: ignore_ties=True) | | |")
            continue
        speed = f"{sk / t:.1f}" if sk else "n/a"
        print(f"| {label} | {t * 1e3:.1f} | {t / base:.2f} | {speed} |")
    if sk and ours:
        print(
            f"\nnDCG@{k}, ties averaged: {sk / ours:.0f}x faster than sklearn "
            f"ndcg_score (one thread)."
        )


def refused(error):
    """None for yaap's refusal of too many tie placements; re-raise the rest.

    The tables show that refusal as such; any other ValueError is a failure
    of the run, not a cell of a table.
    """
    if "2**20 placements" not in str(error):
        raise error
    return None


def heavy_ties(quick, metrics=None, budget=5.0):
    """One row whose items all tie: every metric once, on longer and longer rows."""
    sizes = (1_000, 3_000) if quick else (1_000, 3_000, 10_000)
    slow = {}
    print("\n## Heavy ties: one row, every item tied, 100 relevant (grades 1-4)\n")
    print("| metric | " + " | ".join(f"{n:,} items (ms)" for n in sizes) + " |")
    print("|---|" + "---:|" * len(sizes))
    cells = {metric: [] for metric in METRICS if not metrics or metric in metrics}
    for n in sizes:
        rng = np.random.default_rng(6)
        y_true = np.zeros((1, n), dtype=np.int64)
        y_true[0, rng.choice(n, 100, replace=False)] = rng.integers(1, 5, 100)
        y_score = np.zeros((1, n))
        for metric in cells:
            if metric in slow:
                cells[metric].append(f"skipped (> {budget:.0f} s at {slow[metric]:,})")
                continue
            info = METRICS[metric]
            function = getattr(rk, info.function_name)
            kw = {"k": 10} if info.needs_k else {}
            t0 = time.perf_counter()
            try:
                function(y_true, y_score, zero_division=0.0, **kw)
            except ValueError as error:
                refused(error)
                cells[metric].append("raises (ties too many: ignore_ties=True)")
                continue
            t = time.perf_counter() - t0
            cells[metric].append(f"{t * 1e3:.1f}")
            if t > budget:
                slow[metric] = n
    for metric, row in cells.items():
        print(f"| {metric} | " + " | ".join(row) + " |")


def labels_workload(repeats, quick):
    """W5: class labels, hit@k with ignore_ties against top_k_accuracy_score."""
    rng = np.random.default_rng(5)
    n = 10_000 // (10 if quick else 1)
    y = rng.integers(0, 100, n)
    scores = np.round(rng.random((n, 100)), 2)  # ties
    labels = np.arange(100)
    t_ours = median_time(
        lambda: rk.hit_at_k_score(y, scores, k=5, labels=labels, ignore_ties=True),
        repeats,
    )
    t_sk = median_time(
        lambda: top_k_accuracy_score(y, scores, k=5, labels=labels), repeats
    )
    same = rk.hit_at_k_score(
        y, scores, k=5, labels=labels, ignore_ties=True
    ) == top_k_accuracy_score(y, scores, k=5, labels=labels)
    print("\n## W5: 10,000 samples x 100 classes, tied scores, k=5\n")
    print("| what | median (ms) | top_k_accuracy_score / this |")
    print("|---|---:|---:|")
    print(f"| hit@5, ignore_ties=True | {t_ours * 1e3:.1f} | {t_sk / t_ours:.1f} |")
    print(f"| sklearn top_k_accuracy_score | {t_sk * 1e3:.1f} | 1.0 |")
    print(f"\nSame value as top_k_accuracy_score: {same}.")


def peak_extra(func):
    tracemalloc.start()
    try:
        func()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def qid_memory(quick):
    rng = np.random.default_rng(6)
    sizes = [10] * (400 if quick else 4_000) + [10_000]
    qid = np.repeat(np.arange(len(sizes)), sizes)
    y_true = (rng.random(qid.shape[0]) < 0.1).astype(np.int8)
    y_score = rng.random(qid.shape[0])
    inputs = y_true.nbytes + y_score.nbytes + qid.nbytes
    print(
        f"\n## Ragged qid input: {len(sizes) - 1:,} queries of 10 documents and "
        f"one of 10,000 (inputs {inputs / 2**20:.1f} MiB)\n"
    )
    print("| what | peak extra memory (MiB) |")
    print("|---|---:|")
    for label, func in (
        (
            "ndcg_at_k_score(k=10, qid=...)",
            lambda: rk.ndcg_at_k_score(
                y_true, y_score, k=10, qid=qid, zero_division=0.0
            ),
        ),
        (
            "ranking_report(k=10, qid=...)",
            lambda: rk.ranking_report(
                y_true, y_score, k=10, qid=qid, zero_division=0.0
            ),
        ),
    ):
        print(f"| {label} | {peak_extra(func) / 2**20:.1f} |")


def write_trec(folder, n_queries, docs_per_query, judged_per_query, seed, big=0):
    rng = np.random.default_rng(seed)
    run_path = os.path.join(folder, f"run{seed}")
    qrels_path = os.path.join(folder, f"qrels{seed}")
    sizes = [docs_per_query] * n_queries
    if big:
        sizes[0] = big
    with open(run_path, "w") as run, open(qrels_path, "w") as qrels:
        for q, size in enumerate(sizes):
            scores = np.round(rng.random(size) * 100, 3)
            lines = [
                f"q{q} Q0 doc{q}_{d} {r} {s} bench\n"
                for r, (d, s) in enumerate(zip(range(size), scores), start=1)
            ]
            run.writelines(lines)
            judged = rng.choice(size + 20, min(judged_per_query, size), replace=False)
            grades = rng.integers(-1, 4, judged.shape[0])
            qrels.writelines(f"q{q} 0 doc{q}_{d} {g}\n" for d, g in zip(judged, grades))
    return qrels_path, run_path


_PEAK = (
    "import resource, sys\n"
    "status = 0\n"
    "if sys.argv[1:]:\n"
    "    from sklearn_rankk._io.cli import main\n"
    "    status = main(sys.argv[1:])\n"
    "else:\n"
    "    import sklearn_rankk\n"
    "try:  # VmHWM: this process's own peak (ru_maxrss keeps the parent's\n"
    "    # peak across fork and exec on Linux)\n"
    "    with open('/proc/self/status') as f:\n"
    "        kib = next(int(l.split()[1]) for l in f if l.startswith('VmHWM'))\n"
    "except OSError:\n"
    "    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
    "print(kib, file=sys.stderr)\n"
    "sys.exit(status)\n"
)


def child_peak_mib(args=()):
    """Wall time and peak RSS of a child process running the command line
    with ``args`` (no args: importing the package only). The child reports
    its own peak (RUSAGE_CHILDREN would give the largest of every child so
    far, and the child's ru_maxrss starts from this process's peak)."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, *args],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    elapsed = time.perf_counter() - t0
    return elapsed, int(done.stderr.split()[-1]) / 1024


def trec(quick, repeats):
    measures = ["-m", "map", "-m", "ndcg_cut.10", "-m", "P.10", "-m", "recip_rank"]
    with tempfile.TemporaryDirectory() as folder:
        n_queries = 1_000 if quick else 10_000
        qrels_path, run_path = write_trec(folder, n_queries, 100, 50, 1)
        size = os.path.getsize(run_path)
        lines = n_queries * 100
        t_ours = median_time(
            lambda: rk.ranking_report(
                *rk.from_trec(qrels_path, run_path)[:2], k=10, zero_division=0.0
            ),
            repeats,
        )
        tracemalloc.start()
        rk.ranking_report(*rk.from_trec(qrels_path, run_path)[:2], k=10)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        cli = [*measures, qrels_path, run_path]
        runs = [child_peak_mib(cli) for _ in range(repeats)]
        t_cli = statistics.median(t for t, _ in runs)
        cli_peak = max(p for _, p in runs)
        print(
            f"\n## TREC run of {lines:,} lines ({size / 1e6:.0f} MB, {n_queries:,} "
            f"queries)\n"
        )
        print("| what | median (s) | / pytrec_eval |")
        print("|---|---:|---:|")
        rows = [
            (f"from_trec + ranking_report (peak {peak:.0f} MiB traced)", t_ours),
            (
                f"command line (map, ndcg_cut_10, P_10, recip_rank; process start "
                f"included; peak RSS {cli_peak:.0f} MiB)",
                t_cli,
            ),
        ]
        if available("pytrec_eval"):
            import pytrec_eval

            def pytrec():
                with open(qrels_path) as f:
                    qrels = pytrec_eval.parse_qrel(f)
                with open(run_path) as f:
                    run = pytrec_eval.parse_run(f)
                measures = {"map", "ndcg_cut.10", "P.10", "recip_rank"}
                pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)

            t_ref = median_time(pytrec, repeats)
            rows.append(("pytrec_eval: parse + evaluate", t_ref))
        else:
            t_ref = None
        for label, t in rows:
            ratio = f"{t / t_ref:.2f}" if t_ref else "n/a"
            print(f"| {label} | {t:.2f} | {ratio} |")
        # One very long query among short ones: memory follows the file.
        qrels_path, run_path = write_trec(
            folder, 50, 100, 30, 2, big=6_000 if quick else 60_000
        )
        size = os.path.getsize(run_path)
        _, base = child_peak_mib()
        elapsed, peak = child_peak_mib([*measures, qrels_path, run_path])
        print(
            f"\nOne query of {60_000 if not quick else 6_000:,} documents among 49 of "
            f"100 ({size / 1e6:.1f} MB run): command line {elapsed:.2f} s, peak "
            f"RSS {peak:.0f} MiB (importing the package alone: {base:.0f} MiB)."
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1/10 of the rows")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--in-memory",
        action="store_true",
        help="only the in-memory workloads W1-W4 (no heavy ties, W5, memory or "
        "TREC files)",
    )
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated sections to run: W1..W5, heavy, qid, trec",
    )
    parser.add_argument(
        "--metrics", default="", help="comma-separated metrics (default: all)"
    )
    parser.add_argument(
        "--measures-only",
        action="store_true",
        help="in W1-W4, only F and each measure alone (no report, threads, "
        "ragged path or peers)",
    )
    args = parser.parse_args()
    # BLAS on one thread for the whole run: OpenBLAS's idle threads spin on
    # the other cores after a call, beside the timings (the kernel's own
    # OpenMP threads are not BLAS's and keep their setting).
    threadpool_limits(1, user_api="blas")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # for the child processes
    only = set(filter(None, args.only.split(",")))
    metrics = set(filter(None, args.metrics.split(","))) or None
    print(
        f"sklearn_rankk {rk.__version__}, numpy {np.__version__}, "
        f"{os.cpu_count()} CPUs; one thread unless said otherwise."
    )
    for name, title, y_true, y_score, k in workloads(args.quick):
        if not only or name in only:
            in_memory(
                name,
                title,
                y_true,
                y_score,
                k,
                args.repeats,
                metrics,
                args.measures_only,
            )
    if args.in_memory:
        return
    if not only or "heavy" in only:
        heavy_ties(args.quick, metrics)
    if not only or "W5" in only:
        labels_workload(args.repeats, args.quick)
    if not only or "qid" in only:
        qid_memory(args.quick)
    if not only or "trec" in only:
        trec(args.quick, max(1, args.repeats // 2))


def measure_tables(doc, rows_of, names=("W1", "W2", "W3"), threads=1):
    """The command line of a benchmark of measures alone (bench_gains.py,
    bench_propensity.py): ``--repeats N`` (default 3); for each workload of
    ``names``, F and each call of ``rows_of(y_true, y_score, k)`` (a dict:
    label -> function of no argument) as medians over the repeats and ratios
    to F, one Markdown table per workload. A call that raises ValueError
    says so in its row. ``threads``: the kernel's threads (None: its
    default). ``doc``: the benchmark's docstring (its first line is the
    command's description)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    repeats = parser.parse_args().repeats
    for name, title, y_true, y_score, k in workloads(False):
        if name not in names:
            continue
        f = median_time(lambda t=y_true, s=y_score: floor(t, s), 2 * repeats, threads)
        print(f"\n## {name}: {title}, k={k}; F = {f * 1e3:.1f} ms\n")
        print("| what | median (ms) | / F |\n|---|---:|---:|")
        for label, func in rows_of(y_true, y_score, k).items():
            try:
                t = median_time(func, repeats, threads)
            except ValueError as error:
                print(f"| {label} | raises: {str(error)[:50]}... | |", flush=True)
                continue
            print(f"| {label} | {t * 1e3:.1f} | {t / f:.2f} |", flush=True)


if __name__ == "__main__":
    main()
