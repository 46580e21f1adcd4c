"""ranking_report and precision_recall_at_k_curve.

Expected values come from outside the one-pass code under test:

* the brute-force permutation oracle of ``test_bruteforce`` (every ordering of
  tied items, straight from the definitions) for curves and baselines;
* closed forms of the random-ranking expectation (hypergeometric draws of
  ``min(k, M)`` of the ``M`` retrieved items);
* the public metric functions called one at a time, for larger inputs
  (themselves checked against the oracle, sklearn and trec_eval).
"""

from __future__ import annotations

import inspect
import itertools
import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import FUNCS, fill_undefined, oracle, random_case
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankk
from sklearn_rankk import (
    PrecisionRecallAtK,
    RankingReport,
    precision_recall_at_k_curve,
    ranking_report,
)
from sklearn_rankk._core.registry import METRICS

RTOL = ATOL = 1e-12


def _mean(values, weights):
    keep = ~np.isnan(values)
    if not keep.any():
        return math.nan
    w = np.ones_like(values) if weights is None else np.asarray(weights, float)
    return math.fsum(values[keep] * w[keep]) / math.fsum(w[keep])


def _call(metric, y_true, y_score, k, **kwargs):
    if METRICS[metric].needs_k:
        kwargs["k"] = k
    return FUNCS[metric](y_true, y_score, **kwargs)


# ----------------------------------------------------------------------------
# Curves
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(40))
def test_curve_matches_bruteforce_oracle(seed):
    y_true, y_score, weights = random_case(seed)
    n_items = y_score.shape[1]
    k_max = n_items + 2  # past the row: P@k keeps dividing by k
    for ignore_ties, zero_division in itertools.product(
        (False, True), (0.0, 1.0, np.nan)
    ):
        curve = precision_recall_at_k_curve(
            y_true,
            y_score,
            k_max=k_max,
            sample_weight=weights,
            ignore_ties=ignore_ties,
            zero_division=zero_division,
        )
        np.testing.assert_array_equal(curve.k, np.arange(1, k_max + 1))
        for name, got in zip(("precision", "recall", "f1"), curve[:3]):
            expected = [
                _mean(
                    fill_undefined(
                        oracle(
                            name,
                            y_true,
                            y_score,
                            ignore_ties=ignore_ties,
                            threshold=0,
                            k=k,
                            params={},
                        ),
                        zero_division,
                        y_true,
                    ),
                    weights,
                )
                for k in range(1, k_max + 1)
            ]
            np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)


def _tied_data(seed, n=60, m=40, sparse=False):
    rng = np.random.default_rng(seed)
    y_score = np.round(rng.normal(size=(n, m)), 1).astype(np.float32)
    y_score[rng.random((n, m)) < 0.1] = -np.inf
    y_true = (rng.random((n, m)) < 0.1).astype(np.int64) * rng.integers(1, 4, (n, m))
    y_true[:3] = 0
    if sparse:
        y_true = sp.csr_matrix(y_true)
    return y_true, y_score, rng.uniform(0.2, 2.0, n)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("ignore_ties", [False, True])
def test_curve_matches_metric_functions(sparse, ignore_ties):
    y_true, y_score, weights = _tied_data(1, sparse=sparse)
    options = dict(sample_weight=weights, ignore_ties=ignore_ties, zero_division=1.0)
    curve = precision_recall_at_k_curve(y_true, y_score, k_max=25, **options)
    for name, values in zip(("precision", "recall", "f1"), curve[:3]):
        expected = [_call(name, y_true, y_score, k, **options) for k in curve.k]
        np.testing.assert_allclose(values, expected, rtol=RTOL, atol=ATOL)


def test_curve_per_row_and_defaults():
    y_true, y_score, _ = _tied_data(2)
    with pytest.warns(UndefinedMetricWarning) as record:
        rows = precision_recall_at_k_curve(y_true, y_score, average=None)
    # One warning per call, naming both curves with their cut-offs (issue 28).
    assert [str(w.message)[:58] for w in record] == [
        "recall@1 to recall@40, f1@1 to f1@40 are ill-defined and s"
    ]
    assert isinstance(rows, PrecisionRecallAtK)
    assert rows.precision.shape == (60, 40)  # k_max=None: every rank
    for k in (1, 7, 40):
        np.testing.assert_allclose(
            rows.recall[:, k - 1],
            _call("recall", y_true, y_score, k, average=None, zero_division=0.0),
            rtol=RTOL,
            atol=ATOL,
        )
    empty = (y_true > 0).sum(axis=1) == 0
    assert empty[:3].all()
    assert np.all(rows.recall[empty] == 0.0)  # rows without relevant items
    nan_rows = precision_recall_at_k_curve(
        y_true, y_score, zero_division=np.nan, average=None
    )
    assert (
        np.isnan(nan_rows.f1[empty]).all() and not np.isnan(nan_rows.f1[~empty]).any()
    )


def test_curve_identities():
    """R@n_items = 1 on rows whose relevant items are all retrieved; P@k*k
    = R@k*|R|; recall never decreases."""
    y_true, y_score, _ = _tied_data(3)
    y_score[np.isinf(y_score)] = 0.0
    p, r, f1, k = precision_recall_at_k_curve(
        y_true, y_score, average=None, zero_division=np.nan
    )
    n_rel = (y_true > 0).sum(axis=1)
    defined = n_rel > 0
    np.testing.assert_allclose(r[defined, -1], 1.0)
    np.testing.assert_allclose(
        p[defined] * k, r[defined] * n_rel[defined, None], rtol=1e-12
    )
    assert np.all(np.diff(r[defined], axis=1) >= -1e-15)
    np.testing.assert_allclose(
        f1[defined], 2 * p[defined] * r[defined] / (p[defined] + r[defined] + 1e-300)
    )


def test_curve_multiclass_labels():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 5, 30)
    scores = rng.normal(size=(30, 5))
    curve = precision_recall_at_k_curve(y, scores)
    hits = [
        np.mean([y[i] in np.argsort(-scores[i])[:k] for i in range(30)])
        for k in range(1, 6)
    ]
    np.testing.assert_allclose(curve.recall, hits)
    np.testing.assert_allclose(curve.precision, np.array(hits) / np.arange(1, 6))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"k_max": 0}, ValueError, "k_max must be an integer >= 1"),
        ({"k_max": 2.5}, TypeError, "k_max must be an integer >= 1"),
        ({"average": "macro"}, ValueError, "average must be one of"),
        ({"zero_division": "skip"}, ValueError, "zero_division must be one of"),
        ({"ignore_ties": "yes"}, TypeError, "ignore_ties must be True or False"),
    ],
)
def test_curve_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        precision_recall_at_k_curve([[1, 0]], [[0.5, 0.1]], **kwargs)


# ----------------------------------------------------------------------------
# Random-ranking expectation: closed forms
# ----------------------------------------------------------------------------


def _expected_random_row(metric, grades, scores, k):
    """Exact expectation under a uniformly random order of the retrieved
    items, from hypergeometric closed forms (binary relevance is grade > 0)."""
    grades = np.asarray(grades, float)
    retrieved = np.isfinite(scores)
    M = int(retrieved.sum())
    rel = grades > 0
    R, r = int(rel.sum()), int((rel & retrieved).sum())
    depth = min(k, M) if k is not None else M
    if metric == "precision":
        return r * depth / M / k if M else 0.0
    if metric in ("recall", "f1"):
        if R == 0:
            return None
        hits = r * depth / M if M else 0.0  # expected relevant in the top k
        return hits / R if metric == "recall" else 2 * hits / (k + R)
    if metric == "hit":
        return 1 - math.comb(M - r, depth) / math.comb(M, depth) if M else 0.0
    if metric == "mrr":  # P(first relevant at rank p) = C(M-p, r-1) / C(M, r)
        if r == 0:
            return 0.0
        return sum(
            math.comb(M - p, r - 1) / math.comb(M, r) / p for p in range(1, depth + 1)
        )
    if metric in ("dcg", "ndcg"):
        gain = grades[retrieved & rel].sum() / M if M else 0.0
        dcg = gain * sum(1 / math.log2(p + 2) for p in range(depth))
        if metric == "dcg":
            return dcg
        ideal = np.sort(grades[rel])[::-1][: (k if k is not None else None)]
        idcg = sum(g / math.log2(p + 2) for p, g in enumerate(ideal))
        return dcg / idcg if idcg > 0 else None
    raise AssertionError(metric)


CLOSED_FORM = ("precision", "recall", "f1", "hit", "mrr", "dcg", "ndcg")


@pytest.mark.parametrize("seed", range(5))
def test_random_baseline_matches_closed_forms(seed):
    rng = np.random.default_rng(seed)
    n, m = 25, 12
    y_score = rng.normal(size=(n, m))
    y_score[rng.random((n, m)) < 0.25] = -np.inf  # candidates differ per row
    y_score[0] = -np.inf  # nothing retrieved
    y_true = (rng.random((n, m)) < 0.3) * rng.integers(1, 4, (n, m))
    y_true[1] = 0
    weights = rng.uniform(0.5, 2, n)
    ks = (1, 3, 12, 15)
    report = ranking_report(
        y_true,
        y_score,
        k=ks,
        metrics=CLOSED_FORM,
        sample_weight=weights,
        zero_division=np.nan,
        random_baseline=True,
    )
    for metric, k in itertools.product(CLOSED_FORM, ks):
        per_row = [
            _expected_random_row(metric, t, s, k) for t, s in zip(y_true, y_score)
        ]
        expected = _mean(fill_undefined(per_row, np.nan, y_true), weights)
        assert report.random[f"{metric}@{k}"] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_random_baseline_matches_oracle_on_constant_scores(seed):
    """Every metric, including AP and R-precision (no closed form here): the
    baseline is the permutation mean over the retrieved items."""
    y_true, y_score, weights = random_case(seed)
    constant = np.where(np.isneginf(y_score), -np.inf, 0.0)
    report = ranking_report(
        y_true,
        y_score,
        k=[1, 2, 5],
        sample_weight=weights,
        zero_division=np.nan,
        random_baseline=True,
        ignore_ties=True,  # the baseline is tie-aware whatever the model's mode
    )
    for name, value in report.random.items():
        metric, _, k = name.partition("@")
        per_row = oracle(
            metric,
            y_true,
            constant,
            ignore_ties=False,
            threshold=0,
            k=int(k) if k else None,
            params={"denominator": "relevant", "gain": "linear"},
        )
        expected = _mean(fill_undefined(per_row, np.nan, y_true), weights)
        np.testing.assert_allclose(value, expected, rtol=RTOL, atol=ATOL)


def test_random_baseline_is_the_metric_of_a_constant_score():
    y_true, y_score, _ = _tied_data(5, sparse=True)
    report = ranking_report(
        y_true, y_score, k=[2, 9], random_baseline=True, zero_division=1.0
    )
    constant = np.where(np.isneginf(y_score), -np.inf, 7.0)
    for name, value in report.random.items():
        metric, _, k = name.partition("@")
        k = int(k) if k else None
        expected = _call(metric, y_true, constant, k, zero_division=1.0)
        assert value == pytest.approx(expected, rel=1e-12)
        assert report.lift[name] == pytest.approx(report[name] / value)


def test_random_baseline_sparse_scores_keep_exclusions():
    rng = np.random.default_rng(6)
    dense = np.where(rng.random((20, 15)) < 0.3, rng.normal(size=(20, 15)), 0.0)
    dense[rng.random((20, 15)) < 0.2] = -np.inf
    y_true = (rng.random((20, 15)) < 0.3).astype(int)
    y_true[:, 0] = 1
    a = ranking_report(y_true, sp.csr_matrix(dense), k=[3], random_baseline=True)
    b = ranking_report(y_true, dense, k=[3], random_baseline=True)
    assert a.random == pytest.approx(b.random, rel=1e-12)


# ----------------------------------------------------------------------------
# Report
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"ignore_ties": True},
        {"zero_division": np.nan, "denominator": "min"},
        {"zero_division": 1.0, "gain": "exponential", "log_base": 10},
        {"relevance_threshold": 1, "denominator": "retrieved", "beta": 0.5},
    ],
)
@pytest.mark.parametrize("sparse", [False, True])
def test_report_matches_metric_functions(options, sparse):
    y_true, y_score, weights = _tied_data(7, sparse=sparse)
    ks = (1, 4, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        report = ranking_report(
            y_true,
            y_score,
            k=ks,
            metrics=list(FUNCS),
            sample_weight=weights,
            per_row=True,
            **options,
        )
    assert isinstance(report, RankingReport)
    assert report.metrics == tuple(FUNCS) and report.k == ks
    metric_params = {"denominator", "gain", "log_base", "beta"}
    common = {key: v for key, v in options.items() if key not in metric_params}
    for metric in FUNCS:
        accepted = inspect.signature(FUNCS[metric]).parameters
        own = {
            key: v
            for key, v in options.items()
            if key in metric_params and key in accepted
        }
        for k in ks if METRICS[metric].needs_k else (None,):
            name = metric if k is None else f"{metric}@{k}"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                mean = _call(
                    metric, y_true, y_score, k, sample_weight=weights, **common, **own
                )
                rows = _call(metric, y_true, y_score, k, average=None, **common, **own)
            np.testing.assert_allclose(report[name], mean, rtol=RTOL, atol=ATOL)
            np.testing.assert_allclose(report.per_row[name], rows, rtol=RTOL)
    assert report.random is None and report.lift is None


def test_report_single_k_and_subset_order():
    y_true, y_score, _ = _tied_data(8)
    report = ranking_report(
        y_true, y_score, k=5, metrics=["ndcg", "precision"], zero_division=0.0
    )
    assert list(report.scores) == ["ndcg@5", "precision@5"]
    assert report.metrics == ("ndcg", "precision")
    report = ranking_report(
        y_true, y_score, k=[10, 2, 10], metrics="map", zero_division=0.0
    )
    assert list(report.scores) == ["map@2", "map@10"]


def test_report_one_warning_per_undefined_metric_not_from_the_baseline():
    y_true, y_score, _ = _tied_data(9)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ranking_report(
            y_true,
            y_score,
            k=[3],
            metrics=["precision", "recall"],
            random_baseline=True,
        )
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and "recall@3 is ill-defined" in messages[0]


def test_report_conversions_and_text():
    pd = pytest.importorskip("pandas")
    y_true, y_score, _ = _tied_data(10)
    report = ranking_report(
        y_true,
        y_score,
        k=[1, 5],
        metrics=["hit", "r_precision"],
        per_row=True,
        random_baseline=True,
        zero_division=0.0,
    )
    as_dict = report.to_dict()
    assert set(as_dict) == {"hit@1", "hit@5", "r_precision"}
    for name, entry in as_dict.items():
        assert entry["mean"] == report[name]
        assert entry["lift"] == pytest.approx(entry["mean"] / entry["random"])
    frame = report.to_frame()
    assert list(frame.columns) == ["metric", "k", "mean", "random", "lift"]
    assert frame.loc["hit@5", "k"] == 5 and pd.isna(frame.loc["r_precision", "k"])
    assert frame.loc["hit@5", "mean"] == report["hit@5"]
    rows = report.to_frame(per_row=True)
    assert rows.shape == (60, 3)
    np.testing.assert_array_equal(rows["hit@1"], report.per_row["hit@1"])
    text = str(report)
    assert text == repr(report)
    assert "60 samples x 40 items, ties averaged" in text
    for title in ("mean", "random ranking (expected)", "lift (mean / random)"):
        assert f"\n{title} " in text
    assert f"{report['hit@5']:.4f}" in text and f"{report.random['hit@1']:.4f}" in text
    assert f"{report['hit@5']:.2f}" in report.to_string(digits=2)
    no_rows = ranking_report(y_true, y_score, k=[1], metrics=["hit"])
    with pytest.raises(ValueError, match="per_row=True"):
        no_rows.to_frame(per_row=True)


def test_report_multiclass_and_dataframe():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(11)
    y = rng.integers(0, 4, 50)
    scores = pd.DataFrame(rng.normal(size=(50, 4)))
    report = ranking_report(y, scores, k=[1, 2], metrics=["hit"], random_baseline=True)
    expected = np.mean(np.argmax(scores.to_numpy(), axis=1) == y)
    assert report["hit@1"] == pytest.approx(expected)
    assert report.random == pytest.approx({"hit@1": 0.25, "hit@2": 0.5})


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        # A name with its own cut-off ("ndcg@10", "nDCG@10") is a row of its
        # own since issue 25; a misspelt one is unknown.
        ({"metrics": ["ndgc@10"]}, ValueError, "Unknown metric 'ndgc@10'"),
        ({"metrics": []}, ValueError, "metrics is empty"),
        ({"metrics": ["map", "map"]}, ValueError, "Duplicate names"),
        ({"metrics": 3}, TypeError, "metrics must be a list"),
        ({"k": []}, ValueError, "k is empty"),
        ({"k": [5, 0]}, ValueError, "k must be an integer >= 1"),
        ({"k": None}, ValueError, "k=None"),
        ({"k": "10"}, TypeError, "k must be an integer"),
        ({"metrics": ["precision"], "gain": "exponential"}, TypeError, "gain"),
        ({"denominator": "all"}, ValueError, "denominator must be one of"),
        ({"per_row": 1}, TypeError, "per_row must be True or False"),
        ({"random_baseline": "yes"}, TypeError, "random_baseline must be"),
    ],
)
def test_report_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        ranking_report([[1, 0]], [[0.5, 0.1]], **kwargs)


def test_warnings_point_at_the_callers_line():
    y_true, y_score = [[0, 0], [1, 0]], [[0.2, 0.1], [0.3, 0.4]]
    with pytest.warns(UndefinedMetricWarning) as record:
        ranking_report(y_true, y_score, k=1, metrics=["recall"])
        precision_recall_at_k_curve(y_true, y_score)
    assert {w.filename for w in record} == {__file__}


def test_report_warns_once_for_all_undefined_metrics():
    y_true = [[0, 0, 0], [1, 0, 1], [0, 0, 0]]
    y_score = [[0.1, 0.2, 0.3], [0.3, 0.2, 0.1], [0.5, 0.5, 0.5]]
    with pytest.warns(UndefinedMetricWarning) as record:
        report = ranking_report(y_true, y_score, k=[1, 2], per_row=True)
    assert len(record) == 1
    message = str(record[0].message)
    undefined = [
        f"{m.name}@{k}" if m.needs_k else m.name
        for m in METRICS.values()
        if m.empty_rows == "zero_division" and m.in_default_report
        for k in ((1, 2) if m.needs_k else (None,))
    ]
    assert message.startswith(", ".join(undefined[:-1]) + ", ")
    assert "r_precision are ill-defined and set to 0.0 in 2 of 3 samples" in message
    # the values are those of zero_division=0.0
    silent = ranking_report(y_true, y_score, k=[1, 2], zero_division=0.0)
    assert report.scores == silent.scores
    assert report.per_row["recall@2"].tolist() == [0.0, 0.5, 0.0]


def test_fbeta_in_a_report_only_when_asked_with_its_beta():
    y_true, y_score = _tied_data(3)[:2]
    default = ranking_report(y_true, y_score, k=[2, 5], zero_division=0.0)
    assert "fbeta" not in default.metrics and "fbeta@2" not in default.scores
    report = ranking_report(
        y_true,
        y_score,
        k=[2, 5],
        metrics=["fbeta", "f1"],
        beta=2.0,
        zero_division=0.0,
    )
    for k in (2, 5):
        assert report[f"fbeta@{k}"] == pytest.approx(
            FUNCS["fbeta"](y_true, y_score, k=k, beta=2.0, zero_division=0.0),
            rel=1e-12,
        )
        # beta applies to F-beta only; F1 keeps its own formula.
        assert report[f"f1@{k}"] == pytest.approx(
            FUNCS["f1"](y_true, y_score, k=k, zero_division=0.0), rel=1e-12
        )
    with pytest.raises(TypeError, match="beta"):
        ranking_report(y_true, y_score, k=2, metrics=["f1"], beta=2.0)
    with pytest.raises(ValueError, match="beta must be >= 0"):
        FUNCS["fbeta"](y_true, y_score, k=2, beta=-1.0)
    assert FUNCS["fbeta"](y_true, y_score, k=2, beta=0.0, zero_division=0.0) == (
        pytest.approx(FUNCS["precision"](y_true, y_score, k=2, zero_division=0.0))
    )


def test_parameters_of_the_trec_eval_measures_reach_their_columns():
    """p, multiple, recall_level(s) and utility's weights: each report column
    equals its function with the same parameter (rows with ties included)."""
    rng = np.random.default_rng(11)
    y_true = rng.integers(0, 3, size=(12, 9)) * (rng.random((12, 9)) < 0.5)
    y_score = rng.integers(0, 4, size=(12, 9)).astype(float)
    params = {
        "rbp": ("rank_biased_precision_score", {"p": 0.6}),
        "r_precision": ("r_precision_score", {"multiple": 1.6}),
        "interpolated_precision": (
            "interpolated_precision_score",
            {"recall_level": 0.4},
        ),
        "eleven_point_precision": (
            "eleven_point_precision_score",
            {"recall_levels": (0.0, 0.5, 1.0)},
        ),
        "utility": ("utility_score", {"fp_weight": -0.5, "fn_weight": -1.0}),
    }
    for name, (function, kwargs) in params.items():
        report = sklearn_rankk.ranking_report(
            y_true, y_score, k=[3], metrics=[name], zero_division=0.0, **kwargs
        )
        call = getattr(sklearn_rankk, function)
        k = {"k": 3} if name == "rbp" else {}
        want = call(y_true, y_score, zero_division=0.0, **k, **kwargs)
        key = f"{name}@3" if name == "rbp" else name
        assert report[key] == pytest.approx(want, rel=1e-12), name
