"""Agreement with scikit-learn's ndcg_score, dcg_score and top_k_accuracy_score."""

import numpy as np
import pytest
from sklearn.metrics import dcg_score, ndcg_score, top_k_accuracy_score

from sklearn_rankk import dcg_at_k_score, hit_at_k_score, ndcg_at_k_score


def _graded(seed, n=40, m=12, ties=True):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 5, size=(n, m))
    y_true[0] = 0  # a row with no relevant item
    if ties:
        y_score = rng.integers(0, 4, size=(n, m)).astype(float)
    else:
        y_score = rng.permuted(np.tile(np.arange(m, dtype=float), (n, 1)), axis=1)
        y_score += rng.random((n, 1))
    return y_true, y_score


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 2, 5, 12, 30, None])
def test_ndcg_dcg_match_sklearn_with_ties(seed, k):
    y_true, y_score = _graded(seed)
    # scikit-learn averages over tied orderings when ignore_ties=False.
    expected = ndcg_score(y_true, y_score, k=k)
    got = ndcg_at_k_score(y_true, y_score, k=k, zero_division=0.0)
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)
    expected = dcg_score(y_true, y_score, k=k)
    assert dcg_at_k_score(y_true, y_score, k=k) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 3, 12, None])
@pytest.mark.parametrize("ignore_ties", [False, True])
def test_ndcg_dcg_match_sklearn_tie_free(seed, k, ignore_ties):
    # scikit-learn's ignore_ties breaks ties by reversed argsort, not column
    # order, so the two tie modes are compared on tie-free scores.
    y_true, y_score = _graded(seed, ties=False)
    w = np.random.default_rng(seed).random(y_true.shape[0])
    expected = ndcg_score(
        y_true, y_score, k=k, sample_weight=w, ignore_ties=ignore_ties
    )
    got = ndcg_at_k_score(
        y_true,
        y_score,
        k=k,
        sample_weight=w,
        ignore_ties=ignore_ties,
        zero_division=0.0,
    )
    assert got == pytest.approx(expected, rel=1e-12)
    expected = dcg_score(y_true, y_score, k=k, log_base=10, ignore_ties=ignore_ties)
    got = dcg_at_k_score(y_true, y_score, k=k, log_base=10, ignore_ties=ignore_ties)
    assert got == pytest.approx(expected, rel=1e-12)


def test_ndcg_per_row_matches_sklearn():
    y_true, y_score = _graded(7)
    got = ndcg_at_k_score(y_true, y_score, k=4, average=None, zero_division=0.0)
    expected = [ndcg_score(t[None], s[None], k=4) for t, s in zip(y_true, y_score)]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_hit_on_labels_matches_top_k_accuracy(k):
    rng = np.random.default_rng(k)
    y_score = rng.random((200, 6))  # tie-free
    y_true = rng.integers(0, 6, size=200)
    w = rng.random(200)
    expected = top_k_accuracy_score(y_true, y_score, k=k, sample_weight=w)
    assert hit_at_k_score(y_true, y_score, k=k, sample_weight=w) == pytest.approx(
        expected, rel=1e-12
    )


def test_hit_on_string_labels_with_labels_argument():
    rng = np.random.default_rng(0)
    labels = np.array(["ant", "bee", "cat", "dog"])
    y_score = rng.random((50, 4))
    y_true = labels[rng.integers(0, 3, size=50)]  # "dog" never occurs
    expected = top_k_accuracy_score(y_true, y_score, k=2, labels=labels)
    assert hit_at_k_score(y_true, y_score, k=2, labels=labels) == pytest.approx(
        expected
    )
