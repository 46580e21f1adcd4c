"""Two builds timed on one call, alternated: the speed of a change, as A/B.

Run: ``python benchmarks/ab.py OTHER_TREE CALL [--workload W4] [--kw k=10]
[--runs 10] [--rounds 3]``. OTHER_TREE is another checkout with its
extension built in place (see builds.py), CALL a public function of
sklearn_rankk called as ``CALL(y_true, y_score, **kw)`` on one of run.py's
workloads W1-W4 (the same data for both builds: this checkout's run.py
makes it), one thread.

Each round runs OTHER_TREE's build, then this one's, each in a fresh process
that makes the workload, times the floor F (run.py's numpy read of the
inputs) and the call ``--runs`` times each, alternated. Printed: the fastest
time of each over every round, and the call's ratio to F's fastest in the
same processes. This machine's speed drifts by 15-25% between minutes, so
only the two builds' figures of one run compare; a difference smaller than
about 5% is noise.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import time

from builds import THIS_TREE, describe, run_child, use_tree


def keywords(pairs):
    """``["k=10", "ignore_ties=True"]`` -> ``{"k": 10, "ignore_ties": True}``."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.isidentifier():
            raise SystemExit(f"--kw takes NAME=VALUE, got {pair!r}")
        try:
            out[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[name] = value  # a bare word: a string
    return out


def child(tree, call, workload, kw, runs, quick):
    """Time F and the call in this process, against ``tree``'s build."""
    rk = use_tree(tree)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from run import floor, workloads

    found = next((w for w in workloads(quick) if w[0] == workload), None)
    if found is None:
        raise SystemExit(f"no workload {workload!r} (W1-W4)")
    y_true, y_score = found[2], found[3]
    fn = getattr(rk, call)
    best_f = best_call = float("inf")
    with rk.num_threads(1):
        fn(y_true, y_score, **kw)  # (first call: imports, caches)
        for _ in range(runs):
            t = time.perf_counter()
            floor(y_true, y_score)
            best_f = min(best_f, time.perf_counter() - t)
            t = time.perf_counter()
            fn(y_true, y_score, **kw)
            best_call = min(best_call, time.perf_counter() - t)
    print(json.dumps({"F": best_f, "call": best_call}))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("other", help="another checkout, its extension built in place")
    parser.add_argument("call", help="a function of sklearn_rankk, e.g. ranking_report")
    parser.add_argument("--workload", default="W1", help="W1, W2, W3 or W4 (run.py's)")
    parser.add_argument(
        "--kw", action="append", default=[], help="NAME=VALUE, repeatable"
    )
    parser.add_argument("--runs", type=int, default=10, help="timed calls per process")
    parser.add_argument("--rounds", type=int, default=3, help="processes per build")
    parser.add_argument("--quick", action="store_true", help="1/10 of the rows")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    kw = keywords(args.kw)
    if args.child:
        return child(args.child, args.call, args.workload, kw, args.runs, args.quick)
    trees = [os.path.abspath(args.other), THIS_TREE]
    best = {tree: {"F": float("inf"), "call": float("inf")} for tree in trees}
    passed = [
        args.other,
        args.call,
        "--workload",
        args.workload,
        "--runs",
        str(args.runs),
    ]
    passed += [f"--kw={pair}" for pair in args.kw] + (["--quick"] if args.quick else [])
    for _ in range(args.rounds):
        for tree in trees:  # the other build first, as it was first built
            got = run_child("ab.py", tree, passed)
            for key in best[tree]:
                best[tree][key] = min(best[tree][key], got[key])
    shown = ", ".join(f"{k}={v!r}" for k, v in kw.items())
    print(
        f"{args.call}({shown}) on {args.workload}, one thread, the fastest of "
        f"{args.runs * args.rounds} runs each ({args.rounds} rounds, alternated)\n"
    )
    print("| build | F (ms) | call (ms) | / F |")
    print("|---|---:|---:|---:|")
    for tree in trees:
        f, c = best[tree]["F"], best[tree]["call"]
        label = describe(tree) + (" (this checkout)" if tree == THIS_TREE else "")
        print(f"| {label} | {f * 1e3:.1f} | {c * 1e3:.1f} | {c / f:.2f} |")
    old, new = (best[tree]["call"] for tree in trees)
    print(f"\nthis checkout / the other: {new / old:.3f}")


if __name__ == "__main__":
    main()
