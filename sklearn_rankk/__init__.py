"""Ranking metrics @k for scikit-learn, exact under ties.

Every metric takes ``(y_true, y_score, *, k=...)`` with 2-D score matrices
(rows are queries or users, columns are items) and returns the mean over
rows, or the value of every row with ``average=None``.
"""

from ._core.registry import METRICS as _METRICS

# typing.TYPE_CHECKING without importing typing (a few milliseconds of the
# command line's start); type checkers read the name as True.
TYPE_CHECKING = False

if TYPE_CHECKING:  # for type checkers and linters; imported lazily below
    from ._api import *  # noqa: F403  (one function per metric of the registry)
    from ._beyond import (
        average_popularity_at_k,
        catalog_coverage_at_k,
        entropy_at_k,
        gini_index_at_k,
        item_exposure,
        long_tail_share_at_k,
        novelty_at_k,
    )
    from ._compare import SystemComparison, compare_systems
    from ._core.ranking import num_threads, set_num_threads
    from ._display import (
        InterpolatedPrecisionRecallDisplay,
        PerQueryDifferenceDisplay,
        RankingCurveDisplay,
    )
    from ._diversity import (
        alpha_ndcg_at_k,
        err_ia_at_k,
        intent_aware_precision_at_k,
        nerr_ia_at_k,
        subtopic_recall_at_k,
    )
    from ._io.evaluate import evaluate, from_qrels_and_run
    from ._io.lists import from_id_lists
    from ._io.trec import from_trec, read_trec_qrels, read_trec_run
    from ._parallel.accumulator import RankingAccumulator
    from ._parallel.exposure import ExposureAccumulator
    from ._propensity import inverse_propensity
    from ._report import (
        InterpolatedPrecisionRecall,
        PrecisionRecallAtK,
        RankingReport,
        interpolated_precision_recall_curve,
        precision_recall_at_k_curve,
        ranking_report,
    )
    from ._scorer import (
        RankingScorer,
        get_scorer,
        get_scorer_names,
        make_ranking_scorer,
    )
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

# Every public name is imported on first use (PEP 562): the metric functions
# and the readers with numpy, the others with scikit-learn, scipy or
# matplotlib, so that ``import sklearn_rankk`` and the command line (which
# imports the package first) import none of them: the command line evaluates
# trec_eval's small files in the time numpy takes to import.
#: The metric functions of the registry (``_api.__all__``).
_API_NAMES = tuple(metric.function_name for metric in _METRICS.values())
_LAZY = {
    "_api": _API_NAMES,
    "_beyond": (
        "average_popularity_at_k",
        "catalog_coverage_at_k",
        "entropy_at_k",
        "gini_index_at_k",
        "item_exposure",
        "long_tail_share_at_k",
        "novelty_at_k",
    ),
    "_core.ranking": ("num_threads", "set_num_threads"),
    "_diversity": (
        "alpha_ndcg_at_k",
        "err_ia_at_k",
        "intent_aware_precision_at_k",
        "nerr_ia_at_k",
        "subtopic_recall_at_k",
    ),
    "_io.evaluate": ("evaluate", "from_qrels_and_run"),
    "_propensity": ("inverse_propensity",),
    "_io.lists": ("from_id_lists",),
    "_io.trec": ("from_trec", "read_trec_qrels", "read_trec_run"),
    "_compare": ("SystemComparison", "compare_systems"),
    "_report": (
        "InterpolatedPrecisionRecall",
        "PrecisionRecallAtK",
        "RankingReport",
        "interpolated_precision_recall_curve",
        "precision_recall_at_k_curve",
        "ranking_report",
    ),
    "_display": (
        "InterpolatedPrecisionRecallDisplay",
        "PerQueryDifferenceDisplay",
        "RankingCurveDisplay",
    ),
    "_parallel.accumulator": ("RankingAccumulator",),
    "_parallel.exposure": ("ExposureAccumulator",),
    "_scorer": (
        "RankingScorer",
        "get_scorer",
        "get_scorer_names",
        "make_ranking_scorer",
    ),
    "_show_versions": ("show_versions",),
    "_stats": (
        "MetricInterval",
        "ModelComparison",
        "PairedTestResult",
        "RandomBaselineResult",
        "compare_models",
        "confidence_interval",
        "paired_test",
        "precision_at_k_random_variance",
        "random_baseline_test",
    ),
}
_LAZY_MODULE = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name):
    module = _LAZY_MODULE.get(name)
    if module == "_api":
        from . import _api as found
    elif module == "_beyond":
        from . import _beyond as found
    elif module == "_core.ranking":
        from ._core import ranking as found
    elif module == "_diversity":
        from . import _diversity as found
    elif module == "_propensity":
        from . import _propensity as found
    elif module == "_io.evaluate":
        from ._io import evaluate as found
    elif module == "_io.lists":
        from ._io import lists as found
    elif module == "_io.trec":
        from ._io import trec as found
    elif module == "_compare":
        from . import _compare as found
    elif module == "_report":
        from . import _report as found
    elif module == "_display":
        from . import _display as found
    elif module == "_parallel.accumulator":
        from ._parallel import accumulator as found
    elif module == "_parallel.exposure":
        from ._parallel import exposure as found
    elif module == "_scorer":
        from . import _scorer as found
    elif module == "_show_versions":
        from . import _show_versions as found
    elif module == "_stats":
        from . import _stats as found
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(found, name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


__version__ = "0.1.0.dev0"

__all__ = [
    "RankingAccumulator",
    "RankingCurveDisplay",
    "InterpolatedPrecisionRecallDisplay",
    "PerQueryDifferenceDisplay",
    "MetricInterval",
    "ModelComparison",
    "PairedTestResult",
    "RandomBaselineResult",
    "compare_models",
    "SystemComparison",
    "compare_systems",
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
    *_API_NAMES,
    # beyond-accuracy measures (_beyond.py, _parallel/exposure.py)
    "ExposureAccumulator",
    "item_exposure",
    "catalog_coverage_at_k",
    "gini_index_at_k",
    "entropy_at_k",
    "average_popularity_at_k",
    "novelty_at_k",
    "long_tail_share_at_k",
    # intent-aware measures (_diversity.py)
    "intent_aware_precision_at_k",
    "subtopic_recall_at_k",
    "alpha_ndcg_at_k",
    "err_ia_at_k",
    "nerr_ia_at_k",
    # inverse propensities for the propensity-scored metrics (_propensity.py)
    "inverse_propensity",
]
