"""evaluate() against ir_measures, ranx and pytrec_eval on the same data.

Run: ``python benchmarks/bench_evaluate.py [--queries 2000] [--depth 1000]``

A synthetic TREC-style run (``queries x depth`` results, tied scores) with
graded judgments, evaluated with nDCG@10, P@5, P(rel=2)@5, AP, RR and Bpref
by each library from the same inputs: dicts of dicts (the form every peer
takes) and, for this package, a pandas frame too. Prints the seconds of
each (best of ``--repeat``) and the ratio to ``sklearn_rankk.evaluate`` on
dicts, and checks that the means agree.
"""

import argparse
import time

import numpy as np

import sklearn_rankk as rk

NAMES = ["nDCG@10", "P@5", "P(rel=2)@5", "AP", "RR", "Bpref"]


def data(n_queries, depth, seed=0):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = rng.choice(depth * 4, size=depth, replace=False)
        judged = rng.choice(docs, size=depth // 10, replace=False)
        grades = rng.choice([0, 0, 1, 2], size=judged.shape[0])
        qrels[str(q)] = {f"d{d}": int(g) for d, g in zip(judged, grades)}
        scores = rng.integers(0, depth // 2, size=depth) / 7.0
        run[str(q)] = {f"d{d}": float(s) for d, s in zip(docs, scores)}
    return qrels, run


def best(f, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - start)
    return min(times), out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    qrels, run = data(args.queries, args.depth)
    print(f"{args.queries} queries x {args.depth} results; measures {NAMES}")
    rows = []
    t, ours = best(lambda: rk.evaluate(qrels, run, NAMES), args.repeat)
    rows.append(("sklearn_rankk.evaluate (dicts)", t))
    try:
        import pandas as pd

        q = pd.DataFrame(
            [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
            columns=["query_id", "doc_id", "relevance"],
        )
        r = pd.DataFrame(
            [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
            columns=["query_id", "doc_id", "score"],
        )
        t, frame = best(lambda: rk.evaluate(q, r, NAMES), args.repeat)
        assert all(abs(frame[n] - ours[n]) < 1e-12 for n in NAMES)
        rows.append(("sklearn_rankk.evaluate (pandas)", t))
    except ImportError:
        pass
    try:
        import ir_measures

        measures = [ir_measures.parse_measure(n) for n in NAMES]
        t, got = best(
            lambda: ir_measures.calc_aggregate(measures, qrels, run), args.repeat
        )
        assert all(abs(got[m] - ours[n]) < 1e-9 for n, m in zip(NAMES, measures))
        rows.append(("ir_measures.calc_aggregate", t))
    except ImportError:
        pass
    try:
        import pytrec_eval

        def pte():
            out = {}
            for level, names in ((1, ["ndcg_cut_10", "P_5", "map", "recip_rank",
                                      "bpref"]), (2, ["P_5"])):  # fmt: skip
                ev = pytrec_eval.RelevanceEvaluator(qrels, set(names), level)
                res = ev.evaluate(run)
                for m in names:
                    out[(level, m)] = np.mean([v[m] for v in res.values()])
            return out

        t, got = best(pte, args.repeat)
        assert abs(got[(2, "P_5")] - ours["P(rel=2)@5"]) < 1e-9
        rows.append(("pytrec_eval (two evaluators: rel 1, rel 2)", t))
    except ImportError:
        pass
    try:
        import ranx

        def rx():
            return ranx.evaluate(
                ranx.Qrels(qrels),
                ranx.Run(run),
                ["ndcg@10", "precision@5", "map", "mrr", "bpref"],
            )

        t, got = best(rx, args.repeat)
        rows.append(("ranx.evaluate (no rel=2; its own tie order)", t))
    except ImportError:
        pass
    base = rows[0][1]
    print("| library | seconds | ratio to evaluate (dicts) |")
    print("|---|---|---|")
    for name, t in rows:
        print(f"| {name} | {t:.3f} | {t / base:.2f} |")


if __name__ == "__main__":
    main()
