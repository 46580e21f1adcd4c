"""Property-based tests (hypothesis) of the identities between the metrics.

* P@k * k == R@k * |R| on every row;
* R-precision == P@|R| == R@|R| on every row;
* recall is non-decreasing in k, and R@n_items is the fraction of the relevant
  items that are retrieved;
* a constant ``y_score`` scores the random-ranking expectation (P, R, hit,
  MRR, DCG);
* the tie-aware value is the mean, over all column permutations, of the
  column-order (``ignore_ties=True``) value;
* on tie-free scores ``ignore_ties=True`` equals ``ignore_ties=False``, and
  ``ignore_ties=True`` equals the tie-aware value once ties are broken by
  column order.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from helpers import FUNCS
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sklearn_rankk import (
    dcg_at_k_score,
    f1_at_k_score,
    hit_at_k_score,
    mrr_at_k_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)

TOL = dict(rtol=1e-12, atol=1e-12)
SETTINGS = settings(max_examples=150, deadline=None)

# Few distinct values, so that ties are frequent; -inf = not retrieved.
SCORE_VALUES = (-np.inf, -1.5, 0.0, 0.25, 0.5, 1.0, 2.0)
THRESHOLDS = st.sampled_from((0, 1, 2))


@st.composite
def shapes(draw, max_rows=5, max_items=8):
    return draw(st.integers(1, max_rows)), draw(st.integers(1, max_items))


@st.composite
def relevance(draw, shape):
    return draw(arrays(np.int64, shape, elements=st.integers(0, 3)))


@st.composite
def tied_scores(draw, shape):
    """Scores from a small set of values: many ties, some -inf."""
    return draw(arrays(np.float64, shape, elements=st.sampled_from(SCORE_VALUES)))


@st.composite
def tie_free_scores(draw, shape):
    """Distinct finite scores, except for some -inf (not retrieved) items.

    Items scored -inf are at no rank, so ties among them do not matter.
    """
    finite = draw(
        arrays(
            np.float64,
            shape,
            elements=st.floats(-100, 100, allow_nan=False, allow_subnormal=False),
            unique=True,
        )
    )
    missing = draw(arrays(np.bool_, shape, elements=st.booleans()))
    return np.where(missing & draw(st.booleans()), -np.inf, finite)


@st.composite
def cases(draw, scores=tied_scores, max_rows=5, max_items=8):
    shape = draw(shapes(max_rows, max_items))
    return draw(relevance(shape)), draw(scores(shape))


def n_relevant(y_true, threshold):
    return np.count_nonzero(y_true > threshold, axis=1)


# Every metric with a representative set of its own options.
METRIC_CALLS = [
    ("precision", FUNCS["precision"], {}),
    ("recall", FUNCS["recall"], {}),
    ("f1", FUNCS["f1"], {}),
    ("hit", FUNCS["hit"], {}),
    ("mrr", FUNCS["mrr"], {}),
    ("map", FUNCS["map"], {"denominator": "relevant"}),
    ("map", FUNCS["map"], {"denominator": "min"}),
    ("map", FUNCS["map"], {"denominator": "retrieved"}),
    ("dcg", FUNCS["dcg"], {"gain": "linear"}),
    ("dcg", FUNCS["dcg"], {"gain": "exponential", "log_base": 10}),
    ("ndcg", FUNCS["ndcg"], {"gain": "linear"}),
    ("ndcg", FUNCS["ndcg"], {"gain": "exponential", "log_base": 3}),
    ("r_precision", FUNCS["r_precision"], {}),
]
ALLOW_K_NONE = {"mrr", "map", "dcg", "ndcg"}


@st.composite
def metric_calls(draw, n_items):
    """A metric, its options and a valid k (None where allowed)."""
    name, func, params = draw(st.sampled_from(METRIC_CALLS))
    params = dict(params)
    if name != "r_precision":
        ks = st.integers(1, n_items + 2)
        if name in ALLOW_K_NONE:
            ks = st.none() | ks
        params["k"] = draw(ks)
    return name, func, params


# --------------------------------------------------------------------------
# Identities
# --------------------------------------------------------------------------


@SETTINGS
@given(data=st.data(), case=cases(), ignore_ties=st.booleans(), threshold=THRESHOLDS)
def test_precision_times_k_equals_recall_times_n_relevant(
    data, case, ignore_ties, threshold
):
    y_true, y_score = case
    k = data.draw(st.integers(1, y_true.shape[1] + 2), label="k")
    kw = dict(k=k, average=None, ignore_ties=ignore_ties, relevance_threshold=threshold)
    p = precision_at_k_score(y_true, y_score, **kw)
    r = recall_at_k_score(y_true, y_score, zero_division=0.0, **kw)
    np.testing.assert_allclose(p * k, r * n_relevant(y_true, threshold), **TOL)
    # F1 is their harmonic mean.
    f1 = f1_at_k_score(y_true, y_score, zero_division=0.0, **kw)
    want = np.divide(2 * p * r, p + r, out=np.zeros_like(p), where=p + r > 0)
    np.testing.assert_allclose(f1, want, **TOL)


@SETTINGS
@given(case=cases(), ignore_ties=st.booleans(), threshold=THRESHOLDS)
def test_r_precision_is_precision_and_recall_at_n_relevant(
    case, ignore_ties, threshold
):
    y_true, y_score = case
    kw = dict(average=None, ignore_ties=ignore_ties, relevance_threshold=threshold)
    rp = r_precision_score(y_true, y_score, zero_division=np.nan, **kw)
    n_rel = n_relevant(y_true, threshold)
    assert np.all(np.isnan(rp[n_rel == 0]))
    for r in np.unique(n_rel[n_rel > 0]):
        rows = n_rel == r
        p = precision_at_k_score(y_true[rows], y_score[rows], k=int(r), **kw)
        rec = recall_at_k_score(y_true[rows], y_score[rows], k=int(r), **kw)
        np.testing.assert_allclose(rp[rows], p, **TOL)
        np.testing.assert_allclose(rp[rows], rec, **TOL)
        # The same rows inside the whole matrix give the same values.
        p_all = precision_at_k_score(y_true, y_score, k=int(r), **kw)
        np.testing.assert_allclose(rp[rows], p_all[rows], **TOL)


@SETTINGS
@given(case=cases(), ignore_ties=st.booleans(), threshold=THRESHOLDS)
def test_recall_non_decreasing_in_k(case, ignore_ties, threshold):
    y_true, y_score = case
    n_items = y_true.shape[1]
    kw = dict(
        average=None,
        ignore_ties=ignore_ties,
        relevance_threshold=threshold,
        zero_division=0.0,
    )
    recalls = np.array(
        [recall_at_k_score(y_true, y_score, k=k, **kw) for k in range(1, n_items + 3)]
    )
    assert np.all(np.diff(recalls, axis=0) >= -1e-12)
    assert np.all((recalls >= -1e-12) & (recalls <= 1 + 1e-12))
    # From k = n_items on: the fraction of the relevant items retrieved.
    rel = y_true > threshold
    retrieved = np.count_nonzero(rel & (y_score > -np.inf), axis=1)
    n_rel = n_relevant(y_true, threshold)
    want = np.divide(retrieved, n_rel, out=np.zeros(len(n_rel)), where=n_rel > 0)
    for row in recalls[n_items - 1 :]:
        np.testing.assert_allclose(row, want, **TOL)


@SETTINGS
@given(
    data=st.data(),
    shape=shapes(max_rows=4, max_items=10),
    constant=st.floats(-1e6, 1e6, allow_nan=False),
    threshold=THRESHOLDS,
)
def test_constant_score_is_random_ranking_expectation(data, shape, constant, threshold):
    y_true = data.draw(relevance(shape), label="y_true")
    n_items = shape[1]
    k = data.draw(st.integers(1, n_items), label="k")
    y_score = np.full(shape, constant)
    kw = dict(k=k, average=None, relevance_threshold=threshold, zero_division=np.nan)
    n_rel = n_relevant(y_true, threshold)
    has_rel = n_rel > 0

    def kept(expected):  # zero_division=nan leaves out rows without relevant
        return np.where(has_rel, expected, np.nan)

    np.testing.assert_allclose(
        precision_at_k_score(y_true, y_score, **kw), kept(n_rel / n_items), **TOL
    )
    recall = recall_at_k_score(y_true, y_score, **kw)
    np.testing.assert_allclose(recall[has_rel], k / n_items, **TOL)
    assert np.all(np.isnan(recall[~has_rel]))

    hit = [1 - math.comb(n_items - r, k) / math.comb(n_items, k) for r in n_rel]
    np.testing.assert_allclose(hit_at_k_score(y_true, y_score, **kw), kept(hit), **TOL)

    # P(first relevant item at rank i) = C(n - i, r - 1) / C(n, r).
    mrr = [
        math.fsum(
            math.comb(n_items - i, r - 1) / math.comb(n_items, r) / i
            for i in range(1, k + 1)
        )
        if r
        else 0.0
        for r in n_rel
    ]
    np.testing.assert_allclose(mrr_at_k_score(y_true, y_score, **kw), kept(mrr), **TOL)

    # Every rank holds the mean gain.
    gains = np.where(y_true > threshold, y_true, 0)
    discount = math.fsum(1 / math.log2(i + 1) for i in range(1, k + 1))
    np.testing.assert_allclose(
        dcg_at_k_score(y_true, y_score, **kw),
        kept(gains.mean(axis=1) * discount),
        **TOL,
    )
    # ... and ignore_ties=True ranks the columns from the last to the first,
    # as scikit-learn's reversed stable argsort does.
    kw["ignore_ties"] = True
    np.testing.assert_allclose(
        precision_at_k_score(y_true, y_score, **kw),
        kept(np.count_nonzero(y_true[:, ::-1][:, :k] > threshold, axis=1) / k),
        **TOL,
    )


@settings(max_examples=100, deadline=None)
@given(
    data=st.data(),
    case=cases(max_rows=1, max_items=5),
    threshold=THRESHOLDS,
)
def test_tie_aware_value_is_mean_over_column_permutations(data, case, threshold):
    """Exact tie handling == mean of the column-order value over all n! column
    permutations of the row (a uniformly random column order breaks every tie
    uniformly at random)."""
    y_true, y_score = case
    name, func, params = data.draw(metric_calls(y_true.shape[1]), label="metric")
    perms = np.array(list(itertools.permutations(range(y_true.shape[1]))))
    kw = dict(relevance_threshold=threshold, zero_division=0.0, **params)
    exact = func(y_true, y_score, ignore_ties=False, average=None, **kw)
    by_column_order = func(
        y_true[0][perms], y_score[0][perms], ignore_ties=True, average=None, **kw
    )
    np.testing.assert_allclose(exact[0], by_column_order.mean(), **TOL)


@SETTINGS
@given(data=st.data(), case=cases(scores=tie_free_scores), threshold=THRESHOLDS)
def test_ignore_ties_is_exact_without_ties(data, case, threshold):
    y_true, y_score = case
    name, func, params = data.draw(metric_calls(y_true.shape[1]), label="metric")
    kw = dict(relevance_threshold=threshold, zero_division=np.nan, **params)
    exact = func(y_true, y_score, ignore_ties=False, average=None, **kw)
    fast = func(y_true, y_score, ignore_ties=True, average=None, **kw)
    np.testing.assert_allclose(fast, exact, equal_nan=True, **TOL)


def break_ties_by_column(y_score):
    """Distinct scores ranking items as ignore_ties=True does (scikit-learn's
    reversed stable argsort: the later column first); -inf kept."""
    n_rows, n_items = y_score.shape
    out = np.empty_like(y_score)
    for i, row in enumerate(y_score):
        order = sorted(range(n_items), key=lambda j: (-row[j], -j))
        for rank, j in enumerate(order):
            out[i, j] = -np.inf if row[j] == -np.inf else float(n_items - rank)
    return out


@SETTINGS
@given(data=st.data(), case=cases(), threshold=THRESHOLDS)
def test_ignore_ties_breaks_ties_by_column_order(data, case, threshold):
    y_true, y_score = case
    name, func, params = data.draw(metric_calls(y_true.shape[1]), label="metric")
    kw = dict(relevance_threshold=threshold, zero_division=np.nan, **params)
    fast = func(y_true, y_score, ignore_ties=True, average=None, **kw)
    strict = break_ties_by_column(y_score)
    exact = func(y_true, strict, ignore_ties=False, average=None, **kw)
    np.testing.assert_allclose(fast, exact, equal_nan=True, **TOL)
