"""RankingCurveDisplay, tested by rendering with matplotlib's Agg backend.

Every number the plotted lines carry comes from outside the display code:

* P@k and R@k by brute force (numpy argsort of tie-free scores, then counts);
* the public metric functions, one call per cut-off (themselves checked
  against the brute-force oracle, sklearn and trec_eval);
* the random baseline from the permutation oracle of ``test_bruteforce``
  (the mean over every ordering of each row's retrieved items) and from closed
  forms: ``E[P@k] = r min(k, M) / (M k)`` and ``E[R@k] = min(k, M) / M`` for a
  row with ``M`` retrieved items, ``r`` of them relevant;
* ``cross_val_score`` with the package's scorer, for the fold curves.
"""

from __future__ import annotations

import io
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import FUNCS, fill_undefined, oracle, random_case, weighted_mean
from sklearn.datasets import load_digits, make_multilabel_classification
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.model_selection import cross_val_score, cross_validate
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier

import sklearn_rankk
from sklearn_rankk import (
    RankingCurveDisplay,
    get_scorer,
    precision_at_k_score,
    recall_at_k_score,
)

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RTOL = ATOL = 1e-12
CURVE_METRICS = ["precision", "recall", "f1", "hit", "mrr", "map", "dcg", "ndcg"]
ALL_KINDS = ["precision_recall_at_k", "precision_recall", *CURVE_METRICS]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:1000], X[1000:], y[:1000], y[1000:]


@pytest.fixture(scope="module")
def models(digits):
    X_train, _, y_train, _ = digits
    return (
        GaussianNB().fit(X_train, y_train),
        LinearDiscriminantAnalysis().fit(X_train, y_train),
    )


def tie_free_case(seed, n_rows=12, n_items=8):
    """Distinct scores, every row with at least one relevant item."""
    rng = np.random.default_rng(seed)
    y_score = rng.permutation(n_rows * n_items).reshape(n_rows, n_items) / 7.0
    y_true = (rng.random((n_rows, n_items)) < 0.35).astype(int)
    y_true[np.arange(n_rows), rng.integers(0, n_items, n_rows)] = 1
    return y_true, y_score


def brute_pr(y_true, y_score, k_max, weights=None):
    """Weighted mean P@k and R@k for k = 1..k_max by sorting each row."""
    order = np.argsort(-y_score, axis=1, kind="stable")
    ranked = np.take_along_axis(y_true > 0, order, axis=1)
    padding = np.zeros((len(ranked), max(0, k_max - ranked.shape[1])), dtype=bool)
    hits = np.cumsum(np.hstack([ranked, padding]), axis=1)[:, :k_max]
    ks = np.arange(1, k_max + 1)
    precision = hits / ks
    recall = hits / ranked.sum(axis=1, keepdims=True)
    w = np.ones(len(y_true)) if weights is None else np.asarray(weights)
    return w @ precision / w.sum(), w @ recall / w.sum()


def legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def baselines(ax):
    return [line for line in ax.get_lines() if line.get_gid()]


def oracle_mean(metric, y_true, y_score, k, weights=None, **params):
    """Mean over rows of the expectation over every ordering of tied items."""
    values = oracle(
        metric, y_true, y_score, ignore_ties=False, threshold=0, k=k, params=params
    )
    return weighted_mean(fill_undefined(values, 0.0), weights)


# ----------------------------------------------------------------------------
# Line data against independent computations
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_precision_recall_at_k_lines_match_bruteforce(seed):
    y_true, y_score = tie_free_case(seed)
    weights = np.random.default_rng(seed).uniform(0.2, 2.0, len(y_true))
    precision, recall = brute_pr(y_true, y_score, 6, weights)
    display = RankingCurveDisplay.from_predictions(
        y_true, y_score, k_max=6, sample_weight=weights
    )
    p_line, r_line = display.line_
    np.testing.assert_array_equal(p_line.get_xdata(), np.arange(1, 7))
    np.testing.assert_allclose(p_line.get_ydata(), precision, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(r_line.get_ydata(), recall, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(display.precision, precision, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(display.recall, recall, rtol=RTOL, atol=ATOL)
    # Random ranking of all N items: E[P@k] = |R| / N, E[R@k] = k / N.
    n_items = y_true.shape[1]
    random_p, random_r = display.random_baseline_
    expected_p = weights @ (y_true.sum(axis=1) / n_items) / weights.sum()
    np.testing.assert_allclose(random_p.get_ydata(), expected_p, rtol=RTOL)
    np.testing.assert_allclose(
        random_r.get_ydata(), np.arange(1, 7) / n_items, rtol=RTOL
    )


def test_precision_recall_kind_plots_precision_against_recall():
    y_true, y_score = tie_free_case(7, n_items=12)
    precision, recall = brute_pr(y_true, y_score, 10)
    display = RankingCurveDisplay.from_predictions(
        y_true, y_score, kind="precision_recall", k_max=10, name="model"
    )
    np.testing.assert_allclose(display.line_.get_xdata(), recall, rtol=RTOL)
    np.testing.assert_allclose(display.line_.get_ydata(), precision, rtol=RTOL)
    # The baseline: a random ranking reaches R@k = k / N at P@k = |R| / N.
    ks = np.arange(1, 11)
    np.testing.assert_allclose(display.random_baseline_.get_xdata(), ks / 12)
    np.testing.assert_allclose(
        display.random_baseline_.get_ydata(), y_true.sum(axis=1).mean() / 12
    )
    ax = display.ax_
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Recall@k", "Precision@k")
    assert ax.get_xlim() == ax.get_ylim() == (-0.02, 1.02)
    # A few cut-offs written next to their points, at their coordinates.
    texts = {t.get_text(): t.xy for t in ax.texts}
    assert list(texts) == ["k=1", "k=2", "k=5", "k=10"]
    np.testing.assert_allclose(texts["k=5"], (recall[4], precision[4]), rtol=RTOL)
    assert legend_texts(ax) == [
        f"model (P@10 = {precision[-1]:.2f}, R@10 = {recall[-1]:.2f})",
        f"Random ranking (P@10 = {y_true.sum(1).mean() / 12:.2f}, R@10 = 0.83)",
    ]


@pytest.mark.parametrize("metric", CURVE_METRICS)
def test_metric_kind_matches_metric_functions(metric):
    # Tied integer scores, -inf, graded relevance, k past the row length.
    rng = np.random.default_rng(3)
    y_score = rng.integers(0, 4, size=(20, 7)).astype(float)
    y_score[rng.random(y_score.shape) < 0.15] = -np.inf
    y_true = np.where(rng.random(y_score.shape) < 0.4, rng.integers(1, 4, (20, 7)), 0)
    y_true[0] = 0  # undefined for recall, f1, map and ndcg
    weights = rng.uniform(0.1, 2.0, 20)
    display = RankingCurveDisplay.from_predictions(
        y_true,
        y_score,
        kind=metric,
        k_max=9,
        sample_weight=weights,
        zero_division=np.nan,
    )
    expected = [
        FUNCS[metric](y_true, y_score, k=k, sample_weight=weights, zero_division=np.nan)
        for k in range(1, 10)
    ]
    np.testing.assert_allclose(display.values, expected, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(display.line_.get_ydata(), expected, rtol=RTOL)
    np.testing.assert_array_equal(display.line_.get_xdata(), np.arange(1, 10))


@pytest.mark.parametrize("metric", CURVE_METRICS)
@pytest.mark.parametrize("seed", [1, 2, 5, 9])
def test_random_baseline_matches_permutation_oracle(metric, seed):
    # Small, tied inputs with unretrieved items and rows with no relevant item.
    y_true, y_score, weights = random_case(seed)
    k_max = y_score.shape[1] + 1
    params = {"map": {"denominator": "min"}, "dcg": {"log_base": 10}}.get(metric, {})
    constant = np.where(np.isneginf(y_score), -np.inf, 0.0)
    expected = [
        oracle_mean(metric, y_true, constant, k, weights, **params)
        for k in range(1, k_max + 1)
    ]
    display = RankingCurveDisplay.from_predictions(
        y_true,
        y_score,
        kind=metric,
        k_max=k_max,
        sample_weight=weights,
        zero_division=0.0,
        **params,
    )
    np.testing.assert_allclose(display.random_values, expected, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(
        display.random_baseline_.get_ydata(), expected, rtol=RTOL, atol=ATOL
    )


def test_random_baseline_ranks_only_retrieved_items():
    # Closed form per row with M retrieved items, r of them relevant:
    # E[P@k] = r min(k, M) / (M k), E[R@k] = (r / |R|) min(k, M) / M.
    rng = np.random.default_rng(0)
    y_score = rng.normal(size=(30, 10))
    y_true = (rng.random((30, 10)) < 0.4).astype(int)
    y_true[:, 0] = 1
    y_score[rng.random((30, 10)) < 0.3] = -np.inf
    y_score[:, 1] = 0.0  # every row retrieves at least one item
    retrieved = np.isfinite(y_score)
    m = retrieved.sum(axis=1, keepdims=True)
    r = (retrieved & (y_true > 0)).sum(axis=1, keepdims=True)
    ks = np.arange(1, 13)
    cut = np.minimum(ks, m)
    expected_p = (r * cut / (m * ks)).mean(axis=0)
    expected_r = (r / y_true.sum(axis=1, keepdims=True) * cut / m).mean(axis=0)
    display = RankingCurveDisplay.from_predictions(y_true, y_score, k_max=12)
    np.testing.assert_allclose(display.random_precision, expected_p, rtol=RTOL)
    np.testing.assert_allclose(display.random_recall, expected_r, rtol=RTOL)


def test_options_reach_the_metrics():
    y_true, y_score = tie_free_case(4)
    y_score = np.round(y_score / 10)  # ties
    y_true = y_true * np.random.default_rng(4).integers(1, 4, y_true.shape)
    display = RankingCurveDisplay.from_predictions(
        y_true,
        y_score,
        kind="ndcg",
        k_max=5,
        ignore_ties=True,
        gain="exponential",
        log_base=3,
        relevance_threshold=1,
    )
    options = dict(ignore_ties=True, gain="exponential", log_base=3)
    expected = [
        FUNCS["ndcg"](y_true, y_score, k=k, relevance_threshold=1, **options)
        for k in range(1, 6)
    ]
    np.testing.assert_allclose(display.values, expected, rtol=RTOL)
    # The baseline is tie-averaged whatever ignore_ties says.
    zeros = np.zeros_like(y_score)
    random = [
        FUNCS["ndcg"](y_true, zeros, k=k, relevance_threshold=1, gain="exponential",
                      log_base=3)
        for k in range(1, 6)
    ]  # fmt: skip
    np.testing.assert_allclose(display.random_values, random, rtol=RTOL)
    map_display = RankingCurveDisplay.from_predictions(
        y_true, y_score, kind="map", k_max=4, denominator="retrieved"
    )
    expected = [
        FUNCS["map"](y_true, y_score, k=k, denominator="retrieved") for k in range(1, 5)
    ]
    np.testing.assert_allclose(map_display.values, expected, rtol=RTOL)
    fbeta_display = RankingCurveDisplay.from_predictions(
        y_true, y_score, kind="fbeta", k_max=4, beta=2.0
    )
    expected = [FUNCS["fbeta"](y_true, y_score, k=k, beta=2.0) for k in range(1, 5)]
    np.testing.assert_allclose(fbeta_display.values, expected, rtol=RTOL)
    with pytest.raises(TypeError, match="beta"):
        RankingCurveDisplay.from_predictions(y_true, y_score, kind="map", beta=2.0)
    rbp_display = RankingCurveDisplay.from_predictions(
        y_true, y_score, kind="rbp", k_max=4, p=0.5
    )
    expected = [FUNCS["rbp"](y_true, y_score, k=k, p=0.5) for k in range(1, 5)]
    np.testing.assert_allclose(rbp_display.values, expected, rtol=RTOL)
    with pytest.raises(TypeError, match="p=0.5 does not apply"):
        RankingCurveDisplay.from_predictions(y_true, y_score, kind="map", p=0.5)


def test_k_max_none_and_past_the_row_length():
    y_true, y_score = tie_free_case(2, n_items=5)
    display = RankingCurveDisplay.from_predictions(y_true, y_score, k_max=None)
    np.testing.assert_array_equal(display.k, np.arange(1, 6))
    display = RankingCurveDisplay.from_predictions(y_true, y_score, k_max=8)
    expected = [precision_at_k_score(y_true, y_score, k=k) for k in range(1, 9)]
    np.testing.assert_allclose(display.precision, expected, rtol=RTOL)  # P@k / k


def test_one_warning_per_curve_and_nan_leaves_rows_out():
    y_true, y_score = tie_free_case(5)
    y_true[:3] = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        RankingCurveDisplay.from_predictions(y_true, y_score, kind="recall")
    messages = [str(w.message) for w in caught if w.category is UndefinedMetricWarning]
    assert messages == [
        # The public names of the values drawn (issue 28), not "recall@k".
        "recall@1 to recall@8 are ill-defined and set to 0.0 in 3 of 12 samples "
        "with no relevant item. Use zero_division to control this behaviour."
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        display = RankingCurveDisplay.from_predictions(
            y_true, y_score, k_max=4, zero_division=np.nan
        )
    expected = [
        recall_at_k_score(y_true, y_score, k=k, zero_division=np.nan)
        for k in range(1, 5)
    ]
    np.testing.assert_allclose(display.recall, expected, rtol=RTOL)


# ----------------------------------------------------------------------------
# Labels, limits, legend
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("metric", CURVE_METRICS)
def test_axis_labels_limits_and_legend(metric):
    y_true, y_score = tie_free_case(6)
    display = RankingCurveDisplay.from_predictions(
        y_true, y_score, kind=metric, k_max=7, name="ranker"
    )
    ax = display.ax_
    names = {"hit": "Hit rate", "mrr": "MRR", "map": "MAP", "dcg": "DCG"}
    label = names.get(metric, {"ndcg": "nDCG", "f1": "F1"}.get(metric))
    label = label or metric.capitalize()
    assert ax.get_xlabel() == "k (cut-off)"
    assert ax.get_ylabel() == f"{label}@k"
    value = FUNCS[metric](y_true, y_score, k=7)
    random = FUNCS[metric](y_true, np.zeros_like(y_score), k=7)
    assert legend_texts(ax) == [
        f"ranker ({label}@7 = {value:.2f})",
        f"Random ranking ({label}@7 = {random:.2f})",
    ]
    ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    assert np.all(np.equal(np.mod(ticks, 1), 0))  # integer cut-offs
    if metric == "dcg":  # unbounded: from 0 to above every point
        bottom, top = ax.get_ylim()
        assert bottom == 0 and top >= max(display.values)
    else:
        assert ax.get_ylim() == (-0.02, 1.02)
    assert display.random_baseline_.get_color() == "grey"
    assert display.random_baseline_.get_linestyle() == "--"


def test_precision_recall_at_k_styles_and_legend():
    y_true, y_score = tie_free_case(8)
    precision, recall = brute_pr(y_true, y_score, 10)
    display = RankingCurveDisplay.from_predictions(y_true, y_score, k_max=10, name="m")
    p_line, r_line = display.line_
    assert p_line.get_color() == r_line.get_color()
    assert (p_line.get_linestyle(), r_line.get_linestyle()) == ("-", "--")
    random_p, random_r = display.random_baseline_
    assert (random_p.get_linestyle(), random_r.get_linestyle()) == ("-", "--")
    assert random_p.get_color() == random_r.get_color() == "grey"
    assert display.ax_.get_ylabel() == "Precision@k, Recall@k"
    assert legend_texts(display.ax_) == [
        f"m (Precision@10 = {precision[-1]:.2f})",
        f"m (Recall@10 = {recall[-1]:.2f})",
        # 8 items, k = 10: E[P@10] = |R| min(10, 8) / (8 * 10).
        f"Random ranking (Precision@10 = {y_true.sum(1).mean() / 10:.2f})",
        f"Random ranking (Recall@10 = {min(10, 8) / 8:.2f})",
    ]


def test_no_name_shows_the_values_alone():
    y_true, y_score = tie_free_case(1)
    display = RankingCurveDisplay.from_predictions(
        y_true, y_score, kind="hit", k_max=2, plot_random_baseline=False
    )
    value = FUNCS["hit"](y_true, y_score, k=2)
    assert legend_texts(display.ax_) == [f"Hit rate@2 = {value:.2f}"]
    assert display.random_baseline_ is None
    assert baselines(display.ax_) == []


def test_curve_and_baseline_kwargs_and_despine():
    y_true, y_score = tie_free_case(1)
    display = RankingCurveDisplay.from_predictions(
        y_true,
        y_score,
        kind="recall",
        curve_kwargs={"c": "red", "lw": 3},
        random_baseline_kw={"color": "black", "label": "chance"},
        despine=True,
    )
    assert display.line_.get_color() == "red"
    assert display.line_.get_linewidth() == 3
    assert display.random_baseline_.get_color() == "black"
    assert legend_texts(display.ax_)[-1] == "chance"
    assert not display.ax_.spines["top"].get_visible()
    assert not display.ax_.spines["right"].get_visible()
    with pytest.raises(TypeError, match="aliases|both"):
        RankingCurveDisplay.from_predictions(
            y_true, y_score, curve_kwargs={"c": "red", "color": "blue"}
        )


# ----------------------------------------------------------------------------
# Several models on one axes, re-plotting
# ----------------------------------------------------------------------------


def test_several_models_on_one_axes(digits, models):
    _, X_test, _, y_test = digits
    nb, lda = models
    first = RankingCurveDisplay.from_estimator(nb, X_test, y_test, kind="ndcg")
    second = RankingCurveDisplay.from_estimator(
        lda, X_test, y_test, kind="ndcg", ax=first.ax_
    )
    ax = first.ax_
    assert second.ax_ is ax and second.figure_ is first.figure_
    # Same test rows, same baseline: drawn once, shared by both displays.
    assert baselines(ax) == [first.random_baseline_]
    assert second.random_baseline_ is first.random_baseline_
    assert first.line_.get_color() != second.line_.get_color()
    nb_value = FUNCS["ndcg"](y_test, nb.predict_proba(X_test), k=10)
    lda_value = FUNCS["ndcg"](y_test, lda.decision_function(X_test), k=10)
    random = FUNCS["ndcg"](y_test, np.zeros((len(y_test), 10)), k=10)
    assert legend_texts(ax) == [
        f"GaussianNB (nDCG@10 = {nb_value:.2f})",
        f"LinearDiscriminantAnalysis (nDCG@10 = {lda_value:.2f})",
        f"Random ranking (nDCG@10 = {random:.2f})",
    ]
    # Other data, another baseline: drawn too.
    y_true, y_score = tie_free_case(0, n_items=10)
    third = RankingCurveDisplay.from_predictions(
        y_true, y_score, kind="ndcg", ax=ax, name="other"
    )
    assert baselines(ax) == [first.random_baseline_, third.random_baseline_]
    assert len(legend_texts(ax)) == 5


def test_plot_returns_self_and_redraws_on_new_axes():
    y_true, y_score = tie_free_case(3)
    display = RankingCurveDisplay.from_predictions(
        y_true, y_score, kind="mrr", k_max=10
    )
    old_ax, old_line = display.ax_, display.line_
    fig, ax = plt.subplots()
    assert display.plot(ax=ax, name="again") is display
    assert display.ax_ is ax and display.figure_ is fig
    assert display.line_ is not old_line and display.line_.axes is ax
    np.testing.assert_array_equal(display.line_.get_ydata(), old_line.get_ydata())
    assert legend_texts(ax)[0].startswith("again (MRR@10 = ")
    assert len(old_ax.get_lines()) == 2  # the first axes is left as it was
    assert display.plot().ax_ is not ax  # ax=None: a new figure


def test_constructor_and_multi_curve_plot():
    k = np.arange(1, 4)
    display = RankingCurveDisplay(
        k=k,
        values=[np.array([0.1, 0.2, 0.3]), np.array([0.3, 0.4, 0.5])],
        kind="map",
        name="cv",
    )
    display.plot(plot_random_baseline=False)
    assert len(display.line_) == 2
    assert display.line_[0].get_color() == display.line_[1].get_color()
    # One entry: the mean +/- std of the values at the largest k.
    assert legend_texts(display.ax_) == ["cv (MAP@3 = 0.40 +/- 0.10)"]
    display.plot(
        name=["a", "b"], curve_kwargs=[{}, {"color": "red"}], plot_random_baseline=False
    )
    assert legend_texts(display.ax_) == ["a (MAP@3 = 0.30)", "b (MAP@3 = 0.50)"]
    assert display.line_[1].get_color() == "red"


# ----------------------------------------------------------------------------
# Estimators and cross-validation
# ----------------------------------------------------------------------------


def test_from_estimator_digits(digits):
    X_train, X_test, y_train, y_test = digits
    model = GaussianNB().fit(X_train, y_train)
    display = RankingCurveDisplay.from_estimator(model, X_test, y_test, k_max=5)
    proba = model.predict_proba(X_test)  # no decision_function: predict_proba
    expected_p = [precision_at_k_score(y_test, proba, k=k) for k in range(1, 6)]
    expected_r = [recall_at_k_score(y_test, proba, k=k) for k in range(1, 6)]
    np.testing.assert_allclose(display.precision, expected_p, rtol=RTOL)
    np.testing.assert_allclose(display.recall, expected_r, rtol=RTOL)
    # One relevant class out of ten: random P@k = 0.1, R@k = k / 10.
    np.testing.assert_allclose(display.random_precision, 0.1, rtol=RTOL)
    np.testing.assert_allclose(display.random_recall, np.arange(1, 6) / 10)
    assert display.name == "GaussianNB"
    named = RankingCurveDisplay.from_estimator(
        model, X_test, y_test, kind="hit", response_method="predict_proba", name="NB"
    )
    assert legend_texts(named.ax_)[0].startswith("NB (Hit rate@10 = ")
    with pytest.raises(ValueError, match="expected one score column per class"):
        RankingCurveDisplay.from_estimator(
            model, X_test, y_test, response_method="predict"
        )


def test_from_estimator_multilabel():
    X, Y = make_multilabel_classification(
        n_samples=300, n_classes=12, n_labels=3, random_state=0
    )
    model = KNeighborsClassifier(10).fit(X[:200], Y[:200])
    display = RankingCurveDisplay.from_estimator(
        model, X[200:], Y[200:], kind="recall", k_max=6, zero_division=0.0
    )
    # Per-label predict_proba list -> probability of label value 1.
    scores = np.column_stack([p[:, 1] for p in model.predict_proba(X[200:])])
    expected = [
        recall_at_k_score(Y[200:], scores, k=k, zero_division=0.0) for k in range(1, 7)
    ]
    np.testing.assert_allclose(display.values, expected, rtol=RTOL)


def test_from_cv_results(digits):
    X = np.vstack(digits[:2])
    y = np.concatenate(digits[2:])
    cv_results = cross_validate(
        GaussianNB(), X, y, cv=3, return_estimator=True, return_indices=True
    )
    display = RankingCurveDisplay.from_cv_results(cv_results, X, y, kind="hit", k_max=3)
    assert len(display.values) == len(display.line_) == 3
    # The last point of each fold is the fold's hit@3 as cross_val_score has it.
    scores = cross_val_score(GaussianNB(), X, y, cv=3, scoring=get_scorer("hit@3"))
    np.testing.assert_allclose([v[-1] for v in display.values], scores, rtol=RTOL)
    for values, estimator, test in zip(
        display.values, cv_results["estimator"], cv_results["indices"]["test"]
    ):
        proba = estimator.predict_proba(X[test])
        expected = [FUNCS["hit"](y[test], proba, k=k) for k in range(1, 4)]
        np.testing.assert_allclose(values, expected, rtol=RTOL)
    assert len({line.get_color() for line in display.line_}) == 1
    assert legend_texts(display.ax_) == [
        f"GaussianNB (Hit rate@3 = {scores.mean():.2f} +/- {scores.std():.2f})",
        "Random ranking (Hit rate@3 = 0.30 +/- 0.00)",
    ]
    assert len(display.random_baseline_) == 3  # one per fold, drawn once
    assert len(baselines(display.ax_)) == 1  # the same for every fold here


def test_from_cv_results_per_fold_entries_and_weights(digits):
    X, y = digits[1], digits[3]
    weights = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    cv_results = cross_validate(
        GaussianNB(), X, y, cv=2, return_estimator=True, return_indices=True
    )
    display = RankingCurveDisplay.from_cv_results(
        cv_results,
        X,
        y,
        kind="precision_recall_at_k",
        k_max=3,
        sample_weight=weights,
        name=["fold 0", "fold 1"],
        curve_kwargs=[{}, {}],
    )
    assert len(display.line_) == 4  # P, R per fold
    for i, (estimator, test) in enumerate(
        zip(cv_results["estimator"], cv_results["indices"]["test"])
    ):
        proba = estimator.predict_proba(X[test])
        expected = [
            precision_at_k_score(y[test], proba, k=k, sample_weight=weights[test])
            for k in range(1, 4)
        ]
        np.testing.assert_allclose(display.precision[i], expected, rtol=RTOL)
    assert [t.split(" (")[0] for t in legend_texts(display.ax_)[:4]] == [
        "fold 0",
        "fold 0",
        "fold 1",
        "fold 1",
    ]


# ----------------------------------------------------------------------------
# Rendering
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_renders_two_models_with_legend_inside_the_figure(kind, digits, models):
    _, X_test, _, y_test = digits
    first = RankingCurveDisplay.from_estimator(models[0], X_test, y_test, kind=kind)
    RankingCurveDisplay.from_estimator(
        models[1], X_test, y_test, kind=kind, ax=first.ax_
    )
    buffer = io.BytesIO()
    first.figure_.savefig(buffer, format="png")
    assert buffer.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"
    renderer = first.figure_.canvas.get_renderer()
    legend = first.ax_.get_legend().get_window_extent(renderer)
    figure = first.figure_.bbox
    assert figure.x0 <= legend.x0 and legend.x1 <= figure.x1
    assert figure.y0 <= legend.y0 and legend.y1 <= figure.y1


@pytest.mark.parametrize("n_models", [1, 2])
def test_precision_recall_at_k_legend_covers_no_line(n_models, digits, models):
    # P@k, R@k and their random baselines cross the whole axes: the legend
    # goes below them, under the x label, and stays inside the figure.
    _, X_test, _, y_test = digits
    display = RankingCurveDisplay.from_estimator(models[0], X_test, y_test)
    if n_models == 2:
        RankingCurveDisplay.from_estimator(models[1], X_test, y_test, ax=display.ax_)
    figure = display.figure_
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    legend = display.ax_.get_legend().get_window_extent(renderer)
    axes = display.ax_.get_window_extent(renderer)
    xlabel = display.ax_.xaxis.get_tightbbox(renderer)  # ticks, tick labels, label
    assert len(legend_texts(display.ax_)) == 2 * n_models + 2
    assert legend.y1 < xlabel.y0 < axes.y0
    for line in display.ax_.get_lines():
        extent = line.get_window_extent(renderer)
        assert not legend.overlaps(extent), line.get_label()
    inside = figure.bbox
    assert inside.x0 <= legend.x0 and legend.x1 <= inside.x1
    assert inside.y0 <= legend.y0


def test_many_cut_offs_drop_markers():
    y_true, y_score = tie_free_case(0, n_items=40)
    display = RankingCurveDisplay.from_predictions(y_true, y_score, kind="recall",
                                                   k_max=None)  # fmt: skip
    assert display.line_.get_marker() in ("None", None, "")
    assert display.k.size == 40


# ----------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------


def test_errors():
    y_true, y_score = tie_free_case(0)
    make = RankingCurveDisplay.from_predictions
    with pytest.raises(ValueError, match="kind must be one of"):
        make(y_true, y_score, kind="roc_curve")
    with pytest.raises(ValueError, match="'r_precision' has no cut-off"):
        make(y_true, y_score, kind="r_precision")
    with pytest.raises(TypeError, match="gain='exponential' does not apply"):
        make(y_true, y_score, kind="precision", gain="exponential")
    with pytest.raises(TypeError, match="denominator='min' does not apply"):
        make(y_true, y_score, kind="ndcg", denominator="min")
    with pytest.raises(ValueError, match="gain must be one of"):
        make(y_true, y_score, kind="ndcg", gain="square")
    with pytest.raises(ValueError, match="k_max must be an integer >= 1"):
        make(y_true, y_score, k_max=0)
    with pytest.raises(TypeError, match="k_max must be an integer"):
        make(y_true, y_score, k_max=2.5)
    with pytest.raises(ValueError, match="zero_division must be one of"):
        make(y_true, y_score, zero_division="skip")
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        make(y_true, y_score, ax="left")
    with pytest.raises(TypeError, match="plot_random_baseline must be True or False"):
        make(y_true, y_score, plot_random_baseline=1)
    with pytest.raises(ValueError, match="shape"):
        make(y_true[:, :3], y_score)


def test_plot_errors():
    k = np.arange(1, 4)
    values = np.array([0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="no random-ranking values"):
        RankingCurveDisplay(k=k, values=values, kind="map").plot()
    with pytest.raises(ValueError, match="plots precision and recall"):
        RankingCurveDisplay(k=k, values=values).plot(plot_random_baseline=False)
    with pytest.raises(ValueError, match=r"must have shape \(3,\) like k"):
        RankingCurveDisplay(k=k, values=values[:2], kind="map").plot(
            plot_random_baseline=False
        )
    with pytest.raises(ValueError, match="random_values has 1 curves; expected 2"):
        RankingCurveDisplay(
            k=k, values=[values, values], random_values=values, kind="map"
        ).plot()
    with pytest.raises(ValueError, match="kind must be one of"):
        RankingCurveDisplay(k=k, values=values, kind="roc").plot()
    two = RankingCurveDisplay(k=k, values=[values, values], kind="map")
    with pytest.raises(ValueError, match="a list of 2 dicts"):
        two.plot(curve_kwargs=[{}], plot_random_baseline=False)
    with pytest.raises(ValueError, match="A list of names labels each curve"):
        two.plot(name=["a", "b"], plot_random_baseline=False)
    with pytest.raises(ValueError, match="name has 3 entries for 2 curves"):
        two.plot(name=["a", "b", "c"], plot_random_baseline=False)


def test_cv_results_errors(digits):
    X, y = digits[1], digits[3]
    cv_results = cross_validate(
        GaussianNB(), X, y, cv=2, return_estimator=True, return_indices=True
    )
    make = RankingCurveDisplay.from_cv_results
    without = {k: v for k, v in cv_results.items() if k != "indices"}
    with pytest.raises(ValueError, match="return_indices=True"):
        make(without, X, y)
    with pytest.raises(ValueError, match="return_estimator=True"):
        make(cross_validate(GaussianNB(), X, y, cv=2, return_indices=True), X, y)
    with pytest.raises(ValueError, match="cv_results must be the dict"):
        make([1, 2], X, y)
    with pytest.raises(ValueError, match="y has 10 rows but X has 797"):
        make(cv_results, X, y[:10])
    with pytest.raises(ValueError, match="test index 796 but X has only 700 rows"):
        make(cv_results, X[:700], y[:700])
    with pytest.raises(ValueError, match="response_method must be one of"):
        make(cv_results, X, y, response_method="transform")


def test_missing_matplotlib_is_a_clear_error(monkeypatch):
    y_true, y_score = tie_free_case(0)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match="from_predictions requires matplotlib"):
        RankingCurveDisplay.from_predictions(y_true, y_score)


def test_matplotlib_is_imported_lazily():
    code = (
        "import sys, sklearn_rankk, sklearn_rankk._display; "
        "print('matplotlib' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_one_default_k_max_everywhere():
    """The curve function and every display constructor share one default:
    the whole row (k = 1 .. n_items)."""
    import inspect

    from sklearn_rankk import precision_recall_at_k_curve

    defaults = {
        func.__qualname__: inspect.signature(func).parameters["k_max"].default
        for func in (
            precision_recall_at_k_curve,
            RankingCurveDisplay.from_predictions,
            RankingCurveDisplay.from_estimator,
            RankingCurveDisplay.from_cv_results,
        )
    }
    assert set(defaults.values()) == {None}, defaults
    y_true, y_score = tie_free_case(4, n_items=13)
    display = RankingCurveDisplay.from_predictions(y_true, y_score)
    curve = precision_recall_at_k_curve(y_true, y_score)
    np.testing.assert_array_equal(display.k, curve.k)
    np.testing.assert_array_equal(display.k, np.arange(1, 14))
    np.testing.assert_allclose(display.precision, curve.precision, rtol=RTOL)
    plt.close("all")


def test_from_cv_results_takes_pandas_lists_and_sparse(digits):
    """Fold rows are taken from any container cross_validate takes: a
    DataFrame and Series (by position, whatever the index), a list of labels;
    the curves equal those of the numpy arrays."""
    pd = pytest.importorskip("pandas")
    X, y = digits[1][:300], digits[3][:300]
    cv_results = cross_validate(
        GaussianNB(), X, y, cv=3, return_estimator=True, return_indices=True
    )
    expected = RankingCurveDisplay.from_cv_results(
        cv_results, X, y, kind="ndcg", k_max=4
    ).values
    index = np.arange(300)[::-1] * 10  # positions, not labels, select the rows
    for X_form, y_form in [
        (pd.DataFrame(X, index=index), pd.Series(y, index=index)),
        (X, y.tolist()),
    ]:
        got = RankingCurveDisplay.from_cv_results(
            cv_results, X_form, y_form, kind="ndcg", k_max=4
        ).values
        for a, b in zip(got, expected):
            np.testing.assert_allclose(a, b, rtol=RTOL)
    plt.close("all")


def test_fold_rows_of_every_container():
    """The local replacement of sklearn's private ``_safe_indexing``."""
    pd = pytest.importorskip("pandas")
    from sklearn_rankk._display import _take_rows

    X = np.arange(24.0).reshape(8, 3)
    rows = np.array([5, 0, 7])
    for form, back in [
        (sp.csr_matrix(X), lambda x: x.toarray()),
        (sp.csr_array(X), lambda x: x.toarray()),
        (pd.DataFrame(X, index=list("abcdefgh")), lambda x: x.to_numpy()),
        (X.tolist(), np.asarray),
        (X, np.asarray),
    ]:
        np.testing.assert_array_equal(back(_take_rows(form, rows)), X[rows])
    y = pd.Series(np.arange(8), index=np.arange(8)[::-1])
    np.testing.assert_array_equal(_take_rows(y, rows), rows)


# --------------------------------------------------------------------------
# The interpolated precision-recall curve (trec_eval's 11 points)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("ignore_ties", [False, True])
def test_interpolated_curve_is_the_metric_at_each_level(ignore_ties):
    y_true, y_score, weights = random_case(6)
    levels = (0.0, 0.25, 0.5, 0.75, 1.0)
    precision, recall = sklearn_rankk.interpolated_precision_recall_curve(
        y_true,
        y_score,
        recall_levels=levels,
        sample_weight=weights,
        ignore_ties=ignore_ties,
        zero_division=0.0,
    )
    np.testing.assert_array_equal(recall, levels)
    # Each point: the brute-force oracle of interpolated precision.
    expected = [
        weighted_mean(
            fill_undefined(
                oracle(
                    "interpolated_precision",
                    y_true,
                    y_score,
                    ignore_ties=ignore_ties,
                    threshold=0,
                    k=None,
                    params={"recall_level": x},
                ),
                0.0,
                y_true,
            ),
            weights,
        )
        for x in levels
    ]
    np.testing.assert_allclose(precision, expected, rtol=RTOL, atol=ATOL)
    rows = sklearn_rankk.interpolated_precision_recall_curve(
        y_true, y_score, recall_levels=levels, zero_division=0.0, average=None
    ).precision
    assert rows.shape == (y_true.shape[0], len(levels))
    eleven = sklearn_rankk.eleven_point_precision_score(
        y_true, y_score, recall_levels=levels, zero_division=0.0, average=None
    )
    np.testing.assert_allclose(rows.mean(axis=1), eleven, rtol=RTOL, atol=ATOL)
    with pytest.raises(ValueError, match="recall_levels"):
        sklearn_rankk.interpolated_precision_recall_curve(
            y_true, y_score, recall_levels=[]
        )


def test_interpolated_display_on_digits_is_mrr_at_every_level():
    """One relevant class per image: the interpolated precision at every level
    is the reciprocal rank of the true class, so the curve is flat at MRR."""
    X, y = load_digits(return_X_y=True)
    model = LinearDiscriminantAnalysis().fit(X[:1000], y[:1000])
    display = sklearn_rankk.InterpolatedPrecisionRecallDisplay.from_estimator(
        model, X[1000:], y[1000:]
    )
    mrr = sklearn_rankk.mrr_at_k_score(y[1000:], model.predict_proba(X[1000:]), k=None)
    np.testing.assert_allclose(display.precision, mrr, rtol=1e-12)
    np.testing.assert_allclose(display.line_.get_xdata(), np.linspace(0, 1, 11))
    legend = [t.get_text() for t in display.ax_.get_legend().get_texts()]
    assert legend == [f"LinearDiscriminantAnalysis (11-point average = {mrr:.3f})"]
    assert display.ax_.get_xlabel() == "Recall level"
    with pytest.raises(ValueError, match="1-D arrays of one shape"):
        sklearn_rankk.InterpolatedPrecisionRecallDisplay(
            precision=[1.0, 0.5], recall=[0.0]
        ).plot()
