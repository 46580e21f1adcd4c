"""Inputs as the kernel reads them: qid groups, class labels, baselines.

* :func:`group_by_qid`: flat learning-to-rank data (one value per document
  and a query id) -> one segment of the flat arrays per query, unpadded.
* :func:`random_ranking_scores`: the scores of a uniformly random ranking of
  the same retrieved items (a constant score, ``-inf`` kept), from which the
  tie-aware engine computes every metric's exact random baseline.
* :func:`weighted_relevance`: the gains ``y_l w_l`` of the propensity-scored
  metrics, one weight per column, as the relevance the kernel ranks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .validation import (
    RankingInput,
    as_array,
    check_grades,
    check_no_nan,
    check_numeric_dtype,
    check_real,
    check_sample_weight,
    check_y_score,
    is_dask,
)
from .validation import sparse as sp

# --------------------------------------------------------------------------
# qid: flat learning-to-rank data
# --------------------------------------------------------------------------


def _flat(x, name):
    """A 1-D dense array of per-document values (qid form)."""
    x = as_array(x, name)
    if sp.issparse(x):
        raise TypeError(f"With qid, {name} must be a dense 1-D array, not sparse.")
    if x.ndim != 1:
        raise ValueError(
            f"With qid, {name} must be 1-D (one value per document); got shape "
            f"{x.shape}."
        )
    return x


def _as_qid(qid):
    """Query ids as an array, one id per entry, never coerced."""
    if isinstance(qid, (list, tuple)) and (
        any(isinstance(q, tuple) for q in qid) or len({type(q) for q in qid}) > 1
    ):
        # Tuples are ids, and mixed types are not coerced (numpy would turn
        # [1, "1", nan] into the strings "1", "1", "nan").
        out = np.empty(len(qid), dtype=object)
        out[:] = qid
        return out
    return qid


def _is_missing(value):
    """None, NaN, NaT or pandas.NA."""
    if value is None or type(value).__name__ == "NAType":
        return True
    try:
        return bool(value != value)  # NaN and NaT are not equal to themselves
    except (TypeError, ValueError):
        return False


def _qid_layout(qid):
    """``(offsets, order)``: the segments' offsets, and the stable order that
    gathers each query's documents (None when they are already contiguous),
    queries numbered by first appearance."""
    missing = "qid has missing values ({}); every document needs a query id."
    if qid.dtype.kind == "f" and np.isnan(qid).any():
        raise ValueError(missing.format("NaN"))
    if qid.dtype.kind in "mM" and np.isnat(qid).any():
        raise ValueError(missing.format("NaT"))
    if qid.dtype.kind == "O":
        first = {}
        try:
            codes = [first.setdefault(q, len(first)) for q in qid.tolist()]
        except TypeError as exc:
            raise TypeError(f"qid values must be hashable: {exc}") from None
        absent = [q for q in first if _is_missing(q)]
        if absent:
            raise ValueError(missing.format(repr(absent[0])))
        return _layout_of_codes(np.asarray(codes, dtype=np.intp), len(first))
    # Queries that are runs of equal ids, each id one run (the usual layout of
    # learning-to-rank data): the runs are the segments, found in one pass,
    # without numbering or sorting the documents.
    starts = np.flatnonzero(qid[1:] != qid[:-1]) + 1
    heads = qid[np.concatenate(([0], starts))]
    if np.unique(heads).shape[0] == heads.shape[0]:
        offsets = np.empty(starts.shape[0] + 2, dtype=np.int64)
        offsets[0], offsets[-1] = 0, qid.shape[0]
        offsets[1:-1] = starts
        return offsets, None
    _, first, inverse = np.unique(qid, return_index=True, return_inverse=True)
    order = np.empty_like(first)
    order[np.argsort(first, kind="stable")] = np.arange(first.shape[0])
    return _layout_of_codes(order[inverse.reshape(-1)], first.shape[0])


def _layout_of_codes(codes, n_groups):
    """:func:`_qid_layout` from each document's query number."""
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=n_groups), out=offsets[1:])
    if np.all(codes[1:] >= codes[:-1]):  # queries already contiguous, in order
        return offsets, None
    return offsets, np.argsort(codes, kind="stable")


def group_by_qid(y_true, y_score, qid, sample_weight, *, labels, threshold):
    """Flat per-document data -> one segment per query, never padded.

    Each query's documents are gathered, in their original order, into one
    contiguous segment of the flat arrays; queries follow the order in which
    their ids first appear. Extra memory grows with the number of documents,
    whatever the queries' lengths.

    Returns
    -------
    grouped : Grouped
        Flat relevance and scores in segment order, the segments' offsets and
        one weight per query.
    """
    if any(is_dask(x) for x in (y_true, y_score, qid)):
        raise TypeError(
            "qid is not supported with dask inputs; give the score matrix with "
            "one row per query instead."
        )
    if labels is not None:
        raise ValueError(
            "labels and qid cannot be combined: with qid, y_true holds the "
            "relevance of each document, not class labels."
        )
    check_real(threshold, "relevance_threshold")
    y_score = _flat(y_score, "y_score")
    check_numeric_dtype(y_score, "y_score")
    y_true = _flat(y_true, "y_true")
    check_numeric_dtype(y_true, "y_true")
    qid = _flat(_as_qid(qid), "qid")
    n = y_score.shape[0]
    if n == 0:
        raise ValueError("y_score is empty: no documents.")
    for x, name in ((y_true, "y_true"), (qid, "qid")):
        if x.shape[0] != n:
            raise ValueError(
                f"{name} has {x.shape[0]} entries but y_score has {n}; with qid "
                f"there is one entry per document in each."
            )
    offsets, order = _qid_layout(qid)
    if order is not None:
        y_score, y_true = y_score[order], y_true[order]
    if sample_weight is not None:
        w = check_sample_weight(sample_weight, n)
        w = w if order is None else w[order]
        group_w = w[offsets[:-1]]  # the weight of each query's first document
        if not np.array_equal(np.repeat(group_w, np.diff(offsets)), w):
            raise ValueError(
                "With qid, sample_weight gives one weight per document and must "
                "be constant within each query (the query's weight)."
            )
        sample_weight = group_w
    return Grouped(y_true, y_score, offsets, sample_weight)


@dataclass(frozen=True)
class Grouped:
    """Flat per-document data, one contiguous segment per query.

    Attributes
    ----------
    y_true, y_score : ndarray of shape (n_documents,)
        Relevance and scores, query after query.
    offsets : ndarray of int64 of shape (n_queries + 1,)
        Query ``i`` is ``offsets[i]:offsets[i + 1]``.
    sample_weight : ndarray of shape (n_queries,) or None
        One weight per query.
    """

    y_true: np.ndarray
    y_score: np.ndarray
    offsets: np.ndarray
    sample_weight: np.ndarray | None

    @property
    def n_rows(self):
        return self.offsets.shape[0] - 1

    @property
    def n_items(self):
        """Documents of the longest query."""
        return int(np.max(np.diff(self.offsets))) if self.n_rows else 0


# --------------------------------------------------------------------------
# The random-ranking baseline
# --------------------------------------------------------------------------


def random_ranking_scores(y_score):
    """A constant score for every retrieved item, ``-inf`` kept.

    Every metric evaluated tie-aware on these scores is its exact
    expectation under a uniformly random ranking of the retrieved items.
    """
    if is_dask(y_score):
        return y_score.map_blocks(_constant_scores, dtype=y_score.dtype)
    if getattr(y_score, "ndim", 2) == 1:  # flat scores of qid groups
        y_score = _flat(y_score, "y_score")
        check_numeric_dtype(y_score, "y_score")
        check_no_nan(y_score)
        return _constant_scores(y_score)
    y_score = check_y_score(y_score)
    check_no_nan(y_score)  # the kernel reads the constants, not these
    if sp.issparse(y_score):
        return _constant_scores(y_score)
    # Dense scores (in memory or read by blocks): made one block at a time
    # as the kernel reads them, never a second full matrix.
    return _RowConstantScores(y_score)


class _RowConstantScores:
    """The constant scores of dense ``y_score`` (in memory, a memmap, ...),
    made one block of rows at a time as the kernel reads them: never whole."""

    dtype = np.dtype(np.float32)  # only 0 and -inf
    ndim = 2

    def __init__(self, y_score):
        self._y_score = y_score
        self.shape = tuple(y_score.shape)

    def __getitem__(self, rows):
        block = np.asarray(self._y_score[rows])
        return np.where(np.isneginf(block), np.float32(-np.inf), np.float32(0))


def _constant_scores(y_score):
    if sp.issparse(y_score):
        data = np.where(np.isneginf(y_score.data), -np.inf, 0.0)
        return sp.csr_matrix(
            (data, y_score.indices, y_score.indptr), shape=y_score.shape
        )
    y_score = np.asarray(y_score)
    if y_score.dtype.kind != "f":
        return np.zeros(y_score.shape, dtype=np.float32)
    return np.where(np.isneginf(y_score), y_score.dtype.type(-np.inf), 0).astype(
        y_score.dtype, copy=False
    )


def n_items(y_score):
    """Columns of a score matrix of any form."""
    shape = getattr(y_score, "shape", None)
    if shape is None:
        shape = np.shape(y_score)
    return int(shape[1])


# --------------------------------------------------------------------------
# Item weights: the gains of the propensity-scored metrics
# --------------------------------------------------------------------------


def weighted_relevance(data, threshold, weights):
    """``data`` with ``y_true`` replaced by ``w_l`` where ``y_true >
    threshold`` and 0 elsewhere (a float64 CSR matrix), for a kernel pass
    at threshold 0: the propensity-scored metrics are DCG-family formulas on
    these gains. ``weights``: one weight > 0 per column of ``y_score``, or
    None for 1 (the only weights of flat inputs with ``offsets``)."""
    if data.offsets is not None:
        if weights is not None:
            raise ValueError(
                "propensity weighs the items (columns) of a 2-D y_true; flat "
                "inputs with qid have no columns shared by every row."
            )
        y = np.asarray(data.y_true)
        check_grades(y)
        return RankingInput(
            (y > threshold).astype(np.float64),
            data.y_score,
            data.sample_weight,
            data.offsets,
            data.from_labels,
        )
    y_true = data.y_true
    w = np.ones(data.shape[1]) if weights is None else weights
    if sp.issparse(y_true) and threshold >= 0:  # only stored grades are relevant
        csr = y_true.tocsr()
        check_grades(np.asarray(csr.data))
        gains = np.where(csr.data > threshold, w[csr.indices], 0.0)
        indices, indptr = csr.indices, csr.indptr
    else:
        # The relevant cells only, as CSR: one comparison of the matrix,
        # no dense copy of it (the kernel reads CSR relevance as it is).
        y = y_true.toarray() if sp.issparse(y_true) else np.asarray(y_true)
        check_grades(y)
        flat = np.flatnonzero(y > threshold)
        rows, indices = np.divmod(flat, y.shape[1])
        indptr = np.searchsorted(rows, np.arange(y.shape[0] + 1))
        gains = w[indices]
    y_true = sp.csr_matrix((gains, indices, indptr), shape=data.shape, dtype=np.float64)
    return RankingInput(
        y_true, data.y_score, data.sample_weight, None, data.from_labels
    )
