"""``sklearn-rankk QRELS RUN -m ndcg@10 ...``: trec_eval's command line.

Reads a TREC qrels file and run, converts them with
:func:`~sklearn_rankk.from_trec` and prints the measures in trec_eval's
three-column layout, computed by the package's metrics (one top-k pass for
the binary measures, one for nDCG/DCG).
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap

import numpy as np

from ._metrics import aggregate
from ._registry import METRICS
from ._scorer import get_scorer, get_scorer_names
from ._trec import from_trec, read_trec_qrels, read_trec_run
from ._validation import check_option

# trec_eval's measures with a cut-off -> the package's metric.
TREC_CUTOFF_MEASURES = {
    "P": "precision",
    "recall": "recall",
    "ndcg_cut": "ndcg",
    "map_cut": "map",
    "success": "hit",
}
# trec_eval's measures of the whole ranking -> the package's metric.
TREC_WHOLE_MEASURES = {
    "map": "map",
    "ndcg": "ndcg",
    "recip_rank": "mrr",
    "Rprec": "r_precision",
}
# trec_eval's default cut-offs when a family is named alone ("-m P").
_DEFAULT_CUTOFFS = {"success": (1, 5, 10)}
_STANDARD_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
# trec_eval's nicknames, restricted to the measures computed here, in
# trec_eval's order.
NICKNAMES = {
    "official": ["map", "Rprec", "recip_rank", "P"],
    "all_trec": [
        "map",
        "Rprec",
        "recip_rank",
        "P",
        "recall",
        "ndcg",
        "ndcg_cut",
        "map_cut",
        "success",
    ],
}
_TREC_CUT_NAME = re.compile(r"(P|recall|ndcg_cut|map_cut|success)_([1-9][0-9]*)")
_P_ALIAS = re.compile(r"P@([1-9][0-9]*)")

TREC_FORMS = (
    "P_<k>, recall_<k>, ndcg_cut_<k>, map_cut_<k>, success_<k>, map, ndcg, "
    "recip_rank, Rprec; '<family>.<k1>,<k2>,...' and a family alone (P, recall, "
    "ndcg_cut, map_cut, success: trec_eval's default cut-offs); the nicknames "
    "official and all_trec (their measures computed here); P@<k> for "
    "precision@<k>"
)
MEASURE_FORMS = (
    f"scorer names ({', '.join(get_scorer_names())}) or trec_eval's names "
    f"({TREC_FORMS})."
)


def parse_measure(text):
    """A ``-m`` argument -> ``[(label, metric, k), ...]``.

    ``label`` is what the output shows: the name as given, or trec_eval's
    ``P_5`` for each cut-off of ``P.5,10`` or ``P``.
    """
    if text in NICKNAMES:
        return [m for name in NICKNAMES[text] for m in parse_measure(name)]
    family, dot, params = text.partition(".")
    if dot or family in TREC_CUTOFF_MEASURES:
        if family not in TREC_CUTOFF_MEASURES:
            raise ValueError(
                f"Unknown measure {text!r}: only trec_eval's cut-off measures "
                f"({', '.join(TREC_CUTOFF_MEASURES)}) take parameters here."
            )
        cutoffs = params.split(",") if dot else None
        if cutoffs is None:
            cutoffs = _DEFAULT_CUTOFFS.get(family, _STANDARD_CUTOFFS)
        elif not all(re.fullmatch(r"[1-9][0-9]*", k) for k in cutoffs):
            raise ValueError(
                f"Bad cut-offs in measure {text!r}: expected positive integers "
                f"separated by commas, e.g. {family}.5,10."
            )
        metric = TREC_CUTOFF_MEASURES[family]
        return [(f"{family}_{int(k)}", metric, int(k)) for k in cutoffs]
    if text in TREC_WHOLE_MEASURES:
        return [(text, TREC_WHOLE_MEASURES[text], None)]
    match = _TREC_CUT_NAME.fullmatch(text)
    if match:
        return [(text, TREC_CUTOFF_MEASURES[match[1]], int(match[2]))]
    match = _P_ALIAS.fullmatch(text)
    if match:
        return [(text, "precision", int(match[1]))]
    try:
        (_, metric, k, _), *_ = get_scorer(text).metrics
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
        least ``level`` (binary measures). nDCG and DCG use every positive
        grade as gain and count negative grades as 0, as trec_eval does.
    ties : {"trec_eval", "average"}, default="trec_eval"
        ``"trec_eval"``: tied scores ranked by docno descending
        (``ignore_ties=True`` on trec_eval's column order); ``"average"``:
        the expected value over all orderings of tied documents.
    complete : bool, default=False
        trec_eval's ``-c``.

    Returns
    -------
    qids : list of str
    values : dict of str -> ndarray of shape (n_queries,)
        Keyed by output label, in order. Queries with no relevant document
        score 0, as in trec_eval.
    """
    check_option(ties, "ties", ("trec_eval", "average"))
    wanted = {}
    for text in measures:
        for label, metric, k in parse_measure(text):
            wanted.setdefault(label, (metric, k))
    y_true, y_score, qids = from_trec(qrels, run, complete=complete)
    common = {"ignore_ties": ties == "trec_eval", "zero_division": 0.0}
    keys = {
        label: metric if k is None else f"{metric}@{k}"
        for label, (metric, k) in wanted.items()
    }
    graded = sorted(
        {key for label, key in keys.items() if METRICS[wanted[label][0]].graded}
    )
    binary = sorted(set(keys.values()) - set(graded))
    rows = {}
    if binary:
        scorer = get_scorer(binary, relevance_threshold=level - 1, **common)
        rows.update(scorer._row_values(y_true, y_score)[0])
    if graded:
        scorer = get_scorer(graded, **common)
        rows.update(scorer._row_values(np.maximum(y_true, 0), y_score)[0])
    return qids, {label: rows[key] for label, key in keys.items()}


def _paragraphs(*texts):
    return "\n\n".join(textwrap.fill(t, 79, break_on_hyphens=False) for t in texts)


_EPILOG = _paragraphs(
    "measures (-m, repeatable): "
    + MEASURE_FORMS
    + " Default: trec_eval's official measures that are computed here (map, "
    "Rprec, recip_rank, P). Each is printed as written, in the order given; "
    "a family or nickname prints trec_eval's names (P_5, ...).",
    "relevance: binary measures count a document as relevant when its grade "
    "is at least LEVEL (-l); nDCG and DCG use every positive grade as gain, as "
    "trec_eval does. Queries with no relevant document score 0.",
    "ties: '--ties trec_eval' (default) ranks documents of equal score by "
    "docno, descending, exactly as trec_eval does: the value then depends on "
    "the document names. '--ties average' gives the expected value over all "
    "orderings of the tied documents (the package's default), which does "
    "not. Both agree on runs without tied scores.",
    "queries: those of the run that have judgments, as trec_eval; with -c, "
    "every query of the qrels, a query missing from the run scoring 0.",
    "exit status: 0 on success, 1 on an unreadable or malformed file (the "
    "message names the file and line), 2 on a usage error.",
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
        error.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rankk._cli import main
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
                parse_measure(text)
            except ValueError as exc:
                parser.error(str(exc))
    except SystemExit as exc:  # argparse's exit: usage error (2) or --help (0)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        run = read_trec_run(
            getattr(sys.stdin, "buffer", sys.stdin) if args.run == "-" else args.run
        )
        qids, values = evaluate(
            read_trec_qrels(args.qrels),
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
    if args.query_eval_wanted:
        for i, qid in enumerate(qids):
            for label, rows in values.items():
                out.write(f"{label:<22}\t{qid}\t{rows[i]:6.4f}\n")
    if not args.nosummary:
        no_undefined = np.zeros(len(qids), dtype=bool)
        for label, rows in values.items():
            mean = aggregate(
                rows,
                no_undefined,
                sample_weight=None,
                average="mean",
                zero_division=0.0,
                metric=label,
            )
            out.write(f"{label:<22}\tall\t{mean:6.4f}\n")
    return 0
