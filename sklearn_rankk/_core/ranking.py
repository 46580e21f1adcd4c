"""The top-k kernel's Python side: blocks of rows in, rankings out.

:func:`rank_block` hands a block of rows to the compiled kernel
(:mod:`sklearn_rankk._core._kernel`, the only place where rows are ranked) and
wraps what it returns in a :class:`Ranked`: the ``K`` best items of every row
in rank order (score descending, ties by ascending column index), the tie
structure the exact tie-aware metrics need (for every rank, where its tie
group starts and how many items of the *whole row* share its score; every
group but the last lies wholly inside the top ``K``), and the relevance read
at those ranks and over the row.

With ``ignore_ties=True`` every rank is its own group, so the metrics compute
the value of the column-order ranking with the same formulas.

Rows are processed in blocks (:func:`iter_blocks`) so that the temporary
memory stays bounded whatever the number of rows; the kernel spreads the rows
of a block over threads (:func:`n_threads`).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from . import _kernel
from .validation import as_float64_exact, check_y_score, is_row_sliceable

#: Number of matrix cells (rows x columns) per block: a block holds
#: ``max(1, BLOCK_CELLS // n_columns)`` rows. The kernel's outputs are a few
#: arrays of ``rows x K``; dense scores or relevance in another dtype than the
#: kernel's are converted one block at a time.
BLOCK_CELLS = 1 << 20

_RELEVANCE_DTYPES = {
    np.dtype(t) for t in ("u1", "i1", "i2", "i4", "i8", "u2", "u4", "u8", "f4", "f8")
}

_threads = {"n": None}

#: Fewest score cells a block gives each thread; smaller blocks use fewer.
MIN_CELLS_PER_THREAD = 1 << 15


def n_threads():
    """Number of threads the kernel uses.

    The value set by :func:`set_num_threads`, else OpenMP's limit, which
    honours ``OMP_NUM_THREADS`` and ``threadpoolctl.threadpool_limits`` (and so
    joblib's workers, e.g. under ``GridSearchCV(n_jobs=2)``). Always 1 when
    the kernel was built without OpenMP.
    """
    if not _kernel.openmp_enabled():
        return 1
    if _threads["n"] is not None:
        return max(1, min(_threads["n"], _usable_cpus()))
    return max(1, _kernel.max_threads())


def _usable_cpus():
    """CPUs this process may run on (affinity-aware where the OS tells)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def set_num_threads(n):
    """Set the number of threads of the top-k kernel (None: OpenMP's limit).

    Parameters
    ----------
    n : int or None
        Threads to use; ``None`` restores the default, OpenMP's limit
        (``OMP_NUM_THREADS``, ``threadpoolctl``).

    Returns
    -------
    previous : int or None
        The previous setting, for restoring it.

    Examples
    --------
    >>> from sklearn_rankk import set_num_threads
    >>> previous = set_num_threads(1)
    >>> set_num_threads(previous)
    1
    """
    if n is not None and (
        isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1
    ):
        raise ValueError(f"n must be a positive integer or None; got {n!r}.")
    previous = _threads["n"]
    _threads["n"] = None if n is None else int(n)
    return previous


@contextmanager
def num_threads(n):
    """Context manager: the kernel uses ``n`` threads inside the block.

    Parameters
    ----------
    n : int or None
        As in :func:`set_num_threads`.

    Yields
    ------
    None

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import num_threads, precision_at_k_score
    >>> with num_threads(1):
    ...     precision_at_k_score([[1, 0, 1]], [[0.2, 0.9, 0.4]], k=2)
    0.5
    """
    previous = set_num_threads(n)
    try:
        yield
    finally:
        set_num_threads(previous)


def iter_blocks(n_rows, n_cols, block_cells=BLOCK_CELLS):
    """Yield ``slice`` objects of rows such that each block has ~block_cells."""
    step = max(1, block_cells // max(n_cols, 1))
    for start in range(0, n_rows, step):
        yield slice(start, min(start + step, n_rows))


def _dense_block(x, rows, dtypes, check=None):
    """Rows of a dense array (or sparse matrix) in a dtype the kernel takes.

    ``check`` validates the rows as read, before any conversion.
    """
    block = x[rows].toarray() if sp.issparse(x) else np.asarray(x[rows])
    if check is not None:
        check(block)
    if block.dtype == np.bool_ and np.dtype("u1") in dtypes:
        block = block.view(np.uint8)
    elif block.dtype not in dtypes:
        block = as_float64_exact(block)
    # Rows contiguous in memory (a copy of this block only if they are not).
    return np.ascontiguousarray(block)


def n_relevant(y_true, rows, threshold):
    """|R| of the rows ``rows``: a pass over the relevance alone."""
    block = y_true[rows]
    if sp.issparse(block):
        if threshold >= 0:  # implicit zeros are not relevant
            return np.asarray((block > threshold).sum(axis=1)).ravel()
        block = block.toarray()
    return np.count_nonzero(np.asarray(block) > threshold, axis=1)


@dataclass
class Ranked:
    """The top ``K`` items of each row of a block, with their relevance.

    Attributes
    ----------
    cols : ndarray of shape (n_rows, K), int
        Column index of the item at each rank.
    valid : ndarray of shape (n_rows, K), bool
        False where the item's score is ``-inf`` (not retrieved: at no rank).
    gstart : ndarray of shape (n_rows, K), int
        Rank (0-based) at which the tie group of each position starts.
    gsize : ndarray of shape (n_rows, K), int
        Number of items in the whole row tied with the item at this rank.
    grade : ndarray of shape (n_rows, K), float
        ``y_true`` of the item at each rank.
    n_relevant : ndarray of shape (n_rows,), int
        Relevant items of the row (``y_true > threshold``), retrieved or not.
    tied_relevant, tied_gain, tied_gain_exp : ndarray of shape (n_rows,)
        Relevant items, and their linear and exponential gains, summed over
        the whole row's items tied with the K-th (the last group).
    ideal : ndarray of shape (n_rows, K)
        The K largest relevant grades of the row, decreasing, padded with 0.
    threshold : float
        Relevance threshold.
    ties : bool
        False if ties are broken by column order (every rank its own group).
    row_k : ndarray of shape (n_rows,)
        Ranks produced for each row; ranks beyond are not retrieved.
    """

    cols: np.ndarray
    valid: np.ndarray
    gstart: np.ndarray
    gsize: np.ndarray
    grade: np.ndarray
    n_relevant: np.ndarray
    tied_relevant: np.ndarray
    tied_gain: np.ndarray
    tied_gain_exp: np.ndarray
    ideal: np.ndarray
    threshold: float
    ties: bool
    row_k: np.ndarray
    _cache: dict = field(default_factory=dict)
    _parent: Ranked | None = None

    @property
    def k(self):
        return self.cols.shape[1]

    def window(self, width):
        """The first ``width`` ranks, for a metric whose cut-offs fit in them.

        Sums over tie groups still come from the whole ranking (a group may
        extend past the window), through the parent; everything else is a
        view of the first ``width`` columns, so a metric at k = 10 costs
        O(10) per row even when the block was ranked deeper for another one
        (R-precision).
        """
        if width >= self.k:
            return self
        w = slice(None, width)
        return Ranked(
            cols=self.cols[:, w],
            valid=self.valid[:, w],
            gstart=self.gstart[:, w],
            gsize=self.gsize[:, w],
            grade=self.grade[:, w],
            n_relevant=self.n_relevant,
            tied_relevant=self.tied_relevant,
            tied_gain=self.tied_gain,
            tied_gain_exp=self.tied_gain_exp,
            ideal=self.ideal[:, w],
            threshold=self.threshold,
            ties=self.ties,
            row_k=np.minimum(self.row_k, width),
            _parent=self,
        )

    @property
    def relevant(self):
        """Binary relevance of the item at each rank."""
        return self.cached("rel", lambda: self.grade > self.threshold)

    def gains(self, gain):
        """Gain of the item at each rank (0 at or below the threshold)."""

        def compute():
            g = np.where(self.relevant, self.grade, 0.0)
            return g if gain == "linear" else np.exp2(g) - 1.0

        return self.cached(("gain", gain), compute)

    def ideal_gains(self, gain):
        """Gains of the ideal ranking's first K ranks."""
        return self.ideal if gain == "linear" else np.exp2(self.ideal) - 1.0

    def group_sum(self, at, tied_total):
        """Sum over the tie group of each rank, of values ``at`` the ranks.

        The last group is summed over the whole row (``tied_total``), so it
        includes its items beyond the cut-off.
        """
        if not self.ties:
            return at
        if self._parent is not None:  # a window cannot see its groups' ends
            raise RuntimeError("group sums of a window come from its parent")
        csum = np.cumsum(at, axis=1, dtype=np.float64)
        kr = self.row_k[:, None]
        gend_in = np.minimum(self.gstart + self.gsize, kr)
        upto = np.take_along_axis(csum, gend_in - 1, axis=1)
        before = np.where(
            self.gstart > 0,
            np.take_along_axis(csum, np.maximum(self.gstart - 1, 0), axis=1),
            0.0,
        )
        # The last group of each row: the one holding its rank row_k - 1.
        last_start = np.take_along_axis(self.gstart, kr - 1, axis=1)
        last = (self.gstart == last_start) & (np.arange(at.shape[1]) < kr)
        return np.where(last, tied_total[:, None], upto - before)

    def expected(self, at, tied_total):
        """Expected value at each rank over all orderings of tied items.

        Zero at ranks whose item is not retrieved (score ``-inf``).
        """
        out = self.group_sum(at, tied_total) / self.gsize
        return np.where(self.valid, out, 0.0)

    def cached(self, key, compute):
        """``compute()``, once per ranking: metrics of one pass share it."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def relevant_group_sum(self):
        """Relevant items in the tie group of each rank (whole row)."""
        if self._parent is not None:
            return self._parent.relevant_group_sum()[:, : self.k]
        return self.cached(
            "rel_group", lambda: self.group_sum(self.relevant, self.tied_relevant)
        )

    def expected_relevant(self):
        """Expected relevance at each rank."""
        if self._parent is not None:
            return self._parent.expected_relevant()[:, : self.k]
        return self.cached(
            "rel_expected",
            lambda: np.where(self.valid, self.relevant_group_sum() / self.gsize, 0.0),
        )

    def expected_gain(self, gain):
        """Expected gain at each rank."""
        if self._parent is not None:
            return self._parent.expected_gain(gain)[:, : self.k]
        tied = self.tied_gain if gain == "linear" else self.tied_gain_exp
        return self.cached(
            ("gain_expected", gain), lambda: self.expected(self.gains(gain), tied)
        )


class RelevanceSource:
    """``y_true`` (dense or CSR) as the kernel reads it, block by block."""

    def __init__(self, y_true, threshold):
        self.threshold = threshold
        # Sparse relevance is read in CSR form unless its implicit zeros are
        # relevant (negative threshold): then blocks are densified.
        self.csr = sp.issparse(y_true) and threshold >= 0
        self.y_true = y_true
        if self.csr:
            self.indptr = y_true.indptr.astype(np.int64, copy=False)
            self.indices = y_true.indices.astype(np.int64, copy=False)
            data = y_true.data
            if data.dtype == np.bool_:
                data = data.view(np.uint8)
            elif data.dtype not in _RELEVANCE_DTYPES:
                data = data.astype(np.float64)
            self.data = data

    def n_relevant(self, rows):
        return n_relevant(self.y_true, rows, self.threshold)


def rank_block(source, y_score, rows, row_k, *, ignore_ties, want_ideal, exponential):
    """Rank the rows ``rows`` of ``y_score`` and read their relevance.

    ``row_k`` (one int per row, or one for all) is how many ranks each row
    needs; the outputs have ``max(row_k)`` columns.
    """
    # Row-sliceable scores (memmap, h5py, ...) are read, and checked for NaN,
    # one block at a time: a single pass, in bounded memory.
    check = check_y_score if is_row_sliceable(y_score) else None
    scores = _dense_block(y_score, rows, {np.dtype("f4"), np.dtype("f8")}, check)
    row_k = np.broadcast_to(np.asarray(row_k, dtype=np.int64), scores.shape[:1])
    row_k = np.ascontiguousarray(row_k)
    K = int(row_k.max())
    ties = not ignore_ties
    # Small blocks stay on one thread: starting a parallel region costs more
    # than ranking a few thousand scores (far more on a loaded machine).
    threads = max(1, min(n_threads(), scores.size // MIN_CELLS_PER_THREAD))
    args = (K, row_k, ties, source.threshold, want_ideal, exponential, threads)
    if source.csr:
        out = _kernel.rank_csr(
            scores, source.indptr, source.indices, source.data, rows.start, *args
        )
    else:
        y_block = _dense_block(source.y_true, rows, _RELEVANCE_DTYPES)
        out = _kernel.rank_dense(scores, y_block, *args)
    return Ranked(
        cols=out["cols"],
        valid=out["values"] > -np.inf,
        gstart=out["gstart"],
        gsize=out["gsize"],
        grade=out["grade"],
        n_relevant=out["n_relevant"],
        tied_relevant=out["tied_relevant"],
        tied_gain=out["tied_gain"],
        tied_gain_exp=out["tied_gain_exp"],
        ideal=out["ideal"],
        threshold=source.threshold,
        ties=ties,
        row_k=row_k,
    )
