"""Scale: a recommender-shaped workload too big to hold, on a LocalCluster.

Run: ``python benchmarks/bench_scale.py`` (200,000 users x 20,000 items,
float32 scores: 16 GB, never held: generated block by block on two workers
of 2 GiB each), or ``--quick`` for a tiny version; ``--rows``, ``--cols``,
``--chunk-rows``, ``--workers``, ``--memory-limit`` and ``--memmap-rows``
set the sizes.

Scores are those of a rank-32 factorisation model, user factors times item
factors (float32), computed by ``dask.array`` in blocks of whole rows;
relevance is CSR with 20 items a row (one in each twentieth of the
columns), graded 1-3, generated per block. The metrics are nDCG@10 and
recall@20 from one pass. Reported, in one run:

* the in-memory kernel on one block of rows (the same code path without
  dask), scores ready, on 1 thread and on as many threads as workers;
* that block generated, and generated and evaluated, on 1 thread: the work
  of one task;
* the cluster: generation alone, then generation and evaluation with the
  per-row values back to the client; with the peak resident memory of each
  worker process (psutil, sampled every 0.2 s);
* a ``numpy.memmap`` of ``--memmap-rows`` rows on disk, read block by block
  (peak extra memory from tracemalloc; the file is in the page cache after
  it is written, so this is the memmap path's own cost), and the streaming
  ``RankingAccumulator`` over it in batches of 1,000 rows.

Besides wall-clock times, the CPU seconds spent (this process, plus the
worker processes for the cluster) are reported: on a shared machine they
measure the work done, whatever else runs.
"""

import argparse
import functools
import logging
import os
import tempfile
import threading
import time
import tracemalloc

import numpy as np
import psutil
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from sklearn_rankk import RankingAccumulator, get_scorer, num_threads

METRICS = ["ndcg@10", "recall@20"]
PER_ROW = 20
RANK = 32


@functools.lru_cache(maxsize=2)
def _item_factors(m):
    return np.random.default_rng(0).standard_normal((m, RANK), dtype=np.float32)


def score_block(shape, start):
    """float32 scores of rows ``start:start + shape[0]``: user x item factors."""
    n, m = shape
    users = np.random.default_rng([1, start]).standard_normal((n, RANK), np.float32)
    return users @ _item_factors(m).T


def relevance_block(shape, start):
    """CSR relevance of rows ``start:...``: one item in each twentieth."""
    n, m = shape
    rng = np.random.default_rng([2, start])
    width = m // PER_ROW
    cols = np.arange(PER_ROW) * width + rng.integers(0, width, size=(n, PER_ROW))
    grades = rng.integers(1, 4, size=n * PER_ROW).astype(np.int8)
    indptr = np.arange(0, n * PER_ROW + 1, PER_ROW)
    return sp.csr_matrix((grades, cols.ravel(), indptr), shape=(n, m))


def _lazy(n, m, chunk):
    """(y_true, y_score) as dask arrays, each block made where it is used."""
    import dask.array as da

    chunks = ((chunk,) * (n // chunk) + ((n % chunk,) if n % chunk else ()), (m,))

    def scores(block_info=None):
        info = block_info[None]
        return score_block(info["chunk-shape"], info["array-location"][0][0])

    def relevance(block_info=None):
        info = block_info[None]
        return relevance_block(info["chunk-shape"], info["array-location"][0][0])

    y_score = da.map_blocks(scores, chunks=chunks, dtype=np.float32)
    y_true = da.map_blocks(
        relevance,
        chunks=chunks,
        dtype=np.int8,
        meta=sp.csr_matrix((0, 0), dtype=np.int8),
    )
    return y_true, y_score


def _rss():
    return psutil.Process().memory_info().rss


def _kernel_threads():
    from sklearn_rankk._core.ranking import n_threads

    return n_threads()


def _nnz(block):
    return np.array([[block.nnz]])


def _best(f, repeat=5):
    """Least wall-clock and CPU seconds of ``repeat`` calls."""
    wall, cpu = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        f()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return min(wall), min(cpu)


class _Sampler:
    """Peak RSS of every worker process, sampled every 0.2 s."""

    def __init__(self, client):
        self.client, self.peak, self._stop = client, {}, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            for worker, rss in self.client.run(_rss).items():
                self.peak[worker] = max(self.peak.get(worker, 0), rss)
            self._stop.wait(0.2)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _on_cluster(client, f):
    """Wall and CPU seconds of ``f()``: this process plus every worker."""
    c0, w0 = time.process_time(), client.run(time.process_time)
    t0 = time.perf_counter()
    out = f()
    wall = time.perf_counter() - t0
    cpu = (
        time.process_time()
        - c0
        + sum(v - w0[k] for k, v in client.run(time.process_time).items())
    )
    return out, wall, cpu


def _row(label, rows, cols, timing, memory="-"):
    wall, cpu = timing
    gb = rows * cols * 4 / 1e9
    print(
        f"| {label} | {rows:,} x {cols:,} ({gb:.2f} GB) | {wall:.2f} | {cpu:.2f} "
        f"| {rows / wall:,.0f} | {gb / wall:.2f} | {rows / cpu:,.0f} | {memory} |"
    )
    return rows / wall, rows / cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--cols", type=int, default=20_000)
    parser.add_argument("--chunk-rows", type=int, default=2_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="2GiB")
    parser.add_argument("--memmap-rows", type=int, default=20_000)
    parser.add_argument("--quick", action="store_true", help="a tiny run")
    args = parser.parse_args()
    if args.quick:
        args.rows, args.cols, args.chunk_rows = 20_000, 2_000, 1_000
        args.memmap_rows = 4_000
    n, m, chunk, workers = args.rows, args.cols, args.chunk_rows, args.workers
    scorer = get_scorer(METRICS)

    import dask
    from distributed import Client, LocalCluster

    print(
        f"Workload: {n:,} x {m:,} float32 scores ({n * m * 4 / 1e9:.1f} GB dense), "
        f"CSR relevance with {PER_ROW} items a row, metrics {METRICS}; "
        f"blocks of {chunk:,} rows; {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.1f} at the start.\n"
    )
    print(
        "| path | rows x items | wall s | CPU s | rows/s | GB/s of scores "
        "| rows per CPU s | peak memory |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---|")

    # In memory, one block of rows: the same code path without dask.
    y_true_s, y_score_s = relevance_block((chunk, m), 0), score_block((chunk, m), 0)
    kernel = {}
    for threads in sorted({1, workers}):
        with num_threads(threads):
            kernel[threads] = _row(
                f"in-memory kernel, one block, {threads} thread(s)",
                chunk,
                m,
                _best(lambda: scorer._score(y_true_s, y_score_s)),
            )

    def generate():
        return relevance_block((chunk, m), 0), score_block((chunk, m), 0)

    with num_threads(1), threadpool_limits(1):  # one thread, BLAS included
        _row("in-memory generate only, one block, 1 thread", chunk, m, _best(generate))
        task = _row(
            "in-memory generate + evaluate, one block, 1 thread",
            chunk,
            m,
            _best(lambda: scorer._score(*generate())),
        )

    cluster = LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        memory_limit=args.memory_limit,
        silence_logs=logging.ERROR,
    )
    with cluster, Client(cluster) as client:
        threads_seen = sorted(set(client.run(_kernel_threads).values()))
        idle = client.run(_rss)
        y_true, y_score = _lazy(n, m, chunk)
        # Check: the cluster's answer on the first block is the in-memory one.
        first = scorer._score(y_true[:chunk], y_score[:chunk])
        assert first == scorer._score(y_true_s, y_score_s), "cluster != in memory"
        # Generation alone: each block made, then reduced to one number.
        _, *timing = _on_cluster(
            client,
            lambda: dask.compute(
                y_score[:, 0].sum(), y_true.map_blocks(_nnz, dtype=int).sum()
            ),
        )
        label = f"dask LocalCluster, {workers} workers x 1 thread"
        _row(f"{label}, generate only", n, m, timing)
        with _Sampler(client) as sampler:
            result, *timing = _on_cluster(
                client, lambda: scorer._score(y_true, y_score)
            )
        peaks = ", ".join(f"{sampler.peak[w] / 2**20:,.0f}" for w in sorted(idle))
        base = ", ".join(f"{idle[w] / 2**20:,.0f}" for w in sorted(idle))
        cluster_rate = _row(
            f"{label} (kernel threads {threads_seen}), generate + evaluate",
            n,
            m,
            timing,
            f"RSS per worker {peaks} MiB (idle {base} MiB; limit "
            f"{args.memory_limit} each)",
        )

    # Out of core on one machine: a memmap, block by block.
    with tempfile.TemporaryDirectory() as tmp:
        _memmap_rows(scorer, os.path.join(tmp, "scores.f32"), args)

    rate = cluster_rate[0]
    print(
        f"\nCluster throughput / in-memory kernel: {rate / kernel[1][0]:.2f}x "
        f"of 1 thread, {rate / kernel[workers][0]:.2f}x of {workers} "
        f"threads (wall clock); per CPU second, the cluster does "
        f"{cluster_rate[1] / task[1]:.2f}x the rows of one in-memory task "
        f"(generate + evaluate) and {cluster_rate[1] / kernel[1][1]:.2f}x those of "
        f"the in-memory kernel alone."
    )
    print(f"Result: { {k: round(v, 6) for k, v in result.items()} }")
    print(f"Load average at the end: {os.getloadavg()[0]:.1f}.")


def _memmap_rows(scorer, path, args):
    """The memmap path, and the streaming accumulator over the memmap."""
    rows, m, chunk = args.memmap_rows, args.cols, args.chunk_rows
    mm = np.memmap(path, dtype=np.float32, mode="w+", shape=(rows, m))
    for start in range(0, rows, chunk):
        stop = min(start + chunk, rows)
        mm[start:stop] = score_block((stop - start, m), start)
    mm.flush()
    mm = np.memmap(path, dtype=np.float32, mode="r", shape=(rows, m))
    y_true = sp.vstack(
        [relevance_block((min(chunk, rows - s), m), s) for s in range(0, rows, chunk)],
        format="csr",
    )
    with num_threads(1):
        timing = _best(lambda: scorer._score(y_true, mm), repeat=2)
        tracemalloc.start()
        scorer._score(y_true, mm)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        _row(
            "numpy.memmap, 1 thread",
            rows,
            m,
            timing,
            f"{peak / 2**20:.1f} MiB extra (tracemalloc); file "
            f"{rows * m * 4 / 2**20:,.0f} MiB",
        )

        def stream():
            acc = RankingAccumulator(METRICS)
            for start in range(0, rows, 1_000):
                batch = slice(start, start + 1_000)
                acc.update(y_true[batch], mm[batch])
            return acc.result()

        _row(
            "RankingAccumulator over the memmap, batches of 1,000 rows, 1 thread",
            rows,
            m,
            _best(stream, repeat=2),
            "state: a few floats per metric",
        )


if __name__ == "__main__":
    main()
