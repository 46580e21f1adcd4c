"""Reports and curves: many metrics, many cut-offs, from one top-k pass.

:func:`ranking_report` evaluates every requested metric at every requested
cut-off from one pass over the largest cut-off, optionally with the value a
random ranking is expected to reach and the lift over it.
:func:`precision_recall_at_k_curve` gives mean P@k, R@k and F1@k for every
``k = 1, ..., k_max`` from one pass.

The random-ranking expectation is exact: it is what the metric returns for
a constant ``y_score``, which the tie-aware engine evaluates as the mean over
all orderings. Items scored ``-inf`` stay unretrieved, so the baseline ranks
at random the same candidates the model ranked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ._core import engine
from ._core.inputs import group_by_qid, random_ranking_scores
from ._core.registry import (
    DEFAULT_REPORT,
    INTENT_AWARE,
    INTERPOLATED_PRECISION,
    METRICS,
    PRECISION_RECALL,
    RECALL_LEVELS,
)
from ._core.validation import (
    AVERAGE_OPTIONS,
    check_bool,
    check_k,
    check_option,
    check_real,
    check_zero_division,
)
from ._io import names as measure_names
from ._scorer import row_values

#: The report's rows named by a registry entry: the metrics of 2-D
#: relevance and the intent-aware measures (3-D).
_NAMED = {**METRICS, **INTENT_AWARE}

# ----------------------------------------------------------------------------
# Report
# ----------------------------------------------------------------------------


def _check_report_metrics(metrics):
    if metrics is None:
        return DEFAULT_REPORT
    if isinstance(metrics, str):
        metrics = [metrics]
    try:
        metrics = list(metrics)
    except TypeError:
        raise TypeError(
            f"metrics must be a list of metric names or None; got {metrics!r}."
        ) from None
    if not metrics:
        raise ValueError("metrics is empty; pass None for the default metrics.")
    for name in metrics:
        if name not in _NAMED:
            try:
                measure = measure_names.parse_name(name)
            except (TypeError, ValueError) as exc:
                raise ValueError(
                    f"Unknown metric {name!r} in metrics: a metric name ("
                    f"{', '.join(METRICS)}; the cut-offs come from k) or a "
                    f"measure name with its own cut-off (nDCG@10, P(rel=2)@5). "
                    f"{exc}"
                ) from None
            if measure.request is None:
                raise ValueError(
                    f"{name!r} in metrics is a count, not a score: evaluate() "
                    f"reports it."
                )
    if len(set(metrics)) != len(metrics):
        raise ValueError(f"Duplicate names in metrics={metrics}.")
    intent = [m for m in metrics if m in INTENT_AWARE]
    if intent and len(intent) < len(metrics):
        plain = [m for m in metrics if m not in INTENT_AWARE]
        raise ValueError(
            f"metrics mixes intent-aware measures ({', '.join(intent)}), which "
            f"take a 3-D y_true of shape (n_samples, n_items, n_intents), with "
            f"measures of a 2-D y_true ({', '.join(plain)}): make one report "
            f"of each (for the others, a 2-D y_true such as y_true.max(axis=2), "
            f"the relevance to any intent)."
        )
    return tuple(metrics)


def _check_report_k(k):
    ks = [k] if k is None or isinstance(k, (int, np.integer)) else k
    try:
        ks = list(ks)
    except TypeError:
        raise TypeError(
            f"k must be an integer >= 1 or a list of them; got {k!r}."
        ) from None
    if not ks:
        raise ValueError("k is empty: give at least one cut-off.")
    checked = [check_k(v, allow_none=False, metric="ranking_report") for v in ks]
    return tuple(sorted(set(checked)))


def _names(metrics, ks):
    """Scorer names of the report, in table order; a measure named with its
    own cut-off (``"nDCG@10"``) as given."""
    return [
        f"{m}@{k}" if m in _NAMED and _NAMED[m].needs_k else m
        for m in metrics
        for k in (ks if m in _NAMED and _NAMED[m].needs_k else (None,))
    ]


def _metric_of(name):
    """The registry entry of a report row or column name."""
    base = name.partition("@")[0]
    if base in _NAMED:
        return _NAMED[base]
    return measure_names.parse_name(name).request.metric


@dataclass(frozen=True, repr=False)
class RankingReport:
    """Metric means at several cut-offs; the result of :func:`ranking_report`.

    Print it for a table; :meth:`to_dict` and :meth:`to_frame` convert it.
    ``report["ndcg@10"]`` is the mean of one metric. Each parameter is also
    an attribute of the same name.

    Parameters
    ----------
    scores : dict of str -> float
        Mean of each metric, keyed by scorer name (``"ndcg@10"``,
        ``"r_precision"``).
    random : dict of str -> float or None
        Expected mean under a uniformly random ranking of the retrieved
        items, if requested.
    per_row : dict of str -> ndarray of shape (n_samples,) or None
        Value of every row, if requested (NaN where undefined under
        ``zero_division=np.nan``).
    metrics : tuple of str
        Metric names, in table order.
    k : tuple of int
        Cut-offs, increasing.
    n_samples : int
        Rows of ``y_score`` (queries with ``qid``).
    n_items : int
        Columns of ``y_score``.
    ignore_ties : bool
        Whether ties were broken by column order (the later column first).
    n_averaged : dict of str -> int or None, default=None
        With ``zero_division=np.nan``: how many samples each mean averages
        (those with a relevant item; the same for every metric). None
        otherwise: every mean averages every sample.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import ranking_report
    >>> y_true = np.array([[1, 0, 1, 0], [0, 1, 0, 0]])
    >>> y_score = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.1, 0.7, 0.4]])
    >>> report = ranking_report(
    ...     y_true, y_score, k=[1, 2], metrics=["precision", "recall"]
    ... )
    >>> report["precision@2"]
    0.25
    >>> report.to_dict()["recall@2"]
    {'mean': 0.25}
    """

    scores: dict
    random: dict | None
    per_row: dict | None
    metrics: tuple
    k: tuple
    n_samples: int
    n_items: int
    ignore_ties: bool
    n_averaged: dict | None = None

    @property
    def lift(self):
        """Mean over the random expectation, per metric (None if not requested)."""
        if self.random is None:
            return None
        with np.errstate(divide="ignore", invalid="ignore"):
            return {
                name: float(np.divide(value, self.random[name]))
                for name, value in self.scores.items()
            }

    def __getitem__(self, name):
        return self.scores[name]

    def to_dict(self):
        """Nested dict: name -> {"mean": ..., "random": ..., "lift": ...}.

        Returns
        -------
        report : dict of str -> dict of str -> float
            One entry per metric and cut-off.
        """
        lift = self.lift
        out = {}
        for name, value in self.scores.items():
            entry = {"mean": value}
            if self.random is not None:
                entry["random"] = self.random[name]
                entry["lift"] = lift[name]
            out[name] = entry
        return out

    def to_frame(self, *, per_row=False):
        """The report as a pandas DataFrame (pandas must be installed).

        Parameters
        ----------
        per_row : bool, default=False
            If True, one row per sample and one column per metric (the
            report must have been made with ``per_row=True``); otherwise one
            row per metric and cut-off, with columns ``metric``, ``k``,
            ``mean`` and, if requested, ``random`` and ``lift``.

        Returns
        -------
        frame : pandas.DataFrame
            The report as a table.
        """
        import pandas as pd

        if per_row:
            if self.per_row is None:
                raise ValueError(
                    "This report has no per-row values; make it with "
                    "ranking_report(..., per_row=True)."
                )
            return pd.DataFrame(self.per_row)
        rows = []
        for name, entry in self.to_dict().items():
            metric, _, k = name.partition("@")
            rows.append({"metric": metric, "k": int(k) if k else pd.NA, **entry})
        frame = pd.DataFrame(rows, index=list(self.scores))
        frame["k"] = frame["k"].astype("Int64")
        return frame

    def to_string(self, *, digits=4):
        """The report as a text table.

        Parameters
        ----------
        digits : int, default=4
            Digits after the decimal point.

        Returns
        -------
        text : str
            The report as text.
        """
        ties = "ties broken by column" if self.ignore_ties else "ties averaged"
        lines = [
            f"Ranking report: {self.n_samples} samples x {self.n_items} items, {ties}"
        ]
        lines += self._averaged_note()
        tables = [("mean", self.scores)]
        if self.random is not None:
            tables += [("random ranking (expected)", self.random)]
            tables += [("lift (mean / random)", self.lift)]
        # One layout for every table, so that their columns line up.
        bodies = [(title, self._cells(values, digits)) for title, values in tables]
        headers = [f"@{k}" for k in self.k]
        width = max(
            len(c)
            for _, body in bodies
            for row in [*body.values(), headers]
            for c in row
        )
        name_width = max(len(name) for name in [*self.metrics, *dict(tables)])
        for title, body in bodies:
            lines += [
                "",
                title.ljust(name_width) + "".join(f"  {h:>{width}}" for h in headers),
            ]
            for metric, row in body.items():
                text = "".join(f"  {c:>{width}}" for c in row)
                if metric not in _NAMED:
                    text += "  (as named)"
                elif not _NAMED[metric].needs_k:  # its own cut-off per row
                    text += f"  (at k = {_NAMED[metric].cut_note} of each row)"
                lines.append(metric.ljust(name_width) + text)
        return "\n".join(lines)

    def _averaged_note(self):
        """A line saying which samples the means average, if not all."""
        counts = self.n_averaged or {}
        if all(n == self.n_samples for n in counts.values()):
            return []
        when = sorted({_metric_of(name).undefined_when for name in counts})
        left_out = f"zero_division=nan leaves out samples with {' or '.join(when)}"
        if len(set(counts.values())) == 1:
            (n,) = set(counts.values())
            return [f"Means over {n} of {self.n_samples} samples ({left_out})"]
        each = ", ".join(f"{name} {n}" for name, n in counts.items())
        return [f"Samples averaged ({left_out}): {each}"]

    def _cells(self, values, digits):
        """Formatted values, one list per metric."""

        def cells(metric):
            if metric in _NAMED and _NAMED[metric].needs_k:
                return [f"{values[f'{metric}@{k}']:.{digits}f}" for k in self.k]
            return [f"{values[metric]:.{digits}f}"]

        return {metric: cells(metric) for metric in self.metrics}

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        return self.to_string()


def ranking_report(
    y_true,
    y_score,
    *,
    k=(1, 5, 10),
    metrics=None,
    sample_weight=None,
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
    labels=None,
    qid=None,
    per_row=False,
    random_baseline=False,
    denominator="relevant",
    gain="linear",
    log_base=2,
    beta=1.0,
    max_grade=4,
    p=0.9,
    multiple=1.0,
    recall_level=0.0,
    recall_levels=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    tp_weight=1.0,
    fp_weight=-1.0,
    fn_weight=0.0,
    tn_weight=0.0,
    propensity=None,
    alpha=0.5,
    intent_weights=None,
):
    """Every requested metric at every requested cut-off, from one pass.

    The kernel ranks each row once, as deep as the largest ``k``, and every
    metric at every cut-off is read off that ranking. Options are those of
    the metric functions and mean the same.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_samples, n_items), or \
array-like of shape (n_samples,) or (n_samples, n_items, n_intents)
        Relevance, as for the metric functions (1-D: class labels; 3-D: the
        relevance to each intent, for the intent-aware measures).
    y_score : array-like of shape (n_samples, n_items)
        Scores; higher ranks first, ``-inf`` is not retrieved.
    k : int or list of int, default=(1, 5, 10)
        Cut-offs. R-precision has none: it cuts each row at its ``|R|``.
    metrics : list of str, default=None
        Metric names among ``"precision"``, ``"recall"``, ``"f1"``,
        ``"fbeta"``, ``"hit"``, ``"mrr"``, ``"map"``, ``"dcg"``, ``"ndcg"``
        and ``"r_precision"``; None means all of them but ``"fbeta"`` (F1 at
        its default ``beta``), in that order.
        Any other metric of the package by its scorer name without the
        cut-off (``"psndcg"``, ``"alpha_ndcg"``; see Notes for the
        intent-aware measures), or a measure name with its own cut-off.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample in the means.
    ignore_ties : bool, default=False
        Break ties as scikit-learn does (the later column first) instead of
        averaging over them.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value of rows where a metric is undefined (no relevant item).
    relevance_threshold : float, default=0
        An item is relevant when ``y_true > relevance_threshold``.
    labels : array-like of shape (n_items,), default=None
        Class of each column, with 1-D ``y_true``.
    qid : array-like of shape (n_documents,), default=None
        Query id of each document, with 1-D ``y_true`` and ``y_score`` (flat
        learning-to-rank data): each query is one row.
    per_row : bool, default=False
        Keep the value of every row of every metric (``report.per_row``).
    random_baseline : bool, default=False
        Also compute each metric's exact expectation under a uniformly
        random ranking of the retrieved items (``report.random``) and the
        lift ``mean / random`` (``report.lift``). This takes a second pass.
    denominator : {"relevant", "min", "retrieved"}, default="relevant"
        Denominator of AP@k, as in :func:`map_at_k_score`.
    gain : {"linear", "exponential"}, default="linear"
        Gain of DCG and nDCG.
    log_base : float, default=2
        Base of the logarithm of the DCG discount.
    beta : float, default=1.0
        Weight of recall in F-beta, as in :func:`fbeta_at_k_score`.
    max_grade : float or None, default=4
        The top of the grade scale of ERR, as in :func:`err_at_k_score`
        (None: each row's largest grade).
    p : float, default=0.9
        Persistence of rank-biased precision and its residual, as in
        :func:`rank_biased_precision_score`.
    multiple : float, default=1.0
        R-precision's cut-off as a multiple of |R|, as in
        :func:`r_precision_score`.
    recall_level : float, default=0.0
        The recall level of :func:`interpolated_precision_score`.
    recall_levels : tuple of float, default=(0.0, 0.1, ..., 1.0)
        The recall levels of :func:`eleven_point_precision_score`.
    tp_weight, fp_weight, fn_weight, tn_weight : float, default=(1, -1, 0, 0)
        The coefficients of :func:`utility_score`.
    propensity : array-like of shape (n_items,), default=None
        The inverse propensities of :func:`psprecision_at_k_score` and
        :func:`psndcg_at_k_score`, whose columns are pyxclib's ratio of the
        dataset means (each row weighted by its best achievable value).
    alpha : float, default=0.5
        The alpha of ndeval, for :func:`alpha_ndcg_at_k`, :func:`err_ia_at_k` and
        :func:`nerr_ia_at_k`.
    intent_weights : array-like of shape (n_intents,) or (n_samples, \
n_intents), default=None
        The intent weights of :func:`intent_aware_precision_at_k`,
        :func:`err_ia_at_k` and :func:`nerr_ia_at_k`; None: uniform.

    Returns
    -------
    report : RankingReport
        Prints as a table; ``report["ndcg@10"]``, ``report.to_dict()`` and
        ``report.to_frame()`` give the numbers.

    See Also
    --------
    precision_recall_at_k_curve : P@k, R@k and F1@k at every k.

    Notes
    -----
    The intent-aware measures (``"intent_aware_precision"``,
    ``"subtopic_recall"``, ``"alpha_ndcg"``, ``"err_ia"``, ``"nerr_ia"``)
    take a 3-D ``y_true`` of shape (n_samples, n_items, n_intents); the
    other metrics a 2-D one. A report of both kinds is refused, naming
    them: which 2-D relevance a 3-D one stands for (relevant to any intent,
    the number of intents, ...) is the caller's choice, e.g.
    ``ranking_report(y_true.max(axis=2), y_score, ...)`` in a second report.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn_rankk import ranking_report
    >>> X, y = load_digits(return_X_y=True)
    >>> model = GaussianNB().fit(X[:1000], y[:1000])
    >>> report = ranking_report(
    ...     y[1000:],
    ...     model.predict_log_proba(X[1000:]),
    ...     k=[1, 3],
    ...     metrics=["hit", "ndcg", "r_precision"],
    ...     random_baseline=True,
    ... )
    >>> print(report)
    Ranking report: 797 samples x 10 items, ties averaged
    <BLANKLINE>
    mean                           @1      @3
    hit                        0.7930  0.9310
    ndcg                       0.7930  0.8768
    r_precision                0.7930  (at k = |R| of each row)
    <BLANKLINE>
    random ranking (expected)      @1      @3
    hit                        0.1000  0.3000
    ndcg                       0.1000  0.2131
    r_precision                0.1000  (at k = |R| of each row)
    <BLANKLINE>
    lift (mean / random)           @1      @3
    hit                        7.9297  3.1033
    ndcg                       7.9297  4.1145
    r_precision                7.9297  (at k = |R| of each row)
    """
    metrics = _check_report_metrics(metrics)
    ks = _check_report_k(k)
    per_row = check_bool(per_row, "per_row")
    random_baseline = check_bool(random_baseline, "random_baseline")
    ignore_ties = check_bool(ignore_ties, "ignore_ties")
    zero_division = check_zero_division(zero_division)
    check_real(relevance_threshold, "relevance_threshold")
    # Metric parameters go to the metrics they apply to; a non-default value
    # that applies to none of them is an error, as in get_scorer.
    given = {
        "denominator": denominator,
        "gain": gain,
        "log_base": log_base,
        "beta": beta,
        "max_grade": max_grade,
        "p": p,
        "multiple": multiple,
        "recall_level": recall_level,
        "recall_levels": recall_levels,
        "tp_weight": tp_weight,
        "fp_weight": fp_weight,
        "fn_weight": fn_weight,
        "tn_weight": tn_weight,
        "propensity": propensity,
    }
    applicable = {p for m in metrics for p in _metric_of(m).param_names}
    wanted = {
        name: value
        for name, value in given.items()
        if name in applicable or not engine.is_default_param(name, value)
    }
    names = _names(metrics, ks)
    if metrics[0] not in INTENT_AWARE and getattr(y_true, "ndim", None) == 3:
        raise ValueError(
            f"y_true is 3-D, the relevance of each item to each intent, which "
            f"only the intent-aware measures ({', '.join(INTENT_AWARE)}) read; "
            f"{', '.join(metrics)} take a 2-D y_true: pass one, such as "
            f"y_true.max(axis=2) (relevant to any intent)."
        )
    if metrics[0] in INTENT_AWARE:  # all of them (checked)
        requests = _intent_requests(
            names, wanted, {"alpha": alpha, "intent_weights": intent_weights}
        )
    else:
        if alpha != 0.5 or intent_weights is not None:
            raise TypeError(
                "alpha and intent_weights apply to the intent-aware measures "
                "only, none of which is in metrics."
            )
        requests = measure_names.requests_for_names(names, wanted)
    offsets = None
    if qid is not None:  # one segment per query, once for both passes
        grouped = group_by_qid(
            y_true,
            y_score,
            qid,
            sample_weight,
            labels=labels,
            threshold=relevance_threshold,
        )
        y_true, y_score = grouped.y_true, grouped.y_score
        sample_weight, offsets = grouped.sample_weight, grouped.offsets
    common = {
        "relevance_threshold": relevance_threshold,
        "labels": labels,
        "sample_weight": sample_weight,
        "offsets": offsets,
    }
    rows = row_values(requests, y_true, y_score, ignore_ties=ignore_ties, **common)
    # One warning for the whole report under "warn".
    values = engine.with_undefined(rows, requests, zero_division, keys=names)
    # Each metric's mean weighs its rows as its function does by default
    # (the propensity-scored metrics by each row's best value: pyxclib's).
    weights = {name: engine.mean_weights(rows, j) for j, name in enumerate(names)}
    scores = {name: engine.mean_of_rows(v, weights[name]) for name, v in values.items()}
    random = None
    if random_baseline:
        # Undefined rows are the same for both passes and were already
        # reported: compute the baseline silently with the same fill.
        random_rows = row_values(
            requests, y_true, random_ranking_scores(y_score), **common
        )
        quiet = 0.0 if zero_division == "warn" else zero_division
        random = {
            name: engine.mean_of_rows(v, engine.mean_weights(random_rows, j))
            for j, (name, v) in enumerate(
                engine.with_undefined(random_rows, requests, quiet, keys=names).items()
            )
        }
    return RankingReport(
        scores=scores,
        random=random,
        per_row=values if per_row else None,
        metrics=metrics,
        k=ks,
        n_samples=rows.values[0].shape[0],
        n_items=rows.n_items,
        ignore_ties=ignore_ties,
        n_averaged=None
        if zero_division == "warn" or not np.isnan(zero_division)
        else {name: int(np.count_nonzero(~np.isnan(v))) for name, v in values.items()},
    )


def _intent_requests(names, wanted, given):
    """The requests of a report of intent-aware measures: ``given`` their
    own parameters (``alpha``, ``intent_weights``, validated by their
    functions); ``wanted``, the 2-D metrics' non-default ones (an error)."""
    if wanted:
        raise TypeError(
            f"{sorted(wanted)} apply to none of the intent-aware measures in metrics."
        )
    check_real(
        given["alpha"],
        "alpha",
        low=0.0,
        low_inclusive=True,
        high=1.0,
        high_inclusive=True,
    )
    out = []
    for name in names:
        metric, _, k = name.partition("@")
        metric = INTENT_AWARE[metric]
        params = tuple((p, given[p]) for p in metric.param_names)
        out.append(engine.Request(metric, int(k), params))
    return out


# ----------------------------------------------------------------------------
# Curves
# ----------------------------------------------------------------------------


class PrecisionRecallAtK(NamedTuple):
    """Mean P@k, R@k and F1@k at every cut-off ``k``.

    Unpacks like scikit-learn's curves:
    ``precision, recall, f1, k = precision_recall_at_k_curve(...)``. Each
    parameter is also an attribute of the same name.

    Parameters
    ----------
    precision : ndarray of shape (k_max,)
        Mean precision@k at each cut-off (per row with ``average=None``:
        shape (n_samples, k_max)).
    recall : ndarray of shape (k_max,)
        Mean recall@k at each cut-off.
    f1 : ndarray of shape (k_max,)
        Mean F1@k at each cut-off.
    k : ndarray of shape (k_max,)
        The cut-offs ``1, 2, ..., k_max``.

    Examples
    --------
    >>> from sklearn_rankk import precision_recall_at_k_curve
    >>> curve = precision_recall_at_k_curve([[1, 0, 1]], [[0.9, 0.5, 0.1]])
    >>> curve.k
    array([1, 2, 3])
    >>> curve.recall
    array([0.5, 0.5, 1. ])
    """

    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    k: np.ndarray


def precision_recall_at_k_curve(
    y_true,
    y_score,
    *,
    k_max=None,
    sample_weight=None,
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
    labels=None,
    qid=None,
    average="mean",
):
    """Precision, recall and F1 at every cut-off ``k = 1, ..., k_max``.

    One top-k pass ranks every row to depth ``k_max``; the curves are then
    cumulative sums, ``O(n_samples * k_max)``. Ties are averaged exactly as in
    the metric functions, so each point equals :func:`precision_at_k_score`
    (and recall, F1) at that ``k``.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_samples, n_items), or \
array-like of shape (n_samples,)
        Relevance, as for the metric functions (1-D: class labels).
    y_score : array-like of shape (n_samples, n_items)
        Scores; higher ranks first, ``-inf`` is not retrieved.
    k_max : int, default=None
        Largest cut-off; None means ``n_items``. It may exceed ``n_items``:
        P@k keeps dividing by ``k``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample in the means.
    ignore_ties : bool, default=False
        Break ties as scikit-learn does (the later column first) instead of
        averaging over them.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Recall and F1 of rows with no relevant item.
    relevance_threshold : float, default=0
        An item is relevant when ``y_true > relevance_threshold``.
    labels : array-like of shape (n_items,), default=None
        Class of each column, with 1-D ``y_true``.
    qid : array-like of shape (n_documents,), default=None
        Query id of each document, with 1-D ``y_true`` and ``y_score`` (flat
        learning-to-rank data): each query is one row.
    average : {"mean"} or None, default="mean"
        None returns each row's curve: arrays of shape (n_samples, k_max).

    Returns
    -------
    curve : PrecisionRecallAtK
        Named tuple ``(precision, recall, f1, k)``.

    See Also
    --------
    ranking_report : Any metric at chosen cut-offs.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import precision_recall_at_k_curve
    >>> y_true = np.array([[1, 0, 1, 0], [0, 1, 0, 0]])
    >>> y_score = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.1, 0.7, 0.4]])
    >>> precision, recall, f1, k = precision_recall_at_k_curve(y_true, y_score)
    >>> k
    array([1, 2, 3, 4])
    >>> precision.round(3)
    array([0.5  , 0.25 , 0.167, 0.375])
    >>> recall
    array([0.25, 0.25, 0.25, 1.  ])
    """
    average = check_option(average, "average", AVERAGE_OPTIONS)
    zero_division = check_zero_division(zero_division)
    requests = [
        engine.make_request(metric, k_max, curve=True) for metric in PRECISION_RECALL
    ]
    rows = engine.row_values(
        requests,
        y_true,
        y_score,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        relevance_threshold=relevance_threshold,
        labels=labels,
        qid=qid,
    )
    curves = engine.aggregate(
        rows, requests, average=average, zero_division=zero_division
    ).values()
    return PrecisionRecallAtK(*curves, k=np.arange(1, rows.values[0].shape[1] + 1))


class InterpolatedPrecisionRecall(NamedTuple):
    """Mean interpolated precision at each recall level.

    Unpacks as ``precision, recall = interpolated_precision_recall_curve(...)``.

    Parameters
    ----------
    precision : ndarray of shape (n_levels,)
        Mean interpolated precision at each level (per row with
        ``average=None``: shape (n_samples, n_levels)).
    recall : ndarray of shape (n_levels,)
        The recall levels.

    Examples
    --------
    >>> from sklearn_rankk import interpolated_precision_recall_curve
    >>> curve = interpolated_precision_recall_curve(
    ...     [[1, 0, 1, 0]], [[0.9, 0.5, 0.3, 0.1]], recall_levels=[0.0, 0.5, 1.0]
    ... )
    >>> curve.precision
    array([1.        , 1.        , 0.66666667])
    """

    precision: np.ndarray
    recall: np.ndarray


def interpolated_precision_recall_curve(
    y_true,
    y_score,
    *,
    recall_levels=RECALL_LEVELS.default,
    sample_weight=None,
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
    labels=None,
    qid=None,
    average="mean",
):
    """The interpolated precision-recall curve (trec_eval's 11 points).

    At each recall level ``x`` the value is
    :func:`interpolated_precision_score` with ``recall_level=x``: the best
    precision at or after the rank where ``x |R|`` relevant items have been
    retrieved. Its mean over the levels is
    :func:`eleven_point_precision_score`. Exact under ties, as the metric;
    one engine pass for every level.

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_samples, n_items), or \
array-like of shape (n_samples,)
        Relevance, as for the metric functions (1-D: class labels).
    y_score : array-like of shape (n_samples, n_items)
        Scores; higher ranks first, ``-inf`` is not retrieved.
    recall_levels : sequence of float, default=(0.0, 0.1, ..., 1.0)
        The recall levels, each in [0, 1].
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample in the means.
    ignore_ties : bool, default=False
        Break ties as scikit-learn does (the later column first) instead of
        averaging over them.
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        The value of rows with no relevant item.
    relevance_threshold : float, default=0
        An item is relevant when ``y_true > relevance_threshold``.
    labels : array-like of shape (n_items,), default=None
        Class of each column, with 1-D ``y_true``.
    qid : array-like of shape (n_documents,), default=None
        Query id of each document, with 1-D ``y_true`` and ``y_score`` (flat
        learning-to-rank data): each query is one row.
    average : {"mean"} or None, default="mean"
        None returns each row's curve: shape (n_samples, n_levels).

    Returns
    -------
    curve : InterpolatedPrecisionRecall
        Named tuple ``(precision, recall)``.

    See Also
    --------
    InterpolatedPrecisionRecallDisplay : Plot it.
    precision_recall_at_k_curve : Precision and recall at every cut-off.

    Examples
    --------
    >>> from sklearn_rankk import interpolated_precision_recall_curve
    >>> precision, recall = interpolated_precision_recall_curve(
    ...     [[1, 0, 1, 0]], [[0.9, 0.5, 0.3, 0.1]]
    ... )
    >>> recall[[0, 5, 10]]
    array([0. , 0.5, 1. ])
    >>> precision[[0, 5, 10]].round(4)
    array([1.    , 1.    , 0.6667])
    """
    average = check_option(average, "average", ("mean", None))
    zero_division = check_zero_division(zero_division)
    # The levels of the 11-point average, checked as that metric's own.
    checked = engine.check_params(
        METRICS["eleven_point_precision"], {"recall_levels": recall_levels}
    )
    levels = np.asarray(checked["recall_levels"], dtype=np.float64)
    requests = [
        engine.make_request(INTERPOLATED_PRECISION, None, {"recall_level": float(x)})
        for x in levels
    ]
    rows = engine.row_values(
        requests,
        y_true,
        y_score,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        relevance_threshold=relevance_threshold,
        labels=labels,
        qid=qid,
    )
    keys = [f"level{i}" for i in range(len(requests))]
    # Undefined on the same rows at every level: one name in the warning.
    name = f"interpolated_precision at recall level {levels[0]:g}"
    if levels.size > 1:
        name = (
            f"interpolated_precision at {levels.size} recall levels "
            f"({levels.min():g} to {levels.max():g})"
        )
    values = engine.aggregate(
        rows,
        requests,
        average=average,
        zero_division=zero_division,
        keys=keys,
        names=[name] * len(keys),
    )
    if average is None:
        precision = np.column_stack([values[key] for key in keys])
    else:
        precision = np.array([values[key] for key in keys])
    return InterpolatedPrecisionRecall(precision, levels)
