"""The public metric functions, one per entry of the metric registry.

Each is ``name(y_true, y_score, *, k=10, <its own parameters>, sample_weight,
average, ignore_ties, zero_division, relevance_threshold, labels, qid)``: a
thin, documented entry point into :func:`._core.engine.score`. Their
signatures and docstrings are built here from the registry; the parameters
they share are documented once, in ``_COMMON``.
"""

from __future__ import annotations

import difflib
from inspect import Parameter, Signature

from ._core import engine
from ._core.registry import METRICS

_INPUTS = """\
    y_true : array-like or sparse matrix of shape (n_samples, n_items), or \
array-like of shape (n_samples,)
        Relevance of every item for every sample (query, user). Binary or
        graded (bool, int or float); any scipy.sparse matrix or array is
        used without being densified whole. 1-D ``y_true`` holds class
        labels for a multiclass ``y_score``: column ``j`` of ``y_score``
        scores ``labels[j]``.
    y_score : array-like of shape (n_samples, n_items)
        Scores; higher ranks first. ``-inf`` means "not retrieved": the
        item sits at no rank but still counts among the relevant items.
        ``+inf`` ranks first, tied with any other ``+inf`` of the row. NaN is
        an error."""

_K = """\
    k : int{none}, default={default}
        Cut-off rank: only the top ``k`` items of each row are counted.{none_doc}"""

_COMMON = """\
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample (row) in the mean.
    average : {{"mean", "gmean", "relevant", "judged", "pairs", "ideal"}} \
or None, default="{average}"
        ``"mean"`` returns the (weighted) mean over samples as a Python
        float; ``"gmean"`` their (weighted) geometric mean, each value
        floored at 1e-5 so that a sample scoring 0 does not zero it
        (trec_eval's ``gm_map`` and ``gm_bpref``); ``None`` returns the
        value of every sample as a float64 array. ``"relevant"`` and
        ``"judged"`` weight each sample (times its ``sample_weight``) by its
        number of relevant items, or of judged items (relevant and judged
        non-relevant): the weightings of group AUC; ``"pairs"``, for the
        metrics that average over pairs (:func:`auc_score`,
        :func:`pairwise_accuracy_score`), by its number of pairs: the micro
        average over every pair of the data. ``"ideal"``, for the
        propensity-scored metrics (:func:`psprecision_at_k_score`,
        :func:`psndcg_at_k_score`, whose default it is), by its best
        achievable value: pyxclib's ratio of the dataset means.
    ignore_ties : bool, default=False
        By default, tied scores give the exact expected value over all
        orderings of the tied items, so a constant ``y_score`` scores the
        random-ranking expectation. If True, tied items are ranked as
        scikit-learn ranks them (reversed stable argsort: the later column
        first, as in ``top_k_accuracy_score``): deterministic and a little
        faster, but column order then matters.
    zero_division : {{"warn", 0.0, 1.0, np.nan}}, default="warn"
{zero_division_doc}
    relevance_threshold : float, default=0
        An item is relevant when ``y_true > relevance_threshold``.{graded_doc}
    labels : array-like of shape (n_items,), default=None
        Only with 1-D ``y_true``: the class of each column of ``y_score``,
        sorted. If None, the sorted unique values of ``y_true``, which must
        then contain every class.
    qid : array-like of shape (n_documents,), default=None
        Query id of each document, for flat learning-to-rank data: then
        ``y_true`` and ``y_score`` are 1-D, one value per document, and each
        query's documents form one row (any hashable ids; a query's
        documents need not be contiguous; queries may differ in size). Rows
        follow the order in which each id first appears; ``sample_weight``
        then has one weight per document, constant within each query."""

_ZERO_DIVISION_UNDEFINED = """\
        Value of samples for which the metric is undefined{undefined}.
        ``"warn"`` gives 0.0 and an ``UndefinedMetricWarning``; ``np.nan``
        leaves them out of the mean."""

_ZERO_DIVISION_ZERO = """\
        Value of samples with no relevant item. The metric is 0 there by
        definition, which ``"warn"`` keeps, without a warning; 1.0 gives
        them 1 and ``np.nan`` leaves them out of the mean, as for every
        metric (so that means of several metrics average the same
        samples)."""

_ZERO_DIVISION_NEVER = """\
        Not used: the metric has a value on every sample, also on those with
        no relevant item. Accepted for a uniform signature."""

_RETURNS = """\
    Returns
    -------
    score : float or ndarray of shape (n_samples,)
        The mean over samples if ``average="mean"`` (geometric with
        ``"gmean"``), else one value per sample."""

_GRADED = """
        Graded metrics use the grade itself as gain, and items at or below
        the threshold have no gain."""

_SHARED = (
    ("sample_weight", None),
    ("average", "mean"),
    ("ignore_ties", False),
    ("zero_division", "warn"),
    ("relevance_threshold", 0),
    ("labels", None),
    ("qid", None),
)


def _docstring(metric):
    none = " or None" if metric.allow_k_none else ""
    none_doc = "\n        None means the whole row." if metric.allow_k_none else ""
    k_doc = (
        _K.format(none=none, none_doc=none_doc, default=metric.default_k) + "\n"
        if metric.needs_k
        else ""
    )
    own = "".join(p.doc + "\n" for p in metric.params)
    zero_division = _ZERO_DIVISION_UNDEFINED.format(undefined=metric.undefined_doc)
    if metric.empty_rows == "zero":
        zero_division = _ZERO_DIVISION_ZERO
    elif metric.empty_rows == "never":
        zero_division = _ZERO_DIVISION_NEVER
    common = _COMMON.format(
        average=metric.default_average,
        zero_division_doc=zero_division,
        graded_doc=_GRADED if metric.graded else "",
    )
    parts = [
        metric.summary.strip("\n"),
        "",
        "    Parameters",
        "    ----------",
        _INPUTS,
        k_doc + own + common,
        "",
        _RETURNS,
        "",
        "    Examples",
        "    --------",
        metric.examples,
    ]
    return "\n".join(parts).lstrip() + "\n    "


def _signature(metric):
    positional = [
        Parameter(name, Parameter.POSITIONAL_OR_KEYWORD)
        for name in ("y_true", "y_score")
    ]
    own = [("k", metric.default_k)] if metric.needs_k else []
    own += [(p.name, p.default) for p in metric.params]
    shared = [
        (name, metric.default_average if name == "average" else default)
        for name, default in _SHARED
    ]
    keyword = [
        Parameter(name, Parameter.KEYWORD_ONLY, default=default)
        for name, default in own + shared
    ]
    return Signature(positional + keyword)


def _metric_function(metric):
    """The public function of ``metric``, with its signature and docstring."""
    signature = _signature(metric)
    # The usual call, f(y_true, y_score, **keywords), bound without
    # Signature.bind (a sixth of a small call's time); any other goes through
    # it, and its errors.
    defaults = {
        name: p.default
        for name, p in signature.parameters.items()
        if p.kind is Parameter.KEYWORD_ONLY
    }
    # (A keyword-only parameter without a default would need bind's error.)
    fast = not any(v is Parameter.empty for v in defaults.values())

    def metric_function(*args, **kwargs):
        if fast and len(args) == 2 and all(name in defaults for name in kwargs):
            arguments = {**defaults, **kwargs}
            return engine.score(metric, y_true=args[0], y_score=args[1], **arguments)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            raise TypeError(_call_problem(metric, signature, args, kwargs)) from None
        bound.apply_defaults()
        return engine.score(metric, **bound.arguments)

    metric_function.__name__ = metric.function_name
    metric_function.__qualname__ = metric.function_name
    metric_function.__signature__ = signature
    metric_function.__doc__ = _docstring(metric)
    return metric_function


def _call_problem(metric, signature, args, kwargs):
    """What is wrong with a call that does not bind to ``signature``: the
    message names the function and the parameter, as Python's own does not
    (it says "too many positional arguments")."""
    name = metric.function_name
    params = signature.parameters
    keyword_only = [p for p in params.values() if p.kind is Parameter.KEYWORD_ONLY]
    if len(args) > 2:
        extra = ", ".join(repr(a) for a in args[2:])
        hint = ""
        if keyword_only:
            pairs = ", ".join(f"{p.name}={a!r}" for p, a in zip(keyword_only, args[2:]))
            hint = f" Write {name}(y_true, y_score, {pairs}) if that is what you meant."
        return (
            f"{name}() takes 2 positional arguments (y_true, y_score) but "
            f"{len(args)} were given ({extra} after y_score): every other "
            f"parameter is keyword-only.{hint}"
        )
    for key in kwargs:
        if key not in params:
            close = difflib.get_close_matches(key, list(params), n=1, cutoff=0.6)
            if close:
                return (
                    f"{name}() got an unexpected keyword argument {key!r}; "
                    f"did you mean {close[0]!r}?"
                )
            return (
                f"{name}() got an unexpected keyword argument {key!r}; it "
                f"takes {', '.join(params)}."
            )
    for position, key in enumerate(("y_true", "y_score")):
        if position < len(args) and key in kwargs:
            return f"{name}() got multiple values for argument {key!r}."
    missing = [
        key
        for position, key in enumerate(("y_true", "y_score"))
        if position >= len(args) and key not in kwargs
    ]
    return f"{name}() missing required argument(s): {', '.join(missing)}."


__all__ = [metric.function_name for metric in METRICS.values()]
globals().update(
    {metric.function_name: _metric_function(metric) for metric in METRICS.values()}
)
