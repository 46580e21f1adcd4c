"""Every metric's values on tie-heavy inputs, compared bit for bit between builds.

Run: ``python benchmarks/values.py OTHER_TREE`` (another checkout with its
extension built in place, see builds.py), or ``--save FILE`` then, after a
change, ``--against FILE``. A kernel change that should not move a value
is checked this way: every public metric of the registry on dense and CSR
relevance, float64 and float32 scores rounded to one or two decimals (tie
groups of every size) or not, -inf scores, both tie modes, at two cut-offs
and over the whole ranking; and ``ranking_report`` and the set cut-offs at
cut-offs inside and past the tie groups, on graded and fractional
relevance. A call that raises is recorded as its exception's name, so a
refusal that changes shows too.

Printed: how many values differ (NaN equals NaN) and the largest relative
difference, with the first calls that differ. Exit status 1 when any does.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import warnings

import numpy as np
from builds import THIS_TREE, describe, run_child, use_tree


def inputs():
    """(name, y_true, y_score): graded rows with ties, dense and CSR."""
    import scipy.sparse as sp

    rng = np.random.default_rng(11)
    shapes = [
        # rows, items, decimals of the scores, share of graded items, fractional grades
        (200, 300, 1, 0.05, False),
        (200, 60, 2, 0.2, False),
        (100, 40, None, 0.1, False),
        (50, 500, 1, 0.3, False),
        (100, 1000, 1, 0.1, True),
        (100, 2000, 1, 0.02, False),
    ]
    for n, m, decimals, share, fractional in shapes:
        y_score = rng.random((n, m))
        if decimals is not None:
            y_score = np.round(y_score, decimals)
        y_true = rng.integers(0, 5, size=(n, m)) * (rng.random((n, m)) < share)
        if fractional:
            y_true = y_true * rng.random((n, m)) * 1.7
        y_score[rng.random((n, m)) < 0.01] = -np.inf
        name = f"{n}x{m},dec={decimals},share={share}" + (",frac" if fractional else "")
        yield name + ",dense", y_true, y_score
        yield name + ",csr,f32", sp.csr_matrix(y_true), y_score.astype(np.float32)


def call(fn, label, out, y_true, y_score, **kw):
    """Append fn's values (or the name of what it raised) under label."""
    try:
        values = np.asarray(fn(y_true, y_score, **kw), dtype=float).ravel()
        out.append((label, values))
    except Exception as error:  # noqa: BLE001 (a refusal is a result too)
        out.append((f"{label} raises {type(error).__name__}", np.array([np.nan])))


def collect(rk):
    """[(label, values)] of every call, in a fixed order."""
    from sklearn_rankk._core.registry import METRICS

    out = []
    warnings.simplefilter("ignore")
    for data, y_true, y_score in inputs():
        for ignore_ties in (False, True):
            for metric in METRICS.values():
                fn = getattr(rk, metric.function_name, None)
                if fn is None:
                    continue
                for k in (5, 1) if metric.needs_k else (None, 5):
                    kw = {"ignore_ties": ignore_ties, "average": None}
                    try:
                        if "k" in inspect.signature(fn).parameters:
                            kw["k"] = k
                        elif k is not None:
                            continue
                    except (TypeError, ValueError):
                        pass
                    call(fn, f"{metric.name} {data} {kw}", out, y_true, y_score, **kw)
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
                    for key in sorted(report.scores):
                        values = np.asarray(report.scores[key], dtype=float).ravel()
                        out.append((f"{label} {key}", values))
                except Exception as error:  # noqa: BLE001
                    out.append(
                        (f"{label} raises {type(error).__name__}", np.array([np.nan]))
                    )
            for name in (
                "r_precision_score",
                "precision_at_k_score",
                "ndcg_at_k_score",
            ):
                for k in [None] if name == "r_precision_score" else [1, 10, 37, 150]:
                    kw = {
                        "ignore_ties": ignore_ties,
                        "average": None,
                        "zero_division": 0,
                    }
                    if k is not None:
                        kw["k"] = k
                    call(
                        getattr(rk, name),
                        f"{name} {data} {kw}",
                        out,
                        y_true,
                        y_score,
                        **kw,
                    )
    return out


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
    """Print the differences of new against old; True when there is none."""
    old_d, new_d = dict(old), dict(new)
    for side, name in ((old, old_name), (new, new_name)):
        if len(dict(side)) != len(side):  # a label twice: a call would go unchecked
            raise ValueError(f"{name} repeats a label")
    differ, worst, n_values, shown = 0, 0.0, 0, []
    for label in [label for label, _ in new if label not in old_d]:
        shown.append(f"only in {new_name}: {label}")
    for label in [label for label, _ in old if label not in new_d]:
        shown.append(f"only in {old_name}: {label}")
    for label, b in new:
        if label not in old_d:
            continue
        a = old_d[label]
        n_values += b.size
        if a.shape != b.shape:
            differ += b.size
            shown.append(f"{label}: {a.size} values, now {b.size}")
            continue
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        if not same.all():
            differ += int((~same).sum())
            rel = np.abs(a - b)[~same] / np.maximum(np.abs(a[~same]), 1e-300)
            worst = max(
                worst, float(np.nanmax(rel)) if np.isfinite(rel).any() else np.inf
            )
            shown.append(f"{label}: {int((~same).sum())} of {b.size} differ")
    print(
        f"{n_values} values of {len(new)} calls: {differ} differ "
        f"({new_name} against {old_name}); largest relative difference {worst:.3g}"
    )
    for line in shown[:20]:
        print("  " + line)
    if len(shown) > 20:
        print(f"  ... and {len(shown) - 20} more")
    return differ == 0 and not shown


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "other", nargs="?", help="another checkout, its extension built"
    )
    parser.add_argument("--save", help="save this checkout's values to FILE (.npz)")
    parser.add_argument(
        "--against", help="compare this checkout with values saved to FILE"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        save(args.out, collect(use_tree(args.child)))
        print(json.dumps({"saved": args.out}))
        return 0
    if sum(x is not None for x in (args.other, args.save, args.against)) != 1:
        parser.error("give one of OTHER_TREE, --save FILE, --against FILE")
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
            run_child("values.py", args.other, ["--out", theirs])
            old, old_name = load(theirs), describe(args.other)
        return 0 if compare(old, load(mine), old_name, describe(THIS_TREE)) else 1


if __name__ == "__main__":
    sys.exit(main())
