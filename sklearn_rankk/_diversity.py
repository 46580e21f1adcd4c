"""Intent-aware measures: relevance per intent (subtopic), ``y_true`` of shape
(n_samples, n_items, n_intents).

Intent-aware precision (P-IA@k, Agrawal et al., WSDM 2009) and subtopic
recall (S-recall@k, Zhai, Cohen and Lafferty, SIGIR 2003) are exact under ties
through the engine's own measures, one kernel pass per intent: P-IA is a
weighted sum of each intent's precision@k (linear in the relevance), and an
intent is covered by the top k exactly when hit@k is 1 for it, so the
expected S-recall is the mean of each intent's hit@k (the kernel's hit@k is
the exact, hypergeometric, probability that a tie group's slots catch one of
its relevant items).
"""

from __future__ import annotations

import numpy as np

from ._core import _kernel, engine
from ._core.registry import METRICS
from ._core.validation import (
    as_array,
    check_option,
    check_real,
    check_sample_weight,
    check_y_score,
    check_zero_division,
)

__all__ = ["intent_aware_precision_at_k", "subtopic_recall_at_k"]


def _metric(formula):
    return next(m for m in METRICS.values() if m.formula == formula)


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


def _per_intent(formula, y_true, y_score, k, ignore_ties, threshold):
    """Each intent's per-row values of one engine measure, and whether the
    row has a relevant item for it."""
    request = engine.make_request(_metric(formula), k)
    n, _, n_intents = y_true.shape
    values = np.empty((n, n_intents))
    present = np.empty((n, n_intents), dtype=bool)
    for t in range(n_intents):
        rows = engine.row_values(
            [request],
            np.ascontiguousarray(y_true[:, :, t]),
            y_score,
            ignore_ties=ignore_ties,
            relevance_threshold=threshold,
        )
        values[:, t] = rows.values[0]
        present[:, t] = ~rows.undefined[0]
    return values, present


def _finish(values, undefined, name, sample_weight, average, zero_division):
    n_undefined = int(np.count_nonzero(undefined))
    if n_undefined:
        fill = engine.fill_undefined(
            zero_division, {name: (_NoIntent(), n_undefined)}, values.shape[0]
        )
        values[undefined] = fill
    if average is None:
        return values
    return engine.mean_of_rows(
        values, check_sample_weight(sample_weight, values.shape[0])
    )


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
    intent_weights : array-like of shape (n_intents,) or (n_samples, \
n_intents), default=None
        Weight (probability) of each intent; None: uniform.
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample in the mean.
    average : {"mean"} or None, default="mean"
        The weighted mean over samples, or None: every sample's value.
    ignore_ties : bool, default=False
        If True, tied items are ranked as scikit-learn ranks them (the later
        column first).
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value of a sample with no intent that has a relevant item.
    relevance_threshold : float, default=0
        An item is relevant to an intent when its grade exceeds this.

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
    p, present = _per_intent(
        _kernel.PRECISION, y_true, y_score, k, ignore_ties, threshold
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
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample in the mean.
    average : {"mean"} or None, default="mean"
        The weighted mean over samples, or None: every sample's value.
    ignore_ties : bool, default=False
        If True, tied items are ranked as scikit-learn ranks them (the later
        column first).
    zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
        Value of a sample with no intent that has a relevant item.
    relevance_threshold : float, default=0
        An item is relevant to an intent when its grade exceeds this.

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
    hit, present = _per_intent(_kernel.HIT, y_true, y_score, k, ignore_ties, threshold)
    n_present = present.sum(axis=1)
    undefined = n_present == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(present, hit, 0.0).sum(axis=1) / n_present
    return _finish(
        values, undefined, "subtopic_recall_at_k", sample_weight, average, zero_division
    )
