"""The top-k kernel: the one place where rows are selected, ordered and tied.

For a block of rows of scores, :func:`top_k` returns the ``K`` best items of
every row in rank order (score descending, ties by ascending column index)
together with the tie structure that the exact tie-aware metrics need: for
every position, where its tie group starts and how many items of the *whole
row* share its score. Every group but the last lies wholly inside the top
``K``; the last one may straddle the cut-off, and its size counts the tied
items outside the cut too.

With ``ignore_ties=True`` every position is its own group (size 1), so the
metrics compute the value of the column-order ranking with the same formulas.

Rows are processed in blocks (:func:`iter_blocks`) so that the temporary
memory stays bounded whatever the number of rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

#: Number of matrix cells (rows x columns) processed at once: a block holds
#: ``max(1, BLOCK_CELLS // n_columns)`` rows, so each full-width temporary is
#: about this many elements (8 MiB as float64). A row wider than this is a
#: block of its own; its temporaries are then a few arrays of the row's width
#: and about ten arrays of ``k`` entries.
BLOCK_CELLS = 1 << 20


def iter_blocks(n_rows, n_cols, block_cells=BLOCK_CELLS):
    """Yield ``slice`` objects of rows such that each block has ~block_cells."""
    step = max(1, block_cells // max(n_cols, 1))
    for start in range(0, n_rows, step):
        yield slice(start, min(start + step, n_rows))


def dense_rows(x, rows):
    """Rows ``rows`` of a dense array or CSR matrix as a dense 2-D array."""
    if sp.issparse(x):
        return x[rows].toarray()
    return np.asarray(x[rows])


@dataclass
class TopK:
    """The top ``K`` items of each row of a block, in rank order.

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
    last_tied : ndarray of shape (n_rows, n_cols), bool, or None
        Items of the row tied with the K-th item (the group that may straddle
        the cut-off). None when ties are ignored.
    """

    cols: np.ndarray
    valid: np.ndarray
    gstart: np.ndarray
    gsize: np.ndarray
    last_tied: np.ndarray | None

    @property
    def k(self):
        return self.cols.shape[1]

    def group_sum(self, values):
        """Sum of ``values`` (n_rows, n_cols) over the tie group of each rank.

        Groups are summed over the whole row, so the last group includes its
        items beyond the cut-off.
        """
        at = np.take_along_axis(values, self.cols, axis=1)
        if self.last_tied is None:
            return at
        csum = np.cumsum(at, axis=1, dtype=np.float64)
        # End (exclusive) of each group inside the top K.
        gend_in = np.minimum(self.gstart + self.gsize, at.shape[1])
        upto = np.take_along_axis(csum, gend_in - 1, axis=1)
        before = np.where(
            self.gstart > 0,
            np.take_along_axis(csum, np.maximum(self.gstart - 1, 0), axis=1),
            0.0,
        )
        sums = upto - before
        last = self.gstart == self.gstart[:, -1:]
        last_sum = np.sum(values, axis=1, where=self.last_tied, dtype=np.float64)
        return np.where(last, last_sum[:, None], sums)

    def expected(self, values):
        """Expected ``values`` at each rank over all orderings of tied items.

        Zero at ranks whose item is not retrieved (score ``-inf``).
        """
        out = self.group_sum(values) / self.gsize
        return np.where(self.valid, out, 0.0)


def top_values(values, K):
    """The ``K`` largest values of every row, in decreasing order.

    For rankings by the values themselves (the ideal ranking of nDCG), where
    the order among equal values does not matter.
    """
    n_cols = values.shape[1]
    top = np.partition(values, n_cols - K, axis=1)[:, n_cols - K :]
    return -np.sort(-top, axis=1)


def top_k(scores, K, *, ignore_ties):
    """Select and order the top ``K`` items of every row of ``scores``.

    Parameters
    ----------
    scores : ndarray of shape (n_rows, n_cols)
        Dense block of scores, any real dtype; no NaN.
    K : int
        Number of ranks to produce, ``1 <= K <= n_cols``.
    ignore_ties : bool
        If True, tied items are ranked by column order and every rank is its
        own group.

    Returns
    -------
    TopK
    """
    n, n_cols = scores.shape
    if n_cols > K:
        # K-th largest value of every row: selection, not a sort.
        kth = np.partition(scores, n_cols - K, axis=1)[:, n_cols - K]
    else:
        kth = np.min(scores, axis=1)
    kth_col = kth[:, None]
    above = scores > kth_col
    tied = scores == kth_col
    n_above = np.count_nonzero(above, axis=1)
    n_tied = np.count_nonzero(tied, axis=1)
    room = K - n_above  # ranks left for the tied items, >= 1
    selected = above | tied
    short = n_tied > room
    if np.any(short):
        # Keep the `room` tied items of lowest column index (column order).
        rows = np.flatnonzero(short)
        rank_in_tie = np.cumsum(tied[rows], axis=1, dtype=np.int32)
        selected[rows] = above[rows] | (tied[rows] & (rank_in_tie <= room[rows, None]))
    cols = np.nonzero(selected)[1].reshape(n, K)  # ascending column order
    sel_scores = np.take_along_axis(scores, cols, axis=1)
    # Stable descending sort that keeps ascending column order among ties.
    order = K - 1 - np.argsort(sel_scores[:, ::-1], axis=1, kind="stable")[:, ::-1]
    cols = np.take_along_axis(cols, order, axis=1)
    sel_scores = np.take_along_axis(sel_scores, order, axis=1)
    if sel_scores.dtype.kind == "f":
        valid = sel_scores > -np.inf
    else:
        valid = np.ones(sel_scores.shape, dtype=bool)

    pos = np.broadcast_to(np.arange(K), (n, K))
    if ignore_ties:
        return TopK(
            cols=cols,
            valid=valid,
            gstart=np.array(pos),
            gsize=np.ones((n, K), dtype=np.int64),
            last_tied=None,
        )
    new_group = np.ones((n, K), dtype=bool)
    new_group[:, 1:] = sel_scores[:, 1:] != sel_scores[:, :-1]
    gstart = np.maximum.accumulate(np.where(new_group, pos, 0), axis=1)
    # Group end inside the top K: next group's start, computed from the right.
    is_end = np.ones((n, K), dtype=bool)
    is_end[:, :-1] = new_group[:, 1:]
    gend = np.minimum.accumulate(np.where(is_end, pos + 1, K)[:, ::-1], axis=1)[:, ::-1]
    gsize = gend - gstart
    last = gstart == gstart[:, -1:]
    gsize = np.where(last, n_tied[:, None], gsize)
    return TopK(cols=cols, valid=valid, gstart=gstart, gsize=gsize, last_tied=tied)
