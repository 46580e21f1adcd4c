"""Beyond-accuracy measures of the top-k lists: coverage, concentration and
popularity of what is recommended, exact under ties.

They read ``y_score`` only (no relevance): which items reach the top ``k`` of
each row. Under ties the value is exact: a tied item straddling the cut-off
is in the list with probability "slots left over the tie group's size"
(every ordering of the tied items equally likely); ``ignore_ties=True`` ranks
tied items as scikit-learn does (the later column first). ``-inf`` scores sit
at no rank: a row's list holds ``min(k, finite scores)`` items.

Catalog coverage, the Gini index and the entropy describe all the lists
together (they are not means over rows); average popularity, novelty and the
long-tail share are per-row values and their ``sample_weight``-weighted mean.
"""

from __future__ import annotations

import numpy as np

from ._core import engine
from ._core.exposure import (
    EMPTY_LIST,
    ENTROPY_NORMALIZE,
    check_base,
    check_item_values,
    expected_coverage,
    exposure_entropy,
    gini_index,
    long_tail_mask,
    row_means,
)
from ._core.exposure import (
    item_exposure as _kernel_exposure,
)
from ._core.validation import check_option, check_real, check_zero_division

__all__ = [
    "item_exposure",
    "catalog_coverage_at_k",
    "gini_index_at_k",
    "entropy_at_k",
    "average_popularity_at_k",
    "novelty_at_k",
    "long_tail_share_at_k",
]


def _finish(values, empty, name, sample_weight, average, zero_division):
    """zero_division on rows with an empty list, then the mean or the rows."""
    average = check_option(average, "average", ("mean", None))
    zero_division = check_zero_division(zero_division)
    return engine.fill_and_average(
        values, empty, name, EMPTY_LIST, zero_division, average, sample_weight
    )


def item_exposure(y_score, *, k=10, sample_weight=None, ignore_ties=False):
    """Expected number of top-k lists holding each item (its exposure).

    Exact under ties: an item of the tie group that straddles the cut-off
    of a row counts ``slots / group size`` (the slots the group has left in
    the top ``k``), its probability to be in the list over every ordering of
    the tied items. The vector is a sum over rows, so the exposures of
    blocks of rows add up to the exposure of the whole.

    Parameters
    ----------
    y_score : array-like or sparse matrix of shape (n_samples, n_items)
        Scores; higher ranks first. ``-inf``: not recommended (at no rank).
        NaN is an error.
    k : int, default=10
        Length of each list.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each list in the counts.
    ignore_ties : bool, default=False
        If True, tied items are ranked as scikit-learn ranks them (the later
        column first): each item is in a list or not.

    Returns
    -------
    exposure : ndarray of shape (n_items,)
        ``sum_u w_u P(item in the top k of row u)``.

    See Also
    --------
    gini_index_at_k : Inequality of the exposure.
    entropy_at_k : Spread of the exposure.
    catalog_coverage_at_k : Share of the items in some list.
    ExposureAccumulator : The exposure over batches of rows.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import item_exposure
    >>> y_score = np.array([[3, 2, 2, 1], [1, 1, 1, 1]])
    >>> item_exposure(y_score, k=2)
    array([1.5, 1. , 1. , 0.5])
    """
    found = _kernel_exposure(
        y_score,
        k=k,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        caller="item_exposure",
    )
    return found.exposure


def catalog_coverage_at_k(
    y_score, *, k=10, sample_weight=None, ignore_ties=False, n_catalog=None
):
    """Fraction of the catalog recommended to at least one sample.

    ``#{items in some top-k list} / n_catalog`` (RecBole's ``ItemCoverage``:
    ``n_catalog`` = the number of items; Microsoft recommenders'
    ``catalog_coverage``: the items seen in training). Under ties the value
    is the exact expectation: an item reaches some list with probability
    ``1 - prod_u (1 - p_u)``, ``p_u`` its probability to be in row ``u``'s
    list, tie orders independent from row to row.

    Parameters
    ----------
    y_score : array-like or sparse matrix of shape (n_samples, n_items)
        Scores; higher ranks first. ``-inf``: not recommended.
    k : int, default=10
        Length of each list.
    sample_weight : array-like of shape (n_samples,), default=None
        Only whether a weight is 0 matters: such rows are left out.
    ignore_ties : bool, default=False
        If True, tied items are ranked as scikit-learn ranks them (the later
        column first).
    n_catalog : int, default=None
        The denominator; None: ``n_items``.

    Returns
    -------
    coverage : float
        Expected fraction of the catalog in at least one list.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import catalog_coverage_at_k
    >>> y_score = np.array([[3, 2, 1, 0], [3, 1, 2, 0]])
    >>> catalog_coverage_at_k(y_score, k=2)
    0.75
    """
    if n_catalog is not None:
        n_catalog = check_real(n_catalog, "n_catalog", low=1.0)
    found = _kernel_exposure(
        y_score,
        k=k,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        caller="catalog_coverage_at_k",
    )
    return expected_coverage(found.certain, found.log_miss, n_catalog)


def gini_index_at_k(y_score, *, k=10, sample_weight=None, ignore_ties=False):
    """Gini index of item exposure in the top-k lists (0: even, 1: one item).

    With ``x_(1) <= ... <= x_(n)`` the exposures of all ``n`` items (those
    never recommended at 0)::

        G = sum_i (2 i - n - 1) x_(i) / (n sum_i x_i)

    RecBole's ``GiniIndex`` (and the Gini coefficient of Elliot and LensKit's
    exposure measures). Under ties it is the Gini index of the expected
    exposure vector (:func:`item_exposure`, exact), not the expectation of
    the Gini index over tie orders (which is not linear in the exposures).

    Parameters
    ----------
    y_score : array-like or sparse matrix of shape (n_samples, n_items)
        Scores; higher ranks first. ``-inf``: not recommended.
    k : int, default=10
        Length of each list.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each list in the exposure counts.
    ignore_ties : bool, default=False
        If True, tied items are ranked as scikit-learn ranks them (the later
        column first).

    Returns
    -------
    gini : float
        Gini index of the expected exposure vector, in [0, 1).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import gini_index_at_k
    >>> y_score = np.array([[3, 2, 1, 0], [3, 1, 2, 0]])
    >>> gini_index_at_k(y_score, k=2)
    0.375
    """
    found = _kernel_exposure(
        y_score,
        k=k,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        caller="gini_index_at_k",
    )
    return gini_index(found.exposure)


def entropy_at_k(
    y_score,
    *,
    k=10,
    sample_weight=None,
    ignore_ties=False,
    base=2.0,
    normalize=None,
):
    """Shannon entropy of item exposure in the top-k lists.

    With ``p_i = x_i / sum_j x_j`` the share of item ``i`` in all the
    recommendations (``x``: :func:`item_exposure`)::

        H = -sum_i p_i log_base(p_i)

    ``base=2, normalize=None`` is Microsoft recommenders'
    ``distributional_coverage``; ``normalize="log_n_items"`` divides by
    ``log_base(n_items)``, the entropy of even exposure (so 1 is even, 0
    one item); ``normalize="n_exposed"`` with ``base=np.e`` is RecBole's
    ``ShannonEntropy``, which divides by the number of items recommended.
    Under ties: the entropy of the expected exposure vector (exact), not
    the expectation of the entropy over tie orders.

    Parameters
    ----------
    y_score : array-like or sparse matrix of shape (n_samples, n_items)
        Scores; higher ranks first. ``-inf``: not recommended.
    k : int, default=10
        Length of each list.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each list in the exposure counts.
    ignore_ties : bool, default=False
        If True, tied items are ranked as scikit-learn ranks them (the later
        column first).
    base : float, default=2.0
        Base of the logarithm (> 1).
    normalize : {None, "log_n_items", "n_exposed"}, default=None
        What the entropy is divided by (see above).

    Returns
    -------
    entropy : float
        Entropy of the expected exposure shares (normalised if asked).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import entropy_at_k
    >>> y_score = np.array([[3, 2, 1, 0], [3, 1, 2, 0]])
    >>> entropy_at_k(y_score, k=2)
    1.5
    """
    base = check_base(base)
    normalize = check_option(normalize, "normalize", ENTROPY_NORMALIZE)
    found = _kernel_exposure(
        y_score,
        k=k,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        caller="entropy_at_k",
    )
    return exposure_entropy(found.exposure, base, normalize)


def _popularity_rows(y_score, values, k, sample_weight, ignore_ties, caller):
    found = _kernel_exposure(
        y_score,
        k=k,
        sample_weight=sample_weight,
        ignore_ties=ignore_ties,
        values=(values,),
        caller=caller,
    )
    values, empty = row_means(found, 0)
    return values, empty, found.sample_weight


def _check_n_items(y_score):
    shape = getattr(y_score, "shape", None)
    if shape is None or len(shape) != 2:
        from ._core.validation import check_y_score

        shape = check_y_score(y_score).shape
    return shape[1]


def average_popularity_at_k(
    y_score,
    item_popularity,
    *,
    k=10,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
):
    """Average popularity of the recommended items (ARP), per sample.

    For each sample, the mean of ``item_popularity`` over its top-k list
    (RecBole's ``AveragePopularity``: the popularity is the number of
    training interactions of the item; Abdollahpouri et al. 2019's ARP).
    The list holds ``min(k, finite scores)`` items. Exact under ties (the
    expected mean, by linearity: each tied item straddling the cut-off
    counts with its probability to be in the list).

    Parameters
    ----------
    y_score : array-like or sparse matrix of shape (n_samples, n_items)
        Scores; higher ranks first. ``-inf``: not recommended.
    item_popularity : array-like of shape (n_items,)
        Popularity of each item (column), non-negative.
    k : int, default=10
        Length of each list.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample (row) in the mean.
    average : {"mean"} or None, default="mean"
        The weighted mean over samples (a float), or None: every sample's
        value.
    ignore_ties : bool, default=False
        If True, tied items are ranked as scikit-learn ranks them (the later
        column first).
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value of a sample whose list is empty (every score ``-inf``);
        ``"warn"``: 0.0 with an ``UndefinedMetricWarning``; ``np.nan``:
        left out of the mean.

    Returns
    -------
    popularity : float or ndarray of shape (n_samples,)
        The weighted mean over samples, or each sample's value.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import average_popularity_at_k
    >>> y_score = np.array([[3, 2, 1, 0], [0, 1, 1, 3]])
    >>> average_popularity_at_k(y_score, [10, 5, 2, 1], k=2, average=None)
    array([7.5 , 2.25])
    """
    pop = check_item_values(item_popularity, _check_n_items(y_score), "item_popularity")
    values, empty, w = _popularity_rows(
        y_score, pop, k, sample_weight, ignore_ties, "average_popularity_at_k"
    )
    return _finish(values, empty, "average_popularity_at_k", w, average, zero_division)


def novelty_at_k(
    y_score,
    item_popularity,
    *,
    k=10,
    total=None,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
):
    """Novelty of the recommended items: mean self-information, per sample.

    For each sample, the mean over its top-k list of
    ``-log2(item_popularity[i] / total)`` (Zhou et al. 2010; Castells, Vargas
    and Wang, ECIR 2011). With ``total=None``, the sum of
    ``item_popularity``: with interaction counts, ``p(i)`` is the item's
    share of the interactions, Microsoft recommenders' ``novelty``
    (``historical_item_novelty``), which averages over all recommendations
    (the same as this mean when every list has ``k`` items). With ``total``
    the number of users and ``item_popularity`` the users who know each
    item: the "discovery" model. Exact under ties, by linearity.

    Parameters
    ----------
    y_score : array-like or sparse matrix of shape (n_samples, n_items)
        Scores; higher ranks first. ``-inf``: not recommended.
    item_popularity : array-like of shape (n_items,)
        Popularity of each item (column), positive (an item never seen has
        infinite self-information: leave it out, or score it ``-inf``).
    k : int, default=10
        Length of each list.
    total : float, default=None
        The denominator of ``p(i)``; None: ``sum(item_popularity)``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample (row) in the mean.
    average : {"mean"} or None, default="mean"
        The weighted mean over samples (a float), or None: every sample's
        value.
    ignore_ties : bool, default=False
        If True, tied items are ranked as scikit-learn ranks them (the later
        column first).
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value of a sample whose list is empty (every score ``-inf``);
        ``"warn"``: 0.0 with an ``UndefinedMetricWarning``; ``np.nan``:
        left out of the mean.

    Returns
    -------
    novelty : float or ndarray of shape (n_samples,)
        The weighted mean over samples, or each sample's value.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import novelty_at_k
    >>> y_score = np.array([[3, 2, 1, 0]])
    >>> novelty_at_k(y_score, [8, 4, 2, 2], k=2)
    1.5
    """
    pop = check_item_values(
        item_popularity, _check_n_items(y_score), "item_popularity", positive=True
    )
    if total is None:
        total = float(np.sum(pop))
    else:
        total = check_real(total, "total", low=0.0, low_inclusive=False)
    info = -np.log2(pop / total)
    values, empty, w = _popularity_rows(
        y_score, info, k, sample_weight, ignore_ties, "novelty_at_k"
    )
    return _finish(values, empty, "novelty_at_k", w, average, zero_division)


def long_tail_share_at_k(
    y_score,
    item_popularity=None,
    *,
    k=10,
    tail=0.1,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
):
    """Share of long-tail items in the recommendations, per sample.

    For each sample, the fraction of its top-k list that is in the long tail
    (RecBole's ``TailPercentage``; Abdollahpouri et al.'s APLT with the tail
    given as a mask). Exact under ties, by linearity.

    Parameters
    ----------
    y_score : array-like or sparse matrix of shape (n_samples, n_items)
        Scores; higher ranks first. ``-inf``: not recommended.
    item_popularity : array-like of shape (n_items,), default=None
        Popularity of each item; needed when ``tail`` is a fraction.
    k : int, default=10
        Length of each list.
    tail : float in (0, 1] or array-like of bool of shape (n_items,), \
default=0.1
        The long tail: the ``max(1, int(n_items * tail))`` least popular
        items (RecBole's ``tail_ratio``; among equal popularity the lower
        column first), or a boolean mask of the tail items.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample (row) in the mean.
    average : {"mean"} or None, default="mean"
        The weighted mean over samples (a float), or None: every sample's
        value.
    ignore_ties : bool, default=False
        If True, tied items are ranked as scikit-learn ranks them (the later
        column first).
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value of a sample whose list is empty (every score ``-inf``);
        ``"warn"``: 0.0 with an ``UndefinedMetricWarning``; ``np.nan``:
        left out of the mean.

    Returns
    -------
    share : float or ndarray of shape (n_samples,)
        The weighted mean over samples, or each sample's value.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import long_tail_share_at_k
    >>> y_score = np.array([[3, 2, 1, 0], [0, 1, 3, 2]])
    >>> long_tail_share_at_k(y_score, [9, 5, 1, 2], k=2, tail=0.5, average=None)
    array([0., 1.])
    """
    n_items = _check_n_items(y_score)
    pop = None
    if item_popularity is not None:
        pop = check_item_values(item_popularity, n_items, "item_popularity")
    mask = long_tail_mask(pop, tail)
    if mask.shape != (n_items,):
        raise ValueError(
            f"tail as a mask must have one entry per item, shape ({n_items},); "
            f"got shape {mask.shape}."
        )
    values, empty, w = _popularity_rows(
        y_score,
        mask.astype(np.float64),
        k,
        sample_weight,
        ignore_ties,
        "long_tail_share_at_k",
    )
    return _finish(values, empty, "long_tail_share_at_k", w, average, zero_division)
