"""Every metric's values on tie-heavy inputs, compared bit for bit between builds.

Run: ``python benchmarks/values.py OTHER_TREE`` (another checkout with its
extension built in place, see builds.py), or ``--save FILE`` then, after a
change, ``--against FILE``. A kernel change that should not move a value
is checked this way: every public metric of the registry on dense and CSR
relevance, float64 and float32 scores rounded to one, two or three
decimals (tie groups of every size) or not, -inf scores, unjudged items
(grade -1), both tie modes, at two cut-offs and over the whole ranking;
and ``ranking_report`` and the set cut-offs at cut-offs inside and past
the tie groups, on graded and fractional relevance; nDCG, DCG and the
ideal DCG over integer dtypes, grade ranges and thresholds (the ideal
ranking counted by level). A call that raises is recorded by its
exception's name and message, so a refusal that changes shows too. A
minute or two a build.

Printed: how many values differ, bit for bit (-0.0 is not +0.0; NaN
equals NaN), the largest relative difference, the calls on one side only,
and the first calls that differ. Exit status 1 when any does.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import warnings

import numpy as np
from builds import THIS_TREE, check_other, describe, run_child, use_tree, warn_stale

SHAPES = [
    # rows, items, decimals of the scores, share of graded items, fractional
    # grades, share of unjudged items (grade -1: bpref, infAP, AUC tell them)
    (200, 300, 1, 0.05, False, 0.0),
    (200, 60, 2, 0.2, False, 0.0),
    (100, 40, None, 0.1, False, 0.0),
    (50, 500, 1, 0.3, False, 0.0),
    (100, 1000, 1, 0.1, True, 0.0),
    (100, 2000, 1, 0.02, False, 0.0),
    (200, 300, None, 0.2, False, 0.05),
    (100, 2000, 3, 0.1, False, 0.05),
    (60, 500, 2, 0.3, False, 0.05),
]


def inputs(shapes=SHAPES):
    """(name, y_true, y_score): graded rows with ties, dense and CSR."""
    import scipy.sparse as sp

    rng = np.random.default_rng(11)
    for n, m, decimals, share, fractional, unjudged in shapes:
        y_score = rng.random((n, m))
        if decimals is not None:
            y_score = np.round(y_score, decimals)
        y_true = rng.integers(0, 5, size=(n, m)) * (rng.random((n, m)) < share)
        if fractional:
            y_true = y_true * rng.random((n, m)) * 1.7
        if unjudged:
            y_true[rng.random((n, m)) < unjudged] = -1
        y_score[rng.random((n, m)) < 0.01] = -np.inf
        name = f"{n}x{m},dec={decimals},share={share}" + (",frac" if fractional else "")
        name += f",unjudged={unjudged}" if unjudged else ""
        yield name + ",dense", y_true, y_score
        yield name + ",csr,f32", sp.csr_matrix(y_true), y_score.astype(np.float32)


def refusal(label, error):
    """The entry of a call that raised: what it raised, in its label."""
    message = (str(error).splitlines() or [""])[0][:120]
    return (f"{label} raises {type(error).__name__}: {message}", np.array([np.nan]))


def call(out, label, fn, *args, **kw):
    """Append fn's values (or what it raised) under label."""
    try:
        values = np.asarray(fn(*args, **kw), dtype=float).ravel()
        out.append((label, values))
    except Exception as error:  # noqa: BLE001 (a refusal is a result too)
        out.append(refusal(label, error))


def collect(rk, shapes=SHAPES):
    """[(label, values)] of every call, in a fixed order: every metric of the
    registry (at k = 5, 1 and None, the whole ranking, where it takes k), the
    report at cut-offs inside and past the tie groups, and R-precision,
    precision and nDCG at deeper cut-offs, in both tie modes."""
    from sklearn_rankk._core.registry import METRICS

    out = []
    warnings.simplefilter("ignore")
    for data, y_true, y_score in inputs(shapes):
        for ignore_ties in (False, True):
            base = {"ignore_ties": ignore_ties, "average": None}
            for metric in METRICS.values():
                fn = getattr(rk, metric.function_name, None)
                if fn is None:
                    continue
                takes_k = "k" in inspect.signature(fn).parameters
                for kw in (
                    [{**base, "k": k} for k in (5, 1, None)] if takes_k else [base]
                ):
                    call(out, f"{metric.name} {data} {kw}", fn, y_true, y_score, **kw)
            for ks in [(1, 5, 10), (10,), (3, 50), (100,)]:
                label = f"ranking_report {data} k={ks} ignore_ties={ignore_ties}"
                try:
                    report = rk.ranking_report(
                        y_true,
                        y_score,
                        k=ks,
                        ignore_ties=ignore_ties,
                        per_row=True,
                        zero_division=0,
                    )
                except Exception as error:  # noqa: BLE001
                    out.append(refusal(label, error))
                    continue
                for key in sorted(report.scores):
                    values = np.asarray(report.scores[key], dtype=float).ravel()
                    out.append((f"{label} {key}", values))
            deep = {**base, "zero_division": 0}
            for name, ks in (
                ("r_precision_score", [{}]),
                ("precision_at_k_score", [{"k": k} for k in (10, 37, 150, None)]),
                ("ndcg_at_k_score", [{"k": k} for k in (10, 37, 150, None)]),
            ):
                for kw in ({**deep, **k} for k in ks):
                    call(
                        out,
                        f"{name} {data} {kw}",
                        getattr(rk, name),
                        y_true,
                        y_score,
                        **kw,
                    )
    levels(rk, out)
    return out


def levels(rk, out):
    """The ideal ranking's grades (counted by level in the grade pass where
    they fit): nDCG, DCG and the ideal DCG over integer dtypes, grade
    ranges, relevance thresholds and cut-offs, into out."""
    rng = np.random.default_rng(7)
    y_score = np.round(rng.random((60, 300)), 1)
    for dtype in (np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64):
        for top in (2, 6, 40, 127):
            for negative in (False, True) if np.dtype(dtype).kind == "i" else (False,):
                low = -2 if negative else 0
                drawn = rng.random((60, 300)) < 0.2
                y_true = (rng.integers(low, top, size=(60, 300)) * drawn).astype(dtype)
                data = f"levels {np.dtype(dtype).name} [{low}, {top})"
                for name in (
                    "ndcg_at_k_score",
                    "dcg_at_k_score",
                    "ideal_dcg_at_k_score",
                ):
                    gains = (
                        ("linear",)
                        if name.startswith("ideal")
                        else ("linear", "exponential")
                    )
                    for threshold in (0, 2, 120):
                        for k in (1, 10, 300):
                            for gain in gains:
                                kw = {"k": k, "relevance_threshold": threshold}
                                kw.update(average=None, zero_division=0)
                                if gain != "linear":
                                    kw["gain"] = gain
                                fn = getattr(rk, name)
                                label = f"{name} {data} {kw}"
                                call(out, label, fn, y_true, y_score, **kw)


def save(path, collected):
    labels = np.array([label for label, _ in collected])
    sizes = np.array([values.size for _, values in collected])
    values = np.concatenate([values for _, values in collected])
    with open(path, "wb") as f:  # (the name as given: no suffix added)
        np.savez(f, labels=labels, sizes=sizes, values=values)


def load(path):
    data = np.load(path)
    pieces = np.split(data["values"], np.cumsum(data["sizes"])[:-1])
    return list(zip(data["labels"].tolist(), pieces))


def compare(old, new, old_name, new_name):
    """Print the differences of new against old; True when there is none.

    Bit for bit: -0.0 and +0.0 differ; NaN equals NaN (any payload)."""
    old_d, new_d = dict(old), dict(new)
    for side, name in ((old, old_name), (new, new_name)):
        if len(dict(side)) != len(side):  # a label twice: a call would go unchecked
            raise ValueError(f"{name} repeats a label")
    differ, worst, n_values, shown = 0, 0.0, 0, []
    only_new = [label for label, _ in new if label not in old_d]
    only_old = [label for label, _ in old if label not in new_d]
    shown += [f"only in {new_name}: {label}" for label in only_new]
    shown += [f"only in {old_name}: {label}" for label in only_old]
    for label, b in new:
        if label not in old_d:
            continue
        a = old_d[label]
        n_values += b.size
        if a.shape != b.shape:
            differ += b.size
            shown.append(f"{label}: {a.size} values, now {b.size}")
            continue
        nan = np.isnan(a) & np.isnan(b)
        same = (a.view(np.uint64) == b.view(np.uint64)) | nan
        if not same.all():
            differ += int((~same).sum())
            rel = np.abs(a - b)[~same] / np.maximum(np.abs(a[~same]), 1e-300)
            finite = rel[np.isfinite(rel)]
            worst = max(worst, float(finite.max()) if finite.size else np.inf)
            shown.append(f"{label}: {int((~same).sum())} of {b.size} differ")
    refused = sum(" raises " in label for label, _ in new)
    print(
        f"{n_values} values of {len(new)} calls ({refused} of them refusals, compared "
        f"by message): {differ} differ, {len(only_new) + len(only_old)} calls on one "
        f"side only ({new_name} against {old_name}); largest relative difference "
        f"{worst:.3g}"
    )
    for line in shown[:20]:
        print("  " + line)
    if len(shown) > 20:
        print(f"  ... and {len(shown) - 20} more")
    return differ == 0 and not shown


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "other",
        nargs="?",
        metavar="OTHER_TREE",
        help="another checkout, built in place",
    )
    parser.add_argument("--save", metavar="FILE", help="save this checkout's values")
    parser.add_argument("--against", metavar="FILE", help="compare with saved values")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        save(args.out, collect(use_tree(args.child)))
        print(json.dumps({"saved": args.out}))
        return 0
    if sum(x is not None for x in (args.other, args.save, args.against)) != 1:
        parser.error("give one of OTHER_TREE, --save FILE, --against FILE")
    # What can be checked before the calls (a minute or two a build) is.
    if args.against and not os.path.isfile(args.against):
        parser.error(f"--against: no file {args.against}")
    if args.save and not os.access(
        os.path.dirname(os.path.abspath(args.save)), os.W_OK
    ):
        parser.error(f"--save: cannot write in the folder of {args.save}")
    trees = [THIS_TREE] + ([check_other(args.other)] if args.other else [])
    warn_stale(trees)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        mine = os.path.join(tmp, "this.npz")
        run_child("values.py", THIS_TREE, ["--out", mine])
        if args.save:
            save(args.save, load(mine))
            print(f"saved {len(load(mine))} calls' values to {args.save}")
            return 0
        if args.against:
            old, old_name = load(args.against), args.against
        else:
            theirs = os.path.join(tmp, "other.npz")
            run_child("values.py", trees[1], ["--out", theirs])
            old, old_name = load(theirs), describe(trees[1])
        return 0 if compare(old, load(mine), old_name, describe(THIS_TREE)) else 1


if __name__ == "__main__":
    sys.exit(main())
