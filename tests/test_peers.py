"""Measures other peers have: ERR@k (gdeval, ir-measures, RankLib, rankeval)
and fall-out@k (torchmetrics).

The brute-force oracle of ``test_common`` and the numpy reference of
``test_kernel`` check them on every option and tie mode; here are the
hand-worked examples and their conventions (the largest grade of ERR, the
lower-is-better scorer of fall-out).
"""

import numpy as np
import pytest

from sklearn_rankk import err_at_k_score, get_scorer

# --------------------------------------------------------------------------
# ERR@k
# --------------------------------------------------------------------------


def test_err_worked_example_without_ties():
    # Grades 3, 0, 0, 1 at ranks 1-4; R = (2**g - 1) / 16: 7/16, 0, 0, 1/16.
    # ERR = 7/16 + (1 - 7/16) * (1/16) / 4 = 457/1024.
    y_true = [[3, 0, 1, 0]]
    y_score = [[0.9, 0.8, 0.1, 0.3]]
    assert err_at_k_score(y_true, y_score, k=None) == 457 / 1024
    assert err_at_k_score(y_true, y_score, k=3) == 7 / 16
    # The only relevant item, grade 2, at rank 4: 3/16 / 4.
    assert err_at_k_score([[0, 2, 0, 0]], [[0.2, 0.1, 0.7, 0.4]], k=None) == 3 / 64


def test_err_worked_example_with_ties():
    # Two tied items of grades 2 and 1, max_grade=2: R = 3/4 and 1/4.
    # Order (2, 1): 3/4 + (1/4)(1/4)/2 = 25/32; order (1, 2): 1/4 + (3/4)(3/4)/2
    # = 17/32; the expectation is their mean, 21/32.
    value = err_at_k_score([[2, 1]], [[0.5, 0.5]], k=None, max_grade=2)
    assert value == pytest.approx(21 / 32, rel=1e-15)
    # ignore_ties: the later column first, order (1, 2).
    value = err_at_k_score(
        [[2, 1]], [[0.5, 0.5]], k=None, max_grade=2, ignore_ties=True
    )
    assert value == pytest.approx(17 / 32, rel=1e-15)
    # One relevant item (grade 2, R = 3/16) among 4 tied, k = 2: at rank 1 or
    # 2 with probability 1/4 each, after an item of R = 0: 3/64 + 3/128.
    value = err_at_k_score([[0, 2, 0, 0]], [[1, 1, 1, 1]], k=2)
    assert value == pytest.approx(9 / 128, rel=1e-15)


def test_err_max_grade():
    y_true, y_score = [[3, 0, 1]], [[0.9, 0.5, 0.2]]
    # max_grade=3: R = 7/8 at rank 1; None: the row's largest grade, also 3.
    assert err_at_k_score(y_true, y_score, k=1, max_grade=3) == 7 / 8
    assert err_at_k_score(y_true, y_score, k=1, max_grade=None) == 7 / 8
    # None: a row's best item stops the user with probability 1 - 2**-g.
    y_true = [[0, 1, 0], [0, 0, 4]]
    perfect = [[0, 1, 0], [0, 0, 1]]
    rows = err_at_k_score(y_true, perfect, k=1, max_grade=None, average=None)
    np.testing.assert_array_equal(rows, [1 / 2, 15 / 16])
    # Grades above max_grade would make R > 1: an error, as in gdeval.
    with pytest.raises(ValueError, match="above max_grade=4"):
        err_at_k_score([[5, 0]], [[1, 0]], k=1)
    with pytest.raises(ValueError, match="above max_grade=2.5"):
        err_at_k_score([[3, 0]], [[1, 0]], k=1, max_grade=2.5)
    # ... unless they are not relevant.
    assert err_at_k_score([[5, 0]], [[1, 0]], k=1, relevance_threshold=5) == 0
    with pytest.raises(ValueError, match="max_grade"):
        err_at_k_score(y_true, perfect, k=1, max_grade=0)
    with pytest.raises(TypeError, match="max_grade"):
        err_at_k_score(y_true, perfect, k=1, max_grade="4")


def test_err_negative_grades_and_threshold_have_no_stopping_probability():
    # A negative grade (not judged) and a grade at the threshold: R = 0.
    y_score = [[0.9, 0.8, 0.7]]
    assert err_at_k_score([[-1, 0, 2]], y_score, k=None) == 3 / 16 / 3
    value = err_at_k_score([[1, 0, 2]], y_score, k=None, relevance_threshold=1)
    assert value == 3 / 16 / 3


def test_err_scorers():
    y_true = np.array([[3, 0, 1, 0], [0, 2, 0, 0]])
    y_score = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.1, 0.7, 0.4]])
    scorer = get_scorer(["err@3", "err"], max_grade=None)
    rows = scorer._score(y_true, y_score)
    # max_grade=None: row 1's largest grade is 3 (R = 7/8, 1/8), row 2's is 2.
    assert rows["err@3"] == pytest.approx((7 / 8 + 0) / 2)
    assert rows["err"] == pytest.approx((7 / 8 + (1 / 8) * (1 / 8) / 4 + 3 / 4 / 4) / 2)
