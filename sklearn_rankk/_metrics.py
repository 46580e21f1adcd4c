"""Per-row metrics on the kernel's output, and the shared aggregation.

Every metric is computed from :class:`~sklearn_rankk._topk.Ranked`: the
ranks, tie groups and relevance the kernel returns for a block of rows. The value
is the exact expectation over all orderings of tied items (McSherry & Najork,
ECIR 2008); with ``ignore_ties=True`` every tie group has one item and the
same formulas give the value of the column-order ranking.

Notation for one row: ranks ``p = 0 .. K-1``; the item at rank ``p`` lies in
tie group ``g`` of ``n_g`` items (whole row) of which ``r_g`` are relevant,
starting at rank ``a_g``; ``o = p - a_g`` is its offset in the group.

* expected relevance at ``p``: ``r_g / n_g`` (linear metrics: P, R, F1,
  R-precision, DCG, nDCG);
* probability that rank ``p`` is relevant given that no earlier rank of its
  group is: ``r_g / (n_g - o)``; with these, P(no relevant item in the top k)
  and P(first relevant item at rank p) are products (hit, MRR);
* ``E[rel_i rel_j]`` for two ranks of one group: ``r_g (r_g - 1) /
  (n_g (n_g - 1))``, of different groups: the product of the expectations (AP).
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from ._topk import RelevanceSource, iter_blocks, rank_block
from ._validation import (
    AVERAGE_OPTIONS,
    DENOMINATOR_OPTIONS,
    GAIN_OPTIONS,
    check_bool,
    check_exponential_gain,
    check_inputs,
    check_k,
    check_option,
    check_real,
    check_zero_division,
    group_by_qid,
    is_dask,
)


def _discount(K, log_base):
    return np.log(log_base) / np.log(np.arange(2, K + 2, dtype=np.float64))


# --------------------------------------------------------------------------
# Per-row metrics. Each takes (ranked, cut, k, params): cut (n_rows,) is
# the number of ranks counted per row, k the nominal cut-off (P@k divides by
# it even when a row is shorter). Each returns (values, undefined), undefined
# marking the rows that follow zero_division (None: never undefined).
# --------------------------------------------------------------------------


def _in_cut(ranked, cut):
    return np.arange(ranked.k) < cut[:, None]


def _n_relevant_in_cut(ranked, cut):
    """Expected number of relevant items in the top ``cut`` ranks."""
    return np.sum(ranked.expected_relevant(), axis=1, where=_in_cut(ranked, cut))


def _precision(ranked, cut, k, params):
    return _n_relevant_in_cut(ranked, cut) / k, None


def _recall(ranked, cut, k, params):
    n_rel = ranked.n_relevant
    return _safe_div(_n_relevant_in_cut(ranked, cut), n_rel), n_rel == 0


def _f1(ranked, cut, k, params):
    # F1@k = 2 P R / (P + R) = 2 |R_k| / (k + |R|): linear in |R_k|.
    n_rel = ranked.n_relevant
    return 2.0 * _n_relevant_in_cut(ranked, cut) / (k + n_rel), n_rel == 0


def _first_hit_terms(ranked, cut):
    """Per rank: P(relevant | no earlier rank of its group is relevant).

    Returns (h, survive) where survive[:, p] = P(no relevant item at ranks < p)
    within the cut.
    """
    r_g = ranked.relevant_group_sum()
    offset = np.arange(ranked.k) - ranked.gstart
    h = np.clip(r_g / (ranked.gsize - offset), 0.0, 1.0)
    h = np.where(ranked.valid & _in_cut(ranked, cut), h, 0.0)
    survive = np.ones_like(h)
    np.cumprod(1.0 - h[:, :-1], axis=1, out=survive[:, 1:])
    return h, survive


def _hit(ranked, cut, k, params):
    h, survive = _first_hit_terms(ranked, cut)
    return 1.0 - survive[:, -1] * (1.0 - h[:, -1]), None


def _mrr(ranked, cut, k, params):
    h, survive = _first_hit_terms(ranked, cut)
    ranks = np.arange(1, ranked.k + 1, dtype=np.float64)
    return np.sum(survive * h / ranks, axis=1), None


def _average_precision(ranked, cut, k, params):
    """AP@k = sum_{p < k} rel_p * P@(p+1) / denominator, in expectation."""
    denominator = params["denominator"]
    pos = np.arange(ranked.k)
    in_cut = _in_cut(ranked, cut)
    r_g = ranked.relevant_group_sum()
    n_g = ranked.gsize
    valid = ranked.valid
    e = ranked.expected_relevant()
    pair = np.where(
        valid & (n_g > 1), r_g * (r_g - 1) / (n_g * np.maximum(n_g - 1, 1)), 0.0
    )
    # Relevant items expected before each group's start (groups before are
    # wholly inside the top K, so this is their exact count).
    csum = np.concatenate([np.zeros((e.shape[0], 1)), np.cumsum(e, axis=1)], axis=1)
    before = np.take_along_axis(csum, ranked.gstart, axis=1)
    offset = pos - ranked.gstart
    ranks = pos + 1.0
    terms = np.where(in_cut, (e * (1.0 + before) + offset * pair) / ranks, 0.0)
    numerator = terms.sum(axis=1)
    n_rel = ranked.n_relevant
    undefined = n_rel == 0
    if denominator == "relevant":
        return _safe_div(numerator, n_rel), undefined
    if denominator == "min":
        return _safe_div(numerator, np.minimum(k, n_rel)), undefined

    # "retrieved": divide by the number of relevant items in the top k, which
    # is random only through the tie group straddling the cut-off. Condition
    # on h, the number of its relevant items that land inside the cut
    # (hypergeometric); given h they are uniformly spread over its ranks.
    retrieved = np.sum(e, axis=1, where=in_cut)
    values = _safe_div(numerator, retrieved)
    last = np.maximum(cut - 1, 0)[:, None]
    a = np.take_along_axis(ranked.gstart, last, axis=1)[:, 0]
    n = np.take_along_axis(n_g, last, axis=1)[:, 0]
    r = np.take_along_axis(r_g, last, axis=1)[:, 0]
    valid_last = np.take_along_axis(valid, last, axis=1)[:, 0]
    m = cut - a
    straddle = valid_last & (a + n > cut) & (r > 0) & (cut > 0)
    if np.any(straddle):
        from scipy.stats import hypergeom  # heavy import: only when needed

        rows = np.flatnonzero(straddle)
        a, n, r, m = a[rows], n[rows], r[rows].astype(np.int64), m[rows]
        pre = pos < a[:, None]
        c0 = np.sum(e[rows], axis=1, where=pre)
        n0 = np.sum(terms[rows], axis=1, where=pre)
        strad = ~pre & in_cut[rows]
        s1 = np.sum(np.where(strad, 1.0 / ranks, 0.0), axis=1)
        s2 = np.sum(np.where(strad, (pos - a[:, None]) / ranks, 0.0), axis=1)
        hs = np.arange(int(np.max(np.minimum(m, r))) + 1)[None, :]
        pmf = hypergeom.pmf(hs, n[:, None], r[:, None], m[:, None])
        mf = m[:, None].astype(np.float64)
        num = (
            n0[:, None]
            + hs / mf * (1.0 + c0[:, None]) * s1[:, None]
            + np.where(mf > 1, hs * (hs - 1) / (mf * np.maximum(mf - 1, 1)), 0.0)
            * s2[:, None]
        )
        den = c0[:, None] + hs
        cond = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
        values[rows] = np.sum(pmf * cond, axis=1)
    return values, undefined


def _dcg_values(ranked, cut, params):
    g = ranked.expected_gain(params["gain"])
    disc = _discount(ranked.k, params["log_base"])
    return np.sum(g * disc, axis=1, where=_in_cut(ranked, cut))


def _dcg(ranked, cut, k, params):
    return _dcg_values(ranked, cut, params), None


def _ndcg(ranked, cut, k, params):
    dcg = _dcg_values(ranked, cut, params)
    ideal = ranked.ideal_gains(params["gain"])
    disc = _discount(ranked.k, params["log_base"])
    idcg = np.sum(ideal * disc, axis=1, where=_in_cut(ranked, cut))
    return _safe_div(dcg, idcg), idcg <= 0


def _cumulative_relevant(ranked, k):
    """Expected relevant items in the top 1, 2, ..., k ranks: (n_rows, k).

    Ranks beyond the row's width add nothing, so the last count repeats.
    """
    counts = ranked._cached(
        "rel_cumulative", lambda: np.cumsum(ranked.expected_relevant(), axis=1)
    )
    if counts.shape[1] >= k:
        return counts[:, :k]
    return np.pad(counts, ((0, 0), (0, k - counts.shape[1])), mode="edge")


def _precision_curve(ranked, cut, k, params):
    return _cumulative_relevant(ranked, k) / np.arange(1, k + 1), None


def _recall_curve(ranked, cut, k, params):
    n_rel = ranked.n_relevant
    return _safe_div(_cumulative_relevant(ranked, k), n_rel[:, None]), n_rel == 0


def _f1_curve(ranked, cut, k, params):
    n_rel = ranked.n_relevant
    denominator = np.arange(1, k + 1) + n_rel[:, None]
    return 2.0 * _cumulative_relevant(ranked, k) / denominator, n_rel == 0


def _safe_div(num, den):
    num = np.asarray(num, dtype=np.float64)
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


# --------------------------------------------------------------------------
# Metric specifications and the evaluation driver
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricSpec:
    """How to compute one metric: its per-row function and its cut-off."""

    name: str
    row_function: object
    allow_k_none: bool = False
    graded: bool = False
    cut_is_n_relevant: bool = False  # R-precision: cut-off |R| per row
    params: tuple = ()  # names of metric-specific keyword parameters


SPECS = {
    "precision": MetricSpec("precision", _precision),
    "recall": MetricSpec("recall", _recall),
    "f1": MetricSpec("f1", _f1),
    "hit": MetricSpec("hit", _hit),
    "mrr": MetricSpec("mrr", _mrr, allow_k_none=True),
    "map": MetricSpec(
        "map", _average_precision, allow_k_none=True, params=("denominator",)
    ),
    "dcg": MetricSpec(
        "dcg", _dcg, allow_k_none=True, graded=True, params=("gain", "log_base")
    ),
    "ndcg": MetricSpec(
        "ndcg", _ndcg, allow_k_none=True, graded=True, params=("gain", "log_base")
    ),
    # R-precision is recall (= precision) at the cut-off |R| of each row.
    "r_precision": MetricSpec("r_precision", _recall, cut_is_n_relevant=True),
}

# Curves: the value at every cut-off 1..k of each row, shape (n_rows, k).
CURVE_SPECS = {
    "precision": MetricSpec("precision", _precision_curve),
    "recall": MetricSpec("recall", _recall_curve),
    "f1": MetricSpec("f1", _f1_curve),
}


#: Defaults of the metric-specific keyword parameters.
METRIC_PARAM_DEFAULTS = {"denominator": "relevant", "gain": "linear", "log_base": 2}


def is_default_param(name, value):
    """Whether ``value`` is the default of metric parameter ``name``.

    A caller that takes metric parameters for several metrics passes a
    non-default value only to the metrics it applies to, and reports one
    that applies to none of them.
    """
    default = METRIC_PARAM_DEFAULTS[name]
    return isinstance(value, type(default)) and value == default


def check_metric_params(spec, params):
    """Validate a metric's own keyword parameters."""
    out = {}
    if "denominator" in spec.params:
        out["denominator"] = check_option(
            params["denominator"], "denominator", DENOMINATOR_OPTIONS
        )
    if "gain" in spec.params:
        out["gain"] = check_option(params["gain"], "gain", GAIN_OPTIONS)
    if "log_base" in spec.params:
        out["log_base"] = check_real(
            params["log_base"], "log_base", low=1, low_inclusive=False
        )
    return out


def per_row_values(
    requests,
    y_true,
    y_score,
    *,
    sample_weight=None,
    ignore_ties=False,
    relevance_threshold=0,
    labels=None,
    qid=None,
):
    """Per-row values of several metrics from one top-k pass per block.

    Parameters
    ----------
    requests : list of (MetricSpec, k or None, dict of validated params)

    Returns
    -------
    values : list of ndarray (n_samples,), or (n_samples, k) for curves
    undefined : list of ndarray (n_samples,) of bool
    sample_weight : validated sample weights or None
    """
    if qid is not None:
        y_true, y_score, sample_weight = group_by_qid(
            y_true,
            y_score,
            qid,
            sample_weight,
            labels=labels,
            threshold=relevance_threshold,
        )
    if any(is_dask(x) for x in (y_true, y_score, sample_weight)):
        # Dask inputs: the same function on every row block, on the workers.
        from ._dask import per_row_values_dask

        return per_row_values_dask(
            requests,
            y_true,
            y_score,
            sample_weight=sample_weight,
            ignore_ties=ignore_ties,
            relevance_threshold=relevance_threshold,
            labels=labels,
        )
    ignore_ties = check_bool(ignore_ties, "ignore_ties")
    threshold = check_real(relevance_threshold, "relevance_threshold")
    graded = any(spec.graded for spec, _, _ in requests)
    data = check_inputs(y_true, y_score, sample_weight, graded=graded, labels=labels)
    if any(params.get("gain") == "exponential" for _, _, params in requests):
        check_exponential_gain(data.y_true, threshold)
    n_samples, n_items = data.shape
    values = [None] * len(requests)  # allocated on the first block's shapes
    undefined = [np.zeros(n_samples, dtype=bool) for _ in requests]
    source = RelevanceSource(data.y_true, threshold)
    want_ideal = any(spec.name == "ndcg" for spec, _, _ in requests)
    exponential = any(p.get("gain") == "exponential" for _, _, p in requests)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is checked
        for rows in iter_blocks(n_samples, n_items):
            # The cut-off of each request for each row of the block.
            cuts = []
            for spec, k, _ in requests:
                if spec.cut_is_n_relevant:
                    cuts.append(source.n_relevant(rows))
                else:
                    n_rows = rows.stop - rows.start
                    cuts.append(np.full(n_rows, min(n_items, k or n_items)))
            # Each row is ranked as deep as its deepest cut-off needs.
            row_k = np.clip(np.max(cuts, axis=0), 1, n_items)
            ranked = rank_block(
                source,
                data.y_score,
                rows,
                row_k,
                ignore_ties=ignore_ties,
                want_ideal=want_ideal,
                exponential=exponential,
            )
            for i, ((spec, k, params), cut) in enumerate(zip(requests, cuts)):
                nominal_k = cut if spec.cut_is_n_relevant else (k or n_items)
                # Only the ranks this request counts (others may go deeper).
                window = ranked.window(max(1, int(cut.max())))
                v, u = spec.row_function(window, cut, nominal_k, params)
                if not np.all(np.isfinite(v)):
                    raise ValueError(
                        f"{spec.name} overflowed float64 on some rows: the gains "
                        f"of y_true are too large (use smaller grades or "
                        f"gain='linear')."
                    )
                if values[i] is None:
                    values[i] = np.empty((n_samples, *v.shape[1:]), dtype=np.float64)
                values[i][rows] = v
                if u is not None:
                    undefined[i][rows] = u
    return values, undefined, data.sample_weight


def _caller_stacklevel():
    """``stacklevel`` pointing a warning at the first frame outside the package."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame, level = sys._getframe(1), 1  # the function that warns
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def undefined_fill(zero_division, n_undefined, n_samples, metric):
    """The value of the ``n_undefined`` undefined rows of ``n_samples``.

    ``zero_division="warn"`` gives 0.0 and one ``UndefinedMetricWarning``
    with the count, pointed at the user's line.
    """
    if zero_division != "warn":
        return zero_division
    warn_undefined({metric: n_undefined}, n_samples)
    return 0.0


def warn_undefined(counts, n_samples):
    """One ``UndefinedMetricWarning`` for the metrics of ``counts`` (name ->
    number of undefined rows) that have undefined rows, set to 0.0."""
    by_count = {}
    for metric, n_undefined in counts.items():
        if n_undefined:
            by_count.setdefault(n_undefined, []).append(metric)
    if not by_count:
        return
    parts = [
        f"{', '.join(names)} {'is' if len(names) == 1 else 'are'} ill-defined and "
        f"set to 0.0 in {n_undefined} of {n_samples} samples"
        for n_undefined, names in by_count.items()
    ]
    warnings.warn(
        f"{'; '.join(parts)} with no relevant item. Use zero_division to "
        f"control this behaviour.",
        UndefinedMetricWarning,
        stacklevel=_caller_stacklevel(),
    )


def aggregate(values, undefined, *, sample_weight, average, zero_division, metric):
    """Apply ``zero_division`` to undefined rows, then average.

    This is the only place where rows are combined. ``values`` holds one
    value per row, or one row of values (a curve over k) per row; the mean
    is then taken column by column.
    """
    n_undefined = int(np.count_nonzero(undefined))
    if n_undefined:
        fill = undefined_fill(zero_division, n_undefined, values.shape[0], metric)
        values = values.copy()
        values[undefined] = fill
    if average is None:
        return values
    # Only rows left out by zero_division=np.nan are dropped.
    keep = ~undefined if n_undefined and np.isnan(fill) else slice(None)
    kept = values[keep]
    w = None if sample_weight is None else sample_weight[keep]
    if kept.shape[0] == 0 or (w is not None and not np.any(w > 0)):
        # Every row (or every positively weighted row) was left out.
        mean = np.full(values.shape[1:], np.nan)
    else:
        mean = np.average(kept, axis=0, weights=w)
    return float(mean) if mean.ndim == 0 else mean


def mean_of_rows(values, weights):
    """The (weighted) mean of per-row values in which NaN marks rows left
    out (``zero_division=np.nan``), as ``aggregate`` takes it."""
    return aggregate(
        values,
        np.isnan(values),
        sample_weight=weights,
        average="mean",
        zero_division=np.nan,
        metric="",
    )


def evaluate(
    name,
    y_true,
    y_score,
    *,
    k,
    sample_weight,
    average,
    ignore_ties,
    zero_division,
    relevance_threshold,
    labels,
    qid=None,
    **params,
):
    """Validate, compute per-row values, aggregate: the body of every metric."""
    spec = SPECS[name]
    metric = f"{name}_score" if spec.cut_is_n_relevant else f"{name}_at_k_score"
    if not spec.cut_is_n_relevant:
        k = check_k(k, allow_none=spec.allow_k_none, metric=metric)
    average = check_option(average, "average", AVERAGE_OPTIONS)
    zero_division = check_zero_division(zero_division)
    params = check_metric_params(spec, params)
    (values,), (undefined,), weights = per_row_values(
        [(spec, k, params)],
        y_true,
        y_score,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        relevance_threshold=relevance_threshold,
        labels=labels,
        qid=qid,
    )
    return aggregate(
        values,
        undefined,
        sample_weight=weights,
        average=average,
        zero_division=zero_division,
        metric=metric,
    )
