"""The engine: every public path computes its metrics through :func:`row_values`.

Data flows one way: inputs (:mod:`.inputs`, :mod:`.validation`) -> the
compiled kernel, which ranks each row and computes the per-row values of every
requested metric (:mod:`.ranking` hands the inputs over) -> which rows are
empty (:func:`row_values`: no relevant item) -> what empty rows are worth
(:func:`fill_undefined`, the one place where ``zero_division`` is applied;
each metric's ``empty_rows`` says whether ``"warn"`` warns there) -> means
(:func:`aggregate`, :func:`mean_of_rows`).

Metric functions, scorers, reports, curves and displays, statistics, the
streaming accumulator, Dask inputs and the command line all call
:func:`row_values` with typed :class:`Request` objects.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from dataclasses import dataclass

import numpy as np

from . import _kernel
from ._kernel import TIES_EXACT, TIES_LATER_FIRST
from .inputs import group_by_qid, weighted_relevance
from .ranking import (
    OTHER_VIEW_RELEVANCE,
    compile_intent_request,
    compile_requests,
    evaluate,
    evaluate_intents,
    relevant_grades,
    with_item_weights,
)
from .registry import AVERAGE_COUNTS, METRICS, PS_IDEAL, ROW_COUNT
from .requests import (  # noqa: F401  (re-exported: the engine's requests)
    MIN_GEO_MEAN,
    Request,
    check_params,
    is_default_param,
    make_request,
    requests_for_names,
)
from .validation import (
    AVERAGE_OPTIONS,
    INF_GRADES,
    NAN_GRADES,
    NAN_SCORES,
    WEIGHTED_AVERAGES,
    RankingInput,
    check_bool,
    check_exponential_gain,
    check_inputs,
    check_item_weights,
    check_max_grade,
    check_numeric_dtype,
    check_option,
    check_real,
    check_sample_weight,
    check_zero_division,
    is_dask,
    largest_grade,
)

# --------------------------------------------------------------------------
# Per-row values
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Rows:
    """Per-row values of several requests, from one top-k pass per block.

    Attributes
    ----------
    values : list of ndarray
        One per request: shape (n_samples,), or (n_samples, k) for a curve.
    undefined : list of ndarray of bool, shape (n_samples,)
        One per request: the rows whose value ``zero_division`` decides, the
        rows with no relevant item (the same rows for every metric but
        fall-out, whose are the rows with no non-relevant item). Where
        the metric is defined there (its ``empty_rows`` is ``"zero"``),
        ``zero_division="warn"`` keeps its value, 0, without a warning.
    sample_weight : ndarray of shape (n_samples,) or None
        The validated sample weights (one per query with ``qid``).
    n_items : int
        Columns of the score matrix (the longest query with ``qid``).
    ideal : list or None
        One per request: None, or for a propensity-scored metric (its
        registry entry's ``ideal_weight``) the weight of each row in its
        mean (pyxclib's ratio of dataset means): the row's best achievable
        unnormalised value, shape (n_samples,), or (n_samples, k) for a
        curve. :func:`mean_weights` combines it with ``sample_weight``.
    """

    values: list
    undefined: list
    sample_weight: np.ndarray | None
    n_items: int
    ideal: list | None = None


_BACKENDS = []


def register_backend(accepts, run):
    """Send inputs for which ``accepts(y_true, y_score, sample_weight)`` is
    true to ``run``, which has the signature and result of :func:`row_values`
    (without ``qid``). The Dask support registers itself here."""
    _BACKENDS.append((accepts, run))


def row_values(
    requests,
    y_true,
    y_score,
    *,
    sample_weight=None,
    ignore_ties=False,
    relevance_threshold=0,
    labels=None,
    qid=None,
    offsets=None,
):
    """Per-row values of several requests, from one pass of the kernel.

    Parameters
    ----------
    requests : list of Request
    y_true, y_score, sample_weight, ignore_ties, relevance_threshold, labels, qid
        As the metric functions take them.
    offsets : ndarray of int64 of shape (n_rows + 1,), default=None
        Flat ``y_true`` and ``y_score`` already grouped into segments (the
        ``offsets`` of :func:`~sklearn_rankk._core.inputs.group_by_qid`), with
        one weight per segment.

    Returns
    -------
    rows : Rows
    """
    if qid is not None:
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
    if offsets is None:
        for accepts, run in _BACKENDS:
            if accepts(y_true, y_score, sample_weight):
                return run(
                    requests,
                    y_true,
                    y_score,
                    sample_weight=sample_weight,
                    ignore_ties=ignore_ties,
                    relevance_threshold=relevance_threshold,
                    labels=labels,
                )
        if any(is_dask(x) for x in (y_true, y_score, sample_weight)):
            raise RuntimeError("dask inputs need sklearn_rankk._parallel, not imported")
    ignore_ties = check_bool(ignore_ties, "ignore_ties")
    threshold = check_real(relevance_threshold, "relevance_threshold")
    if offsets is None:
        data = check_inputs(y_true, y_score, sample_weight, labels=labels)
        if data.from_labels:
            _warn_trivial(requests, data.shape[1])
    else:
        data = RankingInput(
            y_true,
            y_score,
            check_sample_weight(sample_weight, offsets.shape[0] - 1),
            offsets,
        )
    n_items = data.shape[1]
    # One kernel pass per distinct relevance threshold (requests may carry
    # their own, as ir_measures' ``P(rel=2)@5``), in the requests' order.
    # The propensity-scored metrics rank the gains y_l w_l: one pass per
    # distinct threshold and weights too.
    own = [
        (
            threshold if r.relevance_threshold is None else r.relevance_threshold,
            _item_weights(r, n_items),
        )
        for r in requests
    ]
    n = data.shape[0]
    values_of, empty_of = [None] * len(requests), [None] * len(requests)
    ideal_of = [None] * len(requests)
    top = None
    for key in dict.fromkeys(own):
        group_threshold, weights = key
        members = [i for i, t in enumerate(own) if t == key]
        group = [requests[i] for i in members]
        if weights is not None:
            _propensity_pass(
                group,
                members,
                data,
                group_threshold,
                weights,
                ignore_ties,
                values_of,
                empty_of,
                ideal_of,
            )
            continue
        exponential = any(r.options.get("gain") == "exponential" for r in group)
        max_grades = {r.options.get("max_grade") for r in group} - {None}
        if exponential or max_grades:
            if top is None:
                top = largest_grade(data.y_true)  # one read for every check
            if exponential:
                check_exponential_gain(top, group_threshold)
            for max_grade in max_grades:
                check_max_grade(top, group_threshold, max_grade)
        grades = None  # the relevant grades, for callable gain maps
        if any(callable(r.options.get("gains")) for r in group):
            grades = relevant_grades(data.y_true, group_threshold)
        compiled = compile_requests(group, n_items, grades=grades)
        ties = TIES_LATER_FIRST if ignore_ties else TIES_EXACT
        try:
            values, empty, flags = evaluate(
                compiled, data, ties=ties, threshold=group_threshold
            )
        except MemoryError:
            curves = [r for r in group if r.curve]
            if not curves:
                raise
            raise ValueError(
                f"k_max={curves[0].k or n_items} asks for {n} rows x "
                f"{compiled.n_cols} cut-offs of values, "
                f"{n * compiled.n_cols * 8 / 2**30:.1f} GiB: more memory "
                f"than is free. Choose a smaller k_max."
            ) from None
        _raise_for_flags(flags)
        for j, (i, request, columns) in enumerate(
            zip(members, group, compiled.columns)
        ):
            values_of[i] = (
                values[:, columns] if request.curve else values[:, columns.start]
            )
            empty_of[i] = empty[:, j].copy()
    for request, v in zip(requests, values_of):
        if not np.all(np.isfinite(v)):
            raise ValueError(
                f"{request.metric.name} overflowed float64 on some rows: the gains "
                f"of y_true are too large (use smaller grades or gain='linear')."
            )
    rows_values, undefined = values_of, empty_of
    ideal = ideal_of if any(i is not None for i in ideal_of) else None
    return Rows(rows_values, undefined, data.sample_weight, n_items, ideal)


def intent_values(
    formula,
    y_true,
    y_score,
    k,
    *,
    ignore_ties=False,
    relevance_threshold=0,
    p=0.5,
    discount="log",
    weights=None,
    ideal=True,
):
    """Per-row values of one intent-aware request (``_kernel.INTENT_*``) on
    ``y_true`` of shape (n_samples, n_items, n_intents), every intent from one
    pass of the kernel (one selection per row).

    Returns
    -------
    values : ndarray of shape (n_samples, n_intents)
        Each intent's value.
    present : ndarray of bool of shape (n_samples, n_intents)
        Whether the sample has an item relevant to the intent.
    ideal : ndarray of shape (n_samples,) or None
        INTENT_ALPHA's greedy ideal (``weights``: its intent weights, None:
        1 each); 0 where ``ideal`` is False.
    """
    check_numeric_dtype(y_true, "y_true")
    n_intents = y_true.shape[2]
    compiled = compile_intent_request(
        formula, k, n_intents, p=p, discount=discount, weights=weights, ideal=ideal
    )
    ties = TIES_LATER_FIRST if check_bool(ignore_ties, "ignore_ties") else TIES_EXACT
    out, flags = evaluate_intents(
        compiled, y_true, y_score, ties=ties, threshold=relevance_threshold
    )
    _raise_for_flags(flags)
    ideal = out[:, 2 * n_intents] if formula == _kernel.INTENT_ALPHA else None
    return out[:, :n_intents], out[:, n_intents : 2 * n_intents] > 0, ideal


class _UnitWeights:
    """The weights of a propensity-scored request with ``propensity=None``."""

    def __init__(self, n_items):
        self.values = np.ones(n_items)

    def __eq__(self, other):
        return isinstance(other, _UnitWeights)

    def __hash__(self):
        return hash(_UnitWeights)


def _item_weights(request, n_items):
    """The item weights a request ranks by (None: the plain relevance)."""
    if request.metric.ideal_weight is None:
        return None
    weights = request.options.get("propensity")
    if weights is None:
        return _UnitWeights(n_items)
    return check_item_weights(weights, "propensity", n_items)


def _ideal_request(request):
    """The ideal DCG of a propensity-scored request, with its discount."""
    discount = request.metric.fixed_discount or "log"
    return Request(PS_IDEAL, request.k, (("discount", discount),), request.curve)


def binary_ideal_dcg(n_relevant, k):
    """``sum over ranks i <= min(k, n_relevant) of 1 / log2(i + 1)`` per row
    (float64 of n_relevant's shape), from one table of the ``k`` discounts."""
    table = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(2.0, k + 2)))))
    return table[np.minimum(n_relevant.astype(np.int64), k)]


def _propensity_pass(
    group, members, data, threshold, weights, ignore_ties, values_of, empty_of, ideal_of
):
    """One kernel pass of propensity-scored requests: each is its DCG-family
    formula on the gains ``y_l w_l``, with the ideal DCG and |R| of each row,
    whence the weight of the row in the metric's mean (``Rows.ideal``). A
    dense ``y_true`` is read as it is, the kernel weighing its relevant items
    as it reads them (an ITEM_WEIGHTS request); CSR and flat inputs go
    through :func:`weighted_relevance`."""
    unit = isinstance(weights, _UnitWeights)
    n_items = data.shape[1]
    kernel_requests = []
    for request in group:
        kernel_requests += [request, _ideal_request(request)]
    compiled = compile_requests(kernel_requests, n_items)
    ties = TIES_LATER_FIRST if ignore_ties else TIES_EXACT
    # A dense y_true of a dtype the kernel weighs as it reads, float64 scores.
    dense = (
        data.offsets is None
        and isinstance(data.y_true, np.ndarray)
        and (data.y_true.dtype in OTHER_VIEW_RELEVANCE or data.y_true.dtype == bool)
        and getattr(data.y_score, "dtype", None) == np.float64
    )
    if dense:
        compiled = with_item_weights(compiled, weights.values, threshold)
        values, empty, flags = evaluate(compiled, data, ties=ties, threshold=0.0)
        n_relevant = values[:, compiled.columns[-1].start]
    else:
        weighted = weighted_relevance(data, threshold, None if unit else weights.values)
        values, empty, flags = evaluate(compiled, weighted, ties=ties, threshold=0.0)
        n_relevant = None
    _raise_for_flags(flags)
    if n_relevant is None and any(
        r.metric.ideal_weight == "binary_ideal_dcg" for r in group
    ):
        n_relevant = _relevant_per_row(weighted)
    for j, (i, request) in enumerate(zip(members, group)):
        mine, best = compiled.columns[2 * j], compiled.columns[1 + 2 * j]
        if request.curve:
            v, ideal = values[:, mine], values[:, best]
            k = np.arange(1, ideal.shape[1] + 1)
        else:
            v, ideal = values[:, mine.start], values[:, best.start]
            k = request.k or n_items
        if request.metric.ideal_weight == "k":
            ideal = ideal / k
        else:  # the binary ideal DCG at k
            if request.curve:
                norm = np.column_stack([binary_ideal_dcg(n_relevant, c) for c in k])
            else:
                norm = binary_ideal_dcg(n_relevant, k)
            with np.errstate(invalid="ignore", divide="ignore"):
                ideal = np.where(norm > 0, ideal / np.where(norm > 0, norm, 1.0), 0.0)
        values_of[i], empty_of[i] = v, empty[:, 2 * j].copy()
        ideal_of[i] = ideal


def _relevant_per_row(weighted):
    """|R| of each row of :func:`weighted_relevance`'s inputs (the positive
    gains), without ranking anything."""
    y = weighted.y_true
    if weighted.offsets is not None:  # flat segments
        counts = np.concatenate(([0], np.cumsum(y > 0)))
        return np.diff(counts[weighted.offsets])
    positive = (y.data > 0).astype(np.int64)
    counts = np.concatenate(([0], np.cumsum(positive)))
    return np.diff(counts[y.indptr])


def mean_weights(rows, j):
    """The weights of request ``j``'s rows in its mean: ``sample_weight``,
    times each row's best achievable value for a propensity-scored request
    (pyxclib's ratio of dataset means)."""
    ideal = None if rows.ideal is None else rows.ideal[j]
    if ideal is None:
        return rows.sample_weight
    if rows.sample_weight is None:
        return ideal
    w = rows.sample_weight
    return ideal * (w[:, None] if ideal.ndim > 1 else w)


def _warn_trivial(requests, n_classes):
    """As scikit-learn's top_k_accuracy_score: k covering every class."""
    for request in requests:
        k = request.k
        trivial = request.metric.trivial_at_full_depth and not request.curve
        if trivial and k is not None and k >= n_classes:
            warnings.warn(
                f"'k' ({k}) greater than or equal to 'n_classes' ({n_classes}) "
                f"will result in a perfect score and is therefore meaningless.",
                undefined_metric_warning(),
                stacklevel=caller_stacklevel(),
            )


def _raise_for_flags(flags):
    """The kernel's findings on the inputs, as the errors validation raises."""
    found = np.bitwise_or.reduce(flags) if flags.size else 0
    if not found:
        return
    if found & _kernel.FLAG_NO_MEMORY:
        raise MemoryError("not enough memory for the kernel's row buffers")
    for flag, message in (
        (_kernel.FLAG_NAN_SCORE, NAN_SCORES),
        (_kernel.FLAG_NAN_REL, NAN_GRADES),
        (_kernel.FLAG_INF_REL, INF_GRADES),
    ):
        if found & flag:
            raise ValueError(message)
    if found & _kernel.FLAG_TIES_TOO_MANY:
        row = int(np.flatnonzero(flags & _kernel.FLAG_TIES_TOO_MANY)[0])
        raise ValueError(
            "the exact expectation under ties of a measure that is not linear "
            "in the ranks (yaap) needs more than 2**20 placements of the tie "
            f"groups of sample {row}: pass ignore_ties=True (ties broken as "
            "scikit-learn does) or break the ties in y_score."
        )
    if found & _kernel.FLAG_EXP_OVERFLOW:
        raise ValueError(
            'gain="exponential" overflows for grades >= 1024 (2**grade is '
            'infinite). Use gain="linear".'
        )


# --------------------------------------------------------------------------
# Undefined rows and aggregation
# --------------------------------------------------------------------------


def undefined_metric_warning():
    """scikit-learn's ``UndefinedMetricWarning``, the class users catch.

    Imported when a warning is issued, not with the package: importing
    scikit-learn takes longer than everything else the command line does.
    """
    from sklearn.exceptions import UndefinedMetricWarning

    return UndefinedMetricWarning


def caller_stacklevel():
    """``stacklevel`` pointing a warning at the first frame outside the package."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frame, level = sys._getframe(1), 1  # the function that warns
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def warns_on_empty(metric):
    """Whether ``zero_division="warn"`` warns on rows with no relevant item:
    where the metric is undefined (recall, nDCG, ...), not where it is 0 by
    definition (precision, hit, MRR, DCG)."""
    return metric.empty_rows == "zero_division"


def fill_undefined(zero_division, counts, n_samples):
    """The value of empty rows: the one place ``zero_division`` is applied.

    ``counts`` maps each metric's name to ``(metric, n_empty)``, its
    registry entry and its number of rows with no relevant item out of
    ``n_samples``. ``"warn"`` gives 0.0, with one ``UndefinedMetricWarning``
    for all the metrics undefined there, pointed at the user's line;
    ``np.nan`` leaves the rows out of the mean; 0.0 and 1.0 are their value.
    """
    if zero_division != "warn":
        return zero_division
    by_count = {}
    for name, (metric, n_undefined) in counts.items():
        if n_undefined and warns_on_empty(metric):
            where = (n_undefined, metric.undefined_when)
            by_count.setdefault(where, []).append(name)
    if by_count:
        parts = [
            f"{', '.join(names)} {'are' if _plural(names) else 'is'} ill-defined "
            f"and set to 0.0 in {n_undefined} of {n_samples} samples with {when}"
            for (n_undefined, when), names in by_count.items()
        ]
        warnings.warn(
            f"{'; '.join(parts)}. Use zero_division to control this behaviour.",
            undefined_metric_warning(),
            stacklevel=caller_stacklevel(),
        )
    return 0.0


def fill_and_average(values, undefined, name, rule, zero_division, average, weights):
    """Per-row values of one measure finished: ``zero_division`` on the rows
    where ``undefined`` (``rule``: what :func:`fill_undefined` reads of a
    metric, ``empty_rows`` and ``undefined_when``), then their weighted mean
    (``average="mean"``) or the rows themselves (``average=None``)."""
    n_undefined = int(np.count_nonzero(undefined))
    if n_undefined:
        fill = fill_undefined(zero_division, {name: (rule, n_undefined)}, len(values))
        values[undefined] = fill
    if average is None:
        return values
    return mean_of_rows(values, weights)


def _plural(names):
    """Several names, or one range of them (a curve's ``"ndcg@1 to ndcg@20"``)."""
    return len(names) > 1 or re.fullmatch(r"\S+@1 to \S+@\d+", names[0]) is not None


def with_undefined(rows, requests, zero_division, keys=None, *, names=None):
    """Per-row values with ``zero_division`` applied.

    Returns a dict key -> per-row values (the request's scorer name unless
    ``keys`` are given), NaN where ``zero_division=np.nan`` leaves a row out.
    ``"warn"`` warns once for all the requests with undefined rows (one
    warning per call), naming them by ``names``: one public name per request
    (repeats are named once); by default the keys, and for a curve its cut-offs
    (``"ndcg@1 to ndcg@20"``).
    """
    keys = keys or [r.key for r in requests]
    if names is None:
        names = [
            _curve_name(r, v.shape[1]) if r.curve else key
            for key, r, v in zip(keys, requests, rows.values)
        ]
    n_samples = rows.values[0].shape[0] if rows.values else 0
    undefined = [int(np.count_nonzero(u)) for u in rows.undefined]
    counts = {}
    for name, request, n in zip(names, requests, undefined):
        if n and (name not in counts or n > counts[name][1]):
            counts[name] = (request.metric, n)
    fill = fill_undefined(zero_division, counts, n_samples)
    out = {}
    for key, request, v, u, n in zip(
        keys, requests, rows.values, rows.undefined, undefined
    ):
        if n:
            v = v.copy()
            v[u] = fill
        if request.negate:  # a scorer of a loss; 0.0 - v: no -0.0
            v = 0.0 - v
        out[key] = v
    return out


def _curve_name(request, k_max):
    """The scorer names of a curve's values: ``"ndcg@1 to ndcg@20"``."""
    first = request.key.replace("@k", "@1")
    if k_max == 1:
        return first
    return f"{first} to {request.key.replace('@k', f'@{k_max}')}"


def geometric_mean_of_rows(values, weights):
    """The (weighted) geometric mean over rows, each value floored at
    :data:`MIN_GEO_MEAN` (trec_eval's ``gm_map``: ``exp`` of the mean of
    ``log(max(value, 1e-5))``); NaN marks rows left out, as in
    :func:`mean_of_rows`."""
    values = np.asarray(values, dtype=np.float64)
    if np.any(values < 0):
        raise ValueError(
            'average="gmean" takes the geometric mean of non-negative values; '
            "this metric has negative values."
        )
    logs = np.log(
        np.maximum(values, MIN_GEO_MEAN), where=~np.isnan(values), out=values.copy()
    )
    mean = mean_of_rows(logs, weights)
    return float(np.exp(mean)) if np.ndim(mean) == 0 else np.exp(mean)


def mean_of_rows(values, weights):
    """The (weighted) mean over rows of per-row values in which NaN marks the
    rows left out (``zero_division=np.nan``); column by column for curves.

    NaN if every row, or every positively weighted row, is left out.
    """
    keep = ~np.isnan(values)
    if values.ndim > 1:  # a curve: undefined rows are undefined at every k
        keep = keep[:, 0]
    if np.all(keep):
        kept, w = values, weights
    else:
        kept = values[keep]
        w = None if weights is None else weights[keep]
    if kept.shape[0] == 0 or (w is not None and not np.any(w > 0)):
        mean = np.full(values.shape[1:], np.nan)
    else:
        # Values and weights scaled by powers of two: the same mean, exactly,
        # without overflow (DCGs or weights near 1e308) or loss (denormals).
        top = np.max(np.abs(kept)) if kept.size else 0.0
        shift = int(np.frexp(top)[1]) if top > 0 else 0
        weights = None if w is None else unit_scale(w)
        mean = np.ldexp(
            np.average(np.ldexp(kept, -shift), axis=0, weights=weights), shift
        )
    return float(mean) if mean.ndim == 0 else mean


def unit_scale(weights):
    """``weights`` times the power of two that brings the largest into
    [0.5, 1): the same weighted mean, exactly (a power of two scales without
    rounding), but sums that neither overflow (weights near 1e308) nor lose
    every digit (denormal weights)."""
    return np.ldexp(weights, -np.frexp(np.max(weights))[1])


def aggregate(rows, requests, *, average, zero_division, keys=None, names=None):
    """Each request's per-row values (``average=None``) or mean (``"mean"``);
    ``names``: as :func:`with_undefined`'s."""
    values = with_undefined(rows, requests, zero_division, keys, names=names)
    if average is None:
        return values
    mean = geometric_mean_of_rows if average == "gmean" else mean_of_rows
    weights = {
        key: mean_weights(rows, j)
        for j, key in enumerate(keys or [r.key for r in requests])
    }
    return {key: mean(v, weights[key]) for key, v in values.items()}


# --------------------------------------------------------------------------
# The body of every metric function
# --------------------------------------------------------------------------


def _count_request(metric, average):
    """The request of the per-row count that ``average`` weights rows by."""
    count = metric.pair_count if average == "pairs" else AVERAGE_COUNTS[average]
    if count is None:
        pairs = [m.function_name for m in METRICS.values() if m.pair_count is not None]
        raise ValueError(
            f'average="pairs" applies to the metrics that average over pairs '
            f"({', '.join(pairs)}), not to {metric.function_name}."
        )
    return Request(ROW_COUNT, None, (("count", int(count)),))


def score(
    metric,
    y_true,
    y_score,
    *,
    k=None,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
    labels=None,
    qid=None,
    **params,
):
    """Validate, compute per-row values, aggregate: one metric function."""
    request = make_request(metric, k, params)
    average = check_option(average, "average", AVERAGE_OPTIONS + WEIGHTED_AVERAGES)
    zero_division = check_zero_division(zero_division)
    requests = [request]
    if average == "ideal" and metric.ideal_weight is None:
        ideal = [m.function_name for m in METRICS.values() if m.ideal_weight]
        raise ValueError(
            f'average="ideal" applies to the propensity-scored metrics '
            f"({', '.join(ideal)}), not to {metric.function_name}."
        )
    if average in WEIGHTED_AVERAGES and average != "ideal":
        requests.append(_count_request(metric, average))
    rows = row_values(
        requests,
        y_true,
        y_score,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        relevance_threshold=relevance_threshold,
        labels=labels,
        qid=qid,
    )
    if average == "ideal":  # each row weighted by its best value
        weights = mean_weights(rows, 0)
        rows = Rows(rows.values, rows.undefined, weights, rows.n_items)
        average = "mean"
    elif average in WEIGHTED_AVERAGES:
        # Each row weighted by its count, times its sample weight.
        counts = rows.values[1]
        weights = counts if rows.sample_weight is None else counts * rows.sample_weight
        rows = Rows(rows.values[:1], rows.undefined[:1], weights, rows.n_items)
        average = "mean"
    else:  # the plain (weighted) mean of the rows
        rows = Rows(rows.values, rows.undefined, rows.sample_weight, rows.n_items)
    (value,) = aggregate(
        rows,
        [request],
        average=average,
        zero_division=zero_division,
        keys=[metric.function_name],
    ).values()
    return value
