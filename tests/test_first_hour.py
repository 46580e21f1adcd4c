"""What a newcomer meets in the first hour (issue 28): inputs that used to
slip through (NaN long doubles, grades beyond float64, frames whose columns
come in another order), one warning per call with public names, and error
messages that name the function and the parameter.

Every expected value here is worked by hand on inputs small enough to read.
"""

from __future__ import annotations

import inspect
import re
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankk
from sklearn_rankk import (
    RankingAccumulator,
    from_id_lists,
    from_trec,
    get_scorer,
    interpolated_precision_recall_curve,
    ndcg_at_k_score,
    precision_at_k_score,
    ranking_report,
    recall_at_k_score,
)

NAN_SCORES = "y_score contains NaN. Use -inf for items that are not retrieved."
FLOAT_DTYPES = [np.float16, np.float32, np.float64, np.longdouble]

# --------------------------------------------------------------------------
# 1. Every numpy dtype, with NaN and infinities
# --------------------------------------------------------------------------

# One row, the relevant item in column 0: P@1 is 1 when column 0 ranks first.
Y_TRUE = np.array([[1, 0, 0]])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["matrix", "qid"])
def test_nan_score_is_an_error_in_every_float_dtype(dtype, layout):
    y_score = np.array([[np.nan, 0.5, 0.2]], dtype=dtype)
    with pytest.raises(ValueError, match=re.escape(NAN_SCORES)):
        if layout == "qid":
            precision_at_k_score(Y_TRUE[0], y_score[0], qid=[7, 7, 7], k=1)
        else:
            precision_at_k_score(Y_TRUE, y_score, k=1)


def test_nan_long_double_among_values_float64_cannot_tell_apart():
    # 1 + 2**-60 rounds to 1.0 in float64: the long doubles are then replaced
    # by their ranks, and the NaN must survive that (it once became a rank
    # and scored P@1 = 0.0).
    if np.finfo(np.longdouble).eps >= 2.0**-60:
        pytest.skip("np.longdouble is no wider than float64 on this platform")
    one = np.longdouble(1)
    tiny = np.longdouble(2.0) ** -60
    y_score = np.array([[one + tiny, one, np.nan]], dtype=np.longdouble)
    with pytest.raises(ValueError, match=re.escape(NAN_SCORES)):
        precision_at_k_score(Y_TRUE, y_score, k=1)
    # Without the NaN the ranks keep the order float64 cannot see.
    y_score[0, 2] = one - tiny
    assert precision_at_k_score(Y_TRUE, y_score, k=1) == 1.0
    y_score[0, 0] = one - 2 * tiny  # now last
    assert precision_at_k_score(Y_TRUE, y_score, k=1) == 0.0


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_infinite_scores_rank_first_or_nowhere(dtype):
    # +inf ranks first: the relevant item is at rank 1.
    y_score = np.array([[np.inf, 0.5, 0.2]], dtype=dtype)
    assert precision_at_k_score(Y_TRUE, y_score, k=1) == 1.0
    # -inf is not retrieved: 0.5 ranks first, the relevant item nowhere.
    y_score = np.array([[-np.inf, 0.5, 0.2]], dtype=dtype)
    assert precision_at_k_score(Y_TRUE, y_score, k=1) == 0.0
    assert recall_at_k_score(Y_TRUE, y_score, k=3) == 0.0


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("sparse", [False, True])
def test_nan_and_inf_grades_are_errors_in_every_float_dtype(dtype, sparse):
    y_score = np.array([[0.9, 0.5, 0.2]])
    for bad, message in [
        (np.nan, "y_true contains NaN; relevance must be finite."),
        (np.inf, "y_true contains infinite values; relevance must be finite."),
        (-np.inf, "y_true contains infinite values; relevance must be finite."),
    ]:
        y_true = np.array([[1, bad, 0]], dtype=dtype)
        if sparse:
            if dtype in (np.float16, np.longdouble):
                continue  # scipy.sparse does not hold these dtypes
            y_true = sp.csr_matrix(y_true)
        with pytest.raises(ValueError, match=re.escape(message)):
            precision_at_k_score(y_true, y_score, k=1)


@pytest.mark.parametrize(
    "dtype", [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64]
)
def test_integer_and_bool_scores_are_scored(dtype):
    info = np.iinfo(dtype) if dtype is not np.bool_ else None
    top = 1 if info is None else info.max
    # Column 0 holds the largest value of the dtype: it ranks first.
    y_score = np.array([[top, 0, 0]], dtype=dtype)
    assert precision_at_k_score(Y_TRUE, y_score, k=1) == 1.0
    if info is not None and info.max > 2**53:
        # Neighbours that float64 cannot tell apart still rank apart.
        y_score = np.array([[top - 1, top, 0]], dtype=dtype)
        assert precision_at_k_score(Y_TRUE, y_score, k=1) == 0.0
        assert precision_at_k_score(Y_TRUE, y_score, k=2) == 0.5


@pytest.mark.parametrize(
    ("values", "pattern"),
    [
        (np.array([[1, 0, 0]], dtype=object), "numeric .* got dtype object"),
        (np.array([["a", "b", "c"]]), "numeric .* got dtype <U1"),
        (np.array([[1, 2, 3]], dtype="datetime64[s]"), "got dtype datetime64"),
        (np.array([[1, 2, 3]], dtype="timedelta64[s]"), "got dtype timedelta64"),
        (np.array([[1, 2, 3]], dtype=np.complex128), "real numbers; got complex"),
    ],
    ids=["object", "str", "datetime64", "timedelta64", "complex"],
)
@pytest.mark.parametrize("where", ["y_score", "y_true"])
def test_non_numeric_dtypes_are_type_errors_naming_the_argument(values, pattern, where):
    numbers = np.array([[0.9, 0.5, 0.2]])
    y_true, y_score = (values, numbers) if where == "y_true" else (Y_TRUE, values)
    with pytest.raises(TypeError, match=f"^{where} must be .*{pattern}"):
        precision_at_k_score(y_true, y_score, k=1)


# --------------------------------------------------------------------------
# 2. Grades beyond float64's range
# --------------------------------------------------------------------------


@pytest.mark.parametrize("grade", [10**400, -(10**400), Fraction(10**400, 3)])
def test_huge_grade_in_id_lists_is_a_value_error_naming_it(grade):
    with pytest.raises(
        ValueError, match=r"^relevant_items\[0\]\['a'\] must be finite \(within"
    ):
        from_id_lists([{"a": grade}], [["a", "b"]])


def test_large_but_finite_integer_grade_is_accepted():
    # 2**1000 is about 1.07e301: finite in float64.
    y_true, y_score = from_id_lists([{"a": 2**1000, "b": 1}], [["b", "a"]])
    assert y_true.dtype == np.float64
    assert y_true[0, 1] == 2.0**1000
    assert precision_at_k_score(y_true, y_score, k=1) == 1.0


def test_huge_grade_or_score_in_trec_dicts_is_a_value_error_naming_it():
    run = {"q1": {"a": 2.0, "b": 1.0}}
    with pytest.raises(ValueError, match=r"^qrels\['q1'\]\['a'\] must be finite"):
        from_trec({"q1": {"a": 10**400}}, run)
    with pytest.raises(ValueError, match=r"^run\['q1'\]\['b'\] must be finite"):
        from_trec({"q1": {"a": 1}}, {"q1": {"a": 2.0, "b": -(10**400)}})


def test_huge_grade_in_a_qrels_file_is_a_value_error_naming_the_line(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(f"q1 0 a {10**400}\nq1 0 b 1\n")
    run.write_text("q1 Q0 a 1 2.0 x\nq1 Q0 b 2 1.0 x\n")
    with pytest.raises(ValueError, match=r"qrels:1: relevance '1000.*out of range"):
        from_trec(qrels, run)


# --------------------------------------------------------------------------
# 3. Data frames: columns pair by label
# --------------------------------------------------------------------------


def test_frames_with_permuted_columns_are_aligned_by_label():
    pd = pytest.importorskip("pandas")
    y_true = pd.DataFrame([[1, 0, 0], [0, 0, 1]], columns=["a", "b", "c"])
    # The same scores, columns in another order: item "a" scores highest in
    # row 0, item "c" in row 1, both relevant.
    y_score = pd.DataFrame([[0.1, 0.2, 0.9], [0.8, 0.3, 0.1]], columns=["c", "b", "a"])
    assert precision_at_k_score(y_true, y_score, k=1) == 1.0
    assert precision_at_k_score(y_true, y_score, k=1, ignore_ties=True) == 1.0
    # Paired by position instead (arrays), neither top item is relevant.
    assert precision_at_k_score(y_true.to_numpy(), y_score.to_numpy(), k=1) == 0.0
    report = ranking_report(y_true, y_score, k=[1], metrics=["precision"])
    assert report["precision@1"] == 1.0
    scorer_values = get_scorer("precision@1")._score(y_true, y_score)
    assert scorer_values == 1.0


def test_frames_with_different_labels_are_an_error():
    pd = pytest.importorskip("pandas")
    y_true = pd.DataFrame([[1, 0, 0]], columns=["a", "b", "c"])
    y_score = pd.DataFrame([[0.1, 0.2, 0.9]], columns=["c", "b", "d"])
    with pytest.raises(
        ValueError,
        match=re.escape("only in y_true: ['a'], only in y_score: ['d']"),
    ):
        precision_at_k_score(y_true, y_score, k=1)
    repeated = pd.DataFrame([[0.1, 0.2, 0.9]], columns=["c", "c", "a"])
    with pytest.raises(ValueError, match="y_score repeat"):
        precision_at_k_score(y_true, repeated, k=1)


def test_a_frame_without_labels_pairs_by_position():
    pd = pytest.importorskip("pandas")
    y_true = pd.DataFrame([[1, 0, 0]], columns=["a", "b", "c"])
    # pd.DataFrame(array) has the default labels 0, 1, 2: no labels to match.
    y_score = pd.DataFrame(np.array([[0.9, 0.2, 0.1]]))
    assert precision_at_k_score(y_true, y_score, k=1) == 1.0
    assert precision_at_k_score(y_score.to_numpy() > 0.5, y_score, k=1) == 1.0


# --------------------------------------------------------------------------
# 5. One warning per call, with public names and the count of rows
# --------------------------------------------------------------------------


def _undefined_warnings(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if w.category is UndefinedMetricWarning]


def _rows_with_empty():
    """12 rows x 6 items, distinct scores; rows 0-2 have no relevant item."""
    rng = np.random.default_rng(0)
    y_score = rng.permutation(72).reshape(12, 6) / 7.0
    y_true = np.zeros((12, 6), dtype=int)
    y_true[3:, 0] = 1
    y_true[3:, 4] = 1
    return y_true, y_score


def test_cross_validate_four_metrics_warns_once_per_fold():
    from sklearn.datasets import make_multilabel_classification
    from sklearn.model_selection import KFold, cross_validate
    from sklearn.neighbors import KNeighborsClassifier

    X, Y = make_multilabel_classification(
        n_samples=100, n_classes=6, n_labels=1, allow_unlabeled=True, random_state=0
    )
    empty_rows = ~Y.any(axis=1)
    cv = KFold(4)
    assert all(empty_rows[test].any() for _, test in cv.split(X))
    scorer = get_scorer(["ndcg@3", "recall@3", "map@3", "precision@3"])
    messages = _undefined_warnings(
        lambda: cross_validate(KNeighborsClassifier(), X, Y, scoring=scorer, cv=cv)
    )
    # One per scorer call (one per fold), naming the three metrics that are
    # undefined on empty rows (precision is 0 there by definition).
    expected = [
        f"ndcg@3, recall@3, map@3 are ill-defined and set to 0.0 in "
        f"{empty_rows[test].sum()} of {test.size} samples with no relevant item. "
        f"Use zero_division to control this behaviour."
        for _, test in cv.split(X)
    ]
    assert messages == expected


def test_interpolated_precision_warns_once_with_its_public_name():
    y_true, y_score = _rows_with_empty()
    messages = _undefined_warnings(
        lambda: interpolated_precision_recall_curve(y_true, y_score)
    )
    assert messages == [
        "interpolated_precision at 11 recall levels (0 to 1) is ill-defined and "
        "set to 0.0 in 3 of 12 samples with no relevant item. Use zero_division "
        "to control this behaviour."
    ]


def test_displays_warn_once_with_public_names():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sklearn_rankk import InterpolatedPrecisionRecallDisplay, RankingCurveDisplay

    y_true, y_score = _rows_with_empty()
    try:
        messages = _undefined_warnings(
            lambda: InterpolatedPrecisionRecallDisplay.from_predictions(y_true, y_score)
        )
        assert len(messages) == 1
        assert messages[0].startswith("interpolated_precision at 11 recall levels")
        assert "level0" not in messages[0]
        messages = _undefined_warnings(
            lambda: RankingCurveDisplay.from_predictions(
                y_true, y_score, kind="ndcg", k_max=5
            )
        )
        assert messages == [
            "ndcg@1 to ndcg@5 are ill-defined and set to 0.0 in 3 of 12 samples "
            "with no relevant item. Use zero_division to control this behaviour."
        ]
    finally:
        plt.close("all")


def test_accumulator_warns_once_for_all_its_metrics():
    y_true, y_score = _rows_with_empty()
    acc = RankingAccumulator(["ndcg@3", "recall@3", "precision@3"])
    acc.update(y_true[:6], y_score[:6])
    acc.update(y_true[6:], y_score[6:])
    messages = _undefined_warnings(acc.result)
    assert messages == [
        "ndcg@3, recall@3 are ill-defined and set to 0.0 in 3 of 12 samples with "
        "no relevant item. Use zero_division to control this behaviour."
    ]


# --------------------------------------------------------------------------
# 6. Errors that name the function and the parameter
# --------------------------------------------------------------------------


def test_positional_k_names_the_function_and_k():
    y = np.array([[1, 0, 1]])
    with pytest.raises(TypeError) as info:
        ndcg_at_k_score(y, y, 10)
    assert str(info.value) == (
        "ndcg_at_k_score() takes 2 positional arguments (y_true, y_score) but 3 "
        "were given (10 after y_score): every other parameter is keyword-only. "
        "Write ndcg_at_k_score(y_true, y_score, k=10) if that is what you meant."
    )


def test_misspelt_keyword_gets_the_function_and_a_suggestion():
    y = np.array([[1, 0, 1]])
    with pytest.raises(TypeError) as info:
        precision_at_k_score(y, y, ignore_tie=True)
    assert str(info.value) == (
        "precision_at_k_score() got an unexpected keyword argument 'ignore_tie'; "
        "did you mean 'ignore_ties'?"
    )
    with pytest.raises(TypeError, match=r"^ndcg_at_k_score\(\) got an unexpected "):
        ndcg_at_k_score(y, y, colour="red")
    with pytest.raises(TypeError, match=r"^ndcg_at_k_score\(\) missing .*y_score"):
        ndcg_at_k_score(y)


def test_one_d_real_scores_get_the_reshape_hint():
    with pytest.raises(ValueError) as info:
        ndcg_at_k_score([1, 0, 1], [0.3, 0.2, 0.9])
    message = str(info.value)
    assert message.startswith("y_true and y_score are both 1-D (3 values each)")
    assert "y_true.reshape(1, -1), y_score.reshape(1, -1)" in message
    assert "predicted labels" not in message
    # The hint works: one row.
    y_true, y_score = np.array([1, 0, 1]), np.array([0.3, 0.2, 0.9])
    value = ndcg_at_k_score(y_true.reshape(1, -1), y_score.reshape(1, -1), k=1)
    assert value == 1.0
    # Whole numbers look like predicted labels, as before.
    with pytest.raises(ValueError, match="these look like predicted labels"):
        ndcg_at_k_score([1, 0, 2], [1, 0, 2])


def test_public_functions_keep_their_signatures():
    # The friendlier errors wrap the binding, not the signature users see.
    params = inspect.signature(sklearn_rankk.ndcg_at_k_score).parameters
    assert list(params)[:3] == ["y_true", "y_score", "k"]
    assert params["k"].kind is inspect.Parameter.KEYWORD_ONLY


# --------------------------------------------------------------------------
# 4. What the docs say about ties and k=None
# --------------------------------------------------------------------------

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_ignore_ties_is_the_reversed_stable_argsort_the_docs_describe():
    rng = np.random.default_rng(28)
    y_true = rng.integers(0, 4, (200, 12))
    y_score = rng.integers(0, 3, (200, 12)).astype(float)  # many ties
    k = 5
    discount = 1 / np.log2(np.arange(2, k + 2))
    expected = []
    for t, s in zip(y_true, y_score):
        top = np.argsort(s, kind="stable")[::-1][:k]  # the later column first
        ideal = (np.sort(t)[::-1][:k] * discount).sum()
        expected.append((t[top] * discount).sum() / ideal if ideal else 0.0)
    ours = ndcg_at_k_score(
        y_true, y_score, k=k, ignore_ties=True, average=None, zero_division=0.0
    )
    np.testing.assert_allclose(ours, expected, rtol=1e-12)
    text = (DOCS / "conventions.md").read_text()
    assert "lower index first" not in text
    assert "the *later* column" in text


def test_the_docs_list_every_metric_that_takes_k_none():
    text = " ".join((DOCS / "conventions.md").read_text().split())
    listed = re.search(r"`k=None` \(whole row\) is accepted by (.*?) only\.", text)
    names = re.split(r", | and ", listed.group(1))
    functions = {
        "DCG": "dcg_at_k_score",
        "nDCG": "ndcg_at_k_score",
        "ideal DCG": "ideal_dcg_at_k_score",
        "MAP": "map_at_k_score",
        "MRR": "mrr_at_k_score",
        "ERR": "err_at_k_score",
        "RBP": "rank_biased_precision_score",
        "fall-out": "fall_out_at_k_loss",
        "AUC": "auc_score",
    }
    documented = {functions[name] for name in names}
    y_true, y_score = np.array([[1, 0, 1]]), np.array([[0.3, 0.2, 0.1]])
    accepting = set()
    for name in sklearn_rankk.__all__:
        function = getattr(sklearn_rankk, name)
        if not (name.endswith(("_score", "_loss")) and callable(function)):
            continue
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError):
            continue
        if "k" not in signature.parameters or "y_score" not in signature.parameters:
            continue
        try:
            function(y_true, y_score, k=None)
        except ValueError as exc:
            assert "k=None" in str(exc)
            continue
        accepting.add(name)
    assert accepting == documented
