"""Statistics over per-row metric values: intervals, paired tests, baselines.

A ranking metric is a mean over rows (queries, users), so its uncertainty and
the comparison of two models are questions about the per-row values. Every
function here takes those values from the engine (a scorer name through
the engine's ``row_values`` for a scorer name, or a metric function with
``average=None``) and hands them to :mod:`scipy.stats`:

* :func:`confidence_interval`: the interval of a metric's mean (bootstrap BCa
  or percentile, or Student t);
* :func:`paired_test`: two models scored on the same rows (paired t-test,
  Wilcoxon signed-rank, sign-flip randomization);
* :func:`compare_models`: every pair of several models, with Holm or
  Bonferroni correction, as a table;
* :func:`precision_at_k_random_variance` and :func:`random_baseline_test`:
  precision@k under a uniformly random ranking, and whether a model beats it.

Rows where the metric is undefined (no relevant item) follow
``zero_division`` as in the metric functions: ``"warn"`` counts them as 0.0
with a warning, ``np.nan`` leaves them out (``n_samples`` reports how many
rows were used). Sample weights are not supported: the t and rank tests have
no standard weighted form.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from inspect import signature
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy import special, stats
from sklearn.utils import check_random_state

from ._core import engine
from ._core.inputs import group_by_qid, random_ranking_scores
from ._core.ranking import iter_blocks
from ._core.registry import BY_FUNCTION_NAME, PRECISION_RECALL
from ._core.validation import check_k, check_option, check_real, check_y_score
from ._scorer import RankingScorer, get_scorer, row_values

__all__ = [
    "MetricInterval",
    "ModelComparison",
    "PairedTestResult",
    "RandomBaselineResult",
    "compare_models",
    "confidence_interval",
    "paired_test",
    "precision_at_k_random_variance",
    "random_baseline_test",
]

INTERVAL_METHODS = ("bootstrap", "bca", "percentile", "t")
TEST_METHODS = ("t", "wilcoxon", "randomization", "bootstrap")
ALTERNATIVES = ("two-sided", "greater", "less")
CORRECTIONS = ("holm", "bonferroni", "bh", "by", None)
#: The p-value adjustments of :func:`adjust_pvalues`: family-wise error
#: (Holm, Bonferroni) and false discovery rate (Benjamini-Hochberg,
#: Benjamini-Yekutieli).
ADJUSTMENTS = ("holm", "bonferroni", "bh", "by", None)
DISTRIBUTIONS = ("hypergeometric", "binomial")

# Resampled values held in memory at once (float64 elements).
_CHUNK = 2**22
# Permutation statistics closer than this (relative to the largest possible
# one) count as ties: the same sum computed in another order.
_RTOL = 1e-9


# ----------------------------------------------------------------------------
# Result objects
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricInterval:
    """The confidence interval of a metric's mean over rows.

    The result of :func:`confidence_interval`.

    Parameters
    ----------
    metric : str
        The metric, as given (``"ndcg@10"``) or the function's name and
        keywords.
    mean : float
        Mean of the metric over the rows used.
    low, high : float
        Bounds of the interval.
    confidence_level : float
        Its confidence level.
    method : {"bca", "percentile", "t"}
        How it was computed.
    n_samples : int
        Rows used (rows left out by ``zero_division=np.nan`` are not).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import confidence_interval
    >>> y_true = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]])
    >>> y_score = np.array([[3, 2, 1], [3, 2, 1], [1, 2, 3], [1, 2, 3]])
    >>> ci = confidence_interval(y_true, y_score, metric="hit@1", method="t")
    >>> ci.mean, ci.n_samples
    (0.5, 4)
    >>> round(ci.low, 4), round(ci.high, 4)
    (-0.4187, 1.4187)
    """

    metric: str
    mean: float
    low: float
    high: float
    confidence_level: float
    method: str
    n_samples: int


class ConfidenceInterval(NamedTuple):
    """Bounds of a confidence interval, as scipy's ``ConfidenceInterval``.

    Parameters
    ----------
    low : float
        Lower bound (``-inf`` for a one-sided "less" interval).
    high : float
        Upper bound (``inf`` for a one-sided "greater" interval).

    Examples
    --------
    >>> from sklearn_rankk._stats import ConfidenceInterval
    >>> interval = ConfidenceInterval(0.25, 0.75)
    >>> interval.low, interval.high
    (0.25, 0.75)
    >>> low, high = interval
    """

    low: float
    high: float


@dataclass(frozen=True)
class PairedTestResult:
    """Two models compared on the same rows; the result of :func:`paired_test`.

    Parameters
    ----------
    metric : str
        The metric compared.
    method : {"t", "wilcoxon", "randomization", "bootstrap"}
        The test.
    alternative : {"two-sided", "greater", "less"}
        The alternative hypothesis about ``mean_a - mean_b``.
    mean_a, mean_b : float
        Mean of the metric for each model over the rows used.
    difference : float
        ``mean_a - mean_b``.
    effect_size : float
        Cohen's d_z (mean difference over the standard deviation of the
        differences) for "t", "randomization" and "bootstrap"; the matched-pairs
        rank-biserial correlation for "wilcoxon".
    effect_size_name : {"cohen_dz", "rank_biserial"}
        Which of the two ``effect_size`` is.
    statistic : float
        The t statistic for "t"; scipy's Wilcoxon statistic for "wilcoxon"; the mean
        difference for "randomization" and "bootstrap".
    pvalue : float
        The p-value.
    confidence_interval : ConfidenceInterval
        ``(low, high)`` for the difference of means, a named tuple with
        ``low`` and ``high`` like scipy's ``ConfidenceInterval``: Student t
        for "t", a percentile bootstrap of the mean difference otherwise.
        One-sided alternatives give a one-sided interval, as in scipy.
    confidence_level : float
        Level of ``confidence_interval``.
    n_samples : int
        Rows used (rows undefined for either model under
        ``zero_division=np.nan`` are left out).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import paired_test
    >>> y_true = np.eye(4, dtype=int)  # one relevant item per row
    >>> y_score_a = np.eye(4)
    >>> y_score_a[3] = [1, 0, 0, 0]  # hit@1 per row: 1, 1, 1, 0
    >>> y_score_b = 1 - np.eye(4)
    >>> y_score_b[1] = [0, 1, 0, 0]  # hit@1 per row: 0, 1, 0, 0
    >>> res = paired_test(y_true, y_score_a, y_score_b, metric="hit@1")
    >>> res.mean_a, res.mean_b, res.difference
    (0.75, 0.25, 0.5)
    >>> round(res.statistic, 4), round(res.pvalue, 4), round(res.effect_size, 4)
    (1.7321, 0.1817, 0.866)
    >>> [round(bound, 4) for bound in res.confidence_interval]
    [-0.4187, 1.4187]
    >>> round(res.confidence_interval.low, 4)
    -0.4187
    """

    metric: str
    method: str
    alternative: str
    mean_a: float
    mean_b: float
    difference: float
    effect_size: float
    effect_size_name: str
    statistic: float
    pvalue: float
    confidence_interval: tuple
    confidence_level: float
    n_samples: int


_COLUMNS = (
    "model_a",
    "model_b",
    "mean_a",
    "mean_b",
    "difference",
    "low",
    "high",
    "effect_size",
    "statistic",
    "pvalue",
    "pvalue_corrected",
    "reject",
    "n_samples",
)


@dataclass(frozen=True, repr=False)
class ModelComparison:
    """Every pair of models compared; the result of :func:`compare_models`.

    Prints as a table; :meth:`to_dict` and :meth:`to_frame` convert it.
    ``comparison[a, b]`` is the :class:`PairedTestResult` of one pair.

    Parameters
    ----------
    metric : str
        The metric compared.
    method : {"t", "wilcoxon", "randomization", "bootstrap"}
        The paired test.
    correction : {"holm", "bonferroni", "bh", "by"} or None
        The multiple-testing correction of the p-values.
    alpha : float
        Family-wise error rate (false discovery rate with "bh" and "by"): a
        pair is rejected when its corrected p-value is at most ``alpha``.
    means : dict of str -> float
        Mean of the metric for each model over its defined rows.
    tests : dict of (str, str) -> PairedTestResult
        The test of each pair ``(a, b)``, about ``mean_a - mean_b``.
    pvalues_corrected : dict of (str, str) -> float
        Corrected p-value of each pair.
    reject : dict of (str, str) -> bool
        Whether ``pvalues_corrected <= alpha``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import compare_models
    >>> rng = np.random.RandomState(0)
    >>> y_true = rng.rand(30, 8) < 0.3
    >>> scores = {"oracle": y_true + rng.rand(30, 8), "noise": rng.rand(30, 8)}
    >>> comparison = compare_models(y_true, scores, metric="precision@3")
    >>> {name: round(mean, 3) for name, mean in comparison.means.items()}
    {'oracle': 0.744, 'noise': 0.278}
    >>> comparison["oracle", "noise"].pvalue < 1e-6
    True
    """

    metric: str
    method: str
    correction: str | None
    alpha: float
    means: dict
    tests: dict
    pvalues_corrected: dict
    reject: dict

    def __getitem__(self, pair):
        return self.tests[tuple(pair)]

    def to_dict(self):
        """The table as a dict of columns, one entry per pair.

        Returns
        -------
        table : dict of str -> list
            Columns ``model_a``, ``model_b``, ``mean_a``, ``mean_b``,
            ``difference``, ``low``, ``high`` (interval of the difference),
            ``effect_size``, ``statistic``, ``pvalue``, ``pvalue_corrected``,
            ``reject`` and ``n_samples``.
        """
        table = {name: [] for name in _COLUMNS}
        for (a, b), res in self.tests.items():
            low, high = res.confidence_interval
            row = {
                "model_a": a,
                "model_b": b,
                "low": low,
                "high": high,
                "pvalue_corrected": self.pvalues_corrected[a, b],
                "reject": self.reject[a, b],
            }
            for name in _COLUMNS:
                table[name].append(row[name] if name in row else getattr(res, name))
        return table

    def to_frame(self):
        """The table as a pandas DataFrame (pandas must be installed).

        Returns
        -------
        frame : pandas.DataFrame
            One row per pair, the columns of :meth:`to_dict`.
        """
        import pandas as pd

        return pd.DataFrame(self.to_dict())

    def to_string(self, *, digits=4):
        """The comparison as text: the means, then one line per pair.

        Parameters
        ----------
        digits : int, default=4
            Digits after the decimal point of means and differences
            (p-values show 3 significant digits).

        Returns
        -------
        text : str
            The table as text.
        """
        tests = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test"}
        test = tests.get(self.method, "sign-flip randomization test")
        fix = f".{digits}f"
        level = next(iter(self.tests.values())).confidence_level
        width = max(len("model"), *(len(str(m)) for m in self.means))
        lines = [
            f"{self.metric}: {test}, correction={self.correction}, "
            f"alpha={self.alpha:g}",
            "",
            f"{'model':<{width}}  mean",
            *(f"{str(m):<{width}}  {v:{fix}}" for m, v in self.means.items()),
            "",
        ]
        header = ["model_a", "model_b", "difference", f"{100 * level:g}% interval"]
        header += ["p-value"]
        if self.correction is not None:
            header += [f"p ({self.correction})"]
        header += ["reject", "n"]
        rows = []
        for (a, b), res in self.tests.items():
            low, high = res.confidence_interval
            row = [str(a), str(b), f"{res.difference:{fix}}"]
            row += [f"[{low:{fix}}, {high:{fix}}]", f"{res.pvalue:.3g}"]
            if self.correction is not None:
                row += [f"{self.pvalues_corrected[a, b]:.3g}"]
            row += ["yes" if self.reject[a, b] else "no", str(res.n_samples)]
            rows.append(row)
        widths = [max(len(h), *(len(r[j]) for r in rows)) for j, h in enumerate(header)]
        for row in [header, *rows]:
            cells = [
                c.ljust(w) if j < 2 else c.rjust(w)
                for j, (c, w) in enumerate(zip(row, widths))
            ]
            lines.append("  ".join(cells).rstrip())
        return "\n".join(lines)

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        return self.to_string()


@dataclass(frozen=True)
class RandomBaselineResult:
    """Precision@k against a random ranking; see :func:`random_baseline_test`.

    Parameters
    ----------
    metric : str
        ``"precision@<k>"``.
    mean : float
        Observed mean precision@k.
    expected : float
        Its expectation under a uniformly random ranking of each row's
        retrieved items.
    variance : float
        Variance of the mean under that null: the per-row variances summed,
        over ``n_samples ** 2``.
    statistic : float
        ``z = (mean - expected) / sqrt(variance)``.
    pvalue : float
        From the standard normal distribution of ``z`` (normal
        approximation over independent rows).
    alternative : {"greater", "two-sided", "less"}
        The alternative hypothesis about ``mean - expected``.
    distribution : {"hypergeometric", "binomial"}
        The per-row variance used.
    n_samples : int
        Rows.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import random_baseline_test
    >>> y_true = np.tile([1, 1, 0, 0, 0, 0, 0, 0, 0, 0], (50, 1))
    >>> y_score = np.tile(np.arange(10.0)[::-1], (50, 1))
    >>> res = random_baseline_test(y_true, y_score, k=2)
    >>> res.mean, round(res.expected, 4), round(res.statistic, 2)
    (1.0, 0.2, 21.21)
    """

    metric: str
    mean: float
    expected: float
    variance: float
    statistic: float
    pvalue: float
    alternative: str
    distribution: str
    n_samples: int


# ----------------------------------------------------------------------------
# Validation and per-row values
# ----------------------------------------------------------------------------


def _check_confidence_level(confidence_level):
    value = check_real(confidence_level, "confidence_level")
    if not 0 < value < 1:
        raise ValueError(
            f"confidence_level must be strictly between 0 and 1; got {value}."
        )
    return value


def _check_alpha(alpha):
    value = check_real(alpha, "alpha")
    if not 0 < value < 1:
        raise ValueError(f"alpha must be strictly between 0 and 1; got {value}.")
    return value


def _check_n_resamples(n_resamples):
    return check_k(n_resamples, allow_none=False, metric="", name="n_resamples")


def _format_kwargs(kwargs):
    return ", ".join(f"{k}={v!r}" for k, v in kwargs.items())


def _row_function(metric, metric_kwargs):
    """(label, function(y_true, y_score) -> per-row values with NaN kept)."""
    kwargs = dict(metric_kwargs)
    for name in ("sample_weight", "average"):
        if name in kwargs:
            why = (
                "sample weights are not supported by the statistics functions"
                if name == "sample_weight"
                else "the statistics functions always use the per-row values"
            )
            raise TypeError(f"Unexpected keyword argument {name!r}: {why}.")
    # Input options rather than metric options: passed to the rows, not
    # to get_scorer.
    inputs = {key: kwargs.pop(key) for key in ("labels", "qid") if key in kwargs}
    if isinstance(metric, RankingScorer):
        if kwargs:
            raise TypeError(
                f"A RankingScorer carries its own options; got metric keywords "
                f"{sorted(kwargs)}. Pass a scorer name or a metric function "
                f"with keywords instead."
            )
        if len(metric.metrics) != 1:
            raise ValueError(
                f"metric must be one metric; the scorer {metric!r} computes "
                f"{len(metric.metrics)}."
            )
    if isinstance(metric, (str, RankingScorer)):
        scorer = get_scorer(metric, **kwargs)
        requests, key = scorer.requests, scorer.keys[0]
        check_row_mean(requests[0].metric, key)
        if isinstance(metric, RankingScorer):
            label = repr(metric)
        else:
            label = f"{metric}({_format_kwargs(kwargs)})" if kwargs else metric

        def rows(y_true, y_score):
            values = row_values(requests, y_true, y_score, **scorer.options, **inputs)
            return engine.with_undefined(
                values, requests, scorer.zero_division, keys=[key]
            )[key]

        return label, rows
    if not callable(metric):
        raise TypeError(
            f"metric must be a scorer name such as 'ndcg@10', a metric function "
            f"such as map_at_k_score, or a RankingScorer; got {metric!r}."
        )
    name = getattr(metric, "__name__", repr(metric))
    label = f"{name}({_format_kwargs(kwargs)})" if kwargs else name
    registered = BY_FUNCTION_NAME.get(name)
    if registered is not None and registered.ideal_weight is not None:
        # Its per-row values are the ratios of each row; their plain mean is
        # the function's average="mean", not its default (pyxclib's ratio).
        label = f"{name}({_format_kwargs({**kwargs, 'average': 'mean'})})"
    kwargs.update(inputs)

    def rows(y_true, y_score):
        values = metric(y_true, y_score, average=None, **kwargs)
        values = np.asarray(values, dtype=np.float64)
        if values.ndim != 1:
            raise ValueError(
                f"metric {label} must return one value per row when called "
                f"with average=None; got an array of shape {values.shape}."
            )
        if np.isinf(values).any():
            raise ValueError(f"metric {label} returned infinite values.")
        return values

    return label, rows


def check_row_mean(metric, key):
    """Refuse a measure whose value is not a mean of per-row values (the
    propensity-scored ones: pyxclib's ratio of dataset sums), which a
    statistic of the per-row values would not estimate."""
    if metric.ideal_weight is None:
        return
    raise ValueError(
        f"{key} is pyxclib's ratio of two sums over the rows (each row "
        f'weighted by its best achievable value, average="ideal"), not a '
        f"mean of per-row values: intervals, paired tests and tables of means "
        f"of the per-row values would not agree with it. To compare the "
        f"per-row ratios, whose plain mean is "
        f'{metric.function_name}(..., average="mean"), pass '
        f"metric={metric.function_name} with its keywords (k, propensity)."
    )


def _shape(x):
    shape = getattr(x, "shape", None)
    return tuple(np.shape(x) if shape is None else shape)


def _check_rows(n, label):
    if n < 2:
        raise ValueError(
            f"At least 2 rows with a defined value of {label} are needed; got "
            f"{n}. Rows with no relevant item are left out under "
            f"zero_division=np.nan."
        )


def random_generator(random_state):
    """A numpy Generator drawn from ``check_random_state(random_state)``."""
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    return np.random.default_rng(seed)


def _bootstrap(values, *, method, confidence_level, n_resamples, alternative, rng):
    """scipy's bootstrap interval of the mean of ``values``."""
    # scipy >= 1.15 names the generator ``rng``; older versions ``random_state``.
    key = "rng" if "rng" in signature(stats.bootstrap).parameters else "random_state"
    res = stats.bootstrap(
        (values,),
        np.mean,
        n_resamples=n_resamples,
        batch=max(1, _CHUNK // values.shape[0]),
        vectorized=True,
        confidence_level=confidence_level,
        alternative=alternative,
        # BCa from the same resamples, below: scipy's jackknife costs
        # O(n**2), the mean's has a closed form in O(n).
        method="percentile",
        **{key: rng},
    )
    low, high = res.confidence_interval
    if method == "BCa":
        low, high = _bca_of_mean(
            values, res.bootstrap_distribution, confidence_level, alternative
        )
    return float(low), float(high)


def _bca_of_mean(values, means, confidence_level, alternative):
    """The BCa interval of the mean from its bootstrap distribution ``means``.

    Efron & Tibshirani (1993), 14.3, as :func:`scipy.stats.bootstrap` computes
    it, except that the jackknife means ``(sum - x_i) / (n - 1)`` come in
    closed form.
    """
    n, theta = values.shape[0], np.mean(values)
    below = np.count_nonzero(means < theta) + np.count_nonzero(means <= theta)
    z0 = special.ndtri(below / (2 * means.shape[0]))
    jackknife = (np.sum(values) - values) / (n - 1)
    u = (n - 1) * (np.mean(jackknife) - jackknife)
    a = np.sum(u**3) / n**3 / (6 * (np.sum(u**2) / n**2) ** 1.5)
    alpha = (1 - confidence_level) / (2 if alternative == "two-sided" else 1)
    bounds = []
    for z in (special.ndtri(alpha), -special.ndtri(alpha)):
        bounds.append(special.ndtr(z0 + (z0 + z) / (1 - a * (z0 + z))))
    low, high = np.quantile(means, bounds)
    if alternative == "less":
        low = -np.inf
    elif alternative == "greater":
        high = np.inf
    return low, high


# ----------------------------------------------------------------------------
# Confidence interval
# ----------------------------------------------------------------------------


def confidence_interval(
    y_true,
    y_score,
    *,
    metric="ndcg@10",
    method="bootstrap",
    confidence_level=0.95,
    n_resamples=9999,
    random_state=None,
    **metric_kwargs,
):
    """Confidence interval of a metric's mean over rows.

    The rows (queries, users) are taken as an independent sample; the
    interval is for the mean over the population they come from.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_samples, n_items), or \
array-like of shape (n_samples,)
        Relevance, as for the metric functions (1-D: class labels).
    y_score : array-like of shape (n_samples, n_items)
        Scores; higher ranks first, ``-inf`` is not retrieved.
    metric : str, callable or RankingScorer, default="ndcg@10"
        A scorer name (``"map@10"``, ``"r_precision"``, see
        :func:`get_scorer_names`); a metric function such as
        :func:`map_at_k_score`, or any ``f(y_true, y_score, **kw)`` that
        returns one value per row with ``average=None``; or a one-metric
        scorer from :func:`get_scorer` or :func:`make_ranking_scorer`.
    method : {"bootstrap", "bca", "percentile", "t"}, default="bootstrap"
        ``"bootstrap"`` and ``"bca"``: :func:`scipy.stats.bootstrap` of the
        mean with BCa, the bias-corrected and accelerated bootstrap (scipy's
        default); ``"percentile"``: the same bootstrap with percentile
        intervals. ``"t"``: the Student t interval, mean +- t quantile *
        standard error.
    confidence_level : float, default=0.95
        Strictly between 0 and 1.
    n_resamples : int, default=9999
        Bootstrap resamples (unused by ``"t"``).
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap, for reproducible intervals.
    **metric_kwargs
        The metric's keywords, e.g. ``zero_division=np.nan``,
        ``ignore_ties=True``, ``relevance_threshold``, ``denominator``,
        ``gain``, ``labels``; and ``k`` when ``metric`` is a function (a
        name carries its own ``k``). They are passed to
        :func:`get_scorer` with a name, to the function with a function.
        ``sample_weight`` is not supported (a TypeError).

    Returns
    -------
    interval : MetricInterval
        ``mean``, ``low``, ``high`` and ``n_samples``, the rows used.

    See Also
    --------
    paired_test : Compare two models on the same rows.
    scipy.stats.bootstrap : The bootstrap used.

    Notes
    -----
    Rows with no relevant item follow ``zero_division``: ``np.nan`` leaves
    them out. When every row has the same value, the interval is
    ``(mean, mean)`` for every method. The bootstrap costs
    ``n_resamples * n_samples`` draws; BCa adds only a jackknife of the mean
    in closed form (``O(n_samples)``), with scipy's formulas. For very many
    rows ``"t"`` is instant and nearly the same interval.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import confidence_interval, map_at_k_score
    >>> rng = np.random.RandomState(0)
    >>> y_true = rng.rand(200, 20) < 0.2
    >>> y_score = y_true + rng.normal(size=(200, 20))
    >>> ci = confidence_interval(
    ...     y_true, y_score, metric="ndcg@10", zero_division=np.nan, random_state=0
    ... )
    >>> round(ci.mean, 3), round(ci.low, 3), round(ci.high, 3), ci.n_samples
    (0.647, 0.616, 0.677, 199)

    A metric function takes its keywords; here one row, with no relevant
    item, counts as 0:

    >>> ci = confidence_interval(
    ...     y_true, y_score, metric=map_at_k_score, k=5, denominator="min",
    ...     zero_division=0.0, method="t",
    ... )
    >>> ci.metric
    "map_at_k_score(k=5, denominator='min', zero_division=0.0)"
    >>> round(ci.low, 3), round(ci.high, 3), ci.n_samples
    (0.369, 0.44, 200)
    """
    method = check_option(method, "method", INTERVAL_METHODS)
    confidence_level = _check_confidence_level(confidence_level)
    n_resamples = _check_n_resamples(n_resamples)
    label, rows = _row_function(metric, metric_kwargs)
    values = rows(y_true, y_score)
    values = values[~np.isnan(values)]
    n = values.shape[0]
    _check_rows(n, label)
    mean = float(np.mean(values))
    if np.ptp(values) == 0:  # every resample has the same mean; sd = 0
        low = high = mean
    elif method == "t":
        sem = np.std(values, ddof=1) / np.sqrt(n)
        low, high = stats.t.interval(confidence_level, n - 1, loc=mean, scale=sem)
    else:
        low, high = _bootstrap(
            values,
            method="percentile" if method == "percentile" else "BCa",
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            alternative="two-sided",
            rng=random_generator(random_state),
        )
    return MetricInterval(
        metric=label,
        mean=mean,
        low=float(low),
        high=float(high),
        confidence_level=confidence_level,
        method=method,
        n_samples=n,
    )


# ----------------------------------------------------------------------------
# Paired tests
# ----------------------------------------------------------------------------


def _sign_flip_pvalue(d, alternative, n_resamples, rng):
    """p-value of the sign-flip randomization test of the mean of ``d``.

    Exact (all ``2**n`` sign vectors) when ``2**n <= n_resamples``;
    otherwise ``n_resamples`` random sign vectors and the +1 correction.
    """
    n = d.shape[0]
    observed = np.mean(d)
    tol = _RTOL * np.mean(np.abs(d))

    def count(signs):
        perm = signs @ d / n
        if alternative == "greater":
            return np.count_nonzero(perm >= observed - tol)
        if alternative == "less":
            return np.count_nonzero(perm <= observed + tol)
        return np.count_nonzero(np.abs(perm) >= abs(observed) - tol)

    exact = n < 63 and 2**n <= n_resamples
    total = 2**n if exact else n_resamples
    hits = 0
    batch = max(1, _CHUNK // n)
    for start in range(0, total, batch):
        size = min(batch, total - start)
        if exact:  # the bits of 0 .. 2**n - 1 are every sign vector
            codes = np.arange(start, start + size)[:, None] >> np.arange(n) & 1
        else:
            codes = rng.integers(0, 2, size=(size, n), dtype=np.int8)
        hits += count(1.0 - 2.0 * codes)
    # Exact: the observed signs are among the 2**n. Sampled: count them as
    # one more resample (the +1 correction), so p is never 0.
    return hits / total if exact else (hits + 1) / (total + 1)


def _bootstrap_pvalue(d, alternative, n_resamples, rng):
    """p-value of the paired bootstrap test of the mean of ``d``.

    The differences are shifted to mean 0 (the null hypothesis) and
    resampled with replacement ``n_resamples`` times; the p-value is the
    share of resampled means at least as extreme as the observed one, with
    the +1 correction (Efron & Tibshirani 1993, 16.4; Sakai 2006).
    """
    n = d.shape[0]
    observed = np.mean(d)
    centred = d - observed
    tol = _RTOL * np.mean(np.abs(d))
    hits = 0
    batch = max(1, _CHUNK // n)
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        means = centred[rng.integers(0, n, size=(size, n))].mean(axis=1)
        if alternative == "greater":
            hits += np.count_nonzero(means >= observed - tol)
        elif alternative == "less":
            hits += np.count_nonzero(means <= observed + tol)
        else:
            hits += np.count_nonzero(np.abs(means) >= abs(observed) - tol)
    return (hits + 1) / (n_resamples + 1)


def _rank_biserial(d):
    """Matched-pairs rank-biserial correlation over the non-zero differences."""
    d = d[d != 0]
    if d.shape[0] == 0:
        return 0.0
    ranks = stats.rankdata(np.abs(d))
    return float((ranks[d > 0].sum() - ranks[d < 0].sum()) / ranks.sum())


def _point_interval(c, alternative):
    """The interval of a difference that is ``c`` on every row."""
    if alternative == "greater":
        return c, np.inf
    if alternative == "less":
        return -np.inf, c
    return c, c


def _t_limit(c, alternative):
    """(statistic, p-value) of the t-test when every difference is ``c != 0``."""
    statistic = np.copysign(np.inf, c)
    if alternative == "two-sided":
        return statistic, 0.0
    agrees = (c > 0) == (alternative == "greater")
    return statistic, 0.0 if agrees else 1.0


def paired_values(
    a, b, *, label, method, alternative, confidence_level, n_resamples, rng
):
    if a.shape != b.shape:
        raise ValueError(
            f"metric {label} gave {a.shape[0]} rows for one model and "
            f"{b.shape[0]} for the other."
        )
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    n = a.shape[0]
    _check_rows(n, label)
    d = a - b
    diff = float(np.mean(d))
    constant = np.ptp(d) == 0  # every difference the same: no variance
    if constant:
        dz = 0.0 if diff == 0 else float(np.copysign(np.inf, diff))
    else:
        dz = diff / float(np.std(d, ddof=1))
    if constant and diff == 0:
        # The same value on every row: no evidence of any difference.
        statistic, pvalue = 0.0, 1.0
        interval = _point_interval(0.0, alternative)
    elif method == "t":
        if constant:
            statistic, pvalue = _t_limit(diff, alternative)
            interval = _point_interval(diff, alternative)
        else:
            res = stats.ttest_rel(a, b, alternative=alternative)
            statistic, pvalue = res.statistic, res.pvalue
            interval = res.confidence_interval(confidence_level)
    else:
        if method == "wilcoxon":
            res = stats.wilcoxon(d, alternative=alternative)
            statistic, pvalue = res.statistic, res.pvalue
            dz = _rank_biserial(d)
        elif method == "randomization":
            statistic = diff
            pvalue = _sign_flip_pvalue(d, alternative, n_resamples, rng)
        else:
            statistic = diff
            pvalue = _bootstrap_pvalue(d, alternative, n_resamples, rng)
        interval = _bootstrap(
            d,
            method="percentile",
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            alternative=alternative,
            rng=rng,
        )
    return PairedTestResult(
        metric=label,
        method=method,
        alternative=alternative,
        mean_a=float(np.mean(a)),
        mean_b=float(np.mean(b)),
        difference=diff,
        effect_size=float(dz),
        effect_size_name="rank_biserial" if method == "wilcoxon" else "cohen_dz",
        statistic=float(statistic),
        pvalue=float(pvalue),
        confidence_interval=ConfidenceInterval(float(interval[0]), float(interval[1])),
        confidence_level=confidence_level,
        n_samples=n,
    )


def _check_test_options(method, confidence_level, n_resamples):
    return (
        check_option(method, "method", TEST_METHODS),
        _check_confidence_level(confidence_level),
        _check_n_resamples(n_resamples),
    )


def check_test_options(method, confidence_level, n_resamples, alpha):
    """The options of a comparison of systems, validated."""
    return (
        *_check_test_options(method, confidence_level, n_resamples),
        _check_alpha(alpha),
    )


def paired_test(
    y_true,
    y_score_a,
    y_score_b,
    *,
    metric="ndcg@10",
    method="t",
    alternative="two-sided",
    confidence_level=0.95,
    n_resamples=9999,
    random_state=None,
    **metric_kwargs,
):
    """Paired test of two models scored on the same rows.

    Each row (query, user) gives one value per model; the test is on the
    per-row differences ``a - b``, which removes the variation between rows
    that both models share.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_samples, n_items), or \
array-like of shape (n_samples,)
        Relevance, as for the metric functions (1-D: class labels).
    y_score_a, y_score_b : array-like of shape (n_samples, n_items)
        Scores of the two models, same shape.
    metric : str or callable, default="ndcg@10"
        A scorer name (``"map@10"``) or a metric function (see
        :func:`confidence_interval`).
    method : {"t", "wilcoxon", "randomization", "bootstrap"}, default="t"
        ``"t"``: :func:`scipy.stats.ttest_rel`. ``"wilcoxon"``:
        :func:`scipy.stats.wilcoxon` on the differences with scipy's
        defaults (zero differences are dropped, ``zero_method="wilcox"``).
        ``"randomization"``: sign-flip permutation test of the mean
        difference; exact over all ``2**n_samples`` sign vectors when that is
        at most ``n_resamples``, otherwise ``n_resamples`` random ones and
        ``p = (1 + #{as extreme}) / (1 + n_resamples)``.
        ``"bootstrap"``: paired bootstrap test of the mean difference: the
        differences shifted to mean 0, resampled ``n_resamples`` times,
        ``p = (1 + #{as extreme}) / (1 + n_resamples)``.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        About ``mean_a - mean_b``: "greater" tests whether model a is better.
    confidence_level : float, default=0.95
        Level of the interval of the difference.
    n_resamples : int, default=9999
        Random sign vectors ("randomization"), resamples of the bootstrap test
        ("bootstrap") and bootstrap resamples for the interval of the
        difference (every method but "t").
    random_state : int, RandomState instance or None, default=None
        Seeds the randomization and the bootstrap.
    **metric_kwargs
        The metric's keywords (see :func:`confidence_interval`).
        ``sample_weight`` is not supported.

    Returns
    -------
    result : PairedTestResult
        Means, difference, effect size, statistic, p-value and the interval
        of the difference.

    See Also
    --------
    compare_models : Every pair of several models, corrected.

    Notes
    -----
    Rows undefined for either model under ``zero_division=np.nan`` are left
    out (for the package's metrics they depend on ``y_true`` only, so they
    coincide). The effect size is Cohen's d_z for "t", "randomization" and
    "bootstrap",
    the matched-pairs rank-biserial correlation (over the non-zero
    differences, as the test) for "wilcoxon". The interval is the t interval
    for "t", a percentile bootstrap of the mean difference otherwise.

    When the models give the same value on every row, every method returns
    statistic 0, p-value 1, effect size 0 and interval ``(0, 0)`` (scipy's
    t-test would give NaN; one-sided alternatives give ``(0, inf)`` or
    ``(-inf, 0)``). When every difference is the same non-zero
    ``c``, d_z is ``+-inf`` and the interval ``(c, c)``; the t-test returns
    its limit, statistic ``+-inf`` and p-value 0 (1 against the opposite
    one-sided alternative), while the other two tests run as usual.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import paired_test
    >>> rng = np.random.RandomState(2)
    >>> y_true = rng.rand(100, 20) < 0.25
    >>> a = y_true + rng.normal(size=(100, 20))
    >>> b = y_true + rng.normal(scale=1.5, size=(100, 20))
    >>> res = paired_test(y_true, a, b, metric="ndcg@10")
    >>> round(res.mean_a, 3), round(res.mean_b, 3), round(res.difference, 3)
    (0.682, 0.589, 0.093)
    >>> round(res.pvalue, 5), round(res.effect_size, 3)
    (0.00037, 0.369)
    >>> res = paired_test(
    ...     y_true, a, b, metric="precision@5", method="randomization",
    ...     alternative="greater", random_state=0,
    ... )
    >>> res.pvalue  # (1 + 3 of 9999 sign flips as extreme) / (1 + 9999)
    0.0004
    """
    method, confidence_level, n_resamples = _check_test_options(
        method, confidence_level, n_resamples
    )
    alternative = check_option(alternative, "alternative", ALTERNATIVES)
    if _shape(y_score_a) != _shape(y_score_b):
        raise ValueError(
            f"y_score_a and y_score_b must have the same shape; got "
            f"{_shape(y_score_a)} and {_shape(y_score_b)}."
        )
    label, rows = _row_function(metric, metric_kwargs)
    return paired_values(
        rows(y_true, y_score_a),
        rows(y_true, y_score_b),
        label=label,
        method=method,
        alternative=alternative,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        rng=random_generator(random_state),
    )


def adjust_pvalues(pvalues, correction):
    """p-values adjusted for multiple testing, capped at 1.

    ``"holm"``: Holm's step-down; ``"bonferroni"``: ``m p``; ``"bh"``:
    Benjamini-Hochberg's step-up, ``min_{j >= i} m p_(j) / j`` over the
    sorted p-values; ``"by"``: Benjamini-Yekutieli, BH times
    ``sum_{j=1}^m 1 / j`` (valid under any dependence); None: unchanged.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.shape[0]
    if correction is None or m == 0:
        return p
    if correction == "bonferroni":
        return np.minimum(1.0, m * p)
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(m)
    if correction == "holm":
        stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    else:
        scale = m / np.arange(1, m + 1)
        if correction == "by":
            scale = scale * np.sum(1.0 / np.arange(1, m + 1))
        stepped = np.minimum.accumulate((scale * p[order])[::-1])[::-1]
    adjusted[order] = np.minimum(1.0, stepped)
    return adjusted


def _correct(pvalues, correction):
    """Holm (step-down) or Bonferroni adjusted p-values, capped at 1."""
    return adjust_pvalues(pvalues, correction)


def compare_models(
    y_true,
    y_scores,
    *,
    metric="ndcg@10",
    method="t",
    correction="holm",
    alpha=0.05,
    confidence_level=0.95,
    n_resamples=9999,
    random_state=None,
    **metric_kwargs,
):
    """Compare every pair of models on the same rows, with corrected p-values.

    Each pair ``(a, b)``, in the order of ``y_scores``, is tested with
    :func:`paired_test` (two-sided); the p-values of all pairs are then
    corrected for multiple testing.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_samples, n_items), or \
array-like of shape (n_samples,)
        Relevance, as for the metric functions (1-D: class labels).
    y_scores : dict of str -> array-like of shape (n_samples, n_items)
        The scores of each model, by name; at least two, same shape.
    metric : str or callable, default="ndcg@10"
        A scorer name or a metric function (see :func:`confidence_interval`).
    method : {"t", "wilcoxon", "randomization", "bootstrap"}, default="t"
        The paired test (see :func:`paired_test`).
    correction : {"holm", "bonferroni", "bh", "by"} or None, default="holm"
        Multiple-testing correction: Holm's step-down method (uniformly more
        powerful than Bonferroni, same family-wise error guarantee),
        Bonferroni, Benjamini-Hochberg or Benjamini-Yekutieli (false
        discovery rate; ``alpha`` is then the rate), or none.
    alpha : float, default=0.05
        Family-wise error rate (false discovery rate with "bh" and "by") for
        ``reject``.
    confidence_level : float, default=0.95
        Level of each interval of a difference (not corrected).
    n_resamples : int, default=9999
        As in :func:`paired_test`.
    random_state : int, RandomState instance or None, default=None
        Seeds the randomization and the bootstrap of every pair.
    **metric_kwargs
        The metric's keywords (see :func:`confidence_interval`).

    Returns
    -------
    comparison : ModelComparison
        Prints as a table; ``comparison[a, b]``, ``to_dict()`` and
        ``to_frame()`` give the numbers.

    See Also
    --------
    paired_test : One pair.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import compare_models
    >>> rng = np.random.RandomState(2)
    >>> y_true = rng.rand(100, 20) < 0.25
    >>> scores = {
    ...     "sharp": y_true + rng.normal(size=(100, 20)),
    ...     "blurred": y_true + rng.normal(scale=1.5, size=(100, 20)),
    ...     "noise": rng.normal(size=(100, 20)),
    ... }
    >>> print(compare_models(y_true, scores, metric="ndcg@10"))
    ndcg@10: paired t-test, correction=holm, alpha=0.05
    <BLANKLINE>
    model    mean
    sharp    0.6821
    blurred  0.5893
    noise    0.3920
    <BLANKLINE>
    model_a  model_b  difference      95% interval   p-value  p (holm)  reject    n
    sharp    blurred      0.0928  [0.0429, 0.1428]   0.00037   0.00037     yes  100
    sharp    noise        0.2900  [0.2393, 0.3408]   1.4e-19  4.21e-19     yes  100
    blurred  noise        0.1972  [0.1475, 0.2470]  4.58e-12  9.15e-12     yes  100
    """
    method, confidence_level, n_resamples = _check_test_options(
        method, confidence_level, n_resamples
    )
    correction = check_option(correction, "correction", CORRECTIONS)
    alpha = _check_alpha(alpha)
    if not isinstance(y_scores, Mapping):
        raise TypeError(
            f"y_scores must be a dict of model name -> score matrix; got "
            f"{type(y_scores).__name__}."
        )
    if len(y_scores) < 2:
        raise ValueError(
            f"compare_models needs at least 2 models in y_scores; got {len(y_scores)}."
        )
    shapes = {name: _shape(s) for name, s in y_scores.items()}
    if len(set(shapes.values())) > 1:
        raise ValueError(
            f"Every score matrix in y_scores must have the same shape; got {shapes}."
        )
    label, rows = _row_function(metric, metric_kwargs)
    values = {name: rows(y_true, s) for name, s in y_scores.items()}
    rng = random_generator(random_state)
    tests = {
        (a, b): paired_values(
            values[a],
            values[b],
            label=label,
            method=method,
            alternative="two-sided",
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            rng=rng,
        )
        for a, b in itertools.combinations(values, 2)
    }
    adjusted = _correct([t.pvalue for t in tests.values()], correction)
    return ModelComparison(
        metric=label,
        method=method,
        correction=correction,
        alpha=alpha,
        means={name: float(np.nanmean(v)) for name, v in values.items()},
        tests=tests,
        pvalues_corrected={p: float(q) for p, q in zip(tests, adjusted)},
        reject={p: bool(q <= alpha) for p, q in zip(tests, adjusted)},
    )


# ----------------------------------------------------------------------------
# Precision@k under a random ranking
# ----------------------------------------------------------------------------


def _n_retrieved(y_score, offsets=None):
    """Items with a score above ``-inf`` in each row (each segment)."""
    if offsets is not None:
        return np.add.reduceat(np.asarray(y_score) > -np.inf, offsets[:-1])
    y_score = check_y_score(y_score)
    if sp.issparse(y_score):
        row = np.repeat(np.arange(y_score.shape[0]), np.diff(y_score.indptr))
        excluded = np.bincount(
            row[np.isneginf(y_score.data)], minlength=y_score.shape[0]
        )
        return y_score.shape[1] - excluded
    n_rows, n_items = y_score.shape
    out = np.empty(n_rows, dtype=np.intp)
    for rows in iter_blocks(n_rows, n_items):  # bounded memory for memmaps
        out[rows] = np.count_nonzero(np.asarray(y_score[rows]) > -np.inf, axis=1)
    return out


PRECISION = PRECISION_RECALL[0]


def _segments(y_true, y_score, qid, labels, threshold):
    """(y_true, y_score, offsets): one segment per query with ``qid``."""
    if qid is None:
        return y_true, y_score, None
    grouped = group_by_qid(
        y_true, y_score, qid, None, labels=labels, threshold=threshold
    )
    return grouped.y_true, grouped.y_score, grouped.offsets


def _precision_rows(y_true, y_score, *, k, offsets, **options):
    """Per-row precision@k (0 on rows with no relevant item)."""
    requests = [engine.make_request(PRECISION, k)]
    rows = engine.row_values(requests, y_true, y_score, offsets=offsets, **options)
    return rows.values[0]


def _random_precision_moments(
    y_true, y_score, *, k, distribution, relevance_threshold, labels, offsets=None
):
    """Per-row E[P@k] and Var[P@k] under a random ranking of retrieved items."""
    k = check_k(k, allow_none=False, metric="precision_at_k_score")
    distribution = check_option(distribution, "distribution", DISTRIBUTIONS)
    # The tie-aware engine on constant scores gives the exact expectation
    # E[P@k] = m |R| / (N k), with N retrieved items, |R| of them relevant
    # and m = min(k, N) ranks drawn: the number of relevant items among
    # them is hypergeometric.
    expected = _precision_rows(
        y_true,
        random_ranking_scores(y_score),
        k=k,
        relevance_threshold=relevance_threshold,
        labels=labels,
        offsets=offsets,
    )
    n = _n_retrieved(y_score, offsets).astype(np.float64)
    m = np.minimum(k, n)
    p = np.clip(np.divide(expected * k, m, out=np.zeros_like(m), where=m > 0), 0, 1)
    var = m * p * (1 - p) / k**2
    if distribution == "hypergeometric":
        var *= (n - m) / np.maximum(n - 1, 1)
    return expected, var


def precision_at_k_random_variance(
    y_true,
    y_score,
    *,
    k=10,
    distribution="hypergeometric",
    relevance_threshold=0,
    labels=None,
    qid=None,
):
    """Variance of each row's precision@k under a uniformly random ranking.

    In a row with ``N`` retrieved items (score above ``-inf``), ``|R|`` of
    them relevant, a random ranking puts ``X`` relevant items among its top
    ``m = min(k, N)``, and ``P@k = X / k``. With ``p = |R| / N``:

    * ``"hypergeometric"`` (exact: the ``m`` items are drawn without
      replacement), ``Var[P@k] = m p (1 - p) (N - m) / ((N - 1) k**2)``,
      which is ``p (1 - p) (N - k) / (k (N - 1))`` when ``k <= N``;
    * ``"binomial"`` (drawn with replacement, the large-``N`` limit),
      ``Var[P@k] = m p (1 - p) / k**2``, i.e. ``p (1 - p) / k`` when
      ``k <= N``, the usual textbook formula.

    The two differ by the finite-population factor ``(N - k) / (N - 1)``:
    the binomial overstates the variance, and is 0 only when ``p`` is 0 or
    1, while the exact variance is also 0 when ``k >= N``. The expectation
    is ``m p / k`` under both (``p`` when ``k <= N``).

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_samples, n_items), or \
array-like of shape (n_samples,)
        Relevance, as for the metric functions (1-D: class labels).
    y_score : array-like of shape (n_samples, n_items)
        Used only for which items are retrieved: those scored ``-inf`` stay
        out of the random ranking, as in :func:`ranking_report`'s baseline.
    k : int, default=10
        Cut-off.
    distribution : {"hypergeometric", "binomial"}, default="hypergeometric"
        Exact variance, or the with-replacement approximation.
    relevance_threshold : float, default=0
        An item is relevant when ``y_true > relevance_threshold``.
    labels : array-like of shape (n_items,), default=None
        Class of each column, with 1-D ``y_true``.
    qid : array-like of shape (n_documents,), default=None
        Query id of each document, with 1-D ``y_true`` and ``y_score`` (flat
        learning-to-rank data): each query is one row.

    Returns
    -------
    variance : ndarray of shape (n_samples,)
        The variance of each row's precision@k under a random ranking.

    See Also
    --------
    random_baseline_test : Whether a model's precision@k beats random.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import precision_at_k_random_variance
    >>> y_true = np.array([[1, 1, 0, 0, 0, 0, 0, 0, 0, 0]])  # p = 0.2, N = 10
    >>> y_score = np.zeros((1, 10))
    >>> precision_at_k_random_variance(y_true, y_score, k=2).round(4)
    array([0.0711])
    >>> precision_at_k_random_variance(
    ...     y_true, y_score, k=2, distribution="binomial"
    ... ).round(4)  # 0.2 * 0.8 / 2
    array([0.08])
    """
    y_true, y_score, offsets = _segments(
        y_true, y_score, qid, labels, relevance_threshold
    )
    return _random_precision_moments(
        y_true,
        y_score,
        k=k,
        distribution=distribution,
        relevance_threshold=relevance_threshold,
        labels=labels,
        offsets=offsets,
    )[1]


def random_baseline_test(
    y_true,
    y_score,
    *,
    k=10,
    alternative="greater",
    distribution="hypergeometric",
    ignore_ties=False,
    relevance_threshold=0,
    labels=None,
    qid=None,
):
    """Test whether a model's mean precision@k beats a random ranking.

    Under the null hypothesis every row's retrieved items are ranked
    uniformly at random, independently across rows. Each row's precision@k
    then has a known expectation and variance (see
    :func:`precision_at_k_random_variance`), so the mean over ``n`` rows has
    expectation ``mean(E_i)`` and variance ``sum(Var_i) / n**2``, and
    ``z = (mean - expected) / sqrt(variance)`` is approximately standard
    normal.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_samples, n_items), or \
array-like of shape (n_samples,)
        Relevance, as for the metric functions (1-D: class labels).
    y_score : array-like of shape (n_samples, n_items)
        Scores of the model; ``-inf`` items stay unretrieved under the null.
    k : int, default=10
        Cut-off.
    alternative : {"greater", "two-sided", "less"}, default="greater"
        "greater": the model is better than random.
    distribution : {"hypergeometric", "binomial"}, default="hypergeometric"
        Exact per-row variance, or the with-replacement approximation
        ``p (1 - p) / k``, which overstates it and so is conservative.
    ignore_ties : bool, default=False
        As in :func:`precision_at_k_score`, for the observed precision.
    relevance_threshold : float, default=0
        An item is relevant when ``y_true > relevance_threshold``.
    labels : array-like of shape (n_items,), default=None
        Class of each column, with 1-D ``y_true``.
    qid : array-like of shape (n_documents,), default=None
        Query id of each document, with 1-D ``y_true`` and ``y_score`` (flat
        learning-to-rank data): each query is one row.

    Returns
    -------
    result : RandomBaselineResult
        Observed and expected mean, variance, z statistic and p-value.

    See Also
    --------
    paired_test : Compare two models.

    Notes
    -----
    The normal approximation needs enough rows; the per-row distributions are
    discrete and skewed when ``|R| / N`` is small. When the null variance is
    0 (every ranking of the retrieved items gives every row the same
    precision, so the model's mean is the expected one), the statistic is 0
    and the p-value 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import random_baseline_test
    >>> rng = np.random.RandomState(0)
    >>> y_true = rng.rand(100, 50) < 0.1
    >>> weak = y_true + rng.normal(scale=3, size=(100, 50))
    >>> res = random_baseline_test(y_true, weak, k=5)
    >>> round(res.mean, 3), round(res.expected, 3), round(res.pvalue, 4)
    (0.13, 0.098, 0.0062)
    >>> noise = rng.normal(size=(100, 50))
    >>> round(random_baseline_test(y_true, noise, k=5).pvalue, 3)
    0.837
    """
    alternative = check_option(alternative, "alternative", ALTERNATIVES)
    y_true, y_score, offsets = _segments(
        y_true, y_score, qid, labels, relevance_threshold
    )
    expected, var = _random_precision_moments(
        y_true,
        y_score,
        k=k,
        distribution=distribution,
        relevance_threshold=relevance_threshold,
        labels=labels,
        offsets=offsets,
    )
    observed = _precision_rows(
        y_true,
        y_score,
        k=k,
        ignore_ties=ignore_ties,
        relevance_threshold=relevance_threshold,
        labels=labels,
        offsets=offsets,
    )
    n = observed.shape[0]
    mean, mean_expected = float(np.mean(observed)), float(np.mean(expected))
    variance = float(np.sum(var)) / n**2
    if variance == 0:
        # Every ranking of the retrieved items gives each row the same
        # precision: the model's mean is the expected one, nothing to test.
        z, pvalue = 0.0, 1.0
    else:
        z = (mean - mean_expected) / np.sqrt(variance)
        if alternative == "greater":
            pvalue = stats.norm.sf(z)
        elif alternative == "less":
            pvalue = stats.norm.cdf(z)
        else:
            pvalue = 2 * stats.norm.sf(abs(z))
    return RandomBaselineResult(
        metric=f"precision@{k}",
        mean=mean,
        expected=mean_expected,
        variance=variance,
        statistic=float(z),
        pvalue=float(min(pvalue, 1.0)),
        alternative=alternative,
        distribution=distribution,
        n_samples=n,
    )
