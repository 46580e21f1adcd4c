"""Every metric against a naive brute-force oracle.

The oracle below is written straight from the definitions, independently of
the package: for every row it enumerates every ordering of the tied items
(the product, over the tie groups, of the permutations of each group), computes
the metric on each ordering and takes the plain mean. Items scored ``-inf``
are not retrieved: they are at no rank, but count among the relevant items
and in the ideal DCG. With ``ignore_ties=True`` the single ordering is score
descending, then column index ascending.

Inputs are small and heavily tied (integer scores in a narrow range, some
``-inf``, graded relevance 0..3, some rows with no relevant item), and ``k``
runs past the row length, so that every corner of the tie-aware formulas is
exercised: groups straddling the cut-off, rows shorter than ``k``, relevant
items that are never retrieved.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rankk import (
    dcg_at_k_score,
    f1_at_k_score,
    hit_at_k_score,
    map_at_k_score,
    mrr_at_k_score,
    ndcg_at_k_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)

NEG_INF = float("-inf")
RTOL = ATOL = 1e-12

# --------------------------------------------------------------------------
# The oracle: one ranking at a time, straight from the definitions.
# A per-ranking function returns None where the metric is undefined (|R| = 0
# or IDCG = 0); that does not depend on the ranking.
# --------------------------------------------------------------------------


def rankings(scores, ignore_ties):
    """Every ranking (tuple of column indices, finite scores only).

    Tied items are permuted within their group, groups in decreasing score
    order; all orderings are equally likely.
    """
    finite = [j for j, s in enumerate(scores) if s != NEG_INF]
    if ignore_ties:
        return [tuple(sorted(finite, key=lambda j: (-scores[j], j)))]
    values = sorted({scores[j] for j in finite}, reverse=True)
    groups = [[j for j in finite if scores[j] == v] for v in values]
    return [
        tuple(itertools.chain.from_iterable(combo))
        for combo in itertools.product(*(itertools.permutations(g) for g in groups))
    ]


def _top(ranking, k):
    return ranking if k is None else ranking[:k]


def o_precision(ranking, rel, k):
    return sum(rel[j] for j in _top(ranking, k)) / k


def o_recall(ranking, rel, k):
    n_rel = sum(rel)
    if n_rel == 0:
        return None
    return sum(rel[j] for j in _top(ranking, k)) / n_rel


def o_f1(ranking, rel, k):
    n_rel = sum(rel)
    if n_rel == 0:
        return None
    p = o_precision(ranking, rel, k)
    r = o_recall(ranking, rel, k)
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def o_hit(ranking, rel, k):
    return 1.0 if any(rel[j] for j in _top(ranking, k)) else 0.0


def o_mrr(ranking, rel, k):
    for i, j in enumerate(_top(ranking, k), start=1):
        if rel[j]:
            return 1.0 / i
    return 0.0


def o_ap(ranking, rel, k, denominator):
    n_rel = sum(rel)
    if n_rel == 0:
        return None
    total = 0.0
    found = 0
    for i, j in enumerate(_top(ranking, k), start=1):
        if rel[j]:
            found += 1
            total += found / i  # P@i at a relevant rank
    if denominator == "relevant":
        den = n_rel
    elif denominator == "min":
        den = min(len(rel) if k is None else k, n_rel)
    else:  # "retrieved"
        den = found
    return 0.0 if den == 0 else total / den


def _dcg(gains_in_order, k, log_base):
    return sum(
        g / math.log(i + 1, log_base)
        for i, g in enumerate(_top(list(gains_in_order), k), start=1)
    )


def o_dcg(ranking, gains, k, log_base):
    return _dcg([gains[j] for j in ranking], k, log_base)


def o_ndcg(ranking, gains, k, log_base):
    ideal = _dcg(sorted(gains, reverse=True), k, log_base)
    if ideal == 0:
        return None
    return o_dcg(ranking, gains, k, log_base) / ideal


def o_r_precision(ranking, rel):
    n_rel = sum(rel)
    if n_rel == 0:
        return None
    return sum(rel[j] for j in ranking[:n_rel]) / n_rel


def oracle_row(metric, scores, grades, *, ignore_ties, threshold, k, params):
    """Expected value of ``metric`` on one row (None if undefined)."""
    rel = [g > threshold for g in grades]
    if params.get("gain") == "exponential":
        gains = [2.0**g - 1.0 if r else 0.0 for g, r in zip(grades, rel)]
    else:
        gains = [float(g) if r else 0.0 for g, r in zip(grades, rel)]
    log_base = params.get("log_base", 2)

    def one(ranking):
        if metric == "precision":
            return o_precision(ranking, rel, k)
        if metric == "recall":
            return o_recall(ranking, rel, k)
        if metric == "f1":
            return o_f1(ranking, rel, k)
        if metric == "hit":
            return o_hit(ranking, rel, k)
        if metric == "mrr":
            return o_mrr(ranking, rel, k)
        if metric == "map":
            return o_ap(ranking, rel, k, params["denominator"])
        if metric == "dcg":
            return o_dcg(ranking, gains, k, log_base)
        if metric == "ndcg":
            return o_ndcg(ranking, gains, k, log_base)
        if metric == "r_precision":
            return o_r_precision(ranking, rel)
        raise AssertionError(metric)

    values = [one(r) for r in rankings(scores, ignore_ties)]
    if values[0] is None:
        assert all(v is None for v in values)
        return None
    return math.fsum(values) / len(values)


def oracle(metric, y_true, y_score, **kwargs):
    """Per-row expected values; None marks undefined rows."""
    return [
        oracle_row(metric, list(s), list(t), **kwargs)
        for s, t in zip(y_score.tolist(), y_true.tolist())
    ]


def fill_undefined(values, zero_division):
    return np.array(
        [zero_division if v is None else v for v in values], dtype=np.float64
    )


def weighted_mean(values, weights):
    keep = ~np.isnan(values)
    if not keep.any():
        return math.nan
    w = np.ones_like(values) if weights is None else np.asarray(weights)
    return math.fsum(values[keep] * w[keep]) / math.fsum(w[keep])


# --------------------------------------------------------------------------
# Metrics under test and their options
# --------------------------------------------------------------------------

FUNCS = {
    "precision": precision_at_k_score,
    "recall": recall_at_k_score,
    "f1": f1_at_k_score,
    "hit": hit_at_k_score,
    "mrr": mrr_at_k_score,
    "map": map_at_k_score,
    "dcg": dcg_at_k_score,
    "ndcg": ndcg_at_k_score,
    "r_precision": r_precision_score,
}
ALLOW_K_NONE = {"mrr", "map", "dcg", "ndcg"}
# Metrics that follow zero_division on rows with no relevant item / IDCG = 0.
CAN_BE_UNDEFINED = {"recall", "f1", "map", "ndcg", "r_precision"}
KS = (1, 2, 3, 5)


def configurations(metric):
    """(k, metric-specific params) pairs to check for ``metric``."""
    if metric == "r_precision":
        return [(None, {})]
    ks = KS + ((None,) if metric in ALLOW_K_NONE else ())
    if metric == "map":
        extra = [{"denominator": d} for d in ("relevant", "min", "retrieved")]
    elif metric in ("dcg", "ndcg"):
        extra = [
            {"gain": g, "log_base": b}
            for g in ("linear", "exponential")
            for b in (2, 10)
        ]
    else:
        extra = [{}]
    return [(k, p) for k in ks for p in extra]


def call(metric, y_true, y_score, k, params, **kwargs):
    if metric != "r_precision":
        kwargs["k"] = k
    return FUNCS[metric](y_true, y_score, **params, **kwargs)


def random_case(seed):
    """Small, heavily tied random inputs with corner cases built in."""
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(1, 7))
    n_rows = int(rng.integers(2, 8))
    n_levels = int(rng.integers(1, 5))  # scores in 0 .. n_levels - 1
    y_score = rng.integers(0, n_levels, size=(n_rows, n_items)).astype(np.float64)
    y_score[rng.random((n_rows, n_items)) < 0.2] = -np.inf
    grades = rng.integers(1, 4, size=(n_rows, n_items))
    y_true = np.where(rng.random((n_rows, n_items)) < 0.5, 0, grades)
    y_true[0] = 0  # a row with no relevant item
    if n_rows > 2:
        # a row whose relevant item is not retrieved
        y_true[1, 0] = 2
        y_score[1, 0] = -np.inf
    if seed % 3 == 0:
        y_true = y_true.astype(np.float64)
    if seed % 4 == 1:
        y_score = y_score.astype(np.float32)  # small integers: exact in float32
    weights = rng.uniform(0.1, 2.0, size=n_rows) if seed % 2 else None
    return y_true, y_score, weights


SEEDS = range(60)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("metric", list(FUNCS))
def test_matches_bruteforce_oracle(metric, seed):
    y_true, y_score, weights = random_case(seed)
    for (k, params), ignore_ties, threshold in itertools.product(
        configurations(metric), (False, True), (0, 1)
    ):
        expected = oracle(
            metric,
            y_true,
            y_score,
            ignore_ties=ignore_ties,
            threshold=threshold,
            k=k,
            params=params,
        )
        common = dict(ignore_ties=ignore_ties, relevance_threshold=threshold)
        for zero_division in (np.nan, 0.0, 1.0):
            want = fill_undefined(expected, zero_division)
            if metric not in CAN_BE_UNDEFINED:
                assert None not in expected
            msg = (
                f"{metric} k={k} {params} ignore_ties={ignore_ties} "
                f"threshold={threshold} zero_division={zero_division}\n"
                f"y_true={y_true.tolist()}\ny_score={y_score.tolist()}"
            )
            got = call(
                metric,
                y_true,
                y_score,
                k,
                params,
                average=None,
                zero_division=zero_division,
                **common,
            )
            assert isinstance(got, np.ndarray), msg
            assert got.dtype == np.float64, msg
            assert got.shape == (y_true.shape[0],), msg
            np.testing.assert_allclose(
                got, want, rtol=RTOL, atol=ATOL, equal_nan=True, err_msg=msg
            )

            got_mean = call(
                metric,
                y_true,
                y_score,
                k,
                params,
                sample_weight=weights,
                zero_division=zero_division,
                **common,
            )
            assert type(got_mean) is float, msg
            np.testing.assert_allclose(
                got_mean,
                weighted_mean(want, weights),
                rtol=RTOL,
                atol=ATOL,
                equal_nan=True,
                err_msg=msg,
            )


@pytest.mark.parametrize("metric", list(FUNCS))
def test_warn_matches_zero(metric):
    """ "warn" gives the 0.0 values, and warns only for metrics that can be
    undefined and only when some row is undefined."""
    y_true, y_score, _ = random_case(7)
    k, params = configurations(metric)[-1]
    assert not y_true[0].any()
    kwargs = dict(average=None, relevance_threshold=0)
    want = call(metric, y_true, y_score, k, params, zero_division=0.0, **kwargs)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        got = call(metric, y_true, y_score, k, params, **kwargs)
    undefined_warnings = [
        w for w in record if issubclass(w.category, UndefinedMetricWarning)
    ]
    assert len(undefined_warnings) == (1 if metric in CAN_BE_UNDEFINED else 0)
    np.testing.assert_array_equal(got, want)

    # No undefined row: no warning at all.
    y_true_all = y_true.copy()
    y_true_all[:, 0] = 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call(metric, y_true_all, y_score, k, params, **kwargs)


def test_oracle_sanity():
    """The oracle itself on hand-checked values."""
    # Two tied items, one relevant: P@1 = 1/2, MRR = (1 + 1/2) / 2.
    kw = dict(ignore_ties=False, threshold=0, params={})
    assert oracle_row("precision", [1.0, 1.0], [1, 0], k=1, **kw) == 0.5
    assert oracle_row("mrr", [1.0, 1.0], [1, 0], k=None, **kw) == 0.75
    # Not retrieved relevant item counts in |R| but is at no rank.
    assert oracle_row("recall", [1.0, NEG_INF], [1, 1], k=5, **kw) == 0.5
    assert oracle_row("precision", [1.0, NEG_INF], [1, 1], k=5, **kw) == 0.2
    # AP "retrieved" is the mean of the per-ordering ratios.
    # Items tied: [rel, rel, non] in 3! orders, k=2.
    ap = oracle_row(
        "map",
        [0.0, 0.0, 0.0],
        [1, 1, 0],
        k=2,
        ignore_ties=False,
        threshold=0,
        params={"denominator": "retrieved"},
    )
    # Over the 6 orderings the relevant ranks within the top 2 are {1, 2}
    # twice (AP 1), {1} twice (AP 1) and {2} twice (AP 1/2).
    assert ap == pytest.approx((2 * 1 + 2 * 1 + 2 * 0.5) / 6)
    # DCG with exponential gain, hand computed.
    dcg = oracle_row(
        "dcg",
        [0.1, 0.5, 0.2],
        [3, 2, 0],
        k=None,
        ignore_ties=False,
        threshold=0,
        params={"gain": "exponential", "log_base": 2},
    )
    # ranks: grade 2 (gain 3), grade 0, grade 3 (gain 7) at rank 3.
    assert dcg == pytest.approx(3 + 7 / math.log2(4))
    assert len(rankings([1.0, 1.0, 2.0, 2.0, NEG_INF], False)) == 4
    assert rankings([1.0, 2.0, 1.0, NEG_INF], True) == [(1, 0, 2)]


@pytest.mark.parametrize("seed", range(0, 60, 3))
@pytest.mark.parametrize("ignore_ties", [False, True])
def test_every_metric_in_one_pass_matches_the_oracle(seed, ignore_ties):
    """One pass ranks each row as deep as its deepest request (R-precision
    at |R|, k=None), and each metric reads only its own ranks: still the
    oracle's values, tie groups crossing any cut-off included."""
    from sklearn_rankk import get_scorer

    y_true, y_score, _ = random_case(seed)
    names = [
        "precision@2",
        "recall@1",
        "f1@3",
        "hit@2",
        "mrr",
        "map@2",
        "map",
        "dcg@3",
        "ndcg@1",
        "ndcg",
        "r_precision",
    ]
    rows, _ = get_scorer(
        names, zero_division=np.nan, ignore_ties=ignore_ties
    )._row_values(y_true, y_score)
    for name in names:
        metric, _, k = name.partition("@")
        params = {"denominator": "relevant", "gain": "linear", "log_base": 2}
        expected = oracle(
            metric,
            y_true,
            y_score,
            ignore_ties=ignore_ties,
            threshold=0,
            k=int(k) if k else None,
            params=params,
        )
        np.testing.assert_allclose(
            rows[name],
            fill_undefined(expected, np.nan),
            rtol=RTOL,
            atol=ATOL,
            err_msg=name,
        )
