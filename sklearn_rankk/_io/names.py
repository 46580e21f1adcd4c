"""Measure names as the package, trec_eval and ir_measures write them.

One parser for every door that takes a measure's name: :func:`get_scorer`,
:func:`ranking_report`, :func:`evaluate` and the command line's ``-m``. A
name is one of

* the package's scorer names, ``"ndcg@10"``, ``"map"``, ``"neg_fall_out@5"``
  (:func:`~sklearn_rankk.get_scorer_names`), and the aliases ``"P@5"``;
* ir_measures' names with their parameters, ``"nDCG@10"``, ``"P(rel=2)@5"``,
  ``"SetF(beta=0.5)"``, ``"IPrec@0.5"``, ``"RBP(p=0.9)"``: each means what
  ir_measures computes (the table :data:`~._core.registry.IR_MEASURES` maps
  each to a metric and its parameters);
* on the command line, trec_eval's names too (``P_5``, ``ndcg_cut.10``).

What the names mean lives in the registry; this module reads the syntax.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass

from .._core import requests
from .._core.registry import (
    IR_MEASURE_NAMES,
    METRICS,
    metric_for_alias,
    parse_scorer_name,
)
from .._core.requests import make_request

_IR_NAME = re.compile(
    r"(?P<name>[^\W\d]\w*)(?:\((?P<params>.*)\))?(?:@(?P<cutoff>[^@]*))?", re.S
)
_ALIAS_AT_K = re.compile(r"(?P<alias>[A-Za-z_]+)@(?P<k>[1-9][0-9]*)")


@dataclass(frozen=True)
class Measure:
    """A parsed measure name.

    Attributes
    ----------
    label : str
        The name as given.
    request : Request or None
        What to compute; None for a count.
    count : str or None
        trec_eval's count (``"num_ret"``, ``"num_rel"``, ``"num_rel_ret"``,
        ``"num_q"``): summed over queries, not averaged.
    level : int
        A count's relevance level (ir_measures' ``rel``).
    params : dict
        The metric parameters that the name sets (an ir_measures name:
        its parameters and ir_measures' defaults), which keyword
        parameters of the caller do not override.
    """

    label: str
    request: object = None
    count: str | None = None
    level: int = 1
    params: dict | None = None


def _one_line(text):
    return " ".join(str(text).split())


def _close(name):
    """The nearest accepted name (its cut-off kept), or None."""
    base, at, cutoff = name.partition("@")
    bases = {}  # lowered -> [(spelling, takes a cut-off)]
    for n, m in IR_MEASURE_NAMES.items():
        if not m.unsupported:
            takes_k = m.cutoff in ("required", "optional")
            bases.setdefault(n.lower(), []).append((n, takes_k))
    for m in METRICS.values():
        spelled = m.scorer_prefix + m.name
        bases.setdefault(spelled.lower(), []).append(
            (spelled, m.needs_k or m.allow_k_none)
        )
    close = difflib.get_close_matches(base.lower(), list(bases), n=1, cutoff=0.6)
    if not close:
        return None
    # Of the spellings that differ in case only (ndcg, nDCG), the closest.
    spelled, takes_k = max(
        bases[close[0]],
        key=lambda c: difflib.SequenceMatcher(None, base, c[0]).ratio(),
    )
    return f"{spelled}@{cutoff}" if at and takes_k else spelled


def unknown_name_error(name, where="measure"):
    """ValueError: an unknown name, in one line with the nearest name."""
    close = _close(name) if isinstance(name, str) else None
    hint = f" Did you mean {close!r}?" if close else ""
    return ValueError(
        f"Unknown {where} name {name!r}.{hint} See get_scorer_names() and "
        f"ir_measures' names (nDCG@10, P(rel=2)@5, AP, RR, ...)."
    )


def _literal(text, where):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise ValueError(
            f"{where}: {text!r} is not a Python literal (a number, True, False, a "
            f"quoted string)."
        ) from None


def _ir_params(text, where):
    """``"rel=2, judged_only=False"`` -> dict."""
    if text is None or not text.strip():
        return {}
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError:
        raise ValueError(f"{where}: cannot read the parameters {text!r}.") from None
    if call.args or any(k.arg is None for k in call.keywords):
        raise ValueError(f"{where}: parameters are written name=value, e.g. rel=2.")
    return {
        k.arg: _literal(ast.get_source_segment(f"f({text})", k.value), where)
        for k in call.keywords
    }


def parse_ir_measure(text):
    """An ir_measures name -> :class:`Measure`; None if ``text`` is not one.

    Raises ValueError for an unsupported measure or parameter, with why.
    """
    match = _IR_NAME.fullmatch(text.strip())
    if match is None or match["name"] not in IR_MEASURE_NAMES:
        return None
    entry = IR_MEASURE_NAMES[match["name"]]
    where = f"Measure {text!r}"
    if entry.unsupported:
        raise ValueError(f"{where} is not supported: {entry.unsupported}.")
    params = _ir_params(match["params"], where)
    cutoff = match["cutoff"]
    metric = entry.metric
    own = dict(entry.fixed)
    threshold, level = None, 1
    known = {p for p, *_ in entry.params} | {c for c, _ in entry.choices}
    known |= {o for o, _ in entry.only} | ({"rel"} if entry.rel else set())
    unknown = set(params) - known
    if unknown:
        raise ValueError(
            f"{where}: {entry.name} takes no parameter {sorted(unknown)}; it takes "
            f"{sorted(known) or 'none'}."
        )
    for name, allowed in entry.only:
        if name in params and params[name] != allowed:
            raise ValueError(f"{where}: {entry.why_only}.")
    missing = [p for p in entry.required if p not in params]
    if missing:
        at = "@10" if entry.cutoff in ("required", "optional") else ""
        raise ValueError(
            f"{where}: {entry.name} needs {', '.join(missing)}, e.g. "
            f"{entry.name}({missing[0]}=4){at}."
        )
    for ir_name, name, convert in entry.params:
        if ir_name in params:
            value = params[ir_name]
            own[name] = convert(value) if convert else value
    for ir_name, options in entry.choices:
        if ir_name in params:
            if params[ir_name] not in options:
                raise ValueError(
                    f"{where}: {ir_name} must be one of "
                    f"{sorted(options, key=str)}; got {params[ir_name]!r}."
                )
            chosen = options[params[ir_name]]
            if chosen is not None and chosen[0] == "metric":
                metric = METRICS[chosen[1]]
            elif chosen is not None:
                own[chosen[0]] = chosen[1]
    if "rel" in params:
        rel = params["rel"]
        if isinstance(rel, bool) or not isinstance(rel, int):
            raise ValueError(f"{where}: rel must be an integer grade; got {rel!r}.")
        threshold, level = rel - 1, rel
    k = None
    if entry.cutoff == "none" or (entry.count and cutoff is not None):
        if cutoff is not None:
            raise ValueError(f"{where}: {entry.name} takes no cut-off '@{cutoff}'.")
    elif entry.cutoff in ("required", "optional"):
        if cutoff is None and entry.cutoff == "required":
            raise ValueError(
                f"{where}: {entry.name} needs a cut-off, e.g. {entry.name}@10."
            )
        if cutoff is not None:
            if not re.fullmatch(r"[0-9]+", cutoff) or int(cutoff) < 1:
                raise ValueError(
                    f"{where}: the cut-off k must be an integer >= 1; got {cutoff!r}."
                )
            k = int(cutoff)
    else:  # @x sets a parameter (IPrec@0.5: the recall level)
        if cutoff is None:
            raise ValueError(
                f"{where}: {entry.name} needs its value after '@', e.g. "
                f"{entry.name}@0.5."
            )
        own[entry.cutoff] = _literal(cutoff, where)
    if entry.count:
        count = entry.count
        if count == "num_ret" and "rel" in params:
            count = "num_rel_ret"
        return Measure(text, None, count, level)
    try:
        request = make_request(
            metric, k, own, relevance_threshold=threshold, caller=text
        )
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {_one_line(exc)}") from None
    return Measure(text, request, params=own)


def parse_name(name, *, signed=False):
    """A measure name (the package's or ir_measures') -> :class:`Measure`.

    ``signed``: a scorer's name, where a loss is ``neg_<name>`` (see
    :func:`~sklearn_rankk._core.registry.parse_scorer_name`).
    """
    if not isinstance(name, str):
        raise TypeError(f"A measure name must be a string; got {name!r}.")
    try:
        metric, k = parse_scorer_name(name, signed=signed)
    except ValueError as exc:
        if "is a loss" in str(exc) or "diagnostic of the judgments" in str(exc):
            raise
        if "needs a cut-off" in str(exc) and name not in IR_MEASURE_NAMES:
            raise ValueError(_one_line(exc).split(" Valid forms")[0]) from None
    else:
        negate = signed and not metric.greater_is_better
        try:
            request = make_request(metric, k, negate=negate)
        except ValueError as exc:  # the cut-off of the name
            raise ValueError(f"Scorer name {name!r}: {exc}") from None
        return Measure(name, request)
    match = _ALIAS_AT_K.fullmatch(name)
    if match and metric_for_alias(match["alias"]) is not None:
        metric = metric_for_alias(match["alias"])
        return Measure(name, make_request(metric, int(match["k"])))
    measure = parse_ir_measure(name)
    if measure is not None:
        return measure
    base, at, cutoff = name.partition("@")
    plain = base.removeprefix("neg_")
    if at and plain in METRICS:
        metric = METRICS[plain]
        spelled = (metric.scorer_prefix if signed else "") + plain
        if base != plain and metric.greater_is_better:
            raise ValueError(
                f"Unknown scorer name {name!r}: {plain} is higher-is-better, its "
                f"scorer has no neg_ prefix: '{plain}@{cutoff}'."
            )
        if not metric.needs_k:
            raise ValueError(
                f"Scorer name {name!r}: {plain} takes no cut-off; use {spelled!r}."
            )
        raise ValueError(
            f"Scorer name {name!r}: k must be an integer >= 1; got {cutoff!r}."
        )
    raise unknown_name_error(name, "scorer" if signed else "measure")


def requests_for_names(names, metric_params, *, scorer=False):
    """One request per name, as :func:`~._core.requests.requests_for_names`
    but for every name :func:`parse_name` reads; a count (``NumRet``) is
    refused: it is not a score."""

    def parse(name, signed):
        measure = parse_name(name, signed=signed)
        if measure.request is None:
            raise ValueError(
                f"{name!r} is a count of documents or queries, not a score: "
                f"evaluate() reports it."
            )
        request = measure.request
        return request.metric, request.k, measure.params, request.relevance_threshold

    return requests.requests_for_names(names, metric_params, scorer=scorer, parse=parse)
