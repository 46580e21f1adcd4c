"""Ranking curves as scikit-learn style displays (matplotlib, imported lazily).

:class:`RankingCurveDisplay` follows scikit-learn's ``RocCurveDisplay``:
``from_predictions``, ``from_estimator`` and ``from_cv_results`` compute the
curves and plot them; the display keeps the numbers, so :meth:`plot` can draw
them again on other axes; after plotting it has ``ax_``, ``figure_`` and
``line_``. Three kinds of curve:

* ``"precision_recall_at_k"``: mean P@k (solid) and R@k (dashed) against k;
* ``"precision_recall"``: mean P@k against mean R@k, one point per k;
* a metric name (``"ndcg"``, ``"map"``, ...): that metric's mean against k.

The legend lists every curve on the axes; for the two precision-recall kinds
it sits below the axes, since their curves leave no free corner.

The random-ranking baseline (grey) is each metric's exact expectation when the
retrieved items of every row are ranked uniformly at random, from the same
engine (tie-aware metrics of a constant score).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._compare import compare_systems
from ._core import engine
from ._core.inputs import group_by_qid, n_items, random_ranking_scores
from ._core.registry import METRICS, PRECISION_RECALL
from ._core.validation import check_k, check_zero_division
from ._report import interpolated_precision_recall_curve
from ._scorer import (
    DEFAULT_RESPONSE_METHOD,
    check_response_method,
    document_scores,
    scores_for,
)

_PR_KINDS = ("precision_recall_at_k", "precision_recall")
# The two metrics of the precision-recall kinds (names of display attributes).
_P, _R = (metric.name for metric in PRECISION_RECALL[:2])
_CURVE_KINDS = tuple(name for name, metric in METRICS.items() if metric.needs_k)
_BASELINE_GID = "sklearn_rankk.random_baseline"
_MAX_MARKED_POINTS = 30  # more cut-offs than this: lines without markers


def _check_matplotlib_support(caller):
    try:
        import matplotlib  # noqa: F401
    except ImportError as e:
        raise ImportError(
            f"{caller} requires matplotlib. You can install matplotlib with "
            f"`pip install matplotlib`."
        ) from e


def _check_kind(kind):
    if isinstance(kind, str) and (kind in _PR_KINDS or kind in _CURVE_KINDS):
        return kind
    hint = ""
    if isinstance(kind, str) and kind in METRICS:
        hint = f" {kind!r} has no cut-off k to plot against."
    raise ValueError(
        f"kind must be one of {', '.join(repr(k) for k in _PR_KINDS + _CURVE_KINDS)};"
        f" got {kind!r}.{hint}"
    )


def _quantities(kind):
    """The metrics a kind of curve shows."""
    return PRECISION_RECALL[:2] if kind in _PR_KINDS else (METRICS[kind],)


def _check_metric_params(kind, params):
    """The metric parameters that apply to ``kind``, validated.

    A non-default value of one that does not apply is an error, as in
    :func:`get_scorer`.
    """
    applies = () if kind in _PR_KINDS else METRICS[kind].param_names
    for name, value in params.items():
        if name not in applies and not engine.is_default_param(name, value):
            raise TypeError(
                f"{name}={value!r} does not apply to kind={kind!r}; it applies "
                f"to {[m for m in _CURVE_KINDS if name in METRICS[m].param_names]}."
            )
    return {name: value for name, value in params.items() if name in applies}


def _mean_curves(kind, y_true, y_score, *, k_max, zero_division, params, **options):
    """Mean of each metric of ``kind`` at every cut-off 1..k_max, from one
    top-k pass: a dict metric name -> ndarray of shape (k_max,)."""
    requests = [
        engine.make_request(metric, k_max, params, curve=True)
        for metric in _quantities(kind)
    ]
    rows = engine.row_values(requests, y_true, y_score, **options)
    # The undefined rows (no relevant item, zero ideal DCG) are the same at
    # every cut-off: at most one warning per curve.
    means = engine.aggregate(
        rows, requests, average="mean", zero_division=zero_division
    )
    return {r.metric.name: means[r.key] for r in requests}


def _curves(kind, y_true, y_score, *, ignore_ties, zero_division, **common):
    """Model and random-ranking curves: (model dict, random dict)."""
    model = _mean_curves(
        kind,
        y_true,
        y_score,
        ignore_ties=ignore_ties,
        zero_division=zero_division,
        **common,
    )
    # The same rows are undefined in both passes and were already reported.
    quiet = 0.0 if zero_division == "warn" else zero_division
    random = _mean_curves(
        kind,
        y_true,
        random_ranking_scores(y_score),
        ignore_ties=False,
        zero_division=quiet,
        **common,
    )
    return model, random


def _as_list(value):
    """One curve or a list of curves -> list; None stays None."""
    if value is None or isinstance(value, list):
        return value
    return [value]


def _check_ax(ax):
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    if ax is None:
        # Constrained layout keeps labels and a legend below the axes in view.
        _, ax = plt.subplots(layout="constrained")
    elif not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None; got {ax!r}.")
    return ax


def _style(defaults, user):
    """Default line properties updated with the user's, aliases resolved."""
    from matplotlib.cbook import normalize_kwargs
    from matplotlib.lines import Line2D

    if user is None:
        user = {}
    if not isinstance(user, dict):
        raise TypeError(f"Line keyword arguments must be a dict; got {user!r}.")
    return {**defaults, **normalize_kwargs(user, Line2D)}


def _summary(label, k, values):
    """``"nDCG@10 = 0.87"``, or ``"... +/- 0.02"`` over several curves."""
    last = [v[-1] for v in values]
    text = f"{label}@{k} = {np.mean(last):0.2f}"
    if len(last) > 1:
        text += f" +/- {np.std(last):0.2f}"
    return text


def _legend_label(name, summaries):
    summary = ", ".join(summaries)
    return f"{name} ({summary})" if name is not None else summary


def _draw_baseline(ax, x, y, kw):
    """Draw a random-ranking line unless the axes already show the same one."""
    for line in ax.get_lines():
        if (
            line.get_gid() == _BASELINE_GID
            and np.array_equal(line.get_xdata(), x)
            and np.allclose(line.get_ydata(), y, rtol=1e-12, atol=1e-12, equal_nan=True)
        ):
            return line
    (line,) = ax.plot(x, y, gid=_BASELINE_GID, **kw)
    return line


def _annotated_k(k_max):
    """A few cut-offs to write next to their point: 1, 2, 5, 10, ... and k_max."""
    nice = [m * 10**e for e in range(7) for m in (1, 2, 5)]
    chosen = [v for v in nice if v < k_max]
    if len(chosen) > 3:  # keep 1 and the two largest below k_max
        chosen = [1, *chosen[-2:]]
    return [*chosen, k_max]


class RankingCurveDisplay:
    """Ranking curves over the cut-off k: P@k and R@k, P against R, any metric.

    It is recommended to use :meth:`from_predictions`, :meth:`from_estimator`
    or :meth:`from_cv_results` to create a display; the constructor only
    stores the curves. All parameters are stored as attributes. Each array
    parameter may be a list of arrays, one per curve (e.g. one per
    cross-validation fold).

    Parameters
    ----------
    k : ndarray of shape (n_cutoffs,)
        The cut-offs, increasing (``1, ..., k_max`` from the ``from_*`` methods).
    precision, recall : ndarray of shape (n_cutoffs,) or list of them, \
default=None
        Mean P@k and R@k at each cut-off, for the kinds
        ``"precision_recall_at_k"`` and ``"precision_recall"``.
    values : ndarray of shape (n_cutoffs,) or list of them, default=None
        Mean of the metric ``kind`` at each cut-off, for a metric kind.
    random_precision, random_recall, random_values : ndarray or list, \
default=None
        The same under a uniformly random ranking of each row's retrieved
        items (the random baseline).
    kind : str, default="precision_recall_at_k"
        ``"precision_recall_at_k"`` (P@k and R@k against k),
        ``"precision_recall"`` (P@k against R@k, one point per k), or a
        metric name with a cut-off (``"precision"``, ``"recall"``, ``"f1"``,
        ``"hit"``, ``"mrr"``, ``"map"``, ``"dcg"``, ``"ndcg"``): that metric
        against k.
    name : str or list of str, default=None
        Name of the curves in the legend; a list names each curve.

    Attributes
    ----------
    line_ : matplotlib Line2D or list of Line2D
        The curves; a list when several are drawn. For
        ``kind="precision_recall_at_k"`` the precision and recall lines of
        each curve alternate: ``[P, R]`` for one curve.
    random_baseline_ : matplotlib Line2D, list of Line2D or None
        The random-ranking lines (``[P, R]`` for
        ``kind="precision_recall_at_k"``), None when not plotted. A line the
        axes already showed, with the same data, is reused, not drawn again.
    ax_ : matplotlib Axes
        Axes with the curves.
    figure_ : matplotlib Figure
        Figure containing the curves.

    See Also
    --------
    precision_recall_at_k_curve : Mean P@k, R@k and F1@k at every k.
    ranking_report : Any metric at chosen cut-offs, with the random baseline.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from sklearn_rankk import RankingCurveDisplay
    >>> display = RankingCurveDisplay(
    ...     k=np.arange(1, 4),
    ...     values=np.array([0.5, 0.6, 0.8]),
    ...     random_values=np.array([0.2, 0.35, 0.5]),
    ...     kind="ndcg",
    ...     name="my ranker",
    ... )
    >>> display = display.plot()
    >>> display.line_.get_label()
    'my ranker (nDCG@3 = 0.80)'
    >>> display.random_baseline_.get_label()
    'Random ranking (nDCG@3 = 0.50)'
    >>> plt.close(display.figure_)
    """

    def __init__(
        self,
        *,
        k,
        precision=None,
        recall=None,
        values=None,
        random_precision=None,
        random_recall=None,
        random_values=None,
        kind="precision_recall_at_k",
        name=None,
    ):
        self.k = k
        self.precision = precision
        self.recall = recall
        self.values = values
        self.random_precision = random_precision
        self.random_recall = random_recall
        self.random_values = random_values
        self.kind = kind
        self.name = name

    # -- data ---------------------------------------------------------------

    def _data(self, kind, *, random):
        """Curves per quantity: dict name -> list of 1-D arrays (or None)."""
        prefix = "random_" if random else ""
        if kind in _PR_KINDS:
            attrs = {_P: _P, _R: _R}
        else:
            attrs = {kind: "values"}
        data = {q: _as_list(getattr(self, prefix + a)) for q, a in attrs.items()}
        missing = [prefix + attrs[q] for q, v in data.items() if v is None]
        if random and missing:
            return None
        if missing:
            raise ValueError(
                f"kind={kind!r} plots {' and '.join(missing)}, which this "
                f"display does not have."
            )
        return data

    def _validate_plot_params(self, name):
        kind = _check_kind(self.kind)
        k = np.asarray(self.k)
        if k.ndim != 1 or k.size == 0:
            raise ValueError(f"k must be a non-empty 1-D array; got shape {k.shape}.")
        data = self._data(kind, random=False)
        random = self._data(kind, random=True)
        n_curves = len(next(iter(data.values())))
        for prefix, group in (("", data), ("random_", random or {})):
            for q, curves in group.items():
                attr = prefix + ("values" if kind not in _PR_KINDS else q)
                if len(curves) != n_curves:
                    raise ValueError(
                        f"{attr} has {len(curves)} curves; expected {n_curves}, "
                        f"one per curve."
                    )
                for c in curves:
                    if np.shape(c) != k.shape:
                        raise ValueError(
                            f"Each curve of {attr} must have shape {k.shape} "
                            f"like k; got {np.shape(c)}."
                        )
        name = self.name if name is None else name
        if isinstance(name, list) and len(name) not in (1, n_curves):
            raise ValueError(
                f"name has {len(name)} entries for {n_curves} curves; give one "
                f"name or one per curve."
            )
        return kind, k, data, random, name, n_curves

    # -- plotting -----------------------------------------------------------

    def plot(
        self,
        ax=None,
        *,
        name=None,
        curve_kwargs=None,
        plot_random_baseline=True,
        random_baseline_kw=None,
        despine=False,
    ):
        """Plot the curves.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to plot on; None creates a new figure and axes. Curves of
            other displays already on the axes stay, and the legend lists
            them all. The two precision-recall kinds put the legend below
            the axes, where it hides no curve: on a figure of your own, make
            room for it with ``layout="constrained"`` (as the figures the
            display creates have) or ``tight_layout``.
        name : str or list of str, default=None
            Name for the legend; None uses the display's ``name``. The legend
            adds the value at the largest cut-off, e.g.
            ``"GaussianNB (nDCG@10 = 0.87)"``.
        curve_kwargs : dict or list of dict, default=None
            Keyword arguments of matplotlib's ``plot`` for the curves. With
            several curves (folds), a dict styles them all alike and gives
            one legend entry with the mean and standard deviation of the
            values; a list (one dict per curve) gives each its own entry. For
            ``kind="precision_recall_at_k"`` they apply to both lines of a
            curve (precision solid, recall dashed by default).
        plot_random_baseline : bool, default=True
            Draw the random-ranking baseline (grey, dashed).
        random_baseline_kw : dict, default=None
            Keyword arguments of matplotlib's ``plot`` for the baseline.
        despine : bool, default=False
            Remove the top and right spines.

        Returns
        -------
        display : RankingCurveDisplay
            ``self``, with ``ax_``, ``figure_``, ``line_`` and
            ``random_baseline_`` set.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> import numpy as np
        >>> from sklearn_rankk import RankingCurveDisplay
        >>> y_true = np.array([[1, 0, 1, 0], [0, 1, 0, 0]])
        >>> y_score = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.1, 0.7, 0.4]])
        >>> display = RankingCurveDisplay.from_predictions(
        ...     y_true, y_score, kind="recall", k_max=4, name="first"
        ... )
        >>> fig, ax = plt.subplots()
        >>> display = display.plot(ax=ax, plot_random_baseline=False)
        >>> display.ax_ is ax
        True
        >>> [text.get_text() for text in ax.get_legend().get_texts()]
        ['first (Recall@4 = 1.00)']
        >>> plt.close("all")
        """
        _check_matplotlib_support("RankingCurveDisplay.plot")
        kind, k, data, random, name, n_curves = self._validate_plot_params(name)
        if not isinstance(plot_random_baseline, (bool, np.bool_)):
            raise TypeError(
                f"plot_random_baseline must be True or False; got "
                f"{plot_random_baseline!r}."
            )
        if plot_random_baseline and random is None:
            raise ValueError(
                "This display has no random-ranking values to plot: create it "
                "with a from_* method, pass random_* to the constructor, or "
                "use plot_random_baseline=False."
            )
        per_curve = isinstance(curve_kwargs, list)
        if per_curve and len(curve_kwargs) != n_curves:
            raise ValueError(
                f"curve_kwargs must be None, a dict or a list of {n_curves} dicts "
                f"(one per curve); got a list of {len(curve_kwargs)}."
            )
        if isinstance(name, list) and len(name) > 1 and not per_curve:
            raise ValueError(
                "A list of names labels each curve: give curve_kwargs as a list "
                f"of {n_curves} dicts too, or one name for one legend entry."
            )
        names = name if isinstance(name, list) else [name]
        names = names * n_curves if len(names) == 1 else names
        kwargs = curve_kwargs if per_curve else [curve_kwargs] * n_curves
        kwargs = [_style({}, kw) for kw in kwargs]
        # One legend entry per curve, or one for all (mean +/- std).
        one_entry = n_curves > 1 and not per_curve

        ax = _check_ax(ax)
        self.ax_, self.figure_ = ax, ax.figure
        k_max = int(k[-1])
        marked = k.size <= _MAX_MARKED_POINTS
        base = {"marker": "o", "markersize": 4} if marked else {}
        if one_entry:
            base["alpha"] = 0.6

        def coords(group, x, y, i):
            return (k if x == "k" else group[x][i]), group[y][i]

        def label(who, group, quantities, curves):
            return _legend_label(
                who,
                [
                    _summary(_short(q, kind), k_max, group[q][curves])
                    for q in quantities
                ],
            )

        lines, shared_colour = [], None
        for i in range(n_curves):
            colour = shared_colour
            for x, y, quantities, extra, _ in _series(kind, marked):
                text = None
                if not one_entry:
                    text = label(names[i], data, quantities, slice(i, i + 1))
                elif i == 0:
                    text = label(names[i], data, quantities, slice(None))
                style = {**base, **extra, **kwargs[i]}
                if colour is not None and "color" not in kwargs[i]:
                    style["color"] = colour
                (line,) = ax.plot(*coords(data, x, y, i), label=text, **style)
                colour = line.get_color()  # the recall line of a curve matches
                lines.append(line)
            if one_entry:
                shared_colour = colour  # folds styled alike share a colour
        if kind == "precision_recall" and n_curves == 1:
            _annotate_k(ax, k, data[_R][0], data[_P][0], lines[0])
        self.line_ = lines[0] if len(lines) == 1 else lines

        self.random_baseline_ = None
        if plot_random_baseline:
            baselines = []
            default = {
                "color": "grey",
                "linestyle": "--",
                "linewidth": 1.2,
                "alpha": 0.5 if n_curves > 1 else 0.9,
            }
            for i in range(n_curves):
                for x, y, quantities, _, extra in _series(kind, marked):
                    style = _style({**default, **extra}, random_baseline_kw)
                    if i == 0:  # one legend entry, mean +/- std over curves
                        text = label("Random ranking", random, quantities, slice(None))
                        style.setdefault("label", text)
                    else:
                        style["label"] = None
                    line = _draw_baseline(ax, *coords(random, x, y, i), style)
                    baselines.append(line)
            self.random_baseline_ = baselines[0] if len(baselines) == 1 else baselines

        _decorate(ax, kind, despine)
        _legend(ax, below=kind in _PR_KINDS)
        return self

    # -- constructors -------------------------------------------------------

    @classmethod
    def _from_curves(cls, kind, k_max, model, random, name):
        """A display from per-curve dicts of mean curves (lists of dicts)."""

        def gather(curves, q):
            out = [c[q] for c in curves]
            return out[0] if len(out) == 1 else out

        if kind in _PR_KINDS:
            arrays = {q: gather(model, q) for q in (_P, _R)}
            arrays.update({f"random_{q}": gather(random, q) for q in (_P, _R)})
        else:
            arrays = {
                "values": gather(model, kind),
                "random_values": gather(random, kind),
            }
        return cls(k=np.arange(1, k_max + 1), kind=kind, name=name, **arrays)

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        kind="precision_recall_at_k",
        k_max=None,
        sample_weight=None,
        ignore_ties=False,
        zero_division="warn",
        relevance_threshold=0,
        labels=None,
        qid=None,
        denominator="relevant",
        gain="linear",
        log_base=2,
        beta=1.0,
        max_grade=4,
        p=0.9,
        name=None,
        ax=None,
        curve_kwargs=None,
        plot_random_baseline=True,
        random_baseline_kw=None,
        despine=False,
    ):
        """Plot ranking curves from true relevance and scores.

        Each point is the mean over rows of a metric at one cut-off, exactly
        what the metric function returns for that ``k`` (ties averaged
        unless ``ignore_ties=True``); all cut-offs come from one top-k pass.

        Parameters
        ----------
        y_true : array-like or sparse matrix of shape (n_samples, n_items), \
or array-like of shape (n_samples,)
            Relevance, as for the metric functions (1-D: class labels).
        y_score : array-like of shape (n_samples, n_items)
            Scores; higher ranks first, ``-inf`` is not retrieved.
        kind : str, default="precision_recall_at_k"
            ``"precision_recall_at_k"`` (mean P@k and R@k against k),
            ``"precision_recall"`` (P@k against R@k, one point per k), or a
            metric with a cut-off (``"precision"``, ``"recall"``, ``"f1"``,
            ``"hit"``, ``"mrr"``, ``"map"``, ``"dcg"``, ``"ndcg"``) against k.
        k_max : int or None, default=None
            Largest cut-off; the curves have a point at every ``k = 1 ..
            k_max``. None means ``n_items``.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample in the means.
        ignore_ties : bool, default=False
            Break ties as scikit-learn does (the later column first) instead
            of averaging over them.
        zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
            Value of rows where a metric is undefined (no relevant item).
        relevance_threshold : float, default=0
            An item is relevant when ``y_true > relevance_threshold``.
        labels : array-like of shape (n_items,), default=None
            Class of each column, with 1-D ``y_true``.
        qid : array-like of shape (n_documents,), default=None
            Query id of each document, with 1-D ``y_true`` and ``y_score``
            (flat learning-to-rank data): each query is one row.
        denominator : {"relevant", "min", "retrieved"}, default="relevant"
            Denominator of AP@k, for ``kind="map"``.
        gain : {"linear", "exponential"}, default="linear"
            Gain of DCG and nDCG, for ``kind="dcg"`` or ``"ndcg"``.
        log_base : float, default=2
            Base of the DCG discount, for ``kind="dcg"`` or ``"ndcg"``.
        beta : float, default=1.0
            Weight of recall, for ``kind="fbeta"``.
        max_grade : float or None, default=4
            The top of the grade scale, for ``kind="err"`` (None: each
            row's largest grade), as in :func:`err_at_k_score`.
        p : float, default=0.9
            Persistence, for ``kind="rbp"``, as in
            :func:`rank_biased_precision_score`.
        name : str, default=None
            Name of the curve in the legend; None shows the values alone.
        ax : matplotlib Axes, default=None
            Axes to plot on; None creates a new figure and axes. Pass the
            ``ax_`` of another display to compare models on one axes.
        curve_kwargs : dict, default=None
            Keyword arguments of matplotlib's ``plot`` for the curve.
        plot_random_baseline : bool, default=True
            Draw the exact expectation of the same metric under a uniformly
            random ranking of each row's retrieved items (grey, dashed).
            Several displays on one axes with the same baseline draw it once.
        random_baseline_kw : dict, default=None
            Keyword arguments of matplotlib's ``plot`` for the baseline.
        despine : bool, default=False
            Remove the top and right spines.

        Returns
        -------
        display : RankingCurveDisplay

        See Also
        --------
        RankingCurveDisplay.from_estimator : The curves of a fitted model.
        precision_recall_at_k_curve : The P@k, R@k and F1@k numbers.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> import numpy as np
        >>> from sklearn_rankk import RankingCurveDisplay
        >>> y_true = np.array([[1, 0, 1, 0], [0, 1, 0, 0]])
        >>> y_score = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.1, 0.7, 0.4]])
        >>> display = RankingCurveDisplay.from_predictions(
        ...     y_true, y_score, k_max=4, name="model"
        ... )
        >>> display.precision.round(3)
        array([0.5  , 0.25 , 0.167, 0.375])
        >>> display.random_recall
        array([0.25, 0.5 , 0.75, 1.  ])
        >>> [text.get_text() for text in display.ax_.get_legend().get_texts()]
        ['model (Precision@4 = 0.38)', 'model (Recall@4 = 1.00)', \
'Random ranking (Precision@4 = 0.38)', 'Random ranking (Recall@4 = 1.00)']
        >>> plt.close("all")
        """
        _check_matplotlib_support(f"{cls.__name__}.from_predictions")
        kind, k_max, zero_division, params = _check_options(
            kind, k_max, zero_division, denominator, gain, log_base, beta, max_grade, p
        )
        # One segment per query with qid, once for both curves.
        y_true, y_score, sample_weight, offsets, width = _grouped(
            y_true, y_score, sample_weight, qid, labels, relevance_threshold
        )
        if k_max is None:
            k_max = width
        model, random = _curves(
            kind,
            y_true,
            y_score,
            k_max=k_max,
            offsets=offsets,
            sample_weight=sample_weight,
            ignore_ties=ignore_ties,
            zero_division=zero_division,
            relevance_threshold=relevance_threshold,
            labels=labels,
            params=params,
        )
        display = cls._from_curves(kind, k_max, [model], [random], name)
        return display.plot(
            ax=ax,
            curve_kwargs=curve_kwargs,
            plot_random_baseline=plot_random_baseline,
            random_baseline_kw=random_baseline_kw,
            despine=despine,
        )

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        kind="precision_recall_at_k",
        k_max=None,
        sample_weight=None,
        response_method=DEFAULT_RESPONSE_METHOD,
        ignore_ties=False,
        zero_division="warn",
        relevance_threshold=0,
        qid=None,
        denominator="relevant",
        gain="linear",
        log_base=2,
        beta=1.0,
        max_grade=4,
        p=0.9,
        name=None,
        ax=None,
        curve_kwargs=None,
        plot_random_baseline=True,
        random_baseline_kw=None,
        despine=False,
    ):
        """Plot ranking curves of a fitted estimator on data.

        The estimator's scores become a score matrix as in the package's
        scorers: with 1-D ``y`` (class labels) the columns are the classes,
        with 2-D ``y`` (multilabel indicator or relevance) the labels.

        Parameters
        ----------
        estimator : estimator instance
            Fitted classifier, regressor or pipeline.
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input values.
        y : array-like of shape (n_samples,) or (n_samples, n_items)
            Class labels, or relevance of each label.
        kind : str, default="precision_recall_at_k"
            As in :meth:`from_predictions`.
        k_max : int or None, default=None
            Largest cut-off; None means the number of columns.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample in the means.
        response_method : str or tuple of str, \
default=("decision_function", "predict_proba", "predict")
            Estimator method(s) giving the scores, the first available is
            used.
        ignore_ties : bool, default=False
            Break ties as scikit-learn does (the later column first) instead
            of averaging over them.
        zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
            Value of rows where a metric is undefined (no relevant item).
        relevance_threshold : float, default=0
            An item is relevant when ``y_true > relevance_threshold``.
        qid : array-like of shape (n_samples,), default=None
            Query id of each row of ``X`` (flat learning-to-rank data): ``y``
            is then the relevance of each document, the estimator gives one
            score per document, and each query is one ranking.
        denominator : {"relevant", "min", "retrieved"}, default="relevant"
            Denominator of AP@k, for ``kind="map"``.
        gain : {"linear", "exponential"}, default="linear"
            Gain of DCG and nDCG, for ``kind="dcg"`` or ``"ndcg"``.
        log_base : float, default=2
            Base of the DCG discount, for ``kind="dcg"`` or ``"ndcg"``.
        beta : float, default=1.0
            Weight of recall, for ``kind="fbeta"``.
        max_grade : float or None, default=4
            The top of the grade scale, for ``kind="err"`` (None: each
            row's largest grade), as in :func:`err_at_k_score`.
        p : float, default=0.9
            Persistence, for ``kind="rbp"``, as in
            :func:`rank_biased_precision_score`.
        name : str, default=None
            Name in the legend; None uses the estimator's class name.
        ax : matplotlib Axes, default=None
            Axes to plot on; None creates a new figure and axes. Pass the
            ``ax_`` of another display to compare models on one axes.
        curve_kwargs : dict, default=None
            Keyword arguments of matplotlib's ``plot`` for the curve.
        plot_random_baseline : bool, default=True
            Draw the random-ranking baseline (grey, dashed), once per axes.
        random_baseline_kw : dict, default=None
            Keyword arguments of matplotlib's ``plot`` for the baseline.
        despine : bool, default=False
            Remove the top and right spines.

        Returns
        -------
        display : RankingCurveDisplay

        See Also
        --------
        RankingCurveDisplay.from_cv_results : One curve per fold.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> from sklearn.datasets import load_digits
        >>> from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
        >>> from sklearn.naive_bayes import GaussianNB
        >>> from sklearn_rankk import RankingCurveDisplay
        >>> X, y = load_digits(return_X_y=True)
        >>> X_train, X_test, y_train, y_test = X[:1000], X[1000:], y[:1000], y[1000:]
        >>> nb = GaussianNB().fit(X_train, y_train)
        >>> display = RankingCurveDisplay.from_estimator(
        ...     nb, X_test, y_test, kind="ndcg", k_max=5
        ... )
        >>> display.values.round(3)
        array([0.793, 0.86 , 0.872, 0.881, 0.884])
        >>> lda = LinearDiscriminantAnalysis().fit(X_train, y_train)
        >>> display = RankingCurveDisplay.from_estimator(
        ...     lda, X_test, y_test, kind="ndcg", k_max=5, ax=display.ax_
        ... )
        >>> for text in display.ax_.get_legend().get_texts():
        ...     print(text.get_text())
        GaussianNB (nDCG@5 = 0.88)
        LinearDiscriminantAnalysis (nDCG@5 = 0.96)
        Random ranking (nDCG@5 = 0.29)
        >>> plt.close("all")
        """
        _check_matplotlib_support(f"{cls.__name__}.from_estimator")
        _check_options(
            kind, k_max, zero_division, denominator, gain, log_base, beta, max_grade, p
        )
        check_response_method(response_method)
        y_true, y_score, labels = _estimator_scores(
            estimator, X, y, qid, response_method
        )
        return cls.from_predictions(
            y_true,
            y_score,
            kind=kind,
            k_max=k_max,
            sample_weight=sample_weight,
            ignore_ties=ignore_ties,
            zero_division=zero_division,
            relevance_threshold=relevance_threshold,
            labels=labels,
            qid=qid,
            denominator=denominator,
            gain=gain,
            log_base=log_base,
            beta=beta,
            max_grade=max_grade,
            p=p,
            name=type(estimator).__name__ if name is None else name,
            ax=ax,
            curve_kwargs=curve_kwargs,
            plot_random_baseline=plot_random_baseline,
            random_baseline_kw=random_baseline_kw,
            despine=despine,
        )

    @classmethod
    def from_cv_results(
        cls,
        cv_results,
        X,
        y,
        *,
        kind="precision_recall_at_k",
        k_max=None,
        sample_weight=None,
        response_method=DEFAULT_RESPONSE_METHOD,
        ignore_ties=False,
        zero_division="warn",
        relevance_threshold=0,
        qid=None,
        denominator="relevant",
        gain="linear",
        log_base=2,
        beta=1.0,
        max_grade=4,
        p=0.9,
        name=None,
        ax=None,
        curve_kwargs=None,
        plot_random_baseline=True,
        random_baseline_kw=None,
        despine=False,
    ):
        """Plot one ranking curve per cross-validation fold.

        Each fold's fitted estimator is evaluated on that fold's test rows.

        Parameters
        ----------
        cv_results : dict
            As returned by :func:`sklearn.model_selection.cross_validate`
            with ``return_estimator=True`` and ``return_indices=True`` (the
            keys ``"estimator"`` and ``"indices"``).
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The input values given to ``cross_validate``.
        y : array-like of shape (n_samples,) or (n_samples, n_items)
            The targets given to ``cross_validate``.
        kind : str, default="precision_recall_at_k"
            As in :meth:`from_predictions`.
        k_max : int or None, default=None
            Largest cut-off; None means the number of columns.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample in the means.
        response_method : str or tuple of str, \
default=("decision_function", "predict_proba", "predict")
            Estimator method(s) giving the scores.
        ignore_ties : bool, default=False
            Break ties as scikit-learn does (the later column first) instead
            of averaging over them.
        zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
            Value of rows where a metric is undefined (no relevant item).
        relevance_threshold : float, default=0
            An item is relevant when ``y_true > relevance_threshold``.
        qid : array-like of shape (n_samples,), default=None
            Query id of each row of ``X`` (flat learning-to-rank data): ``y``
            is then the relevance of each document, the estimator gives one
            score per document, and each query is one ranking.
        denominator : {"relevant", "min", "retrieved"}, default="relevant"
            Denominator of AP@k, for ``kind="map"``.
        gain : {"linear", "exponential"}, default="linear"
            Gain of DCG and nDCG, for ``kind="dcg"`` or ``"ndcg"``.
        log_base : float, default=2
            Base of the DCG discount, for ``kind="dcg"`` or ``"ndcg"``.
        beta : float, default=1.0
            Weight of recall, for ``kind="fbeta"``.
        max_grade : float or None, default=4
            The top of the grade scale, for ``kind="err"`` (None: each
            row's largest grade), as in :func:`err_at_k_score`.
        p : float, default=0.9
            Persistence, for ``kind="rbp"``, as in
            :func:`rank_biased_precision_score`.
        name : str or list of str, default=None
            Name in the legend; None uses the estimator's class name. A list
            names each fold (with ``curve_kwargs`` a list).
        ax : matplotlib Axes, default=None
            Axes to plot on; None creates a new figure and axes.
        curve_kwargs : dict or list of dict, default=None
            A dict (or None) styles every fold alike, in one colour, with one
            legend entry giving the mean and standard deviation over folds at
            ``k_max``; a list of one dict per fold gives each its own entry.
        plot_random_baseline : bool, default=True
            Draw the random-ranking baseline of each fold (grey, dashed);
            folds with the same baseline draw it once.
        random_baseline_kw : dict, default=None
            Keyword arguments of matplotlib's ``plot`` for the baselines.
        despine : bool, default=False
            Remove the top and right spines.

        Returns
        -------
        display : RankingCurveDisplay
            Its arrays are lists with one array per fold.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> from sklearn.datasets import load_digits
        >>> from sklearn.model_selection import cross_validate
        >>> from sklearn.naive_bayes import GaussianNB
        >>> from sklearn_rankk import RankingCurveDisplay
        >>> X, y = load_digits(return_X_y=True)
        >>> cv_results = cross_validate(
        ...     GaussianNB(), X, y, cv=3, return_estimator=True, return_indices=True
        ... )
        >>> display = RankingCurveDisplay.from_cv_results(
        ...     cv_results, X, y, kind="hit", k_max=3
        ... )
        >>> [fold.round(3) for fold in display.values]
        [array([0.826, 0.927, 0.963]), array([0.798, 0.902, 0.954]), \
array([0.816, 0.895, 0.922])]
        >>> display.ax_.get_legend().get_texts()[0].get_text()
        'GaussianNB (Hit rate@3 = 0.95 +/- 0.02)'
        >>> plt.close("all")
        """
        _check_matplotlib_support(f"{cls.__name__}.from_cv_results")
        kind, k_max, zero_division, params = _check_options(
            kind, k_max, zero_division, denominator, gain, log_base, beta, max_grade, p
        )
        check_response_method(response_method)
        estimators, tests = _check_cv_results(cv_results, X, y, sample_weight, qid)
        folds = []
        for estimator, test in zip(estimators, tests):
            X_test, y_test, weights, fold_qid = (
                None if v is None else _take_rows(v, test)
                for v in (X, y, sample_weight, qid)
            )
            y_true, y_score, labels = _estimator_scores(
                estimator, X_test, y_test, fold_qid, response_method
            )
            folds.append(
                (
                    *_grouped(
                        y_true, y_score, weights, fold_qid, labels, relevance_threshold
                    ),
                    labels,
                )
            )
        if k_max is None:  # unseen classes may add columns to some folds
            k_max = max(fold[4] for fold in folds)
        model, random = [], []
        for y_true, y_score, weights, offsets, _, labels in folds:
            m, r = _curves(
                kind,
                y_true,
                y_score,
                k_max=k_max,
                offsets=offsets,
                sample_weight=weights,
                ignore_ties=ignore_ties,
                zero_division=zero_division,
                relevance_threshold=relevance_threshold,
                labels=labels,
                params=params,
            )
            model.append(m)
            random.append(r)
        if name is None:
            name = type(estimators[0]).__name__
        display = cls._from_curves(kind, k_max, model, random, name)
        return display.plot(
            ax=ax,
            curve_kwargs=curve_kwargs,
            plot_random_baseline=plot_random_baseline,
            random_baseline_kw=random_baseline_kw,
            despine=despine,
        )


def _check_options(
    kind, k_max, zero_division, denominator, gain, log_base, beta, max_grade, p
):
    kind = _check_kind(kind)
    params = _check_metric_params(
        kind,
        {
            "denominator": denominator,
            "gain": gain,
            "log_base": log_base,
            "beta": beta,
            "max_grade": max_grade,
            "p": p,
        },
    )
    k_max = check_k(k_max, allow_none=True, metric="", name="k_max")
    return kind, k_max, check_zero_division(zero_division), params


def _n_rows(x):
    shape = getattr(x, "shape", None)
    return int(shape[0]) if shape is not None else len(x)


def _grouped(y_true, y_score, sample_weight, qid, labels, threshold):
    """(y_true, y_score, sample_weight, offsets, longest row): one segment per
    query with ``qid``, else the inputs as they are."""
    if qid is None:
        return y_true, y_score, sample_weight, None, n_items(y_score)
    grouped = group_by_qid(
        y_true, y_score, qid, sample_weight, labels=labels, threshold=threshold
    )
    return (
        grouped.y_true,
        grouped.y_score,
        grouped.sample_weight,
        grouped.offsets,
        grouped.n_items,
    )


def _estimator_scores(estimator, X, y, qid, response_method):
    """(y_true, y_score, labels) of an estimator on ``X``, as scorers make them:
    with ``qid``, one score per document."""
    if qid is not None:
        return y, document_scores(estimator, X, response_method), None
    return scores_for(estimator, X, y, response_method)


def _take_rows(x, rows):
    """The rows ``rows`` (integer positions) of an array, sparse matrix,
    pandas object or list."""
    if hasattr(x, "iloc"):
        return x.iloc[rows]
    if hasattr(x, "shape") or sp.issparse(x):
        return x[rows]
    return [x[i] for i in rows]


def _check_cv_results(cv_results, X, y, sample_weight, qid):
    """The fitted estimators and test indices of ``cross_validate``'s result."""
    required = ("estimator", "indices")
    if not hasattr(cv_results, "keys") or any(k not in cv_results for k in required):
        raise ValueError(
            "cv_results must be the dict returned by cross_validate(..., "
            "return_estimator=True, return_indices=True), with the keys "
            f"'estimator' and 'indices'; got {_keys(cv_results)}."
        )
    indices = cv_results["indices"]
    if not hasattr(indices, "keys") or "test" not in indices:
        raise ValueError(
            "cv_results['indices'] must be a dict with the key 'test' (from "
            "return_indices=True)."
        )
    estimators, tests = list(cv_results["estimator"]), list(indices["test"])
    if not estimators or len(estimators) != len(tests):
        raise ValueError(
            f"cv_results has {len(estimators)} estimators and {len(tests)} test "
            f"index arrays; expected one of each per fold."
        )
    n_samples = _n_rows(X)
    for what, value in (("y", y), ("sample_weight", sample_weight), ("qid", qid)):
        if value is not None and _n_rows(value) != n_samples:
            raise ValueError(f"{what} has {_n_rows(value)} rows but X has {n_samples}.")
    largest = max((int(np.max(t)) for t in tests if len(t)), default=-1)
    if largest >= n_samples:
        raise ValueError(
            f"cv_results has test index {largest} but X has only {n_samples} "
            f"rows: pass the X and y given to cross_validate."
        )
    return estimators, tests


def _keys(value):
    return sorted(value.keys()) if hasattr(value, "keys") else repr(value)


def _series(kind, marked):
    """What one curve draws: (x, y, quantities in the label, line style,
    baseline style) for each of its lines.

    Precision and recall against k share a colour: precision solid with
    circles, recall dashed with squares; their random baselines are grey,
    solid and dashed alike.
    """
    if kind == "precision_recall_at_k":
        recall_style = {"linestyle": "--", **({"marker": "s"} if marked else {})}
        return [
            ("k", _P, (_P,), {}, {"linestyle": "-"}),
            ("k", _R, (_R,), recall_style, {}),
        ]
    if kind == "precision_recall":
        return [(_R, _P, (_P, _R), {}, {})]
    return [("k", kind, (kind,), {}, {})]


def _short(quantity, kind):
    """Legend name of a metric: short on the precision-recall plane."""
    if kind == "precision_recall":
        return quantity[0].upper()  # P@10, R@10
    return METRICS[quantity].label


def _legend(ax, below=False):
    """The legend of every labelled line, random baselines last.

    ``below``: under the axes, clear of the x label, in two columns where
    they fit. The precision and recall curves of a model and of the random
    ranking can cross every part of the axes, leaving no corner where the
    legend would hide nothing.
    """
    from matplotlib.font_manager import FontProperties

    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    order = sorted(
        range(len(handles)), key=lambda i: handles[i].get_gid() == _BASELINE_GID
    )
    labels = [labels[i] for i in order]
    # Long entries (several summaries, +/- std) in a smaller font fit the axes.
    size = "small" if below or max(len(text) for text in labels) > 40 else None
    where = {"loc": "best"}
    if below:
        # Points from the bottom of the axes to below the x label: ticks,
        # tick labels, label pad and label, each line 1.2 font sizes high.
        tick = ax.xaxis.get_major_ticks()[0]
        drop = (
            max(tick.tick1line.get_markersize(), 0)
            + tick.get_pad()
            + 1.2 * tick.label1.get_size()
            + ax.xaxis.labelpad
            + 1.2 * ax.xaxis.label.get_size()
        )
        font = FontProperties(size=size)
        where = {
            "loc": "upper center",
            "bbox_to_anchor": (0.5, 0),
            "borderaxespad": drop / font.get_size_in_points() + 0.5,
            "ncols": _legend_columns(ax, labels, font),
        }
    ax.legend([handles[i] for i in order], labels, fontsize=size, **where)


def _legend_columns(ax, labels, font):
    """2 when a two-column legend (filled column by column) is no wider than
    the axes, else 1."""
    from matplotlib import rcParams
    from matplotlib.textpath import TextToPath

    rows = -(-len(labels) // 2)
    width = [
        TextToPath().get_text_width_height_descent(text, font, ismath=False)[0]
        for text in labels
    ]
    em = font.get_size_in_points()
    entry = (rcParams["legend.handlelength"] + rcParams["legend.handletextpad"]) * em
    points = (
        max(width[:rows])
        + max(width[rows:], default=0)
        + 2 * entry
        + (rcParams["legend.columnspacing"] + 2 * rcParams["legend.borderpad"]) * em
    )
    width = ax.get_position().width * ax.figure.bbox.width / ax.figure.dpi * 72
    return 2 if points <= width else 1


def _annotate_k(ax, k, x, y, line):
    """Write a few cut-offs next to their point on a P-against-R curve.

    Each label sits off the curve, along its normal on the side away from the
    origin; a label another curve already wrote at nearly the same place is
    not repeated.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    for value in _annotated_k(int(k[-1])):
        i = int(np.searchsorted(k, value))
        if i == k.size or k[i] != value:
            continue
        text, xy = f"k={value}", (x[i], y[i])
        if any(
            t.get_text() == text and np.hypot(*np.subtract(t.xy, xy)) < 0.02
            for t in ax.texts
        ):
            continue
        before, after = max(i - 1, 0), min(i + 1, k.size - 1)
        dx, dy = x[after] - x[before], y[after] - y[before]
        normal = np.array([-dy, dx]) if dx - dy > 0 else np.array([dy, -dx])
        length = np.hypot(*normal)
        normal = normal / length if length > 0 else np.array([0.7, 0.7])
        ax.annotate(
            text,
            xy,
            xytext=tuple(6 * normal),
            textcoords="offset points",
            ha="left" if normal[0] >= -0.3 else "right",
            va="bottom" if normal[1] >= -0.3 else "top",
            fontsize="small",
            color=line.get_color(),
            bbox={
                "boxstyle": "round,pad=0.1",
                "fc": "white",
                "ec": "none",
                "alpha": 0.6,
            },
        )


def _decorate(ax, kind, despine):
    from matplotlib.ticker import MaxNLocator

    if kind == "precision_recall":
        ax.set(
            xlabel="Recall@k",
            ylabel="Precision@k",
            xlim=(-0.02, 1.02),
            ylim=(-0.02, 1.02),
        )
    else:
        ylabel = (
            "Precision@k, Recall@k"
            if kind == "precision_recall_at_k"
            else f"{METRICS[kind].label}@k"
        )
        ax.set(xlabel="k (cut-off)", ylabel=ylabel)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
        if kind in _PR_KINDS or METRICS[kind].bounds[1] is not None:
            ax.set_ylim(-0.02, 1.02)
        else:  # DCG: from 0, top fitted to every line on the axes
            ax.set_autoscaley_on(True)
            ax.autoscale_view(scalex=False)
            ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    if despine:
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)


class InterpolatedPrecisionRecallDisplay:
    """The interpolated precision-recall curve: trec_eval's 11 points.

    Interpolated precision against recall level (see
    :func:`interpolated_precision_recall_curve`), the curve of the TREC
    tradition; the legend gives its mean, the 11-point average
    (:func:`eleven_point_precision_score`). Create it with
    :meth:`from_predictions` or :meth:`from_estimator`, or from the arrays.

    Parameters
    ----------
    precision : ndarray of shape (n_levels,)
        Mean interpolated precision at each recall level.
    recall : ndarray of shape (n_levels,)
        The recall levels, increasing.
    name : str, default=None
        Name of the curve in the legend.

    Attributes
    ----------
    line_ : matplotlib Line2D
        The curve.
    ax_ : matplotlib Axes
        Axes with the curve.
    figure_ : matplotlib Figure
        Figure with the curve.

    See Also
    --------
    interpolated_precision_recall_curve : The values.
    RankingCurveDisplay : Metrics against the cut-off ``k``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from sklearn_rankk import InterpolatedPrecisionRecallDisplay
    >>> y_true = np.array([[1, 0, 1, 0], [0, 1, 0, 0]])
    >>> y_score = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.1, 0.7, 0.4]])
    >>> display = InterpolatedPrecisionRecallDisplay.from_predictions(
    ...     y_true, y_score, name="model"
    ... )
    >>> display.precision[[0, 10]]
    array([0.625, 0.375])
    >>> [t.get_text() for t in display.ax_.get_legend().get_texts()]
    ['model (11-point average = 0.557)']
    >>> plt.close("all")
    """

    def __init__(self, *, precision, recall, name=None):
        self.precision = precision
        self.recall = recall
        self.name = name

    def plot(self, ax=None, *, name=None, **kwargs):
        """Plot the curve.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to plot on; None creates a new figure and axes.
        name : str, default=None
            Name for the legend; None uses the display's ``name``.
        **kwargs : dict
            Keyword arguments of matplotlib's ``plot``.

        Returns
        -------
        display : InterpolatedPrecisionRecallDisplay
            ``self``, with ``ax_``, ``figure_`` and ``line_`` set.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> from sklearn_rankk import InterpolatedPrecisionRecallDisplay
        >>> display = InterpolatedPrecisionRecallDisplay(
        ...     precision=[1.0, 0.8, 0.5], recall=[0.0, 0.5, 1.0]
        ... )
        >>> display = display.plot(name="by hand")
        >>> display.line_.get_ydata().tolist()
        [1.0, 0.8, 0.5]
        >>> plt.close("all")
        """
        _check_matplotlib_support("InterpolatedPrecisionRecallDisplay.plot")
        precision = np.asarray(self.precision, dtype=np.float64)
        recall = np.asarray(self.recall, dtype=np.float64)
        if precision.ndim != 1 or precision.shape != recall.shape or not recall.size:
            raise ValueError(
                f"precision and recall must be 1-D arrays of one shape; got "
                f"{precision.shape} and {recall.shape}."
            )
        ax = _check_ax(ax)
        self.ax_, self.figure_ = ax, ax.figure
        name = self.name if name is None else name
        summary = f"11-point average = {np.mean(precision):.3f}"
        if recall.size != 11:
            summary = f"mean over {recall.size} levels = {np.mean(precision):.3f}"
        label = f"{name} ({summary})" if name is not None else summary
        style = _style({"marker": "o", "markersize": 4, "label": label}, kwargs)
        (self.line_,) = ax.plot(recall, precision, **style)
        ax.set(
            xlabel="Recall level",
            ylabel="Interpolated precision",
            xlim=(-0.02, 1.02),
            ylim=(0.0, 1.02),
        )
        ax.legend(loc="lower left")
        return self

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        recall_levels=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
        sample_weight=None,
        ignore_ties=False,
        zero_division="warn",
        relevance_threshold=0,
        labels=None,
        qid=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """The curve of scores already computed.

        Parameters
        ----------
        y_true : array-like or sparse matrix of shape (n_samples, n_items), \
or array-like of shape (n_samples,)
            Relevance, as for the metric functions (1-D: class labels).
        y_score : array-like of shape (n_samples, n_items)
            Scores; higher ranks first, ``-inf`` is not retrieved.
        recall_levels : sequence of float, default=(0.0, 0.1, ..., 1.0)
            The recall levels, each in [0, 1].
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample in the means.
        ignore_ties : bool, default=False
            Break ties as scikit-learn does (the later column first) instead
            of averaging over them.
        zero_division : {"warn", 0.0, 1.0, np.nan}, default="warn"
            The value of rows with no relevant item.
        relevance_threshold : float, default=0
            An item is relevant when ``y_true > relevance_threshold``.
        labels : array-like of shape (n_items,), default=None
            Class of each column, with 1-D ``y_true``.
        qid : array-like of shape (n_documents,), default=None
            Query id of each document (flat learning-to-rank data).
        name : str, default=None
            Name of the curve in the legend.
        ax : matplotlib Axes, default=None
            Axes to plot on; None creates a new figure and axes.
        **kwargs : dict
            Keyword arguments of matplotlib's ``plot``.

        Returns
        -------
        display : InterpolatedPrecisionRecallDisplay
            The display, plotted.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> from sklearn_rankk import InterpolatedPrecisionRecallDisplay
        >>> display = InterpolatedPrecisionRecallDisplay.from_predictions(
        ...     [[1, 0, 1, 0]], [[0.9, 0.5, 0.3, 0.1]], recall_levels=[0.0, 1.0]
        ... )
        >>> display.precision.round(3)
        array([1.   , 0.667])
        >>> plt.close("all")
        """
        _check_matplotlib_support(f"{cls.__name__}.from_predictions")
        precision, recall = interpolated_precision_recall_curve(
            y_true,
            y_score,
            recall_levels=recall_levels,
            sample_weight=sample_weight,
            ignore_ties=ignore_ties,
            zero_division=zero_division,
            relevance_threshold=relevance_threshold,
            labels=labels,
            qid=qid,
        )
        display = cls(precision=precision, recall=recall, name=name)
        return display.plot(ax=ax, **kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        response_method=DEFAULT_RESPONSE_METHOD,
        name=None,
        qid=None,
        **kwargs,
    ):
        """The curve of a fitted estimator on ``X``, scored as scorers score.

        Parameters
        ----------
        estimator : estimator
            A fitted classifier, multi-output model or ranker.
        X : array-like
            Input samples.
        y : array-like
            Relevance (2-D), class labels (1-D) or, with ``qid``, one grade
            per document.
        response_method : str or list of str, default="auto"
            As in :func:`make_ranking_scorer`.
        name : str, default=None
            Name of the curve; None uses the estimator's class name.
        qid : array-like of shape (n_documents,), default=None
            Query id of each row of ``X`` (learning-to-rank data).
        **kwargs : dict
            The other parameters of :meth:`from_predictions`.

        Returns
        -------
        display : InterpolatedPrecisionRecallDisplay
            The display, plotted.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> from sklearn.datasets import load_digits
        >>> from sklearn.naive_bayes import GaussianNB
        >>> from sklearn_rankk import InterpolatedPrecisionRecallDisplay
        >>> X, y = load_digits(return_X_y=True)
        >>> nb = GaussianNB().fit(X[:1000], y[:1000])
        >>> display = InterpolatedPrecisionRecallDisplay.from_estimator(
        ...     nb, X[1000:], y[1000:]
        ... )
        >>> display.precision[0].round(3)
        np.float64(0.867)
        >>> plt.close("all")
        """
        _check_matplotlib_support(f"{cls.__name__}.from_estimator")
        check_response_method(response_method)
        y_true, y_score, labels = _estimator_scores(
            estimator, X, y, qid, response_method
        )
        return cls.from_predictions(
            y_true,
            y_score,
            labels=labels,
            qid=qid,
            name=type(estimator).__name__ if name is None else name,
            **kwargs,
        )


class PerQueryDifferenceDisplay:
    """Per-query differences of a system against a baseline, as sorted bars.

    One bar per query: the system's value minus the baseline's on one
    measure, sorted from the largest gain to the largest loss, as in the IR
    literature's per-topic difference plots. Bars where the system is better
    are blue, worse orange, tied grey (for a loss, such as fall-out, lower is
    better); the legend counts the queries won, tied and lost. Create it with
    :meth:`from_comparison` (a :class:`SystemComparison`) or
    :meth:`from_predictions`, or from the arrays.

    Parameters
    ----------
    differences : ndarray of shape (n_queries,)
        System minus baseline, per query (NaN: left out).
    qids : sequence of shape (n_queries,), default=None
        The query of each difference (None: their positions).
    measure : str, default=None
        The measure, for the axis label.
    name : str, default=None
        The system.
    baseline_name : str, default=None
        The baseline.
    greater_is_better : bool, default=True
        Whether a positive difference is a gain.

    Attributes
    ----------
    bars_ : matplotlib BarContainer
        The bars, in plotted order.
    order_ : ndarray of int
        Positions in ``differences`` of the plotted bars, left to right.
    ax_ : matplotlib Axes
        Axes with the bars.
    figure_ : matplotlib Figure
        Figure with the bars.

    See Also
    --------
    compare_systems : The comparison whose differences these are.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from sklearn_rankk import PerQueryDifferenceDisplay
    >>> y_true = np.eye(4, dtype=int)
    >>> system = np.eye(4)
    >>> baseline = np.eye(4)[::-1]
    >>> baseline[0] = [1, 0, 0, 0]
    >>> display = PerQueryDifferenceDisplay.from_predictions(
    ...     y_true, system, baseline, metric="hit@1", name="system",
    ...     baseline_name="baseline",
    ... )
    >>> display.differences
    array([0., 1., 1., 1.])
    >>> [float(bar.get_height()) for bar in display.bars_]
    [1.0, 1.0, 1.0, 0.0]
    >>> plt.close("all")
    """

    def __init__(
        self,
        *,
        differences,
        qids=None,
        measure=None,
        name=None,
        baseline_name=None,
        greater_is_better=True,
    ):
        self.differences = differences
        self.qids = qids
        self.measure = measure
        self.name = name
        self.baseline_name = baseline_name
        self.greater_is_better = greater_is_better

    def plot(self, ax=None, *, name=None, **kwargs):
        """Plot the sorted bars.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to plot on; None creates a new figure and axes.
        name : str, default=None
            The system's name for the label; None uses the display's.
        **kwargs : dict
            Keyword arguments of matplotlib's ``bar`` (``color`` replaces
            the colours of gains and losses).

        Returns
        -------
        display : PerQueryDifferenceDisplay
            ``self``, with ``ax_``, ``figure_``, ``bars_`` and ``order_`` set.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> from sklearn_rankk import PerQueryDifferenceDisplay
        >>> display = PerQueryDifferenceDisplay(differences=[0.1, -0.3, 0.5])
        >>> display = display.plot()
        >>> [round(float(bar.get_height()), 1) for bar in display.bars_]
        [0.5, 0.1, -0.3]
        >>> display.order_.tolist()
        [2, 0, 1]
        >>> plt.close("all")
        """
        _check_matplotlib_support("PerQueryDifferenceDisplay.plot")
        d = np.asarray(self.differences, dtype=np.float64)
        if d.ndim != 1 or not d.size:
            raise ValueError(
                f"differences must be a non-empty 1-D array; got shape {d.shape}."
            )
        ax = _check_ax(ax)
        self.ax_, self.figure_ = ax, ax.figure
        name = self.name if name is None else name
        keep = np.flatnonzero(~np.isnan(d))
        # Largest gain first: the bars go down from left to right.
        sign = 1.0 if self.greater_is_better else -1.0
        self.order_ = keep[np.argsort(-sign * d[keep], kind="stable")]
        values = d[self.order_]
        gains, losses = sign * values > 0, sign * values < 0
        colors = np.where(gains, "C0", np.where(losses, "C1", "0.6"))
        style = {"color": colors, "width": 1.0, "linewidth": 0}
        style.update(kwargs)
        self.bars_ = ax.bar(np.arange(values.size), values, **style)
        ax.axhline(0.0, color="0.3", linewidth=0.8)
        from matplotlib.patches import Patch

        n_tied = int(values.size - gains.sum() - losses.sum())
        handles = [
            Patch(color=color, label=f"{what} on {n} of {values.size} queries")
            for color, what, n in (
                ("C0", "better", int(gains.sum())),
                ("0.6", "tied", n_tied),
                ("C1", "worse", int(losses.sum())),
            )
        ]
        ax.legend(handles=handles, loc="upper right")
        who = " - ".join(str(n) for n in (name, self.baseline_name) if n is not None)
        measure = self.measure if self.measure is not None else "difference"
        ax.set(
            xlabel="Queries, sorted by difference",
            ylabel=f"{measure}: {who}" if who else measure,
            xlim=(-0.5, max(values.size, 1) - 0.5),
        )
        ax.set_xticks([])
        return self

    @classmethod
    def from_comparison(cls, comparison, *, measure=None, system=None, ax=None):
        """Plot one system's per-query differences from a comparison.

        Parameters
        ----------
        comparison : SystemComparison
            The result of :func:`compare_systems`, with a baseline.
        measure : str, default=None
            One of its measures; None: the first.
        system : str, default=None
            One of its systems other than the baseline; None: the first.
        ax : matplotlib Axes, default=None
            Axes to plot on; None creates a new figure and axes.

        Returns
        -------
        display : PerQueryDifferenceDisplay
            The plotted display.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> import numpy as np
        >>> from sklearn_rankk import PerQueryDifferenceDisplay, compare_systems
        >>> rng = np.random.RandomState(0)
        >>> y_true = rng.rand(30, 10) < 0.3
        >>> systems = {"noise": rng.rand(30, 10), "good": y_true + rng.rand(30, 10)}
        >>> comparison = compare_systems(
        ...     y_true, systems, measures=["precision@3"], baseline="noise"
        ... )
        >>> display = PerQueryDifferenceDisplay.from_comparison(comparison)
        >>> display.name, display.baseline_name, display.measure
        ('good', 'noise', 'precision@3')
        >>> for text in display.ax_.get_legend().get_texts():
        ...     print(text.get_text())
        better on 28 of 30 queries
        tied on 2 of 30 queries
        worse on 0 of 30 queries
        >>> plt.close("all")
        """
        _check_matplotlib_support(f"{cls.__name__}.from_comparison")
        baseline = getattr(comparison, "baseline", None)
        if baseline is None:
            raise ValueError(
                "comparison has no baseline: make it with compare_systems(..., "
                "baseline=...)."
            )
        measures, systems = comparison.measures, comparison.systems
        measure = measures[0] if measure is None else measure
        if measure not in measures:
            raise ValueError(
                f"measure={measure!r} is not one of the comparison's measures: "
                f"{', '.join(map(repr, measures))}."
            )
        others = [s for s in systems if s != baseline]
        system = others[0] if system is None else system
        if system not in others:
            raise ValueError(
                f"system={system!r} is not one of the systems compared with "
                f"the baseline: {', '.join(map(repr, others))}."
            )
        values = comparison.per_query[measure]
        display = cls(
            differences=values[system] - values[baseline],
            qids=comparison.qids,
            measure=measure,
            name=system,
            baseline_name=baseline,
            greater_is_better=comparison.greater_is_better[measure],
        )
        return display.plot(ax=ax)

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        y_score_baseline,
        *,
        metric,
        name="system",
        baseline_name="baseline",
        ax=None,
        **kwargs,
    ):
        """Plot the per-query differences of two score matrices.

        Parameters
        ----------
        y_true : array-like or sparse matrix of shape (n_samples, n_items), \
or array-like of shape (n_samples,)
            Relevance, as for the metric functions (1-D: class labels).
        y_score : array-like of shape (n_samples, n_items)
            Scores of the system.
        y_score_baseline : array-like of shape (n_samples, n_items)
            Scores of the baseline.
        metric : str
            A measure name (``"ndcg@10"``), as :func:`compare_systems` takes.
        name : str, default="system"
            The system's name.
        baseline_name : str, default="baseline"
            The baseline's name.
        ax : matplotlib Axes, default=None
            Axes to plot on; None creates a new figure and axes.
        **kwargs
            Options of :func:`compare_systems` that give the values
            (``ignore_ties``, ``zero_division``, ``relevance_threshold``,
            ``labels``, ``qid``, and the measure's parameters).

        Returns
        -------
        display : PerQueryDifferenceDisplay
            The plotted display.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> import numpy as np
        >>> from sklearn_rankk import PerQueryDifferenceDisplay
        >>> y_true = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
        >>> a = np.array([[3, 2, 1], [1, 3, 2], [3, 2, 1]])
        >>> b = np.array([[1, 2, 3], [1, 3, 2], [1, 2, 3]])
        >>> display = PerQueryDifferenceDisplay.from_predictions(
        ...     y_true, a, b, metric="mrr"
        ... )
        >>> display.differences.round(3)
        array([ 0.667,  0.   , -0.667])
        >>> plt.close("all")
        """
        _check_matplotlib_support(f"{cls.__name__}.from_predictions")
        if name == baseline_name:
            raise ValueError(f"name and baseline_name must differ; both are {name!r}.")
        comparison = compare_systems(
            y_true,
            {name: y_score, baseline_name: y_score_baseline},
            measures=[metric],
            baseline=baseline_name,
            **kwargs,
        )
        return cls.from_comparison(comparison, measure=metric, system=name, ax=ax)
