"""Beyond-accuracy measures over rows that arrive in batches.

Item exposure, the lists certain to hold each item and ``sum log(1 - p)``
over the others are sums over rows (:mod:`sklearn_rankk._core.exposure`), and
so are the weighted sums of the per-row popularity measures: an accumulator
keeps a few vectors of length ``n_items`` whatever the number of rows, and
accumulators of parts of the rows merge into the accumulator of the whole.
"""

from __future__ import annotations

import numpy as np

from .._core import engine
from .._core.exposure import (
    EMPTY_LIST,
    ENTROPY_NORMALIZE,
    check_base,
    check_item_values,
    expected_coverage,
    exposure_entropy,
    gini_index,
    item_exposure,
    long_tail_mask,
    row_means,
)
from .._core.validation import (
    check_bool,
    check_k,
    check_option,
    check_real,
    check_zero_division,
)

_ROW_MEASURES = ("average_popularity", "novelty", "long_tail_share")


class ExposureAccumulator:
    """Beyond-accuracy measures accumulated over batches of rows, mergeable.

    :meth:`update` with each batch of scores, :meth:`merge` accumulators of
    other processes, and :meth:`result` gives what the one-shot functions
    (:func:`catalog_coverage_at_k`, :func:`gini_index_at_k`,
    :func:`entropy_at_k` and, with ``item_popularity``,
    :func:`average_popularity_at_k`, :func:`novelty_at_k`,
    :func:`long_tail_share_at_k`) give on all the rows, up to the rounding of
    sums taken in another order. The state is a few vectors of length
    ``n_items``.

    Parameters
    ----------
    k : int, default=10
        Length of each list.
    ignore_ties : bool, default=False
        If True, tied items are ranked as scikit-learn ranks them (the later
        column first); by default each measure is exact under ties, as the
        functions are.
    item_popularity : array-like of shape (n_items,), default=None
        Popularity of each item: with it, the result has the average
        popularity, the novelty and the long-tail share too.
    tail : float in (0, 1] or array-like of bool, default=0.1
        The long tail, as :func:`long_tail_share_at_k` takes it.
    total : float, default=None
        The denominator of novelty's ``p(i)``, as :func:`novelty_at_k` takes
        it.
    base : float, default=2.0
        Base of the entropy's logarithm.
    normalize : {None, "log_n_items", "n_exposed"}, default=None
        The entropy's normalisation, as :func:`entropy_at_k` takes it.
    n_catalog : int, default=None
        The denominator of the coverage (None: the number of items).
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value of a row whose list is empty (every score ``-inf``) in the
        per-row measures; ``"warn"`` warns once, in :meth:`result`.

    Attributes
    ----------
    exposure_ : ndarray of shape (n_items,)
        Expected weighted number of lists holding each item so far
        (:func:`item_exposure`); None before the first batch.
    n_samples_ : int
        Rows seen so far.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import ExposureAccumulator, gini_index_at_k
    >>> rng = np.random.default_rng(0)
    >>> y_score = rng.integers(0, 5, size=(1000, 40)).astype(float)
    >>> acc = ExposureAccumulator(k=5)
    >>> for start in range(0, 1000, 300):
    ...     _ = acc.update(y_score[start : start + 300])
    >>> result = acc.result()
    >>> sorted(result)
    ['catalog_coverage@5', 'entropy@5', 'gini_index@5']
    >>> bool(np.isclose(result["gini_index@5"], gini_index_at_k(y_score, k=5)))
    True
    """

    def __init__(
        self,
        k=10,
        *,
        ignore_ties=False,
        item_popularity=None,
        tail=0.1,
        total=None,
        base=2.0,
        normalize=None,
        n_catalog=None,
        zero_division="warn",
    ):
        self.k = check_k(k, allow_none=False, metric="ExposureAccumulator")
        self.ignore_ties = check_bool(ignore_ties, "ignore_ties")
        self.base = check_base(base)
        self.normalize = check_option(normalize, "normalize", ENTROPY_NORMALIZE)
        self.n_catalog = (
            None if n_catalog is None else check_real(n_catalog, "n_catalog", low=1.0)
        )
        self.zero_division = check_zero_division(zero_division)
        self._popularity = item_popularity
        self._tail = tail
        self._total = total
        self._values = None  # per-item value vectors, set by the first batch
        self.exposure_ = None
        self._certain = self._log_miss = None
        self._sums = np.zeros(len(_ROW_MEASURES))  # weighted sums, listed rows
        self._weight = 0.0  # their weight
        self._empty_weight = 0.0  # weight of rows with an empty list
        self._n_empty = 0
        self.n_samples_ = 0

    def __repr__(self):
        return f"ExposureAccumulator(k={self.k}, n_samples_={self.n_samples_})"

    def _value_vectors(self, n_items):
        if self._popularity is None:
            return ()
        pop = check_item_values(
            self._popularity, n_items, "item_popularity", positive=True
        )
        if self._total is None:
            total = float(np.sum(pop))
        else:
            total = check_real(self._total, "total", low=0.0, low_inclusive=False)
        mask = long_tail_mask(pop, self._tail)
        if mask.shape != (n_items,):
            raise ValueError(
                f"tail as a mask must have one entry per item, shape ({n_items},); "
                f"got shape {mask.shape}."
            )
        return (pop, -np.log2(pop / total), mask.astype(np.float64))

    def update(self, y_score, sample_weight=None):
        """Add a batch of rows.

        Parameters
        ----------
        y_score : array-like or sparse matrix of shape (n_samples, n_items)
            Scores of the batch's rows; higher ranks first.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each row.

        Returns
        -------
        self : ExposureAccumulator
            The accumulator, updated.
        """
        n_items = np.shape(y_score)[1] if np.ndim(y_score) == 2 else None
        if self._values is None and n_items is not None:
            self._values = self._value_vectors(n_items)
        found = item_exposure(
            y_score,
            k=self.k,
            sample_weight=sample_weight,
            ignore_ties=self.ignore_ties,
            values=self._values or (),
            caller="ExposureAccumulator",
        )
        self._add(found.exposure, found.certain, found.log_miss)
        w = found.sample_weight
        w = np.ones(found.length.shape[0]) if w is None else w
        if self._values:
            empty = found.length == 0
            for i in range(len(_ROW_MEASURES)):
                values, _ = row_means(found, i)
                self._sums[i] += float(np.sum(w[~empty] * values[~empty]))
            self._weight += float(np.sum(w[~empty]))
            self._empty_weight += float(np.sum(w[empty]))
            self._n_empty += int(np.count_nonzero(empty))
        self.n_samples_ += found.length.shape[0]
        return self

    def _add(self, exposure, certain, log_miss):
        if self.exposure_ is None:
            self.exposure_ = np.zeros_like(exposure)
            self._certain = np.zeros_like(certain)
            self._log_miss = np.zeros_like(log_miss)
        if exposure.shape != self.exposure_.shape:
            raise ValueError(
                f"y_score has {exposure.shape[0]} items (columns); earlier batches "
                f"had {self.exposure_.shape[0]}."
            )
        self.exposure_ += exposure
        self._certain += certain
        self._log_miss += log_miss

    def merge(self, other):
        """Add the rows of another accumulator with the same parameters.

        Parameters
        ----------
        other : ExposureAccumulator
            An accumulator of other rows (another process's, say).

        Returns
        -------
        self : ExposureAccumulator
            The accumulator, with the rows of both.
        """
        if not isinstance(other, ExposureAccumulator):
            raise TypeError(
                f"merge takes an ExposureAccumulator; got {type(other).__name__}."
            )
        mine = (self.k, self.ignore_ties, self.base, self.normalize, self.n_catalog)
        theirs = (other.k, other.ignore_ties, other.base, other.normalize)
        if mine[:4] != theirs or (self._popularity is None) != (
            other._popularity is None
        ):
            raise ValueError("merge needs accumulators with the same parameters.")
        if other.exposure_ is not None:
            self._add(other.exposure_, other._certain, other._log_miss)
        if self._values is None:
            self._values = other._values
        self._sums += other._sums
        self._weight += other._weight
        self._empty_weight += other._empty_weight
        self._n_empty += other._n_empty
        self.n_samples_ += other.n_samples_
        return self

    def result(self):
        """The measures of every row seen, by name (``"gini_index@10"``).

        Returns
        -------
        result : dict of str to float
            Coverage, Gini index and entropy, and with ``item_popularity``
            the average popularity, novelty and long-tail share.
        """
        if self.exposure_ is None:
            raise ValueError("no rows yet: call update first.")
        at = f"@{self.k}"
        out = {
            "catalog_coverage" + at: expected_coverage(
                self._certain, self._log_miss, self.n_catalog
            ),
            "gini_index" + at: gini_index(self.exposure_, "gini_index"),
            "entropy" + at: exposure_entropy(
                self.exposure_, self.base, self.normalize, "entropy"
            ),
        }
        if self._values:
            counts = {}
            if self._n_empty:
                for name in _ROW_MEASURES:
                    counts[name + at] = (EMPTY_LIST, self._n_empty)
            fill = engine.fill_undefined(self.zero_division, counts, self.n_samples_)
            for name, s in zip(_ROW_MEASURES, self._sums):
                if self._n_empty and not np.isnan(fill):
                    num = s + fill * self._empty_weight
                    den = self._weight + self._empty_weight
                else:
                    num, den = s, self._weight
                out[name + at] = num / den if den > 0 else float("nan")
        return out
