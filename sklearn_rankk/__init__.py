"""Ranking metrics @k for scikit-learn, exact under ties.

Every metric takes ``(y_true, y_score, *, k=...)`` with 2-D score matrices
(rows are queries or users, columns are items) and returns the mean over
rows, or the value of every row with ``average=None``.
"""

from . import _api
from ._api import *  # noqa: F403  (one function per metric of the registry)
from ._core.ranking import num_threads, set_num_threads
from ._display import InterpolatedPrecisionRecallDisplay, RankingCurveDisplay
from ._io.evaluate import evaluate, from_qrels_and_run
from ._io.lists import from_id_lists
from ._io.trec import from_trec, read_trec_qrels, read_trec_run
from ._parallel.accumulator import RankingAccumulator
from ._report import (
    InterpolatedPrecisionRecall,
    PrecisionRecallAtK,
    RankingReport,
    interpolated_precision_recall_curve,
    precision_recall_at_k_curve,
    ranking_report,
)
from ._scorer import RankingScorer, get_scorer, get_scorer_names, make_ranking_scorer
from ._show_versions import show_versions
from ._stats import (
    MetricInterval,
    ModelComparison,
    PairedTestResult,
    RandomBaselineResult,
    compare_models,
    confidence_interval,
    paired_test,
    precision_at_k_random_variance,
    random_baseline_test,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "RankingAccumulator",
    "RankingCurveDisplay",
    "InterpolatedPrecisionRecallDisplay",
    "MetricInterval",
    "ModelComparison",
    "PairedTestResult",
    "RandomBaselineResult",
    "compare_models",
    "confidence_interval",
    "paired_test",
    "precision_at_k_random_variance",
    "random_baseline_test",
    "PrecisionRecallAtK",
    "InterpolatedPrecisionRecall",
    "interpolated_precision_recall_curve",
    "RankingReport",
    "precision_recall_at_k_curve",
    "ranking_report",
    "RankingScorer",
    "get_scorer",
    "get_scorer_names",
    "make_ranking_scorer",
    "evaluate",
    "from_id_lists",
    "from_qrels_and_run",
    "from_trec",
    "read_trec_qrels",
    "read_trec_run",
    "num_threads",
    "set_num_threads",
    "show_versions",
    *_api.__all__,
]
