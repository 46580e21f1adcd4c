"""Statistics over per-row metric values, against independent computations.

Expected numbers come from: per-row metric values computed here by brute
force (numpy top-k for precision, scikit-learn's ``ndcg_score`` row by row),
passed to scipy.stats directly; exact bootstrap distributions by enumerating
all ``n**n`` resamples of tiny samples (percentile and BCa from Efron's
formulas); exact sign-flip p-values by enumerating all ``2**n`` sign vectors
(and scipy's ``permutation_test``); Holm's step-down procedure run by hand;
the variance of P@k under random ranking by enumerating every permutation of
small rows, by Monte Carlo, by ``scipy.stats.hypergeom`` and by the seeds'
binomial formula ``rho (1 - rho) / k``.
"""

from __future__ import annotations

import inspect
import itertools
import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import ndcg_score

from sklearn_rankk import (
    get_scorer,
    make_ranking_scorer,
    map_at_k_score,
    num_threads,
    precision_at_k_score,
)
from sklearn_rankk._stats import (
    MetricInterval,
    ModelComparison,
    PairedTestResult,
    RandomBaselineResult,
    _correct,
    compare_models,
    confidence_interval,
    paired_test,
    precision_at_k_random_variance,
    random_baseline_test,
)

ALTERNATIVES = ["two-sided", "greater", "less"]


# ----------------------------------------------------------------------------
# Independent per-row values
# ----------------------------------------------------------------------------


def bf_precision(y_true, y_score, k):
    """P@k of tie-free rows: relevant items among the k highest scores, / k."""
    top = np.argsort(-y_score, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(y_true > 0, top, axis=1).sum(axis=1) / k


def bf_ndcg(y_true, y_score, k):
    """nDCG@k of every row, by scikit-learn."""
    return np.array(
        [ndcg_score(y_true[[i]], y_score[[i]], k=k) for i in range(len(y_true))]
    )


def column0(y_true, y_score, *, average=None):
    """A 'metric' whose per-row values are the first column of y_score.

    It lets a test choose the per-row values exactly.
    """
    assert average is None
    return np.asarray(y_score, dtype=np.float64)[:, 0]


def rows_with(values, n_items=3):
    """(y_true, y_score) whose column0 values are ``values``."""
    values = np.asarray(values, dtype=np.float64)
    y_score = np.column_stack([values] + [np.zeros_like(values)] * (n_items - 1))
    return np.ones_like(y_score, dtype=int), y_score


def make_data(seed=0, n=40, n_items=15, rate=0.3):
    """Random relevance with at least one relevant item per row; no ties."""
    rng = np.random.RandomState(seed)
    y_true = (rng.rand(n, n_items) < rate).astype(int)
    y_true[np.arange(n), rng.randint(n_items, size=n)] = 1
    y_a = y_true + rng.normal(scale=1.0, size=(n, n_items))
    y_b = y_true + rng.normal(scale=1.5, size=(n, n_items))
    y_c = rng.normal(size=(n, n_items))
    return y_true, y_a, y_b, y_c


# ----------------------------------------------------------------------------
# Exact bootstrap distributions by enumeration
# ----------------------------------------------------------------------------


def exact_bootstrap_means(x):
    """Every one of the n**n equally likely resample means, sorted."""
    n = len(x)
    idx = np.array(list(itertools.product(range(n), repeat=n)))
    return np.sort(np.round(x[idx].mean(axis=1), 12))


def exact_quantile(means, q, margin):
    """The atom holding quantile q, checking that Monte Carlo cannot miss it."""
    atoms, counts = np.unique(means, return_counts=True)
    cdf = np.cumsum(counts) / means.size
    i = int(np.searchsorted(cdf, q))
    below = cdf[i - 1] if i else 0.0
    assert below < q - margin and cdf[i] > q + margin, "pick other values"
    return atoms[i]


def exact_bca(x, confidence_level, margin):
    """Efron's BCa interval on the exact bootstrap distribution of the mean.

    z0 counts resamples equal to the estimate as half below (the mid-p,
    scipy's convention); the acceleration is the jackknife skewness.
    """
    means = exact_bootstrap_means(x)
    theta = round(float(np.mean(x)), 12)
    below = (np.sum(means < theta) + np.sum(means <= theta)) / (2 * means.size)
    z0 = stats.norm.ppf(below)
    jack = np.array([np.delete(x, i).mean() for i in range(len(x))])
    u = jack.mean() - jack
    a = np.sum(u**3) / (6 * np.sum(u**2) ** 1.5)
    alpha = (1 - confidence_level) / 2
    bounds = []
    for z in (stats.norm.ppf(alpha), stats.norm.ppf(1 - alpha)):
        level = stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
        bounds.append(exact_quantile(means, level, margin))
    return tuple(bounds)


def exact_sign_flip(d, alternative):
    """Exact p-value over all 2**n sign vectors."""
    d = np.asarray(d, dtype=np.float64)
    observed = d.mean()
    count = 0
    signs = list(itertools.product([1.0, -1.0], repeat=len(d)))
    for s in signs:
        stat = np.mean(np.array(s) * d)
        if alternative == "greater":
            count += stat >= observed - 1e-12
        elif alternative == "less":
            count += stat <= observed + 1e-12
        else:
            count += abs(stat) >= abs(observed) - 1e-12
    return count / len(signs)


# ----------------------------------------------------------------------------
# confidence_interval
# ----------------------------------------------------------------------------


def test_t_interval_matches_scipy_on_bruteforce_precision():
    y_true, y_a, _, _ = make_data()
    values = bf_precision(y_true, y_a, 5)
    res = confidence_interval(
        y_true, y_a, metric="precision@5", method="t", confidence_level=0.9
    )
    n = len(values)
    low, high = stats.t.interval(0.9, n - 1, loc=values.mean(), scale=stats.sem(values))
    assert isinstance(res, MetricInterval)
    assert res.mean == pytest.approx(values.mean(), abs=1e-15)
    assert (res.low, res.high) == pytest.approx((low, high), abs=1e-12)
    # The textbook formula, mean +- t quantile * sd / sqrt(n).
    half = stats.t.ppf(0.95, n - 1) * values.std(ddof=1) / math.sqrt(n)
    assert res.high - res.mean == pytest.approx(half, abs=1e-12)
    assert (res.method, res.n_samples, res.confidence_level) == ("t", n, 0.9)
    assert res.metric == "precision@5"


def test_bootstrap_is_bca_by_default():
    y_true, y_a, _, _ = make_data(n=30)
    default = confidence_interval(y_true, y_a, random_state=3)
    bca = confidence_interval(y_true, y_a, method="bca", random_state=3)
    assert (default.low, default.high) == (bca.low, bca.high)
    assert default.method == "bootstrap"


@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_bootstrap_interval_of_ndcg_is_close_to_t_and_reproducible(method):
    y_true, y_a, _, _ = make_data(n=60)
    values = bf_ndcg(y_true, y_a, 10)
    res = confidence_interval(
        y_true, y_a, metric="ndcg@10", method=method, random_state=0
    )
    assert res.mean == pytest.approx(values.mean(), abs=1e-12)
    assert res.low < res.mean < res.high
    # For 60 rows the bootstrap and t intervals are close: the half-widths
    # agree to within 25%.
    t_half = stats.t.ppf(0.975, 59) * stats.sem(values)
    assert (res.high - res.low) / 2 == pytest.approx(t_half, rel=0.25)
    again = confidence_interval(
        y_true, y_a, metric="ndcg@10", method=method, random_state=0
    )
    assert again == res
    # A RandomState instance seeded alike gives the same stream; another
    # seed another interval.
    same = confidence_interval(
        y_true, y_a, metric="ndcg@10", method=method,
        random_state=np.random.RandomState(0),
    )  # fmt: skip
    assert same == res
    other = confidence_interval(
        y_true, y_a, metric="ndcg@10", method=method, random_state=1
    )
    assert other.low != res.low or other.high != res.high


# Five per-row values whose exact bootstrap quantiles lie well inside atoms.
TINY = np.array([0.05, 0.29, 0.48, 0.72, 0.91])


def test_percentile_bootstrap_converges_to_exact_enumeration():
    means = exact_bootstrap_means(TINY)
    expected = (
        exact_quantile(means, 0.05, 0.003),
        exact_quantile(means, 0.95, 0.003),
    )
    y_true, y_score = rows_with(TINY)
    res = confidence_interval(
        y_true,
        y_score,
        metric=column0,
        method="percentile",
        confidence_level=0.9,
        n_resamples=200_000,
        random_state=1,
    )
    assert (res.low, res.high) == pytest.approx(expected, abs=1e-9)


# Skewed values, for which BCa and percentile intervals differ.
SKEWED = np.array([0.0, 0.39, 0.42, 0.63, 0.84])


def test_bca_bootstrap_converges_to_exact_enumeration():
    expected = exact_bca(SKEWED, 0.9, margin=0.003)
    means = exact_bootstrap_means(SKEWED)
    percentile = (
        exact_quantile(means, 0.05, 0.003),
        exact_quantile(means, 0.95, 0.003),
    )
    assert expected[0] != percentile[0] and expected[1] != percentile[1]
    y_true, y_score = rows_with(SKEWED)
    res = confidence_interval(
        y_true,
        y_score,
        metric=column0,
        method="bca",
        confidence_level=0.9,
        n_resamples=200_000,
        random_state=2,
    )
    assert (res.low, res.high) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("method", ["bca", "percentile", "t"])
def test_constant_rows_give_a_point_interval(method):
    # A perfect ranking: nDCG is 1 on every row.
    y_true, _, _, _ = make_data(n=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = confidence_interval(y_true, y_true + 0.0, metric="ndcg@5", method=method)
    assert (res.mean, res.low, res.high) == (1.0, 1.0, 1.0)


def test_undefined_rows_follow_zero_division():
    y_true, y_a, _, _ = make_data(n=30)
    y_true[:4] = 0  # four rows with no relevant item
    hits = np.take_along_axis(y_true, np.argsort(-y_a, axis=1)[:, :5], axis=1).sum(
        axis=1
    )
    recall = hits / np.maximum(y_true.sum(axis=1), 1)
    res = confidence_interval(
        y_true, y_a, metric="recall@5", method="t", zero_division=np.nan
    )
    assert res.n_samples == 26
    assert res.mean == pytest.approx(recall[4:].mean(), abs=1e-15)
    with pytest.warns(UndefinedMetricWarning, match="4 of 30"):
        res = confidence_interval(y_true, y_a, metric="recall@5", method="t")
    assert res.n_samples == 30
    assert res.mean == pytest.approx(recall.mean(), abs=1e-15)  # zeros kept
    res = confidence_interval(
        y_true, y_a, metric="recall@5", method="t", zero_division=1.0
    )
    assert res.mean == pytest.approx((recall[4:].sum() + 4) / 30, abs=1e-15)


def test_metric_function_scorer_and_name_agree():
    y_true, y_a, _, _ = make_data()
    kwargs = dict(method="percentile", random_state=3, n_resamples=999)
    by_name = confidence_interval(
        y_true, y_a, metric="map@5", denominator="min", **kwargs
    )
    by_function = confidence_interval(
        y_true, y_a, metric=map_at_k_score, k=5, denominator="min", **kwargs
    )
    scorer = make_ranking_scorer(map_at_k_score, k=5, denominator="min")
    by_scorer = confidence_interval(y_true, y_a, metric=scorer, **kwargs)
    direct = map_at_k_score(y_true, y_a, k=5, denominator="min")
    for res in (by_name, by_function, by_scorer):
        assert res.mean == pytest.approx(direct, abs=1e-15)
        assert (res.low, res.high) == (by_name.low, by_name.high)
    assert by_name.metric == "map@5(denominator='min')"
    assert by_function.metric == "map_at_k_score(k=5, denominator='min')"
    assert by_scorer.metric == repr(scorer)


def test_user_metric_function_gets_its_keywords():
    y_true, y_a, _, _ = make_data()

    def top_k_hits(y_true, y_score, *, k=3, average="mean"):
        assert average is None
        return bf_precision(y_true, y_score, k) * k

    res = confidence_interval(y_true, y_a, metric=top_k_hits, k=4, method="t")
    values = bf_precision(y_true, y_a, 4) * 4
    assert res.mean == pytest.approx(values.mean())
    assert res.metric == "top_k_hits(k=4)"


def test_multiclass_labels_pass_through():
    y = np.array(["b", "a", "c", "b", "a", "c"])
    y_score = np.array(
        [[0.1, 0.8, 0.1], [0.6, 0.3, 0.1], [0.5, 0.2, 0.3],
         [0.2, 0.5, 0.3], [0.1, 0.2, 0.7], [0.3, 0.3, 0.4]]
    )  # fmt: skip
    # hit@1 per row: 1, 1, 0, 1, 0, 1
    res = confidence_interval(
        y, y_score, metric="hit@1", method="t", labels=["a", "b", "c"]
    )
    assert res.mean == pytest.approx(4 / 6)
    assert res.n_samples == 6


def test_confidence_interval_errors():
    y_true, y_a, _, _ = make_data(n=5)
    with pytest.raises(ValueError, match="method must be one of"):
        confidence_interval(y_true, y_a, method="BCa")
    for level in (0, 1, 1.5, -0.1):
        with pytest.raises(ValueError, match="confidence_level must be strictly"):
            confidence_interval(y_true, y_a, confidence_level=level)
    with pytest.raises(TypeError, match="confidence_level must be a real"):
        confidence_interval(y_true, y_a, confidence_level="0.9")
    with pytest.raises(ValueError, match="n_resamples must be an integer >= 1"):
        confidence_interval(y_true, y_a, n_resamples=0)
    with pytest.raises(TypeError, match="n_resamples must be an integer"):
        confidence_interval(y_true, y_a, n_resamples=99.0)
    with pytest.raises(ValueError, match="Unknown scorer name 'ndgc@10'"):
        confidence_interval(y_true, y_a, metric="ndgc@10")
    with pytest.raises(TypeError, match="metric must be a scorer name"):
        confidence_interval(y_true, y_a, metric=5)
    with pytest.raises(TypeError, match="sample_weight"):
        confidence_interval(y_true, y_a, sample_weight=np.ones(5))
    with pytest.raises(TypeError, match="sample_weight"):
        confidence_interval(y_true, y_a, metric=map_at_k_score, sample_weight=None)
    with pytest.raises(TypeError, match="average"):
        confidence_interval(y_true, y_a, metric=map_at_k_score, average=None)
    with pytest.raises(TypeError, match="Unexpected keyword argument 'k'"):
        confidence_interval(y_true, y_a, metric="map@5", k=3)
    with pytest.raises(ValueError, match="one metric"):
        confidence_interval(y_true, y_a, metric=get_scorer(["map@5", "hit@1"]))
    with pytest.raises(TypeError, match="carries its own options"):
        confidence_interval(y_true, y_a, metric=get_scorer("map@5"), gain="linear")
    with pytest.raises(ValueError, match="At least 2 rows"):
        confidence_interval(y_true[:1], y_a[:1], method="t")
    with pytest.raises(ValueError, match="At least 2 rows"):
        confidence_interval(
            np.zeros_like(y_true), y_a, metric="recall@3", zero_division=np.nan
        )

    def two_d(y_true, y_score, *, average=None):
        return np.asarray(y_score)

    with pytest.raises(ValueError, match="one value per row"):
        confidence_interval(y_true, y_a, metric=two_d)


# ----------------------------------------------------------------------------
# paired_test
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_paired_t_matches_scipy(alternative):
    y_true, y_a, y_b, _ = make_data()
    a, b = bf_ndcg(y_true, y_a, 10), bf_ndcg(y_true, y_b, 10)
    res = paired_test(
        y_true, y_a, y_b, metric="ndcg@10", alternative=alternative,
        confidence_level=0.9,
    )  # fmt: skip
    ref = stats.ttest_rel(a, b, alternative=alternative)
    ci = ref.confidence_interval(0.9)
    d = a - b
    assert isinstance(res, PairedTestResult)
    assert (res.mean_a, res.mean_b) == pytest.approx((a.mean(), b.mean()), abs=1e-12)
    assert res.difference == pytest.approx(d.mean(), abs=1e-12)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-9)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    assert res.confidence_interval == pytest.approx((ci.low, ci.high), rel=1e-9)
    # Named like scipy's ConfidenceInterval: low and high.
    assert res.confidence_interval.low == pytest.approx(ci.low, rel=1e-9)
    assert res.confidence_interval.high == pytest.approx(ci.high, rel=1e-9)
    assert res.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-9)
    assert res.effect_size_name == "cohen_dz"
    assert (res.method, res.alternative, res.n_samples) == ("t", alternative, 40)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_wilcoxon_matches_scipy_and_walsh_count(alternative):
    y_true, y_a, y_b, _ = make_data(n=30)
    a, b = bf_ndcg(y_true, y_a, 10), bf_ndcg(y_true, y_b, 10)
    d = a - b
    d = d[d != 0]  # dropped by the test (zero_method="wilcox")
    assert len(d) >= 20 and len(np.unique(np.abs(d))) == len(d)
    res = paired_test(
        y_true, y_a, y_b, metric="ndcg@10", method="wilcoxon",
        alternative=alternative, random_state=0, n_resamples=999,
    )  # fmt: skip
    ref = stats.wilcoxon(a, b, alternative=alternative)
    assert res.statistic == ref.statistic
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    # Rank-biserial from the Walsh averages: T+ = #{i <= j : d_i + d_j > 0}.
    n = len(d)
    t_plus = sum(d[i] + d[j] > 0 for i in range(n) for j in range(i, n))
    assert res.effect_size == pytest.approx(4 * t_plus / (n * (n + 1)) - 1)
    assert res.effect_size_name == "rank_biserial"


def test_rank_biserial_hand_example_with_zeros():
    # Non-zero differences 0.5, -0.2, 0.3: ranks 3, 1, 2 -> (5 - 1) / 6.
    y_true, y_a = rows_with([0.5, 0.2, 0.6, 0.4])
    _, y_b = rows_with([0.5, -0.3, 0.8, 0.1])
    res = paired_test(
        y_true, y_a, y_b, metric=column0, method="wilcoxon", n_resamples=99
    )
    assert res.effect_size == pytest.approx(4 / 6)
    assert res.n_samples == 4


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_randomization_exact_matches_enumeration_and_scipy(alternative):
    y_true, y_a, y_b, _ = make_data(n=8)
    a, b = bf_ndcg(y_true, y_a, 5), bf_ndcg(y_true, y_b, 5)
    res = paired_test(
        y_true, y_a, y_b, metric="ndcg@5", method="randomization",
        alternative=alternative, random_state=0,
    )  # fmt: skip
    expected = exact_sign_flip(a - b, alternative)
    assert res.pvalue == pytest.approx(expected, abs=1e-15)
    ref = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        alternative=alternative,
        n_resamples=np.inf,
        vectorized=True,
    )
    assert res.pvalue == pytest.approx(ref.pvalue, abs=1e-12)
    assert res.statistic == pytest.approx((a - b).mean(), abs=1e-15)
    assert res.effect_size == pytest.approx(
        (a - b).mean() / (a - b).std(ddof=1), rel=1e-12
    )


def test_randomization_exact_over_several_batches():
    # 2**18 sign vectors are enumerated in more than one batch.
    rng = np.random.RandomState(3)
    d = rng.normal(loc=0.3, size=18)
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=18)))
    perm = signs @ d / 18
    expected = np.mean(np.abs(perm) >= abs(d.mean()) - 1e-12)
    y_true, y_a = rows_with(d)
    _, y_b = rows_with(np.zeros(18))
    res = paired_test(
        y_true, y_a, y_b, metric=column0, method="randomization",
        n_resamples=2**18,
    )  # fmt: skip
    assert res.pvalue == expected
    assert 0.001 < expected < 0.5  # a p-value that many flips contribute to


def test_randomization_with_ties_among_sign_flips():
    # Differences 0.1, 0.2, 0.3: the flips (+, +, -) and (-, -, +) give mean
    # 0 exactly but 0.1 + 0.2 - 0.3 is not 0 in floating point.
    y_true, y_a = rows_with([0.1, 0.2, 0.3, 0.3])
    _, y_b = rows_with([0.0, 0.0, 0.0, 0.0])
    for alternative in ALTERNATIVES:
        res = paired_test(
            y_true, y_a, y_b, metric=column0, method="randomization",
            alternative=alternative, n_resamples=99,
        )  # fmt: skip
        d = [0.1, 0.2, 0.3, 0.3]
        assert res.pvalue == exact_sign_flip(d, alternative)
    # Observed mean 0.225 reached only by all-plus: one flip of 16 each way.
    assert res.pvalue == 1.0  # "less"


def test_randomization_sampled_plus_one_correction():
    rng = np.random.RandomState(5)
    d = rng.normal(loc=0.15, size=16)
    y_true, y_a = rows_with(d)
    _, y_b = rows_with(np.zeros(16))
    exact = exact_sign_flip(d, "two-sided")
    res = paired_test(
        y_true, y_a, y_b, metric=column0, method="randomization",
        n_resamples=9999, random_state=0,
    )  # fmt: skip
    count = res.pvalue * 10000 - 1
    assert count == pytest.approx(round(count), abs=1e-6)  # (1 + count) / 10000
    sd = math.sqrt(exact * (1 - exact) / 9999)
    assert abs(res.pvalue - exact) < 5 * sd + 1e-4
    # Every difference positive: no flip but all-plus is as extreme (p exact
    # is 2 / 2**20), so the sampled p-value is the +1 floor 1 / (1 + B).
    d = np.arange(1, 21) / 20
    y_true, y_a = rows_with(d)
    _, y_b = rows_with(np.zeros(20))
    res = paired_test(
        y_true, y_a, y_b, metric=column0, method="randomization",
        n_resamples=999, random_state=0,
    )  # fmt: skip
    assert res.pvalue == 1 / 1000


def test_randomization_is_reproducible():
    y_true, y_a, y_b, _ = make_data(n=30)
    kw = dict(metric="precision@5", method="randomization", n_resamples=500)
    r1 = paired_test(y_true, y_a, y_b, random_state=7, **kw)
    r2 = paired_test(y_true, y_a, y_b, random_state=7, **kw)
    r3 = paired_test(y_true, y_a, y_b, random_state=np.random.RandomState(7), **kw)
    assert r1 == r2
    assert r3.difference == r1.difference


@pytest.mark.parametrize("method", ["wilcoxon", "randomization"])
def test_difference_interval_is_the_percentile_bootstrap(method):
    d = TINY - 0.4
    means = exact_bootstrap_means(d)
    expected = (exact_quantile(means, 0.05, 0.003), exact_quantile(means, 0.95, 0.003))
    y_true, y_a = rows_with(TINY)
    _, y_b = rows_with(np.full(5, 0.4))
    res = paired_test(
        y_true, y_a, y_b, metric=column0, method=method, confidence_level=0.9,
        n_resamples=200_000, random_state=4,
    )  # fmt: skip
    assert res.confidence_interval == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("method", ["t", "wilcoxon", "randomization"])
def test_identical_models_give_pvalue_one(method):
    y_true, y_a, _, _ = make_data(n=12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = paired_test(y_true, y_a, y_a.copy(), metric="ndcg@5", method=method)
    assert (res.difference, res.statistic, res.pvalue) == (0.0, 0.0, 1.0)
    assert res.effect_size == 0.0
    assert res.confidence_interval == (0.0, 0.0)
    res = paired_test(y_true, y_a, y_a, metric="ndcg@5", alternative="greater")
    assert (res.pvalue, res.confidence_interval) == (1.0, (0.0, np.inf))


def test_constant_nonzero_difference():
    # hit@1: model a always hits, model b never (one relevant item per row).
    y_true = np.eye(6, dtype=int)
    good, bad = np.eye(6), 1 - np.eye(6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = paired_test(y_true, good, bad, metric="hit@1")
        assert (res.statistic, res.pvalue, res.effect_size) == (np.inf, 0.0, np.inf)
        assert res.confidence_interval == (1.0, 1.0)
        res = paired_test(y_true, good, bad, metric="hit@1", alternative="less")
        assert res.pvalue == 1.0
        assert res.confidence_interval == (-np.inf, 1.0)  # one-sided, as scipy
        res = paired_test(y_true, bad, good, metric="hit@1", alternative="less")
        assert (res.statistic, res.pvalue) == (-np.inf, 0.0)
        res = paired_test(
            y_true, good, bad, metric="hit@1", method="randomization",
            alternative="greater", n_resamples=99,
        )  # fmt: skip
        assert res.confidence_interval == (1.0, np.inf)
        res = paired_test(y_true, good, bad, metric="hit@1", method="wilcoxon")
        assert res.pvalue == stats.wilcoxon(np.ones(6)).pvalue
        assert res.effect_size == 1.0
        res = paired_test(y_true, good, bad, metric="hit@1", method="randomization")
    assert res.pvalue == 2 / 64  # all-plus and all-minus


def test_paired_drops_rows_undefined_for_either_model():
    y_true, y_a, y_b, _ = make_data(n=20)
    y_true[[2, 7]] = 0
    res = paired_test(
        y_true, y_a, y_b, metric="recall@5", zero_division=np.nan, method="t"
    )
    keep = y_true.sum(axis=1) > 0
    pa = bf_precision(y_true, y_a, 5) * 5 / np.maximum(y_true.sum(axis=1), 1)
    pb = bf_precision(y_true, y_b, 5) * 5 / np.maximum(y_true.sum(axis=1), 1)
    ref = stats.ttest_rel(pa[keep], pb[keep])
    assert res.n_samples == 18
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    # A user metric that is undefined on different rows for each model.
    values_a = np.array([0.1, np.nan, 0.4, 0.5, 0.9])
    values_b = np.array([0.2, 0.3, np.nan, 0.1, 0.3])
    y_true, y_a = rows_with(values_a)
    _, y_b = rows_with(values_b)
    res = paired_test(y_true, y_a, y_b, metric=column0)
    keep = [0, 3, 4]
    ref = stats.ttest_rel(values_a[keep], values_b[keep])
    assert res.n_samples == 3
    assert res.mean_a == pytest.approx(values_a[keep].mean())
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_paired_test_errors():
    y_true, y_a, y_b, _ = make_data(n=6)
    with pytest.raises(ValueError, match="y_score_a and y_score_b must have the"):
        paired_test(y_true, y_a, y_b[:, :-1])
    with pytest.raises(ValueError, match="y_score_a and y_score_b must have the"):
        paired_test(y_true, y_a, y_b[:-1])
    with pytest.raises(ValueError, match="method must be one of"):
        paired_test(y_true, y_a, y_b, method="mannwhitney")
    with pytest.raises(ValueError, match="alternative must be one of"):
        paired_test(y_true, y_a, y_b, alternative="two_sided")
    with pytest.raises(ValueError, match="confidence_level"):
        paired_test(y_true, y_a, y_b, confidence_level=95)
    with pytest.raises(ValueError, match="At least 2 rows"):
        paired_test(y_true[:1], y_a[:1], y_b[:1])
    with pytest.raises(TypeError, match="sample_weight"):
        paired_test(y_true, y_a, y_b, sample_weight=np.ones(6))
    with pytest.raises(ValueError, match="y_true and y_score must have the same"):
        paired_test(y_true[:, :-1], y_a, y_b)


# ----------------------------------------------------------------------------
# compare_models and the Holm correction
# ----------------------------------------------------------------------------


def holm_by_hand(pvalues):
    """Adjusted p: the smallest alpha at which Holm's procedure rejects.

    Runs the step-down procedure (reject p_(i) while p_(i) <= alpha / (m - i))
    at every candidate alpha (the values (m - i) p_(i), and 1).
    """
    p = np.asarray(pvalues)
    m = len(p)
    candidates = sorted({min(1.0, (m - i) * q) for i, q in enumerate(np.sort(p))})
    adjusted = np.ones(m)
    for alpha in reversed(candidates + [1.0]):
        rejected = set()
        for i, j in enumerate(np.argsort(p, kind="stable")):
            if p[j] <= alpha / (m - i) * (1 + 1e-12):
                rejected.add(j)
            else:
                break
        for j in rejected:
            adjusted[j] = min(adjusted[j], alpha)
    return adjusted


def test_holm_hand_worked_example():
    # Sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 ->
    # monotone 0.06.
    p = [0.01, 0.04, 0.03, 0.005]
    assert _correct(p, "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm_by_hand(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert _correct([0.3, 0.5], "holm") == pytest.approx([0.6, 0.6])
    assert _correct([0.6, 0.9, 0.7], "holm") == pytest.approx([1.0, 1.0, 1.0])
    assert _correct(p, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])
    assert _correct(p, None) == pytest.approx(p)


def test_holm_matches_the_step_down_procedure_on_random_pvalues():
    rng = np.random.RandomState(0)
    for _ in range(50):
        p = rng.uniform(0, 0.2, size=rng.randint(1, 8)) ** 2
        assert _correct(p, "holm") == pytest.approx(holm_by_hand(p), rel=1e-9)


@pytest.mark.parametrize("correction", ["holm", "bonferroni", None])
def test_compare_models_matches_pairwise_scipy(correction):
    y_true, y_a, y_b, y_c = make_data(n=25)
    scores = {"a": y_a, "b": y_b, "c": y_c}
    values = {name: bf_precision(y_true, s, 5) for name, s in scores.items()}
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    raw = [stats.ttest_rel(values[a], values[b]).pvalue for a, b in pairs]
    if correction == "holm":
        expected = holm_by_hand(raw)
    elif correction == "bonferroni":
        expected = np.minimum(1, 3 * np.array(raw))
    else:
        expected = np.array(raw)
    # An alpha just above the middle corrected p-value: two pairs are
    # rejected, one is not.
    low, middle, high = np.sort(expected)
    alpha = middle * (1 + 1e-6)
    assert alpha < high
    res = compare_models(
        y_true, scores, metric="precision@5", correction=correction, alpha=alpha
    )
    assert isinstance(res, ModelComparison)
    assert list(res.tests) == pairs
    for (a, b), p in zip(pairs, raw):
        assert res[a, b].pvalue == pytest.approx(p, rel=1e-9)
        assert res[a, b].mean_a == pytest.approx(values[a].mean())
    corrected = [res.pvalues_corrected[p] for p in pairs]
    assert corrected == pytest.approx(list(expected), rel=1e-9)
    assert [res.reject[p] for p in pairs] == list(expected <= alpha)
    assert res.means == pytest.approx({k: v.mean() for k, v in values.items()})
    assert (res.correction, res.alpha, res.method) == (correction, alpha, "t")


def test_compare_models_table_dict_and_frame():
    pd = pytest.importorskip("pandas")
    y_true, y_a, y_b, y_c = make_data(n=25)
    res = compare_models(
        y_true,
        {"bm25": y_a, "dense": y_b, "random": y_c},
        metric="ndcg@5",
        method="randomization",
        n_resamples=199,
        random_state=0,
    )
    table = res.to_dict()
    assert table["model_a"] == ["bm25", "bm25", "dense"]
    assert table["model_b"] == ["dense", "random", "random"]
    assert all(len(column) == 3 for column in table.values())
    assert table["pvalue"][1] == res["bm25", "random"].pvalue
    assert (table["low"][0], table["high"][0]) == res[
        "bm25", "dense"
    ].confidence_interval
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert frame.shape == (3, len(table))
    assert list(frame.columns) == list(table)
    text = str(res)
    assert text == repr(res)
    assert text.startswith("ndcg@5: sign-flip randomization test, correction=holm")
    for name in ("bm25", "dense", "random", "p (holm)", "95% interval"):
        assert name in text
    # The randomization of every pair is seeded by random_state.
    again = compare_models(
        y_true,
        {"bm25": y_a, "dense": y_b, "random": y_c},
        metric="ndcg@5",
        method="randomization",
        n_resamples=199,
        random_state=0,
    )
    assert again.to_dict() == table


def test_compare_models_errors():
    y_true, y_a, y_b, _ = make_data(n=6)
    with pytest.raises(ValueError, match="at least 2 models"):
        compare_models(y_true, {"a": y_a})
    with pytest.raises(TypeError, match="y_scores must be a dict"):
        compare_models(y_true, [y_a, y_b])
    with pytest.raises(ValueError, match="same shape"):
        compare_models(y_true, {"a": y_a, "b": y_b[:, :-1]})
    with pytest.raises(ValueError, match="correction must be one of"):
        compare_models(y_true, {"a": y_a, "b": y_b}, correction="fdr_bh")
    with pytest.raises(ValueError, match="alpha must be strictly between"):
        compare_models(y_true, {"a": y_a, "b": y_b}, alpha=1.0)
    with pytest.raises(ValueError, match="method must be one of"):
        compare_models(y_true, {"a": y_a, "b": y_b}, method="anova")


# ----------------------------------------------------------------------------
# Precision@k under a random ranking
# ----------------------------------------------------------------------------


def permutation_moments(rel, k):
    """Mean and variance of P@k over every ordering of a row's items."""
    values = [sum(order[:k]) / k for order in itertools.permutations(rel)]
    return np.mean(values), np.var(values)


@pytest.mark.parametrize(
    ("rel", "k"),
    [
        ([1, 1, 0, 0, 0, 0], 3),
        ([1, 0, 0, 0, 0, 0, 0], 2),
        ([1, 1, 1, 0, 0, 0, 0], 5),
        ([1, 1, 0, 0, 0], 7),  # k > N: deterministic
        ([0, 0, 0, 0], 2),
        ([1, 1, 1], 2),
        ([1, 0, 1, 0, 0, 1, 0], 1),
    ],
)
def test_hypergeometric_variance_matches_all_permutations(rel, k):
    y_true = np.array([rel])
    y_score = np.zeros((1, len(rel)))
    mean, var = permutation_moments(rel, k)
    got = precision_at_k_random_variance(y_true, y_score, k=k)
    assert got == pytest.approx([var], abs=1e-15)
    n, r = len(rel), sum(rel)
    m = min(k, n)
    if 0 < r < n and m < n:  # scipy's hypergeom divides by zero otherwise
        assert got[0] == pytest.approx(stats.hypergeom(n, r, m).var() / k**2)
    else:
        assert got[0] == 0.0
    res = random_baseline_test(y_true, y_score, k=k)
    assert res.expected == pytest.approx(mean, abs=1e-15)


def test_unretrieved_items_stay_out_of_the_random_ranking():
    # Retrieved: columns 0-4 (two relevant); columns 5-6 are -inf.
    y_true = np.array([[1, 0, 1, 0, 0, 1, 1]])
    y_score = np.array([[0.5, 0.4, 0.3, 0.2, 0.1, -np.inf, -np.inf]])
    mean, var = permutation_moments([1, 0, 1, 0, 0], 3)
    got = precision_at_k_random_variance(y_true, y_score, k=3)
    assert got == pytest.approx([var], abs=1e-15)
    assert random_baseline_test(y_true, y_score, k=3).expected == pytest.approx(mean)
    # Sparse y_score (implicit zeros are scores 0, retrieved) and sparse y_true.
    dense_score = np.array([[0.0, 0.4, 0.0, -np.inf, 0.1, 0.0, -np.inf]])
    y_true2 = np.array([[1, 0, 1, 1, 0, 1, 0]])
    expected = permutation_moments([1, 0, 1, 0, 1], 2)[1]
    for yt, ys in [
        (y_true2, dense_score),
        (sp.csr_matrix(y_true2), sp.csr_matrix(dense_score)),
    ]:
        got = precision_at_k_random_variance(yt, ys, k=2)
        assert got == pytest.approx([expected], abs=1e-15)


def test_variance_matches_monte_carlo():
    rng = np.random.RandomState(0)
    rel = np.zeros(30, dtype=int)
    rel[:7] = 1
    draws = np.array([rel[rng.permutation(30)[:10]].sum() / 10 for _ in range(20000)])
    got = precision_at_k_random_variance(rel[None], np.zeros((1, 30)), k=10)[0]
    # The sample variance of 20000 draws is within 4% of the truth (about 4 sd).
    assert draws.var() == pytest.approx(got, rel=0.04)
    assert draws.mean() == pytest.approx(7 / 30, abs=0.005)


def test_binomial_variance_is_the_seeds_formula():
    # Seeds: E[P@k] = rho = |R| / N and Var[P@k] = rho (1 - rho) / k.
    y_true = np.zeros((3, 20), dtype=int)
    y_true[0, :5] = 1  # rho = 0.25
    y_true[1, :2] = 1  # rho = 0.1
    y_true[2, :10] = 1  # rho = 0.5
    rho = np.array([0.25, 0.1, 0.5])
    y_score = np.zeros((3, 20))
    for k in (1, 5, 10):
        binomial = precision_at_k_random_variance(
            y_true, y_score, k=k, distribution="binomial"
        )
        assert binomial == pytest.approx(rho * (1 - rho) / k, abs=1e-15)
        exact = precision_at_k_random_variance(y_true, y_score, k=k)
        # Without replacement: the finite-population factor (N - k) / (N - 1).
        assert exact == pytest.approx(binomial * (20 - k) / 19, abs=1e-15)
        res = random_baseline_test(y_true, y_score, k=k)
        assert res.expected == pytest.approx(rho.mean(), abs=1e-15)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("distribution", ["hypergeometric", "binomial"])
def test_random_baseline_test_by_hand(alternative, distribution):
    y_true, y_a, _, _ = make_data(n=40, n_items=15)
    k = 5
    observed = bf_precision(y_true, y_a, k)
    n_rel = y_true.sum(axis=1)
    rho = n_rel / 15
    var = rho * (1 - rho) / k
    if distribution == "hypergeometric":
        var = var * (15 - k) / 14
    z = (observed.mean() - rho.mean()) / math.sqrt(var.sum() / 40**2)
    p = {
        "greater": stats.norm.sf(z),
        "less": stats.norm.cdf(z),
        "two-sided": 2 * stats.norm.sf(abs(z)),
    }[alternative]
    res = random_baseline_test(
        y_true, y_a, k=k, alternative=alternative, distribution=distribution
    )
    assert isinstance(res, RandomBaselineResult)
    assert res.mean == pytest.approx(observed.mean(), abs=1e-15)
    assert res.expected == pytest.approx(rho.mean(), abs=1e-15)
    assert res.variance == pytest.approx(var.sum() / 1600, rel=1e-12)
    assert res.statistic == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(p, rel=1e-9, abs=1e-300)
    assert (res.n_samples, res.metric) == (40, "precision@5")


def test_random_baseline_z_is_standard_normal_under_random_scores():
    # Random scores satisfy the null: z has mean 0 and variance 1 (the
    # binomial variance, too large, would give a variance near 15 / 19).
    rng = np.random.RandomState(0)
    z = []
    with num_threads(1):  # tiny inputs: spare the thread start-up
        for _ in range(200):
            y_true = rng.rand(40, 20) < 0.2
            z.append(random_baseline_test(y_true, rng.rand(40, 20), k=5).statistic)
    # sd of the mean of 200 draws: 0.07; of their variance: about 0.1.
    assert abs(np.mean(z)) < 0.25
    assert 0.7 < np.var(z) < 1.3


def test_random_baseline_without_variance():
    # k >= N on every row: every ranking gives the same precision.
    y_true, y_a, _, _ = make_data(n=10, n_items=4)
    res = random_baseline_test(y_true, y_a, k=4)
    assert (res.variance, res.statistic, res.pvalue) == (0.0, 0.0, 1.0)
    assert res.mean == pytest.approx(res.expected)


def test_random_baseline_errors():
    y_true, y_a, _, _ = make_data(n=5)
    with pytest.raises(ValueError, match="distribution must be one of"):
        random_baseline_test(y_true, y_a, distribution="poisson")
    with pytest.raises(ValueError, match="alternative must be one of"):
        random_baseline_test(y_true, y_a, alternative="better")
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        precision_at_k_random_variance(y_true, y_a, k=0)
    with pytest.raises(TypeError, match="k must be an integer"):
        random_baseline_test(y_true, y_a, k=2.0)
    with pytest.raises(ValueError, match="k=None"):
        random_baseline_test(y_true, y_a, k=None)
    with pytest.raises(ValueError, match="y_score contains NaN"):
        random_baseline_test(y_true, np.full(y_a.shape, np.nan))


def test_precision_engine_agrees_with_bruteforce_helper():
    # Guards the independent helper used throughout this module.
    y_true, y_a, _, _ = make_data()
    assert precision_at_k_score(y_true, y_a, k=5, average=None) == pytest.approx(
        bf_precision(y_true, y_a, 5), abs=1e-15
    )


# scipy >= 1.15 names the generator ``rng``; older versions ``random_state``.
RNG = (
    "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"
)


@pytest.mark.parametrize("n", [7, 60, 400])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_bca_equals_scipy_from_the_same_resamples(n, level):
    """The closed-form jackknife of the mean gives scipy's own BCa interval
    (scipy's jackknife is O(n**2); ours O(n))."""
    from sklearn_rankk._stats import _bca_of_mean

    values = np.random.default_rng(n).gamma(0.7, size=n)  # skewed
    res = stats.bootstrap(
        (values,),
        np.mean,
        method="BCa",
        confidence_level=level,
        n_resamples=2000,
        **{RNG: np.random.default_rng(1)},
    )
    low, high = _bca_of_mean(values, res.bootstrap_distribution, level, "two-sided")
    assert low == pytest.approx(res.confidence_interval.low, rel=1e-12)
    assert high == pytest.approx(res.confidence_interval.high, rel=1e-12)


def test_bca_is_linear_in_the_number_of_rows():
    """100,000 rows would take scipy's jackknife minutes; here it is quick."""
    rng = np.random.default_rng(0)
    y_true = rng.random((100_000, 3)) < 0.5
    y_score = rng.random((100_000, 3))
    ci = confidence_interval(
        y_true, y_score, metric="hit@1", n_resamples=200, random_state=0
    )
    assert ci.low < ci.mean < ci.high
