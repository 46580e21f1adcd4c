"""The doors of the intent-aware and propensity-scored measures (issue 27):
scorer names, report rows, streaming (RankingAccumulator, Dask), and the
statistics layers, which refuse a measure that is not a mean of rows.

Every number comes from the brute-force oracles of ``test_diversity`` (every
ordering of the tied items, and scikit-learn's order with
``ignore_ties=True``), a hand-worked example, or, for the streaming and
propensity checks, the one-shot function on the concatenated rows (itself
checked against pyxclib's formulas in ``test_propensity``).
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from test_diversity import alpha_oracle, oracle

from sklearn_rankk import (
    RankingAccumulator,
    alpha_ndcg_at_k,
    compare_systems,
    confidence_interval,
    err_ia_at_k,
    get_scorer,
    get_scorer_names,
    intent_aware_precision_at_k,
    inverse_propensity,
    make_ranking_scorer,
    nerr_ia_at_k,
    paired_test,
    psndcg_at_k_score,
    psprecision_at_k_score,
    ranking_report,
    subtopic_recall_at_k,
)

INTENT = {
    "intent_aware_precision": intent_aware_precision_at_k,
    "subtopic_recall": subtopic_recall_at_k,
    "alpha_ndcg": alpha_ndcg_at_k,
    "err_ia": err_ia_at_k,
    "nerr_ia": nerr_ia_at_k,
}


def brute(name, y_true, y_score, k, ignore_ties, alpha=0.5, weights=None):
    """Per row, NaN where no intent has a relevant item."""
    if name in ("intent_aware_precision", "subtopic_recall"):
        pia, srec = oracle(y_true, y_score, k, ignore_ties, weights)
        return pia if name == "intent_aware_precision" else srec
    ndcg, err, nerr = alpha_oracle(y_true, y_score, k, ignore_ties, alpha, weights)
    return {"alpha_ndcg": ndcg, "err_ia": err, "nerr_ia": nerr}[name]


def case(seed, n=6, m=6, n_int=3):
    rng = np.random.default_rng(seed)
    y_score = rng.integers(0, 3, size=(n, m)).astype(float)  # many ties
    y_score[rng.random((n, m)) < 0.15] = -np.inf
    y_true = (rng.random((n, m, n_int)) < 0.35).astype(int)
    y_true[0] = 0  # a row with no intent
    return y_true, y_score


def fill(values, zero_division):
    out = values.copy()
    out[np.isnan(out)] = zero_division
    return out


def mean(values, sample_weight=None):
    keep = ~np.isnan(values)
    w = np.ones_like(values) if sample_weight is None else np.asarray(sample_weight)
    return float(np.sum(values[keep] * w[keep]) / np.sum(w[keep]))


# -- scorer names ---------------------------------------------------------------


def test_scorer_names_are_listed_and_accepted():
    names = get_scorer_names()
    for base in INTENT:
        assert f"{base}@10" in names
        assert base not in names
    with pytest.raises(ValueError, match="alpha_ndcg needs a cut-off"):
        get_scorer("alpha_ndcg")
    with pytest.raises(ValueError, match="cut-off after '@'"):
        get_scorer("err_ia@0")
    with pytest.raises(ValueError, match=r"intent-aware measures \(alpha_ndcg@5\)"):
        get_scorer(["alpha_ndcg@5", "ndcg@5"])
    with pytest.raises(TypeError, match="apply to none"):
        get_scorer("subtopic_recall@5", alpha=0.3)
    with pytest.raises(TypeError, match="apply to none"):
        get_scorer("ndcg@5", alpha=0.3)
    with pytest.raises(ValueError, match="alpha"):
        get_scorer("alpha_ndcg@5", alpha=1.5)
    with pytest.raises(ValueError, match="intent_weights of a scorer must be 1-D"):
        get_scorer("err_ia@5", intent_weights=np.ones((4, 3)))


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_scorer_matches_the_oracle(seed, ignore_ties):
    y_true, y_score = case(seed)
    names = [f"{base}@{k}" for base in INTENT for k in (1, 3)]
    weights = np.array([0.5, 0.2, 0.3])
    for zero_division in (0.0, 1.0, np.nan):
        scorer = get_scorer(
            names,
            ignore_ties=ignore_ties,
            zero_division=zero_division,
            alpha=0.3,
            intent_weights=weights,
        )
        got = scorer._score(y_true, y_score)
        for name in names:
            base, k = name.split("@")
            rows = brute(base, y_true, y_score, int(k), ignore_ties, 0.3, weights)
            want = mean(fill(rows, zero_division))
            assert got[name] == pytest.approx(want, abs=1e-12), name
    # one name: one number, with the one warning of the undefined row
    with pytest.warns(UndefinedMetricWarning, match="1 of 6 samples with no intent"):
        one = get_scorer("alpha_ndcg@3", ignore_ties=ignore_ties)._score(
            y_true, y_score
        )
    want = mean(fill(brute("alpha_ndcg", y_true, y_score, 3, ignore_ties), 0.0))
    assert one == pytest.approx(want, abs=1e-12)


def test_scorer_hand_worked():
    # Items 0 and 1 serve intent 0, item 2 intent 1; ranked 0, 1, 2. The
    # ideal ranks 0, 2, 1 (the second item of intent 0 gains 1 - alpha).
    y_true = np.zeros((1, 3, 2))
    y_true[0, [0, 1], 0] = 1
    y_true[0, 2, 1] = 1
    y_score = np.array([[3.0, 2.0, 1.0]])
    dcg = 1 + 0.5 / math.log2(3) + 1 / math.log2(4)
    ideal = 1 + 1 / math.log2(3) + 0.5 / math.log2(4)
    scorer = get_scorer(["alpha_ndcg@3", "subtopic_recall@1", "err_ia@3"])
    got = scorer._score(y_true, y_score)
    assert got["alpha_ndcg@3"] == pytest.approx(dcg / ideal, abs=1e-15)
    assert got["subtopic_recall@1"] == 0.5  # intent 0 of 2
    # intent 0: 1 + 0.5 / 2, intent 1: 1 / 3, over ERR*@3 = 1 + 0.5/2 + 0.25/3
    assert got["err_ia@3"] == pytest.approx((1.25 + 1 / 3) / 2 / (4 / 3), abs=1e-15)


def test_make_ranking_scorer_of_an_intent_function():
    y_true, y_score = case(7)
    scorer = make_ranking_scorer(
        nerr_ia_at_k, k=4, alpha=0.2, intent_weights=[1, 2, 1], zero_division=0.0
    )
    assert repr(scorer) == (
        "make_ranking_scorer(nerr_ia_at_k, k=4, alpha=0.2, "
        "intent_weights=[1, 2, 1], zero_division=0.0)"
    )
    rows = brute("nerr_ia", y_true, y_score, 4, False, 0.2, np.array([1, 2, 1]))
    assert scorer._score(y_true, y_score) == pytest.approx(
        mean(fill(rows, 0.0)), abs=1e-12
    )
    with pytest.raises(TypeError, match=r"\['alpha'\] do not apply"):
        make_ranking_scorer(subtopic_recall_at_k, k=4, alpha=0.2)
    with pytest.raises(ValueError, match="k must be"):
        make_ranking_scorer(alpha_ndcg_at_k, k=0)


class IntentRanker(BaseEstimator):
    """Fits on 3-D relevance: scores each item by a ridge-like linear map of
    X to the items' relevance to any intent (a stand-in for a real model)."""

    def __init__(self, shrink=1.0):
        self.shrink = shrink

    def fit(self, X, y):
        assert y.ndim == 3
        target = y.max(axis=2).astype(float)
        gram = X.T @ X + self.shrink * np.eye(X.shape[1])
        self.coef_ = np.linalg.solve(gram, X.T @ target)
        return self

    def decision_function(self, X):
        return X @ self.coef_


def test_cross_validate_and_grid_search_with_a_3d_y():
    rng = np.random.default_rng(3)
    n, m, n_int = 60, 8, 3
    X = rng.normal(size=(n, 5))
    hidden = X @ rng.normal(size=(5, m * n_int))
    y = (hidden.reshape(n, m, n_int) + rng.normal(size=(n, m, n_int)) > 1.0).astype(int)
    scoring = {
        "alpha": get_scorer("alpha_ndcg@5", zero_division=0.0),
        "pia": get_scorer("intent_aware_precision@3", zero_division=0.0),
    }
    cv = KFold(3)
    result = cross_validate(IntentRanker(), X, y, cv=cv, scoring=scoring)
    for i, (train, test) in enumerate(cv.split(X)):
        model = IntentRanker().fit(X[train], y[train])
        y_score = model.decision_function(X[test])
        for key, base, k in (
            ("alpha", "alpha_ndcg", 5),
            ("pia", "intent_aware_precision", 3),
        ):
            rows = brute(base, y[test], y_score, k, False)
            assert result[f"test_{key}"][i] == pytest.approx(
                mean(fill(rows, 0.0)), abs=1e-12
            )
    search = GridSearchCV(
        IntentRanker(), {"shrink": [0.1, 100.0]}, cv=cv, scoring=scoring, refit="alpha"
    ).fit(X, y)
    assert search.best_params_["shrink"] in (0.1, 100.0)
    assert np.isfinite(search.cv_results_["mean_test_pia"]).all()
    # a 2-D y cannot feed an intent-aware scorer
    model = IntentRanker().fit(X, y)
    with pytest.raises(ValueError, match="y_true must be 3-D"):
        scoring["alpha"](model, X, y.max(axis=2))


# -- report ---------------------------------------------------------------------


@pytest.mark.parametrize("ignore_ties", [False, True])
def test_report_rows_match_the_oracle(ignore_ties):
    y_true, y_score = case(11, n=5)
    weights = np.random.default_rng(0).random((5, 3)) + 0.1  # per sample
    report = ranking_report(
        y_true,
        y_score,
        k=[2, 4],
        metrics=list(INTENT),
        ignore_ties=ignore_ties,
        zero_division=np.nan,
        alpha=0.4,
        intent_weights=weights,
        per_row=True,
        random_baseline=True,
    )
    for base in INTENT:
        for k in (2, 4):
            rows = brute(base, y_true, y_score, k, ignore_ties, 0.4, weights)
            name = f"{base}@{k}"
            assert report[name] == pytest.approx(mean(rows), abs=1e-12)
            np.testing.assert_allclose(report.per_row[name], rows, atol=1e-12)
            constant = np.where(np.isinf(y_score), -np.inf, 0.0)
            random = brute(base, y_true, constant, k, False, 0.4, weights)
            assert report.random[name] == pytest.approx(mean(random), abs=1e-12)
    assert report.n_averaged == {name: 4 for name in report.scores}
    assert "alpha_ndcg" in str(report)


def test_report_refuses_2d_measures_on_3d_relevance():
    y_true, y_score = case(1)
    with pytest.raises(ValueError, match=r"measures of a 2-D y_true \(ndcg\)"):
        ranking_report(y_true, y_score, metrics=["alpha_ndcg", "ndcg"])
    with pytest.raises(ValueError, match="y_true is 3-D.*ndcg, map take a 2-D"):
        ranking_report(y_true, y_score, metrics=["ndcg", "map"])
    with pytest.raises(TypeError, match="alpha and intent_weights"):
        ranking_report(y_true.max(axis=2), y_score, metrics=["ndcg"], alpha=0.2)
    with pytest.raises(TypeError, match="none of the intent-aware"):
        ranking_report(y_true, y_score, metrics=["err_ia"], gain="exponential")
    # the 2-D measures on the relevance to any intent: the caller's choice
    any_intent = ranking_report(
        y_true.max(axis=2), y_score, k=3, metrics=["ndcg"], zero_division=0.0
    )
    assert 0 <= any_intent["ndcg@3"] <= 1


# -- streaming --------------------------------------------------------------------


def test_accumulator_equals_the_one_shot_call():
    y_true, y_score = case(21, n=40, m=7)
    sample_weight = np.random.default_rng(1).random(40) + 0.5
    names = [
        "alpha_ndcg@3",
        "err_ia@5",
        "subtopic_recall@2",
        "intent_aware_precision@4",
    ]
    options = dict(alpha=0.25, intent_weights=[0.2, 0.5, 0.3])
    for zero_division in (0.0, np.nan):
        acc = RankingAccumulator(names, zero_division=zero_division, **options)
        left = RankingAccumulator(names, zero_division=zero_division, **options)
        right = RankingAccumulator(names, zero_division=zero_division, **options)
        for start in range(0, 40, 9):
            part = slice(start, start + 9)
            acc.update(y_true[part], y_score[part], sample_weight[part])
            (left if start < 20 else right).update(
                y_true[part], y_score[part], sample_weight[part]
            )
        merged = left.merge(right).result()
        result = acc.result()
        for name in names:
            base, k = name.split("@")
            params = {
                p: v
                for p, v in {
                    "alpha": 0.25,
                    "intent_weights": [0.2, 0.5, 0.3],
                }.items()
                if base != "subtopic_recall"
                and not (base == "alpha_ndcg" and p == "intent_weights")
                and not (base == "intent_aware_precision" and p == "alpha")
            }
            want = INTENT[base](
                y_true,
                y_score,
                k=int(k),
                sample_weight=sample_weight,
                zero_division=zero_division,
                **params,
            )
            assert result[name] == pytest.approx(want, rel=1e-12, abs=1e-15)
            assert merged[name] == pytest.approx(want, rel=1e-12, abs=1e-15)
    # warn: one warning, in result(), with the total count
    acc = RankingAccumulator(["nerr_ia@3"])
    acc.update(y_true[:10], y_score[:10]).update(y_true[10:], y_score[10:])
    with pytest.warns(UndefinedMetricWarning, match="in 1 of 40 samples"):
        acc.result()


def test_accumulator_of_propensity_ratios_equals_the_one_shot_call():
    rng = np.random.default_rng(5)
    y_train = rng.random((50, 12)) < 0.2
    y_true = (rng.random((33, 12)) < 0.2).astype(int)
    y_score = rng.integers(0, 4, size=(33, 12)).astype(float)
    w = inverse_propensity(y_train)
    sample_weight = rng.random(33) + 0.1
    names = ["psprecision@3", "psndcg@5"]
    acc = RankingAccumulator(names, propensity=w, zero_division=0.0)
    for start in range(0, 33, 4):
        part = slice(start, start + 4)
        acc.update(y_true[part], y_score[part], sample_weight[part])
    got = acc.result()
    for name, f, k in (("psprecision@3", psprecision_at_k_score, 3),
                       ("psndcg@5", psndcg_at_k_score, 5)):  # fmt: skip
        want = f(
            y_true,
            y_score,
            k=k,
            propensity=w,
            sample_weight=sample_weight,
            zero_division=0.0,
        )
        assert got[name] == pytest.approx(want, rel=1e-12)


def test_dask_inputs_give_the_in_memory_values():
    da = pytest.importorskip("dask.array")
    y_true, y_score = case(31, n=23, m=6)
    weights = np.random.default_rng(2).random((23, 3)) + 0.1
    names = [f"{base}@3" for base in INTENT]
    scorer = get_scorer(names, zero_division=0.0)
    want = scorer._score(y_true, y_score)
    dt = da.from_array(y_true, chunks=(5, -1, -1))
    ds = da.from_array(y_score, chunks=(7, -1))
    got = scorer._score(dt, ds)
    for name in names:
        assert got[name] == pytest.approx(want[name], rel=1e-12)
    # in-memory y_true with dask scores; per-sample intent weights cut by rows
    report = ranking_report(
        y_true, ds, k=3, metrics=["err_ia"], intent_weights=weights, zero_division=0.0
    )
    assert report["err_ia@3"] == pytest.approx(
        err_ia_at_k(y_true, y_score, k=3, intent_weights=weights, zero_division=0.0),
        rel=1e-12,
    )
    # dask relevance with in-memory scores
    got = scorer._score(dt, y_score)
    for name in names:
        assert got[name] == pytest.approx(want[name], rel=1e-12)
    acc = RankingAccumulator(names, zero_division=0.0)
    acc.update(dt[:11], ds[:11]).update(dt[11:], ds[11:])
    for name, value in acc.result().items():
        assert value == pytest.approx(want[name], rel=1e-12)


# -- statistics -------------------------------------------------------------------


def test_statistics_of_intent_aware_measures_are_row_means():
    y_true, y_score = case(41, n=30)
    ci = confidence_interval(
        y_true, y_score, metric="alpha_ndcg@3", zero_division=np.nan, method="t"
    )
    rows = brute("alpha_ndcg", y_true, y_score, 3, False)
    assert ci.mean == pytest.approx(mean(rows), abs=1e-12)
    assert ci.n_samples == int(np.count_nonzero(~np.isnan(rows)))
    other = np.where(np.isinf(y_score), -np.inf, -y_score)
    test = paired_test(
        y_true, y_score, other, metric="subtopic_recall@2", zero_division=0.0
    )
    diff = fill(brute("subtopic_recall", y_true, y_score, 2, False), 0.0) - fill(
        brute("subtopic_recall", y_true, other, 2, False), 0.0
    )
    assert test.difference == pytest.approx(diff.mean(), abs=1e-12)


def test_statistics_refuse_the_propensity_ratio_of_sums():
    rng = np.random.default_rng(8)
    y_true = (rng.random((20, 6)) < 0.3).astype(int)
    y_score = rng.random((20, 6))
    w = rng.random(6) + 1.0
    message = r"psprecision@3 is pyxclib's ratio of two sums .* psprecision_at_k_score"
    with pytest.raises(ValueError, match=message):
        confidence_interval(y_true, y_score, metric="psprecision@3", propensity=w)
    with pytest.raises(ValueError, match="psndcg@3 is pyxclib's ratio"):
        paired_test(y_true, y_score, -y_score, metric="psndcg@3", propensity=w)
    with pytest.raises(ValueError, match="psndcg@3 is pyxclib's ratio"):
        compare_systems(
            y_true, {"a": y_score, "b": -y_score}, measures=["psndcg@3"], propensity=w
        )
    # the function: the per-row ratios, whose plain mean is average="mean"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ci = confidence_interval(
            y_true,
            y_score,
            metric=psprecision_at_k_score,
            k=3,
            propensity=w,
            zero_division=0.0,
            method="t",
        )
    assert "average='mean'" in ci.metric
    assert ci.mean == pytest.approx(
        psprecision_at_k_score(
            y_true, y_score, k=3, propensity=w, zero_division=0.0, average="mean"
        ),
        abs=1e-12,
    )


def test_curve_display_of_a_propensity_metric_is_the_ratio_at_every_k():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sklearn_rankk import RankingCurveDisplay

    rng = np.random.default_rng(9)
    y_true = (rng.random((30, 8)) < 0.3).astype(int)
    y_true[0] = 0  # best value 0: weighs nothing in the ratio
    y_score = rng.integers(0, 3, size=(30, 8)).astype(float)
    for kind, f in (("psprecision", psprecision_at_k_score),
                    ("psndcg", psndcg_at_k_score)):  # fmt: skip
        display = RankingCurveDisplay.from_predictions(
            y_true, y_score, kind=kind, k_max=5, zero_division=0.0
        )
        want = [f(y_true, y_score, k=k, zero_division=0.0) for k in range(1, 6)]
        np.testing.assert_allclose(display.values, want, rtol=1e-12)
        plain = [
            f(y_true, y_score, k=k, zero_division=0.0, average="mean")
            for k in range(1, 6)
        ]
        assert not np.allclose(display.values, plain)  # the data tell them apart
    plt.close("all")


def test_propensity_scorer_gives_each_folds_ratio_in_cross_validate():
    from sklearn.datasets import make_multilabel_classification
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    X, y = make_multilabel_classification(
        n_samples=90, n_features=8, n_classes=6, random_state=0
    )
    w = inverse_propensity(y)
    scoring = {
        "psp": get_scorer("psprecision@3", propensity=w, zero_division=0.0),
        "psndcg": make_ranking_scorer(
            psndcg_at_k_score, k=3, propensity=w, zero_division=0.0
        ),
    }
    model = OneVsRestClassifier(LogisticRegression(max_iter=500))
    cv = KFold(3)
    result = cross_validate(model, X, y, cv=cv, scoring=scoring)
    for i, (train, test) in enumerate(cv.split(X)):
        fitted = OneVsRestClassifier(LogisticRegression(max_iter=500))
        y_score = fitted.fit(X[train], y[train]).decision_function(X[test])
        for key, f in (("psp", psprecision_at_k_score), ("psndcg", psndcg_at_k_score)):
            want = f(y[test], y_score, k=3, propensity=w, zero_division=0.0)
            assert result[f"test_{key}"][i] == pytest.approx(want, rel=1e-12)
    # the weights bound at creation must fit the columns scored
    with pytest.raises(ValueError, match="propensity"):
        get_scorer("psndcg@3", propensity=w[:4])._score(y, y.astype(float))


def test_compare_systems_on_intent_aware_measures():
    y_true, y_score = case(51, n=12)
    other = np.where(np.isinf(y_score), -np.inf, 2.0 - y_score)
    weights = np.random.default_rng(4).random((12, 3)) + 0.1  # per query
    comparison = compare_systems(
        y_true,
        {"a": y_score, "b": other},
        measures=["nerr_ia@3", "subtopic_recall@2"],
        intent_weights=weights,
        zero_division=0.0,
    )
    for system, scores in (("a", y_score), ("b", other)):
        for measure, base, k in (
            ("nerr_ia@3", "nerr_ia", 3),
            ("subtopic_recall@2", "subtopic_recall", 2),
        ):
            rows = fill(brute(base, y_true, scores, k, False, 0.5, weights), 0.0)
            np.testing.assert_allclose(
                comparison.per_query[measure][system], rows, atol=1e-12
            )
            assert comparison.means[measure][system] == pytest.approx(
                rows.mean(), abs=1e-12
            )
    with pytest.raises(ValueError, match="intent-aware measures"):
        compare_systems(
            y_true, {"a": y_score, "b": other}, measures=["err_ia@3", "ndcg@3"]
        )
    # ndeval's alpha other than 0.5: a scorer, since the statistics' own
    # alpha is the significance level
    test = paired_test(
        y_true,
        y_score,
        other,
        metric=get_scorer("alpha_ndcg@3", alpha=0.3, zero_division=0.0),
    )
    diff = fill(brute("alpha_ndcg", y_true, y_score, 3, False, 0.3), 0.0) - fill(
        brute("alpha_ndcg", y_true, other, 3, False, 0.3), 0.0
    )
    assert test.difference == pytest.approx(diff.mean(), abs=1e-12)
