"""Ranked id lists and relevant ids (``from_id_lists``).

Expected numbers come from the seeds' worked examples (hand-checked
fractions), from formulas written out in the tests, and from trec_eval
through pytrec_eval on the same queries written as qrels and runs.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
import trec_eval_reference
from helpers import FUNCS, row_values

from sklearn_rankk import (
    f1_at_k_score,
    from_id_lists,
    map_at_k_score,
    mrr_at_k_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)
from sklearn_rankk._core.registry import METRICS

# --------------------------------------------------------------------------
# The seeds' production example (RankingMetrics, "wireless headphones")
# --------------------------------------------------------------------------

RELEVANT_PRODUCTS = {
    "sony_wh1000xm4",
    "bose_qc45",
    "apple_airpods_max",
    "sennheiser_momentum",
    "jabra_elite_85h",
    "audio_technica_m50x",
}
SEARCH_RESULTS = [
    "sony_wh1000xm4",  # 1 relevant
    "cheap_wired_earbuds",
    "bose_qc45",  # 3 relevant
    "phone_case",
    "apple_airpods_max",  # 5 relevant
    "usb_cable",
    "jabra_elite_85h",  # 7 relevant
    "random_speaker",
    "bluetooth_adapter",
    "sennheiser_momentum",  # 10 relevant
    "gaming_headset",
    "microphone",
    "audio_technica_m50x",  # 13 relevant
    "laptop_stand",
    "mouse_pad",
]
# By hand: relevant at ranks 1, 3, 5, 7, 10, 13 of 15; |R| = 6.
PRODUCT_P = {1: F(1, 1), 3: F(2, 3), 5: F(3, 5), 10: F(5, 10)}
PRODUCT_R = {1: F(1, 6), 3: F(2, 6), 5: F(3, 6), 10: F(5, 6)}
# The seed prints f"P@{k:2d} = {p:.3f}, R@{k:2d} = {r:.3f}" for these k, and
# R-Precision (P@6) = 3/6.
PRODUCT_PRINTOUT = [
    "P@ 1 = 1.000, R@ 1 = 0.167",
    "P@ 3 = 0.667, R@ 3 = 0.333",
    "P@ 5 = 0.600, R@ 5 = 0.500",
    "P@10 = 0.500, R@10 = 0.833",
]


def test_seed_production_example():
    y_true, y_score = from_id_lists([RELEVANT_PRODUCTS], [SEARCH_RESULTS])
    assert y_true.shape == y_score.shape == (1, 15)
    printout = []
    for k in (1, 3, 5, 10):
        p = precision_at_k_score(y_true, y_score, k=k)
        r = recall_at_k_score(y_true, y_score, k=k)
        assert p == float(PRODUCT_P[k])
        assert r == float(PRODUCT_R[k])
        printout.append(f"P@{k:2d} = {p:.3f}, R@{k:2d} = {r:.3f}")
        f1 = 2 * PRODUCT_P[k] * PRODUCT_R[k] / (PRODUCT_P[k] + PRODUCT_R[k])
        assert f1_at_k_score(y_true, y_score, k=k) == pytest.approx(float(f1))
    assert printout == PRODUCT_PRINTOUT
    assert r_precision_score(y_true, y_score) == 0.5
    assert f"{r_precision_score(y_true, y_score):.3f}" == "0.500"
    ap = (F(1, 1) + F(2, 3) + F(3, 5) + F(4, 7) + F(5, 10) + F(6, 13)) / 6
    assert map_at_k_score(y_true, y_score, k=None) == pytest.approx(float(ap))


def test_seed_precision_at_5_example():
    # retrieved = ['doc1', ..., 'doc5'], relevant = ['doc1', 'doc3', 'doc5']
    retrieved = ["doc1", "doc2", "doc3", "doc4", "doc5"]
    relevant = ["doc1", "doc3", "doc5"]
    y_true, y_score = from_id_lists([relevant], [retrieved])
    assert precision_at_k_score(y_true, y_score, k=5) == 0.6


# The seed's P@k / R@k tables: relevant at ranks 1, 3, 4, 6, 8, 10; the R@k
# table has |R| = 8, two relevant documents the ranking misses.
TITLES = [
    "ML Tutorial",
    "Python Basics",
    "Deep Learning Guide",
    "Neural Networks",
    "Cooking Recipes",
    "Data Science Intro",
    "Random Blog Post",
    "ML Research Paper",
    "Weather Forecast",
    "Algorithm Book",
]
RELEVANT_TITLES = {
    "ML Tutorial",
    "Deep Learning Guide",
    "Neural Networks",
    "Data Science Intro",
    "ML Research Paper",
    "Algorithm Book",
}
P_TABLE = ["1.000", "0.500", "0.667", "0.750", "0.600", "0.667", "0.571", "0.625",
           "0.556", "0.600"]  # fmt: skip
R_TABLE = ["0.125", "0.125", "0.250", "0.375", "0.375", "0.500", "0.500", "0.625",
           "0.625", "0.750"]  # fmt: skip


def test_seed_tables_with_unretrieved_relevant():
    missed = {"Unranked Survey", "Unranked Thesis"}
    y_true, y_score = from_id_lists(
        [RELEVANT_TITLES, RELEVANT_TITLES | missed], [TITLES, TITLES]
    )
    # Two relevant titles are not ranked: two -inf columns in row 1.
    assert y_true.shape == (2, 12)
    assert np.isneginf(y_score[1, 10:]).all() and (y_true[1, 10:] == 1).all()
    for k in range(1, 11):
        p = precision_at_k_score(y_true, y_score, k=k, average=None)
        r = recall_at_k_score(y_true, y_score, k=k, average=None)
        assert f"{p[0]:.3f}" == P_TABLE[k - 1]
        assert f"{r[1]:.3f}" == R_TABLE[k - 1]
        assert p[0] == p[1]  # missed items do not change precision


# --------------------------------------------------------------------------
# The matrix form
# --------------------------------------------------------------------------


def test_matrix_layout():
    y_true, y_score = from_id_lists(
        [{"b", "z"}, [], {"q"}], [["a", "b", "c"], ["x"], []]
    )
    expected_score = np.array(
        [[3.0, 2.0, 1.0, -np.inf], [1.0, -np.inf, -np.inf, -np.inf], [-np.inf] * 4]
    )
    np.testing.assert_array_equal(y_score, expected_score)
    np.testing.assert_array_equal(y_true, [[0, 1, 0, 1], [0, 0, 0, 0], [1, 0, 0, 0]])
    assert y_true.dtype == np.int8 and y_score.dtype == np.float64


def test_graded_dtypes_and_dropped_unranked_non_relevant():
    y_true, y_score = from_id_lists(
        [{"a": 2, "b": 0, "c": -1, "d": 3}], [["b", "a", "c"]]
    )
    # b, a, c ranked; d (3) unranked; no column for unranked grades <= 0.
    np.testing.assert_array_equal(y_true, [[0, 2, -1, 3]])
    np.testing.assert_array_equal(y_score, [[3.0, 2.0, 1.0, -np.inf]])
    assert y_true.dtype == np.int8
    y_true, _ = from_id_lists([{"a": 0.5, "b": 1000}], [["a"]])
    assert y_true.dtype == np.float64
    np.testing.assert_array_equal(y_true, [[0.5, 1000.0]])
    y_true, _ = from_id_lists([{"a": 1000}], [["a"]])
    assert y_true.dtype == np.int16
    y_true, _ = from_id_lists([{"a": True, "b": False}], [["b", "a"]])
    np.testing.assert_array_equal(y_true, [[0, 1]])


def brute_force(relevant, ranked, k):
    """Every metric of one query from its id lists, by the textbook formulas
    (trec_eval's conventions: P divides by k, AP by |R|)."""
    grades = relevant if isinstance(relevant, dict) else dict.fromkeys(relevant, 1)
    rel = [grades.get(i, 0) for i in ranked[:k]]
    hits = [g > 0 for g in rel]
    n_rel = sum(g > 0 for g in grades.values())
    dcg = sum(g / math.log2(r + 2) for r, g in enumerate(rel) if g > 0)
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(r + 2) for r, g in enumerate(ideal))
    precisions = [sum(hits[: r + 1]) / (r + 1) for r, h in enumerate(hits) if h]
    first = next((r + 1 for r, h in enumerate(hits) if h), None)
    rp_hits = [grades.get(i, 0) > 0 for i in ranked[:n_rel]]
    if not n_rel:  # zero_division=nan leaves the query out of every metric
        # but utility, defined on every row: minus the retrieved items
        # and yaap, log(1/1) = 0 (trec_eval)
        return {
            **dict.fromkeys(FUNCS, np.nan),
            "utility": -float(len(ranked)),
            "yaap": 0.0,
        }
    return {
        "precision": sum(hits) / k,
        "recall": sum(hits) / n_rel if n_rel else np.nan,
        "f1": 2 * sum(hits) / (k + n_rel) if n_rel else np.nan,
        "fbeta": 2 * sum(hits) / (k + n_rel),  # beta = 1
        "relative_precision": sum(hits) / min(k, n_rel),
        **_set_measures(grades, ranked),
        "hit": float(any(hits)),
        "mrr": 1 / first if first else 0.0,
        "map": sum(precisions) / n_rel if n_rel else np.nan,
        "dcg": dcg,
        "ndcg": dcg / idcg if idcg > 0 else np.nan,
        "r_precision": sum(rp_hits) / n_rel if n_rel else np.nan,
        "interpolated_precision": _iprec(grades, ranked, 0.0),
        "eleven_point_precision": sum(_iprec(grades, ranked, x) for x in LEVELS) / 11,
        "err": _err(rel),
        **_gain_measures(grades, ranked, k),
        **_dcg_family(grades, ranked, k, dcg, idcg),
        # propensity-scored, every weight 1 (no propensity=): the share of the
        # best achievable top k, binary gains (Jain et al. 2016)
        "psprecision": sum(hits) / min(k, n_rel),
        "psndcg": sum(1 / math.log2(r + 2) for r, h in enumerate(hits) if h)
        / sum(1 / math.log2(r + 2) for r in range(min(k, n_rel))),
    }


def _dcg_family(grades, ranked, k, dcg, idcg):
    """Ideal DCG, SDCG (Moffat et al. 2015: DCG over k items of the row's
    largest gain) and yaap (Robertson 2012, trec_eval's m_yaap.c:
    log((1 + S) / (1 + |R| - S)), S the sum of precisions at the relevant
    ranks of the whole ranking)."""
    n_rel = sum(g > 0 for g in grades.values())
    hits = [grades.get(i, 0) > 0 for i in ranked]
    s = sum(sum(hits[: r + 1]) / (r + 1) for r, h in enumerate(hits) if h)
    top = max(grades.values())
    return {
        "ideal_dcg": idcg,
        "sdcg": dcg / (top * sum(1 / math.log2(r + 2) for r in range(k))),
        "yaap": math.log((1 + s) / (1 + n_rel - s)),
    }


def _gain_measures(grades, ranked, k):
    """trec_eval's gain measures and utility (whole ranking but rbp@k), from
    trec_eval_reference (a port of trec_eval's C code)."""
    top = max(max(grades.values()), 1)
    rbp = 0.1 * sum(grades.get(i, 0) / top * 0.9**r for r, i in enumerate(ranked[:k]))
    qrels = {i: int(g) for i, g in grades.items()}
    rr = trec_eval_reference.res_rels(ranked, qrels)
    hits = sum(grades.get(i, 0) > 0 for i in ranked)
    return {
        "rbp": rbp,
        "utility": hits - (len(ranked) - hits),
        "binary_g": trec_eval_reference.binG(rr, None),
        "rndcg": trec_eval_reference.Rndcg(rr, None),
        "ndcg_rel": trec_eval_reference.ndcg_rel(rr, None),
        "normalized_gain": trec_eval_reference.G(rr, None),
    }


LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _iprec(grades, ranked, level):
    """Interpolated precision (trec_eval 10.0): the best precision at or
    after the c-th relevant item, c = round(level |R|), half up; 0 if fewer
    than c are ranked."""
    n_rel = sum(g > 0 for g in grades.values())
    c = math.floor(level * n_rel + 0.5)
    ranks = [r + 1 for r, i in enumerate(ranked) if grades.get(i, 0) > 0]
    if c > len(ranks):
        return 0.0
    return max((i / r for i, r in enumerate(ranks, 1) if i >= max(c, 1)), default=0.0)


def _err(grades_in_order, g_max=4):
    """Chapelle et al.'s cascade over the ranked grades (max_grade=4)."""
    value, reach = 0.0, 1.0
    for r, g in enumerate(grades_in_order, start=1):
        stop = (2.0**g - 1) / 2.0**g_max if g > 0 else 0.0
        value += reach * stop / r
        reach *= 1 - stop
    return value


def _set_measures(grades, ranked):
    """trec_eval's set_* measures: the ranked list is the retrieved set."""
    n_ret = len(ranked)
    n_rel = sum(g > 0 for g in grades.values())
    hits = sum(grades.get(i, 0) > 0 for i in ranked)
    p = hits / n_ret if n_ret else 0.0
    r = hits / n_rel
    return {
        "set_precision": p,
        "set_recall": r,
        "set_f": 2 * p * r / (p + r) if hits else 0.0,
        "set_relative_precision": hits / min(n_ret, n_rel) if n_ret else 0.0,
        "set_average_precision": hits * hits / (n_ret * n_rel) if n_ret else 0.0,
    }


# The measures that read judgments need mark_unjudged=True: tests/test_judged.py
# (and test_fall_out_needs_mark_unjudged below).
FUNCTIONS = {n: f for n, f in FUNCS.items() if not METRICS[n].reads_judgments}


def random_queries(seed, n_queries=25, graded=True):
    """Ragged queries: lists of 0..12 ids from a pool, some relevant ids not
    ranked, some queries without relevant ids or without a ranking."""
    rng = np.random.default_rng(seed)
    relevant, ranked = {}, {}
    for q in range(n_queries):
        pool = [f"item{j}" for j in rng.permutation(30)[:20]]
        n = int(rng.integers(0, 13))
        ranked[f"u{q}"] = pool[:n]
        judged = pool[int(rng.integers(0, 6)) : n + int(rng.integers(0, 5))]
        if graded:
            grades = rng.choice([0, 1, 2, 3], size=len(judged), p=[0.4, 0.3, 0.2, 0.1])
            relevant[f"u{q}"] = dict(zip(judged, grades.tolist()))
        else:
            relevant[f"u{q}"] = {i for i in judged if rng.random() < 0.5}
    return relevant, ranked


@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_against_brute_force(seed, graded):
    relevant, ranked = random_queries(seed, graded=graded)
    y_true, y_score = from_id_lists(relevant, ranked)
    assert y_true.shape[0] == len(ranked)
    for k in (1, 3, 5, 10):
        expected = {
            name: [brute_force(relevant[q], ranked[q], k)[name] for q in ranked]
            for name in FUNCTIONS
        }
        for name, func in FUNCTIONS.items():
            kwargs = {"k": k} if METRICS[name].needs_k else {}
            for ignore_ties in (False, True):
                ours = func(
                    y_true,
                    y_score,
                    average=None,
                    zero_division=np.nan,
                    ignore_ties=ignore_ties,
                    **kwargs,
                )
                np.testing.assert_allclose(
                    ours, expected[name], rtol=0, atol=1e-12, err_msg=name
                )


def test_padding_changes_nothing():
    """Each padded row gives the values of its own unpadded one-row matrix."""
    relevant, ranked = random_queries(7)
    y_true, y_score = from_id_lists(relevant, ranked)
    names = ["precision@3", "recall@5", "f1@5", "hit@2", "mrr", "map", "map@4",
             "dcg@3", "ndcg", "ndcg@5", "r_precision"]  # fmt: skip
    rows = row_values(names, y_true, y_score, zero_division=np.nan)
    widths = []
    for i, q in enumerate(ranked):
        one_true, one_score = from_id_lists([relevant[q]], [ranked[q]])
        widths.append(one_true.shape[1])
        single = row_values(names, one_true, one_score, zero_division=np.nan)
        for name in names:
            np.testing.assert_array_equal(single[name], rows[name][i : i + 1])
    assert min(widths) < y_true.shape[1]  # some rows are padded


def test_pytrec_eval_agrees():
    """trec_eval (pytrec_eval) on the same queries as qrels and a run whose
    scores follow the ranked lists."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    relevant, ranked = random_queries(11)
    run = {q: {i: float(len(ids) - r) for r, i in enumerate(ids)} for q, ids in
           ranked.items() if ids}  # fmt: skip
    qrels = {q: {i: int(g) for i, g in relevant[q].items()} or {"none": 0}
             for q in run}  # fmt: skip
    measures = {"P.1,3,5,10", "recall.1,3,5,10", "ndcg_cut.1,3,5,10",
                "map_cut.1,3,5,10", "success.1,3,5,10", "map", "ndcg",
                "recip_rank", "Rprec"}  # fmt: skip
    results = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    qids = list(run)
    y_true, y_score = from_id_lists(
        {q: relevant[q] for q in qids}, {q: ranked[q] for q in qids}
    )
    names = {"map": "map", "ndcg": "ndcg", "recip_rank": "mrr",
             "Rprec": "r_precision"}  # fmt: skip
    for k in (1, 3, 5, 10):
        names.update({f"P_{k}": f"precision@{k}", f"recall_{k}": f"recall@{k}",
                      f"ndcg_cut_{k}": f"ndcg@{k}", f"map_cut_{k}": f"map@{k}",
                      f"success_{k}": f"hit@{k}"})  # fmt: skip
    rows = row_values(sorted(set(names.values())), y_true, y_score, zero_division=0.0)
    for trec_name, ours in names.items():
        expected = [results[q][trec_name] for q in qids]
        np.testing.assert_allclose(
            rows[ours], expected, rtol=0, atol=1e-12, err_msg=trec_name
        )


# --------------------------------------------------------------------------
# Containers: lists, dicts, pandas Series, arrays
# --------------------------------------------------------------------------


def test_dicts_follow_ranked_key_order():
    relevant = {"b": {"x"}, "a": {"y"}}
    ranked = {"a": ["y", "z"], "b": ["z", "x"]}
    y_true, y_score = from_id_lists(relevant, ranked)
    expected = from_id_lists([{"y"}, {"x"}], [["y", "z"], ["z", "x"]])
    np.testing.assert_array_equal(y_true, expected[0])
    np.testing.assert_array_equal(y_score, expected[1])
    assert mrr_at_k_score(y_true, y_score, k=None, average=None).tolist() == [1, 0.5]


def test_pandas_series_and_arrays():
    pd = pytest.importorskip("pandas")
    ranked = pd.Series({"u1": ["a", "b"], "u2": ["c"]})
    relevant = pd.Series({"u2": {"c"}, "u1": {"b"}})
    y_true, y_score = from_id_lists(relevant, ranked)
    np.testing.assert_array_equal(y_true, [[0, 1], [1, 0]])
    # A per-query Series or array of ids is a list of ids, not a mapping.
    y_true2, y_score2 = from_id_lists(
        [pd.Series(["b"]), np.array(["c"])], [np.array(["a", "b"]), ("c",)]
    )
    np.testing.assert_array_equal(y_true2, y_true)
    np.testing.assert_array_equal(y_score2, y_score)


def test_integer_ids():
    y_true, y_score = from_id_lists([{3, 7}], [[7, 1, 3]])
    np.testing.assert_array_equal(y_true, [[1, 0, 1]])
    assert precision_at_k_score(y_true, y_score, k=2) == 0.5


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("relevant", "ranked", "error", "match"),
    [
        ([{"a"}], [["a", "b", "a"]], ValueError, r"ranked_items\[0\] lists id 'a'"),
        ([["a", "a"]], [["a"]], ValueError, r"relevant_items\[0\] lists id 'a'"),
        ([{"a"}], ["a", "b"], TypeError, "For a single query, pass"),
        ({"q": {"a"}}, {"q": {"a", "b"}}, TypeError, "no rank order"),
        ([{"a"}], [["a"], ["b"]], ValueError, "1 queries but ranked_items has 2"),
        ({"q": {"a"}}, [["a"]], TypeError, "relevant_items is a dict but"),
        ({"q": {"a"}, "r": set()}, {"q": ["a"], "s": []}, ValueError,
         r"only in ranked_items: \['s'\]; only in relevant_items: \['r'\]"),
        ([{"a": "high"}], [["a"]], TypeError, r"relevant_items\[0\]\['a'\] must be"),
        ([{"a": float("nan")}], [["a"]], ValueError, "must be finite"),
        ([{"a"}], [[["a"]]], TypeError, "unhashable type list"),
        ({"a"}, [["a"]], TypeError, "relevant_items must be a list"),
        ([{"a"}], [None], TypeError, r"ranked_items\[0\] must be a list of ids"),
    ],
)  # fmt: skip
def test_errors(relevant, ranked, error, match):
    with pytest.raises(error, match=match):
        from_id_lists(relevant, ranked)


def test_empty_everything():
    y_true, y_score = from_id_lists([set(), set()], [[], []])
    assert y_true.shape == (2, 1) and np.isneginf(y_score).all()
    assert precision_at_k_score(y_true, y_score, k=3) == 0.0


def test_fall_out_needs_mark_unjudged():
    """Fall-out counts the judged non-relevant items. Without
    mark_unjudged, an id absent from the judgments and the padding have
    grade 0 and count as non-relevant; with it, they are not judged."""
    relevant, ranked = [{"a"}, {"x"}], [["a", "b"], ["y", "z", "w"]]
    y_true, y_score = from_id_lists(relevant, ranked)
    rows = FUNCS["fall_out"](y_true, y_score, k=2, average=None)
    # Row 1: "a", "b"; "b" and two padding items are non-relevant. Row 2:
    # "y", "z", two of its 3 non-relevant items ("x", relevant, is unranked).
    np.testing.assert_array_equal(rows, [1 / 3, 2 / 3])
    # Judgments {"a": 1, "b": 0}, {"x": 1, "y": 0, "w": 0}: only they count.
    judged = [{"a": 1, "b": 0}, {"x": 1, "y": 0, "w": 0}]
    y_true, y_score = from_id_lists(judged, ranked, mark_unjudged=True)
    rows = FUNCS["fall_out"](y_true, y_score, k=2, average=None)
    np.testing.assert_array_equal(rows, [1.0, 1 / 2])
