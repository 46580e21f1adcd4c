"""TREC qrels and run files, and their conversion to the metrics' matrices.

File formats (whitespace-separated fields, one judgment or result per line),
read as trec_eval reads them:

* qrels: ``qid iter docno rel``; ``iter`` is ignored, ``rel`` is an integer
  (negative values are judged non-relevant, as in trec_eval).
* run: ``qid Q0 docno rank score tag``; ``Q0``, ``rank`` and ``tag`` are
  ignored (trec_eval ranks by score, not by the rank column) and fields
  after ``tag`` are ignored, as in trec_eval.

Blank lines and lines whose first field starts with ``#`` are skipped
(trec_eval skips both in runs and ``#`` lines in qrels). Files are UTF-8,
parsed by the compiled extension: the readers map query ids and docnos to
integer ids once; a qrels file and a run given together (:func:`from_trec`,
the command line) are joined there query by query, as trec_eval joins them,
into the segments the metrics read. Anything else that is
malformed is a ``ValueError`` naming the file and line: a wrong number of
fields, a relevance that is not an ASCII integer of 64 bits, a score that is
not a finite ASCII decimal number (so that trec_eval's ``atof`` and Python's
``float`` read the same value: no digit separators, no other digits), or a
document listed twice for one query (trec_eval rejects duplicates too, for
the queries it evaluates).
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._core import _kernel
from .._core.validation import check_bool
from .files import (  # noqa: F401  (read_bytes and TrecRows: re-exported)
    TrecRows,
    file_rows,
    is_file,
    no_common_query,
    raise_bad_line,
    read_bytes,
)
from .frames import is_table, long_columns
from .lists import check_finite, to_matrices


class _Strings:
    """A string table of the parser: one UTF-8 blob and offsets."""

    def __init__(self, table):
        self.blob, self.offsets, self.first_line = table

    def __len__(self):
        return self.offsets.shape[0] - 1

    def __getitem__(self, i):
        return self.blob[self.offsets[i] : self.offsets[i + 1]].decode("utf-8")

    def all(self):
        """Every string, decoded."""
        blob, offsets = self.blob, self.offsets.tolist()
        return [blob[a:b].decode("utf-8") for a, b in zip(offsets, offsets[1:])]


@dataclass
class _Parsed:
    """Entries of a qrels file and a run file, with shared id tables."""

    qrels: dict | None
    run: dict | None
    qids: _Strings
    docs: _Strings
    qid_rank: np.ndarray
    doc_rank: np.ndarray
    names: dict


def _parse(qrels=None, run=None):
    """Parse the files; errors name the file and line."""
    sources = {"qrels": qrels, "run": run}
    data, names = {}, {}
    for kind, source in sources.items():
        if source is not None:
            data[kind], names[kind] = read_bytes(source)
    result = _kernel.parse_trec_files(data.get("qrels"), data.get("run"))
    for kind in ("qrels", "run"):
        found = result[kind]
        if isinstance(found, tuple):
            raise_bad_line(kind, found[0], found[1], found[-1], data, names)
    parsed = _Parsed(
        result["qrels"],
        result["run"],
        _Strings(result["qids"]),
        _Strings(result["docs"]),
        result["qid_rank"],
        result["doc_rank"],
        names,
    )
    del data, result  # the files' bytes: not kept while checking
    for kind, what in (("qrels", "judged"), ("run", "listed")):
        if getattr(parsed, kind) is not None:
            _check_duplicates(parsed, kind, what)
    return parsed


def _check_duplicates(parsed, kind, what):
    """A document twice for one query: an error at its second line."""
    entries = getattr(parsed, kind)
    key = entries["qid"] * max(len(parsed.docs), 1) + entries["doc"]
    ordered = np.sort(key)
    if not np.any(ordered[1:] == ordered[:-1]):  # the usual case, quickly
        return
    del ordered
    order = np.argsort(key, kind="stable")
    repeat = key[order][1:] == key[order][:-1]
    second = order[1:][repeat]
    i = second[np.argmin(entries["line"][second])]
    raise ValueError(
        f"{parsed.names[kind]}:{entries['line'][i]}: document "
        f"{parsed.docs[entries['doc'][i]]!r} is {what} twice for query "
        f"{parsed.qids[entries['qid'][i]]!r}."
    )


def _as_dicts(parsed, kind, value):
    """{qid: {docno: value}} in the file's order."""
    entries = getattr(parsed, kind)
    qids, docs = parsed.qids.all(), parsed.docs.all()
    out = {}
    for q, d, v in zip(
        entries["qid"].tolist(), entries["doc"].tolist(), entries[value].tolist()
    ):
        out.setdefault(qids[q], {})[docs[d]] = v
    return out


def read_trec_qrels(path):
    """Read TREC relevance judgments (qrels), line by line.

    Parameters
    ----------
    path : str, path-like or file object
        A file of lines ``qid iter docno rel`` (``iter`` is ignored, ``rel``
        an integer grade; negative grades are not relevant, as in trec_eval).
        Blank lines and lines starting with ``#`` are skipped.

    Returns
    -------
    qrels : dict of str -> dict of str -> int
        ``qrels[qid][docno]`` is the grade, in the file's order: the form
        ``pytrec_eval`` takes.

    Raises
    ------
    ValueError
        On a malformed line, with the file name and line number: not four
        fields, a grade that is not an integer, a document judged twice for
        one query.

    See Also
    --------
    read_trec_run : The same for run files.
    from_trec : Qrels and run as the metrics' matrices.

    Examples
    --------
    >>> import io
    >>> from sklearn_rankk import read_trec_qrels
    >>> read_trec_qrels(io.StringIO("301 0 d1 1\\n301 0 d2 0\\n302 0 d1 2\\n"))
    {'301': {'d1': 1, 'd2': 0}, '302': {'d1': 2}}
    """
    return _as_dicts(_parse(qrels=path), "qrels", "grade")


def read_trec_run(path):
    """Read a TREC run (ranked results), line by line.

    Parameters
    ----------
    path : str, path-like or file object
        A file of lines ``qid Q0 docno rank score tag``. Only ``qid``,
        ``docno`` and ``score`` are used: like trec_eval, the ranking comes
        from the scores (the rank column is ignored), and fields after
        ``tag`` are ignored. Blank lines and lines starting with ``#`` are
        skipped.

    Returns
    -------
    run : dict of str -> dict of str -> float
        ``run[qid][docno]`` is the score: the form ``pytrec_eval`` takes.

    Raises
    ------
    ValueError
        On a malformed line, with the file name and line number: fewer than
        six fields, a score that is not a finite number, a document listed
        twice for one query.

    See Also
    --------
    read_trec_qrels : The same for qrels files.
    from_trec : Qrels and run as the metrics' matrices.

    Examples
    --------
    >>> import io
    >>> from sklearn_rankk import read_trec_run
    >>> read_trec_run(io.StringIO("301 Q0 d1 1 2.5 bm25\\n301 Q0 d3 2 1.0 bm25\\n"))
    {'301': {'d1': 2.5, 'd3': 1.0}}
    """
    return _as_dicts(_parse(run=path), "run", "score")


def _check_mapping(source, name, what):
    if not isinstance(source, Mapping):
        raise TypeError(
            f"{name} must be a path, an open file, or a dict qid -> dict docno -> "
            f"value; got {type(source).__name__}."
        )
    for qid, docs in source.items():
        if not isinstance(qid, str):
            raise TypeError(f"{name} query ids must be str; got {qid!r}.")
        if not isinstance(docs, Mapping):
            raise TypeError(
                f"{name}[{qid!r}] must be a dict docno -> value; got "
                f"{type(docs).__name__}."
            )
        for docno, value in docs.items():
            if not isinstance(docno, str):
                raise TypeError(f"{name}[{qid!r}] docnos must be str; got {docno!r}.")
            check_finite(value, f"{name}[{qid!r}][{docno!r}]", what)


def _entries(qrels, run, columns=None):
    """(qrels entries, run entries, qid strings, qid ranks, doc ranks, runid)."""
    if is_file(qrels) and is_file(run):  # shared tables straight from the parser
        parsed = _parse(qrels=qrels, run=run)
        return (
            parsed.qrels,
            parsed.run,
            parsed.qids.all(),
            parsed.qid_rank,
            parsed.doc_rank,
            parsed.run["tag"],
        )
    return _table_entries(qrels, run, columns)


def _dict_entries(source, kind):
    """``(query ids, entries per query, doc ids, values)`` of a dict of
    dicts, flattened by C-level iteration; any bad entry is reported by
    :func:`_check_mapping`."""
    what = "relevance grade" if kind == "qrels" else "score"
    if not isinstance(source, Mapping):
        _check_mapping(source, kind, what)  # raises
    inner = list(source.values())
    try:
        lengths = list(map(len, inner))
        docs = list(itertools.chain.from_iterable(inner))
        values = np.array(
            list(itertools.chain.from_iterable(d.values() for d in inner))
        )
        key_types = set(map(type, source)) | set(map(type, docs))
    except (TypeError, AttributeError):
        _check_mapping(source, kind, what)  # raises
        raise
    if (
        not all(isinstance(d, Mapping) for d in inner)
        or not key_types <= {str}
        or values.dtype.kind not in "biuf"
        or values.ndim != 1
        or (values.dtype.kind == "f" and not np.all(np.isfinite(values)))
    ):
        _check_mapping(source, kind, what)  # raises with the entry's name
    if kind == "run" or values.dtype.kind not in "iu":
        values = values.astype(np.float64)
    elif values.dtype.kind == "u":
        values = values.astype(np.int64)
    return list(source), lengths, docs, values


def _coded(items):
    """Hashable ids -> (distinct ids in first-seen order, int64 code of each
    item): one hash lookup per item, in C."""
    index = dict.fromkeys(items)
    distinct = list(index)
    for i, key in enumerate(distinct):
        index[key] = i
    codes = np.fromiter(map(index.__getitem__, items), np.int64, count=len(items))
    return distinct, codes


def _id_entries(source, kind, columns):
    """``(query ids, their codes, doc ids, their codes, values, runid,
    may_repeat)`` of any source: the distinct ids and one code per entry."""
    value = "grade" if kind == "qrels" else "score"
    if is_file(source):
        parsed = _parse(**{kind: source})
        entries = getattr(parsed, kind)
        runid = entries.get("tag", "") if kind == "run" else ""
        return (
            parsed.qids.all(),
            entries["qid"],
            parsed.docs.all(),
            entries["doc"],
            entries[value],
            runid,
            False,  # the parser refuses duplicates
        )
    if not is_table(source, columns):
        qids, lengths, docs, values = _dict_entries(source, kind)
        q_codes = np.repeat(np.arange(len(qids), dtype=np.int64), lengths)
        return (qids, q_codes, *_coded(docs), values, "", False)
    q, d, v = long_columns(source, kind, columns)
    q, d = (x if isinstance(x, tuple) else _coded(x.tolist()) for x in (q, d))
    return (*q, *d, v, "", True)


def _merge(distinct_a, distinct_b):
    """The sorted id strings of both sides, and each side's distinct ids'
    positions among them (``7`` and ``"7"`` are one id)."""
    names, merged = np.unique(
        np.array([str(i) for i in [*distinct_a, *distinct_b]] + [""], dtype=str)[:-1],
        return_inverse=True,
    )
    merged = merged.astype(np.int64)
    return names, merged[: len(distinct_a)], merged[len(distinct_a) :]


def _table_entries(qrels, run, columns):
    """:func:`_entries` where a source is not a file: dicts of dicts, tables,
    iterables of rows (a file beside them read on its own)."""
    jq, jq_codes, jd, jd_codes, jg, _, j_repeats = _id_entries(qrels, "qrels", columns)
    rq, rq_codes, rd, rd_codes, rs, runid, r_repeats = _id_entries(run, "run", columns)
    qids, jq_at, rq_at = _merge(jq, rq)
    docs, jd_at, rd_at = _merge(jd, rd)
    q_entries = {"qid": jq_at[jq_codes], "doc": jd_at[jd_codes], "grade": jg}
    r_entries = {"qid": rq_at[rq_codes], "doc": rd_at[rd_codes], "score": rs}
    for kind, entries, may_repeat in (
        ("qrels", q_entries, j_repeats),
        ("run", r_entries, r_repeats),
    ):
        if not may_repeat:
            continue
        key = entries["qid"] * max(docs.shape[0], 1) + entries["doc"]
        order = np.argsort(key, kind="stable")
        repeat = np.flatnonzero(key[order][1:] == key[order][:-1])
        if repeat.shape[0]:
            i = order[repeat[0] + 1]
            what = "judged" if kind == "qrels" else "listed"
            raise ValueError(
                f"{kind}: document {str(docs[entries['doc'][i]])!r} is {what} "
                f"twice for query {str(qids[entries['qid'][i]])!r} (row {i})."
            )
    ranks = np.arange(qids.shape[0], dtype=np.int64)  # np.unique sorts them
    return (
        q_entries,
        r_entries,
        qids.tolist(),
        ranks,
        np.arange(docs.shape[0], dtype=np.int64),
        runid,
    )


#: Grades of documents without a judgment when ``mark_unjudged=True``:
#: trec_eval's RELVALUE_NONPOOL (not in the qrels) and RELVALUE_UNJUDGED (in
#: the qrels with a negative grade: pooled, not judged).
NOT_POOLED, POOLED_UNJUDGED = -1, -2


def trec_rows(
    qrels,
    run,
    *,
    complete=False,
    mark_unjudged=True,
    max_retrieved=None,
    judged_only=False,
    columns=None,
):
    """Join a run with its judgments, one segment per query, never padded.

    Parameters are those of :func:`from_trec` (``columns``: of
    :func:`~sklearn_rankk.from_qrels_and_run`), and trec_eval's ``-M`` and
    ``-J``: ``max_retrieved`` keeps the first documents of each query's
    ranking in trec_eval's order (score descending, tied ones by docno
    descending), the others counting as not retrieved; ``judged_only``
    then drops the retrieved documents without a judgment (none in the
    qrels, or a negative grade), so that the ranks close up. Returns
    :class:`TrecRows`.
    """
    complete = check_bool(complete, "complete")
    mark_unjudged = check_bool(mark_unjudged, "mark_unjudged")
    judged_only = check_bool(judged_only, "judged_only")
    if max_retrieved is not None and (
        not isinstance(max_retrieved, numbers.Integral)
        or isinstance(max_retrieved, bool)
        or max_retrieved < 0
    ):
        raise ValueError(
            f"max_retrieved must be None or an integer >= 0; got {max_retrieved!r}."
        )
    if is_file(qrels) and is_file(run):
        return file_rows(
            qrels,
            run,
            complete=complete,
            mark_unjudged=mark_unjudged,
            max_retrieved=max_retrieved,
            judged_only=judged_only,
        )
    q_entries, r_entries, qids, qid_rank, doc_rank, runid = _entries(
        qrels, run, columns
    )
    jq, jd, jg = q_entries["qid"], q_entries["doc"], q_entries["grade"]
    rq, rd, rs = r_entries["qid"], r_entries["doc"], r_entries["score"]
    del q_entries, r_entries  # their line numbers are not needed here
    n_qids = len(qids)
    judged = np.zeros(n_qids, dtype=bool)
    judged[jq] = True
    retrieved = np.zeros(n_qids, dtype=bool)
    retrieved[rq] = True
    chosen = judged if complete else judged & retrieved
    if not np.any(chosen):
        raise no_common_query(int(retrieved.sum()), int(judged.sum()))
    chosen_ids = np.flatnonzero(chosen)
    chosen_ids = chosen_ids[np.argsort(qid_rank[chosen_ids])]  # trec_eval's order
    row_of = np.full(n_qids, -1, dtype=np.int64)
    row_of[chosen_ids] = np.arange(chosen_ids.shape[0])
    n_docs = max(doc_rank.shape[0], 1)
    # The run's documents of the chosen queries, with their grades.
    keep = row_of[rq] >= 0
    if not keep.all():
        rq, rd, rs = rq[keep], rd[keep], rs[keep]
    del keep
    if max_retrieved is not None:
        keep = _first_of_each_query(rq, rs, doc_rank[rd], max_retrieved)
        rq, rd, rs = rq[keep], rd[keep], rs[keep]
    run_key = rq * n_docs + rd
    judged_key = jq * n_docs + jd
    order = np.argsort(judged_key)
    sorted_key = judged_key[order]
    at = np.minimum(
        np.searchsorted(sorted_key, run_key), max(sorted_key.shape[0] - 1, 0)
    )
    grade_type = jg.dtype if jg.dtype.kind == "f" else np.int64
    if mark_unjudged:  # negative qrels grades: pooled but not judged
        jg = np.where(jg < 0, POOLED_UNJUDGED, jg).astype(grade_type)
    run_grade = np.full(rq.shape[0], NOT_POOLED if mark_unjudged else 0, grade_type)
    # Which judged entries the run retrieved (keys are unique on both sides:
    # duplicates are errors), from the same lookup.
    retrieved_entry = np.zeros(jq.shape[0], dtype=bool)
    if sorted_key.shape[0]:
        hit = sorted_key[at] == run_key
        run_grade[hit] = jg[order[at[hit]]]
        retrieved_entry[order[at[hit]]] = True
    if judged_only:  # the run's documents with a grade >= 0, ranks closed up
        keep = np.zeros(rq.shape[0], dtype=bool)
        if sorted_key.shape[0]:
            keep[hit] = jg[order[at[hit]]] >= 0
        rq, rd, rs, run_grade = rq[keep], rd[keep], rs[keep], run_grade[keep]
    del run_key, at  # a million-line run: each is 8 MB
    # Judged documents of positive grade the run lacks (with
    # mark_unjudged, of any judged grade): not retrieved.
    lacking = ((jg >= 0) if mark_unjudged else (jg > 0)) & (row_of[jq] >= 0)
    lacking &= ~retrieved_entry
    n_lacking = int(lacking.sum())
    rows = np.concatenate([row_of[rq], row_of[jq[lacking]]])
    del rq
    # Within a row: retrieved by score descending, ties by docno ascending;
    # then the lacking ones in file order. One int64 key: the row, the
    # score's rank among the distinct scores (descending; the lacking ones
    # after every score), then the docno's rank or the qrels line. Made part
    # by part, so that a million-line run holds few temporaries at once.
    n_run = rs.shape[0]
    distinct, score_rank = np.unique(-rs, return_inverse=True)
    score_rank = np.concatenate(
        [score_rank.reshape(-1), np.full(n_lacking, distinct.shape[0])]
    )
    del distinct
    tertiary = np.concatenate([doc_rank[rd], np.flatnonzero(lacking)])
    del rd
    order = _lexsort_ints(rows, score_rank, tertiary)
    del score_rank, tertiary
    y_score = np.empty(n_run + n_lacking)
    y_score[:n_run] = rs
    y_score[n_run:] = -np.inf
    del rs
    y_score = y_score[order]
    y_true = np.concatenate([run_grade, jg[lacking].astype(grade_type)])
    del run_grade
    y_true = y_true[order]
    del order
    offsets = np.zeros(chosen_ids.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=chosen_ids.shape[0]), out=offsets[1:])
    left_out = np.flatnonzero(judged & ~chosen)
    left_out = [qids[i] for i in left_out[np.argsort(qid_rank[left_out])]]
    return TrecRows(
        y_true, y_score, offsets, [qids[i] for i in chosen_ids], runid, left_out
    )


def _lexsort_ints(*keys):
    """``np.lexsort(keys[::-1])`` (the first key primary) for keys that make
    each entry unique: non-negative integers and float64 values, the floats
    replaced by their rank among the distinct values, packed into one int64
    key and sorted once (ten times faster than lexsort on a million
    entries). Falls back to lexsort when the packed key needs over 63 bits."""
    packed, bits = [], 0
    for key in keys:
        if key.dtype.kind == "f":
            _, key = np.unique(key, return_inverse=True)
        key = key.astype(np.int64, copy=False)
        width = int(key.max(initial=0)).bit_length()
        packed.append((key, width))
        bits += width
    if bits > 63 or any(int(k.min(initial=0)) < 0 for k, _ in packed):
        return np.lexsort(keys[::-1])
    combined = np.zeros(keys[0].shape[0], dtype=np.int64)
    for key, width in packed:
        combined <<= width
        combined |= key
    return np.argsort(combined)


def _first_of_each_query(rq, rs, doc_ranks, n):
    """Which run entries are among the first ``n`` of their query, in
    trec_eval's order: score descending, tied scores by docno descending."""
    order = _lexsort_ints(rq, -rs, int(doc_ranks.max(initial=0)) - doc_ranks)
    sorted_q = rq[order]
    start = np.flatnonzero(np.concatenate([[True], sorted_q[1:] != sorted_q[:-1]]))
    position = np.arange(order.shape[0]) - np.repeat(
        start, np.diff(np.append(start, order.shape[0]))
    )
    keep = np.zeros(rq.shape[0], dtype=bool)
    keep[order[position < n]] = True
    return keep


def from_trec(
    qrels,
    run,
    *,
    complete=False,
    mark_unjudged=True,
    max_retrieved=None,
    judged_only=False,
):
    """Score matrices from TREC relevance judgments and a run.

    Parameters
    ----------
    qrels : str, path-like, file object or dict
        A qrels file (see :func:`read_trec_qrels`) or its dict form
        ``{qid: {docno: grade}}`` (as ``pytrec_eval`` takes it).
    run : str, path-like, file object or dict
        A run file (see :func:`read_trec_run`) or its dict form
        ``{qid: {docno: score}}``.
    complete : bool, default=False
        Which queries become rows. ``False``: the queries of the run that
        have judgments, as trec_eval evaluates them. ``True`` (trec_eval's
        ``-c``): every query of the qrels; one missing from the run is a row
        that retrieved nothing, so it scores 0 on every metric.
    mark_unjudged : bool, default=True
        Whether to tell judged documents from unjudged ones, as trec_eval
        does. ``True``: a retrieved document absent from the qrels has grade
        -1 (never pooled), a negative qrels grade becomes -2 (pooled but not
        judged), and every judged document the run lacks is a column (score
        ``-inf``): bpref, infAP, the unjudged fraction and fall-out give
        trec_eval's values. ``False`` (the default before 0.1.0): a
        retrieved document absent from the qrels has grade 0, like a judged
        non-relevant one, and judged documents of grade 0 or less that the
        run lacks are left out; those four measures then read every
        unjudged document as judged non-relevant. The other metrics give
        the same values either way.
    max_retrieved : int or None, default=None
        Only the first ``max_retrieved`` documents of each query's ranking
        count as retrieved (trec_eval's ``-M``), in trec_eval's order (score
        descending, tied documents by docno descending); the others are
        treated as absent from the run. None keeps them all.
    judged_only : bool, default=False
        Whether to drop the retrieved documents without a judgment (absent
        from the qrels, or of negative grade) before evaluating, so that the
        ranks close up (trec_eval's ``-J``; after ``max_retrieved``, as
        trec_eval).

    Returns
    -------
    y_true : ndarray of shape (n_queries, n_columns)
        The grades (-1 for unjudged documents and padding; 0 with
        ``mark_unjudged=False``), in the smallest integer dtype holding
        them. Negative grades are not judged: binary metrics treat them as
        non-relevant and graded metrics give them no gain, as trec_eval
        does.
    y_score : ndarray of shape (n_queries, n_columns), float64
        The run's scores; ``-inf`` for judged relevant documents that the run
        did not retrieve and for padding.
    qids : list of str
        The query of each row, sorted as trec_eval sorts them.

    See Also
    --------
    read_trec_qrels : Read a qrels file.
    read_trec_run : Read a run file.
    from_id_lists : The same for ranked id lists.

    Notes
    -----
    Columns of a row: the retrieved documents by score descending, tied
    documents by docno ascending, then the judged documents the run lacks
    (with ``mark_unjudged=False``: those of positive grade), then padding
    to the widest row (score ``-inf``, relevance -1, or 0 without marking),
    which changes no metric at a non-negative ``relevance_threshold``.
    With relevance level ``L`` of trec_eval's ``-l``, pass
    ``relevance_threshold=L - 1`` to the binary metrics.

    Ties: with ``ignore_ties=True`` the metrics rank tied documents the later
    column first (as scikit-learn does), which with these columns is
    trec_eval's order (docno descending), and so reproduce trec_eval exactly.
    The default ``ignore_ties=False`` gives the expected value over all
    orderings of tied documents instead, which does not depend on the docnos.
    Both agree on runs without tied scores.

    Examples
    --------
    >>> import io
    >>> from sklearn_rankk import from_trec, precision_at_k_score
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d9": 1}, "q2": {"d5": 1}}
    >>> run = {"q1": {"d1": 0.5, "d2": 0.5, "d3": 0.1}, "q2": {"d4": 0.9}}
    >>> y_true, y_score, qids = from_trec(qrels, run)
    >>> qids
    ['q1', 'q2']
    >>> y_true
    array([[ 1,  0, -1,  1],
           [-1,  1, -1, -1]], dtype=int8)
    >>> y_score
    array([[ 0.5,  0.5,  0.1, -inf],
           [ 0.9, -inf, -inf, -inf]])

    d3 and d4 are unjudged (-1); d9 and d5, judged relevant, were not
    retrieved (``-inf``).

    trec_eval puts d2 before d1 (tied scores, docno descending), as
    ``ignore_ties=True`` does (the later column first):

    >>> precision_at_k_score(y_true, y_score, k=1, ignore_ties=True, average=None)
    array([0., 0.])
    >>> precision_at_k_score(y_true, y_score, k=1, average=None)
    array([0.5, 0. ])

    Only the first document of each ranking, as ``trec_eval -M 1``: d2 of
    q1 (d1, tied with it, comes after it), then the judged documents not
    retrieved:

    >>> y_true, y_score, _ = from_trec(qrels, run, max_retrieved=1)
    >>> y_true
    array([[ 0,  1,  1],
           [-1,  1, -1]], dtype=int8)
    >>> y_score
    array([[ 0.5, -inf, -inf],
           [ 0.9, -inf, -inf]])
    """
    rows = trec_rows(
        qrels,
        run,
        complete=complete,
        mark_unjudged=mark_unjudged,
        max_retrieved=max_retrieved,
        judged_only=judged_only,
    )
    pad = NOT_POOLED if mark_unjudged else 0
    y_true, y_score = to_matrices(rows.y_true, rows.y_score, rows.offsets, pad)
    return y_true, y_score, rows.qids
