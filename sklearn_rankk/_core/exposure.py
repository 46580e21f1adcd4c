"""Beyond-accuracy measures: item exposure in the top-k lists, exact under ties.

The compiled kernel (``exposure.hpp``) ranks every row with the selection all
metrics use and gives, per item, the expected number of lists holding it (a
tied item straddling the cut is in the list with probability "slots left over
the group's size"), the lists certain to hold it and ``sum log(1 - p)`` over
the others; per row, the expected sums of per-item values over its list.
Every quantity here is a sum over rows, so blocks of rows add up exactly as
the whole does. From them:

* :func:`expected_coverage`: the expected fraction of items in at least one
  list (exact expectation: tie orders independent from row to row);
* :func:`gini_index`, :func:`exposure_entropy`: of the expected exposure
  vector (exact), not the expectation of the Gini index or entropy (which are
  not linear in the exposure);
* :func:`row_means`: per row, the expected mean of an item value over the
  list, exact by linearity (a list always holds ``min(k, finite scores)``
  items, whatever the order of the tied items).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _kernel
from .ranking import BLOCK_CELLS
from .threads import threads_for
from .validation import (
    NAN_SCORES,
    as_array,
    as_float64_exact,
    check_bool,
    check_k,
    check_real,
    check_sample_weight,
    check_y_score,
    sparse,
)


@dataclass(frozen=True)
class Exposure:
    """What the kernel gives for one call (sums over rows).

    Attributes
    ----------
    exposure : ndarray of shape (n_items,)
        Expected (``sample_weight``-weighted) number of lists holding each item.
    certain : ndarray of shape (n_items,)
        Lists of positive weight certain to hold each item.
    log_miss : ndarray of shape (n_items,)
        ``sum log(1 - p)`` over the lists of positive weight holding the item
        with probability ``0 < p < 1``.
    length : ndarray of shape (n_rows,)
        Items in each row's list: ``min(k, finite scores of the row)``.
    sums : ndarray of shape (n_rows, n_values)
        Expected sum of each value vector over each row's list.
    sample_weight : ndarray or None
    """

    exposure: np.ndarray
    certain: np.ndarray
    log_miss: np.ndarray
    length: np.ndarray
    sums: np.ndarray
    sample_weight: np.ndarray | None


def check_item_values(values, n_items, name, *, positive=False):
    """A per-item vector of finite reals (non-negative; positive if asked)."""
    v = as_array(values, name)
    if sparse.issparse(v):
        raise TypeError(f"{name} must be a dense 1-D array of shape (n_items,).")
    if v.ndim != 1 or v.shape[0] != n_items:
        raise ValueError(
            f"{name} must be 1-D with one value per item (column of y_score), "
            f"shape ({n_items},); got shape {v.shape}."
        )
    if v.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers; got dtype {v.dtype}.")
    v = v.astype(np.float64)
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} must be finite (no NaN or inf).")
    if positive and np.any(v <= 0):
        raise ValueError(
            f"{name} must be positive for this measure (-log2 of a share of 0 "
            f"is infinite); item {int(np.argmax(v <= 0))} has {v[v <= 0][0]}."
        )
    if np.any(v < 0):
        raise ValueError(f"{name} must be non-negative.")
    return v


def _score_blocks(y_score):
    """Dense C-contiguous float32/float64 blocks of rows of ``y_score``: the
    whole matrix at once when it already is one (no copy), else blocks of
    about :data:`BLOCK_CELLS` scores (sparse, memmaps, dask, other dtypes)."""
    n, m = y_score.shape
    kernel_ready = (
        type(y_score) is np.ndarray
        and y_score.dtype in (np.float32, np.float64)
        and y_score.flags.c_contiguous
    )
    if kernel_ready:
        yield 0, y_score
        return
    step = max(1, BLOCK_CELLS // m)
    for start in range(0, n, step):
        block = y_score[start : start + step]
        if sparse.issparse(block):
            block = block.toarray()
        block = np.asarray(block)
        if block.dtype not in (np.float32, np.float64):
            block = as_float64_exact(block)
        yield start, np.ascontiguousarray(block)


def item_exposure(
    y_score, *, k, sample_weight=None, ignore_ties=False, values=(), caller
):
    """The kernel's exposure sums over every row of ``y_score``.

    ``values``: per-item vectors (already validated) whose expected sums over
    each row's list are wanted. ``caller`` names the public function in
    messages.
    """
    y_score = check_y_score(y_score)
    k = check_k(k, allow_none=False, metric=caller)
    ignore_ties = check_bool(ignore_ties, "ignore_ties")
    n, m = y_score.shape
    weights = check_sample_weight(sample_weight, n)
    vals = np.ascontiguousarray(np.array(values, dtype=np.float64).reshape(-1, m))
    exposure = np.zeros(m)
    certain = np.zeros(m)
    log_miss = np.zeros(m)
    length = np.empty(n)
    sums = np.empty((n, vals.shape[0]))
    threads = threads_for(n * m)
    for start, block in _score_blocks(y_score):
        stop = start + block.shape[0]
        w = None if weights is None else np.ascontiguousarray(weights[start:stop])
        e, c, lm, ln, s, flags = _kernel.exposure(
            block, k, ignore_ties, w, vals, threads
        )
        if np.any(flags & _kernel.FLAG_NAN_SCORE):
            raise ValueError(NAN_SCORES)
        if np.any(flags & _kernel.FLAG_NO_MEMORY):
            raise MemoryError("not enough memory for the kernel's row buffers")
        exposure += e
        certain += c
        log_miss += lm
        length[start:stop] = ln
        sums[start:stop] = s
    return Exposure(exposure, certain, log_miss, length, sums, weights)


def expected_coverage(certain, log_miss, n_catalog=None):
    """Expected fraction of the catalog in at least one list.

    An item is in some list with probability 1 if a list holds it for
    certain, else ``1 - prod(1 - p) = 1 - exp(log_miss)``. ``n_catalog``:
    the denominator (default: the number of items).
    """
    n_items = certain.shape[0]
    if n_catalog is None:
        n_catalog = n_items
    reached = np.where(certain > 0, 1.0, -np.expm1(log_miss))
    return float(np.sum(reached) / n_catalog)


def _check_exposed(exposure, caller):
    total = float(np.sum(exposure))
    if not total > 0:
        raise ValueError(
            f"{caller} is undefined when no list holds any item (every score of "
            f"y_score is -inf, or every sample_weight of such rows is 0)."
        )
    return total


def gini_index(exposure, caller="gini_index_at_k"):
    """Gini index of the exposure vector (every item, unexposed ones at 0):
    ``sum_i (2i - n - 1) x_(i) / (n sum x)`` with ``x_(1) <= ... <= x_(n)``."""
    total = _check_exposed(exposure, caller)
    x = np.sort(exposure)
    n = x.shape[0]
    i = np.arange(1, n + 1, dtype=np.float64)
    return float(np.sum((2.0 * i - n - 1.0) * x) / (n * total))


class _EmptyList:
    """What :func:`engine.fill_undefined` reads of a measure whose rows with an
    empty list (every score -inf) follow ``zero_division``."""

    empty_rows = "zero_division"
    undefined_when = "an empty list (every score -inf)"


EMPTY_LIST = _EmptyList()

ENTROPY_NORMALIZE = (None, "log_n_items", "n_exposed")


def exposure_entropy(exposure, base, normalize, caller="entropy_at_k"):
    """Shannon entropy of the exposure shares ``p_i = x_i / sum x``:
    ``-sum p_i log_base p_i``; divided by ``log_base(n_items)`` (its maximum)
    with ``normalize="log_n_items"``, by the number of items with positive
    exposure with ``normalize="n_exposed"`` (RecBole)."""
    total = _check_exposed(exposure, caller)
    p = exposure[exposure > 0] / total
    h = float(-np.sum(p * np.log(p)) / np.log(base))
    if normalize == "log_n_items":
        n = exposure.shape[0]
        return h / (np.log(n) / np.log(base)) if n > 1 else 0.0
    if normalize == "n_exposed":
        return h / p.shape[0]
    return h


def check_base(base):
    base = check_real(base, "base", low=1.0, low_inclusive=False)
    return base


def long_tail_mask(item_popularity, tail):
    """The long-tail items: ``tail`` a boolean mask, or a fraction in (0, 1]:
    the ``max(1, int(n_items * tail))`` least popular items (RecBole's
    ``tail_ratio``; among equal popularity, the lower column first)."""
    if isinstance(tail, (float, int)) and not isinstance(tail, (bool, np.bool_)):
        if item_popularity is None:
            raise ValueError(
                "tail as a fraction of the items needs item_popularity; or pass "
                "tail as a boolean mask of the long-tail items."
            )
        tail = check_real(
            tail, "tail", low=0.0, low_inclusive=False, high=1.0, high_inclusive=True
        )
        n = item_popularity.shape[0]
        order = np.argsort(item_popularity, kind="stable")
        mask = np.zeros(n, dtype=bool)
        mask[order[: max(1, int(n * tail))]] = True
        return mask
    mask = as_array(tail, "tail")
    if mask.dtype != np.bool_:
        raise TypeError(
            "tail must be a fraction of the items in (0, 1] or a boolean mask of "
            f"shape (n_items,); got an array of dtype {mask.dtype}."
        )
    return mask


def row_means(found, column):
    """Per row: the expected mean of value vector ``column`` over its list;
    NaN where the list is empty (every score -inf), and those rows."""
    length = found.length
    empty = length == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        values = found.sums[:, column] / length
    values[empty] = np.nan
    return values, empty
