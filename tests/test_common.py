"""Invariants that every metric of the registry must satisfy."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rankk._registry import METRICS

ALL = sorted(METRICS)


def call(name, y_true, y_score, k=3, **kwargs):
    info = METRICS[name]
    if info.needs_k:
        kwargs["k"] = k
    kwargs.setdefault("zero_division", 0.0)
    return info.function(y_true, y_score, **kwargs)


def data(seed=0, n=30, m=9, ties=True, neg_inf=True):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, size=(n, m)) * (rng.random((n, m)) < 0.4)
    y_true[0] = 0
    y_score = (
        rng.integers(0, 5, size=(n, m)).astype(float)
        if ties
        else rng.standard_normal((n, m))
    )
    if neg_inf:
        y_score[rng.random((n, m)) < 0.1] = -np.inf
    return y_true, y_score


@pytest.mark.parametrize("name", ALL)
def test_returns_python_float_and_per_row_array(name):
    y_true, y_score = data()
    value = call(name, y_true, y_score)
    assert type(value) is float
    rows = call(name, y_true, y_score, average=None)
    assert rows.dtype == np.float64 and rows.shape == (y_true.shape[0],)
    assert value == pytest.approx(rows.mean())


@pytest.mark.parametrize("name", ALL)
def test_row_order_invariance(name):
    y_true, y_score = data(1)
    perm = np.random.default_rng(1).permutation(y_true.shape[0])
    a = call(name, y_true, y_score, average=None)
    b = call(name, y_true[perm], y_score[perm], average=None)
    np.testing.assert_allclose(a[perm], b, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", ALL)
def test_joint_column_permutation(name):
    y_true, y_score = data(2)
    perm = np.random.default_rng(2).permutation(y_true.shape[1])
    a = call(name, y_true, y_score, average=None)
    b = call(name, y_true[:, perm], y_score[:, perm], average=None)
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ALL)
def test_column_order_breaks_ties_with_ignore_ties(name):
    # Column order is the tie-breaker: moving a relevant item to the front of
    # its tie group can only help, and with constant scores the column-order
    # ranking is exactly the identity ranking.
    y_true = np.array([[0, 0, 1, 0, 2, 0]])
    y_score = np.zeros((1, 6))
    identity = -np.arange(6.0)[None]
    assert call(name, y_true, y_score, ignore_ties=True) == pytest.approx(
        call(name, y_true, identity)
    )


@pytest.mark.parametrize("name", ALL)
def test_sample_weight_is_row_repetition(name):
    y_true, y_score = data(3)
    w = np.random.default_rng(3).integers(0, 4, size=y_true.shape[0])
    w[1] = 2
    weighted = call(name, y_true, y_score, sample_weight=w)
    repeated = call(name, np.repeat(y_true, w, axis=0), np.repeat(y_score, w, axis=0))
    assert weighted == pytest.approx(repeated, rel=1e-12)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize(
    "transform",
    [lambda s: 3 * s - 7, lambda s: s**3, np.exp, lambda s: np.arctan(s) * 1e3],
    ids=["affine", "cube", "exp", "arctan"],
)
def test_strictly_monotone_transform(name, transform):
    y_true, y_score = data(4, neg_inf=False)
    y_score = y_score / 2  # scores 0..2 by halves: exact under every transform
    a = call(name, y_true, y_score, average=None)
    b = call(name, y_true, transform(y_score), average=None)
    np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("ignore_ties", [False, True])
def test_bounds(name, ignore_ties):
    low, high = METRICS[name].bounds
    for seed in range(5):
        y_true, y_score = data(seed)
        for k in (1, 3, 20):
            rows = call(
                name, y_true, y_score, k=k, average=None, ignore_ties=ignore_ties
            )
            assert np.all(rows >= low)
            if high is not None:
                assert np.all(rows <= high + 1e-12)


@pytest.mark.parametrize("name", [n for n in ALL if METRICS[n].perfect_is_one])
@pytest.mark.parametrize("k", [1, 2, 5, 50])
def test_perfect_ranking_scores_one(name, k):
    y_true, _ = data(5, neg_inf=False)
    y_true = y_true[1:]  # rows with a relevant item
    y_true = y_true[y_true.any(axis=1)]
    perfect = y_true + np.random.default_rng(5).random(y_true.shape) * 0.5
    assert call(name, y_true, perfect, k=k) == pytest.approx(1.0)


def test_perfect_ranking_for_the_other_metrics():
    # Precision is 1 when |R| >= k; recall, F1 and AP when |R| == k.
    y_true = np.array([[0, 1, 1, 0, 1], [1, 1, 1, 0, 0]])
    y_score = y_true + np.array([[0.1, 0.2, 0.3, 0.4, 0.5]])
    for name in ("precision", "recall", "f1", "map"):
        assert call(name, y_true, y_score, k=3) == pytest.approx(1.0)


@pytest.mark.parametrize("name", ALL)
def test_float32_equals_float64(name):
    y_true, y_score = data(6)
    a = call(name, y_true, y_score.astype(np.float32))
    b = call(name, y_true, y_score)
    assert a == pytest.approx(b, rel=1e-12)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize(
    "fmt",
    [
        sp.csr_matrix,
        sp.csc_matrix,
        sp.coo_matrix,
        sp.lil_matrix,
        sp.csr_array,
        sp.coo_array,
        sp.dok_matrix,
    ],  # fmt: skip
)
def test_sparse_equals_dense(name, fmt):
    y_true, y_score = data(7)
    a = call(name, fmt(y_true), y_score, average=None)
    b = call(name, y_true, y_score, average=None)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", ALL)
def test_relevance_dtypes_and_containers(name):
    pd = pytest.importorskip("pandas")
    y_true, y_score = data(8)
    expected = call(name, y_true, y_score)
    assert call(name, y_true.astype(float), y_score) == expected
    assert call(name, y_true.tolist(), y_score.tolist()) == expected
    assert call(name, pd.DataFrame(y_true), pd.DataFrame(y_score)) == expected
    binary = y_true > 0
    assert call(name, binary, y_score) == call(name, binary.astype(np.int8), y_score)


@pytest.mark.parametrize("name", ALL)
def test_ignore_ties_is_exact_on_tie_free_scores(name):
    y_true, y_score = data(9, ties=False)
    a = call(name, y_true, y_score, average=None)
    b = call(name, y_true, y_score, average=None, ignore_ties=True)
    np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", ALL)
def test_zero_division(name):
    y_true = np.array([[0, 0, 0], [1, 0, 0]])
    y_score = np.array([[0.3, 0.2, 0.1], [0.1, 0.2, 0.3]])
    info = METRICS[name]
    kw = {"k": 2} if info.needs_k else {}
    f = info.function
    undefined_zero = f(y_true, y_score, zero_division=0.0, average=None, **kw)
    if name in ("precision", "hit", "mrr", "dcg"):
        # Defined as 0 on rows without relevant items: never warns.
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert f(y_true, y_score, **kw) == undefined_zero.mean()
        assert f(y_true, y_score, zero_division=1.0, average=None, **kw)[0] == 0.0
        return
    with pytest.warns(UndefinedMetricWarning, match="1 of 2"):
        assert f(y_true, y_score, **kw) == undefined_zero.mean()
    assert undefined_zero[0] == 0.0
    ones = f(y_true, y_score, zero_division=1.0, average=None, **kw)
    assert ones[0] == 1.0 and ones[1] == undefined_zero[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f(y_true, y_score, zero_division=np.nan, **kw) == undefined_zero[1]
    rows = f(y_true, y_score, zero_division=np.nan, average=None, **kw)
    assert np.isnan(rows[0])
    only_undefined = f(y_true[:1], y_score[:1], zero_division=np.nan, **kw)
    assert np.isnan(only_undefined)


@pytest.mark.parametrize("name", ALL)
def test_not_retrieved_items_sit_at_no_rank(name):
    # A relevant item scored -inf is never placed, even when the row has fewer
    # than k finite scores, but it still counts as relevant.
    y_true = np.array([[1, 0, 1]])
    y_score = np.array([[-np.inf, 0.5, -np.inf]])
    assert call(name, y_true, y_score, k=3) == 0.0
    y_score_ranked = np.array([[-np.inf, 0.5, 0.1]])
    assert call(name, y_true, y_score_ranked, k=3) > 0.0
