"""Ranked id lists and relevant ids, per query, as the metrics' score matrices.

Recommenders and search systems often hold their results as ids, not as a
score matrix: per query (or user), the ranked list of returned ids and the
set of relevant ids, or a dict of id -> grade. :func:`from_id_lists` turns
them into ``(y_true, y_score)`` for every metric of the package.

The layout, shared with :func:`~sklearn_rankk.from_trec`: one row per query;
its columns are the query's own items, the ranked ones first, in rank order
(scores ``n, n - 1, ..., 1``), then the relevant items that the ranking does
not contain (score ``-inf``: not retrieved, at no rank, but counted in |R|
and in the ideal ranking of nDCG). Rows are padded to the widest row with
score ``-inf`` and relevance 0, which no metric can see: such an item is
neither ranked nor relevant.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np

from .._core.validation import check_bool


def from_id_lists(relevant_items, ranked_items, *, mark_unjudged=False):
    """Score matrices from ranked id lists and relevant ids, one per query.

    Parameters
    ----------
    relevant_items : list or dict
        Per query, the relevant ids: a set (or list, tuple, 1-D array) of ids
        for binary relevance, or a dict ``id -> grade`` for graded relevance
        (grades are real numbers; 0 or less is not relevant). Either a list
        with one entry per query, or a dict keyed by query id (a pandas
        Series indexed by query id is read as a dict).
    ranked_items : list or dict
        Per query, the list of returned ids, best first; same container kind
        as ``relevant_items`` (a list of the same length, or a dict with the
        same keys). An id may appear once per list. An empty list is a query
        that returned nothing.
    mark_unjudged : bool, default=False
        Whether the ids of ``relevant_items`` are the *judged* ones, for the
        measures that tell judged from unjudged items
        (:func:`bpref_score`, :func:`inferred_average_precision_score`,
        :func:`unjudged_fraction_at_k`): then a ranked id absent from them
        has grade -1 (not judged), every judged id the list lacks is a column
        (score ``-inf``), and padding has grade -1. ``False``: an absent id
        has grade 0, like a judged non-relevant one. The other metrics give
        the same values either way.

    Returns
    -------
    y_true : ndarray of shape (n_queries, n_columns)
        Relevance: 1 for relevant ids (binary), the grade (graded), else 0.
        Integer grades use the smallest integer dtype that holds them.
        Rows follow the queries: list order, or the key order of the
        ``ranked_items`` dict (``list(ranked_items)`` gives the query ids).
    y_score : ndarray of shape (n_queries, n_columns), float64
        ``n - position`` for the ``n`` ranked ids of a row (rank 1 scores
        highest; no ties), ``-inf`` for relevant ids the list does not
        contain and for padding.

    See Also
    --------
    from_trec : The same for TREC qrels and run files.

    Notes
    -----
    Each row holds the query's ranked ids, then its relevant ids that are
    not ranked, padded to the widest row with items scored ``-inf`` of
    relevance 0, which change no metric at a ``relevance_threshold`` of 0 or
    more (the default; a negative threshold would count the padding as
    relevant). Unranked ids of grade 0 or less are left out: they are
    neither ranked nor relevant.

    Examples
    --------
    >>> from sklearn_rankk import from_id_lists, precision_at_k_score
    >>> from sklearn_rankk import recall_at_k_score
    >>> relevant = [{"a", "c"}, {"x"}]
    >>> ranked = [["a", "b", "c"], ["y", "z"]]
    >>> y_true, y_score = from_id_lists(relevant, ranked)
    >>> y_true
    array([[1, 0, 1],
           [0, 0, 1]], dtype=int8)
    >>> y_score
    array([[  3.,   2.,   1.],
           [  2.,   1., -inf]])
    >>> precision_at_k_score(y_true, y_score, k=2, average=None)
    array([0.5, 0. ])
    >>> recall_at_k_score(y_true, y_score, k=3, average=None)
    array([1., 0.])

    Graded relevance, queries keyed by id:

    >>> from sklearn_rankk import ndcg_at_k_score
    >>> y_true, y_score = from_id_lists(
    ...     {"u1": {"a": 3, "b": 1}, "u2": {"c": 2}},
    ...     {"u1": ["b", "a"], "u2": ["c", "d"]},
    ... )
    >>> ndcg_at_k_score(y_true, y_score, k=2, average=None).round(4)
    array([0.7967, 1.    ])
    """
    mark_unjudged = check_bool(mark_unjudged, "mark_unjudged")
    all_grades, all_scores, lengths = [], [], []
    for key, relevant, ranked in _paired_queries(relevant_items, ranked_items):
        ids = _ranked_ids(ranked, f"ranked_items[{key!r}]")
        grades = row_grades(
            ids, _relevance(relevant, f"relevant_items[{key!r}]"), mark_unjudged
        )
        all_grades += grades
        all_scores += range(len(ids), 0, -1)
        all_scores += [-math.inf] * (len(grades) - len(ids))
        lengths.append(len(grades))
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    scores = np.asarray(all_scores, dtype=np.float64)
    return to_matrices(all_grades, scores, offsets, -1 if mark_unjudged else 0)


# --------------------------------------------------------------------------
# Shared with the TREC converter
# --------------------------------------------------------------------------


def row_grades(ids, grades, mark_unjudged=False):
    """Relevance of the columns of one row: ``ids`` (retrieved, in column
    order), then the ids of positive grade that ``ids`` lacks (with
    ``mark_unjudged``: of any grade, and -1 for retrieved ids not in
    ``grades``)."""
    retrieved = set(ids)
    if mark_unjudged:
        return [grades.get(i, -1) for i in ids] + [
            g for i, g in grades.items() if i not in retrieved
        ]
    return [grades.get(i, 0) for i in ids] + [
        g for i, g in grades.items() if g > 0 and i not in retrieved
    ]


def to_matrices(y_true, y_score, offsets, pad_grade=0):
    """Flat segments -> padded ``(y_true, y_score)`` matrices.

    Row ``i`` holds entries ``offsets[i]:offsets[i + 1]``; every other cell
    has score ``-inf`` and relevance ``pad_grade`` (0; -1, "not judged", when
    the judgments are marked, so that padding is no judged document).
    Relevance takes the smallest integer dtype holding the grades, else
    float64.
    """
    lengths = np.diff(offsets)
    n_rows = lengths.shape[0]
    width = max(1, int(lengths.max(initial=0)))
    flat = _relevance_array(y_true)
    row = np.repeat(np.arange(n_rows), lengths)
    col = np.arange(flat.shape[0]) - np.repeat(offsets[:-1], lengths)
    matrix_score = np.full((n_rows, width), -np.inf)
    matrix_score[row, col] = y_score
    if pad_grade < 0 and flat.dtype.kind == "u":
        flat = flat.astype(np.int64)
    matrix_true = np.full((n_rows, width), pad_grade, dtype=flat.dtype)
    matrix_true[row, col] = flat
    return matrix_true, matrix_score


#: Integers below this magnitude convert to a finite float64 (the fast path).
_BIG = 2**1000


def check_finite(value, where, what="relevance grade"):
    """A grade or score: a finite real number (bool counts as 0/1)."""
    if (type(value) is int and -_BIG < value < _BIG) or (
        type(value) is float and math.isfinite(value)
    ):
        return value  # the common case, without the slower ABC checks
    if not isinstance(value, numbers.Real):
        raise TypeError(
            f"{where} must be a real number (a {what}); got "
            f"{type(value).__name__} {value!r}."
        )
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an int (or Fraction) beyond float64's range
        finite = False
    if not finite:
        shown = repr(value)
        if len(shown) > 40:
            shown = f"{shown[:20]}...{shown[-10:]} ({len(shown)} characters)"
        raise ValueError(
            f"{where} must be finite (within float64's range, about 1.8e308); "
            f"got {shown}."
        )
    return value


def _relevance_array(grades):
    """Flat grades -> the smallest integer dtype holding them, else float64."""
    arr = np.asarray(grades)
    if arr.dtype.kind == "b" or arr.size == 0:
        return arr.astype(np.int8)
    if arr.dtype.kind in "iu":
        lo, hi = arr.min(), arr.max()
        for dtype in (np.int8, np.int16, np.int32, np.int64):
            info = np.iinfo(dtype)
            if info.min <= lo and hi <= info.max:
                return arr.astype(dtype)
    return arr.astype(np.float64)


# --------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------


def _as_mapping(x):
    """A dict, or a pandas Series read as a dict (index -> value); for the
    containers of queries only (a Series of one query's ids is a list)."""
    if isinstance(x, Mapping):
        return x
    if hasattr(x, "to_dict") and hasattr(x, "index") and getattr(x, "ndim", 0) == 1:
        return x.to_dict()
    return None


def _paired_queries(relevant_items, ranked_items):
    """Yield ``(key, relevant, ranked)`` per query, in row order."""
    relevant_map, ranked_map = _as_mapping(relevant_items), _as_mapping(ranked_items)
    if relevant_map is not None and ranked_map is not None:
        missing = [k for k in ranked_map if k not in relevant_map]
        extra = [k for k in relevant_map if k not in ranked_map]
        if missing or extra:
            raise ValueError(
                "relevant_items and ranked_items must have the same query keys; "
                + "; ".join(
                    f"{what}: {keys[:5]}{' ...' if len(keys) > 5 else ''}"
                    for what, keys in [
                        ("only in ranked_items", missing),
                        ("only in relevant_items", extra),
                    ]
                    if keys
                )
                + ". Use an empty set or list for a query without items."
            )
        for key, ranked in ranked_map.items():
            yield key, relevant_map[key], ranked
        return
    kinds = []
    for name, x, mapping in [
        ("relevant_items", relevant_items, relevant_map),
        ("ranked_items", ranked_items, ranked_map),
    ]:
        if mapping is not None:
            kinds.append("dict")
        elif isinstance(x, (list, tuple)) or (
            isinstance(x, np.ndarray) and x.ndim == 1
        ):
            kinds.append("list")
        else:
            raise TypeError(
                f"{name} must be a list with one entry per query, or a dict keyed "
                f"by query id; got {type(x).__name__}."
            )
    if kinds[0] != kinds[1]:
        raise TypeError(
            f"relevant_items is a {kinds[0]} but ranked_items is a {kinds[1]}; "
            f"pass both as lists (one entry per query, in the same order) or "
            f"both as dicts keyed by query id."
        )
    if len(ranked_items) and isinstance(ranked_items[0], (str, bytes)):
        _id_list(ranked_items[0], "ranked_items[0]", "ranked_items")  # raises
    if len(relevant_items) != len(ranked_items):
        raise ValueError(
            f"relevant_items has {len(relevant_items)} queries but ranked_items "
            f"has {len(ranked_items)}; they must match, one entry per query."
        )
    yield from zip(range(len(ranked_items)), relevant_items, ranked_items)


def _id_list(x, where, what):
    if isinstance(x, (str, bytes)):
        raise TypeError(
            f"{where} must be a list of ids but is a {type(x).__name__} ({x!r}): "
            f"{what} hold one list of ids per query. For a single query, pass "
            f"[ids]."
        )
    if isinstance(x, np.ndarray):
        if x.ndim != 1:
            raise ValueError(f"{where} must be 1-D; got an array of shape {x.shape}.")
        return x.tolist()
    try:
        return list(x)
    except TypeError:
        raise TypeError(
            f"{where} must be a list of ids; got {type(x).__name__} {x!r}. "
            f"{what} hold one list of ids per query."
        ) from None


def _check_unique(ids, where):
    """Ids are hashable and appear once."""
    try:
        unique = set(ids)
    except TypeError:
        for i in ids:
            try:
                hash(i)
            except TypeError:
                raise TypeError(
                    f"{where} holds an id of unhashable type {type(i).__name__} "
                    f"({i!r}); ids must be hashable (str, int, ...)."
                ) from None
        raise
    if len(unique) != len(ids):
        seen = set()
        duplicate = next(i for i in ids if i in seen or seen.add(i))
        raise ValueError(
            f"{where} lists id {duplicate!r} more than once; each id may appear "
            f"once per query."
        )


def _ranked_ids(ranked, where):
    if isinstance(ranked, (set, frozenset, Mapping)):
        raise TypeError(
            f"{where} must be an ordered list of ids (best first); got a "
            f"{type(ranked).__name__}, which has no rank order."
        )
    ids = _id_list(ranked, where, "ranked_items")
    _check_unique(ids, where)
    return ids


def _relevance(relevant, where):
    """Relevant ids -> dict id -> grade."""
    if isinstance(relevant, Mapping):
        for i, grade in relevant.items():
            check_finite(grade, f"{where}[{i!r}]")
        return relevant
    ids = _id_list(relevant, where, "relevant_items")
    _check_unique(ids, where)
    return dict.fromkeys(ids, 1)
