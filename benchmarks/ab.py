"""Two builds timed on one call, alternated: the speed of a change, as A/B.

Run: ``python benchmarks/ab.py OTHER_TREE CALL [--workload W4] [--kw k=10]
[--runs 10] [--rounds 4]``. OTHER_TREE is another checkout with its
extension built in place (see builds.py), CALL a public function of
sklearn_rankk called as ``CALL(y_true, y_score, k=<the workload's k>,
**kw)`` on one of run.py's workloads W1-W4 (the same data for both builds:
this checkout's run.py makes it), one thread. ``--kw k=None``: the whole
ranking; a function that takes no k is called without one.

Each round runs both builds, each in a fresh process that makes the
workload and times the floor F (run.py's numpy read of the inputs) and the
call ``--runs`` times each, alternated; the rounds alternate which build
goes first (ABBA). Printed: the fastest time of each build over every
round, its ratio to F's fastest in the same processes, and the spread of
the call's per-process fastest times. This machine's speed drifts by
15-25% between minutes, so only the two builds' figures of one run
compare; the ratio of the two /F figures is the steadier one, and a
difference smaller than about 5% is noise (the same kernel measured
against itself moved 3% and 23% in two such runs).
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import os
import sys
import time

from builds import THIS_TREE, check_other, describe, run_child, use_tree, warn_stale

WORKLOADS = ("W1", "W2", "W3", "W4")


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
    fn = getattr(rk, call, None)
    if fn is None or call.startswith("_"):
        raise SystemExit(f"sklearn_rankk at {tree} has no function {call!r}")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from run import floor, workloads

    (_, _, y_true, y_score, k) = next(workloads(quick, only=workload))
    # The workload's k unless given (k=None: the whole ranking), where the
    # function takes a k at all.
    if "k" in inspect.signature(fn).parameters:
        kw = {"k": k, **kw}
    elif kw.get("k", 0) is None:
        del kw["k"]
    best_f, best_call = float("inf"), float("inf")
    with rk.num_threads(1):
        fn(y_true, y_score, **kw)  # (first call: imports, caches)
        for _ in range(runs):
            t = time.perf_counter()
            floor(y_true, y_score)
            best_f = min(best_f, time.perf_counter() - t)
            t = time.perf_counter()
            fn(y_true, y_score, **kw)
            best_call = min(best_call, time.perf_counter() - t)
    called = ", ".join(f"{name}={value!r}" for name, value in kw.items())
    print(json.dumps({"F": best_f, "call": best_call, "called": called}))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "other",
        metavar="OTHER_TREE",
        help="another checkout, its extension built in place",
    )
    parser.add_argument("call", metavar="CALL", help="a function of sklearn_rankk")
    parser.add_argument("--workload", default="W1", choices=WORKLOADS, help="run.py's")
    parser.add_argument(
        "--kw", action="append", default=[], metavar="NAME=VALUE", help="repeatable"
    )
    parser.add_argument("--runs", type=int, default=10, help="timed calls per process")
    parser.add_argument("--rounds", type=int, default=4, help="processes per build")
    parser.add_argument("--quick", action="store_true", help="1/10 of the rows")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    kw = keywords(args.kw)
    if args.child:
        return child(args.child, args.call, args.workload, kw, args.runs, args.quick)
    other = check_other(args.other)
    warn_stale([other, THIS_TREE])
    trees = [other, THIS_TREE]
    got = {tree: [] for tree in trees}
    passed = [
        args.other,
        args.call,
        "--workload",
        args.workload,
        "--runs",
        str(args.runs),
    ]
    passed += [f"--kw={pair}" for pair in args.kw] + (["--quick"] if args.quick else [])
    for r in range(args.rounds):
        for tree in trees if r % 2 == 0 else trees[::-1]:  # ABBA
            got[tree].append(run_child("ab.py", tree, passed))
    shown = got[THIS_TREE][0]["called"]  # (as called: the workload's k added)
    print(
        f"{args.call}({shown}) on {args.workload}, one thread; "
        f"the fastest of {args.runs * args.rounds} runs each ({args.rounds} processes, "
        "alternated ABBA)\n"
    )
    print("| build | F (ms) | call (ms) | / F | call, per process (ms) |")
    print("|---|---:|---:|---:|---|")
    best = {}
    for tree in trees:
        f = min(g["F"] for g in got[tree])
        c = min(g["call"] for g in got[tree])
        best[tree] = (f, c)
        each = ", ".join(f"{g['call'] * 1e3:.1f}" for g in got[tree])
        label = describe(tree) + (" (this checkout)" if tree == THIS_TREE else "")
        print(f"| {label} | {f * 1e3:.1f} | {c * 1e3:.1f} | {c / f:.2f} | {each} |")
    (f_old, c_old), (f_new, c_new) = best[other], best[THIS_TREE]
    print(
        f"\nthis checkout / the other: {c_new / c_old:.3f} in time, "
        f"{(c_new / f_new) / (c_old / f_old):.3f} in ratio to F"
    )
    if abs(f_new / f_old - 1.0) > 0.05:
        print(
            f"warning: F itself moved {100 * (f_new / f_old - 1):+.0f}% between the "
            "builds' processes: the machine's speed drifted; run again"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
