"""Measures other peers have: ERR@k (gdeval, ir-measures, RankLib, rankeval)
and fall-out@k (torchmetrics).

The brute-force oracle of ``test_common`` and the numpy reference of
``test_kernel`` check them on every option and tie mode; here are the
hand-worked examples and their conventions (the largest grade of ERR, the
lower-is-better scorer of fall-out).
"""

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.model_selection import GridSearchCV

from sklearn_rankk import (
    err_at_k_score,
    fall_out_at_k_loss,
    get_scorer,
    make_ranking_scorer,
    ranking_report,
)

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


# --------------------------------------------------------------------------
# fall-out@k
# --------------------------------------------------------------------------

Y_TRUE = np.array([[1, 0, 1, 0], [0, 1, 0, 0]])
Y_SCORE = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.1, 0.7, 0.4]])


def test_fall_out_worked_example():
    # Row 1: ranks 1-2 hold items 0 (relevant) and 1, one of its 2 non-relevant
    # items; row 2: items 2 and 3, two of its 3 non-relevant items.
    rows = fall_out_at_k_loss(Y_TRUE, Y_SCORE, k=2, average=None)
    np.testing.assert_array_equal(rows, [1 / 2, 2 / 3])
    assert fall_out_at_k_loss(Y_TRUE, Y_SCORE, k=2) == pytest.approx(7 / 12)
    # The whole ranking retrieves every non-relevant item: 1; a non-relevant
    # item scored -inf is not retrieved but still counts.
    assert fall_out_at_k_loss(Y_TRUE, Y_SCORE, k=None) == 1.0
    unretrieved = np.where(Y_TRUE == 0, Y_SCORE, 0.0)
    unretrieved[0, 3] = -np.inf
    assert fall_out_at_k_loss(Y_TRUE[:1], unretrieved[:1], k=None) == 1 / 2


def test_fall_out_ties():
    # A constant score: each non-relevant item is in the top k with
    # probability k / n, whatever the row.
    rows = fall_out_at_k_loss(Y_TRUE, np.zeros((2, 4)), k=1, average=None)
    np.testing.assert_array_equal(rows, [1 / 4, 1 / 4])
    # One relevant and two non-relevant items tied at the top, k = 2: the
    # top 2 holds 4/3 non-relevant items on average, of 3 in the row.
    y_true, y_score = [[0, 1, 0, 0]], [[0.5, 0.5, 0.5, 0.1]]
    assert fall_out_at_k_loss(y_true, y_score, k=2) == pytest.approx(4 / 9)
    # ignore_ties: the later column first, items 2 and 1.
    value = fall_out_at_k_loss(y_true, y_score, k=2, ignore_ties=True)
    assert value == 1 / 3


def test_fall_out_counts_judged_non_relevant_items_only():
    # A negative grade is not judged: neither relevant nor non-relevant.
    y_score = [[0.9, 0.8, 0.7, 0.6]]
    assert fall_out_at_k_loss([[-1, 0, 1, 0]], y_score, k=2) == 1 / 2
    # Non-relevant: 0 <= grade <= relevance_threshold.
    y_true = [[2, 1, 0, -2]]
    assert fall_out_at_k_loss(y_true, y_score, k=1, relevance_threshold=1) == 0.0
    assert fall_out_at_k_loss(y_true, y_score, k=2, relevance_threshold=1) == 1 / 2
    # At threshold 0, only the grade 0 at rank 3 is non-relevant.
    assert fall_out_at_k_loss(y_true, y_score, k=2) == 0.0
    assert fall_out_at_k_loss(y_true, y_score, k=3) == 1.0


def test_fall_out_undefined_without_non_relevant_items():
    y_true = [[1, 1, 1], [1, 0, 0]]
    y_score = [[0.3, 0.2, 0.1], [0.3, 0.2, 0.1]]
    with pytest.warns(UndefinedMetricWarning, match="1 of 2 samples with no non-rel"):
        rows = fall_out_at_k_loss(y_true, y_score, k=2, average=None)
    np.testing.assert_array_equal(rows, [0.0, 1 / 2])
    rows = fall_out_at_k_loss(y_true, y_score, k=2, zero_division=1.0, average=None)
    np.testing.assert_array_equal(rows, [1.0, 1 / 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fall_out_at_k_loss(y_true, y_score, k=2, zero_division=np.nan) == 0.5
        # A row with no relevant item is defined: every item is non-relevant.
        assert fall_out_at_k_loss([[0, 0, 0, 0]], [[4, 3, 2, 1]], k=1) == 1 / 4


def test_fall_out_scorer_is_negated():
    scorer = get_scorer(["neg_fall_out@2", "precision@2"])
    values = scorer._score(Y_TRUE, Y_SCORE)
    assert values["neg_fall_out@2"] == pytest.approx(-7 / 12)
    assert values["precision@2"] == 0.25
    made = make_ranking_scorer(fall_out_at_k_loss, k=2)
    assert made.keys == ["neg_fall_out@2"]
    assert made._score(Y_TRUE, Y_SCORE) == pytest.approx(-7 / 12)
    # A perfect ranking scores -0.0 as 0.0, the best value.
    assert get_scorer("neg_fall_out@1")._score(Y_TRUE, Y_TRUE * 1.0) == 0.0
    # zero_division applies to the loss, then the scorer negates it.
    y_true = [[1, 1], [1, 0]]
    one = get_scorer("neg_fall_out", zero_division=1.0)._score(y_true, [[1, 0], [1, 0]])
    assert one == pytest.approx(-(1.0 + 1.0) / 2)
    with pytest.raises(ValueError, match="'neg_fall_out@10'"):
        get_scorer("fall_out@10")
    with pytest.raises(ValueError, match="Unknown scorer name 'neg_precision@10'"):
        get_scorer("neg_precision@10")


class _Ranker(BaseEstimator):
    """Scores the items by sign * X: the truth plus noise, or its reverse."""

    def __init__(self, sign=1.0):
        self.sign = sign

    def fit(self, X, y):
        return self

    def decision_function(self, X):
        return self.sign * X


def test_grid_search_minimises_fall_out():
    rng = np.random.default_rng(0)
    Y = (rng.random((60, 8)) < 0.4).astype(int)
    X = Y + rng.random(Y.shape)
    for scoring in (
        get_scorer("neg_fall_out@3"),
        make_ranking_scorer(fall_out_at_k_loss, k=3, zero_division=0.0),
    ):
        search = GridSearchCV(
            _Ranker(), {"sign": [-1.0, 1.0]}, scoring=scoring, cv=3
        ).fit(X, Y)
        assert search.best_params_ == {"sign": 1.0}
        assert search.best_score_ <= 0.0


def test_fall_out_in_a_report_is_the_loss_itself():
    report = ranking_report(Y_TRUE, Y_SCORE, k=[2], metrics=["fall_out"])
    assert report.scores["fall_out@2"] == pytest.approx(7 / 12)


def test_max_grade_reaches_reports_and_displays():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sklearn_rankk import RankingCurveDisplay

    y_true = np.array([[3, 0, 1, 0], [0, 2, 0, 0]])
    y_score = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.1, 0.7, 0.4]])
    # max_grade=None: R = 7/8 (row 1's top grade 3) and 3/4 (row 2's 2).
    row_top = [7 / 8 + (1 / 8) * (1 / 8) / 4, 3 / 4 / 4]
    report = ranking_report(y_true, y_score, k=[4], metrics=["err"], max_grade=None)
    assert report.scores["err@4"] == pytest.approx(np.mean(row_top))
    display = RankingCurveDisplay.from_predictions(
        y_true, y_score, kind="err", k_max=4, max_grade=None
    )
    assert display.values[-1] == pytest.approx(np.mean(row_top))
    plt.close("all")
    with pytest.raises(TypeError, match="max_grade"):
        ranking_report(y_true, y_score, k=[4], metrics=["ndcg"], max_grade=None)


@pytest.mark.parametrize("sparse", [False, True])
def test_wide_tie_groups_on_every_selection_path(sparse):
    """Groups straddling the cut whose members beyond it are listed by the
    selection, or found by a pass over the row (a row all tied after a row of
    high scores: the selection's guessed threshold is too high and it
    streams), with dense and CSR relevance, against the numpy reference."""
    import scipy.sparse as sp
    from reference import reference_values

    rng = np.random.default_rng(0)
    m = 400
    y_score = np.vstack(
        [
            rng.random(m) + 10,
            np.zeros(m),  # all tied, after high scores
            rng.integers(0, 3, m) * 1.0,
            rng.random(m) + 10,
            np.ones(m),
        ]
    )
    y_true = rng.integers(0, 5, size=y_score.shape) * (rng.random(y_score.shape) < 0.3)
    y_true[2, :5] = -1  # not judged
    relevance = sp.csr_matrix(y_true) if sparse else y_true
    for k in (1, 5, 40, None):
        for metric, params in [
            ("err", {"max_grade": 4}),
            ("err", {"max_grade": None}),
            ("fall_out", {}),
        ]:
            expected, _ = reference_values(
                metric,
                y_true,
                y_score,
                k=k,
                params=params,
                ignore_ties=False,
                threshold=0,
            )
            func = err_at_k_score if metric == "err" else fall_out_at_k_loss
            got = func(relevance, y_score, k=k, average=None, **params)
            np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-13)


def test_fall_out_beside_a_judged_measure():
    # With bpref in the same pass, fall-out reads the kernel's judged count.
    rng = np.random.default_rng(4)
    y_true = rng.integers(-2, 3, size=(30, 12))
    y_score = rng.integers(0, 4, size=(30, 12)).astype(float)
    alone = fall_out_at_k_loss(y_true, y_score, k=3, average=None, zero_division=0.0)
    scorer = get_scorer(["bpref", "neg_fall_out@3"], zero_division=0.0)
    from sklearn_rankk._core import engine

    rows = engine.row_values(scorer.requests, y_true, y_score)
    np.testing.assert_allclose(rows.values[1], alone, rtol=1e-15, atol=0)
    assert np.all(y_true.min(axis=1) < 0)  # unjudged items in every row
