"""Peak extra memory and time on a large sparse y_true, as issue 2 asks.

Run: ``python benchmarks/bench_memory.py [--rows 100000] [--cols 50000]``

``y_true`` is a CSR matrix with 20 positives a row; ``y_score`` is one
random row broadcast to the full shape (a zero-stride view, so it takes no
memory and any large allocation is the package's own). Densified, ``y_true``
alone would take rows x cols bytes as bool. Peak memory is measured with
``tracemalloc`` (numpy reports its allocations there).
"""

import argparse
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp

import sklearn_rankk as rk


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--cols", type=int, default=50_000)
    parser.add_argument("--per-row", type=int, default=20)
    args = parser.parse_args()
    n, m, per_row = args.rows, args.cols, args.per_row
    rng = np.random.default_rng(0)
    cols = rng.integers(0, m, size=n * per_row)
    y_true = sp.csr_matrix(
        (np.ones(n * per_row), cols, np.arange(0, n * per_row + 1, per_row)),
        shape=(n, m),
    )
    y_score = np.broadcast_to(rng.random(m), (n, m))
    print(
        f"y_true CSR {n} x {m}, {per_row} positives a row; dense bool would be "
        f"{n * m / 1e9:.1f} GB"
    )
    print("| metric | value | seconds | peak extra memory (MB) |")
    print("|---|---:|---:|---:|")
    for name, kwargs in [("recall", {"k": 20}), ("ndcg", {"k": 20})]:
        f = getattr(rk, f"{name}_at_k_score")
        tracemalloc.start()
        t0 = time.perf_counter()
        value = f(y_true, y_score, **kwargs)
        seconds = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"| {name}@20 | {value:.6f} | {seconds:.1f} | {peak / 1e6:.1f} |")


if __name__ == "__main__":
    main()
