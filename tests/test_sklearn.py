"""Agreement with scikit-learn's ndcg_score, dcg_score and top_k_accuracy_score."""

import numpy as np
import pytest
from sklearn.metrics import dcg_score, ndcg_score, top_k_accuracy_score

from sklearn_rankk import (
    dcg_at_k_score,
    fbeta_at_k_score,
    hit_at_k_score,
    ndcg_at_k_score,
)


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


@pytest.mark.parametrize(
    "grades", [(1, 2, 3, 4), (1, 17, 40, 63), (1, 2, 64, 100), (0.5, 1, 2.5, 3)]
)
@pytest.mark.parametrize("k", [3, None])
@pytest.mark.parametrize("sparse", [False, True])
def test_ndcg_matches_sklearn_whatever_the_grades(grades, k, sparse):
    # The ideal ranking counts whole grades 1..63 and sorts any other row
    # (64 and up, fractions): both against scikit-learn's, per row.
    import scipy.sparse as sp

    rng = np.random.default_rng(int(grades[-1]) + (k or 0))
    y_true = rng.choice(np.array(grades, dtype=float), size=(30, 40))
    y_true[rng.random(y_true.shape) < 0.6] = 0.0
    y_score = rng.integers(0, 6, size=y_true.shape).astype(float)
    expected = [ndcg_score(t[None], s[None], k=k) for t, s in zip(y_true, y_score)]
    y_in = sp.csr_array(y_true) if sparse else y_true
    got = ndcg_at_k_score(y_in, y_score, k=k, average=None, zero_division=0.0)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


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


# --------------------------------------------------------------------------
# ignore_ties=True breaks ties as scikit-learn does: the later column first
# --------------------------------------------------------------------------


def _sklearn_dcg_stable(y_true, y_score, k):
    """scikit-learn's _dcg_sample_scores with ignore_ties=True, written with a
    *stable* reversed argsort: the order top_k_accuracy_score uses (sklearn's
    ndcg_score/dcg_score call numpy's default argsort, whose order among ties
    is not specified)."""
    ranking = np.argsort(y_score, kind="stable")[:, ::-1][:, :k]
    discount = 1 / np.log2(np.arange(ranking.shape[1]) + 2)
    return (np.take_along_axis(y_true, ranking, axis=1) * discount).sum(axis=1)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_hit_matches_top_k_accuracy_on_ties(seed, k):
    # Scores in a few levels: many ties, and ignore_ties=True must rank them
    # as top_k_accuracy_score's reversed stable argsort does.
    rng = np.random.default_rng(seed)
    y_score = rng.integers(0, 3, size=(300, 6)).astype(float)
    y_true = rng.integers(0, 6, size=300)
    w = rng.random(300)
    expected = top_k_accuracy_score(y_true, y_score, k=k, sample_weight=w)
    got = hit_at_k_score(y_true, y_score, k=k, sample_weight=w, ignore_ties=True)
    assert got == pytest.approx(expected, rel=1e-12)
    # Per row too (normalize=False counts the rows with a hit).
    rows = hit_at_k_score(y_true, y_score, k=k, average=None, ignore_ties=True)
    assert rows.sum() == top_k_accuracy_score(y_true, y_score, k=k, normalize=False)


def test_ignore_ties_example_of_the_issue():
    # Four items tied at 0.5: scikit-learn ranks the last column first.
    y_true = np.array([[1, 1, 1, 0, 0, 0, 1, 0]])
    y_score = np.array([[0.9, 0.5, 0.5, 0.5, 0.5, 0.2, 0.1, 0.05]])
    expected = ndcg_score(y_true, y_score, k=3, ignore_ties=True)
    assert expected == pytest.approx(0.469278726, rel=1e-8)
    got = ndcg_at_k_score(y_true, y_score, k=3, ignore_ties=True)
    assert got == pytest.approx(expected, rel=1e-12)
    got = dcg_at_k_score(y_true, y_score, k=3, ignore_ties=True)
    assert got == pytest.approx(dcg_score(y_true, y_score, k=3, ignore_ties=True))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 3, 7, None])
def test_ndcg_dcg_ignore_ties_is_sklearn_formula_in_stable_order(seed, k):
    y_true, y_score = _graded(seed)
    kk = y_true.shape[1] if k is None else k
    dcg = _sklearn_dcg_stable(y_true, y_score, kk)
    got = dcg_at_k_score(y_true, y_score, k=k, ignore_ties=True, average=None)
    np.testing.assert_allclose(got, dcg, rtol=1e-12)
    ideal = _sklearn_dcg_stable(y_true, y_true.astype(float), kk)
    expected = np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0)
    got = ndcg_at_k_score(
        y_true, y_score, k=k, ignore_ties=True, average=None, zero_division=0.0
    )
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_hit_warns_as_top_k_accuracy_when_k_covers_every_class():
    from sklearn.exceptions import UndefinedMetricWarning

    y_true, y_score = [0, 1, 2], np.random.default_rng(0).random((3, 3))
    for k in (3, 4):
        with pytest.warns(UndefinedMetricWarning) as ours:
            hit_at_k_score(y_true, y_score, k=k)
        with pytest.warns(UndefinedMetricWarning) as theirs:
            top_k_accuracy_score(y_true, y_score, k=k)
        assert str(ours[0].message) == str(theirs[0].message)
        assert ours[0].filename == __file__  # points at the caller's line
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hit_at_k_score(y_true, y_score, k=2)  # below the class count: silent
        hit_at_k_score(np.eye(3), y_score, k=3)  # a relevance matrix: silent


@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0, 2.0, 3.7])
def test_fbeta_at_k_is_sklearn_fbeta_of_the_top_k(beta):
    """Without ties, F-beta@k of a row is scikit-learn's fbeta_score of the
    row's relevance against the top-k indicator (precision over the k shown,
    recall over every relevant item)."""
    from sklearn.metrics import fbeta_score

    rng = np.random.default_rng(int(beta * 10))
    y_true = (rng.random((30, 12)) < 0.3).astype(int)
    y_true[:, 0] = 1  # a relevant item in every row: fbeta_score is defined
    y_score = rng.permutation(np.arange(30 * 12, dtype=float)).reshape(30, 12)
    for k in (1, 3, 7, 12):
        top = np.argsort(-y_score, axis=1)[:, :k]
        shown = np.zeros_like(y_true)
        np.put_along_axis(shown, top, 1, axis=1)
        expected = [
            fbeta_score(t, p, beta=beta, zero_division=0.0)
            for t, p in zip(y_true, shown)
        ]
        got = fbeta_at_k_score(y_true, y_score, k=k, beta=beta, average=None)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
