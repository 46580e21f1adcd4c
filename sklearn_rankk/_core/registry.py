"""The metric registry: everything the package knows about each metric.

One frozen :class:`Metric` per metric holds its name, its public function's
name, its trec_eval names, whether it takes a cut-off ``k``, whether it is
graded, its own parameters with their defaults, its bounds, its plot label,
what its rows with no relevant item are worth, its per-row formula and the
text of its documentation. Scorer names, ``get_scorer_names()``, report
columns, the command line's ``-m`` names, display labels, the public
functions and their docstrings, the API docs list and the common tests are
all read from here. This is the only module that spells a metric's name.

Adding a metric is one :class:`Metric` entry here, its per-row formula in the
kernel (a ``formulas_*.hpp`` header and a case of ``process_row`` in
``driver.hpp``) and its oracle in the tests.
"""

from __future__ import annotations

import difflib
import functools
import math
import re
from dataclasses import dataclass

from . import _kernel


@dataclass(frozen=True)
class Param:
    """A metric's own keyword parameter.

    Attributes
    ----------
    name : str
        Keyword name.
    default : object
        Default value.
    choices : tuple or None
        The accepted values, if it is an option.
    low : float or None
        If a real number: the value must be larger than ``low`` (or equal,
        with ``low_inclusive``).
    low_inclusive : bool
        Whether ``low`` itself is accepted.
    none_ok : bool
        Whether None is accepted besides a real number.
    whole_row_only : bool
        Whether a value other than None needs ``k=None`` (the whole row).
    callable_ok : bool
        Whether an option (``choices``) also takes a callable.
    gain_map : bool
        Whether the value is a gain map: None, a mapping of grades to gains,
        or a callable of the grade (validated into a tuple of pairs, or kept).
    high : float or None
        If a real number: the value must be below ``high`` (or equal, with
        ``high_inclusive``).
    sequence : bool
        Whether the value is a non-empty sequence of such real numbers (a
        tuple of floats once validated).
    item_weights : bool
        Whether the value is None or one weight > 0 per item (column) of
        ``y_score`` (validated into a hashable ``ItemWeights``).
    doc : str
        Its numpydoc entry (type line and description).
    """

    name: str
    default: object
    choices: tuple | None = None
    low: float | None = None
    low_inclusive: bool = False
    doc: str = ""
    high: float | None = None  # if a real number: the value must be below it
    high_inclusive: bool = False  # or equal to it
    sequence: bool = False
    none_ok: bool = False
    whole_row_only: bool = False  # a value but None only with k=None
    callable_ok: bool = False  # an option that also takes a callable
    gain_map: bool = False  # None, a mapping grade -> gain, or a callable
    item_weights: bool = False  # None, or one weight > 0 per item (column)


DENOMINATOR = Param(
    "denominator",
    "relevant",
    choices=("relevant", "min", "retrieved"),
    doc="""\
    denominator : {"relevant", "min", "retrieved"}, default="relevant"
        ``"relevant"``: the number of relevant items |R| (trec_eval's
        ``map_cut_k``, ranx, ir-measures); ``"min"``: ``min(k, |R|)`` (Spark,
        recommenders, implicit); ``"retrieved"``: the number of relevant
        items in the top k, i.e. the mean of the precisions at the relevant
        ranks (torchmetrics).""",
)
GAIN = Param(
    "gain",
    "linear",
    choices=("linear", "exponential"),
    doc="""\
    gain : {"linear", "exponential"}, default="linear"
        Gain of an item of grade ``rel``: ``rel`` (linear, as scikit-learn and
        trec_eval) or ``2**rel - 1`` (exponential, Burges et al.).""",
)
LOG_BASE = Param(
    "log_base",
    2,
    low=1,
    doc="""\
    log_base : float, default=2
        Base of the logarithm of the discount ``1 / log(rank + 1)``.""",
)
GAINS = Param(
    "gains",
    None,
    gain_map=True,
    doc="""\
    gains : dict or callable, default=None
        A gain map: ``{grade: gain}`` (trec_eval's ``ndcg.1=3.5,2=9``,
        ir_measures' ``gains=``), or a callable of the grade, called once on
        the float array of the relevant grades (for integer ``y_true``:
        every whole grade up to the largest). A relevant grade (above
        ``relevance_threshold``, not negative) listed in the map has its
        gain, which may be 0 or negative; any other relevant grade keeps the
        gain of ``gain``. The ideal ranking orders the items by their gains.
        None: the gain of ``gain`` for every grade. Not with
        ``gain="exponential"``.""",
)
DISCOUNT = Param(
    "discount",
    "log",
    choices=("log", "jarvelin", "reciprocal", "geometric"),
    callable_ok=True,
    doc="""\
    discount : {"log", "jarvelin", "reciprocal", "geometric"} or callable, \
default="log"
        The discount of rank ``i`` (1-based): ``"log"``, ``1 / log_b(i + 1)``
        with ``b = log_base``; ``"jarvelin"``, 1 for ``i < b`` and
        ``1 / log_b(i)`` after (Jarvelin and Kekalainen 2002, trec_eval's
        ``ndcg_p`` at ``b = 2``); ``"reciprocal"``, ``1 / i``;
        ``"geometric"``, ``discount_p ** (i - 1)``; or a callable of the
        1-based rank (called once on the float array of ranks 1..n, or once
        per rank if it does not take arrays) giving a real discount.""",
)
DISCOUNT_P = Param(
    "discount_p",
    0.9,
    low=0.0,
    high=1.0,
    doc="""\
    discount_p : float, default=0.9
        The ratio of ``discount="geometric"``, in (0, 1): rank ``i`` is
        discounted by ``discount_p ** (i - 1)`` (rank-biased precision's
        weights, unnormalised). Read by no other discount.""",
)
MAX_REL = Param(
    "max_rel",
    None,
    low=0.0,
    none_ok=True,
    doc="""\
    max_rel : float or None, default=None
        The grade of the all-relevant list that SDCG's normaliser ranks at
        every rank (ir_measures' ``max_rel``): its gain times the sum of the
        first k discounts. None takes each row's largest gain, so that binary
        relevance needs nothing (its largest gain is 1).""",
)

BETA = Param(
    "beta",
    1.0,
    low=0.0,
    low_inclusive=True,
    doc="""\
    beta : float, default=1.0
        Weight of recall against precision, as in scikit-learn's
        ``fbeta_score``: recall counts ``beta`` times as much as precision
        (``beta=1``: F1; ``beta=0``: precision). trec_eval's ``set_F.x``
        weights by ``x = beta**2``.""",
)

MULTIPLE = Param(
    "multiple",
    1.0,
    low=0.0,
    doc="""\
    multiple : float, default=1.0
        Cut each sample at this multiple of its |R|: at rank
        ``c = floor(multiple * |R| + 0.9)``, trec_eval's ``Rprec_mult_x``
        (precision at c, ranks past the end of the row counting as not
        relevant). At 1.0, c = |R| and the value is R-precision.""",
)

RECALL_LEVEL = Param(
    "recall_level",
    0.0,
    low=0.0,
    low_inclusive=True,
    high=1.0,
    high_inclusive=True,
    doc="""\
    recall_level : float, default=0.0
        Recall level x in [0, 1]: the value is the interpolated precision at
        ``c = round(x * |R|)`` relevant items (halves away from zero, trec_eval
        10.0's ``iprec_at_recall_x``). The default, 0, is the best precision
        reached at any relevant rank ("initial precision", trec_eval's
        ``iprec_at_recall_0.00``), the same for every |R|.""",
)
RECALL_LEVELS = Param(
    "recall_levels",
    (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    low=0.0,
    low_inclusive=True,
    high=1.0,
    high_inclusive=True,
    sequence=True,
    doc="""\
    recall_levels : sequence of float, default=(0.0, 0.1, ..., 1.0)
        The recall levels in [0, 1] whose interpolated precisions are
        averaged (trec_eval's ``11pt_avg`` and its 11 default levels).""",
)

MAX_GRADE = Param(
    "max_grade",
    4,
    low=0.0,
    none_ok=True,
    doc="""\
    max_grade : float or None, default=4
        The largest grade of the scale, ``g_max`` in ``R = (2**g - 1) /
        2**g_max``, the probability that an item of grade ``g`` satisfies the
        user. The default 4 is gdeval's (TREC Web track, ir-measures' ``ERR``)
        and RankLib's: a 0-4 scale. None takes each row's largest relevant
        grade (rankeval), so that the best item of every row has
        ``R = 1 - 2**-g``. A relevant grade above ``max_grade`` is an error.""",
)

PERSISTENCE = Param(
    "p",
    0.9,
    low=0.0,
    high=1.0,
    doc="""\
    p : float, default=0.9
        Persistence, in (0, 1): the probability that the user goes on from one
        rank to the next (trec_eval's ``rbp.p``, default 0.9).""",
)


def _utility_weight(name, default, what):
    return Param(
        name,
        default,
        doc=f"""\
    {name} : float, default={default}
        Coefficient of the number of {what}.""",
    )


UTILITY_WEIGHTS = (
    _utility_weight("tp_weight", 1.0, "relevant retrieved items (true positives)"),
    _utility_weight(
        "fp_weight", -1.0, "non-relevant retrieved items (false positives)"
    ),
    _utility_weight("fn_weight", 0.0, "relevant items not retrieved (false negatives)"),
    _utility_weight(
        "tn_weight", 0.0, "non-relevant items not retrieved (true negatives)"
    ),
)

MAX_FPR = Param(
    "max_fpr",
    None,
    low=0.0,
    high=1.0,
    high_inclusive=True,
    none_ok=True,
    whole_row_only=True,
    doc="""\
    max_fpr : float or None, default=None
        If not None, the standardized partial AUC up to this false positive
        rate, in (0, 1], as scikit-learn's ``roc_auc_score(max_fpr=)``: the
        area under the ROC curve from 0 to ``max_fpr``, standardized by
        McClish (1989) so that a random ranking scores 0.5 and a perfect one
        1. Only with ``k=None`` (the whole row).""",
)

PROPENSITY = Param(
    "propensity",
    None,
    item_weights=True,
    doc="""\
    propensity : array-like of shape (n_items,), default=None
        The inverse propensity of each item (column), ``1 / p_l``: the
        weight of a relevant item in the top ``k``
        (:func:`inverse_propensity` computes Jain et al.'s from the training
        labels). Finite and > 0. None weighs every item 1.""",
)

#: Every metric parameter, by name (each means the same for every metric).
PARAMS = {
    p.name: p
    for p in (
        DENOMINATOR,
        GAIN,
        LOG_BASE,
        BETA,
        PERSISTENCE,
        *UTILITY_WEIGHTS,
        MULTIPLE,
        RECALL_LEVEL,
        RECALL_LEVELS,
        MAX_GRADE,
        MAX_FPR,
        GAINS,
        DISCOUNT,
        DISCOUNT_P,
        MAX_REL,
        PROPENSITY,
    )
}


@dataclass(frozen=True)
class Metric:
    """What the package knows about one metric.

    Attributes
    ----------
    name : str
        Short name: scorer names are ``"<name>@<k>"`` (or ``name`` alone for
        the whole ranking), report rows and ``get_scorer`` keys use it.
    function_name : str
        Name of the public function (``"ndcg_at_k_score"``).
    label : str
        Name on plots and in legends (``"nDCG"``).
    formula : int
        The kernel's code of its per-row formula (``_kernel.NDCG``, ...): the
        kernel computes it at any cut-off, or at every cut-off of a curve.
    needs_k : bool
        Whether the metric has a cut-off ``k`` (False: R-precision and the
        set measures, cut at each row's own depth, see ``row_cut``).
    row_cut : {"n_relevant", "n_retrieved", "whole"}
        Without ``k``, where each row is cut: at its number of relevant
        items (R-precision), of retrieved items, those with a score above
        ``-inf`` (the set measures), or nowhere (interpolated precision).
    allow_k_none : bool
        Whether ``k=None`` (the whole ranking) is accepted.
    graded : bool
        Whether the metric uses graded relevance as gain (a negative grade
        has no gain, as in trec_eval).
    needs_ideal : bool
        Whether the formula reads the ideal ranking's grades.
    reads_judgments : bool
        Whether the metric tells judged items from unjudged ones (negative
        grades): bpref, infAP, the unjudged fraction, fall-out. Their inputs must mark
        the unjudged items (``mark_unjudged=True`` of :func:`from_trec` and
        :func:`from_id_lists`); a grade 0 is a judged non-relevant item.
    params : tuple of Param
        Its own keyword parameters, in signature order.
    bounds : tuple
        Range of the value; ``None`` for an unbounded side.
    perfect_is_one : bool
        Whether a perfect ranking scores 1 by definition, whatever k and |R|.
    trivial_at_full_depth : bool
        Whether, on class labels, a cut-off covering every class makes the
        value 1 whatever the scores (hit@k, scikit-learn's
        ``top_k_accuracy_score``, which warns then; so does the package).
    empty_rows : {"zero_division", "zero", "never"}
        The metric on a row with no relevant item: ``"zero_division"``,
        undefined (``zero_division="warn"`` gives 0 and warns); ``"zero"``,
        0 by definition (``"warn"`` keeps it silently). ``zero_division``'s
        other values (0.0, 1.0, nan) apply to both, so that nan leaves the
        same rows out of every metric. ``"never"``: the metric has its own
        value there, and ``zero_division`` does not apply (utility, the
        unjudged fraction).
    in_default_report : bool
        Whether :func:`~sklearn_rankk.ranking_report` shows it by default
        (F-beta does not: at its default beta it is F1).
    greater_is_better : bool
        False for a loss (fall-out: its function ends in ``_loss``) and for
        the diagnostics: the scorer, ``"neg_<name>@<k>"``, gives the negated
        value, which model selection maximises (scikit-learn's convention).
    diagnostic : bool
        Whether it measures the judgments rather than the ranking (the
        unjudged fraction, RBP's residual; lower is better: the other
        measures rest on more judgments). Not a ``*_score`` nor a loss; its
        scorer is negated, as a loss's, for ``cross_validate`` to report it
        beside the scores.
    undefined_when : str
        The rows where ``zero_division`` applies, in words (messages).
    trec_eval_cutoff : str or None
        trec_eval's name of the metric at a cut-off (``"P"`` for ``P_10``).
    trec_eval_whole : str or None
        trec_eval's name of the metric over the whole ranking.
    trec_eval_cutoffs : tuple of int
        trec_eval's cut-offs when the cut-off family is named alone.
    trec_eval_family : str or None
        trec_eval's name of the metric's family with a real parameter
        (``"Rprec_mult"`` for ``Rprec_mult_0.20``): each value sets the
        keyword ``trec_eval_param``; the family named alone takes
        ``trec_eval_values``.
    trec_eval_param : str or None
        The keyword parameter that trec_eval's parameters set: one value per
        measure of ``trec_eval_family``, or, for ``trec_eval_whole`` without a
        family, the tuple of values of ``<name>.<v1>,<v2>,...``.
    trec_eval_values : tuple of float
        The values of ``trec_eval_family`` named alone.
    trec_eval_level_gate : bool
        Whether trec_eval gives 0 on a query without a document at ``-l``'s
        level although the measure itself reads every positive grade
        (``Rndcg``): the command line does the same.
    aliases : tuple of str
        Other names accepted as ``<alias>@<k>`` on the command line.
    reads_scores : bool
        Whether the value depends on ``y_score`` (False: the ideal DCG, a
        property of ``y_true`` alone).
    summary, undefined_doc, examples : str
        Documentation: the docstring's opening, the description of the rows
        where ``zero_division`` applies, and the Examples section.
    default_k : int or None
        The default of its public function's ``k`` (None: the whole row).
    pair_count : int or None
        The kernel's per-row count of the pairs the metric averages over
        (``_kernel.COUNT_*``), for ``average="pairs"`` (the micro average
        over all pairs); None: the metric is not a pair average.
    ideal_weight : {"k", "binary_ideal_dcg"} or None
        A propensity-scored metric (Jain, Prabhu and Varma 2016): its
        per-row value is ``DCG / ideal DCG`` on the gains ``y_l w_l`` of
        ``propensity``, and its mean weights each row by its best achievable
        unnormalised value, the ideal over ``k`` (PSP@k) or over the binary
        ideal DCG@k (PSnDCG@k), which is pyxclib's ratio of the dataset
        means (``average="ideal"``, the default of its function, scorers,
        reports and accumulators). None for every other metric.
    fixed_discount : str or None
        A discount the metric always uses (``"constant"``: 1 at every rank,
        PSP@k's sum of gains); None: its ``discount`` parameter, else the log.
    """

    name: str
    function_name: str
    label: str
    formula: int
    needs_k: bool = True
    row_cut: str = "n_relevant"
    allow_k_none: bool = False
    graded: bool = False
    needs_ideal: bool = False
    reads_judgments: bool = False
    params: tuple = ()
    bounds: tuple = (0.0, 1.0)
    perfect_is_one: bool = False
    trivial_at_full_depth: bool = False
    empty_rows: str = "zero_division"
    in_default_report: bool = True
    greater_is_better: bool = True
    diagnostic: bool = False
    undefined_when: str = "no relevant item"
    trec_eval_cutoff: str | None = None
    trec_eval_whole: str | None = None
    trec_eval_cutoffs: tuple = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    trec_eval_family: str | None = None
    trec_eval_param: str | None = None
    trec_eval_values: tuple = ()
    trec_eval_level_gate: bool = False
    aliases: tuple = ()
    reads_scores: bool = True
    summary: str = ""
    undefined_doc: str = ""
    examples: str = ""
    default_k: int | None = 10
    pair_count: int | None = None
    ideal_weight: str | None = None
    fixed_discount: str | None = None

    @property
    def default_average(self):
        """The ``average`` of its function by default, and of its scorers,
        reports and accumulators: ``"ideal"`` for the propensity-scored
        metrics (pyxclib's ratio of dataset means), else ``"mean"``."""
        return "mean" if self.ideal_weight is None else "ideal"

    @property
    def cut_is_n_relevant(self):
        """Whether each row is cut at its own number of relevant items."""
        return not self.needs_k and self.row_cut == "n_relevant"

    @property
    def cut_note(self):
        """Where a metric without ``k`` cuts each row, for tables."""
        return {"n_relevant": "|R|", "n_retrieved": "retrieved items"}.get(
            self.row_cut, "all items"
        )

    @functools.cached_property
    def param_names(self):
        # (kept in the instance's __dict__, as cached_property writes it:
        # read for every metric parameter of every report)
        return tuple(p.name for p in self.params)

    def scorer_name(self, k):
        """``"ndcg@10"``; the name alone for ``k=None`` or no cut-off."""
        return self.name if k is None or not self.needs_k else f"{self.name}@{k}"

    @property
    def scorer_prefix(self):
        """``"neg_"`` for a loss (its scorers give the negated value), else ""."""
        return "" if self.greater_is_better else "neg_"


_EXAMPLE_DATA = """\
    >>> import numpy as np
    >>> y_true = np.array([[1, 0, 1, 0], [0, 1, 0, 0]])
    >>> y_score = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.1, 0.7, 0.4]])"""

_NO_RELEVANT = " (samples with no relevant item)"

_SET_EXAMPLE = """\
    >>> import numpy as np
    >>> y_true = np.array([[1, 0, 1, 0], [0, 1, 0, 0]])
    >>> y_score = np.array([[0.9, 0.8, -np.inf, 0.3], [0.2, 0.1, -np.inf, 0.4]])"""

_JUDGED_EXAMPLE = """\
    >>> import numpy as np
    >>> y_true = np.array([[1, 0, -1, 1, 0], [0, 1, 0, -1, 1]])
    >>> y_score = np.array([[0.9, 0.8, 0.7, 0.6, -np.inf],
    ...                     [0.9, 0.8, 0.7, 0.6, 0.5]])"""

_JUDGED_NOTE = """

    Judgments: a grade ``y >= 0`` is judged (relevant when above
    ``relevance_threshold``), a negative grade means *not judged*
    (trec_eval's convention: ``-1`` for a document never pooled, ``-2`` for
    one pooled but left unjudged). :func:`from_trec` and
    :func:`from_id_lists` mark the unjudged documents so with
    ``mark_unjudged=True``."""

_ENTRIES = (
    Metric(
        name="precision",
        function_name="precision_at_k_score",
        label="Precision",
        formula=_kernel.PRECISION,
        empty_rows="zero",
        trec_eval_cutoff="P",
        aliases=("P",),
        summary="""\
    Precision at k: the fraction of the top ``k`` items that are relevant.

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
    ),
    Metric(
        name="relative_precision",
        function_name="relative_precision_at_k_score",
        label="Relative precision",
        formula=_kernel.RELATIVE_PRECISION,
        perfect_is_one=True,
        in_default_report=False,
        trec_eval_cutoff="relative_P",
        summary="""\
    Relative precision at k: relevant items in the top k over the most possible.

    The denominator is the most relevant items the top ``k`` could hold.
    ``relative_P@k = |relevant items in the top k| / min(k, |R|)``
    (trec_eval's ``relative_P_k``): precision while ``k <= |R|``, recall
    beyond, so a perfect ranking scores 1 at every ``k``. Linear in the
    number of relevant items in the top ``k``, so the exact expectation under
    ties is the formula at its expected value.""",
        undefined_doc=_NO_RELEVANT,
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import relative_precision_at_k_score
    >>> relative_precision_at_k_score(y_true, y_score, k=1)
    0.5
    >>> relative_precision_at_k_score(y_true, y_score, k=4)
    1.0""",
    ),
    Metric(
        name="recall",
        function_name="recall_at_k_score",
        label="Recall",
        formula=_kernel.RECALL,
        trec_eval_cutoff="recall",
        summary="""\
    Recall at k: the fraction of the relevant items found in the top ``k``.

    ``R@k = |relevant items in the top k| / |relevant items|``, where the
    relevant items include those not retrieved (score ``-inf``).""",
        undefined_doc=_NO_RELEVANT,
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import recall_at_k_score
    >>> recall_at_k_score(y_true, y_score, k=2)
    0.25
    >>> recall_at_k_score(y_true, y_score, k=4)
    1.0""",
    ),
    Metric(
        name="f1",
        function_name="f1_at_k_score",
        label="F1",
        formula=_kernel.F1,
        summary="""\
    F1 at k: the harmonic mean of precision at k and recall at k.

    ``F1@k = 2 P@k R@k / (P@k + R@k) = 2 |relevant in top k| / (k + |R|)``
    (0 when nothing relevant is in the top ``k``).""",
        undefined_doc=_NO_RELEVANT,
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import f1_at_k_score
    >>> f1_at_k_score(y_true, y_score, k=2)
    0.25""",
    ),
    Metric(
        name="fbeta",
        function_name="fbeta_at_k_score",
        label="F-beta",
        formula=_kernel.FBETA,
        params=(BETA,),
        in_default_report=False,
        summary="""\
    F-beta at k: the weighted harmonic mean of precision and recall at k.

    ``F_beta@k = (1 + beta**2) P@k R@k / (beta**2 P@k + R@k)
    = (1 + beta**2) |relevant in top k| / (beta**2 |R| + k)`` (0 when
    nothing relevant is in the top ``k``). Linear in the number of relevant
    items in the top ``k``, so the exact expectation under ties is the
    formula at its expected value.""",
        undefined_doc=_NO_RELEVANT,
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import fbeta_at_k_score
    >>> fbeta_at_k_score(y_true, y_score, k=2, beta=1.0)
    0.25
    >>> round(fbeta_at_k_score(y_true, y_score, k=2, beta=2.0), 6)
    0.25""",
    ),
    Metric(
        name="hit",
        function_name="hit_at_k_score",
        label="Hit rate",
        formula=_kernel.HIT,
        perfect_is_one=True,
        trivial_at_full_depth=True,
        empty_rows="zero",
        trec_eval_cutoff="success",
        trec_eval_cutoffs=(1, 5, 10),
        summary="""\
    Hit at k (success@k): 1 if a relevant item is in the top ``k``, else 0.

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
    ),
    Metric(
        name="mrr",
        function_name="mrr_at_k_score",
        label="MRR",
        formula=_kernel.RECIPROCAL_RANK,
        allow_k_none=True,
        perfect_is_one=True,
        empty_rows="zero",
        trec_eval_whole="recip_rank",
        summary="""\
    Mean reciprocal rank at k: ``1 / rank`` of the first relevant item.

    0 when no relevant item is in the top ``k``. With ``k=None`` this is
    trec_eval's ``recip_rank``.""",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import mrr_at_k_score
    >>> mrr_at_k_score(y_true, y_score, k=None)
    0.625
    >>> mrr_at_k_score(y_true, y_score, k=3)
    0.5""",
    ),
    Metric(
        name="map",
        function_name="map_at_k_score",
        label="MAP",
        formula=_kernel.AVERAGE_PRECISION,
        allow_k_none=True,
        params=(DENOMINATOR,),
        trec_eval_cutoff="map_cut",
        trec_eval_whole="map",
        summary="""\
    Mean average precision at k.

    ``AP@k = sum over ranks i <= k of rel_i * P@i / denominator``, averaged
    over samples.""",
        undefined_doc=_NO_RELEVANT,
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import map_at_k_score
    >>> map_at_k_score(y_true, y_score, k=None)
    0.5
    >>> map_at_k_score(y_true, y_score, k=1)
    0.25
    >>> map_at_k_score(y_true, y_score, k=1, denominator="min")
    0.5""",
    ),
    Metric(
        name="dcg",
        function_name="dcg_at_k_score",
        label="DCG",
        formula=_kernel.DCG,
        allow_k_none=True,
        graded=True,
        params=(GAIN, LOG_BASE, GAINS, DISCOUNT, DISCOUNT_P),
        bounds=(0.0, None),
        empty_rows="zero",
        summary="""\
    Discounted cumulative gain at k.

    ``DCG@k = sum over ranks i <= k of gain(rel_i) / log_base(i + 1)``.
    Equal to scikit-learn's ``dcg_score``: ties averaged by default; with
    ``ignore_ties=True``, ties ranked the later column first. ``gains`` (a
    gain map) and ``discount`` change the gain of a grade and the weight of
    a rank; DCG stays linear in the gain at each rank, so ties stay
    exact.""",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import dcg_at_k_score
    >>> dcg_at_k_score(y_true, y_score, k=2)
    0.5
    >>> dcg_at_k_score([[3, 2, 0]], [[0.1, 0.5, 0.2]], k=None, gain="exponential")
    6.5""",
    ),
    Metric(
        name="ndcg",
        function_name="ndcg_at_k_score",
        label="nDCG",
        formula=_kernel.NDCG,
        allow_k_none=True,
        graded=True,
        needs_ideal=True,
        params=(GAIN, LOG_BASE, GAINS, DISCOUNT, DISCOUNT_P),
        perfect_is_one=True,
        trec_eval_cutoff="ndcg_cut",
        trec_eval_whole="ndcg",
        summary="""\
    Normalized discounted cumulative gain at k.

    ``nDCG@k = DCG@k / IDCG@k``, where the ideal DCG ranks every item of the
    row, retrieved or not, by decreasing gain. Equal to scikit-learn's
    ``ndcg_score`` on samples with a relevant item: ties averaged by default;
    with ``ignore_ties=True``, ties ranked the later column first. With
    ``gains`` and ``discount``, trec_eval's ``ndcg.1=3.5,2=9`` and
    ``ndcg_p`` (``discount="jarvelin"``, ``k=None``).""",
        undefined_doc=" (samples whose ideal DCG is 0: no relevant item)",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import ndcg_at_k_score
    >>> round(ndcg_at_k_score(y_true, y_score, k=2), 6)
    0.306574
    >>> ndcg_at_k_score([[3, 2, 0]], [[0.9, 0.5, 0.2]], k=None)
    1.0""",
    ),
    Metric(
        name="r_precision",
        function_name="r_precision_score",
        label="R-precision",
        # Precision at the cut-off multiple * |R| of each row (= recall at 1).
        formula=_kernel.PRECISION,
        needs_k=False,
        params=(MULTIPLE,),
        perfect_is_one=True,
        trec_eval_whole="Rprec",
        trec_eval_family="Rprec_mult",
        trec_eval_param="multiple",
        trec_eval_values=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
        summary="""\
    R-precision: precision at rank |R|, the number of relevant items.

    ``R-precision = P@|R| = R@|R|``, with |R| taken per sample (trec_eval's
    ``Rprec``). It has no ``k``. With ``multiple``, precision at rank
    ``c = floor(multiple * |R| + 0.9)`` (trec_eval's ``Rprec_mult``), also
    when c exceeds the row's length or its retrieved items. Linear in the
    number of relevant items in the top c, so the exact expectation under
    ties is the formula at its expected value.""",
        undefined_doc=_NO_RELEVANT,
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import r_precision_score
    >>> r_precision_score(y_true, y_score)
    0.25
    >>> r_precision_score(y_true, y_score, multiple=0.5)
    0.5""",
    ),
    Metric(
        name="interpolated_precision",
        function_name="interpolated_precision_score",
        label="Interpolated precision",
        formula=_kernel.IPREC,
        needs_k=False,
        row_cut="whole",
        params=(RECALL_LEVEL,),
        perfect_is_one=True,
        in_default_report=False,
        trec_eval_family="iprec_at_recall",
        trec_eval_param="recall_level",
        trec_eval_values=RECALL_LEVELS.default,
        summary="""\
    Interpolated precision at a recall level (trec_eval's iprec_at_recall).

    The best precision at or after the rank where recall first reaches
    ``recall_level``: with ``c = round(recall_level * |R|)`` (halves away
    from zero, trec_eval 10.0), the largest ``i / rank_i`` over the relevant
    items ``i >= max(c, 1)``, ``rank_i`` the rank of the i-th relevant item;
    0 if fewer than ``c`` relevant items are retrieved (relevant items with
    score ``-inf`` count in |R| only). It reads the whole ranking: no ``k``.

    Under ties the value is the exact expectation over the orderings of the
    tied items: the tie groups are independent, and the expected maximum is
    an integral of the product of the groups' distribution functions, each
    computed by a lattice-path recurrence over its (position, relevant
    count) band (see the user guide for the method and its cost).""",
        undefined_doc=_NO_RELEVANT,
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import interpolated_precision_score
    >>> interpolated_precision_score(y_true, y_score, average=None)
    array([1.  , 0.25])
    >>> interpolated_precision_score(y_true, y_score, recall_level=1.0, average=None)
    array([0.5 , 0.25])""",
    ),
    Metric(
        name="eleven_point_precision",
        function_name="eleven_point_precision_score",
        label="11-point precision",
        formula=_kernel.ELEVEN_PT,
        needs_k=False,
        row_cut="whole",
        params=(RECALL_LEVELS,),
        perfect_is_one=True,
        in_default_report=False,
        trec_eval_whole="11pt_avg",
        trec_eval_param="recall_levels",
        summary="""\
    11-point interpolated average precision (trec_eval's 11pt_avg).

    The mean of :func:`interpolated_precision_score` over ``recall_levels``
    (by default 0.0, 0.1, ..., 1.0). Linear in the interpolated precisions,
    so its exact expectation under ties is the mean of theirs. It reads the
    whole ranking: no ``k``.""",
        undefined_doc=_NO_RELEVANT,
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import eleven_point_precision_score
    >>> eleven_point_precision_score(y_true, y_score, average=None)
    array([0.86363636, 0.25      ])
    >>> eleven_point_precision_score(y_true, y_score, recall_levels=[0.0, 1.0])
    0.5""",
    ),
    Metric(
        name="set_precision",
        function_name="set_precision_score",
        label="Set precision",
        formula=_kernel.PRECISION,
        needs_k=False,
        row_cut="n_retrieved",
        empty_rows="zero",
        in_default_report=False,
        trec_eval_whole="set_P",
        summary="""\
    Set precision: the fraction of the retrieved items that are relevant.

    ``|relevant retrieved| / |retrieved|``, 0 when nothing is retrieved
    (trec_eval's ``set_P``).

    The set measures ignore the order: they compare the retrieved items
    (scores above ``-inf``) with the relevant ones, as trec_eval's ``set_*``
    measures do with the documents a run returns.""",
        examples=_SET_EXAMPLE
        + """
    >>> from sklearn_rankk import set_precision_score
    >>> round(set_precision_score(y_true, y_score), 6)
    0.333333""",
    ),
    Metric(
        name="set_recall",
        function_name="set_recall_score",
        label="Set recall",
        formula=_kernel.RECALL,
        needs_k=False,
        row_cut="n_retrieved",
        in_default_report=False,
        trec_eval_whole="set_recall",
        summary="""\
    Set recall: the fraction of the relevant items that are retrieved.

    ``|relevant retrieved| / |R|`` (trec_eval's ``set_recall``).

    The set measures ignore the order: they compare the retrieved items
    (scores above ``-inf``) with the relevant ones, as trec_eval's ``set_*``
    measures do with the documents a run returns.""",
        undefined_doc=_NO_RELEVANT,
        examples=_SET_EXAMPLE
        + """
    >>> from sklearn_rankk import set_recall_score
    >>> set_recall_score(y_true, y_score)
    0.75""",
    ),
    Metric(
        name="set_f",
        function_name="set_fbeta_score",
        label="Set F",
        formula=_kernel.FBETA,
        needs_k=False,
        row_cut="n_retrieved",
        params=(BETA,),
        in_default_report=False,
        trec_eval_whole="set_F",
        summary="""\
    Set F-beta: the weighted harmonic mean of set precision and set recall.

    ``(1 + beta**2) |relevant retrieved| / (beta**2 |R| + |retrieved|)``
    (trec_eval's ``set_F``; its parameter ``x`` is ``beta**2``).

    The set measures ignore the order: they compare the retrieved items
    (scores above ``-inf``) with the relevant ones, as trec_eval's ``set_*``
    measures do with the documents a run returns.""",
        undefined_doc=_NO_RELEVANT,
        examples=_SET_EXAMPLE
        + """
    >>> from sklearn_rankk import set_fbeta_score
    >>> round(set_fbeta_score(y_true, y_score), 6)
    0.45""",
    ),
    Metric(
        name="set_relative_precision",
        function_name="set_relative_precision_score",
        label="Set relative precision",
        formula=_kernel.RELATIVE_PRECISION,
        needs_k=False,
        row_cut="n_retrieved",
        perfect_is_one=True,
        in_default_report=False,
        trec_eval_whole="set_relative_P",
        summary="""\
    Set relative precision: relevant retrieved over the most there could be.

    ``|relevant retrieved| / min(|retrieved|, |R|)``, 0 when nothing is
    retrieved (trec_eval's ``set_relative_P``).

    The set measures ignore the order: they compare the retrieved items
    (scores above ``-inf``) with the relevant ones, as trec_eval's ``set_*``
    measures do with the documents a run returns.""",
        undefined_doc=_NO_RELEVANT,
        examples=_SET_EXAMPLE
        + """
    >>> from sklearn_rankk import set_relative_precision_score
    >>> set_relative_precision_score(y_true, y_score)
    0.75""",
    ),
    Metric(
        name="set_average_precision",
        function_name="set_average_precision_score",
        label="Set AP",
        formula=_kernel.SET_AVERAGE_PRECISION,
        needs_k=False,
        row_cut="n_retrieved",
        in_default_report=False,
        trec_eval_whole="set_map",
        summary="""\
    Unranked average precision: set precision times set recall.

    ``|relevant retrieved|**2 / (|retrieved| |R|)``, 0 when nothing is
    retrieved (trec_eval's ``set_map``).

    The set measures ignore the order: they compare the retrieved items
    (scores above ``-inf``) with the relevant ones, as trec_eval's ``set_*``
    measures do with the documents a run returns.""",
        undefined_doc=_NO_RELEVANT,
        examples=_SET_EXAMPLE
        + """
    >>> from sklearn_rankk import set_average_precision_score
    >>> round(set_average_precision_score(y_true, y_score), 6)
    0.25""",
    ),  # ---- measures of other peers (ERR, fall-out) ----
    Metric(
        name="err",
        function_name="err_at_k_score",
        label="ERR",
        formula=_kernel.ERR,
        allow_k_none=True,
        graded=True,
        params=(MAX_GRADE,),
        empty_rows="zero",
        in_default_report=False,
        summary="""\
    Expected reciprocal rank at k (Chapelle, Metzler, Zhang, Grinspan, 2009).

    A user scans the ranking from the top and stops at an item of grade ``g``
    with probability ``R = (2**g - 1) / 2**max_grade``; ERR is the expected
    reciprocal rank where the user stops: ``ERR@k = sum over ranks r <= k of
    R_r / r * prod over ranks i < r of (1 - R_i)``. Items at or below the
    relevance threshold, and negative grades, have ``R = 0``. Under ties, the
    exact expectation over the orderings of each tie group (a recurrence
    over the group's members).""",
        examples="""\
    >>> import numpy as np
    >>> from sklearn_rankk import err_at_k_score
    >>> y_true = np.array([[3, 0, 1, 0], [0, 2, 0, 0]])
    >>> y_score = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.1, 0.7, 0.4]])
    >>> round(err_at_k_score(y_true, y_score, k=None), 6)
    0.246582
    >>> err_at_k_score([[3, 0, 1]], [[0.9, 0.5, 0.2]], k=1, max_grade=3)
    0.875""",
    ),
    Metric(
        name="fall_out",
        function_name="fall_out_at_k_loss",
        label="Fall-out",
        formula=_kernel.FALL_OUT,
        allow_k_none=True,
        in_default_report=False,
        greater_is_better=False,
        undefined_when="no non-relevant item",
        reads_judgments=True,
        summary="""\
    Fall-out at k: the fraction of the non-relevant items that are in the top k.

    ``fall_out@k = |non-relevant items in the top k| / |non-relevant items|``
    (torchmetrics' ``retrieval_fall_out``), the false positive rate of
    retrieving the top ``k``. Lower is better: a loss, hence the ``_loss``
    name, and its scorer ``"neg_fall_out@10"`` gives the negated value, as
    scikit-learn's ``"neg_log_loss"``. Non-relevant means judged and not
    relevant, ``0 <= y_true <= relevance_threshold``: a negative grade is
    not judged (trec_eval's convention) and counts nowhere. Non-relevant
    items scored ``-inf`` count in the denominator. Linear in the number of
    non-relevant items in the top ``k``, so the exact expectation under ties
    is the formula at its expected value.""",
        undefined_doc=" (samples with no non-relevant item)",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import fall_out_at_k_loss
    >>> round(fall_out_at_k_loss(y_true, y_score, k=2), 6)
    0.583333
    >>> fall_out_at_k_loss(y_true, y_score, k=2, average=None)
    array([0.5       , 0.66666667])""",
    ),
    Metric(
        name="bpref",
        function_name="bpref_score",
        label="bpref",
        formula=_kernel.BPREF,
        reads_judgments=True,
        needs_k=False,
        row_cut="n_retrieved",
        in_default_report=False,
        trec_eval_whole="bpref",
        summary="""\
    Binary preference (bpref): relevant items ranked above judged non-relevant ones.

    ``bpref = 1/|R| sum over retrieved relevant items of
    (1 - min(n, |R|) / min(N, |R|))``, where ``n`` is the number of judged
    non-relevant items ranked above the relevant item and ``N`` the number
    of judged non-relevant items of the row, retrieved or not (Buckley &
    Voorhees, SIGIR 2004; trec_eval's ``bpref``). Unjudged items (negative
    grades) count for nothing, so bpref is robust to incomplete judgments.
    Exact under ties: inside a tie group with ``u`` judged non-relevant
    items, the number of them above a relevant item is uniform on
    ``0..u``."""
        + _JUDGED_NOTE,
        undefined_doc=_NO_RELEVANT,
        examples=_JUDGED_EXAMPLE
        + """
    >>> from sklearn_rankk import bpref_score
    >>> bpref_score(y_true, y_score, average=None)
    array([0.75, 0.25])

    First row: the first relevant item has no judged non-relevant item above
    it (1), the second has one of ``min(N, |R|) = 2`` (1 - 1/2); the unjudged
    item (-1) counts for nothing: ``(1 + 0.5) / 2``.""",
    ),
    Metric(
        name="infap",
        function_name="inferred_average_precision_score",
        label="infAP",
        formula=_kernel.INFERRED_AP,
        reads_judgments=True,
        needs_k=False,
        row_cut="n_retrieved",
        in_default_report=False,
        trec_eval_whole="infAP",
        summary="""\
    Inferred average precision (infAP): AP estimated from sampled judgments.

    Each retrieved relevant item at rank ``j`` adds the expected precision
    at ``j``, ``1/j + ((j-1)/j) (p/(j-1)) (r + eps)/(r + n + 2 eps)``, where
    ``r`` and ``n`` count the relevant and judged non-relevant items above it,
    ``p`` those plus the pooled-but-unjudged items above it (grade ``-2``
    or less), and ``eps = 1e-5``; the sum is divided by |R| (Yilmaz & Aslam,
    CIKM 2006; trec_eval's ``infAP``). Items never pooled (grade ``-1``)
    hold their rank but count as non-relevant. With complete judgments it
    is average precision. Exact under ties: for each offset of a relevant
    item in its tie group, a sum over the relevant and judged non-relevant
    items placed above it (multivariate hypergeometric), O(n r u) per group
    of n items, r relevant, u judged non-relevant."""
        + _JUDGED_NOTE,
        undefined_doc=_NO_RELEVANT,
        examples=_JUDGED_EXAMPLE
        + """
    >>> from sklearn_rankk import inferred_average_precision_score
    >>> inferred_average_precision_score(y_true, y_score, average=None)
    array([0.75      , 0.45000283])

    First row: 1 at rank 1, then at rank 4 ``1/4 + (3/4) (2/3) (1/2)``
    (two judged items above, half of them relevant): ``(1 + 1/2) / 2``.""",
    ),
    Metric(
        name="unjudged",
        function_name="unjudged_fraction_at_k",
        diagnostic=True,
        greater_is_better=False,
        label="Unjudged",
        formula=_kernel.UNJUDGED,
        reads_judgments=True,
        empty_rows="never",
        in_default_report=False,
        trec_eval_cutoff="unj",
        trec_eval_cutoffs=(5, 10, 20),
        summary="""\
    Unjudged fraction at k: the share of the top ``k`` that was never judged.

    ``unj@k = |unjudged items in the top k| / k`` (trec_eval's ``unj_k``),
    dividing by ``k`` even when fewer items are retrieved. A diagnostic of
    the judgments rather than of the ranking (lower means the other measures
    rest on more judgments), so it is not a ``*_score``; it does not depend
    on the relevant items, so ``zero_division`` never applies. Linear in the
    unjudged indicator: under ties, the expected unjudged count of each
    rank."""
        + _JUDGED_NOTE,
        examples=_JUDGED_EXAMPLE
        + """
    >>> from sklearn_rankk import unjudged_fraction_at_k
    >>> unjudged_fraction_at_k(y_true, y_score, k=4, average=None)
    array([0.25, 0.25])""",
    ),
    Metric(
        name="rbp_residual",
        function_name="rank_biased_precision_residual",
        diagnostic=True,
        greater_is_better=False,
        label="RBP residual",
        formula=_kernel.RBP_RESIDUAL,
        reads_judgments=True,
        needs_k=False,
        row_cut="n_retrieved",
        params=(PERSISTENCE,),
        empty_rows="never",
        in_default_report=False,
        trec_eval_whole="rbp_resid",
        summary="""\
    Residual of rank-biased precision: how much RBP could still rise.

    ``(1 - p) * sum over unjudged retrieved ranks i of p**(i - 1) + p**n``,
    ``n`` the number of retrieved items, whose ``p**n`` is the weight of the
    ranks never retrieved; 0 when no retrieved item is unjudged (trec_eval's
    ``rbp_resid``, Moffat and Zobel 2008). With binary relevance, RBP lies
    between :func:`rank_biased_precision_score` and it plus the residual
    whatever the unjudged items turn out to be. A diagnostic of the
    judgments, not a ``*_score``; defined on every row, so
    ``zero_division`` does not apply. Linear in each rank's unjudged
    indicator: under ties, in closed form."""
        + _JUDGED_NOTE,
        examples=_JUDGED_EXAMPLE
        + """
    >>> from sklearn_rankk import rank_biased_precision_residual
    >>> rank_biased_precision_residual(y_true, y_score, p=0.5, average=None)
    array([0.1875 , 0.09375])

    First row: the unjudged item at rank 3 weighs ``0.5 * 0.5**2`` and the
    ranks past the 4 retrieved ``0.5**4``.""",
    ),
    # ---- trec_eval's gain measures and utility (formulas_gain.hpp) ----
    Metric(
        name="rbp",
        function_name="rank_biased_precision_score",
        label="RBP",
        formula=_kernel.RBP,
        allow_k_none=True,
        graded=True,
        needs_ideal=True,
        params=(PERSISTENCE,),
        empty_rows="zero",
        in_default_report=False,
        trec_eval_whole="rbp",
        summary="""\
    Rank-biased precision (Moffat and Zobel, 2008) at k.

    ``RBP@k = (1 - p) * sum over ranks i <= k of gain_i * p**(i - 1)``: the
    expected gain per item a user sees who goes on from one rank to the next
    with probability ``p``. The gain is the grade, divided by the row's
    largest grade when that exceeds 1 (so gains lie in [0, 1]), as
    trec_eval's ``rbp`` does (its value is ``k=None``). Linear in the
    expected gain at each rank, so the exact expectation under ties is the
    formula at those.""",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import rank_biased_precision_score
    >>> round(rank_biased_precision_score(y_true, y_score, k=None), 6)
    0.1229
    >>> rbp = rank_biased_precision_score([[3, 0, 1]], [[0.9, 0.5, 0.2]], k=None, p=0.5)
    >>> round(rbp, 6)
    0.541667""",
    ),
    Metric(
        name="rndcg",
        function_name="rndcg_score",
        label="R-nDCG",
        formula=_kernel.RNDCG,
        needs_k=False,
        row_cut="n_retrieved",
        graded=True,
        needs_ideal=True,
        perfect_is_one=True,
        in_default_report=False,
        trec_eval_whole="Rndcg",
        trec_eval_level_gate=True,
        summary="""\
    R-nDCG: nDCG averaged at the cut-offs where the ideal gain changes.

    The mean of ``nDCG@b`` (linear gain, ``log2`` discount) over the ranks
    ``b`` that end a grade level of the ideal ranking (with 5 items of grade
    3, 3 of grade 2 and 10 of grade 1: b = 5, 8, 18), and at the end of the
    ranking when it is at least 2 ranks longer than the ideal's positive
    part (trec_eval's ``Rndcg``). It has no ``k``: the whole ranking of
    retrieved items is read. A mean of expected DCGs at fixed cut-offs over
    fixed ideals, so the exact expectation under ties is in closed form.""",
        undefined_doc=" (samples with no relevant item of positive grade)",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import rndcg_score
    >>> round(rndcg_score(y_true, y_score), 6)
    0.48026""",
    ),
    Metric(
        name="binary_g",
        function_name="binary_g_score",
        label="binG",
        formula=_kernel.BING,
        needs_k=False,
        row_cut="n_retrieved",
        perfect_is_one=True,
        in_default_report=False,
        trec_eval_whole="binG",
        summary="""\
    Binary G: relevant items discounted by the non-relevant ones above them.

    ``binG = sum over retrieved relevant items of 1 / log2(2 + n_above) / |R|``,
    ``n_above`` the number of non-relevant items ranked above the item
    (trec_eval's ``binG``). It has no ``k``: the whole ranking of retrieved
    items is read. Under ties, a relevant item of a tie group of ``n`` items,
    ``r`` of them relevant, has a number of non-relevant group members above
    it uniform on ``0 .. n - r``: the exact expectation is in closed form.""",
        undefined_doc=_NO_RELEVANT,
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import binary_g_score
    >>> round(binary_g_score(y_true, y_score), 6)
    0.590338""",
    ),
    Metric(
        name="utility",
        function_name="utility_score",
        label="Utility",
        formula=_kernel.UTILITY,
        needs_k=False,
        row_cut="n_retrieved",
        params=UTILITY_WEIGHTS,
        bounds=(None, None),
        empty_rows="never",
        in_default_report=False,
        trec_eval_whole="utility",
        summary="""\
    Linear utility of the retrieved set.

    ``tp_weight * TP + fp_weight * FP + fn_weight * FN + tn_weight * TN``,
    with TP the relevant retrieved items (scores above ``-inf``), FP the
    non-relevant retrieved ones, FN the relevant items not retrieved and TN
    the non-relevant items not retrieved; the collection is the row's items.
    trec_eval's ``utility`` (default coefficients 1, -1, 0, 0: ``TP - FP``).
    Not bounded, and defined on every row (``zero_division`` does not
    apply). The order of the retrieved items does not matter.""",
        examples=_SET_EXAMPLE
        + """
    >>> from sklearn_rankk import utility_score
    >>> utility_score(y_true, y_score, average=None)
    array([-1., -1.])
    >>> utility_score(y_true, y_score, tp_weight=2.0, fn_weight=-1.0)
    -0.5""",
    ),
    Metric(
        name="ndcg_rel",
        function_name="ndcg_rel_score",
        label="nDCG-rel",
        formula=_kernel.NDCG_REL,
        needs_k=False,
        row_cut="n_retrieved",
        graded=True,
        needs_ideal=True,
        perfect_is_one=True,
        in_default_report=False,
        trec_eval_whole="ndcg_rel",
        summary="""\
    Normalized DCG averaged over the ranks of the relevant items.

    The mean, over the items of positive grade, of ``DCG(i) / IDCG(i)`` at
    the rank ``i`` of the item (``IDCG(i)`` stops growing past the ideal's
    positive part), an item not retrieved counting the final DCG over the
    final ideal DCG (trec_eval's ``ndcg_rel``; linear gain, ``log2``
    discount). It has no ``k``: the whole ranking of retrieved items is
    read. Under ties it needs ``E[relevant at i * gain at j]``, in closed
    form for two items of one tie group, independent across groups.""",
        undefined_doc=" (samples with no relevant item of positive grade)",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import ndcg_rel_score
    >>> round(ndcg_rel_score(y_true, y_score), 6)
    0.684642""",
    ),
    Metric(
        name="normalized_gain",
        function_name="normalized_gain_score",
        label="G",
        formula=_kernel.G_GAIN,
        needs_k=False,
        row_cut="n_retrieved",
        graded=True,
        needs_ideal=True,
        in_default_report=False,
        trec_eval_whole="G",
        summary="""\
    Normalized gain G: gains discounted by the cost spent reaching them.

    ``G = sum over retrieved items of gain_i / log2(2 + C(i) - S(i))`` over
    the sum of every item's gain, where ``S(i)`` is the gain of the ranks up
    to ``i`` and ``C(i)`` the sum over those ranks of ``max(ideal gain, 1)``
    (trec_eval's ``G``). It has no ``k``: the whole ranking of retrieved
    items is read. Under ties an item's term depends on the gains of the tie
    group members ranked above it: the exact expectation is a recurrence over
    the group's count and gain sums (see the user guide).""",
        undefined_doc=" (samples with no relevant item of positive grade)",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import normalized_gain_score
    >>> round(normalized_gain_score(y_true, y_score), 6)
    0.590338""",
    ),
    # ---- AUC and its kin (formulas_auc.hpp) ----
    Metric(
        name="auc",
        function_name="auc_score",
        label="AUC",
        formula=_kernel.AUC,
        allow_k_none=True,
        default_k=None,
        reads_judgments=True,
        params=(MAX_FPR,),
        in_default_report=False,
        undefined_when="no relevant or no judged non-relevant item",
        pair_count=_kernel.COUNT_AUC_PAIRS,
        summary="""\
    Area under the ROC curve of each sample, over its items (per-row AUC).

    ``AUC = (1 / (|P| |N|)) sum over p in P, n in N of [s_p > s_n] + [s_p =
    s_n] / 2``: the probability that a relevant item (``y_true >
    relevance_threshold``, the set P) is scored above a judged non-relevant
    one (``0 <= y_true <= relevance_threshold``, the set N), the
    Mann-Whitney U statistic over ``|P| |N|``. A negative grade is not
    judged and takes no part. Items scored ``-inf`` (not retrieved) rank
    below every other item and tie among themselves. A tied pair counts 1/2,
    which is the exact expectation over the orderings of the tied items, so
    each row's value equals scikit-learn's ``roc_auc_score`` on that row's
    judged items. With ``ignore_ties=True`` tied finite scores are ordered
    the later column first (the ``-inf`` items still tie).

    Averaged over samples this is the "group AUC" (GAUC) of recommender
    systems (Zhu et al., "Optimized Cost per Click in Taobao Display
    Advertising", KDD 2017; Alibaba's DIN, Zhou et al., KDD 2018), whose
    weightings ``average=`` offers: ``"mean"`` (each sample alike, or by
    ``sample_weight``, e.g. the impressions of each user), ``"relevant"``
    (by ``|P|``, the clicks), ``"judged"`` (by ``|P| + |N|``, the
    impressions), ``"pairs"`` (by ``|P| |N|``: every pair of the data
    alike).

    With ``k``: the AUC of the top ``k`` items alone, the relevant against
    the judged non-relevant ones among them, 0 when the top ``k`` lacks
    either (torchmetrics' ``RetrievalAUROC(top_k=k)``); under ties, the
    exact expectation over which tied items enter the top ``k``. With
    ``max_fpr``: the standardized partial AUC (McClish, 1989), as
    scikit-learn's ``roc_auc_score(max_fpr=)``; under ties, the exact
    expectation over the orderings of the tied items, which differs from
    scikit-learn's straight ROC segment through a tie where a tie group
    holding relevant and non-relevant items spans ``max_fpr``.""",
        undefined_doc=" (samples with no relevant or no judged non-relevant item)",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import auc_score
    >>> auc_score(y_true, y_score, average=None)
    array([0.5, 0. ])

    First row: of the four (relevant, non-relevant) pairs, the relevant item
    scored 0.9 is above both non-relevant ones and the one scored 0.1 above
    neither: 2/4. A tie counts 1/2:

    >>> auc_score([[1, 0, 0]], [[0.5, 0.5, 0.1]])
    0.75

    The AUC of the top 2 (torchmetrics' ``top_k``), GAUC weighted by the
    relevant items, and the partial AUC up to a false positive rate of 0.5:

    >>> auc_score(y_true, y_score, k=2, average=None)
    array([1., 0.])
    >>> auc_score(y_true, y_score, average="relevant")
    0.3333333333333333
    >>> round(auc_score([[1, 0, 1, 0, 0]], [[0.9, 0.8, 0.6, 0.7, 0.1]],
    ...                 max_fpr=0.5), 6)
    0.666667""",
    ),
    Metric(
        name="pairwise_accuracy",
        function_name="pairwise_accuracy_score",
        label="Pairwise accuracy",
        formula=_kernel.PAIRWISE_ACCURACY,
        needs_k=False,
        row_cut="whole",
        graded=True,
        reads_judgments=True,
        in_default_report=False,
        undefined_when="no two judged items of different grades",
        pair_count=_kernel.COUNT_GRADED_PAIRS,
        summary="""\
    Pairwise ordered accuracy: the share of graded pairs ranked in order.

    Over the pairs of judged items (``y_true >= 0``) of different grades,
    the fraction whose higher-graded item is scored higher, a tie counting
    1/2 (the exact expectation over the orderings of the tied items). On
    binary relevance it is :func:`auc_score`. Kendall-tau-like but blind to
    pairs of equal grades; ``relevance_threshold`` plays no part. Items
    scored ``-inf`` rank below every other item and tie among themselves.
    ``average="mean"`` is the macro average over samples; ``average="pairs"``
    the micro average over every pair of the data (each sample weighted by
    its number of pairs). It reads the whole ranking: no ``k``.""",
        undefined_doc=" (samples with no two judged items of different grades)",
        examples="""\
    >>> from sklearn_rankk import pairwise_accuracy_score
    >>> round(pairwise_accuracy_score([[3, 2, 0, 1]], [[0.9, 0.5, 0.7, 0.1]]), 6)
    0.666667

    Ranked 3, 0, 2, 1: of the six pairs, those of the item graded 0 with the
    items graded 2 and 1 below it are out of order: 4/6.""",
    ),
    # ---- the DCG family's ideal DCG and scaled DCG, and yaap (formulas_dcg.hpp) ----
    Metric(
        name="ideal_dcg",
        function_name="ideal_dcg_at_k_score",
        label="Ideal DCG",
        formula=_kernel.IDEAL_DCG,
        allow_k_none=True,
        graded=True,
        needs_ideal=True,
        params=(GAIN, LOG_BASE, GAINS, DISCOUNT, DISCOUNT_P),
        bounds=(0.0, None),
        empty_rows="zero",
        in_default_report=False,
        reads_scores=False,
        trec_eval_whole="ideal_dcg",
        summary="""\
    Ideal DCG at k: the DCG of the best ranking of each sample's items.

    ``IDCG@k = sum over ranks i <= k of g_(i) * discount(i)``, ``g_(1) >=
    g_(2) >= ...`` the sample's positive gains, retrieved or not: nDCG's
    denominator (trec_eval's ``ideal_dcg`` at ``k=None``). It reads only
    ``y_true``; ``y_score`` sets nothing but the shape, so ties do not
    matter.""",
        examples="""\
    >>> from sklearn_rankk import ideal_dcg_at_k_score
    >>> ideal_dcg_at_k_score([[3, 2, 0]], [[0.1, 0.5, 0.2]], k=None)
    4.261859507142915
    >>> ideal_dcg_at_k_score([[3, 2, 0]], [[0.1, 0.5, 0.2]], k=None, gains={2: 5})
    6.892789260714372""",
    ),
    Metric(
        name="sdcg",
        function_name="sdcg_at_k_score",
        label="SDCG",
        formula=_kernel.SDCG,
        graded=True,
        params=(GAIN, LOG_BASE, GAINS, DISCOUNT, DISCOUNT_P, MAX_REL),
        empty_rows="zero",
        in_default_report=False,
        aliases=("SDCG",),
        summary="""\
    Scaled DCG at k: DCG@k over the DCG of k items of the largest gain.

    ``SDCG@k = DCG@k / (g_max * sum over ranks i <= k of discount(i))``,
    where ``g_max`` is the gain of ``max_rel`` (None: the sample's largest
    gain): nDCG with an ideal that assumes at least k fully relevant items
    exist (Moffat, Bailey, Scholer and Thomas, ADCS 2015; ir_measures'
    ``SDCG@k``, computed by cwl_eval). The normaliser reads k ranks also
    when a sample has fewer items. Linear in the gain at each rank, so the
    exact expectation under ties is the formula on the tie groups' mean
    gains.""",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import sdcg_at_k_score
    >>> round(sdcg_at_k_score(y_true, y_score, k=2), 6)
    0.306574""",
    ),
    Metric(
        name="yaap",
        function_name="yaap_score",
        label="YAAP",
        formula=_kernel.YAAP,
        needs_k=False,
        row_cut="whole",
        bounds=(None, None),
        empty_rows="never",
        in_default_report=False,
        trec_eval_whole="yaap",
        summary="""\
    Yet another average precision: AP on a log-odds scale (Robertson).

    ``yaap = log((1 + S) / (1 + |R| - S))`` with ``S = |R| AP``, the sum over
    the retrieved relevant items of the relevant items up to each over its
    rank (Robertson, "On smoothing average precision", ECIR 2012;
    trec_eval's ``yaap``). Monotone in AP on one sample; it is 0 without a
    relevant item (``log 1``, as in trec_eval) and can be negative. It has
    no ``k``: the whole ranking is read. Not linear in S: under ties the
    exact expectation sums over S's distribution, the convolution of each
    tie group's (every placement of its relevant members); when that has
    more than 2**20 points a ValueError asks for ``ignore_ties=True``.""",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import yaap_score
    >>> round(yaap_score(y_true, y_score), 6)
    0.087177""",
    ),
    # ---- propensity-scored P@k and nDCG@k (extreme classification) ----
    Metric(
        name="psprecision",
        function_name="psprecision_at_k_score",
        label="PSP",
        formula=_kernel.NDCG,
        needs_ideal=True,
        params=(PROPENSITY,),
        perfect_is_one=True,
        in_default_report=False,
        ideal_weight="k",
        fixed_discount="constant",
        summary="""\
    Propensity-scored precision at k (Jain, Prabhu and Varma, KDD 2016).

    Each relevant item ``l`` (``y_true > relevance_threshold``) in the top
    ``k`` gains its inverse propensity ``w_l`` (``propensity``), so that
    rare labels count more. ``PSP@k = (1/k) sum over the top k of y_l w_l``
    (``y_l`` 1 for a relevant item, else 0), normalised by its best
    achievable value, ``(1/k)`` times the sum of the ``k`` largest
    ``y_l w_l`` of the row, as pyxclib's ``psprecision``
    (``xclib/evaluation/xc_metrics.py``). pyxclib's value, the default
    (``average="ideal"``), is the ratio of the dataset means, ``sum_i
    PSP_i / sum_i best_i``: the mean of the per-row ratios ``PSP_i /
    best_i`` (``average=None``) weighted by ``best_i``, so a row with no
    relevant item weighs 0. ``average="mean"`` is the plain mean of the
    per-row ratios. Linear in the gains at the top ``k``, so the exact
    expectation under ties counts a tie group straddling ``k`` as the slots
    it has left over its size times its summed gain. With
    ``propensity=None`` (every weight 1) the per-row value is
    ``|relevant in the top k| / min(k, |R|)``.""",
        undefined_doc=" (samples with no relevant item: the best value is 0)",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import psprecision_at_k_score
    >>> w = np.array([2.0, 1.0, 4.0, 1.0])
    >>> psprecision_at_k_score(y_true, y_score, k=2, propensity=w, average=None)
    array([0.33333333, 0.        ])

    First row: the top 2 (columns 0 and 1) hold one relevant item, of weight
    2; the best top 2 holds both relevant items, 4 + 2: 2/6. Second row: no
    relevant item in the top 2, best 1. pyxclib's ratio of the dataset
    means, (2/2 + 0/2) / (6/2 + 1/2), and the plain mean of the rows:

    >>> round(psprecision_at_k_score(y_true, y_score, k=2, propensity=w), 6)
    0.285714
    >>> round(psprecision_at_k_score(y_true, y_score, k=2, propensity=w,
    ...                              average="mean"), 6)
    0.166667""",
    ),
    Metric(
        name="psndcg",
        function_name="psndcg_at_k_score",
        label="PSnDCG",
        formula=_kernel.NDCG,
        needs_ideal=True,
        params=(PROPENSITY,),
        perfect_is_one=True,
        in_default_report=False,
        ideal_weight="binary_ideal_dcg",
        summary="""\
    Propensity-scored nDCG at k (Jain, Prabhu and Varma, KDD 2016).

    ``PSDCG@k = sum over ranks i <= k of y_(i) w_(i) / log2(i + 1)``: each
    relevant item ``l`` (``y_true > relevance_threshold``, ``y_l = 1``;
    else 0) gains its inverse propensity ``w_l`` (``propensity``). The
    paper divides it by the binary ideal DCG, ``B = sum over i <= min(k,
    |R|) of 1 / log2(i + 1)``;
    pyxclib's ``psndcg`` (``xclib/evaluation/xc_metrics.py``), the default
    (``average="ideal"``), divides the dataset mean of ``PSDCG_i / B_i`` by
    the dataset mean of ``best_i / B_i``, ``best_i`` the DCG of the row's
    items ranked by decreasing ``y_l w_l``: the mean of the per-row ratios
    ``PSDCG_i / best_i`` (``average=None``) weighted by ``best_i / B_i``.
    ``average="mean"`` is the plain mean of the per-row ratios. Linear in
    the gain at each rank, so the exact expectation under ties is the
    formula on the tie groups' mean gains. With ``propensity=None`` (every
    weight 1) the per-row value is binary nDCG@k.""",
        undefined_doc=" (samples with no relevant item: the best value is 0)",
        examples=_EXAMPLE_DATA
        + """
    >>> from sklearn_rankk import psndcg_at_k_score
    >>> w = np.array([2.0, 1.0, 4.0, 1.0])
    >>> psndcg_at_k_score(y_true, y_score, k=2, propensity=w, average=None)
    array([0.38009377, 0.        ])

    First row: DCG 2 (weight 2 at rank 1) over the best, 4 + 2 / log2(3).
    pyxclib's ratio of the dataset means weighs it by its best over the
    binary ideal DCG, 1 + 1 / log2(3), and the second row by 1 / 1:

    >>> round(psndcg_at_k_score(y_true, y_score, k=2, propensity=w), 6)
    0.290158""",
    ),
)

#: Every metric, by name, in the package's order (report rows, docs, tests).
METRICS = {m.name: m for m in _ENTRIES}

#: Not a metric: a per-row count (the kernel's COUNT_ROW; which count is the
#: request's ``count`` option), the weights of ``average="relevant"``,
#: ``"judged"`` and ``"pairs"``.
ROW_COUNT = Metric(
    name="row_count",
    function_name="",
    label="",
    formula=_kernel.COUNT_ROW,
    needs_k=False,
    row_cut="whole",
    empty_rows="never",
    bounds=(0.0, None),
)

#: Not a metric: one intent's share of alpha-DCG and of ndeval's ERR-IA (the
#: kernel's ALPHA_GAIN), which the intent-aware functions of ``_diversity``
#: sum over intents; alpha is the request's ``p``, its discount the request's
#: ``discount`` (``"log"``: alpha-DCG's; ``"reciprocal"``: ERR-IA's).
ALPHA_GAIN = Metric(
    name="alpha_gain",
    function_name="",
    label="",
    formula=_kernel.ALPHA_GAIN,
    bounds=(0.0, None),
)

#: Not a metric: the ideal DCG of a propensity-scored request (its gains
#: ``y_l w_l``, its discount in the request's ``discount`` option), the
#: weights of ``average="ideal"``.
PS_IDEAL = Metric(
    name="ps_ideal",
    function_name="",
    label="",
    formula=_kernel.IDEAL_DCG,
    needs_ideal=True,
    empty_rows="zero",
    bounds=(0.0, None),
)

#: ``average=`` -> the count of a row that weights it (``"pairs"``: the
#: metric's own ``pair_count``).
AVERAGE_COUNTS = {
    "relevant": _kernel.COUNT_RELEVANT,
    "judged": _kernel.COUNT_JUDGED,
}

#: The metrics of a report by default.
DEFAULT_REPORT = tuple(m.name for m in _ENTRIES if m.in_default_report)

#: The metric of :func:`interpolated_precision_recall_curve`, one point per
#: recall level.
INTERPOLATED_PRECISION = next(
    m for m in _ENTRIES if m.trec_eval_family == "iprec_at_recall"
)

#: The metrics of :func:`precision_recall_at_k_curve`, in its tuple's order.
PRECISION_RECALL = (METRICS["precision"], METRICS["recall"], METRICS["f1"])

#: Every metric, by the name of its public function.
BY_FUNCTION_NAME = {m.function_name: m for m in _ENTRIES}

#: trec_eval's measure names (``P``, ``map``, ``recip_rank``, ...) -> (metric,
#: whether the name takes a cut-off).
TREC_EVAL_NAMES = {
    **{m.trec_eval_cutoff: (m, True) for m in _ENTRIES if m.trec_eval_cutoff},
    **{m.trec_eval_whole: (m, False) for m in _ENTRIES if m.trec_eval_whole},
}

#: trec_eval's families with a real parameter (``Rprec_mult``,
#: ``iprec_at_recall``) -> metric: ``<family>_<x>`` is the metric with its
#: ``trec_eval_param`` set to x.
TREC_EVAL_FAMILIES = {m.trec_eval_family: m for m in _ENTRIES if m.trec_eval_family}
#: trec_eval's measures in the order it prints them (``te_trec_measures`` of
#: its measures.c), those of its ``all_trec`` nickname.
TREC_EVAL_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
    "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
    "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG",
    "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P",
    "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj",
)  # fmt: skip

#: trec_eval's bookkeeping measures, which are not ranking metrics: per-query
#: counts (their "all" value is the sum over queries), the run's tag and the
#: number of queries (printed on the "all" line only), and the relevance
#: string of the first ranks (printed per query only).
TREC_EVAL_COUNTS = ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret")
TREC_EVAL_SUMMARY = ("runid", "num_q")
TREC_EVAL_RELSTRING = "relstring"

#: trec_eval's geometric means: measure -> the metric whose per-query values
#: it averages with ``average="gmean"``.
TREC_EVAL_GEOMETRIC = {"gm_map": METRICS["map"], "gm_bpref": METRICS["bpref"]}

_TREC_EVAL_KNOWN = {
    *TREC_EVAL_NAMES,
    *TREC_EVAL_FAMILIES,
    *TREC_EVAL_COUNTS,
    *TREC_EVAL_SUMMARY,
    TREC_EVAL_RELSTRING,
    *TREC_EVAL_GEOMETRIC,
}

#: trec_eval's nicknames, restricted to the measures the package computes, in
#: trec_eval's order.
TREC_EVAL_NICKNAMES = {
    "official": tuple(
        n
        for n in TREC_EVAL_ORDER[: TREC_EVAL_ORDER.index("P") + 1]
        if n in _TREC_EVAL_KNOWN and n != TREC_EVAL_RELSTRING
    ),
    "all_trec": tuple(n for n in TREC_EVAL_ORDER if n in _TREC_EVAL_KNOWN),
}


def metric_for_alias(alias):
    """The metric an alias (``"P"``) names, or None."""
    return next((m for m in _ENTRIES if alias in m.aliases), None)


# --------------------------------------------------------------------------
# Scorer names: "<metric>@<k>", or the metric alone
# --------------------------------------------------------------------------

_SCORER_NAME = re.compile(r"^(?P<metric>[a-z_0-9]+?)(?:@(?P<k>[1-9]\d*))?$")


def scorer_name_forms(signed=False):
    """The forms of scorer names, ``<k>`` standing for any positive integer.

    ``signed``: as scorers spell them, a loss with its ``neg_`` prefix (the
    report and the command line use the metric's own name).
    """

    def spell(m):
        return m.scorer_prefix + m.name if signed else m.name

    entries = list(_ENTRIES)
    with_k = [f"{spell(m)}@<k>" for m in entries if m.needs_k]
    alone = [spell(m) for m in entries if m.allow_k_none]
    return with_k + alone + [spell(m) for m in entries if not m.needs_k]


#: The cut-offs at which :func:`scorer_names` spells the metrics with a
#: ``k`` (any positive integer is accepted).
LISTED_CUTOFFS = (1, 3, 5, 10, 20, 100)


def scorer_names(signed=True):
    """Concrete scorer names: every metric at :data:`LISTED_CUTOFFS` (those
    with a cut-off), and alone where it takes none or allows ``k=None``."""
    names = []
    for m in _ENTRIES:
        spelled = (m.scorer_prefix if signed else "") + m.name
        if m.needs_k:
            names += [f"{spelled}@{k}" for k in LISTED_CUTOFFS]
        if m.allow_k_none or not m.needs_k:
            names.append(spelled)
    return names


def parse_scorer_name(name, signed=False):
    """``"ndcg@10"`` -> (the ndcg entry, 10); ``"map"`` -> (the map entry, None).

    ``signed``: a scorer's name, where a loss is spelled with ``neg_``
    (``"neg_fall_out@10"``) and its plain name is refused: a scorer of the
    loss itself would be maximised by model selection.
    """
    if not isinstance(name, str):
        raise TypeError(f"A scorer name must be a string; got {name!r}.")
    match = _SCORER_NAME.match(name)
    base = match["metric"] if match else None
    if signed and base is not None and base.startswith("neg_"):
        loss = METRICS.get(base[len("neg_") :])
        if loss is not None and not loss.greater_is_better:
            base = loss.name
        else:
            base = None
    elif signed and base in METRICS and not METRICS[base].greater_is_better:
        loss = METRICS[base]
        if match["k"] is not None:
            at = f"@{match['k']}"
        else:
            at = "@10" if loss.needs_k and not loss.allow_k_none else ""
        kind = "a diagnostic of the judgments" if loss.diagnostic else "a loss"
        raise ValueError(
            f"{loss.name} is {kind} (lower is better): its scorer is "
            f"'neg_{loss.name}{at}', the negated value, which model "
            f"selection maximises. {loss.function_name} and ranking_report give "
            f"the value itself."
        )
    metric = METRICS.get(base) if base else None
    if metric is not None:
        if match["k"] is None:
            if metric.allow_k_none or not metric.needs_k:
                return metric, None
        elif metric.needs_k:
            return metric, int(match["k"])
    forms = scorer_name_forms(signed)
    if metric is not None and match["k"] is None:
        spelled = (metric.scorer_prefix if signed else "") + metric.name
        hint = (
            f" {metric.name} needs a cut-off: use '{spelled}@<k>', e.g. '{spelled}@10'."
        )
    else:
        concrete = [f.replace("<k>", "10") for f in forms]
        close = difflib.get_close_matches(name.lower(), concrete, n=1, cutoff=0.5)
        hint = f" Did you mean {close[0]!r}?" if close else ""
    raise ValueError(
        f"Unknown scorer name {name!r}.{hint} Valid forms: {', '.join(forms)} "
        f"(k a positive integer, e.g. 'ndcg@10')."
    )


# --------------------------------------------------------------------------
# ir_measures' names: "nDCG@10", "P(rel=2)@5", "SetF(beta=0.5)", "IPrec@0.5"
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class IrMeasure:
    """One of ir_measures' measures and its equivalent here.

    Each default is ir_measures' own (``ir_measures/measures/*.py``) as its
    default provider computes it (``providers/*.py``: pytrec_eval, gdeval,
    msmarco, trectools).

    Attributes
    ----------
    name : str
        ir_measures' name (``"nDCG"``).
    metric : Metric or None
        The package's metric; None for a count (``count``) or an
        unsupported measure (``unsupported``).
    cutoff : {"optional", "required", "none"} or str
        Whether ``@k`` is accepted, needed or refused; or the name of the
        package parameter that ``@x`` sets (IPrec's recall level).
    rel : bool
        Whether it takes ``rel=`` (a grade at least ``rel`` is relevant: the
        package's ``relevance_threshold = rel - 1``).
    params : tuple of (str, str, callable or None)
        ir_measures' parameter, the package parameter it sets, and the
        conversion of its value (None: as given).
    fixed : tuple of (str, object)
        Package parameters that the name fixes (ERR's ``max_grade=4``).
    choices : tuple of (str, dict)
        ir_measures' parameters with a set of values, each value -> the
        package's ``(parameter, value)``, or a metric name under
        ``"metric"`` (SetP's ``relative=True``).
    only : tuple of (str, object)
        ir_measures' parameters accepted at one value only (``judged_only``:
        False), with the reason in ``why_only``.
    count : str or None
        trec_eval's per-query count it is (``num_ret``); summed over queries.
    unsupported : str
        Why the package does not compute it (empty when it does).
    aliases : tuple of str
        ir_measures' other names for it (``MAP`` for ``AP``).
    required : tuple of str
        ir_measures' parameters that the name must give (SDCG's
        ``max_rel``).
    """

    name: str
    metric: Metric | None = None
    cutoff: str = "optional"
    rel: bool = True
    params: tuple = ()
    fixed: tuple = ()
    choices: tuple = ()
    only: tuple = (("judged_only", False),)
    why_only: str = (
        "judged_only=True (trec_eval's -J, unjudged documents removed from the "
        "ranking) is not supported: drop the unjudged documents from the run "
        "instead"
    )
    count: str | None = None
    unsupported: str = ""
    aliases: tuple = ()
    required: tuple = ()


def _ir(name, metric=None, **kwargs):
    return IrMeasure(name, METRICS[metric] if metric else None, **kwargs)


@dataclass(frozen=True)
class ClippedGain:
    """The gain map of ir_measures' ``SDCG(max_rel=m)``: a grade's gain is
    the grade, at most ``m`` (cwl_eval clips the grades to ``[min_rel,
    max_rel]`` before it scales them to [0, 1]). Called on the float array
    of the relevant grades."""

    max_rel: float

    def __call__(self, grades):
        return grades.clip(max=self.max_rel)


_DIVERSITY = (
    "a diversity measure: it needs subtopic (intent) judgments, which the "
    "qrels readers do not read; with y_true of shape (n_samples, n_items, "
    "n_intents), alpha_ndcg_at_k, err_ia_at_k, nerr_ia_at_k, "
    "intent_aware_precision_at_k and subtopic_recall_at_k compute alpha-nDCG, "
    "ERR-IA, nERR-IA, P-IA and S-recall"
)
_CWL = "a C/W/L measure of cwl_eval, with its own user model; not implemented here"

#: ir_measures' measures, by name, in the order of the docs' table.
IR_MEASURES = {
    m.name: m
    for m in (
        _ir("P", "precision", cutoff="required", aliases=("Precision",)),
        _ir("R", "recall", cutoff="required", aliases=("Recall",)),
        _ir("AP", "map", aliases=("MAP",)),
        _ir("RR", "mrr", aliases=("MRR",)),
        _ir(
            "nDCG",
            "ndcg",
            rel=False,
            choices=(
                (
                    "dcg",
                    {"log2": ("gain", "linear"), "exp-log2": ("gain", "exponential")},
                ),
            ),
            only=(("judged_only", False), ("gains", None)),
            why_only=(
                "judged_only=True and custom gains are not supported: drop the "
                "unjudged documents from the run, map the grades of the qrels"
            ),
            aliases=("NDCG",),
        ),
        _ir("Rprec", "r_precision", cutoff="none", aliases=("RPrec",)),
        _ir("Success", "hit", cutoff="required"),
        _ir("Bpref", "bpref", cutoff="none", only=(), aliases=("BPref",)),
        _ir("infAP", "infap", cutoff="none", only=()),
        _ir(
            "SetP",
            "set_precision",
            cutoff="none",
            choices=(
                ("relative", {False: None, True: ("metric", "set_relative_precision")}),
            ),
        ),
        _ir("SetRelP", "set_relative_precision", cutoff="none"),
        _ir("SetR", "set_recall", cutoff="none", only=()),
        _ir(
            "SetF",
            "set_f",
            cutoff="none",
            # trec_eval's set_F.x weighs recall x times precision: x = beta**2.
            params=(("beta", "beta", math.sqrt),),
        ),
        _ir("SetAP", "set_average_precision", cutoff="none"),
        _ir(
            "IPrec",
            unsupported=(
                "ir_measures computes IPrec@x with pytrec_eval, whose trec_eval "
                "9 cuts at the first rank where recall reaches x (ceil(x |R|) "
                "relevant documents); interpolated_precision_score is trec_eval "
                "10.0's iprec_at_recall_x, which rounds x |R|. They agree at "
                "x = 0, 0.5 and 1"
            ),
        ),
        _ir("ERR", "err", rel=False, only=(), fixed=(("max_grade", 4),)),
        _ir(
            "SDCG",
            "sdcg",
            cutoff="required",
            rel=False,
            # cwl_eval's gain: the grade clipped to [0, max_rel], over max_rel
            params=(("max_rel", "max_rel", None), ("max_rel", "gains", ClippedGain)),
            required=("max_rel",),
            choices=(("dcg", {"log2": None}),),
            only=(("min_rel", 0),),
            why_only=(
                "min_rel other than 0 is not supported: sdcg_at_k_score's gain "
                "is the grade (0 has none), as cwl_eval's with min_rel=0"
            ),
        ),
        _ir(
            "RBP",
            unsupported=(
                "ir_measures computes RBP with trectools, whose gain is the raw "
                "grade (values above 1 on graded judgments); "
                "rank_biased_precision_score is trec_eval's rbp, whose gain is "
                "the grade over the query's largest grade. They agree on binary "
                "judgments: use rank_biased_precision_score(..., k=None, p=0.8)"
            ),
        ),
        _ir("NumRet", only=(), count="num_ret"),
        _ir("NumRel", only=(), count="num_rel"),
        _ir("NumQ", rel=False, cutoff="none", only=(), count="num_q"),
        _ir(
            "Judged",
            unsupported=(
                "Judged@k divides by min(k, retrieved) and breaks ties by docno "
                "ascending; unjudged_fraction_at_k (trec_eval's unj) divides by "
                "k: Judged@k = 1 - unjudged@k on queries that retrieve at least "
                "k documents"
            ),
        ),
        _ir(
            "Accuracy",
            unsupported=(
                "ir_measures' Accuracy is an AUC over the retrieved documents "
                "only, every unjudged one counted non-relevant and ties in the "
                "run's order, and skips queries with none relevant retrieved; "
                "auc_score is the AUC of relevant against judged non-relevant "
                "items, retrieved or not (k=None), or over the top k (k=k)"
            ),
        ),
        _ir(
            "Compat", unsupported="compatibility (Clarke et al.); not implemented here"
        ),
        *(
            _ir(name, unsupported=_DIVERSITY)
            for name in (
                "alpha_nDCG",
                "alpha_DCG",
                "AP_IA",
                "ERR_IA",
                "nERR_IA",
                "P_IA",
                "NRBP",
                "nNRBP",
                "StRecall",
            )
        ),
        *(
            _ir(name, unsupported=_CWL)
            for name in (
                "BPM",
                "INST",
                "INSQ",
                "NERR8",
                "NERR9",
                "NERR10",
                "NERR11",
            )
        ),
    )
}

#: Every ir_measures name and alias -> its entry (``"MAP"`` -> AP's).
IR_MEASURE_NAMES = {
    **{a: m for m in IR_MEASURES.values() for a in m.aliases},
    **{"α_nDCG": IR_MEASURES["alpha_nDCG"], "α_DCG": IR_MEASURES["alpha_DCG"]},
    **IR_MEASURES,
}


# --------------------------------------------------------------------------
# Intent-aware measures: y_true of shape (n_samples, n_items, n_intents)
# --------------------------------------------------------------------------
#
# Computed by the functions of ``_diversity`` (one kernel pass over every intent),
# not by one kernel formula, and read from a 3-D ``y_true``: they are not in
# METRICS (whose every entry takes a 2-D one), but they have scorer names
# (``"alpha_ndcg@10"``), report rows and accumulators, as the rest.

ALPHA = Param(
    "alpha",
    0.5,
    low=0.0,
    low_inclusive=True,
    high=1.0,
    high_inclusive=True,
    doc="""\
    alpha : float, default=0.5
        ndeval's alpha in [0, 1] (alpha-nDCG, ERR-IA, nERR-IA).""",
)
INTENT_WEIGHTS = Param(
    "intent_weights",
    None,
    none_ok=True,
    doc="""\
    intent_weights : array-like of shape (n_intents,) or (n_samples, \
n_intents), default=None
        Weight of each intent (P-IA, ERR-IA, nERR-IA); None: uniform.""",
)

#: The parameters of the intent-aware measures, by name.
INTENT_PARAMS = {p.name: p for p in (ALPHA, INTENT_WEIGHTS)}

_NO_INTENT = "no intent with a relevant item"

#: The intent-aware measures, by scorer name (the function's name without
#: ``_at_k``). ``formula`` is -1: no single kernel formula computes them.
INTENT_AWARE = {
    m.name: m
    for m in (
        Metric(
            name="intent_aware_precision",
            function_name="intent_aware_precision_at_k",
            label="P-IA",
            formula=-1,
            params=(INTENT_WEIGHTS,),
            in_default_report=False,
            undefined_when=_NO_INTENT,
        ),
        Metric(
            name="subtopic_recall",
            function_name="subtopic_recall_at_k",
            label="S-recall",
            formula=-1,
            in_default_report=False,
            undefined_when=_NO_INTENT,
        ),
        Metric(
            name="alpha_ndcg",
            function_name="alpha_ndcg_at_k",
            label="alpha-nDCG",
            formula=-1,
            params=(ALPHA,),
            in_default_report=False,
            undefined_when=_NO_INTENT,
        ),
        Metric(
            name="err_ia",
            function_name="err_ia_at_k",
            label="ERR-IA",
            formula=-1,
            params=(ALPHA, INTENT_WEIGHTS),
            in_default_report=False,
            undefined_when=_NO_INTENT,
        ),
        Metric(
            name="nerr_ia",
            function_name="nerr_ia_at_k",
            label="nERR-IA",
            formula=-1,
            params=(ALPHA, INTENT_WEIGHTS),
            in_default_report=False,
            undefined_when=_NO_INTENT,
        ),
    )
}

#: The intent-aware measures, by the name of their public function.
INTENT_AWARE_BY_FUNCTION_NAME = {m.function_name: m for m in INTENT_AWARE.values()}


def intent_scorer_names():
    """The intent-aware measures' scorer names at :data:`LISTED_CUTOFFS`."""
    return [f"{m}@{k}" for m in INTENT_AWARE for k in LISTED_CUTOFFS]


def parse_intent_name(name):
    """``"alpha_ndcg@10"`` -> (its entry, 10); None if ``name`` does not
    name an intent-aware measure. The name alone is an error: they all need
    a cut-off."""
    if not isinstance(name, str):
        return None
    base, at, k = name.partition("@")
    metric = INTENT_AWARE.get(base)
    if metric is None:
        return None
    if not at:
        raise ValueError(f"{base} needs a cut-off: use '{base}@<k>', e.g. '{base}@10'.")
    if not re.fullmatch(r"[1-9]\d*", k):
        raise ValueError(
            f"Unknown scorer name {name!r}: the cut-off after '@' must be a "
            f"positive integer, e.g. '{base}@10'."
        )
    return metric, int(k)
