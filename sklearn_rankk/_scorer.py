"""Scorers: every metric as a scikit-learn ``scoring`` callable.

``get_scorer("ndcg@10")`` returns a scorer for one metric; ``get_scorer([...])``
returns one scorer that computes several metrics from a single top-k pass and
returns a dict, which scikit-learn accepts as multi-metric ``scoring``.

A scorer turns an estimator's output into a 2-D score matrix aligned with the
true relevance, whatever the kind of model:

* 1-D ``y`` (multiclass labels): columns are the fitted ``estimator.classes_``;
  a test label the estimator never saw in training becomes an extra column
  scored ``-inf`` (not retrieved), so it counts as a miss rather than failing
  or shifting the columns.
* 2-D ``y`` (multilabel indicator, relevance matrix): ``decision_function`` or
  ``predict_proba`` as a matrix, or the per-label list of ``(n, n_classes)``
  probability arrays of ``KNeighborsClassifier``, ``RandomForestClassifier``
  or ``MultiOutputClassifier`` (the probability of the positive class; a
  label constant in training gives 0 or 1); ``predict`` of multi-output
  regressors.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn import get_config
from sklearn.utils.metadata_routing import MetadataRequest

from ._core import engine
from ._core.registry import (
    BY_FUNCTION_NAME,
    INTENT_AWARE,
    INTENT_AWARE_BY_FUNCTION_NAME,
    INTENT_PARAMS,
    METRICS,
    PARAMS,
    intent_scorer_names,
    parse_intent_name,
    scorer_names,
)
from ._core.validation import (
    AVERAGE_OPTIONS,
    check_bool,
    check_k,
    check_option,
    check_real,
    check_sample_weight,
    check_zero_division,
    is_dask,
)
from ._io import names as measure_names

DEFAULT_RESPONSE_METHOD = ("decision_function", "predict_proba", "predict")
_API_MODULE = "sklearn_rankk._api"
_DIVERSITY_MODULE = "sklearn_rankk._diversity"

_COMMON_DEFAULTS = {
    "ignore_ties": False,
    "zero_division": "warn",
    "relevance_threshold": 0,
}


def get_scorer_names():
    """Scorer names that :func:`get_scorer` accepts, as scikit-learn lists its own.

    Each metric with a cut-off is listed at k = 1, 3, 5, 10, 20 and 100;
    ``"<metric>@<k>"`` takes any positive integer k. A metric name alone
    means the whole ranking (k=None), for the metrics that allow it, or the
    metric without a cut-off (``"r_precision"``). A loss or a diagnostic
    (lower is better: fall-out, the unjudged fraction) has the ``neg_``
    prefix, as in scikit-learn: its scorer gives the negated value, which
    model selection maximises. ir_measures' names (``"nDCG@10"``,
    ``"P(rel=2)@5"``) are accepted too (see the user guide's table). The
    intent-aware measures (``"alpha_ndcg@10"``, ``"err_ia@10"``, ...) come
    last: their scorers take a 3-D ``y`` of shape (n_samples, n_items,
    n_intents).

    Returns
    -------
    names : list of str
        Scorer names, each accepted by :func:`get_scorer`.

    Examples
    --------
    >>> from sklearn_rankk import get_scorer_names
    >>> get_scorer_names()[:4]
    ['precision@1', 'precision@3', 'precision@5', 'precision@10']
    >>> "r_precision" in get_scorer_names()
    True
    >>> "alpha_ndcg@10" in get_scorer_names()
    True
    """
    return scorer_names(signed=True) + intent_scorer_names()


class RankingScorer:
    """A scikit-learn scorer for one or several ranking metrics.

    Build it with :func:`get_scorer` or :func:`make_ranking_scorer` rather
    than directly. Call it as ``scorer(estimator, X, y, sample_weight=None)``:
    it returns a float for one metric, or a dict of name -> float for a list
    of metrics, all computed from one top-k pass.

    Parameters
    ----------
    metrics : list of (key, metric name, k, dict of metric parameters)
        What to compute; ``key`` is the name in the returned dict.
    response_method : str or tuple of str
        Estimator method(s) giving the scores, tried in order.
    return_dict : bool
        Whether ``__call__`` returns a dict (several metrics) or a float.
    ignore_ties : bool
        As in the metric functions, shared by every metric of the scorer.
    zero_division : {"warn", 0.0, 1.0, np.nan}
        As in the metric functions, shared by every metric of the scorer.
    relevance_threshold : float
        As in the metric functions, shared by every metric of the scorer.
    rebuild : str
        Python expression that rebuilds the scorer, shown by ``repr``.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn_rankk import get_scorer
    >>> X, y = load_digits(return_X_y=True)
    >>> model = GaussianNB().fit(X[:1000], y[:1000])
    >>> scorer = get_scorer(["hit@1", "mrr"])
    >>> scorer
    get_scorer(['hit@1', 'mrr'])
    >>> {name: round(v, 3) for name, v in scorer(model, X[1000:], y[1000:]).items()}
    {'hit@1': 0.793, 'mrr': 0.867}
    """

    def __init__(
        self,
        metrics,
        *,
        response_method=DEFAULT_RESPONSE_METHOD,
        return_dict=False,
        ignore_ties=False,
        zero_division="warn",
        relevance_threshold=0,
        rebuild="RankingScorer(...)",
    ):
        self.metrics = list(metrics)
        self.response_method = response_method
        self.return_dict = return_dict
        self.ignore_ties = ignore_ties
        self.zero_division = zero_division
        self.relevance_threshold = relevance_threshold
        self.rebuild = rebuild
        # Unset (None) by default: with routing on, passing sample_weight
        # without requesting it raises, as for scikit-learn's own scorers.
        # qid is requested by default: a ranker's scores only make sense per
        # query, and routing qid to the scorer must not need a second call.
        self._score_request = {"sample_weight": None, "qid": True}

    def __repr__(self):
        return self.rebuild

    # -- metadata routing (public sklearn API only) -----------------------

    def set_score_request(self, **requests):
        """Request metadata (``sample_weight``, ``qid``) for ``__call__``.

        Only available when ``sklearn.set_config(enable_metadata_routing=True)``.
        ``qid`` is requested by default; ``sample_weight`` is not.

        Parameters
        ----------
        **requests : dict of str -> bool, None or str
            ``sample_weight=`` and ``qid=``: True to request the metadata,
            False not to, None to raise if it is given, or an alias.

        Returns
        -------
        self : RankingScorer
            The scorer itself.
        """
        if not get_config().get("enable_metadata_routing", False):
            raise RuntimeError(
                "set_score_request needs metadata routing: call "
                "sklearn.set_config(enable_metadata_routing=True) first."
            )
        unknown = set(requests) - set(self._score_request)
        if unknown:
            raise TypeError(
                f"Ranking scorers accept only sample_weight and qid as metadata; "
                f"got {sorted(unknown)}."
            )
        self._score_request.update(requests)
        return self

    def get_metadata_routing(self):
        """The metadata this scorer requests, for scikit-learn's routing.

        Returns
        -------
        routing : sklearn.utils.metadata_routing.MetadataRequest
            The metadata requested by ``__call__``.
        """
        request = MetadataRequest(owner=type(self).__name__)
        for param, alias in self._score_request.items():
            request.score.add_request(param=param, alias=alias)
        return request

    def _accept_sample_weight(self):
        # Read by scikit-learn's multi-metric scorer when routing is off.
        return True

    # -- scoring ------------------------------------------------------------

    def __call__(self, estimator, X, y_true, sample_weight=None, qid=None, **kwargs):
        if kwargs:
            raise TypeError(
                f"Unexpected metadata for a ranking scorer: {sorted(kwargs)}; "
                f"only sample_weight and qid are used."
            )
        if qid is not None:
            y_score, labels = document_scores(estimator, X, self.response_method), None
        else:
            y_true, y_score, labels = scores_for(
                estimator, X, y_true, self.response_method
            )
        return self._score(
            y_true, y_score, sample_weight=sample_weight, labels=labels, qid=qid
        )

    @property
    def requests(self):
        """The engine requests of the scorer's metrics, in order."""
        return [_request(metric, k, params) for _, metric, k, params in self.metrics]

    @property
    def keys(self):
        """The names of the scorer's metrics, as given."""
        return [key for key, *_ in self.metrics]

    @property
    def options(self):
        """The options shared by every metric, as the engine takes them."""
        return {
            "ignore_ties": self.ignore_ties,
            "relevance_threshold": self.relevance_threshold,
        }

    def row_values(
        self,
        y_true,
        y_score,
        *,
        sample_weight=None,
        labels=None,
        qid=None,
        offsets=None,
    ):
        """Per-row values of the scorer's metrics, before ``zero_division``.

        Parameters
        ----------
        y_true : array-like or sparse matrix
            Relevance: 2-D (or 1-D class labels), 3-D for the intent-aware
            measures.
        y_score : array-like of shape (n_samples, n_items)
            Scores.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each row.
        labels : array-like of shape (n_items,), default=None
            Class of each column, with 1-D ``y_true``.
        qid : array-like of shape (n_documents,), default=None
            Query id of each document, with flat inputs.
        offsets : ndarray of shape (n_rows + 1,), default=None
            Flat inputs already grouped into rows.

        Returns
        -------
        rows : Rows
            The engine's per-row values, undefined rows and row weights of
            each metric, in order.
        """
        return row_values(
            self.requests,
            y_true,
            y_score,
            sample_weight=sample_weight,
            labels=labels,
            qid=qid,
            offsets=offsets,
            **self.options,
        )

    def _score(self, y_true, y_score, *, sample_weight=None, labels=None, qid=None):
        rows = self.row_values(
            y_true, y_score, sample_weight=sample_weight, labels=labels, qid=qid
        )
        scores = engine.aggregate(
            rows,
            self.requests,
            average="mean",
            zero_division=self.zero_division,
            keys=self.keys,
        )
        if self.return_dict:
            return scores
        return next(iter(scores.values()))


def _request(name, k, params):
    """The engine request of one of a scorer's metrics."""
    if name in INTENT_AWARE:
        return engine.Request(INTENT_AWARE[name], k, tuple(params.items()))
    metric = METRICS[name]
    return engine.make_request(metric, k, params, negate=not metric.greater_is_better)


def _is_intent(request):
    return INTENT_AWARE.get(request.metric.name) is request.metric


def _mixed(intent_names, plain_names):
    return (
        f"The intent-aware measures ({', '.join(intent_names)}) take a 3-D y_true "
        f"of shape (n_samples, n_items, n_intents), and the other measures "
        f"({', '.join(plain_names)}) a 2-D one: evaluate them in separate calls "
        f"(for the others, a 2-D y_true such as y_true.max(axis=2), the "
        f"relevance to any intent)."
    )


def row_values(
    requests,
    y_true,
    y_score,
    *,
    sample_weight=None,
    ignore_ties=False,
    relevance_threshold=0,
    labels=None,
    qid=None,
    offsets=None,
):
    """Per-row values of requests, as :func:`engine.row_values`, where the
    requests may also be intent-aware measures (3-D ``y_true``), each
    computed by its function in ``_diversity``; the two kinds cannot be
    mixed (``y_true`` is either 2-D or 3-D)."""
    intent = [r for r in requests if _is_intent(r)]
    if not intent:
        return engine.row_values(
            requests,
            y_true,
            y_score,
            sample_weight=sample_weight,
            ignore_ties=ignore_ties,
            relevance_threshold=relevance_threshold,
            labels=labels,
            qid=qid,
            offsets=offsets,
        )
    if len(intent) < len(requests):
        raise ValueError(
            _mixed(
                [r.key for r in intent], [r.key for r in requests if not _is_intent(r)]
            )
        )
    if qid is not None or offsets is not None or labels is not None:
        raise ValueError(
            "The intent-aware measures take a 3-D y_true of shape (n_samples, "
            "n_items, n_intents) and a 2-D y_score: qid and labels do not apply."
        )
    from ._diversity import intent_row_values

    values, undefined = [], []
    for r in requests:
        v, u = intent_row_values(
            r.metric.function_name,
            y_true,
            y_score,
            k=r.k,
            params=r.options,
            ignore_ties=ignore_ties,
            relevance_threshold=relevance_threshold,
        )
        values.append(v)
        undefined.append(u)
    if is_dask(sample_weight):
        sample_weight = sample_weight.compute()
    if sample_weight is not None:
        sample_weight = check_sample_weight(sample_weight, values[0].shape[0])
    return engine.Rows(values, undefined, sample_weight, int(np.shape(y_score)[1]))


def _check_intent_params(metric, given, where):
    """An intent-aware measure's own parameters, validated, defaults filled
    in; ``intent_weights`` one weight per intent (a tuple of floats), since
    ``where`` (a scorer or an accumulator) sees rows it cannot know yet."""
    out = {}
    for p in metric.params:
        value = given.get(p.name, p.default)
        if p.name == "intent_weights":
            if value is not None:
                w = np.asarray(value, dtype=np.float64)
                if w.ndim != 1 or w.size == 0:
                    raise ValueError(
                        f"intent_weights of {where} must be 1-D, one weight per "
                        f"intent (shape (n_intents,)); got shape {w.shape}. "
                        f"Per-sample weights go to the functions and reports."
                    )
                if not np.all(np.isfinite(w)) or np.any(w < 0):
                    raise ValueError("intent_weights must be finite and non-negative.")
                value = tuple(float(x) for x in w)
        else:
            value = check_real(
                value,
                p.name,
                low=p.low,
                low_inclusive=p.low_inclusive,
                high=p.high,
                high_inclusive=p.high_inclusive,
            )
        out[p.name] = value
    return out


def _intent_entries(names, parsed, metric_params):
    """The entries of a scorer of intent-aware measures."""
    unused = set(metric_params) - {
        p.name for metric, _ in parsed for p in metric.params
    }
    if unused:
        raise TypeError(f"{sorted(unused)} apply to none of the metrics {list(names)}.")
    entries = []
    for name, (metric, k) in zip(names, parsed):
        k = check_k(k, allow_none=False, metric=metric.function_name)
        own = {p: v for p, v in metric_params.items() if p in metric.param_names}
        entries.append(
            (name, metric.name, k, _check_intent_params(metric, own, "a scorer"))
        )
    return entries


def requests_for_names(names, metric_params):
    """The requests of measure names without a scorer's ``neg_`` sign (a
    comparison's), as :func:`engine.requests_for_names`, the intent-aware
    measures included (not mixed with the others); their ``intent_weights``
    may be per sample (the rows are the caller's)."""
    parsed = [parse_intent_name(name) for name in names]
    if not any(parsed):
        return engine.requests_for_names(names, metric_params)
    if not all(parsed):
        raise ValueError(
            _mixed(
                [n for n, p in zip(names, parsed) if p],
                [n for n, p in zip(names, parsed) if not p],
            )
        )
    weights = metric_params.get("intent_weights")
    params = {p: v for p, v in metric_params.items() if p != "intent_weights"}
    entries = _intent_entries(names, parsed, params)
    out = []
    for _, name, k, own in entries:
        metric = INTENT_AWARE[name]
        if weights is not None and "intent_weights" in metric.param_names:
            own["intent_weights"] = weights  # checked by the function
        out.append(engine.Request(metric, k, tuple(own.items())))
    if weights is not None and not any(
        "intent_weights" in r.metric.param_names for r in out
    ):
        raise TypeError(f"['intent_weights'] apply to none of the metrics {names}.")
    return out


def _check_common(kwargs):
    """Validate the keyword options shared by every metric of a scorer."""
    common = dict(_COMMON_DEFAULTS)
    metric_params = {}
    for key, value in kwargs.items():
        if key in _COMMON_DEFAULTS:
            common[key] = value
        elif key in PARAMS or key in INTENT_PARAMS:
            metric_params[key] = value
        elif key == "average":
            check_option(value, "average", AVERAGE_OPTIONS[:1])
        else:
            raise TypeError(
                f"Unexpected keyword argument {key!r} for a ranking scorer."
            )
    common["ignore_ties"] = check_bool(common["ignore_ties"], "ignore_ties")
    common["zero_division"] = check_zero_division(common["zero_division"])
    check_real(common["relevance_threshold"], "relevance_threshold")
    return common, metric_params


def _entry(key, request):
    """A scorer's description of one metric: (key, name, k, parameters); a
    metric's own relevance threshold (``P(rel=2)@5``) is among the
    parameters."""
    options = request.options
    if request.relevance_threshold is not None:
        options["relevance_threshold"] = request.relevance_threshold
    return (key, request.metric.name, request.k, options)


def check_response_method(response_method):
    methods = (
        (response_method,) if isinstance(response_method, str) else response_method
    )
    methods = tuple(methods)
    allowed = set(DEFAULT_RESPONSE_METHOD)
    if not methods or any(m not in allowed for m in methods):
        raise ValueError(
            f"response_method must be one of {sorted(allowed)} or a tuple of them; "
            f"got {response_method!r}."
        )
    return response_method


def _format_value(value):
    if isinstance(value, float) and np.isnan(value):
        return "float('nan')"
    return repr(value)


def _format_kwargs(kwargs):
    return "".join(f", {k}={_format_value(v)}" for k, v in kwargs.items())


def get_scorer(scoring, *, response_method=DEFAULT_RESPONSE_METHOD, **kwargs):
    """A scorer from a metric name such as ``"ndcg@10"``, or a list of names.

    Parameters
    ----------
    scoring : str, list of str or RankingScorer
        ``"<metric>@<k>"`` (precision, recall, f1, hit, mrr, map, dcg, ndcg;
        any positive k), ``"r_precision"``, or ``"mrr"``, ``"map"``,
        ``"dcg"``, ``"ndcg"`` alone for the whole ranking; a loss with
        ``neg_``, e.g. ``"neg_fall_out@10"``, for its negated value (see
        :func:`get_scorer_names`). A list gives one
        scorer returning a dict keyed by the names as given, computed from a
        single top-k pass over the largest k; use it as ``scoring=`` and
        ``refit="<name>"``. A RankingScorer is returned unchanged.
    response_method : str or tuple of str, \
default=("decision_function", "predict_proba", "predict")
        Estimator method(s) giving the scores, the first available is used.
    **kwargs
        Options passed to every metric: ``ignore_ties``, ``zero_division``,
        ``relevance_threshold``, and where they apply ``denominator``,
        ``gain``, ``log_base``.

    Returns
    -------
    scorer : RankingScorer
        Callable as ``scorer(estimator, X, y, sample_weight=None)``.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn_rankk import get_scorer
    >>> X, y = load_digits(return_X_y=True)
    >>> scores = cross_val_score(GaussianNB(), X, y, cv=3, scoring=get_scorer("hit@3"))
    >>> scores.round(3)
    array([0.963, 0.954, 0.922])
    """
    if isinstance(scoring, RankingScorer):
        return scoring
    check_response_method(response_method)
    common, metric_params = _check_common(kwargs)
    names = [scoring] if isinstance(scoring, str) else scoring
    if not isinstance(names, (list, tuple)) or not names:
        raise TypeError(
            f"scoring must be a scorer name or a non-empty list of names; got "
            f"{scoring!r}."
        )
    if len(set(names)) != len(names):
        raise ValueError(f"Duplicate scorer names in {list(names)}.")
    parsed = [parse_intent_name(name) for name in names]
    if any(parsed):
        if not all(parsed):
            raise ValueError(
                _mixed(
                    [n for n, p in zip(names, parsed) if p],
                    [n for n, p in zip(names, parsed) if not p],
                )
            )
        entries = _intent_entries(names, parsed, metric_params)
    else:
        requests = measure_names.requests_for_names(names, metric_params, scorer=True)
        entries = [_entry(name, r) for name, r in zip(names, requests)]
    shown = repr(scoring if isinstance(scoring, str) else list(scoring))
    if response_method != DEFAULT_RESPONSE_METHOD:
        kwargs = {"response_method": response_method, **kwargs}
    return RankingScorer(
        entries,
        response_method=response_method,
        return_dict=not isinstance(scoring, str),
        rebuild=f"get_scorer({shown}{_format_kwargs(kwargs)})",
        **common,
    )


class _DefaultK(int):
    """The default ``k`` of :func:`make_ranking_scorer`: 10, told apart from
    an explicit 10 (R-precision takes no ``k`` at all)."""


_DEFAULT_K = _DefaultK(10)


def make_ranking_scorer(
    score_func, *, response_method=DEFAULT_RESPONSE_METHOD, k=_DEFAULT_K, **kwargs
):
    """A scorer from one of this package's metric functions and its options.

    Parameters
    ----------
    score_func : callable
        One of the package's metric functions, e.g. ``map_at_k_score``.
    response_method : str or tuple of str, \
default=("decision_function", "predict_proba", "predict")
        Estimator method(s) giving the scores, the first available is used.
    k : int or None, default=10
        Cut-off. ``r_precision_score`` has none: passing ``k`` with it is an
        error.
    **kwargs
        The metric's other keyword arguments (``denominator``, ``gain``,
        ``ignore_ties``, ``zero_division``, ...).

    Returns
    -------
    scorer : RankingScorer
        A scorer computing ``score_func`` with these options.

    Examples
    --------
    >>> from sklearn_rankk import make_ranking_scorer, map_at_k_score
    >>> make_ranking_scorer(map_at_k_score, k=20, denominator="min")
    make_ranking_scorer(map_at_k_score, k=20, denominator='min')
    """
    name = getattr(score_func, "__name__", None)
    module = getattr(score_func, "__module__", None)
    intent = INTENT_AWARE_BY_FUNCTION_NAME.get(name)
    if intent is not None and module == _DIVERSITY_MODULE:
        return _intent_scorer(intent, response_method, k, kwargs)
    metric = BY_FUNCTION_NAME.get(name)
    if metric is None or module != _API_MODULE:
        raise TypeError(
            f"make_ranking_scorer takes one of sklearn_rankk's metric functions; "
            f"got {score_func!r}. For other metrics use sklearn.metrics.make_scorer."
        )
    check_response_method(response_method)
    common, metric_params = _check_common(kwargs)
    if metric.needs_k:
        shown = {"k": k, **kwargs}
    elif k is not _DEFAULT_K:
        raise TypeError(
            f"{metric.function_name} has no cut-off k (it cuts each row at its "
            f"number of relevant items); got k={k!r}."
        )
    else:
        k, shown = None, dict(kwargs)
    request = engine.make_request(metric, k, metric_params, caller=metric.function_name)
    if metric.needs_k:
        shown["k"] = request.k
    if response_method != DEFAULT_RESPONSE_METHOD:
        shown = {"response_method": response_method, **shown}
    return RankingScorer(
        [_entry(metric.scorer_prefix + metric.scorer_name(request.k), request)],
        response_method=response_method,
        rebuild=f"make_ranking_scorer({metric.function_name}{_format_kwargs(shown)})",
        **common,
    )


def _intent_scorer(metric, response_method, k, kwargs):
    """:func:`make_ranking_scorer` of an intent-aware function."""
    check_response_method(response_method)
    common, metric_params = _check_common(kwargs)
    extra = set(metric_params) - set(metric.param_names)
    if extra:
        raise TypeError(
            f"{sorted(extra)} do not apply to {metric.function_name}; it takes "
            f"{list(metric.param_names) or 'no metric-specific parameters'}."
        )
    k = check_k(k, allow_none=False, metric=metric.function_name)
    params = _check_intent_params(metric, metric_params, "a scorer")
    shown = {"k": k, **kwargs}
    if response_method != DEFAULT_RESPONSE_METHOD:
        shown = {"response_method": response_method, **shown}
    return RankingScorer(
        [(metric.scorer_name(k), metric.name, k, params)],
        response_method=response_method,
        rebuild=f"make_ranking_scorer({metric.function_name}{_format_kwargs(shown)})",
        **common,
    )


# ----------------------------------------------------------------------------
# From an estimator's output to a score matrix aligned with y_true
# ----------------------------------------------------------------------------


def _response(estimator, X, response_method):
    methods = (
        (response_method,) if isinstance(response_method, str) else response_method
    )
    for method in methods:
        func = getattr(estimator, method, None)
        if func is not None:
            return method, func(X)
    raise AttributeError(
        f"{type(estimator).__name__} has none of the methods {list(methods)} "
        f"needed to score it as a ranker."
    )


def _positive_class_scores(outputs, estimator):
    """Per-label list of (n, n_classes) probabilities -> (n, n_labels)."""
    classes = getattr(estimator, "classes_", None)
    columns = []
    for j, proba in enumerate(outputs):
        proba = np.asarray(proba)
        cls = (
            np.asarray(classes[j]) if classes is not None else np.arange(proba.shape[1])
        )
        if proba.ndim != 2 or cls.shape[0] != proba.shape[1] or cls.shape[0] > 2:
            raise ValueError(
                f"Output {j} of {type(estimator).__name__} has shape {proba.shape} "
                f"for classes {cls.tolist()}: a ranking needs one score per label, "
                f"which only binary (0/1) labels give."
            )
        positive = np.flatnonzero(cls.astype(bool))
        if positive.size:
            columns.append(proba[:, positive[0]])
        else:  # the label was always 0 in training: probability 0 of being 1
            columns.append(np.zeros(proba.shape[0], dtype=proba.dtype))
    return np.column_stack(columns)


def document_scores(estimator, X, response_method):
    """One score per document (flat learning-to-rank data with qid)."""
    method, raw = _response(estimator, X, response_method)
    y_score = np.asarray(raw)
    if y_score.ndim == 2 and y_score.shape[1] == 2 and method == "predict_proba":
        y_score = y_score[:, 1]  # a binary classifier: P(relevant)
    if y_score.ndim != 1:
        raise ValueError(
            f"{type(estimator).__name__}.{method} returned shape {y_score.shape}; "
            f"with qid a ranker must give one score per document (1-D)."
        )
    return y_score


def scores_for(estimator, X, y_true, response_method):
    """(y_true, y_score, labels) ready for the metrics."""
    method, raw = _response(estimator, X, response_method)
    y_arr = y_true if sp.issparse(y_true) else np.asarray(y_true)
    if isinstance(raw, list):
        raw = _positive_class_scores(raw, estimator)
    y_score = np.asarray(raw)
    if y_arr.ndim == 1:
        return _multiclass(estimator, method, y_arr, y_score)
    if y_score.ndim == 1:
        raise ValueError(
            f"{type(estimator).__name__}.{method} returned 1-D scores but y has "
            f"{y_arr.shape[1]} columns: the estimator treated the problem as "
            f"binary (scikit-learn does so for a 2-column y it does not see as "
            f"multilabel). Fit a multilabel wrapper such as OneVsRestClassifier, "
            f"or score with a 1-D y of class labels."
        )
    if y_arr.ndim == 3 and y_score.shape == y_arr.shape[:2]:
        # intent-aware relevance (n_samples, n_items, n_intents)
        return y_true, y_score, None
    if y_score.shape != y_arr.shape:
        raise ValueError(
            f"{type(estimator).__name__}.{method} returned scores of shape "
            f"{y_score.shape} for y of shape {y_arr.shape}; they must match."
        )
    return y_true, y_score, None


def _multiclass(estimator, method, y, y_score):
    classes = getattr(estimator, "classes_", None)
    if classes is None or np.ndim(classes) != 1:
        name = type(estimator).__name__
        if np.ndim(y_score) == 1:  # one score per row: a ranker or regressor
            raise ValueError(
                f"{name}.{method} gives one score per row of X, as a ranker "
                f"does, and y is 1-D: score it per query by passing the query "
                f"ids, scorer(estimator, X, y, qid=qid), or with metadata "
                f"routing on (sklearn.set_config(enable_metadata_routing=True)) "
                f"pass qid= to the search's or cross_validate's fit params; the "
                f"scorers request qid by default."
            )
        raise ValueError(
            f"y is 1-D class labels but {name} has no 1-D classes_ to map the "
            f"columns of {method} to labels."
        )
    classes = np.asarray(classes)
    if y_score.ndim == 1 and classes.shape[0] == 2:
        # Binary decision_function: one score, for classes_[1].
        y_score = np.column_stack([-y_score, y_score])
    if y_score.ndim != 2 or y_score.shape[1] != classes.shape[0]:
        raise ValueError(
            f"{type(estimator).__name__}.{method} returned shape {y_score.shape} "
            f"for {classes.shape[0]} classes; expected one score column per class."
        )
    unseen = np.setdiff1d(np.unique(y), classes)
    if unseen.size == 0:
        return y, y_score, classes
    # Labels the estimator never saw in training: columns scored -inf (not
    # retrieved), so those rows count as misses.
    labels = np.union1d(classes, unseen)
    full = np.full((y_score.shape[0], labels.shape[0]), -np.inf)
    full[:, np.searchsorted(labels, classes)] = y_score
    return y, full, labels
