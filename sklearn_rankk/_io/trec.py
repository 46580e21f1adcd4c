"""TREC qrels and run files, and their conversion to the metrics' matrices.

File formats (whitespace-separated fields, one judgment or result per line),
read as trec_eval reads them:

* qrels: ``qid iter docno rel``; ``iter`` is ignored, ``rel`` is an integer
  (negative values are judged non-relevant, as in trec_eval).
* run: ``qid Q0 docno rank score tag``; ``Q0``, ``rank`` and ``tag`` are
  ignored (trec_eval ranks by score, not by the rank column) and fields
  after ``tag`` are ignored, as in trec_eval.

Blank lines and lines whose first field starts with ``#`` are skipped
(trec_eval skips both in runs and ``#`` lines in qrels). Files are read line
by line as UTF-8. Anything else that is malformed is a ``ValueError`` naming
the file and line: a wrong number of fields, a relevance that is not an
integer, a score that is not a finite number, or a document listed twice for
one query (trec_eval rejects duplicates too, for the queries it evaluates).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping

import numpy as np

from .lists import check_finite, row_grades, to_matrices

_INTEGER = re.compile(r"[+-]?[0-9]+")


def _fields(source):
    """Yield ``("file:line", fields)`` for the content lines of a file."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            yield from _split_lines(f, os.fspath(source))
    elif hasattr(source, "read"):
        yield from _split_lines(source, str(getattr(source, "name", "<file>")))
    else:
        raise TypeError(
            f"Expected a path or an open file; got {type(source).__name__}."
        )


_FIELD_SEPARATOR = re.compile(r"[ \t]+")


def _split_lines(lines, name):
    for lineno, line in enumerate(lines, 1):
        where = f"{name}:{lineno}"
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ValueError(f"{where}: not UTF-8 text ({exc.reason}).") from None
        if lineno == 1:
            line = line.removeprefix("\ufeff")  # a byte-order mark
        # Fields are separated by spaces and tabs only, as trec_eval reads
        # them: other Unicode whitespace stays part of a docno.
        fields = _FIELD_SEPARATOR.split(line.strip(" \t\r\n"))
        fields = [] if fields == [""] else fields
        if fields and not fields[0].startswith("#"):
            yield where, fields


def read_trec_qrels(path):
    """Read TREC relevance judgments (qrels), line by line.

    Parameters
    ----------
    path : str, path-like or file object
        A file of lines ``qid iter docno rel`` (``iter`` is ignored, ``rel``
        an integer grade; negative grades are non-relevant, as in trec_eval).
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
    qrels = {}
    for where, fields in _fields(path):
        if len(fields) != 4:
            raise ValueError(
                f"{where}: expected 4 fields 'qid iter docno rel'; got {len(fields)}."
            )
        qid, _, docno, rel = fields
        if not _INTEGER.fullmatch(rel):
            raise ValueError(f"{where}: relevance {rel!r} is not an integer.")
        judged = qrels.setdefault(qid, {})
        if docno in judged:
            raise ValueError(
                f"{where}: document {docno!r} is judged twice for query {qid!r}."
            )
        judged[docno] = int(rel)
    return qrels


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
    run = {}
    for where, fields in _fields(path):
        if len(fields) < 6:
            raise ValueError(
                f"{where}: expected 6 fields 'qid Q0 docno rank score tag'; got "
                f"{len(fields)}."
            )
        qid, _, docno, _, score = fields[:5]
        try:
            value = float(score)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise ValueError(f"{where}: score {score!r} is not a finite number.")
        retrieved = run.setdefault(qid, {})
        if docno in retrieved:
            raise ValueError(
                f"{where}: document {docno!r} is listed twice for query {qid!r}."
            )
        retrieved[docno] = value
    return run


def _load(source, reader, name, what):
    """A dict as given (checked), or the dict read from a file."""
    if isinstance(source, Mapping):
        for qid, docs in source.items():
            _check_query(qid, docs, name, what)
        return source
    if isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        return reader(source)
    raise TypeError(
        f"{name} must be a path, an open file, or a dict qid -> dict docno -> "
        f"value; got {type(source).__name__}."
    )


def _check_query(qid, docs, name, what):
    if not isinstance(qid, str):
        raise TypeError(f"{name} query ids must be str; got {qid!r}.")
    if not isinstance(docs, Mapping):
        raise TypeError(
            f"{name}[{qid!r}] must be a dict docno -> value; got {type(docs).__name__}."
        )
    for docno, value in docs.items():
        if not isinstance(docno, str):
            raise TypeError(f"{name}[{qid!r}] docnos must be str; got {docno!r}.")
        check_finite(value, f"{name}[{qid!r}][{docno!r}]", what)


def from_trec(qrels, run, *, complete=False):
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

    Returns
    -------
    y_true : ndarray of shape (n_queries, n_columns)
        The grades (0 for unjudged documents), in the smallest integer dtype
        holding them. Negative grades (trec_eval's non-relevant judgments)
        are kept: binary metrics treat them as non-relevant, graded metrics
        reject them; for trec_eval's nDCG use ``np.maximum(y_true, 0)``.
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
    documents by docno ascending, then the judged documents of
    positive grade the run lacks, then padding to the widest row (score
    ``-inf``, relevance 0), which changes no metric at a non-negative
    ``relevance_threshold`` (a negative one would count the padding as
    relevant). Judged documents of
    grade 0 or less that the run lacks are left out: they are neither ranked
    nor relevant. With relevance level ``L`` of trec_eval's ``-l``, pass
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
    array([[1, 0, 0, 1],
           [0, 1, 0, 0]], dtype=int8)
    >>> y_score
    array([[ 0.5,  0.5,  0.1, -inf],
           [ 0.9, -inf, -inf, -inf]])

    trec_eval puts d2 before d1 (tied scores, docno descending), as
    ``ignore_ties=True`` does (the later column first):

    >>> precision_at_k_score(y_true, y_score, k=1, ignore_ties=True, average=None)
    array([0., 0.])
    >>> precision_at_k_score(y_true, y_score, k=1, average=None)
    array([0.5, 0. ])
    """
    if not isinstance(complete, (bool, np.bool_)):
        raise TypeError(f"complete must be True or False; got {complete!r}.")
    qrels = _load(qrels, read_trec_qrels, "qrels", "relevance grade")
    run = _load(run, read_trec_run, "run", "score")
    if complete:
        qids = sorted(qrels)
    else:
        qids = sorted(q for q in run if q in qrels)
    if not qids:
        raise ValueError(
            f"No query has both results in the run and judgments in the qrels "
            f"(run: {len(run)} queries, qrels: {len(qrels)}); check that the "
            f"query ids match."
        )
    rows = []
    for qid in qids:
        judged, retrieved = qrels[qid], run.get(qid, {})
        # Score descending, ties by docno ascending: ranked the later column
        # first (ignore_ties=True), tied documents come in trec_eval's order,
        # docno descending.
        docs = sorted(retrieved, key=lambda d: (-retrieved[d], d))
        scores = np.array([retrieved[d] for d in docs], dtype=np.float64)
        rows.append((scores, row_grades(docs, judged)))
    y_true, y_score = to_matrices(rows)
    return y_true, y_score, qids
