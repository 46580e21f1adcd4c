"""Metric metadata, read by the common tests and, later, scorers and reports."""

from __future__ import annotations

from dataclasses import dataclass

from . import _api


@dataclass(frozen=True)
class MetricInfo:
    """What the rest of the package needs to know about one metric.

    Attributes
    ----------
    name : str
        Short name, as in scorer names (``"ndcg"`` for ``"ndcg@10"``).
    function : callable
        The public metric function.
    needs_k : bool
        Whether the metric has a cut-off ``k`` (False for R-precision).
    allow_k_none : bool
        Whether ``k=None`` (the whole ranking) is accepted.
    graded : bool
        Whether the metric uses graded relevance as gain.
    bounds : tuple of float
        Range of the value; ``None`` for an unbounded side.
    perfect_is_one : bool
        Whether a perfect ranking scores 1 by definition, whatever k and |R|.
    greater_is_better : bool
        Always True: every metric is a ``*_score``.
    """

    name: str
    function: object
    needs_k: bool = True
    allow_k_none: bool = False
    graded: bool = False
    bounds: tuple = (0.0, 1.0)
    perfect_is_one: bool = False
    greater_is_better: bool = True


METRICS = {
    info.name: info
    for info in [
        MetricInfo("precision", _api.precision_at_k_score),
        MetricInfo("recall", _api.recall_at_k_score),
        MetricInfo("f1", _api.f1_at_k_score),
        MetricInfo("hit", _api.hit_at_k_score, perfect_is_one=True),
        MetricInfo("mrr", _api.mrr_at_k_score, allow_k_none=True, perfect_is_one=True),
        MetricInfo("map", _api.map_at_k_score, allow_k_none=True),
        MetricInfo(
            "dcg",
            _api.dcg_at_k_score,
            allow_k_none=True,
            graded=True,
            bounds=(0.0, None),
        ),
        MetricInfo(
            "ndcg",
            _api.ndcg_at_k_score,
            allow_k_none=True,
            graded=True,
            perfect_is_one=True,
        ),
        MetricInfo(
            "r_precision", _api.r_precision_score, needs_k=False, perfect_is_one=True
        ),
    ]
}
