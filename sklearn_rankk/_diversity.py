"""Intent-aware measures: relevance per intent (subtopic), ``y_true`` of shape
(n_samples, n_items, n_intents).

Every measure reads all the intents in one pass of the kernel: each row's
scores are ranked once (the top k and the tie group straddling the cut are
the same for every intent, only the grades differ) and each intent's value
is the one-intent formula's on that selection (the kernel's INTENT_*
formulas). Intent-aware precision (P-IA@k, Agrawal et al., WSDM 2009) and
subtopic recall (S-recall@k, Zhai, Cohen and Lafferty, SIGIR 2003) are
exact under ties: P-IA is a weighted sum of each intent's precision@k
(linear in the relevance), and an intent is covered by the top k exactly
when hit@k is 1 for it, so the expected S-recall is the mean of each
intent's hit@k (the exact, hypergeometric, probability that a tie group's
slots catch one of its relevant items).
"""

from __future__ import annotations

import numpy as np

from ._core import _kernel, engine
from ._core.registry import METRICS
from ._core.validation import (
    as_array,
    check_k,
    check_option,
    check_real,
    check_sample_weight,
    check_y_score,
    check_zero_division,
)

__all__ = [
    "intent_aware_precision_at_k",
    "subtopic_recall_at_k",
    "alpha_ndcg_at_k",
    "err_ia_at_k",
    "nerr_ia_at_k",
]


def _metric(formula):
    return next(m for m in METRICS.values() if m.formula == formula)


#: Parameter entries the docstrings share (``[[name]]`` in them, see _doc).
_PARAMETER_DOCS = {
    "intent_weights": """\
    intent_weights : array-like of shape (n_intents,) or (n_samples, \
n_intents), default=None
        Weight (probability) of each intent; None: uniform.
""",
    "alpha_err": """\
    alpha : float, default=0.5
        Probability in [0, 1] that a relevant item satisfies the user of its
        intent (ndeval's alpha, default 0.5).
""",
    "tail": """\
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample in the mean.
    average : {"mean"} or None, default="mean"
        The weighted mean over samples, or None: every sample's value.
    ignore_ties : bool, default=False
        If True, tied items are ranked as scikit-learn ranks them (the later
        column first).
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value of a sample with no intent that has a relevant item (ndeval:
        0.0 for a judged topic, and no value for a topic without judgments).
    relevance_threshold : float, default=0
        An item is relevant to an intent when its grade exceeds this.
""",
}


def _doc(func):
    """``func`` with the ``[[name]]`` lines of its docstring filled in."""
    for name, text in _PARAMETER_DOCS.items():
        func.__doc__ = func.__doc__.replace(f"    [[{name}]]\n", text)
    return func


class _NoIntent:
    """What :func:`engine.fill_undefined` reads for rows with no intent that
    has a relevant item."""

    empty_rows = "zero_division"
    undefined_when = "no intent with a relevant item"


def _check_intents(y_true, y_score, intent_weights):
    y_score = check_y_score(y_score)
    y_true = as_array(y_true, "y_true")
    if getattr(y_true, "ndim", 0) != 3:
        raise ValueError(
            f"y_true must be 3-D of shape (n_samples, n_items, n_intents): the "
            f"relevance of every item to every intent; got shape "
            f"{getattr(y_true, 'shape', None)}."
        )
    if y_true.shape[:2] != y_score.shape:
        raise ValueError(
            f"y_true's first two dimensions {y_true.shape[:2]} must be y_score's "
            f"shape {y_score.shape}."
        )
    if y_true.shape[2] == 0:
        raise ValueError("y_true has no intent (its last dimension is 0).")
    n, _, n_intents = y_true.shape
    if intent_weights is None:
        w = np.ones((n, n_intents))
    else:
        w = np.asarray(as_array(intent_weights, "intent_weights"), dtype=np.float64)
        if w.shape == (n_intents,):
            w = np.broadcast_to(w, (n, n_intents))
        if w.shape != (n, n_intents):
            raise ValueError(
                f"intent_weights must have shape (n_intents,) = ({n_intents},) or "
                f"(n_samples, n_intents) = ({n}, {n_intents}); got {w.shape}."
            )
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("intent_weights must be finite and non-negative.")
    return y_true, y_score, w


def _per_intent(formula, y_true, y_score, k, ignore_ties, threshold, **options):
    """Each intent's per-row values of one intent-aware kernel request, whether
    the row has a relevant item for it, and the greedy ideal (INTENT_ALPHA)."""
    return engine.intent_values(
        formula,
        y_true,
        y_score,
        k,
        ignore_ties=ignore_ties,
        relevance_threshold=threshold,
        **options,
    )


def _k_of(formula, k, n_items):
    """``k`` checked as the one-intent measure checks it; None: every item."""
    k = engine.make_request(_metric(formula), k).k
    return n_items if k is None else k


def _finish(values, undefined, name, sample_weight, average, zero_division):
    weights = check_sample_weight(sample_weight, values.shape[0])
    return engine.fill_and_average(
        values, undefined, name, _NoIntent(), zero_division, average, weights
    )


@_doc
def intent_aware_precision_at_k(
    y_true,
    y_score,
    *,
    k=10,
    intent_weights=None,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
):
    """Intent-aware precision at k (P-IA@k).

    ``sum_t w_t P@k(t)`` over the intents ``t`` of each sample that have a
    relevant item, with ``w`` the intent weights normalised to sum to 1 over
    those intents (uniform by default, as ndeval's P-IA), and ``P@k(t)``
    precision@k against the relevance to intent ``t`` (Agrawal et al., WSDM
    2009). Exact under ties: the expectation over the orderings of tied
    items, since precision is linear in the relevance.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_items, n_intents)
        Relevance of every item to every intent.
    y_score : array-like of shape (n_samples, n_items)
        Scores; higher ranks first. ``-inf``: not retrieved.
    k : int, default=10
        Cut-off rank.
    [[intent_weights]]
    [[tail]]

    Returns
    -------
    precision : float or ndarray of shape (n_samples,)
        The weighted mean over samples, or each sample's value.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import intent_aware_precision_at_k
    >>> y_true = np.zeros((1, 4, 2))
    >>> y_true[0, [0, 1], 0] = 1  # items 0 and 1 serve intent 0
    >>> y_true[0, [3], 1] = 1  # item 3 serves intent 1
    >>> y_score = np.array([[4, 3, 2, 1]])
    >>> intent_aware_precision_at_k(y_true, y_score, k=2)  # (2/2 + 0/2) / 2
    0.5
    """
    average = check_option(average, "average", ("mean", None))
    zero_division = check_zero_division(zero_division)
    threshold = check_real(relevance_threshold, "relevance_threshold")
    y_true, y_score, w = _check_intents(y_true, y_score, intent_weights)
    k = _k_of(_kernel.PRECISION, k, y_true.shape[1])
    p, present, _ = _per_intent(
        _kernel.INTENT_PRECISION, y_true, y_score, k, ignore_ties, threshold
    )
    w = np.where(present, w, 0.0)
    total = w.sum(axis=1)
    undefined = total == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        values = (w * p).sum(axis=1) / total
    return _finish(
        values,
        undefined,
        "intent_aware_precision_at_k",
        sample_weight,
        average,
        zero_division,
    )


@_doc
def subtopic_recall_at_k(
    y_true,
    y_score,
    *,
    k=10,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
):
    """Subtopic recall at k (S-recall@k): the share of intents covered.

    The number of intents of each sample with a relevant item in the top
    ``k``, over the number of its intents that have a relevant item (Zhai,
    Cohen and Lafferty, SIGIR 2003; ndeval's ``strec``). Exact under ties:
    the expected share, each intent covered with the probability that the
    top ``k`` holds one of its relevant items (hit@k, hypergeometric in the
    tie group straddling the cut-off).

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_items, n_intents)
        Relevance of every item to every intent.
    y_score : array-like of shape (n_samples, n_items)
        Scores; higher ranks first. ``-inf``: not retrieved.
    k : int, default=10
        Cut-off rank.
    [[tail]]

    Returns
    -------
    recall : float or ndarray of shape (n_samples,)
        The weighted mean over samples, or each sample's value.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import subtopic_recall_at_k
    >>> y_true = np.zeros((1, 4, 3))
    >>> y_true[0, 0, 0] = y_true[0, 1, 0] = y_true[0, 3, 1] = 1  # intent 2: none
    >>> y_score = np.array([[4, 3, 3, 1]])
    >>> subtopic_recall_at_k(y_true, y_score, k=2)  # intent 0 of 2
    0.5
    """
    average = check_option(average, "average", ("mean", None))
    zero_division = check_zero_division(zero_division)
    threshold = check_real(relevance_threshold, "relevance_threshold")
    y_true, y_score, _ = _check_intents(y_true, y_score, None)
    k = _k_of(_kernel.HIT, k, y_true.shape[1])
    hit, present, _ = _per_intent(
        _kernel.INTENT_HIT, y_true, y_score, k, ignore_ties, threshold
    )
    n_present = present.sum(axis=1)
    undefined = n_present == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(present, hit, 0.0).sum(axis=1) / n_present
    return _finish(
        values, undefined, "subtopic_recall_at_k", sample_weight, average, zero_division
    )


# -- alpha-nDCG and ERR-IA ----------------------------------------------------
#
# One intent's share of both, sum_j (1 - alpha)^(j - 1) disc(r_j) over the
# ranks r_j of the intent's relevant items in rank order, is the kernel's
# ALPHA_GAIN, exact under ties (ERR's walk over a tie group's subsets, each
# relevant item with gain 1 and survival 1 - alpha); the measures weigh and
# normalise these shares. The ideal ranking of alpha-nDCG and nERR-IA does
# not depend on the scores: ndeval's greedy ordering, which the kernel's
# INTENT_ALPHA computes in the same pass (formulas_diversity.hpp's
# greedy_ideal): each rank takes the item of largest gain ``sum_t w_t (1 -
# alpha)^c_t`` over its intents ``t`` (``c_t``: the items of intent ``t``
# already ranked; ndeval's ``idealResult``; finding the best ranking is
# NP-hard); items of equal gain go in the order of their relevance vectors,
# the lexicographically largest first (intent 0 the most significant), so
# that the ideal does not depend on the order of the columns (ndeval takes
# the largest docno instead).


def _check_alpha(alpha):
    return check_real(alpha, "alpha", low=0.0, high=1.0, high_inclusive=True)


def _alpha_gains(
    y_true, y_score, k, alpha, discount, ignore_ties, threshold, w=None, ideal=True
):
    """Each intent's share (n_samples, n_intents), whether the sample has a
    relevant item for the intent, and the greedy ideal's value with the
    intent weights ``w`` (normalised over the sample's intents with a
    relevant item; None: 1 each)."""
    return _per_intent(
        _kernel.INTENT_ALPHA,
        y_true,
        y_score,
        k,
        ignore_ties,
        threshold,
        p=alpha,
        discount=discount,
        weights=w,
        ideal=ideal,
    )


def _finish_alpha(num, den, undefined, name, sample_weight, average, zero_division):
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(undefined, 0.0, num / np.where(undefined, 1.0, den))
    return _finish(values, undefined, name, sample_weight, average, zero_division)


@_doc
def alpha_ndcg_at_k(
    y_true,
    y_score,
    *,
    k=10,
    alpha=0.5,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
):
    """Alpha-nDCG at k: novelty- and diversity-aware nDCG.

    ``alpha-DCG@k = sum over ranks r <= k of G_r / log2(1 + r)``, with
    ``G_r = sum_t (1 - alpha)^c_t`` over the intents ``t`` the item at rank
    ``r`` is relevant to, ``c_t`` the items of intent ``t`` ranked above it
    (Clarke et al., SIGIR 2008): each further item of an intent gains less.
    Normalised by the alpha-DCG@k of ndeval's greedy ideal ranking (each rank
    takes the item of largest ``G``; equal gains: the item whose relevance
    vector is lexicographically largest first, where ndeval takes the largest
    docno), as ndeval's ``alpha-nDCG@k`` (TREC Web track). Grades are
    binary: relevant when above ``relevance_threshold``. Intents with no
    relevant item add nothing. Exact under ties: per intent, ``alpha-DCG``
    is ``sum_j (1 - alpha)^(j - 1) / log2(1 + r_j)`` over the ranks ``r_j``
    of its relevant items, whose expectation over the orderings of a tie
    group the kernel computes over its subsets (ERR's recurrence).

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_items, n_intents)
        Relevance of every item to every intent.
    y_score : array-like of shape (n_samples, n_items)
        Scores; higher ranks first. ``-inf``: not retrieved (still in the
        ideal ranking).
    k : int, default=10
        Cut-off rank (of the ranking and of the ideal).
    alpha : float, default=0.5
        Redundancy penalty in [0, 1] (ndeval's default 0.5); 0: the DCG of
        the sum of the intents' binary relevance.
    [[tail]]

    Returns
    -------
    ndcg : float or ndarray of shape (n_samples,)
        The weighted mean over samples, or each sample's value.

    See Also
    --------
    err_ia_at_k, nerr_ia_at_k : The intent-aware ERR.

    Examples
    --------
    Items 0 and 1 serve intent 0, item 2 intent 1. Ranked 0, 1, 2:
    ``1 + 0.5 / log2(3) + 1 / log2(4)``; the ideal ranks 0, 2, 1:
    ``1 + 1 / log2(3) + 0.5 / log2(4)``.

    >>> import numpy as np
    >>> from sklearn_rankk import alpha_ndcg_at_k
    >>> y_true = np.zeros((1, 3, 2))
    >>> y_true[0, [0, 1], 0] = 1
    >>> y_true[0, 2, 1] = 1
    >>> y_score = np.array([[3, 2, 1]])
    >>> round(alpha_ndcg_at_k(y_true, y_score, k=3), 6)
    0.965195
    """
    average = check_option(average, "average", ("mean", None))
    zero_division = check_zero_division(zero_division)
    threshold = check_real(relevance_threshold, "relevance_threshold")
    alpha = _check_alpha(alpha)
    k = check_k(k, allow_none=False, metric="alpha_ndcg_at_k")
    y_true, y_score, _ = _check_intents(y_true, y_score, None)
    gains, present, ideal = _alpha_gains(
        y_true, y_score, k, alpha, "log", ignore_ties, threshold
    )
    return _finish_alpha(
        gains.sum(axis=1),
        ideal,
        ~present.any(axis=1),
        "alpha_ndcg_at_k",
        sample_weight,
        average,
        zero_division,
    )


def _err_ia(
    y_true, y_score, k, alpha, intent_weights, ignore_ties, threshold, name, ideal
):
    """Per sample: the weighted sum of the intents' ERR shares (the intent
    weights normalised over the intents with a relevant item), the samples
    with no such intent, and the same weighted sum of the greedy ideal."""
    threshold = check_real(threshold, "relevance_threshold")
    alpha = _check_alpha(alpha)
    k = check_k(k, allow_none=False, metric=name)
    y_true, y_score, w = _check_intents(y_true, y_score, intent_weights)
    gains, present, ideal = _alpha_gains(
        y_true, y_score, k, alpha, "reciprocal", ignore_ties, threshold, w, ideal
    )
    w = np.where(present, w, 0.0)
    total = w.sum(axis=1)
    undefined = total == 0
    w = w / np.where(undefined, 1.0, total)[:, None]
    return (w * gains).sum(axis=1), undefined, ideal, k, alpha


@_doc
def err_ia_at_k(
    y_true,
    y_score,
    *,
    k=10,
    alpha=0.5,
    intent_weights=None,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
):
    """Intent-aware expected reciprocal rank at k (ERR-IA@k), as ndeval.

    ``sum_t w_t ERR_t@k / ERR*@k``: ``ERR_t@k = sum_j (1 - alpha)^(j - 1) /
    r_j`` over the ranks ``r_j <= k`` of intent ``t``'s relevant items in
    rank order, i.e. Chapelle et al.'s ERR (CIKM 2009) of binary relevance
    with stopping probability ``alpha`` (``R = 1/2`` for grade 1 on a 0-1
    scale at the default 0.5), divided by ``alpha``; ``ERR*@k = sum over
    ranks r <= k of (1 - alpha)^(r - 1) / r``, the same of a list relevant
    at every rank (ndeval's "collection-independent" normalisation); ``w``,
    the intent weights normalised over the intents with a relevant item
    (uniform by default, as ndeval). Grades are binary: relevant when above
    ``relevance_threshold``. Exact under ties, as :func:`alpha_ndcg_at_k`.
    ndeval itself leaves its value at k = 1 undivided (``sum_t ERR_t@1``,
    not the mean).

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_items, n_intents)
        Relevance of every item to every intent.
    y_score : array-like of shape (n_samples, n_items)
        Scores; higher ranks first. ``-inf``: not retrieved.
    k : int, default=10
        Cut-off rank.
    [[alpha_err]]
    [[intent_weights]]
    [[tail]]

    Returns
    -------
    err : float or ndarray of shape (n_samples,)
        The weighted mean over samples, or each sample's value.

    See Also
    --------
    nerr_ia_at_k : Normalised by the greedy ideal ranking instead.

    Examples
    --------
    Items 0 and 1 serve intent 0, item 2 intent 1. Ranked 0, 1, 2: intent
    0 has ``1 + 0.5 / 2``, intent 1 ``1 / 3``; their mean over ``ERR*@3 = 1
    + 0.5 / 2 + 0.25 / 3``.

    >>> import numpy as np
    >>> from sklearn_rankk import err_ia_at_k
    >>> y_true = np.zeros((1, 3, 2))
    >>> y_true[0, [0, 1], 0] = 1
    >>> y_true[0, 2, 1] = 1
    >>> y_score = np.array([[3, 2, 1]])
    >>> round(err_ia_at_k(y_true, y_score, k=3), 6)  # (1.25 + 1/3) / 2 / (4/3)
    0.59375
    """
    average = check_option(average, "average", ("mean", None))
    zero_division = check_zero_division(zero_division)
    err, undefined, _, k, alpha = _err_ia(
        y_true,
        y_score,
        k,
        alpha,
        intent_weights,
        ignore_ties,
        relevance_threshold,
        "err_ia_at_k",
        False,
    )
    ranks = np.arange(1, k + 1, dtype=np.float64)
    best = float(np.sum((1.0 - alpha) ** (ranks - 1.0) / ranks))
    return _finish_alpha(
        err, best, undefined, "err_ia_at_k", sample_weight, average, zero_division
    )


@_doc
def nerr_ia_at_k(
    y_true,
    y_score,
    *,
    k=10,
    alpha=0.5,
    intent_weights=None,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
):
    """Normalised intent-aware expected reciprocal rank at k (nERR-IA@k).

    :func:`err_ia_at_k`'s weighted sum ``sum_t w_t ERR_t@k`` over the same
    of the greedy ideal ranking (each rank takes the item of largest weighted
    gain ``sum_t w_t (1 - alpha)^c_t``; equal gains: the item whose relevance
    vector is lexicographically largest first), ndeval's ``nERR-IA@k``
    ("collection-dependent" normalisation, with ndeval's uniform weights by
    default). Exact under ties, as :func:`alpha_ndcg_at_k`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, n_items, n_intents)
        Relevance of every item to every intent.
    y_score : array-like of shape (n_samples, n_items)
        Scores; higher ranks first. ``-inf``: not retrieved (still in the
        ideal ranking).
    k : int, default=10
        Cut-off rank (of the ranking and of the ideal).
    [[alpha_err]]
    [[intent_weights]]
    [[tail]]

    Returns
    -------
    err : float or ndarray of shape (n_samples,)
        The weighted mean over samples, or each sample's value.

    See Also
    --------
    err_ia_at_k : Normalised by a list relevant at every rank instead.

    Examples
    --------
    Items 0 and 1 serve intent 0, item 2 intent 1. Ranked 0, 1, 2:
    ``(1 + 0.5 / 2 + 1 / 3) / 2``; the ideal ranks 0, 2, 1: ``(1 + 1 / 2 +
    0.5 / 3) / 2``.

    >>> import numpy as np
    >>> from sklearn_rankk import nerr_ia_at_k
    >>> y_true = np.zeros((1, 3, 2))
    >>> y_true[0, [0, 1], 0] = 1
    >>> y_true[0, 2, 1] = 1
    >>> y_score = np.array([[3, 2, 1]])
    >>> round(nerr_ia_at_k(y_true, y_score, k=3), 6)  # (19/12) / (5/3)
    0.95
    """
    average = check_option(average, "average", ("mean", None))
    zero_division = check_zero_division(zero_division)
    err, undefined, ideal, _, _ = _err_ia(
        y_true,
        y_score,
        k,
        alpha,
        intent_weights,
        ignore_ties,
        relevance_threshold,
        "nerr_ia_at_k",
        True,
    )
    return _finish_alpha(
        err, ideal, undefined, "nerr_ia_at_k", sample_weight, average, zero_division
    )


# -- per-row values for scorers, reports and accumulators ----------------------


def intent_row_values(
    function_name, y_true, y_score, *, k, params, ignore_ties, relevance_threshold
):
    """One intent-aware measure's per-row values and undefined rows.

    What :func:`~sklearn_rankk._core.engine.row_values` gives for a 2-D
    measure: the values (0.0 on the undefined rows, which the caller fills
    by ``zero_division``) and the rows with no intent that has a relevant
    item. Dask inputs are read one block of rows at a time.

    Parameters
    ----------
    function_name : str
        The public function (``"alpha_ndcg_at_k"``).
    y_true, y_score, k, ignore_ties, relevance_threshold
        As the function takes them.
    params : dict
        Its other keyword parameters (``alpha``, ``intent_weights``).

    Returns
    -------
    values : ndarray of shape (n_samples,)
    undefined : ndarray of bool of shape (n_samples,)
    """
    func = {
        f.__name__: f
        for f in (
            intent_aware_precision_at_k,
            subtopic_recall_at_k,
            alpha_ndcg_at_k,
            err_ia_at_k,
            nerr_ia_at_k,
        )
    }[function_name]

    def run(y_true, y_score, params):
        values = func(
            y_true,
            y_score,
            k=k,
            average=None,
            ignore_ties=ignore_ties,
            zero_division=np.nan,
            relevance_threshold=relevance_threshold,
            **params,
        )
        undefined = np.isnan(values)
        values[undefined] = 0.0
        return values, undefined

    from ._core.validation import is_dask

    if is_dask(y_true) or is_dask(y_score):
        from ._parallel.dask_inputs import by_row_blocks

        return by_row_blocks(run, y_true, y_score, params)
    return run(y_true, y_score, params)
