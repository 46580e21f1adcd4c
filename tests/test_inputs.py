"""Input forms: sparse relevance in bounded memory, class labels, pandas."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_rankk import (
    dcg_at_k_score,
    hit_at_k_score,
    map_at_k_score,
    mrr_at_k_score,
    ndcg_at_k_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)


def test_large_sparse_relevance_stays_in_bounded_memory():
    # 4,000 x 50,000 with 20 positives a row: densified, y_true alone would
    # take 1.6 GB as float64 (200 MB as bool). The scores are one row
    # broadcast (a zero-stride view), so any large allocation is the
    # package's own.
    n, m, per_row = 4_000, 50_000, 20
    rng = np.random.default_rng(0)
    cols = np.concatenate([rng.choice(m, per_row, replace=False) for _ in range(n)])
    y_true = sp.csr_matrix(
        (np.ones(n * per_row), cols, np.arange(0, n * per_row + 1, per_row)),
        shape=(n, m),
    )
    row = rng.random(m)
    y_score = np.broadcast_to(row, (n, m))
    tracemalloc.start()
    try:
        value = recall_at_k_score(y_true, y_score, k=20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64e6, f"peak {peak / 1e6:.0f} MB"
    # Oracle: the top 20 columns of the shared score row, counted per row.
    top = set(np.argsort(-row)[:20].tolist())
    found = np.array([len(top.intersection(r)) for r in np.split(cols, n)])
    assert value == pytest.approx(np.mean(found / per_row), rel=1e-12)


def test_class_labels_map_to_columns():
    y_score = np.array([[0.5, 0.2, 0.3], [0.1, 0.7, 0.2], [0.2, 0.3, 0.5]])
    y_true = np.array(["b", "b", "a"])
    labels = ["a", "b", "c"]
    # Ranks of the true class: 3 ("b" in row 0), 1, 3 ("a" in row 2).
    np.testing.assert_allclose(
        mrr_at_k_score(y_true, y_score, k=None, labels=labels, average=None),
        [1 / 3, 1.0, 1 / 3],
    )
    assert hit_at_k_score(y_true, y_score, k=1, labels=labels) == pytest.approx(1 / 3)
    # Without labels the columns are the sorted unique labels of y_true,
    # which must then cover every column.
    with pytest.raises(ValueError, match="labels"):
        hit_at_k_score(y_true, y_score, k=1)
    y_int = np.array([0, 2, 1])  # top-1 columns are 0, 1, 2: one hit
    assert hit_at_k_score(y_int, y_score, k=1) == pytest.approx(1 / 3)


def test_pandas_nullable_and_extension_dtypes():
    pd = pytest.importorskip("pandas")
    y_true = pd.DataFrame({"a": [1, 0], "b": [0, 1], "c": [1, 1]}, dtype="Int64")
    y_score = pd.DataFrame({"a": [0.3, 0.1], "b": [0.2, 0.9], "c": [0.1, 0.5]})
    expected = precision_at_k_score(y_true.to_numpy(int), y_score.to_numpy(), k=2)
    assert precision_at_k_score(y_true, y_score, k=2) == expected
    y_true.iloc[0, 0] = pd.NA
    with pytest.raises(ValueError, match="y_true contains NaN"):
        precision_at_k_score(y_true, y_score, k=2)


def test_sparse_scores_are_accepted_blockwise():
    rng = np.random.default_rng(1)
    y_score = sp.random(30, 20, density=0.3, random_state=1, format="csr")
    y_true = rng.integers(0, 3, size=(30, 20))
    dense = y_score.toarray()
    for f in (ndcg_at_k_score, map_at_k_score):
        assert f(y_true, y_score, k=5, zero_division=0.0) == f(
            y_true, dense, k=5, zero_division=0.0
        )


def test_fewer_finite_scores_than_k():
    # Two retrieved items, k=5: P@5 divides by 5; the unretrieved relevant
    # item counts in |R| (recall, R-precision) but is never ranked.
    y_true = np.array([[1, 1, 0, 1]])
    y_score = np.array([[0.9, -np.inf, 0.5, -np.inf]])
    assert precision_at_k_score(y_true, y_score, k=5) == pytest.approx(1 / 5)
    assert recall_at_k_score(y_true, y_score, k=5) == pytest.approx(1 / 3)
    assert r_precision_score(y_true, y_score) == pytest.approx(1 / 3)
    assert map_at_k_score(y_true, y_score, k=None) == pytest.approx(1 / 3)
    assert map_at_k_score(
        y_true, y_score, k=None, denominator="retrieved"
    ) == pytest.approx(1.0)


def test_k_larger_than_the_row():
    y_true = np.array([[0, 1, 1]])
    y_score = np.array([[0.3, 0.2, 0.1]])
    assert precision_at_k_score(y_true, y_score, k=10) == pytest.approx(2 / 10)
    assert recall_at_k_score(y_true, y_score, k=10) == 1.0
    assert map_at_k_score(y_true, y_score, k=10) == pytest.approx((1 / 2 + 2 / 3) / 2)


def test_string_labels_as_pandas_series():
    pd = pytest.importorskip("pandas")
    y_score = [[0.1, 0.5, 0.4], [0.3, 0.3, 0.4], [0.6, 0.2, 0.2]]
    y_true = pd.Series(["a", "c", "b"])  # top-1 columns: b, c, a -> one hit
    assert hit_at_k_score(y_true, y_score, k=1) == pytest.approx(1 / 3)
    categorical = y_true.astype("category")
    assert hit_at_k_score(categorical, y_score, k=1) == pytest.approx(1 / 3)


def test_gain_overflow_is_an_error_not_a_dropped_row():
    y_true = [[1023, 1023, 1023], [1, 0, 0]]
    y_score = [[3.0, 2.0, 1.0], [0.0, 0.0, 1.0]]
    with pytest.raises(ValueError, match="overflow"):
        dcg_at_k_score(y_true, y_score, k=3, gain="exponential")
    # nDCG is a ratio: its value is right even where its DCGs are not finite
    # (the first row is ranked perfectly; in the second, the relevant item is
    # tied with another at ranks 2 and 3).
    got = ndcg_at_k_score(y_true, y_score, k=3, gain="exponential", average=None)
    np.testing.assert_allclose(got, [1.0, (1 / np.log2(3) + 1 / 2) / 2], rtol=1e-12)
    # Grades at or below the threshold carry no gain, so they cannot overflow.
    value = dcg_at_k_score(
        [[2000, 3]], [[0.1, 0.2]], k=2, gain="exponential", relevance_threshold=2500
    )
    assert value == 0.0


def test_nan_zero_division_drops_only_undefined_rows():
    y_true = np.array([[0, 0], [1, 0]])
    y_score = np.array([[0.2, 0.1], [0.1, 0.2]])
    # The defined row has weight 0: nothing is left to average.
    assert np.isnan(
        recall_at_k_score(
            y_true, y_score, k=1, zero_division=np.nan, sample_weight=[1, 0]
        )
    )
    assert recall_at_k_score(
        y_true, y_score, k=1, zero_division=np.nan, sample_weight=[1, 2]
    ) == pytest.approx(0.0)


def test_bool_and_wide_integer_scores_rank_exactly():
    y_true = [[0, 1, 0, 0]]
    assert (
        precision_at_k_score(y_true, np.array([[False, True, False, False]]), k=1)
        == 1.0
    )
    # 2**53 and 2**53 + 1 are equal as float64: ranked as integers, not tied.
    big = np.array([[2**53, 2**53 + 1, 0, 0]], dtype=np.int64)
    assert precision_at_k_score(y_true, big, k=1) == 1.0
    assert precision_at_k_score(y_true, big.astype(np.uint64), k=1) == 1.0
    wide = np.array([[1.0, 1.0, -np.inf, 0.0]], dtype=np.longdouble)
    wide[0, 1] += np.finfo(np.longdouble).eps
    assert precision_at_k_score(y_true, wide, k=1) == 1.0
    assert recall_at_k_score([[0, 0, 1, 0]], wide, k=4) == 0.0  # -inf stays


def test_malformed_sparse_matrix_is_an_error():
    y = sp.csr_matrix(([1.0, 2.0], [0, 5_000_000], [0, 2]), shape=(1, 10))
    with pytest.raises(ValueError, match="malformed"):
        precision_at_k_score(y, np.zeros((1, 10)), k=1)
