"""How many candidates select_top's guessed threshold leaves, rule by rule.

Run: ``python benchmarks/threshold_rules.py [--workload W1] [--rows N]``.
No timing: a simulation in numpy of the rule that sets a row's threshold
from the rows before it (select.hpp's ``next_guess``), over one of run.py's
workloads at its k. For each rule and wanted count it prints the mean
number of candidates a row (the items reaching the threshold), the mean of
its square (what ranking them by counting costs) and the rows left with
fewer than k (read again below the threshold). A row whose candidates
overflow four times the wanted count is cut back to it, as the kernel's
buffer is.

Rules: ``before`` (up to the twenty-first session): the previous row's
wanted-th best score, else its lowest kept one; ``gap``: else its lowest
kept one lowered by the candidates' mean gap for each item missing;
``average``: ``gap`` averaged over the rows, 1/4 to the newest (the kernel
now, wanting k + k/2 + 8).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np


def simulate(scores, k, want, rule):
    """(mean candidates, mean squared candidates, rows short of k)."""
    prev, guess = None, None
    counts, short = [], 0
    for row in scores:
        if prev is None:
            t = -np.inf
        else:
            n = len(prev)
            if n >= want:
                e = np.sort(prev)[::-1][want - 1]
            elif rule == "before" or n < 2:
                e = prev.min()
            else:
                lo, hi = prev.min(), prev.max()
                e = lo - (hi - lo) / (n - 1) * (want - n)
            if rule == "average" and guess is not None:
                e = guess + (e - guess) * 0.25
            t = guess = e
        cand = row[row >= t]
        if len(cand) < k or len(cand) > 4 * want:
            short += len(cand) < k
            kth = np.sort(row)[::-1][want - 1]
            cand = row[row >= kth]
        counts.append(len(cand))
        prev = cand
    counts = np.asarray(counts, dtype=np.float64)
    return counts.mean(), (counts**2).mean(), short


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workload", default="W1", choices=["W1", "W2", "W3", "W4"])
    parser.add_argument("--rows", type=int, default=10_000)
    args = parser.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from run import workloads

    (_, title, _, y_score, k) = next(workloads(False, only=args.workload))
    scores = np.asarray(y_score[: args.rows], dtype=np.float64)
    print(f"{args.workload} ({title}), k={k}, {len(scores)} rows\n")
    print("| rule | wanted | mean candidates | mean squared | rows short of k |")
    print("|---|---:|---:|---:|---:|")
    for rule, want in [
        ("before", 3 * k + 8),
        ("gap", 3 * k + 8),
        ("gap", 2 * k),
        ("average", 2 * k),
        ("average", k + k // 2 + 8),
    ]:
        mean, square, short = simulate(scores, k, want, rule)
        print(f"| {rule} | {want} | {mean:.1f} | {square:.0f} | {short} |")


if __name__ == "__main__":
    main()
