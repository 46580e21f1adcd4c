"""One front door: ``evaluate(qrels, run, measures)``.

Any qrels and run the readers take (TREC files, dicts of dicts, data
frames and tables, ir_datasets' iterators) or a pair of matrices, any
measure name (the package's, ir_measures'), the aggregate and, on request,
the per-query values. :func:`query_values` is also the command line's
computation: both read TREC-style data the way trec_eval does.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .._core import _kernel, engine
from .._core.registry import TREC_EVAL_COUNTS
from .._core.validation import check_bool, check_option
from .lists import to_matrices
from .names import parse_name
from .trec import NOT_POOLED, trec_rows

#: ``evaluate``'s counts that are not per-query counts of trec_eval.
_NUM_Q = "num_q"


def query_values(
    requests,
    y_true,
    y_score,
    *,
    offsets=None,
    level=1,
    ignore_ties=False,
    zero_division=0.0,
    level_gate=False,
):
    """Per-query values of ``requests``, one array per request, in order.

    Binary measures count a grade of at least ``level`` as relevant, graded
    ones take every positive grade as gain, as trec_eval does; a request
    with its own threshold (ir_measures' ``rel``) keeps it. One kernel pass
    per distinct threshold. ``zero_division`` fills the queries without a
    relevant document (trec_eval: 0). ``level_gate``: trec_eval's 0 for the
    measures it gates on a document at the level (``Rndcg``).
    """
    requests = [
        r
        if r.relevance_threshold is not None
        else replace(r, relevance_threshold=0 if r.metric.graded else level - 1)
        for r in requests
    ]
    if not requests:
        return []
    rows = engine.row_values(
        requests, y_true, y_score, offsets=offsets, ignore_ties=ignore_ties
    )
    # Keyed by position: requests of one metric with different parameters
    # (Rprec_mult_0.20, P(rel=2)@5 and P@5) share a scorer name.
    values = list(
        engine.with_undefined(
            rows, requests, zero_division, keys=list(range(len(requests)))
        ).values()
    )
    gated = [i for i, r in enumerate(requests) if r.metric.trec_eval_level_gate]
    if level_gate and gated:
        at_level = np.concatenate([[0], np.cumsum(y_true >= level)])
        none_at_level = np.diff(at_level[offsets]) == 0
        for i in gated:
            values[i] = np.where(none_at_level, 0.0, values[i])
    return values


def trec_counts(y_true, y_score, offsets, level):
    """trec_eval's per-query counts (num_ret, num_rel, num_rel_ret,
    num_nonrel_judged_ret) of segments with marked judgments."""
    if (
        y_true.dtype == np.int64
        and y_score.dtype == np.float64
        and isinstance(level, int)
        and y_true.flags.c_contiguous
        and y_score.flags.c_contiguous
    ):  # the command line's case: one pass in C
        return dict(
            zip(TREC_EVAL_COUNTS, _kernel.trec_counts(y_true, y_score, offsets, level))
        )
    retrieved = y_score > -np.inf
    relevant = y_true > level - 1

    def count(mask):  # per segment, from one running sum
        at = np.concatenate([[0], np.cumsum(mask, dtype=np.int64)])
        return at[offsets[1:]] - at[offsets[:-1]]

    return dict(
        zip(
            TREC_EVAL_COUNTS,
            (
                count(retrieved),
                count(relevant),
                count(relevant & retrieved),
                count(~relevant & (y_true >= 0) & retrieved),
            ),
        )
    )


def _is_matrix(x):
    if hasattr(x, "tocsr") or isinstance(x, np.ndarray):
        return True
    return isinstance(x, list) and len(x) > 0 and isinstance(x[0], (list, tuple))


def _frame(per_query, qids):
    """Per-query values as a pandas DataFrame, or a dict qid -> values."""
    try:
        import pandas as pd
    except ImportError:
        return {
            q: {label: v[i].item() for label, v in per_query.items()}
            for i, q in enumerate(qids)
        }
    frame = pd.DataFrame(per_query, index=pd.Index(qids, name="query_id"))
    return frame


def evaluate(
    qrels,
    run,
    measures,
    *,
    per_query=False,
    ties=None,
    complete=False,
    columns=None,
):
    """Evaluate a run against its judgments: any input, any measure name.

    The anchors are ranx's ``evaluate(qrels, run, metrics)`` and
    ir_measures' ``calc_aggregate(measures, qrels, run)``: the same call,
    the same numbers on TREC-style data (trec_eval's conventions), from
    one top-k pass per relevance threshold.

    Parameters
    ----------
    qrels : path, file object, dict, data frame, table, iterable or array
        The judgments: a TREC qrels file (gzip-compressed too), a dict
        ``{qid: {docno: grade}}`` (pytrec_eval, ranx), a pandas, polars or
        pyarrow table with query, document and relevance columns
        (``query_id``, ``doc_id``, ``relevance`` as ir_measures names them;
        see ``columns``), an ir_datasets dataset or its ``qrels_iter()``;
        or a 2-D ``y_true`` matrix, with a 2-D ``y_score`` as ``run``.
    run : path, file object, dict, data frame, table, iterable or array
        The results, in the same forms (``score`` column, ir_datasets'
        ``scoreddocs_iter()``), or a 2-D ``y_score``.
    measures : str or list of str
        Measure names: the package's scorer names (``"ndcg@10"``,
        ``"map"``, see :func:`get_scorer_names`) and ir_measures' names
        with their parameters (``"nDCG@10"``, ``"P(rel=2)@5"``, ``"AP"``,
        ``"RR"``, ``"Bpref"``, ``"SetF(beta=0.5)"``, ``"IPrec@0.5"``,
        ``"NumRet"``; the user guide's table lists them all), mixed
        freely.
    per_query : bool, default=False
        Also return each query's values.
    ties : {"trec_eval", "average"}, default=None
        ``"trec_eval"``: documents of equal score ranked by docno
        descending, as trec_eval, pytrec_eval and ir_measures do (the
        default for TREC-style data); ``"average"``: the exact expectation
        over the orderings of tied documents (the default for matrices, as
        the metric functions).
    complete : bool, default=False
        Which queries are evaluated (TREC-style data): those of the run with
        judgments, as trec_eval; ``True`` (trec_eval's ``-c``): every query
        of the qrels, one missing from the run scoring 0.
    columns : dict, default=None
        Column names of tables, by role: ``{"query_id": "user", "doc_id":
        "item", "relevance": "rating", "score": "prediction"}``. Unnamed
        roles are looked up among common names (ir_measures', PyTerrier's,
        ranx's, trec_eval's and recommenders': ``qid``, ``docno``,
        ``user``, ``item``, ``label``, ...).

    Returns
    -------
    scores : dict of str -> float or int
        Each measure's mean over the queries, keyed by the names as given;
        counts (``NumRet``, ``NumRel``, ``NumQ``) are sums, as in
        ir_measures and trec_eval.
    per_query : pandas.DataFrame or dict
        With ``per_query=True``: a frame indexed by query id, one column
        per measure (a dict ``qid -> {name: value}`` without pandas).

    See Also
    --------
    from_qrels_and_run : The same inputs as the metrics' matrices.
    get_scorer : The same names for model selection.

    Notes
    -----
    On TREC-style data the conventions are trec_eval's: a retrieved
    document without a judgment is unjudged (bpref, infAP), relevant
    documents the run lacks count in |R|, and a query without a relevant
    document scores 0. An ir_measures name means what ir_measures computes:
    ``P(rel=2)@5`` counts grades of 2 or more, ``ERR@20`` takes grades on a
    0-4 scale, ``SetF(beta=0.5)`` is trec_eval's ``set_F.0.5``.

    Examples
    --------
    >>> from sklearn_rankk import evaluate
    >>> qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d5": 0.5}, "q2": {"d4": 0.3, "d6": 0.7}}
    >>> scores = evaluate(qrels, run, ["P@2", "P(rel=2)@2", "AP", "Bpref", "NumRet"])
    >>> scores
    {'P@2': 0.5, 'P(rel=2)@2': 0.25, 'AP': 0.5, 'Bpref': 0.75, 'NumRet': 5}
    >>> round(evaluate(qrels, run, "nDCG@10")["nDCG@10"], 6)
    0.695559

    ir_measures' ``calc_aggregate`` gives the same numbers on these dicts.

    Data frames work too, with per-query values:

    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"],
    ...                       "relevance": [1, 0]})
    >>> run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "a"],
    ...                     "score": [2.0, 1.0]})
    >>> scores, table = evaluate(qrels, run, ["RR", "P@1"], per_query=True)
    >>> scores
    {'RR': 0.5, 'P@1': 0.0}
    >>> table
               RR  P@1
    query_id
    q1        0.5  0.0
    """
    names = [measures] if isinstance(measures, str) else list(measures)
    if not names:
        raise ValueError("measures is empty: name at least one measure.")
    if len(set(names)) != len(names):
        raise ValueError(f"Duplicate names in measures={names}.")
    per_query = check_bool(per_query, "per_query")
    parsed = [parse_name(name) for name in names]
    requests = [m.request for m in parsed if m.request is not None]
    matrices = _is_matrix(qrels) and _is_matrix(run)
    if ties is None:
        ties = "average" if matrices else "trec_eval"
    ties = check_option(ties, "ties", ("trec_eval", "average"))
    ignore_ties = ties == "trec_eval"
    if matrices:
        y_true, y_score = qrels, run
        found = query_values(
            requests, y_true, y_score, ignore_ties=ignore_ties, zero_division="warn"
        )
        qids = None
        offsets = None
        if any(m.count for m in parsed):
            y_true, y_score = np.asarray(y_true), np.asarray(y_score, dtype=float)
            n, width = y_score.shape
            offsets = np.arange(n + 1, dtype=np.int64) * width
            y_true, y_score = y_true.ravel(), y_score.ravel()
        n_queries = found[0].shape[0] if found else offsets.shape[0] - 1
    else:
        rows = trec_rows(
            qrels, run, complete=complete, mark_unjudged=True, columns=columns
        )
        y_true, y_score, offsets = rows.y_true, rows.y_score, rows.offsets
        found = query_values(
            requests,
            y_true,
            y_score,
            offsets=offsets,
            ignore_ties=ignore_ties,
            level_gate=True,
        )
        qids, n_queries = rows.qids, len(rows.qids)
    found = iter(found)
    scores, table, counts = {}, {}, {}
    for m in parsed:
        if m.request is not None:
            v = next(found)
            table[m.label] = v
            scores[m.label] = engine.mean_of_rows(v, None)
        elif m.count == _NUM_Q:
            scores[m.label] = n_queries
        else:
            if m.level not in counts:
                counts[m.level] = trec_counts(y_true, y_score, offsets, m.level)
            v = counts[m.level][m.count]
            table[m.label] = v
            scores[m.label] = int(v.sum())
    if not per_query:
        return scores
    if qids is None:
        qids = list(range(n_queries))
    return scores, _frame(table, qids)


def from_qrels_and_run(qrels, run, *, columns=None, complete=False, mark_unjudged=True):
    """Score matrices from judgments and a run in any form: tables, files, dicts.

    Parameters
    ----------
    qrels : path, file object, dict, data frame, table or iterable
        The judgments: a TREC qrels file (gzip-compressed too), a dict
        ``{qid: {docno: grade}}`` (pytrec_eval, ranx), a pandas, polars or
        pyarrow table (any object of the Arrow PyCapsule interface or with
        named columns and ``.to_numpy()``), a dict of columns, an
        ir_datasets dataset or its ``qrels_iter()``, or an iterable of
        ``(query, doc, grade)`` tuples or namedtuples.
    run : path, file object, dict, data frame, table or iterable
        The results in the same forms, with scores (ir_datasets'
        ``scoreddocs_iter()``).
    columns : dict, default=None
        Column (or namedtuple field) names by role: ``"query_id"``,
        ``"doc_id"``, ``"relevance"``, ``"score"``. Unnamed roles are
        looked up among common names, first match wins: query ``query_id,
        qid, q_id, topic, user_id, userID, user``; document ``doc_id,
        docno, docid, d_id, item_id, itemID, item``; relevance ``relevance,
        rel, label, grade, judgment, rating, score`` (ranx's qrels call it
        score); score ``score, prediction, pred, rating``.
    complete : bool, default=False
        As in :func:`from_trec`: ``True`` makes a row of every judged query.
    mark_unjudged : bool, default=True
        As in :func:`from_trec`: retrieved documents without a judgment get
        grade -1, so that bpref, infAP and the unjudged fraction read them
        as trec_eval does.

    Returns
    -------
    y_true : ndarray of shape (n_queries, n_columns)
        Grades, as :func:`from_trec` gives them.
    y_score : ndarray of shape (n_queries, n_columns), float64
        Scores; ``-inf`` for what the run did not retrieve and padding.
    qids : list of str
        The query of each row, sorted as trec_eval sorts them.

    See Also
    --------
    evaluate : Measures straight from the same inputs.
    from_trec : The same for TREC files and dicts.

    Notes
    -----
    Ids are read as strings (an integer column ``7`` is query ``"7"``) and
    interned with one sort per side: no Python loop per row for tables.
    None of pandas, polars, pyarrow or ir_datasets is imported unless the
    input is one of theirs.

    Examples
    --------
    >>> from sklearn_rankk import from_qrels_and_run, bpref_score
    >>> qrels = {"query_id": ["q1", "q1", "q1"], "doc_id": ["a", "b", "c"],
    ...          "relevance": [1, 0, 1]}
    >>> run = {"query_id": ["q1", "q1", "q1"], "doc_id": ["x", "b", "a"],
    ...        "score": [3.0, 2.0, 1.0]}
    >>> y_true, y_score, qids = from_qrels_and_run(qrels, run)
    >>> y_true
    array([[-1,  0,  1,  1]], dtype=int8)
    >>> y_score
    array([[  3.,   2.,   1., -inf]])
    >>> bpref_score(y_true, y_score)
    0.0

    ``x`` is unjudged (-1) and counts for nothing; ``a`` is ranked below the
    judged non-relevant ``b``, and ``c`` is not retrieved: bpref is 0.
    """
    rows = trec_rows(
        qrels, run, complete=complete, mark_unjudged=mark_unjudged, columns=columns
    )
    pad = NOT_POOLED if mark_unjudged else 0
    y_true, y_score = to_matrices(rows.y_true, rows.y_score, rows.offsets, pad)
    return y_true, y_score, rows.qids
