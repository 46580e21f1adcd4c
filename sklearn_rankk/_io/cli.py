"""``sklearn-rankk QRELS RUN -m ndcg@10 ...``: trec_eval's command line.

Reads a TREC qrels file and run, converts them with
:func:`~sklearn_rankk.from_trec` and prints the measures in trec_eval's
three-column layout, computed by the package's metrics (one top-k pass for
the binary measures, one for nDCG/DCG).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import textwrap
from dataclasses import dataclass

import numpy as np

from .._core import engine
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
from .._core.validation import check_option
from .evaluate import query_values, trec_counts
from .names import parse_ir_measure
from .trec import trec_rows

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
    line only) or ``"relstring"`` (per query only).
    """

    label: str
    kind: str
    request: object = None
    length: int = 0
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
    """The output columns of ``-m`` arguments, without repeats.

    As trec_eval, parameters given to a measure (``relstring.20``,
    ``P.5,10``) also apply where a nickname names it.
    """
    explicit = {}
    for text in texts:
        family, dot, params = text.partition(".")
        if dot and text not in TREC_EVAL_NICKNAMES:
            explicit.setdefault(family, text)
    out = {}
    for text in texts:
        for column in _parse(text, explicit):
            out.setdefault(column.label, column)
    return list(out.values())


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
        return [_Column(text, "gm", engine.make_request(TREC_EVAL_GEOMETRIC[text]))]
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
        _Column(label, "metric", engine.make_request(metric, k))
        for label, metric, k in parsed
    ]


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
        engine.check_params(metric, params)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"Measure {text!r}: {exc}") from None
    return _Column(label, "metric", engine.make_request(metric, None, params))


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
                f"({', '.join(_CUTOFF)}), {', '.join(_FAMILY)} and "
                f"{', '.join(_WHOLE_PARAM) or 'no other'} take parameters here."
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
    except ValueError as exc:
        raise ValueError(f"{exc} trec_eval's names work too: {TREC_FORMS}.") from None
    return [(text, metric, k)]


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
        Keyed by output label, in order, for the measures with per-query
        values (not ``runid``, ``num_q``, ``gm_map``, ``gm_bpref``); integer
        counts for ``num_ret`` and the like, strings for ``relstring``.
        Queries with no relevant document score 0, as in trec_eval (utility
        has its own value there).
    """
    columns, qids, values, _ = _evaluate(
        qrels, run, measures, level=level, ties=ties, complete=complete
    )
    return qids, {
        c.label: values[c.label] for c in columns if c.kind not in ("gm", "summary")
    }


def _evaluate(qrels, run, measures, *, level, ties, complete):
    """(columns, qids, per-query values by label, the rows)."""
    check_option(ties, "ties", ("trec_eval", "average"))
    columns = _columns(measures)
    # trec_eval's view of the judgments: unjudged documents marked, every
    # judged document of a query present (bpref, infAP, unj, the counts).
    rows = trec_rows(qrels, run, complete=complete, mark_unjudged=True)
    wanted = list(dict.fromkeys(c.request for c in columns if c.request is not None))
    # Binary measures count grades >= level; graded ones take every positive
    # grade as gain (negative grades have none), whatever the level.
    found = dict(
        zip(
            wanted,
            query_values(
                wanted,
                rows.y_true,
                rows.y_score,
                offsets=rows.offsets,
                level=level,
                ignore_ties=ties == "trec_eval",
                level_gate=True,
            ),
        )
    )
    values = {}
    counts = {}
    for c in columns:
        if c.request is not None:
            values[c.label] = found[c.request]
        elif c.kind == "count":
            at = level if c.level is None else c.level
            if at not in counts:  # all four, once per level
                counts[at] = trec_counts(rows.y_true, rows.y_score, rows.offsets, at)
            values[c.label] = counts[at][c.count or c.label]
        elif c.kind == "relstring":
            values[c.label] = _relstrings(rows, c.length)
    return columns, rows.qids, values, rows


def _relstrings(rows, length):
    """trec_eval's relstring: the grades of each query's first ``length``
    retrieved documents in trec_eval's order (tied scores by docno
    descending), one character each: the grade if 0-9, ``>`` above 9, ``-``
    never judged, ``.`` pooled but not judged."""
    y, s, offsets = rows.y_true, rows.y_score, rows.offsets
    n = y.shape[0]
    # Segments hold tied documents by docno ascending: reverse each run of
    # equal scores of a query.
    idx = np.arange(n)
    row = np.repeat(np.arange(offsets.shape[0] - 1), np.diff(offsets))
    start = np.ones(n, dtype=bool)
    start[1:] = (row[1:] != row[:-1]) | (s[1:] != s[:-1])
    end = np.ones(n, dtype=bool)
    end[:-1] = start[1:]
    first = np.maximum.accumulate(np.where(start, idx, 0))
    last = np.minimum.accumulate(np.where(end, idx, n)[::-1])[::-1] if n else idx
    grades = y[first + last - idx] if n else y
    retrieved = np.bincount(row, weights=s > -np.inf, minlength=offsets.shape[0] - 1)
    chars = {-1: "-", -2: "."}
    out = []
    for r in range(offsets.shape[0] - 1):
        top = grades[offsets[r] : offsets[r] + min(max(length, 0), int(retrieved[r]))]
        out.append(
            "".join(
                ">" if g > 9 else (str(int(g)) if g >= 0 else chars.get(int(g), "<"))
                for g in top.tolist()
            )
        )
    return np.array(out, dtype=object)


def _paragraphs(*texts):
    return "\n\n".join(textwrap.fill(t, 79, break_on_hyphens=False) for t in texts)


_EPILOG = _paragraphs(
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
    "queries: those of the run that have judgments, as trec_eval; with -c, "
    "every query of the qrels, a query missing from the run scoring 0.",
    "exit status: 0 on success, 1 on an unreadable or malformed file (the "
    "message names the file and line), 2 on a usage error, 141 (quietly) "
    "when the reader of the output closes it early, as '| head' does.",
)


def _parser():
    parser = argparse.ArgumentParser(
        prog="sklearn-rankk",
        description=_paragraphs(
            "Evaluate a TREC run against TREC relevance judgments like "
            "trec_eval, with sklearn_rankk's metrics. Prints 'measure qid "
            "value' lines in trec_eval's layout: per query with -q, then the "
            "mean over the queries ('all')."
        ),
        epilog=_EPILOG,
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
        "--ties",
        choices=["trec_eval", "average"],
        default="trec_eval",
        help="tie-breaking: trec_eval's docno order (default) or the "
        "expectation over tied orderings",
    )
    return parser


def _line(column, qid, value):
    """One line in trec_eval's layout (``meas_print_single.c``)."""
    if column.kind == "relstring":
        text = f"'{value}'"
    elif column.kind == "count" or "num_q" in (column.label, column.count):
        text = f"{int(value)}"
    elif column.label == "runid":
        text = value
    else:
        text = f"{value:6.4f}"
    return f"{column.label:<22}\t{qid}\t{text}\n"


def _summary(column, values, rows, args):
    """The "all" value of a column, as trec_eval accumulates it."""
    if column.label == "runid":
        return rows.runid
    if "num_q" in (column.label, column.count):
        return len(rows.qids)
    v = values[column.label]
    if column.kind == "count":
        if column.label == "num_rel" and args.complete_rel_info_wanted:
            return int(np.count_nonzero(rows.y_true > 0))  # trec_eval's -c quirk
        return int(v.sum())
    if column.kind == "gm":
        return engine.geometric_mean_of_rows(v, None)
    return engine.mean_of_rows(v, None)


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
        for text in measures:
            try:
                _parse(text)
            except ValueError as exc:
                parser.error(str(exc))
    except SystemExit as exc:  # argparse's exit: usage error (2) or --help (0)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        run = getattr(sys.stdin, "buffer", sys.stdin) if args.run == "-" else args.run
        columns, qids, values, rows = _evaluate(
            args.qrels,
            run,
            measures,
            level=args.level_for_rel,
            ties=args.ties,
            complete=args.complete_rel_info_wanted,
        )
    except (OSError, ValueError) as exc:
        print(f"sklearn-rankk: error: {exc}", file=sys.stderr)
        return 1
    out = sys.stdout
    try:
        if args.query_eval_wanted:
            for i, qid in enumerate(qids):
                for c in columns:
                    if c.kind in ("gm", "summary"):
                        continue
                    out.write(_line(c, qid, values[c.label][i]))
        if not args.nosummary:
            for c in columns:
                if c.kind == "relstring":
                    continue
                out.write(_line(c, "all", _summary(c, values, rows, args)))
        out.flush()
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as Unix tools do,
        # and keep Python's exit-time flush from complaining.
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())  # a real file
        return _CLOSED_PIPE
    return 0
