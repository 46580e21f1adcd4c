"""The kernel's Python side: requests compiled, inputs handed over, threads.

:func:`evaluate` hands validated inputs to the compiled kernel
(:mod:`sklearn_rankk._core._kernel`, the only place where rows are ranked and
metrics computed): dense score matrices and flat segments go to it whole and
without copies when their dtypes are the kernel's; other inputs (row-sliceable
arrays such as memmaps, sparse scores, other dtypes) are read and converted
one block of rows at a time, so memory stays bounded. The kernel spreads the
rows over threads (:func:`n_threads`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _kernel
from .requests import kernel_request
from .threads import (  # noqa: F401  (re-exported: the package's thread control)
    MIN_CELLS_PER_THREAD,
    n_threads,
    num_threads,
    set_num_threads,
    threads_for,
)
from .threads import usable_cpus as _usable_cpus  # noqa: F401
from .validation import as_float64_exact
from .validation import sparse as sp

#: Number of matrix cells (rows x columns) per block when inputs are read or
#: converted block by block: a block holds ``max(1, BLOCK_CELLS // n_columns)``
#: rows.
BLOCK_CELLS = 1 << 20


def iter_blocks(n_rows, n_cols, block_cells=BLOCK_CELLS):
    """Yield ``slice`` objects of rows such that each block has ~block_cells."""
    step = max(1, block_cells // max(n_cols, 1))
    for start in range(0, n_rows, step):
        yield slice(start, min(start + step, n_rows))


# --------------------------------------------------------------------------
# Requests as the kernel takes them
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Compiled:
    """Requests as a kernel array, with their output columns.

    Attributes
    ----------
    array : structured ndarray (``_kernel.REQUEST_DTYPE``)
    n_cols : int
        Output columns of all the requests.
    columns : list of slice
        Each request's output columns (one, or ``k`` for a curve).
    held : tuple of ndarray or array.array
        Arrays the kernel reads through an address in ``array`` (recall
        levels, gain maps, discount tables), kept alive with it.
    """

    array: np.ndarray
    n_cols: int
    columns: list
    held: tuple = ()


def _discount_table(discount, log_base, p, n):
    """The discounts of ranks 1..n (float64), or None for the kernel's own
    ``1 / log_b(rank + 1)``; ``"constant"``: 1 at every rank."""
    if isinstance(discount, str) and discount == "log":
        return None
    ranks = np.arange(1, n + 1, dtype=np.float64)
    if isinstance(discount, str) and discount == "constant":  # PSP@k's sum
        return np.ones_like(ranks)
    if callable(discount):
        try:
            table = np.asarray(discount(ranks), dtype=np.float64)
        except (TypeError, ValueError):
            table = None
        if table is None or table.shape != ranks.shape:
            table = np.array([discount(i) for i in range(1, n + 1)], dtype=np.float64)
        if not np.all(np.isfinite(table)):
            raise ValueError(
                "discount (a callable of the 1-based rank) must give finite "
                "real discounts; it gave a NaN or an infinite value."
            )
        return np.ascontiguousarray(table)
    if discount == "jarvelin":  # 1 before rank b, then 1 / log_b(rank)
        with np.errstate(divide="ignore"):
            table = np.log(log_base) / np.log(ranks)
        return np.where(ranks < log_base, 1.0, table)
    if discount == "reciprocal":
        return 1.0 / ranks
    return np.power(float(p), ranks - 1.0)  # geometric


def _gain_table(gains, grades):
    """A gain map as the kernel's two arrays (grades increasing, gains)."""
    if callable(gains):
        grades = np.asarray(grades, dtype=np.float64)
        values = np.asarray(gains(grades), dtype=np.float64)
        if values.shape != grades.shape:
            values = np.array([gains(g) for g in grades], dtype=np.float64)
        if not np.all(np.isfinite(values)):
            raise ValueError(
                "gains (a callable of the grade) must give finite real gains; "
                "it gave a NaN or an infinite value."
            )
        return np.ascontiguousarray(grades), np.ascontiguousarray(values)
    pairs = np.asarray(gains, dtype=np.float64).reshape(-1, 2)
    return np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])


def relevant_grades(y_true, threshold):
    """The grades a gain map may be asked for, increasing: the distinct
    grades of ``y_true`` above ``threshold`` and not negative (for small
    integer grades, every whole number up to the largest)."""
    if sp.issparse(y_true):
        values = np.asarray(y_true.data)
        if threshold < 0:
            values = np.append(values, 0)
    else:
        values = np.asarray(y_true)
    if values.dtype.kind in "biu" and values.size:
        # Small integer grades: every whole number up to the largest (one
        # read of y_true; a grade absent from it is never looked up).
        hi = int(values.max())
        if hi <= 4096:
            whole = np.arange(hi + 1, dtype=np.float64)
            return whole[(whole > threshold) & (whole >= 0)]
    values = values[(values > threshold) & (values >= 0)]
    return np.unique(values.astype(np.float64))


def compile_requests(requests, n_items, grades=None):
    """The kernel's request array; curves without ``k`` span ``n_items``.

    ``grades``: the relevant grades of the inputs, where a request's gain
    map is a callable (evaluated on them)."""
    rows, columns, col, held = [], [], 0, []
    for request in requests:
        options = request.options
        fields, width = kernel_request(request, n_items, col, held)
        k = fields["k"]
        max_grade = options.get("max_grade")
        if request.metric.formula == _kernel.SDCG:
            max_grade = options.get("max_rel")
        if options.get("gains") is not None:  # the DCG family's gain map
            if callable(options["gains"]) and max_grade is not None:
                grades = np.union1d(grades, [float(max_grade)])  # SDCG's max_rel
            table = _gain_table(options["gains"], grades)
            held.extend(table)
            fields["gain_grades"] = table[0].ctypes.data
            fields["gain_values"] = table[1].ctypes.data
            fields["n_gain"] = table[0].size
        disc = _discount_table(
            request.metric.fixed_discount or options.get("discount", "log"),
            options.get("log_base", 2),
            options.get("discount_p", 0.9),
            max(k if k > 0 else n_items, 1),
        )
        if disc is not None:
            held.append(disc)
            fields["disc"], fields["n_disc"] = disc.ctypes.data, disc.size
        # (one tuple a request: a numpy record's fields, set by name, cost
        # about a microsecond each)
        rows.append(tuple([fields[name] for name in _kernel.REQUEST_FIELD_NAMES]))
        columns.append(slice(col, col + width))
        col += width
    array = np.array(rows, dtype=_kernel.REQUEST_DTYPE)
    return Compiled(array, col, columns, tuple(held))


# --------------------------------------------------------------------------
# Inputs to the kernel
# --------------------------------------------------------------------------


def _threads_for(cells):
    # (this module's n_threads, where a caller may set it: dask's blocks run
    # on one thread each)
    return threads_for(cells, n_threads)


def _scores_block(block):
    """Dense scores in a dtype the kernel takes (float32/float64), C-ordered."""
    if sp.issparse(block):
        block = block.toarray()
    block = np.asarray(block)
    if block.dtype not in _kernel.SCORE_DTYPES:
        block = as_float64_exact(block)
    return np.ascontiguousarray(block)


def _relevance_block(block):
    """Dense relevance in a dtype the kernel takes, C-ordered."""
    if sp.issparse(block):
        block = block.toarray()
    block = np.asarray(block)
    if block.dtype != np.bool_ and block.dtype not in _kernel.RELEVANCE_DTYPES:
        block = block.astype(np.float64)
    return np.ascontiguousarray(block)


def evaluate(compiled, data, *, ties, threshold):
    """Every compiled request on every row of validated inputs.

    Parameters
    ----------
    compiled : Compiled
    data : RankingInput
        ``y_score`` a 2-D array (in memory, row-sliceable or sparse) or flat
        scores with ``offsets``; ``y_true`` aligned with it, or CSR.
    ties : int
        ``_kernel.TIES_EXACT`` or ``_kernel.TIES_LATER_FIRST``.
    threshold : float

    Returns
    -------
    values : ndarray of shape (n_rows, n_cols)
    empty : ndarray of bool of shape (n_rows, n_requests)
    flags : ndarray of uint8 of shape (n_rows,)
    """
    args = (compiled.array, compiled.n_cols, ties, threshold)
    y_true, y_score = data.y_true, data.y_score
    if data.offsets is not None:  # segments of flat arrays: one call
        scores = _scores_block(y_score)
        out = _kernel.evaluate_aligned(
            scores,
            _relevance_block(y_true),
            data.offsets,
            0,
            *args,
            _threads_for(scores.size),
        )
        return out[0], out[1].view(bool), out[2]
    n_rows, n_items = data.shape
    csr = sp.issparse(y_true) and threshold >= 0
    if csr:  # only stored grades can be relevant: read CSR as it is
        indptr = y_true.indptr.astype(np.int64, copy=False)
        indices = y_true.indices.astype(np.int64, copy=False)
        grades = y_true.data.astype(np.float64, copy=False)
    whole = (
        isinstance(y_score, np.ndarray)
        and not isinstance(y_score, np.memmap)
        and y_score.dtype in _kernel.SCORE_DTYPES
        and y_score.flags.c_contiguous
        and (
            csr
            or (
                isinstance(y_true, np.ndarray)
                and (y_true.dtype in _kernel.RELEVANCE_DTYPES or y_true.dtype == bool)
                and y_true.flags.c_contiguous
            )
        )
    )

    def block(rows, scores, relevance):
        threads = _threads_for(scores.size)
        if csr:
            return _kernel.evaluate_csr(
                scores, indptr, indices, grades, rows.start, *args, threads
            )
        return _kernel.evaluate_aligned(
            scores, relevance, None, n_items, *args, threads
        )

    if whole:  # in memory, in the kernel's dtypes: no copy, one call
        v, e, f = block(slice(0, n_rows), y_score, y_true)
        return v, e.view(bool), f
    values = np.empty((n_rows, compiled.n_cols))
    empty = np.empty((n_rows, len(compiled.columns)), dtype=bool)
    flags = np.empty(n_rows, dtype=np.uint8)
    for rows in iter_blocks(n_rows, n_items):
        relevance = None if csr else _relevance_block(y_true[rows])
        v, e, f = block(rows, _scores_block(y_score[rows]), relevance)
        values[rows], empty[rows], flags[rows] = v, e.view(bool), f
    return values, empty, flags


#: The relevance dtypes the kernel reads per intent or through item weights
#: (passes.hpp), with float64 scores; other dtypes are converted, or (item
#: weights) take the CSR path.
OTHER_VIEW_RELEVANCE = tuple(
    np.dtype(t) for t in (np.uint8, np.int8, np.int64, np.float64)
)


def with_item_weights(compiled, weights, threshold):
    """``compiled`` with an ITEM_WEIGHTS request appended (its column last):
    the kernel then reads each item relevant at ``threshold`` with its
    column's weight (``weights``, float64, one > 0 per column) as grade, at
    threshold 0 for every request (weighted.hpp), and the last column holds
    each row's relevant items."""
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    array = np.zeros(compiled.array.size + 1, dtype=_kernel.REQUEST_DTYPE)
    array[:-1] = compiled.array
    row = array[-1]
    row["formula"], row["k"], row["col"] = _kernel.ITEM_WEIGHTS, 1, compiled.n_cols
    row["level"], row["levels"], row["n_levels"] = (
        threshold,
        weights.ctypes.data,
        weights.size,
    )
    n_cols = compiled.n_cols + 1
    columns = [*compiled.columns, slice(compiled.n_cols, n_cols)]
    return Compiled(array, n_cols, columns, (*compiled.held, weights))


# --------------------------------------------------------------------------
# Intent-aware requests: y_true of shape (n_rows, n_items, n_intents)
# --------------------------------------------------------------------------


def compile_intent_request(
    formula, k, n_intents, *, p=0.5, discount="log", weights=None, ideal=True
):
    """One intent-aware request (formula ``_kernel.INTENT_*``) as a kernel
    array: its ``n_levels`` the number of intents, ``p`` alpha, ``discount``
    ``"log"`` or ``"reciprocal"`` (INTENT_ALPHA's), ``weights`` the
    (n_rows, n_intents) weights of INTENT_ALPHA's greedy ideal (None: 1
    each), ``ideal`` whether INTENT_ALPHA computes it. Its columns: one
    value per intent, then one presence flag per intent, then (INTENT_ALPHA)
    the ideal (0 without ``ideal``)."""
    array = np.zeros(1, dtype=_kernel.REQUEST_DTYPE)
    row = array[0]
    row["formula"], row["k"], row["col"] = formula, k, 0
    row["p"], row["n_levels"], row["level"] = p, n_intents, float(ideal)
    held = []
    disc = _discount_table(discount, 2, p, max(k, 1))
    if disc is not None:
        held.append(disc)
        row["disc"], row["n_disc"] = disc.ctypes.data, disc.size
    if weights is not None:
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        held.append(weights)
        row["levels"] = weights.ctypes.data
    n_cols = 2 * n_intents + (formula == _kernel.INTENT_ALPHA)
    return Compiled(array, n_cols, [slice(0, n_cols)], tuple(held))


def evaluate_intents(compiled, y_true, y_score, *, ties, threshold):
    """An intent-aware request on every row, in one pass of the kernel.

    Parameters
    ----------
    compiled : Compiled
        From :func:`compile_intent_request`.
    y_true : ndarray of shape (n_rows, n_items, n_intents)
    y_score : validated 2-D scores (any form :func:`evaluate` takes)
    ties : int
    threshold : float

    Returns
    -------
    values : ndarray of shape (n_rows, n_cols)
    flags : ndarray of uint8 of shape (n_rows,)
    """
    if not (isinstance(y_score, np.ndarray) or sp.issparse(y_score)):
        # row-sliceable (a memmap, the random baseline's constants): read
        # whole, as the 3-D y_true already is
        y_score = y_score[0 : y_score.shape[0]]
    scores = _scores_block(y_score)
    if scores.dtype != np.float64:
        scores = scores.astype(np.float64)  # float32 exactly
    if y_true.dtype == np.bool_:
        y_true = y_true.view(np.uint8)
    elif y_true.dtype not in OTHER_VIEW_RELEVANCE:
        # exactly, but for integers beyond 2**53
        exact = y_true.dtype.kind in "iu" and y_true.dtype.itemsize < 8
        y_true = y_true.astype(np.int64 if exact else np.float64)
    y_true = np.ascontiguousarray(y_true)
    values, _, flags = _kernel.evaluate_aligned(
        scores,
        y_true,
        None,
        scores.shape[1],
        compiled.array,
        compiled.n_cols,
        ties,
        threshold,
        _threads_for(scores.size),
    )
    return values, flags
