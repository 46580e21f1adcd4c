"""``sklearn-rankk QRELS RUN -m ndcg@10 ...``: trec_eval's command line.

Reads a TREC qrels file and run, converts them with
:func:`~sklearn_rankk.from_trec` and prints the measures in trec_eval's
three-column layout, computed by the package's metrics (one top-k pass for
the binary measures, one for nDCG/DCG).
"""

from __future__ import annotations

import argparse
import array
import contextlib
import dataclasses
import difflib
import math
import os
import re
import sys
import textwrap
from dataclasses import dataclass

from .._core import _kernel
from .._core.checks import check_option
from .._core.registry import (
    TREC_EVAL_COUNTS,
    TREC_EVAL_FAMILIES,
    TREC_EVAL_GEOMETRIC,
    TREC_EVAL_NAMES,
    TREC_EVAL_NICKNAMES,
    TREC_EVAL_RELSTRING,
    TREC_EVAL_SUMMARY,
    metric_for_alias,
    parse_scorer_name,
    scorer_name_forms,
)
from .._core.requests import (
    MIN_GEO_MEAN,
    check_params,
    kernel_request,
    make_request,
)
from .._core.threads import threads_for
from .files import file_rows, is_file, read_bytes
from .names import parse_ir_measure

# trec_eval's measure families with a cut-off (P, recall, ndcg_cut, ...) and
# its measures of the whole ranking (map, ndcg, recip_rank, Rprec).
_CUTOFF = {name: m for name, (m, cut) in TREC_EVAL_NAMES.items() if cut}
_WHOLE = {name: m for name, (m, cut) in TREC_EVAL_NAMES.items() if not cut}
_TREC_CUT_NAME = re.compile(rf"({'|'.join(_CUTOFF)})_([1-9][0-9]*)")
# trec_eval's families with a real parameter (Rprec_mult_0.20, ...) and its
# whole measures that take parameters (11pt_avg.0.1,0.5: the recall levels).
_REAL = r"[0-9]*\.?[0-9]+"
_FAMILY = TREC_EVAL_FAMILIES
_WHOLE_PARAM = {
    name: m
    for name, m in _WHOLE.items()
    if m.trec_eval_param and not m.trec_eval_family
}
# trec_eval's measures with "name=value" parameters: the gain measures take a
# gain map (grade=gain), rbp and rbp_resid their persistence (p=0.95).
_GAIN_MAP = {n: m for n, m in _WHOLE.items() if m.graded and "p" not in m.param_names}
_PERSISTENCE = {n: m for n, m in _WHOLE.items() if "p" in m.param_names}
# trec_eval's measures computed here from the four counts, as trec_eval
# computes them (set_F from P and R; utility from its four coefficients).
_SET_F = next(n for n, m in _WHOLE.items() if "beta" in m.param_names)
_UTILITY = next(n for n, m in _WHOLE.items() if len(m.param_names) == 4)
_FROM_COUNTS = {_SET_F: (1.0,), _UTILITY: (1.0, -1.0, 0.0, 0.0)}
# trec_eval's measures that take parameters after a dot.
_PARAMETRIC = {
    *_CUTOFF,
    *_FAMILY,
    *_WHOLE_PARAM,
    *_GAIN_MAP,
    *_PERSISTENCE,
    *_FROM_COUNTS,
    TREC_EVAL_RELSTRING,
}
_TREC_FAMILY_NAME = re.compile(rf"({'|'.join(_FAMILY)})_({_REAL})")
_ALIAS_AT_K = re.compile(r"([A-Za-z_]+)@([1-9][0-9]*)")
# The exit status of a tool killed by SIGPIPE, as a shell reports it.
_CLOSED_PIPE = 128 + 13

TREC_FORMS = (
    f"{', '.join(f'{name}_<k>' for name in _CUTOFF)}, {', '.join(_WHOLE)}; "
    f"'<family>.<k1>,<k2>,...' and a family alone ({', '.join(_CUTOFF)}: "
    f"trec_eval's default cut-offs); "
    f"{', '.join(f'{name}_<x>' for name in _FAMILY)} and "
    f"'<family>.<x1>,<x2>,...' (x a real number; alone: trec_eval's "
    f"defaults; printed as {', '.join(f'{name}_%3.2f' for name in _FAMILY)}); "
    f"{', '.join(f'{name}.<x1>,<x2>,...' for name in _WHOLE_PARAM)} (setting "
    f"{', '.join(m.trec_eval_param for m in _WHOLE_PARAM.values())}; printed "
    f"as {', '.join(f'{name}_<x1>,<x2>,...' for name in _WHOLE_PARAM)}); the nicknames "
    f"{' and '.join(TREC_EVAL_NICKNAMES)} (their measures computed here); "
    f"{', '.join(f'{name}.<grade>=<gain>,...' for name in _GAIN_MAP)} (a gain "
    f"map), {', '.join(f'{name}.p=<p>' for name in _PERSISTENCE)}, "
    f"{_SET_F}.<x> and {_UTILITY}.<a>,<b>,<c>,<d> (trec_eval's parameters; "
    f"printed as <name>_<parameters>); "
    f"{', '.join(TREC_EVAL_COUNTS + TREC_EVAL_SUMMARY)}, "
    f"{', '.join(TREC_EVAL_GEOMETRIC)} and {TREC_EVAL_RELSTRING}[.<length>]; "
    f"{', '.join(f'{a}@<k>' for m in _CUTOFF.values() for a in m.aliases)} for "
    f"{', '.join(m.name + '@<k>' for m in _CUTOFF.values() if m.aliases)}"
)
MEASURE_FORMS = (
    f"scorer names ({', '.join(scorer_name_forms())}), trec_eval's names "
    f"({TREC_FORMS}), or ir_measures' names with their parameters (nDCG@10, "
    f"P(rel=2)@5, AP, RR, Bpref, SetF(beta=0.5), NumRet, ...)."
)


@dataclass(frozen=True)
class _Column:
    """One output column: a label and how it is computed and printed.

    ``kind``: ``"metric"`` (a request, averaged), ``"gm"`` (a request,
    geometric mean, printed on the "all" line only), ``"count"`` (printed as
    an integer, summed), ``"summary"`` (``runid`` or ``num_q``: the "all"
    line only), ``"relstring"`` (per query only), or ``"from_counts"``
    (set_F and utility: computed from the four counts as trec_eval computes
    them, with ``coefficients``; averaged).
    """

    label: str
    kind: str
    request: object = None
    length: int = 0
    gains: tuple = ()  # trec_eval's gain map, (grade, gain) pairs
    coefficients: tuple = ()  # set_F's x, utility's four weights
    z: bool = False  # -Z: per-query z-scores, printed "Z<label>" as reals
    count: str = ""  # an ir_measures count (NumRet): trec_eval's name
    level: int | None = None  # and its relevance level (rel=)


def parse_measure(text):
    """A ``-m`` argument -> ``[(label, metric, k), ...]``.

    ``label`` is what the output shows: the name as given, or trec_eval's
    ``P_5`` for each cut-off of ``P.5,10`` or ``P``; ``metric`` is the
    package's name of the metric (for trec_eval's bookkeeping measures,
    such as ``num_ret``, the measure's name and ``k`` None).
    """
    return [
        (c.label, c.request.metric.name if c.request else c.label, _k(c))
        for c in _columns([text])
    ]


def _k(column):
    return column.request.k if column.request is not None else None


def _columns(texts):
    """The output columns of ``-m`` arguments, as trec_eval reads them.

    As trec_eval, a measure computed once however often it is named: the
    first parameters given to it (``P.5`` of ``-m P.5 -m P.10``) are its
    parameters wherever it is named, also alone (``-m P -m P.5``) or through
    a nickname (``relstring.20`` with ``all_trec``). One argument prints
    every value of its parameters, even two of one label
    (``iprec_at_recall.0.149,0.151``); a label printed by an earlier
    argument (``P@5`` and ``P_5`` are different labels) is not repeated.
    """
    explicit = {}
    for text in texts:
        family, dot, _ = text.partition(".")
        if dot and family in _PARAMETRIC:
            explicit.setdefault(family, text)
    specs = []
    for text in texts:
        for name in TREC_EVAL_NICKNAMES.get(text, (text,)):
            family = name.partition(".")[0]
            spec = explicit.get(family, name) if family in _PARAMETRIC else name
            if spec not in specs:
                specs.append(spec)
    out, labels = [], set()
    for spec in specs:
        columns = [c for c in _parse(spec) if c.label not in labels]
        labels.update(c.label for c in columns)
        out.extend(columns)
    return out


def _parse(text, explicit=None):
    """A ``-m`` argument -> its :class:`_Column` list."""
    explicit = explicit or {}
    if text in TREC_EVAL_NICKNAMES:
        return [
            c
            for name in TREC_EVAL_NICKNAMES[text]
            for c in _parse(explicit.get(name, name))
        ]
    family, dot, params = text.partition(".")
    if family == TREC_EVAL_RELSTRING:
        try:
            length = int(float(params)) if dot else 10
        except ValueError:
            raise ValueError(
                f"Bad length in measure {text!r}: expected a number, e.g. {family}.20."
            ) from None
        label = f"{family}_{params}" if dot else family
        return [_Column(label, "relstring", length=length)]
    if text in TREC_EVAL_COUNTS:
        return [_Column(text, "count")]
    if text in TREC_EVAL_SUMMARY:
        return [_Column(text, "summary")]
    if text in TREC_EVAL_GEOMETRIC:
        return [_Column(text, "gm", make_request(TREC_EVAL_GEOMETRIC[text]))]
    if family in _FROM_COUNTS:
        return [_from_counts(text, family, params if dot else None)]
    if dot and (family in _GAIN_MAP or family in _PERSISTENCE):
        return [_with_pairs(text, family, params)]
    real = _parse_real_params(text)
    if real is not None:
        return real
    try:
        parsed = _parse_metric(text)
    except ValueError:
        measure = parse_ir_measure(text)  # ir_measures' names: nDCG@10, ...
        if measure is None:
            raise
        if measure.count == "num_q":
            return [_Column(text, "summary", count="num_q")]
        if measure.count:
            return [_Column(text, "count", count=measure.count, level=measure.level)]
        return [_Column(text, "metric", measure.request)]
    return [
        _Column(label, "metric", make_request(metric, k)) for label, metric, k in parsed
    ]


def _from_counts(text, family, params):
    """set_F or utility, with trec_eval's coefficients (``set_F.0.5``:
    x = 0.5, printed as ``set_F_0.5``)."""
    default = _FROM_COUNTS[family]
    if params is None:
        return _Column(family, "from_counts", coefficients=default)
    try:
        values = tuple(float(x) for x in params.split(","))
    except ValueError:
        values = ()
    if not values or not all(math.isfinite(x) for x in values):
        raise ValueError(
            f"Bad parameters in measure {text!r}: expected real numbers "
            f"separated by commas, e.g. {family}.{','.join(map(str, default))}."
        )
    if len(default) > 1 and len(values) != len(default):
        raise ValueError(
            f"Measure {text!r}: {family} takes {len(default)} coefficients "
            f"(relevant retrieved, non-relevant retrieved, relevant not "
            f"retrieved, non-relevant not retrieved), e.g. "
            f"{family}.{','.join(f'{x:g}' for x in default)}."
        )
    return _Column(f"{family}_{params}", "from_counts", coefficients=values)


def _pairs(text, family, params):
    """trec_eval's ``name=value`` parameters, checked."""
    pairs = []
    for item in params.split(","):
        name, eq, value = item.partition("=")
        try:
            number = float(value) if eq and name else None
        except ValueError:
            number = None
        if number is None or not math.isfinite(number):
            raise ValueError(
                f"Bad parameters in measure {text!r}: expected name=value pairs "
                f"separated by commas, e.g. "
                f"{family}.{'p=0.95' if family in _PERSISTENCE else '1=1,2=3.5'}."
            )
        pairs.append((name, number))
    return pairs


def _with_pairs(text, family, params):
    """A gain measure with a gain map (``ndcg.1=3,2=9``: grade 1 has gain
    3, grade 2 gain 9, other grades their own value), or rbp / rbp_resid
    with a persistence (``rbp.p=0.95``); printed as trec_eval prints them
    (``ndcg_1=3,2=9``)."""
    label = f"{family}_{params}"
    pairs = _pairs(text, family, params)
    if family in _PERSISTENCE:
        metric = _PERSISTENCE[family]
        names = {name for name, _ in pairs}
        if names != {"p"}:
            raise ValueError(
                f"Measure {text!r}: only the persistence p is supported here "
                f"(e.g. {family}.p=0.95), not a gain map of {family}."
            )
        p = [value for name, value in pairs if name == "p"][0]
        try:
            request = make_request(metric, None, {"p": p})
        except (TypeError, ValueError) as exc:
            raise ValueError(f"Measure {text!r}: {exc}") from None
        return _Column(label, "metric", request)
    gains = {}
    for name, value in pairs:
        if not re.fullmatch(r"\+?[0-9]+", name):
            continue  # as trec_eval, which skips names that are not grades
        if value < 0:
            raise ValueError(
                f"Measure {text!r}: gain {value:g} of grade {name} is negative; "
                f"gains here are at least 0 (a negative grade means unjudged)."
            )
        gains.setdefault(int(name), value)
    return _Column(
        label,
        "metric",
        make_request(_GAIN_MAP[family], None),
        gains=tuple(sorted(gains.items())),
    )


def _reals(text, params):
    """trec_eval's real parameters ``x1,x2,...``, checked."""
    values = params.split(",")
    if not all(re.fullmatch(_REAL, x) for x in values):
        raise ValueError(
            f"Bad parameters in measure {text!r}: expected real numbers "
            f"separated by commas, e.g. {text.partition('.')[0]}.0.2,0.5."
        )
    return [float(x) for x in values]


def _with_param(text, label, metric, value):
    """The column of ``metric`` with its trec_eval parameter set to value."""
    params = {metric.trec_eval_param: value}
    try:
        check_params(metric, params)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"Measure {text!r}: {exc}") from None
    return _Column(label, "metric", make_request(metric, None, params))


def _parse_real_params(text):
    """The columns of a name with real parameters, or None if it has none."""
    family, dot, params = text.partition(".")
    if family in _FAMILY and (dot or family == text):
        metric = _FAMILY[family]
        values = _reals(text, params) if dot else metric.trec_eval_values
        return [_with_param(text, f"{family}_{x:3.2f}", metric, x) for x in values]
    if family in _WHOLE_PARAM and dot:
        # Labelled with the parameters as written, as trec_eval does
        # (11pt_avg_0.0,0.5).
        metric = _WHOLE_PARAM[family]
        label = f"{family}_{params}"
        return [_with_param(text, label, metric, tuple(_reals(text, params)))]
    match = _TREC_FAMILY_NAME.fullmatch(text)
    if match:
        x = float(match[2])
        return [_with_param(text, f"{match[1]}_{x:3.2f}", _FAMILY[match[1]], x)]
    return None


def _parse_metric(text):
    """A ``-m`` argument naming metrics -> ``[(label, metric entry, k), ...]``."""
    family, dot, params = text.partition(".")
    if dot or family in _CUTOFF:
        if family not in _CUTOFF:
            raise ValueError(
                f"Unknown measure {text!r}: only trec_eval's cut-off measures "
                f"({', '.join(_CUTOFF)}), {', '.join(_FAMILY)}, "
                f"{', '.join(_WHOLE_PARAM)} (real numbers), "
                f"{', '.join(_FROM_COUNTS)} (coefficients), "
                f"{', '.join(_GAIN_MAP)} (a gain map, e.g. ndcg.1=3,2=9), "
                f"{', '.join(_PERSISTENCE)} (p=<persistence>) and "
                f"{TREC_EVAL_RELSTRING} take parameters here."
            )
        metric = _CUTOFF[family]
        cutoffs = params.split(",") if dot else metric.trec_eval_cutoffs
        if dot and not all(re.fullmatch(r"[1-9][0-9]*", k) for k in cutoffs):
            raise ValueError(
                f"Bad cut-offs in measure {text!r}: expected positive integers "
                f"separated by commas, e.g. {family}.5,10."
            )
        return [(f"{family}_{int(k)}", metric, int(k)) for k in cutoffs]
    if text in _WHOLE:
        return [(text, _WHOLE[text], None)]
    match = _TREC_CUT_NAME.fullmatch(text)
    if match:
        return [(text, _CUTOFF[match[1]], int(match[2]))]
    match = _ALIAS_AT_K.fullmatch(text)
    if match and metric_for_alias(match[1]) is not None:
        return [(text, metric_for_alias(match[1]), int(match[2]))]
    try:
        metric, k = parse_scorer_name(text)
    except ValueError:
        raise ValueError(_unknown_measure(text)) from None
    return [(text, metric, k)]


# trec_eval 10.0's measures (its measures.c) that are not computed here
# (a name the registry gives a metric, as ideal_dcg or yaap may get, leaves
# the list by itself).
_TREC_EVAL_ELSEWHERE = tuple(n for n in (
    "ideal_dcg", "yaap", "ndcg_p", "P_avgjg", "map_avgjg", "Rprec_mult_avgjg",
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
    "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
    "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp", "all_prefs", "prefs", "qrels_jg", "set",
) if n not in TREC_EVAL_NAMES)  # fmt: skip


def _unknown_measure(text):
    """One line naming the fix for a measure not known here."""
    if text.partition(".")[0] in _TREC_EVAL_ELSEWHERE:
        return (
            f"Measure {text!r} is trec_eval's but is not computed here; "
            f"'sklearn-rankk --help' lists the measures that are."
        )
    known = [
        *(f.replace("<k>", "10") for f in scorer_name_forms()),
        *TREC_EVAL_NAMES,
        *(f"{name}_10" for name in _CUTOFF),
        *TREC_EVAL_NICKNAMES,
        *TREC_EVAL_COUNTS,
        *TREC_EVAL_SUMMARY,
        *TREC_EVAL_GEOMETRIC,
        TREC_EVAL_RELSTRING,
    ]
    close = difflib.get_close_matches(text, known, n=1, cutoff=0.6)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return (
        f"Unknown measure {text!r}.{hint} 'sklearn-rankk --help' lists the "
        f"measures (trec_eval's names and the package's, e.g. ndcg_cut.10 or "
        f"ndcg@10)."
    )


def evaluate(qrels, run, measures, *, level=1, ties="trec_eval", complete=False):
    """Per-query values of trec_eval-style measures on TREC data.

    Parameters
    ----------
    qrels, run : path, file object or dict
        As in :func:`~sklearn_rankk.from_trec`.
    measures : list of str
        ``-m`` arguments (see :func:`parse_measure`).
    level : int, default=1
        trec_eval's ``-l``: a document is relevant when its grade is at
        least ``level`` (binary measures). The graded measures (nDCG, DCG
        and trec_eval's other gain measures) use every positive grade as
        gain and count negative grades as 0, as trec_eval does.
    ties : {"trec_eval", "average"}, default="trec_eval"
        ``"trec_eval"``: tied scores ranked by docno descending
        (``ignore_ties=True`` on from_trec's columns); ``"average"``:
        the expected value over all orderings of tied documents.
    complete : bool, default=False
        trec_eval's ``-c``.

    Returns
    -------
    qids : list of str
    values : dict of str -> ndarray of shape (n_queries,)
        Keyed by output label (of two columns with one label, such as
        ``iprec_at_recall.0.149,0.151``, the last), in order, for the
        measures with per-query values (not ``runid``, ``num_q``,
        ``gm_map``, ``gm_bpref``); integer
        counts for ``num_ret`` and the like, strings for ``relstring``.
        Queries with no relevant document score 0, as in trec_eval (utility
        has its own value there).
    """
    columns, qids, values, _ = _evaluate(
        qrels, run, measures, level=level, ties=ties, complete=complete
    )
    return qids, {
        c.label: _as_numpy(c, v)
        for c, v in zip(columns, values, strict=True)
        if c.kind not in ("gm", "summary")
    }


def _as_numpy(column, values):
    """A column's per-query values as numpy arrays (the numpy-free path
    gives ``array.array`` and lists)."""
    import numpy as np

    if isinstance(values, array.array):
        return np.asarray(values, dtype=np.int64 if values.typecode == "q" else float)
    if column.kind == "relstring" and isinstance(values, list):
        return np.array(values, dtype=object)
    return values


#: Whether TREC files are evaluated without numpy (:func:`_evaluate_lite`);
#: the tests turn it off to compare both paths' output byte for byte.
_LITE = True


def _evaluate(
    qrels,
    run,
    measures,
    *,
    level,
    ties,
    complete,
    max_retrieved=None,
    judged_only=False,
    n_docs=0,
):
    """(columns, qids, per-query values of each column, the rows)."""
    check_option(ties, "ties", ("trec_eval", "average"))
    columns = _columns(measures)
    options = dict(
        level=level,
        ties=ties,
        complete=complete,
        max_retrieved=max_retrieved,
        judged_only=judged_only,
        n_docs=n_docs,
    )
    if _LITE and is_file(qrels) and is_file(run) and all(map(_lite_column, columns)):
        found = _evaluate_lite(qrels, run, columns, **options)
        if found is not None:
            return found
    return _evaluate_numpy(qrels, run, columns, **options)


def _thresholds(requests, level):
    """The requests grouped by the relevance threshold of their kernel pass,
    in order: binary measures count grades >= level, graded ones take every
    positive grade as gain, whatever the level; a measure with its own
    level (ir_measures' P(rel=2)@5) keeps it (as :func:`query_values`)."""
    groups = {}
    for r in requests:
        threshold = r.relevance_threshold
        if threshold is None:
            threshold = 0 if r.metric.graded else level - 1
        groups.setdefault(threshold, []).append(r)
    return groups


def _lite_column(column):
    """Whether :func:`_evaluate_lite` computes this column: every request
    whose kernel fields need no array made by numpy (a gain map, a discount
    table) and no check of the largest grade (exponential gains, ERR's
    max_grade)."""
    if column.request is None:
        return True
    options = column.request.options
    return not (
        column.gains
        or column.request.curve
        or column.request.negate
        or options.get("gains") is not None
        or options.get("discount", "log") != "log"
        or options.get("gain") == "exponential"
        or options.get("max_grade") is not None
        or options.get("max_rel") is not None
    )


def _evaluate_lite(
    qrels, run, columns, *, level, ties, complete, max_retrieved, judged_only, n_docs
):
    """:func:`_evaluate` of TREC files without numpy: the files joined by
    trec.hpp into ``array.array`` segments, every request through the
    kernel (:func:`_kernel.evaluate_segments`), queries without a relevant
    document at 0, as :func:`query_values` does. None where the kernel flags
    an input or a value overflows: the numpy path then raises its error."""
    rows = file_rows(
        qrels,
        run,
        complete=complete,
        mark_unjudged=True,
        max_retrieved=max_retrieved,
        judged_only=judged_only,
        lite=True,
    )
    offsets = rows.offsets
    n = len(offsets) - 1
    n_items = max((offsets[i + 1] - offsets[i] for i in range(n)), default=0)
    ties_code = _kernel.TIES_LATER_FIRST if ties == "trec_eval" else _kernel.TIES_EXACT
    threads = threads_for(len(rows.y_score))
    requests = list(dict.fromkeys(c.request for c in columns if c.request is not None))
    found = {}
    for threshold, group in _thresholds(requests, level).items():
        fields, held = [], []
        for j, request in enumerate(group):
            fields.append(kernel_request(request, n_items, j, held)[0])
        values, empty, flags = _kernel.evaluate_segments(
            rows.y_score,
            rows.y_true,
            offsets,
            fields,
            len(group),
            ties_code,
            float(threshold),
            threads,
        )
        if any(flags):
            return None
        m = len(group)
        for j, request in enumerate(group):
            v = values[j::m]
            if not all(map(math.isfinite, v)):
                return None
            for i, is_empty in enumerate(empty[j::m]):
                if is_empty:
                    v[i] = 0.0
            found[request] = v
    counts = {}

    def counts_at(at):  # all four, once per level
        if at not in counts:
            counts[at] = dict(
                zip(
                    TREC_EVAL_COUNTS,
                    _kernel.trec_counts(rows.y_true, rows.y_score, offsets, at, True),
                )
            )
        return counts[at]

    # Measures that trec_eval sets to 0 on queries without a document at the
    # level, though they read every positive grade (Rndcg).
    for request, v in found.items():
        if request.metric.trec_eval_level_gate:
            at_level = counts_at(level)["num_rel"]
            for i in range(n):
                if not at_level[i]:
                    v[i] = 0.0
    values = []
    for c in columns:
        if c.request is not None:
            values.append(found[c.request])
        elif c.kind == "count":
            values.append(
                counts_at(level if c.level is None else c.level)[c.count or c.label]
            )
        elif c.kind == "from_counts":
            values.append(_from_count_values(c, counts_at(level), n_docs))
        elif c.kind == "relstring":
            values.append(
                _kernel.trec_relstrings(
                    rows.y_true, rows.y_score, offsets, max(c.length, 0)
                )
            )
        else:
            values.append(None)
    return columns, rows.qids, values, rows


def _evaluate_numpy(
    qrels, run, columns, *, level, ties, complete, max_retrieved, judged_only, n_docs
):
    """:func:`_evaluate` through the engine's numpy path (any input, gain
    maps, discount tables)."""
    import numpy as np

    from .evaluate import query_values, trec_counts
    from .trec import trec_rows

    # trec_eval's view of the judgments: unjudged documents marked, every
    # judged document of a query present (bpref, infAP, unj, the counts).
    rows = trec_rows(
        qrels,
        run,
        complete=complete,
        mark_unjudged=True,
        max_retrieved=max_retrieved,
        judged_only=judged_only,
    )
    found = {}
    # One call per gain map: a gain map is the grades mapped to gains.
    passes = {(): {}}  # requests by gain map, each once, in order (dicts)
    for c in columns:
        if c.request is not None:
            passes.setdefault(c.gains, {})[c.request] = None
    for gains, requests in passes.items():
        requests = list(requests)
        per_query = query_values(
            requests,
            _with_gains(rows.y_true, gains),
            rows.y_score,
            offsets=rows.offsets,
            level=level,
            ignore_ties=ties == "trec_eval",
        )
        found.update(((r, gains), v) for r, v in zip(requests, per_query, strict=True))
    # Measures that trec_eval sets to 0 on queries without a document at the
    # level, though they read every positive grade (Rndcg).
    gated = [key for key in found if key[0].metric.trec_eval_level_gate]
    if gated:
        at_level = np.concatenate([[0], np.cumsum(rows.y_true >= level)])
        none_at_level = np.diff(at_level[rows.offsets]) == 0
        for key in gated:
            found[key] = np.where(none_at_level, 0.0, found[key])
    values = []
    counts = {}

    def counts_at(at):  # all four, once per level
        if at not in counts:
            counts[at] = trec_counts(rows.y_true, rows.y_score, rows.offsets, at)
        return counts[at]

    for c in columns:
        if c.request is not None:
            values.append(found[c.request, c.gains])
        elif c.kind == "count":
            at = level if c.level is None else c.level
            values.append(counts_at(at)[c.count or c.label])
        elif c.kind == "from_counts":
            found_counts = _from_count_values(c, counts_at(level), n_docs)
            values.append(np.asarray(found_counts, dtype=np.float64))
        elif c.kind == "relstring":
            values.append(_relstrings(rows, c.length))
        else:
            values.append(None)
    return columns, rows.qids, values, rows


def _with_gains(y_true, gains):
    """Grades with trec_eval's gain map applied (negative grades kept)."""
    if not gains:
        return y_true
    import numpy as np

    out = y_true.astype(np.float64)
    for grade, gain in gains:
        out[y_true == grade] = gain
    return out


def _from_count_values(column, counts, n_docs):
    """set_F and utility per query, with trec_eval's arithmetic: set_F is
    ``(x + 1) P R / (x P + R)`` from P and R in double precision (0 with
    nothing relevant retrieved), utility the four coefficients times
    relevant retrieved, non-relevant retrieved, relevant not retrieved and
    ``N + relevant retrieved - retrieved - relevant`` (``-N``). An
    ``array.array`` of float64 (Python's floats are C's doubles)."""
    out = array.array("d")
    columns = (counts["num_ret"], counts["num_rel"], counts["num_rel_ret"])
    if len(column.coefficients) == 4:
        a, b, c, d = column.coefficients
        for ret, rel, rel_ret in zip(*columns, strict=True):
            ret, rel, rel_ret = float(ret), float(rel), float(rel_ret)
            out.append(
                a * rel_ret
                + b * (ret - rel_ret)
                + c * (rel - rel_ret)
                + d * (n_docs + rel_ret - ret - rel)
            )
        return out
    x = column.coefficients[0]
    for ret, rel, rel_ret in zip(*columns, strict=True):
        if rel_ret > 0:
            ret, rel, rel_ret = float(ret), float(rel), float(rel_ret)
            precision = rel_ret / ret
            recall = rel_ret / rel
            out.append((x + 1.0) * precision * recall / (x * precision + recall))
        else:
            out.append(0.0)
    return out


def _relstrings(rows, length):
    """trec_eval's relstring: the grades of each query's first ``length``
    retrieved documents in trec_eval's order (tied scores by docno
    descending), one character each: the grade if 0-9, ``>`` above 9, ``-``
    never judged, ``.`` pooled but not judged."""
    import numpy as np

    return np.array(
        _kernel.trec_relstrings(
            np.ascontiguousarray(rows.y_true, dtype=np.int64),
            np.ascontiguousarray(rows.y_score, dtype=np.float64),
            rows.offsets,
            max(length, 0),
        ),
        dtype=object,
    )


def _paragraphs(*texts):
    return "\n\n".join(textwrap.fill(t, 79, break_on_hyphens=False) for t in texts)


def _epilog():
    """The help's text after the options (wrapped only when --help asks:
    wrapping takes longer than evaluating trec_eval's small files)."""
    return _paragraphs(
        "measures (-m, repeatable): "
        + MEASURE_FORMS
        + " Default: trec_eval's official measures that are computed here (map, "
        "Rprec, recip_rank, iprec_at_recall, P). Each is printed as written, in "
        "the order given; "
        "a family or nickname prints trec_eval's names (P_5, ...).",
        "relevance: binary measures count a document as relevant when its grade "
        "is at least LEVEL (-l); nDCG, DCG and trec_eval's other gain measures use "
        "every positive grade as gain, as trec_eval does. Queries with no relevant "
        "document score 0 (utility has its own value there, as in trec_eval).",
        "ties: '--ties trec_eval' (default) ranks documents of equal score by "
        "docno, descending, exactly as trec_eval does: the value then depends on "
        "the document names. '--ties average' gives the expected value over all "
        "orderings of the tied documents (the package's default), which does "
        "not. Both agree on runs without tied scores.",
        "queries: those of the run that have judgments; with -c, every query of "
        "the qrels, a query missing from the run scoring 0. Without -c, a query "
        "of the qrels missing from the run is left out with a warning on stderr "
        "(trec_eval 10.0 stops with an error there).",
        "files: text, or gzip-compressed (found by their first bytes, whatever "
        "their name). The digits are trec_eval's: the 'all' line adds the "
        "per-query values in query order and divides, set_F and utility are "
        "computed from the counts as trec_eval computes them.",
        "exit status: 0 on success, 1 on an unreadable or malformed file (the "
        "message names the file and line), 2 on a usage error, 141 (quietly) "
        "when the reader of the output closes it early, as '| head' does.",
    )


class _Parser(argparse.ArgumentParser):
    """argparse's parser, with the epilog made on the first help."""

    def format_help(self):
        if self.epilog is None:
            self.epilog = _epilog()
        return super().format_help()


def _parser():
    parser = _Parser(
        prog="sklearn-rankk",
        description=_paragraphs(
            "Evaluate a TREC run against TREC relevance judgments like "
            "trec_eval, with sklearn_rankk's metrics. Prints 'measure qid "
            "value' lines in trec_eval's layout: per query with -q, then the "
            "mean over the queries ('all')."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", help="qrels file: qid iter docno rel")
    parser.add_argument(
        "run", help="run file: qid Q0 docno rank score tag ('-': stdin)"
    )
    parser.add_argument(
        "-m",
        "--measure",
        action="append",
        metavar="MEASURE",
        help="measure to print, e.g. ndcg@10, map, P@5, P_5, ndcg_cut.10,20",
    )
    parser.add_argument(
        "-q",
        "--query_eval_wanted",
        action="store_true",
        help="also print the value of every query",
    )
    parser.add_argument(
        "-n", "--nosummary", action="store_true", help="do not print the 'all' lines"
    )
    parser.add_argument(
        "-c",
        "--complete_rel_info_wanted",
        action="store_true",
        help="average over every query of the qrels (missing queries score 0)",
    )
    parser.add_argument(
        "-l",
        "--level_for_rel",
        type=int,
        default=1,
        metavar="LEVEL",
        help="minimum grade of a relevant document (default 1)",
    )
    parser.add_argument(
        "-M",
        "--Max_retrieved_per_topic",
        type=_non_negative_int,
        default=None,
        metavar="N",
        help="evaluate only the first N documents of each query's ranking "
        "(trec_eval's order)",
    )
    parser.add_argument(
        "-J",
        "--Judged_docs_only",
        action="store_true",
        help="drop the documents without a judgment from the run before "
        "evaluating (the ranks close up)",
    )
    parser.add_argument(
        "-N",
        "--Number_docs_in_coll",
        type=_non_negative_int,
        default=0,
        metavar="N",
        help="number of documents in the collection (utility's fourth "
        "coefficient counts N + relevant retrieved - retrieved - relevant)",
    )
    parser.add_argument(
        "-Z",
        "--Zscore",
        metavar="FILE",
        help="print z-scores: each per-query value v becomes (v - mean) / "
        "stddev from FILE's lines 'qid measure mean stddev' (trec_eval's "
        "format; -1000000 where FILE has no line for it)",
    )
    parser.add_argument(
        "--ties",
        choices=["trec_eval", "average"],
        default="trec_eval",
        help="tie-breaking: trec_eval's docno order (default) or the "
        "expectation over tied orderings",
    )
    return parser


#: trec_eval's value of a z-score it cannot compute (MISSING_ZSCORE_VALUE).
MISSING_ZSCORE = -1000000.0


def _read_zscores(path):
    """trec_eval's z-score file: ``qid measure mean stddev`` per line."""
    data, name = read_bytes(path)
    table = {}
    for lineno, line in enumerate(data.decode("utf-8").splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        try:
            if len(fields) != 4:
                raise ValueError
            mean, stddev = float(fields[2]), float(fields[3])
        except ValueError:
            raise ValueError(
                f"{name}:{lineno}: expected 4 fields 'qid measure mean stddev' "
                f"(mean and stddev numbers); got {line.strip()!r}."
            ) from None
        table.setdefault(fields[0], {})[fields[1]] = (mean, stddev)
    return table


def _to_zscores(path, columns, qids, values):
    """-Z: every per-query value v of a measure as trec_eval converts it,
    ``(v - mean) / stddev`` with the file's mean and stddev for the query and
    measure; 0 where stddev is 0 and v the mean; -1000000 where the file
    has no line for them (or stddev is 0 and v is not the mean). gm_map and
    gm_bpref convert the logarithms they average."""
    import numpy as np

    table = _read_zscores(path)
    new_columns, new_values = [], []
    for c, v in zip(columns, values, strict=True):
        if c.kind not in ("metric", "from_counts", "count", "gm"):
            if "num_q" in (c.label, c.count):  # printed as trec_eval prints it
                c = dataclasses.replace(c, z=True)
            new_columns.append(c)
            new_values.append(v)
            continue
        v = np.asarray(v, dtype=np.float64)
        if c.kind == "gm":
            v = np.log(np.maximum(v, MIN_GEO_MEAN))
        z = np.empty_like(v)
        for i, qid in enumerate(qids):
            found = table.get(qid, {}).get(c.label)
            if found is None:
                z[i] = MISSING_ZSCORE
            elif found[1]:
                z[i] = (v[i] - found[0]) / found[1]
            else:
                z[i] = 0.0 if v[i] == found[0] else MISSING_ZSCORE
        new_columns.append(dataclasses.replace(c, z=True))
        new_values.append(z)
    return new_columns, new_values


def _left_out(qids):
    """The one-line warning for queries of the qrels missing from the run."""
    n = len(qids)
    shown = ", ".join(repr(q) for q in qids[:3]) + (", ..." if n > 3 else "")
    return (
        f"{n} {'query' if n == 1 else 'queries'} of the qrels ({shown}) "
        f"{'has' if n == 1 else 'have'} no results in the run and "
        f"{'is' if n == 1 else 'are'} left out of the mean (trec_eval 10.0 "
        f"stops with an error); use -c to count {'it' if n == 1 else 'them'} "
        f"as 0."
    )


def _non_negative_int(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"expected a whole number at least 0, got {text!r}"
        )
    return value


def _line(column, qid, value):
    """One line in trec_eval's layout (``meas_print_single.c``)."""
    if column.z:
        return f"Z{column.label:<22}\t{qid}\t{value:6.4f}\n"
    if column.kind == "relstring":
        text = f"'{value}'"
    elif column.kind == "count" or "num_q" in (column.label, column.count):
        text = f"{int(value)}"
    elif column.label == "runid":
        text = value
    else:
        text = f"{value:6.4f}"
    return f"{column.label:<22}\t{qid}\t{text}\n"


def _texts(column, values):
    """A column's per-query values as :func:`_kernel.format_lines` prints
    them: relstrings quoted, counts as integers, the rest ``%6.4f``."""
    if column.kind == "relstring":
        return [f"'{v}'" for v in list(values)]
    if isinstance(values, array.array):  # the numpy-free path's "q" and "d"
        return values
    import numpy as np

    if column.kind == "count" and not column.z:
        return np.asarray(values).astype(np.int64)
    return np.asarray(values, dtype=np.float64)


def _per_query_lines(columns, qids, values):
    """The per-query lines, query by query, in one string (formatted by
    the compiled extension: a million lines of ``all_trec`` in Python took
    as long as computing them)."""
    printed = [
        (c, v)
        for c, v in zip(columns, values, strict=True)
        if c.kind not in ("gm", "summary")
    ]
    heads = [f"{'Z' if c.z else ''}{c.label:<22}\t" for c, _ in printed]
    texts = [_texts(c, v) for c, v in printed]
    return _kernel.format_lines(list(qids), heads, texts).decode("utf-8")


def _summary(column, v, rows, args):
    """The "all" value of a column, as trec_eval accumulates it: the
    per-query values added in query order, then divided by the number of
    queries (the geometric means: their logarithms, floored at 1e-5)."""
    if column.label == "runid":
        return rows.runid
    n = len(rows.qids)
    if "num_q" in (column.label, column.count):
        return n
    if column.kind == "count" and column.z:
        return _sum_in_order(v)
    if column.kind == "gm" and column.z:  # z-scores of the logarithms
        return math.exp(_sum_in_order(v) / n)
    if column.kind == "count":
        if column.label == "num_rel" and args.complete_rel_info_wanted:
            return _n_positive(rows)  # trec_eval's -c quirk
        return sum(int(x) for x in v)
    if column.kind == "gm":
        logs = [math.log(max(x, MIN_GEO_MEAN)) for x in v]
        return math.exp(_sum_in_order(logs) / n)
    return _sum_in_order(v) / n


def _n_positive(rows):
    """The documents of positive grade in every segment of the rows."""
    if isinstance(rows.y_true, array.array):
        counts = _kernel.trec_counts(rows.y_true, rows.y_score, rows.offsets, 1, True)
        return sum(counts[1])  # relevant at level 1: grade > 0
    import numpy as np

    return int(np.count_nonzero(rows.y_true > 0))


def _sum_in_order(values):
    """The sum of float64 values added one after the other, as a C loop adds
    them (not numpy's pairwise sum, which can differ in the last bits):
    Python's floats are C's doubles."""
    total = 0.0
    for x in values:
        total += float(x)
    return total


def main(argv=None):
    """Run the command line; return the exit status.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments (``sys.argv[1:]`` when None).

    Returns
    -------
    status : int
        0 on success, 1 on an unreadable or malformed file, 2 on a usage
        error, 141 when the output's reader closed it early (``| head``).

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rankk._io.cli import main
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     qrels = os.path.join(folder, "qrels")
    ...     run = os.path.join(folder, "run")
    ...     with open(qrels, "w") as f:
    ...         _ = f.write("q1 0 d1 1\\nq1 0 d2 0\\nq2 0 d3 1\\n")
    ...     with open(run, "w") as f:
    ...         _ = f.write("q1 Q0 d2 1 0.9 x\\nq1 Q0 d1 2 0.5 x\\nq2 Q0 d3 1 0.7 x\\n")
    ...     status = main(["-q", "-m", "P@1", "-m", "map", qrels, run])
    P@1                   	q1	0.0000
    map                   	q1	0.5000
    P@1                   	q2	1.0000
    map                   	q2	1.0000
    P@1                   	all	0.5000
    map                   	all	0.7500
    >>> status
    0
    """
    parser = _parser()
    try:
        args = parser.parse_args(argv)
        if args.level_for_rel < 1:
            parser.error(
                f"-l must be at least 1 (got {args.level_for_rel}): unjudged "
                f"documents have grade 0 here."
            )
        measures = args.measure or ["official"]
    except SystemExit as exc:  # argparse's exit: usage error (2) or --help (0)
        return exc.code if isinstance(exc.code, int) else 2
    for text in measures:
        try:
            _parse(text)
        except ValueError as exc:  # one line, without the usage
            print(f"sklearn-rankk: error: {exc}", file=sys.stderr)
            return 2
    try:
        run = getattr(sys.stdin, "buffer", sys.stdin) if args.run == "-" else args.run
        columns, qids, values, rows = _evaluate(
            args.qrels,
            run,
            measures,
            level=args.level_for_rel,
            ties=args.ties,
            complete=args.complete_rel_info_wanted,
            max_retrieved=args.Max_retrieved_per_topic,
            judged_only=args.Judged_docs_only,
            n_docs=args.Number_docs_in_coll,
        )
    except (OSError, ValueError) as exc:
        print(f"sklearn-rankk: error: {exc}", file=sys.stderr)
        return 1
    if args.Zscore is not None:
        try:
            columns, values = _to_zscores(args.Zscore, columns, qids, values)
        except (OSError, ValueError) as exc:
            print(f"sklearn-rankk: error: {exc}", file=sys.stderr)
            return 1
    if rows.unretrieved:
        print(f"sklearn-rankk: warning: {_left_out(rows.unretrieved)}", file=sys.stderr)
    out = sys.stdout
    try:
        if args.query_eval_wanted:
            out.write(_per_query_lines(columns, qids, values))
        if not args.nosummary:
            out.write(
                "".join(
                    _line(c, "all", _summary(c, v, rows, args))
                    for c, v in zip(columns, values, strict=True)
                    if c.kind != "relstring"
                )
            )
        out.flush()
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as Unix tools do,
        # and keep Python's exit-time flush from complaining.
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())  # a real file
        return _CLOSED_PIPE
    return 0
