"""The public metric functions.

Each is a thin, documented entry point into :func:`._metrics.evaluate`; the
parameters they share are documented once, in ``_COMMON``.
"""

from __future__ import annotations

from ._metrics import evaluate

_INPUTS = """\
    y_true : array-like or sparse matrix of shape (n_samples, n_items), or \
array-like of shape (n_samples,)
        Relevance of every item for every sample (query, user). Binary or
        graded (bool, int or float); any scipy.sparse matrix or array is
        used without being densified whole. 1-D ``y_true`` holds class
        labels for a multiclass ``y_score``: column ``j`` of ``y_score``
        scores ``labels[j]``.
    y_score : array-like of shape (n_samples, n_items)
        Scores; higher ranks first. ``-inf`` means "not retrieved": the
        item sits at no rank but still counts among the relevant items.
        NaN is an error."""

_K = """\
    k : int{none}, default={default}
        Cut-off rank: only the top ``k`` items of each row are counted.{none_doc}"""

_COMMON = """\
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each sample (row) in the mean.
    average : {{"mean"}} or None, default="mean"
        ``"mean"`` returns the (weighted) mean over samples as a Python
        float; ``None`` returns the value of every sample as a float64
        array.
    ignore_ties : bool, default=False
        By default, tied scores give the exact expected value over all
        orderings of the tied items, so a constant ``y_score`` scores the
        random-ranking expectation. If True, tied items are ranked by
        column order (lower column index first): deterministic and a little
        faster, but column order then matters.
    zero_division : {{"warn", 0.0, 1.0, np.nan}}, default="warn"
        Value of samples for which the metric is undefined{undefined}.
        ``"warn"`` gives 0.0 and an ``UndefinedMetricWarning``; ``np.nan``
        leaves them out of the mean.{no_zero_division}
    relevance_threshold : float, default=0
        An item is relevant when ``y_true > relevance_threshold``.{graded_doc}
    labels : array-like of shape (n_items,), default=None
        Only with 1-D ``y_true``: the class of each column of ``y_score``,
        sorted. If None, the sorted unique values of ``y_true``, which must
        then contain every class.
    qid : array-like of shape (n_documents,), default=None
        Query id of each document, for flat learning-to-rank data: then
        ``y_true`` and ``y_score`` are 1-D, one value per document, and each
        query's documents form one row (any hashable ids; a query's
        documents need not be contiguous; queries may differ in size). Rows
        follow the order in which each id first appears; ``sample_weight``
        then has one weight per document, constant within each query."""

_RETURNS = """\
    Returns
    -------
    score : float or ndarray of shape (n_samples,)
        The mean over samples if ``average="mean"``, else one value per
        sample."""

_GRADED = """
        Graded metrics use the grade itself as gain, and items at or below
        the threshold have no gain."""

_GAIN = """\
    gain : {"linear", "exponential"}, default="linear"
        Gain of an item of grade ``rel``: ``rel`` (linear, as scikit-learn and
        trec_eval) or ``2**rel - 1`` (exponential, Burges et al.).
    log_base : float, default=2
        Base of the logarithm of the discount ``1 / log(rank + 1)``."""


def _doc(
    summary,
    *,
    k=True,
    allow_none=False,
    undefined="",
    graded=False,
    extra="",
    notes="",
    examples,
):
    none = " or None" if allow_none else ""
    none_doc = "\n        None means the whole row." if allow_none else ""
    k_doc = _K.format(none=none, default=10, none_doc=none_doc) + "\n" if k else ""
    common = _COMMON.format(
        undefined=undefined or " (never: it is 0 on such samples)",
        no_zero_division=""
        if undefined
        else "\n        Accepted for a uniform interface; it has no effect here.",
        graded_doc=_GRADED if graded else "",
    )
    parts = [
        summary,
        "",
        "    Parameters",
        "    ----------",
        _INPUTS,
        k_doc + extra + common,
    ]
    parts += ["", _RETURNS]
    if notes:
        parts += ["", "    Notes", "    -----", notes]
    parts += ["", "    Examples", "    --------", examples]
    return "\n".join(p.rstrip("\n") if i else p for i, p in enumerate(parts)) + "\n    "


def _documented(doc):
    def wrap(func):
        func.__doc__ = doc
        return func

    return wrap


_EXAMPLE_DATA = """\
    >>> import numpy as np
    >>> y_true = np.array([[1, 0, 1, 0], [0, 1, 0, 0]])
    >>> y_score = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.1, 0.7, 0.4]])"""

_NO_RELEVANT = " (samples with no relevant item)"


@_documented(
    _doc(
        """    Precision at k: the fraction of the top ``k`` items that are relevant.

    ``P@k = |relevant items in the top k| / k``. It divides by ``k`` even
    when a row has fewer than ``k`` items or fewer than ``k`` retrieved
    (finite) scores, as trec_eval does.""",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import precision_at_k_score
    >>> precision_at_k_score(y_true, y_score, k=2)
    0.25
    >>> precision_at_k_score(y_true, y_score, k=2, average=None)
    array([0.5, 0. ])

    A constant score ranks at random; ties make it score the base rate:

    >>> precision_at_k_score(y_true, np.zeros((2, 4)), k=2)
    0.375""",
    )
)
def precision_at_k_score(
    y_true,
    y_score,
    *,
    k=10,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
    labels=None,
    qid=None,
):
    return evaluate(
        "precision",
        y_true,
        y_score,
        k=k,
        sample_weight=sample_weight,
        average=average,
        ignore_ties=ignore_ties,
        zero_division=zero_division,
        relevance_threshold=relevance_threshold,
        labels=labels,
        qid=qid,
    )


@_documented(
    _doc(
        """    Recall at k: the fraction of the relevant items found in the top ``k``.

    ``R@k = |relevant items in the top k| / |relevant items|``, where the
    relevant items include those not retrieved (score ``-inf``).""",
        undefined=_NO_RELEVANT,
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import recall_at_k_score
    >>> recall_at_k_score(y_true, y_score, k=2)
    0.25
    >>> recall_at_k_score(y_true, y_score, k=4)
    1.0""",
    )
)
def recall_at_k_score(
    y_true,
    y_score,
    *,
    k=10,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
    labels=None,
    qid=None,
):
    return evaluate(
        "recall",
        y_true,
        y_score,
        k=k,
        sample_weight=sample_weight,
        average=average,
        ignore_ties=ignore_ties,
        zero_division=zero_division,
        relevance_threshold=relevance_threshold,
        labels=labels,
        qid=qid,
    )


@_documented(
    _doc(
        """    F1 at k: the harmonic mean of precision at k and recall at k.

    ``F1@k = 2 P@k R@k / (P@k + R@k) = 2 |relevant in top k| / (k + |R|)``
    (0 when nothing relevant is in the top ``k``).""",
        undefined=_NO_RELEVANT,
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import f1_at_k_score
    >>> f1_at_k_score(y_true, y_score, k=2)
    0.25""",
    )
)
def f1_at_k_score(
    y_true,
    y_score,
    *,
    k=10,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
    labels=None,
    qid=None,
):
    return evaluate(
        "f1",
        y_true,
        y_score,
        k=k,
        sample_weight=sample_weight,
        average=average,
        ignore_ties=ignore_ties,
        zero_division=zero_division,
        relevance_threshold=relevance_threshold,
        labels=labels,
        qid=qid,
    )


@_documented(
    _doc(
        """    Hit at k (success@k): 1 if a relevant item is in the top ``k``, else 0.

    On 1-D class labels this is scikit-learn's ``top_k_accuracy_score``.
    Under ties, the value is the probability of a hit over all orderings of
    the tied items.""",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import hit_at_k_score
    >>> hit_at_k_score(y_true, y_score, k=2)
    0.5

    With class labels, as ``top_k_accuracy_score``:

    >>> hit_at_k_score([2, 0], [[0.1, 0.3, 0.6], [0.2, 0.5, 0.3]], k=2,
    ...                labels=[0, 1, 2])
    0.5""",
    )
)
def hit_at_k_score(
    y_true,
    y_score,
    *,
    k=10,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
    labels=None,
    qid=None,
):
    return evaluate(
        "hit",
        y_true,
        y_score,
        k=k,
        sample_weight=sample_weight,
        average=average,
        ignore_ties=ignore_ties,
        zero_division=zero_division,
        relevance_threshold=relevance_threshold,
        labels=labels,
        qid=qid,
    )


@_documented(
    _doc(
        """    Mean reciprocal rank at k: ``1 / rank`` of the first relevant item.

    0 when no relevant item is in the top ``k``. With ``k=None`` this is
    trec_eval's ``recip_rank``.""",
        allow_none=True,
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import mrr_at_k_score
    >>> mrr_at_k_score(y_true, y_score, k=None)
    0.625
    >>> mrr_at_k_score(y_true, y_score, k=3)
    0.5""",
    )
)
def mrr_at_k_score(
    y_true,
    y_score,
    *,
    k=10,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
    labels=None,
    qid=None,
):
    return evaluate(
        "mrr",
        y_true,
        y_score,
        k=k,
        sample_weight=sample_weight,
        average=average,
        ignore_ties=ignore_ties,
        zero_division=zero_division,
        relevance_threshold=relevance_threshold,
        labels=labels,
        qid=qid,
    )


@_documented(
    _doc(
        """    Mean average precision at k.

    ``AP@k = sum over ranks i <= k of rel_i * P@i / denominator``, averaged
    over samples.""",
        allow_none=True,
        undefined=_NO_RELEVANT,
        extra="""\
    denominator : {"relevant", "min", "retrieved"}, default="relevant"
        ``"relevant"``: the number of relevant items |R| (trec_eval's
        ``map_cut_k``, ranx, ir-measures); ``"min"``: ``min(k, |R|)`` (Spark,
        recommenders, implicit); ``"retrieved"``: the number of relevant
        items in the top k, i.e. the mean of the precisions at the relevant
        ranks (torchmetrics).
""",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import map_at_k_score
    >>> map_at_k_score(y_true, y_score, k=None)
    0.5
    >>> map_at_k_score(y_true, y_score, k=1)
    0.25
    >>> map_at_k_score(y_true, y_score, k=1, denominator="min")
    0.5""",
    )
)
def map_at_k_score(
    y_true,
    y_score,
    *,
    k=10,
    denominator="relevant",
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
    labels=None,
    qid=None,
):
    return evaluate(
        "map",
        y_true,
        y_score,
        k=k,
        sample_weight=sample_weight,
        average=average,
        ignore_ties=ignore_ties,
        zero_division=zero_division,
        relevance_threshold=relevance_threshold,
        labels=labels,
        qid=qid,
        denominator=denominator,
    )


@_documented(
    _doc(
        """    Discounted cumulative gain at k.

    ``DCG@k = sum over ranks i <= k of gain(rel_i) / log_base(i + 1)``.
    Equal to scikit-learn's ``dcg_score`` (both tie modes).""",
        allow_none=True,
        graded=True,
        extra=_GAIN + "\n",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import dcg_at_k_score
    >>> dcg_at_k_score(y_true, y_score, k=2)
    0.5
    >>> dcg_at_k_score([[3, 2, 0]], [[0.1, 0.5, 0.2]], k=None, gain="exponential")
    6.5""",
    )
)
def dcg_at_k_score(
    y_true,
    y_score,
    *,
    k=10,
    gain="linear",
    log_base=2,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
    labels=None,
    qid=None,
):
    return evaluate(
        "dcg",
        y_true,
        y_score,
        k=k,
        sample_weight=sample_weight,
        average=average,
        ignore_ties=ignore_ties,
        zero_division=zero_division,
        relevance_threshold=relevance_threshold,
        labels=labels,
        qid=qid,
        gain=gain,
        log_base=log_base,
    )


@_documented(
    _doc(
        """    Normalized discounted cumulative gain at k.

    ``nDCG@k = DCG@k / IDCG@k``, where the ideal DCG ranks every item of the
    row, retrieved or not, by decreasing gain. Equal to scikit-learn's
    ``ndcg_score`` (both tie modes) on samples with a relevant item.""",
        allow_none=True,
        graded=True,
        undefined=" (samples whose ideal DCG is 0: no relevant item)",
        extra=_GAIN + "\n",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import ndcg_at_k_score
    >>> round(ndcg_at_k_score(y_true, y_score, k=2), 6)
    0.306574
    >>> ndcg_at_k_score([[3, 2, 0]], [[0.9, 0.5, 0.2]], k=None)
    1.0""",
    )
)
def ndcg_at_k_score(
    y_true,
    y_score,
    *,
    k=10,
    gain="linear",
    log_base=2,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
    labels=None,
    qid=None,
):
    return evaluate(
        "ndcg",
        y_true,
        y_score,
        k=k,
        sample_weight=sample_weight,
        average=average,
        ignore_ties=ignore_ties,
        zero_division=zero_division,
        relevance_threshold=relevance_threshold,
        labels=labels,
        qid=qid,
        gain=gain,
        log_base=log_base,
    )


@_documented(
    _doc(
        """    R-precision: precision at rank |R|, the number of relevant items.

    ``R-precision = P@|R| = R@|R|``, with |R| taken per sample (trec_eval's
    ``Rprec``). It has no ``k``.""",
        k=False,
        undefined=_NO_RELEVANT,
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import r_precision_score
    >>> r_precision_score(y_true, y_score)
    0.25""",
    )
)
def r_precision_score(
    y_true,
    y_score,
    *,
    sample_weight=None,
    average="mean",
    ignore_ties=False,
    zero_division="warn",
    relevance_threshold=0,
    labels=None,
    qid=None,
):
    return evaluate(
        "r_precision",
        y_true,
        y_score,
        k=None,
        sample_weight=sample_weight,
        average=average,
        ignore_ties=ignore_ties,
        zero_division=zero_division,
        relevance_threshold=relevance_threshold,
        labels=labels,
        qid=qid,
    )
