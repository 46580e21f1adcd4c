"""Metric requests: one metric at one cut-off with its parameters, validated,
and the kernel's fields of each (request.hpp's ``Request``).

Nothing here imports numpy, so that the command line turns measure names into
kernel requests without it; :mod:`.engine` re-exports :class:`Request`,
:func:`make_request` and the rest, and :mod:`.ranking` adds the arrays some
requests point the kernel to (gain maps, discount tables).
"""

from __future__ import annotations

import array
from dataclasses import dataclass

from . import _kernel
from .checks import (
    check_gain_map,
    check_k,
    check_option,
    check_option_or_callable,
    check_real,
)
from .registry import METRICS, PARAMS, parse_scorer_name


@dataclass(frozen=True)
class Request:
    """One metric at one cut-off, with its own parameters.

    Build it with :func:`make_request`, which validates it.

    Attributes
    ----------
    metric : Metric
        The registry entry.
    k : int or None
        Cut-off; None for the whole row (and for R-precision, cut at |R|).
        For a curve, the largest cut-off (None: the row length).
    params : tuple of (str, object)
        The metric's own parameters, validated, every one present.
    curve : bool
        Whether the request is for the value at every cut-off ``1 .. k``.
    negate : bool
        Whether its values are negated (a scorer of a loss, ``"neg_..."``):
        :func:`with_undefined` negates them, after ``zero_division``.
    relevance_threshold : float or None
        The request's own relevance threshold (ir_measures' ``P(rel=2)@5``:
        1); None takes the ``relevance_threshold`` of the call.
        :func:`row_values` makes one kernel pass per distinct threshold.
    """

    metric: object
    k: int | None
    params: tuple = ()
    curve: bool = False
    negate: bool = False
    relevance_threshold: float | None = None

    @property
    def options(self):
        return dict(self.params)

    @property
    def key(self):
        """The scorer name (``"ndcg@10"``; ``"precision@k"`` for a curve)."""
        prefix = "neg_" if self.negate else ""
        if self.curve:
            return f"{prefix}{self.metric.name}@k"
        return prefix + self.metric.scorer_name(self.k)


def check_params(metric, params):
    """The metric's own parameters, validated, defaults filled in.

    ``params`` may hold only parameters of ``metric``.
    """
    extra = set(params) - set(metric.param_names)
    if extra:
        raise TypeError(
            f"{sorted(extra)} do not apply to {metric.name!r}; it takes "
            f"{list(metric.param_names) or 'no metric-specific parameters'}."
        )
    out = {}
    for p in metric.params:
        value = params.get(p.name, p.default)
        if p.gain_map:
            value = check_gain_map(value, p.name)
        elif p.item_weights:  # an array: validated with numpy, on first use
            from .validation import check_item_weights

            value = check_item_weights(value, p.name)
        elif p.choices is not None and p.callable_ok:
            value = check_option_or_callable(value, p.name, p.choices)
        elif p.choices is not None:
            value = check_option(value, p.name, p.choices)
        elif p.sequence:
            value = _check_reals(value, p)
        elif value is None and p.none_ok:
            pass
        else:
            value = _check_one_real(value, p.name, p)
        out[p.name] = value
    if out.get("gains") is not None and out.get("gain") == "exponential":
        raise ValueError(
            'gains (a gain map) and gain="exponential" cannot be combined: the '
            "map gives each grade its gain; write 2**grade - 1 into it instead."
        )
    return out


def _check_one_real(value, name, p):
    return check_real(
        value,
        name,
        low=p.low,
        low_inclusive=p.low_inclusive,
        high=p.high,
        high_inclusive=p.high_inclusive,
    )


def _check_reals(value, p):
    """A non-empty sequence of real numbers within the parameter's bounds."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise TypeError(
            f"{p.name} must be a non-empty sequence of real numbers; got "
            f"{type(value).__name__}."
        )
    if len(value) == 0:
        raise ValueError(f"{p.name} must not be empty.")
    return tuple(_check_one_real(v, f"{p.name}[{i}]", p) for i, v in enumerate(value))


def is_default_param(name, value):
    """Whether ``value`` is the default of the metric parameter ``name``.

    A caller that takes metric parameters for several metrics passes a
    non-default value only to the metrics it applies to, and reports one
    that applies to none of them.
    """
    default = PARAMS[name].default
    return isinstance(value, type(default)) and value == default


def make_request(
    metric,
    k=None,
    params=None,
    *,
    curve=False,
    caller=None,
    negate=False,
    relevance_threshold=None,
):
    """A validated :class:`Request`.

    ``caller`` names the function in messages about ``k`` (the metric's
    public function by default); ``negate`` asks for the negated values;
    ``relevance_threshold``, the request's own threshold (None: the call's).
    ``params`` may also hold ``"relevance_threshold"`` (a scorer's
    description of a metric carries it there).
    """
    params = dict(params or {})
    relevance_threshold = params.pop("relevance_threshold", relevance_threshold)
    if relevance_threshold is not None:
        relevance_threshold = check_real(relevance_threshold, "relevance_threshold")
    if metric.needs_k or curve:
        k = check_k(
            k,
            allow_none=metric.allow_k_none or curve,
            metric=caller or metric.function_name,
            name="k_max" if curve else "k",
            # (the message's list, only where k=None may be refused)
            none_ok_for=[m.name for m in METRICS.values() if m.allow_k_none]
            if k is None
            else (),
        )
    elif k is not None:
        raise TypeError(
            f"{metric.function_name} has no cut-off k (it cuts each row at its "
            f"number of relevant items); got k={k!r}."
        )
    checked = check_params(metric, params)
    for p in metric.params:
        if p.whole_row_only and checked[p.name] is not None and k is not None:
            raise ValueError(
                f"{p.name} applies to the whole row only: {metric.function_name} "
                f"needs k=None with {p.name}={checked[p.name]!r}; got k={k!r}."
            )
    return Request(
        metric, k, tuple(sorted(checked.items())), curve, negate, relevance_threshold
    )


def requests_for_names(names, metric_params, *, scorer=False, parse=None):
    """One :class:`Request` per scorer name (``"ndcg@10"``, ``"map"``).

    Each metric parameter of ``metric_params`` goes to the metrics it
    applies to; one that applies to none of them is an error. ``scorer``:
    the names of a scorer, where a loss is ``"neg_<name>@<k>"`` and its
    values are negated (a report names the loss itself). ``parse(name,
    signed)`` reads a name into ``(metric, k, the parameters the name sets,
    its relevance threshold or None)``; by default the registry's scorer
    names (the measure-name parser of ``_io`` reads ir_measures' names too).
    """
    requests = []
    for name in names:
        if parse is None:
            metric, k = parse_scorer_name(name, signed=scorer)
            named, threshold = {}, None
        else:
            metric, k, named, threshold = parse(name, scorer)
        own = {p: v for p, v in metric_params.items() if p in metric.param_names}
        own.update(named or {})
        negate = scorer and not metric.greater_is_better
        try:
            requests.append(
                make_request(
                    metric, k, own, negate=negate, relevance_threshold=threshold
                )
            )
        except ValueError as exc:  # the cut-off of the name
            raise ValueError(f"Scorer name {name!r}: {exc}") from None
    unused = set(metric_params) - {p for r in requests for p in r.metric.param_names}
    if unused:
        raise TypeError(f"{sorted(unused)} apply to none of the metrics {list(names)}.")
    return requests


#: Floor of the values whose geometric mean ``average="gmean"`` takes
#: (trec_eval's MIN_GEO_MEAN): a sample scoring 0 counts as 1e-5.
MIN_GEO_MEAN = 1e-5


# Requests as the kernel takes them (request.hpp's Request).

_DENOMINATORS = {
    "relevant": _kernel.DEN_RELEVANT,
    "min": _kernel.DEN_MIN,
    "retrieved": _kernel.DEN_RETRIEVED,
}


# Where a metric without k cuts each row (Metric.row_cut): the kernel's depth.
_ROW_CUTS = {
    "n_relevant": _kernel.K_NREL,
    "n_retrieved": _kernel.K_NRET,
    "whole": _kernel.K_WHOLE,
}


# utility's coefficients -> the kernel's u_tp, u_fp, u_fn, u_tn.
_UTILITY_DEFAULTS = {
    "tp_weight": 1.0,
    "fp_weight": -1.0,
    "fn_weight": 0.0,
    "tn_weight": 0.0,
}


def kernel_fields(request, n_items, col=0):
    """The kernel's scalar fields of ``request`` (request.hpp's ``Request``
    without the arrays it may point to: recall levels, gain map, discount
    table), as a dict, with ``"width"``: its output columns (``k`` for a
    curve, else 1), which start at ``col``. Curves without ``k`` span
    ``n_items``."""
    metric, options = request.metric, request.options
    if request.curve:
        k = request.k or n_items
    elif not metric.needs_k:
        k = _ROW_CUTS[metric.row_cut]
    else:
        k = request.k or _kernel.K_WHOLE
    level = options.get("multiple", options.get("recall_level", 1.0))
    if options.get("max_fpr") is not None:  # AUC: the partial area's end
        level = options["max_fpr"]
    if "count" in options:  # COUNT_ROW: which count
        level = options["count"]
    max_grade = options.get("max_grade")  # ERR; None: each row's largest grade
    if metric.formula == _kernel.SDCG:  # SDCG's grade of the ideal list
        max_grade = options.get("max_rel")
    fields = {
        "formula": metric.formula,
        "denominator": _DENOMINATORS[options.get("denominator", "relevant")],
        "exponential": options.get("gain") == "exponential",
        "curve": request.curve,
        "k": k,
        "col": col,
        "log_base": options.get("log_base", 2),
        "beta": options.get("beta", 1.0),
        "level": level,
        "p": options.get("p", 0.9),
        "max_grade": float("nan") if max_grade is None else max_grade,
        "width": k if request.curve else 1,
    }
    for coefficient, default in _UTILITY_DEFAULTS.items():
        fields[f"u_{coefficient[:2]}"] = options.get(coefficient, default)
    return fields


def kernel_request(request, n_items, col, held):
    """Every field of the kernel's ``Request`` of ``request``
    (``_kernel.REQUEST_FIELD_NAMES``), as a dict, and its output columns
    (``k`` for a curve, else 1), which start at ``col``.

    The scalars are :func:`kernel_fields`'; the arrays a request points the
    kernel to are addresses (0 and length 0: none). Its recall levels are set
    here, in an ``array.array`` appended to ``held`` (the caller keeps it
    alive while the kernel runs): no numpy, so that the command line builds
    its requests here too. Gain maps and discount tables, which need numpy,
    are :func:`.ranking.compile_requests`' to add.
    """
    fields = dict.fromkeys(_kernel.REQUEST_FIELD_NAMES, 0)
    fields.update(kernel_fields(request, n_items, col))
    width = fields.pop("width")
    levels = request.options.get("recall_levels")
    if levels is not None:
        levels = array.array("d", levels)
        held.append(levels)
        fields["levels"], fields["n_levels"] = levels.buffer_info()
    return fields, width
