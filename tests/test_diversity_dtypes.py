"""The intent-aware measures read y_true of every relevance dtype, and scores
of both float widths, in their one kernel pass: the values do not depend on
the dtype (an invariance; the values themselves are checked against the
brute-force oracle and ndeval in test_diversity.py)."""

import numpy as np
import pytest

from sklearn_rankk import (
    alpha_ndcg_at_k,
    err_ia_at_k,
    intent_aware_precision_at_k,
    nerr_ia_at_k,
    subtopic_recall_at_k,
)

FUNCTIONS = [
    intent_aware_precision_at_k,
    subtopic_recall_at_k,
    alpha_ndcg_at_k,
    err_ia_at_k,
    nerr_ia_at_k,
]


def _case(seed, n_intents):
    rng = np.random.default_rng(seed)
    grades = rng.integers(0, 4, size=(6, 40, n_intents))
    grades *= rng.random(grades.shape) < 0.15
    y_score = np.round(rng.random((6, 40)) * 8) / 8  # ties, exact in float32
    y_score[0, :5] = -np.inf
    return grades, y_score


@pytest.mark.parametrize("func", FUNCTIONS)
@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize(
    "dtype",
    [
        "int8",
        "uint8",
        "int16",
        "uint16",
        "int32",
        "uint32",
        "uint64",
        "float32",
        "float64",
    ],
)
def test_every_relevance_dtype(func, ignore_ties, dtype):
    grades, y_score = _case(0, 3)
    common = dict(k=7, average=None, zero_division=np.nan, ignore_ties=ignore_ties)
    for threshold in (0, 1.5):
        want = func(grades, y_score, relevance_threshold=threshold, **common)
        got = func(
            grades.astype(dtype), y_score, relevance_threshold=threshold, **common
        )
        np.testing.assert_array_equal(got, want)
    got = func(grades > 0, y_score.astype(np.float32), **common)
    np.testing.assert_array_equal(got, func(grades > 0, y_score, **common))


@pytest.mark.parametrize(
    "func", [intent_aware_precision_at_k, err_ia_at_k, nerr_ia_at_k]
)
def test_weights_per_row_equal_one_row_of_weights(func):
    grades, y_score = _case(1, 4)
    w = np.array([0.1, 2.0, 0.5, 1.0])
    common = dict(k=5, average=None, zero_division=np.nan)
    want = func(grades, y_score, intent_weights=w, **common)
    rows = np.tile(w, (grades.shape[0], 1))
    np.testing.assert_array_equal(
        func(grades, y_score, intent_weights=rows, **common), want
    )
    # a row's own weights reach that row only
    rows[2] = [1.0, 1.0, 1.0, 1.0]
    got = func(grades, y_score, intent_weights=rows, **common)
    np.testing.assert_array_equal(np.delete(got, 2), np.delete(want, 2))
    one = func(grades[2:3], y_score[2:3], **common)
    np.testing.assert_allclose(got[2], one[0], rtol=1e-15)


def test_nan_and_infinite_grades_are_errors():
    grades, y_score = _case(2, 2)
    bad = grades.astype(float)
    bad[1, 3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        alpha_ndcg_at_k(bad, y_score)
    bad[1, 3, 1] = np.inf
    with pytest.raises(ValueError, match="infinite"):
        subtopic_recall_at_k(bad, y_score)
