"""Bad input gets a clear error that names the parameter, for every metric.

One table of bad-input cases is crossed with every public metric function
(cases that do not apply to a metric, such as ``k`` for R-precision or
``gain`` for non-DCG metrics, are left out of the cross product). For each
pair the valid counterpart of the call is run first and must succeed, so the
table cannot pass by every call raising; then the bad call must raise the
expected exception with a message naming the parameter.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

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

# --------------------------------------------------------------------------
# The metrics, described here (not read from the package's registry) so that
# the test states what the spec says about each one.
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    name: str
    func: Callable
    has_k: bool = True
    k_none: bool = False  # k=None (whole ranking) accepted
    graded: bool = False  # DCG, nDCG: negative relevance is an error
    params: tuple = ()  # metric-specific keywords

    def __repr__(self):
        return self.name


METRICS = [
    Metric("precision", precision_at_k_score),
    Metric("recall", recall_at_k_score),
    Metric("f1", f1_at_k_score),
    Metric("hit", hit_at_k_score),
    Metric("mrr", mrr_at_k_score, k_none=True),
    Metric("map", map_at_k_score, k_none=True, params=("denominator",)),
    Metric(
        "dcg", dcg_at_k_score, k_none=True, graded=True, params=("gain", "log_base")
    ),
    Metric(
        "ndcg", ndcg_at_k_score, k_none=True, graded=True, params=("gain", "log_base")
    ),
    Metric("r_precision", r_precision_score, has_k=False),
]

BINARY_METRICS = [m for m in METRICS if not m.graded]
GRADED_METRICS = [m for m in METRICS if m.graded]

# --------------------------------------------------------------------------
# Valid inputs. Every row has a relevant item, so no call warns.
# --------------------------------------------------------------------------

Y_TRUE = np.array([[1, 0, 2, 0], [0, 1, 0, 0], [0, 0, 1, 3]])
Y_SCORE = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.1, 0.7, 0.4], [0.5, 0.6, 0.7, 0.8]])
BASE = {"y_true": Y_TRUE, "y_score": Y_SCORE, "k": 2}

# 1-D class labels for a 3-class y_score; every class occurs.
Y_SCORE_3 = Y_SCORE[:, :3]
Y_LABELS = np.array([0, 2, 1])
LABELS_BASE = {"y_true": Y_LABELS, "y_score": Y_SCORE_3, "labels": [0, 1, 2]}

Y_TRUE_F = Y_TRUE.astype(np.float64)


def _with(a, where, value):
    """Copy of ``a`` (as float) with ``value`` at the cells where ``where``."""
    out = np.asarray(a, dtype=np.float64).copy()
    out[where] = value
    return out


NAN_TRUE = _with(Y_TRUE, (0, 1), np.nan)
NAN_SCORE = _with(Y_SCORE, (1, 2), np.nan)


def _frame_with_column(a, col, values):
    df = pd.DataFrame(np.asarray(a, dtype=np.float64), columns=list("abcd"))
    df[col] = values
    return df


def _sparse_3d():
    """A 3-D sparse array where scipy supports it (scipy >= 1.15)."""
    try:
        return sp.coo_array(np.ones((1, 3, 4)))
    except (ValueError, TypeError, AttributeError):  # pragma: no cover
        return None


# --------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------


def _all(m):
    return True


def _with_k(m):
    return m.has_k


def _without_k_none(m):
    return m.has_k and not m.k_none


def _graded(m):
    return m.graded


def _has(param):
    def applies(m):
        return param in m.params

    return applies


def _lacks(param):
    def applies(m):
        return param not in m.params

    return applies


@dataclass
class Case:
    id: str
    bad: dict  # overrides of the valid call that make it bad
    exc: type | tuple
    match: str  # regex the message must match (names the parameter)
    good: dict = field(default_factory=dict)  # overrides of BASE: the valid call
    applies: Callable = _all
    marks: tuple = ()


CASES = [
    # ---- y_true / y_score: presence, shape, dimensionality ----------------
    Case("y_true_none", {"y_true": None}, ValueError, r"y_true"),
    Case("y_score_none", {"y_score": None}, ValueError, r"y_score"),
    Case(
        "shape_mismatch",
        {"y_true": Y_TRUE[:, :3]},
        ValueError,
        r"y_true.*\(3, 3\).*y_score.*\(3, 4\)",
    ),
    Case(
        "shape_mismatch_rows",
        {"y_true": Y_TRUE[:2]},
        ValueError,
        r"y_true.*\(2, 4\).*y_score.*\(3, 4\)",
    ),
    Case(
        "shape_mismatch_sparse",
        {"y_true": sp.csr_matrix(Y_TRUE[:, :3])},
        ValueError,
        r"y_true.*\(3, 3\).*y_score.*\(3, 4\)",
    ),
    Case("y_score_1d", {"y_score": Y_SCORE[0]}, ValueError, r"y_score.*2-D"),
    Case("y_score_0d", {"y_score": 0.5}, ValueError, r"y_score.*2-D"),
    Case("y_score_3d", {"y_score": Y_SCORE[None]}, ValueError, r"y_score.*2-D"),
    Case("y_true_3d", {"y_true": Y_TRUE[None]}, ValueError, r"y_true.*2-D"),
    Case(
        "y_true_3d_sparse",
        {"y_true": _sparse_3d()},
        ValueError,
        r"y_true.*2-D",
    ),
    Case(
        "y_score_3d_sparse",
        {"y_score": _sparse_3d()},
        ValueError,
        r"y_score.*2-D",
    ),
    # ---- empty input ------------------------------------------------------
    Case(
        "empty_rows",
        {"y_true": np.empty((0, 4)), "y_score": np.empty((0, 4))},
        ValueError,
        r"(y_true|y_score).*empty",
    ),
    Case(
        "empty_columns",
        {"y_true": np.empty((3, 0)), "y_score": np.empty((3, 0))},
        ValueError,
        r"(y_true|y_score).*empty",
    ),
    Case(
        "empty_rows_sparse",
        {"y_true": sp.csr_matrix((0, 4)), "y_score": sp.csr_matrix((0, 4))},
        ValueError,
        r"(y_true|y_score).*empty",
    ),
    # ---- NaN and infinity -------------------------------------------------
    Case("y_score_nan", {"y_score": NAN_SCORE}, ValueError, r"y_score.*NaN"),
    Case(
        "y_score_nan_float32",
        {"y_score": NAN_SCORE.astype(np.float32)},
        ValueError,
        r"y_score.*NaN",
    ),
    Case(
        "y_score_nan_sparse",
        {"y_score": sp.csr_matrix(NAN_SCORE)},
        ValueError,
        r"y_score.*NaN",
    ),
    Case("y_true_nan", {"y_true": NAN_TRUE}, ValueError, r"y_true.*NaN"),
    Case(
        "y_true_nan_csr_matrix",
        {"y_true": sp.csr_matrix(NAN_TRUE)},
        ValueError,
        r"y_true.*NaN",
    ),
    Case(
        "y_true_nan_csr_array",
        {"y_true": sp.csr_array(NAN_TRUE)},
        ValueError,
        r"y_true.*NaN",
    ),
    Case(
        "y_true_nan_coo",
        {"y_true": sp.coo_matrix(NAN_TRUE)},
        ValueError,
        r"y_true.*NaN",
    ),
    Case(
        "y_true_nan_dataframe_Int64_NA",
        {"y_true": pd.DataFrame(Y_TRUE).astype("Int64").mask(Y_TRUE == 2)},
        ValueError,
        r"y_true.*NaN",
    ),
    Case(
        "y_true_pos_inf",
        {"y_true": _with(Y_TRUE, (0, 0), np.inf)},
        ValueError,
        r"y_true.*(infinite|finite)",
    ),
    Case(
        "y_true_neg_inf",
        {"y_true": _with(Y_TRUE, (0, 1), -np.inf)},
        ValueError,
        r"y_true.*(infinite|finite)",
    ),
    Case(
        "y_true_inf_sparse",
        {"y_true": sp.csr_matrix(_with(Y_TRUE, (2, 3), np.inf))},
        ValueError,
        r"y_true.*(infinite|finite)",
    ),
    # ---- dtypes -----------------------------------------------------------
    Case("y_true_complex", {"y_true": Y_TRUE + 0j}, TypeError, r"y_true.*complex"),
    Case("y_score_complex", {"y_score": Y_SCORE + 1j}, TypeError, r"y_score.*complex"),
    Case(
        "y_score_complex_sparse",
        {"y_score": sp.csr_matrix(Y_SCORE + 1j)},
        TypeError,
        r"y_score.*complex",
    ),
    Case(
        "y_true_object",
        {"y_true": Y_TRUE.astype(object)},
        TypeError,
        r"y_true.*(numeric|number)",
    ),
    Case(
        "y_true_strings",
        {"y_true": Y_TRUE.astype(str)},
        TypeError,
        r"y_true.*(numeric|number)",
    ),
    Case(
        "y_true_list_with_none",
        {"y_true": [[1, None, 0, 0], [0, 1, 0, 0], [0, 0, 1, 1]]},
        TypeError,
        r"y_true.*(numeric|number)",
    ),
    Case(
        "y_score_object",
        {"y_score": Y_SCORE.astype(object)},
        TypeError,
        r"y_score.*(numeric|number)",
    ),
    Case(
        "y_score_strings",
        {"y_score": Y_SCORE.astype(str)},
        TypeError,
        r"y_score.*(numeric|number)",
    ),
    Case(
        "y_score_datetime",
        {"y_score": np.zeros((3, 4), dtype="datetime64[s]")},
        TypeError,
        r"y_score.*(numeric|number)",
    ),
    # ---- ragged nested lists ----------------------------------------------
    # (numpy < 1.24 builds an object array from them: TypeError there.)
    Case(
        "y_true_ragged",
        {"y_true": [[1, 0, 2, 0], [0, 1], [0, 0, 1, 3]]},
        (ValueError, TypeError),
        r"y_true",
    ),
    Case(
        "y_score_ragged",
        {"y_score": [[0.9, 0.8, 0.1, 0.3], [0.2, 0.1], [0.5, 0.6, 0.7, 0.8]]},
        (ValueError, TypeError),
        r"y_score",
    ),
    # ---- pandas DataFrames with non-numeric columns -----------------------
    Case(
        "y_true_dataframe_str_column",
        {"y_true": _frame_with_column(Y_TRUE, "a", ["x", "y", "z"])},
        TypeError,
        r"y_true.*(numeric|number)",
    ),
    Case(
        "y_score_dataframe_str_column",
        {"y_score": _frame_with_column(Y_SCORE, "b", ["x", "y", "z"])},
        TypeError,
        r"y_score.*(numeric|number)",
    ),
    Case(
        "y_score_dataframe_numeric_str_column",
        {"y_score": _frame_with_column(Y_SCORE, "b", ["0.8", "0.1", "0.6"])},
        TypeError,
        r"y_score.*(numeric|number)",
    ),
    Case(
        "y_score_dataframe_complex",
        {"y_score": pd.DataFrame(Y_SCORE + 1j)},
        TypeError,
        r"y_score.*complex",
    ),
    Case(
        "y_score_dataframe_datetime",
        {
            "y_score": _frame_with_column(
                Y_SCORE, "a", pd.to_datetime(["2020", "2021", "2022"])
            )
        },
        TypeError,
        r"y_score.*(numeric|number)",
    ),
    # ---- k ----------------------------------------------------------------
    Case("k_zero", {"k": 0}, ValueError, r"\bk\b.*>= ?1", applies=_with_k),
    Case("k_negative", {"k": -3}, ValueError, r"\bk\b.*>= ?1", applies=_with_k),
    Case("k_float", {"k": 2.0}, TypeError, r"\bk\b.*integer", applies=_with_k),
    Case(
        "k_numpy_float",
        {"k": np.float64(2.0)},
        TypeError,
        r"\bk\b.*integer",
        applies=_with_k,
    ),
    Case("k_bool", {"k": True}, TypeError, r"\bk\b.*integer", applies=_with_k),
    Case("k_string", {"k": "2"}, TypeError, r"\bk\b.*integer", applies=_with_k),
    Case("k_list", {"k": [2]}, TypeError, r"\bk\b.*integer", applies=_with_k),
    Case(
        "k_none_not_allowed",
        {"k": None},
        ValueError,
        r"\bk=None\b.*not accepted",
        applies=_without_k_none,
    ),
    Case(
        "k_given_to_r_precision",
        {"k": 2},
        TypeError,
        r"\bk\b",
        applies=lambda m: not m.has_k,
    ),
    # ---- options with a fixed set of values -------------------------------
    Case(
        "average_unknown",
        {"average": "macro"},
        ValueError,
        r"average.*mean.*None.*macro",
    ),
    Case("average_none_string", {"average": "none"}, ValueError, r"average.*mean"),
    Case(
        "zero_division_unknown",
        {"zero_division": "ignore"},
        ValueError,
        r"zero_division.*warn.*0\.0.*1\.0.*nan.*ignore",
    ),
    Case(
        "zero_division_other_number",
        {"zero_division": 0.5},
        ValueError,
        r"zero_division.*warn.*0\.0.*1\.0.*nan",
    ),
    Case(
        "zero_division_nan_string",
        {"zero_division": "nan"},
        ValueError,
        r"zero_division.*warn",
    ),
    Case(
        "gain_unknown",
        {"gain": "log"},
        ValueError,
        r"gain.*linear.*exponential.*log",
        applies=_has("gain"),
    ),
    Case(
        "gain_wrong_case",
        {"gain": "Linear"},
        ValueError,
        r"gain.*linear.*exponential",
        applies=_has("gain"),
    ),
    Case(
        "denominator_unknown",
        {"denominator": "all"},
        ValueError,
        r"denominator.*relevant.*min.*retrieved.*all",
        applies=_has("denominator"),
    ),
    Case(
        "denominator_none",
        {"denominator": None},
        ValueError,
        r"denominator.*relevant.*min.*retrieved",
        applies=_has("denominator"),
    ),
    Case(
        "gain_not_a_keyword",
        {"gain": "linear"},
        TypeError,
        r"gain",
        applies=_lacks("gain"),
    ),
    Case(
        "denominator_not_a_keyword",
        {"denominator": "relevant"},
        TypeError,
        r"denominator",
        applies=_lacks("denominator"),
    ),
    # ---- log_base ---------------------------------------------------------
    Case(
        "log_base_one",
        {"log_base": 1},
        ValueError,
        r"log_base.*> ?1",
        applies=_has("log_base"),
    ),
    Case(
        "log_base_below_one",
        {"log_base": 0.5},
        ValueError,
        r"log_base.*> ?1",
        applies=_has("log_base"),
    ),
    Case(
        "log_base_zero",
        {"log_base": 0},
        ValueError,
        r"log_base.*> ?1",
        applies=_has("log_base"),
    ),
    Case(
        "log_base_negative",
        {"log_base": -2.0},
        ValueError,
        r"log_base.*> ?1",
        applies=_has("log_base"),
    ),
    Case(
        "log_base_nan",
        {"log_base": np.nan},
        ValueError,
        r"log_base",
        applies=_has("log_base"),
    ),
    Case(
        "log_base_string",
        {"log_base": "e"},
        TypeError,
        r"log_base.*real",
        applies=_has("log_base"),
    ),
    # ---- ignore_ties ------------------------------------------------------
    Case(
        "ignore_ties_string",
        {"ignore_ties": "yes"},
        TypeError,
        r"ignore_ties.*True or False",
    ),
    Case("ignore_ties_int", {"ignore_ties": 1}, TypeError, r"ignore_ties"),
    Case("ignore_ties_none", {"ignore_ties": None}, TypeError, r"ignore_ties"),
    # ---- relevance_threshold ----------------------------------------------
    Case(
        "relevance_threshold_string",
        {"relevance_threshold": "0.5"},
        TypeError,
        r"relevance_threshold.*real",
    ),
    Case(
        "relevance_threshold_none",
        {"relevance_threshold": None},
        TypeError,
        r"relevance_threshold.*real",
    ),
    Case(
        "relevance_threshold_list",
        {"relevance_threshold": [0]},
        TypeError,
        r"relevance_threshold.*real",
    ),
    Case(
        "relevance_threshold_nan",
        {"relevance_threshold": np.nan},
        ValueError,
        r"relevance_threshold.*(finite|NaN)",
    ),
    # ---- sample_weight ----------------------------------------------------
    Case(
        "sample_weight_negative",
        {"sample_weight": [1.0, -1.0, 1.0]},
        ValueError,
        r"sample_weight.*non-negative",
        good={"sample_weight": [1.0, 2.0, 1.0]},
    ),
    Case(
        "sample_weight_all_zero",
        {"sample_weight": [0, 0, 0]},
        ValueError,
        r"sample_weight.*positive",
        good={"sample_weight": [0, 0, 1]},
    ),
    Case(
        "sample_weight_nan",
        {"sample_weight": [1.0, np.nan, 1.0]},
        ValueError,
        r"sample_weight.*(finite|NaN)",
    ),
    Case(
        "sample_weight_inf",
        {"sample_weight": [1.0, np.inf, 1.0]},
        ValueError,
        r"sample_weight.*finite",
    ),
    Case(
        "sample_weight_too_short",
        {"sample_weight": [1.0, 1.0]},
        ValueError,
        r"sample_weight.*\b2\b.*\b3\b",
    ),
    Case(
        "sample_weight_too_long",
        {"sample_weight": [1.0, 1.0, 1.0, 1.0]},
        ValueError,
        r"sample_weight.*\b4\b.*\b3\b",
    ),
    Case(
        "sample_weight_2d_row",
        {"sample_weight": [[1.0, 1.0, 1.0]]},
        ValueError,
        r"sample_weight.*1-D",
    ),
    Case(
        "sample_weight_2d_column",
        {"sample_weight": np.ones((3, 1))},
        ValueError,
        r"sample_weight.*1-D",
    ),
    Case(
        "sample_weight_scalar",
        {"sample_weight": 1.0},
        ValueError,
        r"sample_weight.*1-D",
    ),
    Case(
        "sample_weight_strings",
        {"sample_weight": ["a", "b", "c"]},
        TypeError,
        r"sample_weight.*(numeric|number)",
    ),
    # ---- labels and 1-D class labels --------------------------------------
    Case(
        "labels_y_true_not_in_labels",
        {"y_true": np.array([0, 5, 1])},
        ValueError,
        r"not found in labels.*\b5\b",
        good=LABELS_BASE,
    ),
    Case(
        "labels_too_short",
        {"labels": [0, 1]},
        ValueError,
        r"labels.*\b2\b.*\b3\b",
        good=LABELS_BASE,
    ),
    Case(
        "labels_too_long",
        {"labels": [0, 1, 2, 3]},
        ValueError,
        r"labels.*\b4\b.*\b3\b",
        good=LABELS_BASE,
    ),
    Case(
        "labels_not_unique",
        {"labels": [0, 1, 1]},
        ValueError,
        r"labels.*unique",
        good=LABELS_BASE,
    ),
    Case(
        "labels_not_sorted",
        {"labels": [0, 2, 1]},
        ValueError,
        r"labels.*(sorted|order)",
        good=LABELS_BASE,
    ),
    Case(
        "labels_2d",
        {"labels": [[0, 1, 2]]},
        ValueError,
        r"labels.*1-D",
        good=LABELS_BASE,
    ),
    Case(
        "labels_with_2d_y_true",
        {"labels": [0, 1, 2, 3]},
        ValueError,
        r"labels.*1-D",
    ),
    Case(
        "labels_with_sparse_y_true",
        {"y_true": sp.csr_matrix(Y_TRUE), "labels": [0, 1, 2, 3]},
        ValueError,
        r"labels.*1-D",
    ),
    Case(
        "y_true_1d_lacks_a_class_without_labels",
        {"y_true": np.array([0, 2, 2])},
        ValueError,
        r"y_true.*\b2\b.*y_score.*\b3\b.*labels",
        good={"y_true": Y_LABELS, "y_score": Y_SCORE_3},
    ),
    Case(
        "y_true_1d_wrong_length",
        {"y_true": np.array([0, 1])},
        ValueError,
        r"y_true.*\b2\b.*y_score.*\b3\b",
        good=LABELS_BASE,
    ),
    Case(
        "y_true_1d_nan",
        {"y_true": np.array([0.0, np.nan, 1.0])},
        ValueError,
        r"y_true.*NaN",
        good=LABELS_BASE,
    ),
    Case(
        "y_true_1d_complex",
        {"y_true": Y_LABELS + 0j},
        TypeError,
        r"y_true.*complex",
        good=LABELS_BASE,
    ),
    Case(
        "y_true_1d_mixed_types",
        {"y_true": np.array([0, "a", 1], dtype=object)},
        (TypeError, ValueError),
        r"y_true",
        good={"y_true": Y_LABELS, "y_score": Y_SCORE_3},
    ),
    Case(
        "y_true_1d_with_none",
        {"y_true": [0, None, 1]},
        (TypeError, ValueError),
        r"y_true",
        good={"y_true": Y_LABELS, "y_score": Y_SCORE_3},
    ),
    Case(
        "labels_mixed_types",
        {"labels": np.array([0, 1, "a"], dtype=object)},
        (TypeError, ValueError),
        r"labels",
        good=LABELS_BASE,
    ),
    Case(
        "labels_nan",
        {"y_true": np.array([0.0, 2.0, 1.0]), "labels": [0.0, 1.0, np.nan]},
        ValueError,
        r"labels.*NaN",
        good=LABELS_BASE,
    ),
]


def _params():
    ids = [c.id for c in CASES]
    dup = {i for i in ids if ids.count(i) > 1}
    assert not dup, f"duplicate case ids: {dup}"
    out = []
    for case in CASES:
        for metric in METRICS:
            if case.applies(metric):
                out.append(
                    pytest.param(
                        case, metric, id=f"{case.id}-{metric.name}", marks=case.marks
                    )
                )
    return out


def _call(metric, kwargs):
    kwargs = dict(kwargs)
    y_true = kwargs.pop("y_true")
    y_score = kwargs.pop("y_score")
    return metric.func(y_true, y_score, **kwargs)


def _assert_valid_result(value):
    assert isinstance(value, float)
    assert math.isfinite(value)
    assert value >= 0.0


@pytest.mark.parametrize("case, metric", _params())
def test_bad_input_raises_clear_error(case, metric):
    if case.id.endswith("3d_sparse") and _sparse_3d() is None:
        pytest.skip("scipy < 1.15 has no 3-D sparse arrays")
    good = {**BASE, **case.good}
    if not metric.has_k:
        good.pop("k")
    # The valid counterpart succeeds: the error below is due to the bad value.
    _assert_valid_result(_call(metric, good))
    bad = {**good, **case.bad}
    with pytest.raises(case.exc, match=case.match):
        _call(metric, bad)


def test_table_covers_every_metric():
    covered = {p.values[1].name for p in _params()}
    assert covered == {m.name for m in METRICS}
    # Each metric meets cases about every parameter it has.
    for metric in METRICS:
        ids = {p.values[0].id for p in _params() if p.values[1] is metric}
        for prefix in ["y_true", "y_score", "sample_weight", "labels", "average"]:
            assert any(i.startswith(prefix) for i in ids), (metric, prefix)
        for prefix in ["zero_division", "ignore_ties", "relevance_threshold"]:
            assert any(i.startswith(prefix) for i in ids), (metric, prefix)
        for param in (*metric.params, *(["k"] if metric.has_k else [])):
            assert any(re.match(rf"{param}_(?!not_a_keyword)", i) for i in ids), (
                metric,
                param,
            )


# --------------------------------------------------------------------------
# What is not an error
# --------------------------------------------------------------------------


@pytest.mark.parametrize("metric", METRICS, ids=repr)
def test_arguments_after_y_score_are_keyword_only(metric):
    extra = 2 if metric.has_k else None
    with pytest.raises(TypeError, match="positional"):
        metric.func(Y_TRUE, Y_SCORE, extra)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("metric", GRADED_METRICS, ids=repr)
def test_negative_grades_have_no_gain(metric, sparse):
    # As in trec_eval (its qrels mark unjudged pool documents -1): a negative
    # grade is the same as 0 for DCG and nDCG, so from_trec's output needs
    # no clipping. Reference: the same grades clipped at 0.
    negative = np.where(Y_TRUE > 0, Y_TRUE, -3).astype(float)
    negative[0, 0] = -0.5
    clipped = np.maximum(negative, 0)
    if sparse:
        negative = sp.csr_matrix(negative)
    for options in ({}, {"gain": "exponential"}, {"relevance_threshold": -5}):
        kwargs = {"k": 2, "average": None, **options}
        np.testing.assert_allclose(
            metric.func(negative, Y_SCORE, **kwargs),
            metric.func(clipped, Y_SCORE, **kwargs),
            err_msg=str(options),
        )


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("metric", BINARY_METRICS, ids=repr)
def test_negative_relevance_means_not_relevant_for_binary_metrics(metric, sparse):
    # Binary metrics count y_true > relevance_threshold (0) as relevant, so
    # negative grades are allowed and are the same as 0.
    negative = np.where(Y_TRUE > 0, Y_TRUE, -1)
    if sparse:
        negative = sp.csr_matrix(negative)
    kwargs = {"k": 2} if metric.has_k else {}
    expected = metric.func(Y_TRUE, Y_SCORE, average=None, **kwargs)
    got = metric.func(negative, Y_SCORE, average=None, **kwargs)
    np.testing.assert_allclose(got, expected)

    # With a negative threshold, a negative grade above it is relevant.
    shifted = Y_TRUE - 2  # relevant (grade >= 1) becomes >= -1
    got = metric.func(
        shifted, Y_SCORE, average=None, relevance_threshold=-1.5, **kwargs
    )
    np.testing.assert_allclose(got, expected)


@pytest.mark.parametrize(
    "frame",
    [
        pytest.param(
            pd.DataFrame({"a": [0.9, 0.2, 0.5], "b": [0.8, 0.1, 0.6]}),
            id="float",
        ),
        pytest.param(
            pd.DataFrame({"a": [0.9, 0.2, 0.5], "b": [1, 0, 2]}),
            id="float+int",
        ),
        pytest.param(
            pd.DataFrame({"a": [0.9, 0.2, 0.5], "b": [True, False, True]}),
            id="float+bool",
        ),
    ],
)
def test_numeric_dataframe_y_score_is_accepted(frame):
    y_true = np.array([[1, 0], [0, 1], [1, 1]])
    expected = precision_at_k_score(y_true, frame.to_numpy(dtype=float), k=1)
    assert precision_at_k_score(y_true, frame, k=1) == pytest.approx(expected)
