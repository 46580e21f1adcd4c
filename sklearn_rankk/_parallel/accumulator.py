"""Streaming evaluation: ranking metrics over rows that arrive in batches.

Every metric is a weighted mean of per-row values, so a stream of batches
needs only, per metric, the weighted sum of the defined rows' values, their
total weight, the total weight and the count of the undefined rows (rows
that follow ``zero_division``). The sums are kept exactly (as Shewchuk's
non-overlapping partials, the algorithm of :func:`math.fsum`), so the result
does not depend on how the rows were split into batches or how partial
accumulators were merged, and it equals the one-shot weighted mean to about
one unit in the last place.
"""

from __future__ import annotations

import math

import numpy as np

from .._core import engine
from .._core.inputs import group_by_qid
from .._core.validation import check_sample_weight, is_dask
from .._scorer import get_scorer

# Per metric: exact sums (lists of partials) and the undefined count.
_SUMS = ("value", "weight", "undefined_weight")


class RankingAccumulator:
    """Ranking metrics accumulated over batches of rows, mergeable.

    For rows produced in batches (a model scoring 1,000 users at a time) or
    on several processes: :meth:`update` with each batch, :meth:`merge` the
    accumulators of other processes, and :meth:`result` gives what the
    one-shot call on all the rows gives, for every metric, cut-off,
    weighting and ``zero_division``. The state is a few numbers per metric,
    whatever the number of rows.

    Parameters
    ----------
    metrics : str or list of str
        Scorer names, as :func:`get_scorer` takes them: ``"ndcg@10"``,
        ``"recall@20"``, ``"map"``, ``"r_precision"``, ...; or intent-aware
        measures (``"alpha_ndcg@10"``, ``"err_ia@10"``, ...), whose batches
        have a 3-D ``y_true`` of shape (n_rows, n_items, n_intents).
    **options
        Options shared by the metrics, as :func:`get_scorer` takes them:
        ``ignore_ties``, ``zero_division`` (``"warn"`` warns once, in
        :meth:`result`, with the total count), ``relevance_threshold``, and
        where they apply ``denominator``, ``gain``, ``log_base``,
        ``propensity`` (the propensity-scored metrics, whose result is
        pyxclib's ratio of the sums of the rows' values and best values),
        ``alpha`` and ``intent_weights`` (one weight per intent).

    Attributes
    ----------
    n_samples_ : int
        Rows seen so far, through :meth:`update` and :meth:`merge`.

    See Also
    --------
    get_scorer : The same metrics on data held at once.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import RankingAccumulator, ndcg_at_k_score
    >>> rng = np.random.default_rng(0)
    >>> y_true = rng.random((1000, 50)) < 0.1
    >>> y_score = rng.random((1000, 50))
    >>> acc = RankingAccumulator(["ndcg@10", "recall@20"], zero_division=0.0)
    >>> for start in range(0, 1000, 300):  # batches of 300 rows
    ...     batch = slice(start, start + 300)
    ...     _ = acc.update(y_true[batch], y_score[batch])
    >>> acc.n_samples_
    1000
    >>> {name: round(value, 6) for name, value in acc.result().items()}
    {'ndcg@10': 0.157018, 'recall@20': 0.389932}
    >>> round(ndcg_at_k_score(y_true, y_score, k=10, zero_division=0.0), 6)
    0.157018

    Accumulators of parts of the rows (from other processes, say) merge
    into the accumulator of all the rows:

    >>> left = RankingAccumulator(["ndcg@10", "recall@20"], zero_division=0.0)
    >>> right = RankingAccumulator(["ndcg@10", "recall@20"], zero_division=0.0)
    >>> _ = left.update(y_true[:400], y_score[:400])
    >>> _ = right.update(y_true[400:], y_score[400:])
    >>> left.merge(right).result() == acc.result()
    True
    """

    def __init__(self, metrics, **options):
        if "response_method" in options:
            raise TypeError(
                "RankingAccumulator takes scores, not an estimator: "
                "response_method does not apply."
            )
        names = [metrics] if isinstance(metrics, str) else metrics
        self._scorer = get_scorer(names, **options)
        self.n_samples_ = 0
        # Sums are kept in units of 2**_exponent, the binary exponent of the
        # largest weight seen: sums of weights near 1e308 do not overflow and
        # denormal weights keep their digits.
        self._exponent = None
        self._state = {
            key: {**{s: [] for s in _SUMS}, "n_undefined": 0}
            for key, *_ in self._scorer.metrics
        }

    def __repr__(self):
        return repr(self._scorer).replace("get_scorer(", "RankingAccumulator(", 1)

    def update(self, y_true, y_score, sample_weight=None, *, labels=None, qid=None):
        """Add a batch of rows.

        Parameters
        ----------
        y_true : array-like or sparse matrix of shape (n_rows, n_items), or \
array-like of shape (n_rows,)
            Relevance of the batch's rows, as the metric functions take it.
            With 1-D class labels, pass ``labels`` (a batch may miss classes).
            For the intent-aware measures, 3-D: shape (n_rows, n_items,
            n_intents).
        y_score : array-like of shape (n_rows, n_items)
            Scores of the batch's rows.
        sample_weight : array-like of shape (n_rows,), default=None
            Weights of the batch's rows; None weighs each row 1. A batch may
            weigh 0 in all its rows; the total over all batches may not.
        labels : array-like of shape (n_items,), default=None
            The class of each column, for 1-D ``y_true``.
        qid : array-like of shape (n_documents,), default=None
            Query id of each document, for flat learning-to-rank data: then
            ``y_true``, ``y_score`` and ``sample_weight`` are 1-D, one value
            per document, and each query of the batch is one row (its
            weight constant within it). A query must not be split between
            batches.

        Returns
        -------
        self : RankingAccumulator
            The accumulator, updated in place.
        """
        scorer = self._scorer
        if is_dask(sample_weight):
            sample_weight = sample_weight.compute()
        offsets = None
        if qid is not None:  # one segment per query, one weight per query
            positive = sample_weight is not None and np.any(
                np.asarray(sample_weight) != 0
            )
            grouped = group_by_qid(
                y_true,
                y_score,
                qid,
                sample_weight if positive else None,
                labels=labels,
                threshold=scorer.relevance_threshold,
            )
            y_true, y_score, offsets = grouped.y_true, grouped.y_score, grouped.offsets
            if sample_weight is not None:
                sample_weight = (
                    grouped.sample_weight if positive else np.zeros(grouped.n_rows)
                )
        rows = scorer.row_values(y_true, y_score, labels=labels, offsets=offsets)
        values, undefined = rows.values, rows.undefined
        n_rows = values[0].shape[0]
        if sample_weight is None:
            weights = np.ones(n_rows)
        else:
            weights = _batch_weights(sample_weight, n_rows)
        if np.any(weights > 0):
            self._rescale(int(np.frexp(np.max(weights))[1]))
            weights = np.ldexp(weights, -self._exponent)
        for j, ((key, *_), v, u) in enumerate(zip(scorer.metrics, values, undefined)):
            state = self._state[key]
            defined = ~u
            # A propensity-scored metric weighs each row by its best value
            # too: sums of numerators and of ideals (pyxclib's ratio).
            w = weights
            if rows.ideal is not None and rows.ideal[j] is not None:
                w = weights * rows.ideal[j]
            _add_exact(state["value"], v[defined] * w[defined])
            _add_exact(state["weight"], w[defined])
            _add_exact(state["undefined_weight"], w[u])
            state["n_undefined"] += int(np.count_nonzero(u))
        self.n_samples_ += n_rows
        return self

    def merge(self, other):
        """Add the rows of another accumulator with the same metrics and options.

        Parameters
        ----------
        other : RankingAccumulator
            Left unchanged.

        Returns
        -------
        self : RankingAccumulator
            The accumulator, with ``other``'s rows added.
        """
        if not isinstance(other, RankingAccumulator):
            raise TypeError(
                f"merge takes a RankingAccumulator; got {type(other).__name__}."
            )
        if self._config() != other._config():
            raise ValueError(
                f"Cannot merge accumulators of different metrics or options: "
                f"{self!r} and {other!r}."
            )
        if other._exponent is not None:
            self._rescale(other._exponent)
        shift = 0 if other._exponent is None else other._exponent - self._exponent
        for key, state in self._state.items():
            theirs = other._state[key]
            for name in _SUMS:
                for partial in list(theirs[name]):
                    _grow(state[name], math.ldexp(partial, shift))
            state["n_undefined"] += theirs["n_undefined"]
        self.n_samples_ += other.n_samples_
        return self

    def _rescale(self, exponent):
        """Hold the sums in units of 2**max(exponent, the current one)."""
        if self._exponent is None:
            self._exponent = exponent
        elif exponent > self._exponent:
            shift = self._exponent - exponent
            for state in self._state.values():
                for name in _SUMS:
                    state[name][:] = [math.ldexp(x, shift) for x in state[name]]
            self._exponent = exponent

    def result(self):
        """Every metric over all the rows seen.

        Returns
        -------
        scores : dict of str -> float
            Keyed by the metric names as given; ``nan`` for a metric whose
            rows were all left out by ``zero_division=np.nan``.
        """
        if self.n_samples_ == 0:
            raise ValueError("No rows yet: call update() with a batch first.")
        scores = {}
        metrics = {
            key: request.metric
            for key, request in zip(self._scorer.keys, self._scorer.requests)
        }
        for state in self._state.values():
            if math.fsum(state["weight"] + state["undefined_weight"]) <= 0:
                raise ValueError(
                    "sample_weight must have at least one positive weight "
                    "over all the rows."
                )
        # One warning for every metric with undefined rows.
        fill = engine.fill_undefined(
            self._scorer.zero_division,
            {
                key: (metrics[key], state["n_undefined"])
                for key, state in self._state.items()
            },
            self.n_samples_,
        )
        for key, state in self._state.items():
            total = state["weight"] + state["undefined_weight"]
            if np.isnan(fill):  # undefined rows are left out of the mean
                numerator, denominator = state["value"], state["weight"]
            else:  # undefined rows count as fill (0 or 1) times their weight
                numerator = state["value"] + (state["undefined_weight"] if fill else [])
                denominator = total
            denominator = math.fsum(denominator)
            scores[key] = (
                math.fsum(numerator) / denominator if denominator > 0 else math.nan
            )
        # The scorer of a loss ("neg_fall_out@10") gives the negated mean.
        for key, request in zip(self._scorer.keys, self._scorer.requests):
            if request.negate:
                scores[key] = 0.0 - scores[key]
        return scores

    def _config(self):
        scorer = self._scorer
        zero_division = scorer.zero_division
        if not isinstance(zero_division, str) and np.isnan(zero_division):
            zero_division = "nan"
        metrics = [(key, m, k, sorted(p.items())) for key, m, k, p in scorer.metrics]
        return (
            metrics,
            scorer.ignore_ties,
            zero_division,
            float(scorer.relevance_threshold),
        )


def _batch_weights(sample_weight, n_rows):
    """The batch's weights, checked as one call checks them, except that a
    batch may weigh 0 in all its rows (the total is checked by result)."""
    try:
        return check_sample_weight(sample_weight, n_rows)
    except ValueError:
        try:
            w = np.asarray(sample_weight, dtype=np.float64)
        except (TypeError, ValueError):
            w = None
        if w is not None and w.shape == (n_rows,) and not np.any(w):
            return w  # all zero: only the "one positive weight" check failed
        raise


def _grow(partials, x):
    """Add ``x`` to the exact sum held in ``partials`` (Shewchuk), in place."""
    out = []
    for y in partials:
        if abs(x) < abs(y):
            x, y = y, x
        hi = x + y
        lo = y - (hi - x)
        if lo:
            out.append(lo)
        x = hi
    out.append(x)
    partials[:] = out


def _add_exact(partials, values):
    """Add the sum of ``values`` to ``partials``, exactly.

    ``math.fsum`` rounds the batch's sum once; its rounding error is added
    too, so the total does not depend on how the rows were batched.
    """
    values = values.tolist()
    head = math.fsum(values)
    values.append(-head)
    _grow(partials, head)
    _grow(partials, math.fsum(values))
