"""Dask inputs: per-row metric values computed block by block on the workers.

:func:`sklearn_rankk._core.engine.row_values` sends here any call where
``y_true``, ``y_score`` or ``sample_weight`` is a dask collection. Every
metric is a weighted mean of independent per-row values, so the work splits
by rows: ``y_score`` is rechunked so that each block holds whole rows (all
columns in one chunk), ``y_true`` gets the same row chunks, and each block is
evaluated where it lives by the in-memory ``row_values`` (the compiled
kernel), which also validates it (NaN, negative grades, ...). Only
the per-row values (a few floats a row) come back to the client, where the
caller aggregates them exactly as for in-memory inputs, so the result is the
same float. Nothing materialises the whole matrix on one worker.

dask itself is imported only here, and only when a dask input is seen; this
module registers itself with the engine when the package is imported.
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.sparse as sp

from .._core import engine
from .._core.validation import (
    as_array,
    check_bool,
    check_real,
    check_sample_weight,
    check_y_score,
    check_y_true,
    is_dask,
)


def per_row_values_dask(
    requests,
    y_true,
    y_score,
    *,
    sample_weight=None,
    ignore_ties=False,
    relevance_threshold=0,
    labels=None,
):
    """Same contract as :func:`sklearn_rankk._core.engine.row_values`.

    ``y_true`` and ``y_score`` may be dask arrays (``y_true`` with dense or
    scipy.sparse chunks, or 1-D class labels), dask DataFrames, or in-memory
    inputs mixed with dask ones; ``sample_weight`` may be a dask array or
    Series. Returns numpy arrays on the client.
    """
    import dask

    ignore_ties = check_bool(ignore_ties, "ignore_ties")
    threshold = check_real(relevance_threshold, "relevance_threshold")
    options = {"ignore_ties": ignore_ties, "relevance_threshold": threshold}
    if not is_dask(y_score):
        # The scores are already here (in memory or a memmap): so is the work.
        y_true, sample_weight = (
            x.compute() if is_dask(x) else x for x in (y_true, sample_weight)
        )
        return engine.row_values(
            requests,
            y_true,
            y_score,
            sample_weight=sample_weight,
            labels=labels,
            **options,
        )

    y_score = check_y_score(_dask_array(y_score, "y_score"))  # metadata only
    if y_score.numblocks[1] > 1:
        # Columns must not be split: whole rows, blocks of about the
        # configured chunk size.
        y_score = y_score.rechunk({0: "auto", 1: -1})
    row_chunks = y_score.chunks[0]
    n_samples, n_items = y_score.shape
    y_true = _aligned_y_true(y_true, y_score.shape, row_chunks)
    if y_true.ndim == 1:
        labels = _global_labels(y_true, labels, n_items)
    if sample_weight is not None:
        if is_dask(sample_weight):
            sample_weight = sample_weight.compute()
        sample_weight = check_sample_weight(sample_weight, n_samples)

    blocks = [
        dask.delayed(_block_values, pure=True)(requests, t, s, labels, options)
        for t, s, size in zip(
            y_true.to_delayed().ravel(), y_score.to_delayed().ravel(), row_chunks
        )
        if size  # an empty chunk has nothing to evaluate
    ]
    results = dask.compute(*blocks)
    values = [np.concatenate([r[0][i] for r in results]) for i in range(len(requests))]
    undefined = [
        np.concatenate([r[1][i] for r in results]) for i in range(len(requests))
    ]
    # The row weights of the propensity-scored metrics' means, if any.
    ideal = None
    if any(r[2] is not None for r in results):
        ideal = [
            None
            if results[0][2][i] is None
            else np.concatenate([r[2][i] for r in results])
            for i in range(len(requests))
        ]
    return engine.Rows(values, undefined, sample_weight, n_items, ideal)


def _block_values(requests, y_true, y_score, labels, options):
    """Per-row values of one block of rows, on the worker that holds it.

    dask runs blocks in parallel, so each runs the kernel on one OpenMP
    thread, as distributed's workers do (``OMP_NUM_THREADS=1``); a count set
    with :func:`sklearn_rankk.set_num_threads` still wins.
    """
    with _openmp_controller().limit(limits=1, user_api="openmp"):
        rows = engine.row_values(requests, y_true, y_score, labels=labels, **options)
    return rows.values, rows.undefined, rows.ideal


@functools.cache
def _openmp_controller():
    # Scanning the loaded libraries takes milliseconds: once per process.
    # The limit applies to the calling thread only.
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _dask_array(x, name):
    """A dask array from a dask array, DataFrame or Series, with known chunks."""
    if hasattr(x, "to_dask_array"):  # dask DataFrame or Series
        x = x.to_dask_array(lengths=True)
    if not (hasattr(x, "chunks") and hasattr(x, "to_delayed")):
        raise TypeError(
            f"{name} must be a dask array, DataFrame or Series; got {type(x).__name__}."
        )
    if any(np.isnan(c) for dim in x.chunks for c in dim):
        raise ValueError(
            f"{name} has unknown chunk sizes; call {name}.compute_chunk_sizes() first."
        )
    return x


def _aligned_y_true(y_true, shape, row_chunks):
    """``y_true`` as a dask array with the row chunks of ``y_score``.

    2-D relevance has all its columns in one chunk; 1-D class labels are
    kept 1-D.
    """
    import dask.array as da

    if is_dask(y_true):  # values are checked block by block, on the workers
        y_true = _dask_array(y_true, "y_true")
    else:
        y_true = as_array(y_true, "y_true")
        if sp.issparse(y_true) and not sp.isspmatrix_csr(y_true):
            y_true = y_true.tocsr()  # row slicing; a new matrix
    if y_true.ndim not in (1, 2):
        raise ValueError(
            f"y_true must be 2-D relevance of shape (n_samples, n_items), or "
            f"1-D class labels; got {y_true.ndim}-D with shape {y_true.shape}."
        )
    if y_true.ndim == 1 and y_true.shape[0] != shape[0]:
        raise ValueError(
            f"y_true (1-D class labels) has {y_true.shape[0]} samples but "
            f"y_score has {shape[0]} rows; they must match."
        )
    if y_true.ndim == 2 and tuple(y_true.shape) != tuple(shape):
        raise ValueError(
            f"y_true and y_score must have the same shape; got y_true "
            f"{tuple(y_true.shape)} and y_score {tuple(shape)}."
        )
    chunks = (row_chunks,) if y_true.ndim == 1 else (row_chunks, (shape[1],))
    if not is_dask(y_true):
        return da.from_array(y_true, chunks=chunks, asarray=not sp.issparse(y_true))
    return y_true.rechunk(chunks)


def _global_labels(y_true, labels, n_items):
    """The classes of every block: ``labels``, or the sorted unique labels.

    Each block alone may miss classes, so without ``labels`` the unique
    labels of the whole ``y_true`` are computed first (a pass over the
    labels only) and checked as the in-memory call checks them.
    """
    import dask.array as da

    if labels is not None:
        return labels
    classes = da.unique(y_true).compute()
    # The in-memory checks on the classes themselves: NaN, and one class
    # per column of y_score.
    check_y_true(classes, (classes.shape[0], n_items))
    return classes


def _any_dask(y_true, y_score, sample_weight):
    return any(is_dask(x) for x in (y_true, y_score, sample_weight))


engine.register_backend(_any_dask, per_row_values_dask)


def by_row_blocks(run, y_true, y_score, params):
    """``run(y_true, y_score, params) -> (values, undefined)`` of a measure
    whose ``y_true`` is 3-D (the intent-aware measures), block by block of
    rows on the workers, the results concatenated on the client.

    Every row's value depends on that row alone (its ideal ranking too), so
    the result is the in-memory one. Per-row ``intent_weights`` (shape
    (n_samples, n_intents)) are cut into the same blocks of rows.
    """
    import dask
    import dask.array as da

    if not is_dask(y_score):  # the blocks of rows of y_true's chunks
        rows = _dask_array(y_true, "y_true").chunks[0]
        y_score = da.from_array(check_y_score(y_score), chunks=(rows, -1))
    y_score = check_y_score(_dask_array(y_score, "y_score"))  # metadata only
    if y_score.numblocks[1] > 1:
        y_score = y_score.rechunk({0: "auto", 1: -1})
    row_chunks = y_score.chunks[0]
    if is_dask(y_true):
        y_true = _dask_array(y_true, "y_true")
    else:
        y_true = np.asarray(as_array(y_true, "y_true"))
    if y_true.ndim != 3 or tuple(y_true.shape[:2]) != tuple(y_score.shape):
        raise ValueError(
            f"y_true must be 3-D of shape (n_samples, n_items, n_intents) with "
            f"y_score's shape {tuple(y_score.shape)} first; got shape "
            f"{tuple(y_true.shape)}."
        )
    chunks = (row_chunks, (y_true.shape[1],), (y_true.shape[2],))
    if is_dask(y_true):
        y_true = y_true.rechunk(chunks)
    else:
        y_true = da.from_array(y_true, chunks=chunks)
    weights = params.get("intent_weights")
    per_row = weights is not None and np.ndim(weights) == 2
    bounds = np.concatenate(([0], np.cumsum(row_chunks)))
    blocks = []
    for i, (t, s) in enumerate(
        zip(y_true.to_delayed().ravel(), y_score.to_delayed().ravel())
    ):
        if bounds[i + 1] == bounds[i]:
            continue  # an empty chunk has nothing to evaluate
        own = dict(params)
        if per_row:
            own["intent_weights"] = np.asarray(weights)[bounds[i] : bounds[i + 1]]
        blocks.append(dask.delayed(run, pure=True)(t, s, own))
    results = dask.compute(*blocks)
    return (
        np.concatenate([r[0] for r in results]),
        np.concatenate([r[1] for r in results]),
    )
