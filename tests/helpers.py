"""Shared test helpers: the brute-force oracle, input builders, registry access.

The oracle is written straight from the definitions, independently of the
package: for every row it enumerates every ordering of the tied items (the
product, over the tie groups, of the permutations of each group), computes
the metric on each ordering and takes the plain mean. Items scored ``-inf``
are not retrieved: they are at no rank, but count among the relevant items
and in the ideal DCG. With ``ignore_ties=True`` the single ordering is
scikit-learn's reversed stable argsort: score descending, then the later
column first.

``ORACLES`` has one entry per metric of the registry: a metric added to the
registry without its oracle here fails ``test_common``.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from pathlib import Path

import numpy as np
import trec_eval_reference

import sklearn_rankk
from sklearn_rankk._core import engine
from sklearn_rankk._core.registry import METRICS

#: trec_eval's own regression files, vendored (see the README there).
TREC_DIR = Path(__file__).resolve().parent / "data" / "trec_eval"

NEG_INF = float("-inf")
RTOL = ATOL = 1e-12

# --------------------------------------------------------------------------
# The oracle: one ranking at a time, straight from the definitions.
# A per-ranking function returns None where the metric is undefined (|R| = 0
# or IDCG = 0); that does not depend on the ranking.
# --------------------------------------------------------------------------


def rankings(scores, ignore_ties):
    """Every ranking (tuple of column indices, finite scores only).

    Tied items are permuted within their group, groups in decreasing score
    order; all orderings are equally likely.
    """
    return list(_rankings(tuple(scores), ignore_ties))


@functools.lru_cache(maxsize=512)
def _rankings(scores, ignore_ties):
    # (kept: the oracle tests ask for the same rows' rankings once for each
    # configuration of each metric)
    finite = [j for j, s in enumerate(scores) if s != NEG_INF]
    if ignore_ties:
        return (tuple(sorted(finite, key=lambda j: (-scores[j], -j))),)
    values = sorted({scores[j] for j in finite}, reverse=True)
    groups = [[j for j in finite if scores[j] == v] for v in values]
    return tuple(
        tuple(itertools.chain.from_iterable(combo))
        for combo in itertools.product(*(itertools.permutations(g) for g in groups))
    )


def _top(ranking, k):
    return ranking if k is None else ranking[:k]


def o_precision(ranking, row, k, params):
    return sum(row.rel[j] for j in _top(ranking, k)) / k


def o_recall(ranking, row, k, params):
    n_rel = sum(row.rel)
    if n_rel == 0:
        return None
    return sum(row.rel[j] for j in _top(ranking, k)) / n_rel


def o_f1(ranking, row, k, params):
    n_rel = sum(row.rel)
    if n_rel == 0:
        return None
    p = o_precision(ranking, row, k, params)
    r = o_recall(ranking, row, k, params)
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def o_relative_precision(ranking, row, k, params):
    n_rel = sum(row.rel)
    if n_rel == 0:
        return None
    return sum(row.rel[j] for j in _top(ranking, k)) / min(k, n_rel)


def _set_counts(ranking, row):
    """(relevant retrieved, retrieved, relevant): ``ranking`` holds exactly
    the retrieved items."""
    return sum(row.rel[j] for j in ranking), len(ranking), sum(row.rel)


def o_set_precision(ranking, row, k, params):
    hits, n_ret, _ = _set_counts(ranking, row)
    return hits / n_ret if n_ret else 0.0


def o_set_recall(ranking, row, k, params):
    hits, _, n_rel = _set_counts(ranking, row)
    return None if n_rel == 0 else hits / n_rel


def o_set_f(ranking, row, k, params):
    hits, n_ret, n_rel = _set_counts(ranking, row)
    if n_rel == 0:
        return None
    if hits == 0:
        return 0.0
    p, r, b2 = hits / n_ret, hits / n_rel, params["beta"] ** 2
    return (1 + b2) * p * r / (b2 * p + r)


def o_set_relative_precision(ranking, row, k, params):
    hits, n_ret, n_rel = _set_counts(ranking, row)
    if n_rel == 0:
        return None
    return hits / min(n_ret, n_rel) if n_ret else 0.0


def o_set_average_precision(ranking, row, k, params):
    hits, n_ret, n_rel = _set_counts(ranking, row)
    if n_rel == 0:
        return None
    return hits * hits / (n_ret * n_rel) if n_ret else 0.0


def o_fbeta(ranking, row, k, params):
    n_rel = sum(row.rel)
    if n_rel == 0:
        return None
    p = o_precision(ranking, row, k, params)
    r = o_recall(ranking, row, k, params)
    b2 = params["beta"] ** 2
    return 0.0 if p + r == 0 else (1 + b2) * p * r / (b2 * p + r)


def o_hit(ranking, row, k, params):
    return 1.0 if any(row.rel[j] for j in _top(ranking, k)) else 0.0


def o_mrr(ranking, row, k, params):
    for i, j in enumerate(_top(ranking, k), start=1):
        if row.rel[j]:
            return 1.0 / i
    return 0.0


def o_ap(ranking, row, k, params):
    rel = row.rel
    n_rel = sum(rel)
    if n_rel == 0:
        return None
    total = 0.0
    found = 0
    for i, j in enumerate(_top(ranking, k), start=1):
        if rel[j]:
            found += 1
            total += found / i  # P@i at a relevant rank
    denominator = params["denominator"]
    if denominator == "relevant":
        den = n_rel
    elif denominator == "min":
        den = min(len(rel) if k is None else k, n_rel)
    else:  # "retrieved"
        den = found
    return 0.0 if den == 0 else total / den


def _dcg(gains_in_order, k, log_base):
    return sum(
        g / math.log(i + 1, log_base)
        for i, g in enumerate(_top(list(gains_in_order), k), start=1)
    )


def _judged_nonrelevant(row, j):
    return not row.rel[j] and row.grades[j] >= 0


def _unjudged(row, j):
    return not row.rel[j] and row.grades[j] < 0


def o_bpref(ranking, row, k, params):
    """Buckley & Voorhees (2004), as trec_eval's m_bpref.c."""
    n_rel = sum(row.rel)
    if n_rel == 0:
        return None
    n_nonrel = sum(_judged_nonrelevant(row, j) for j in range(len(row.rel)))
    above = total = 0
    for j in ranking:
        if row.rel[j]:
            total += 1 - min(above, n_rel) / min(n_nonrel, n_rel) if above else 1
        elif _judged_nonrelevant(row, j):
            above += 1
    return total / n_rel


def o_infap(ranking, row, k, params):
    """Yilmaz & Aslam (2006), as trec_eval's m_infap.c: grades -1 (or in
    (-2, 0)) never pooled, -2 or less pooled but not judged."""
    n_rel = sum(row.rel)
    if n_rel == 0:
        return None
    eps = 1e-5
    rel = nonrel = pooled = 0
    total = 0.0
    for j, item in enumerate(ranking):
        if row.rel[item]:
            if j == 0:
                total += 1.0
            else:
                total += 1 / (j + 1) + (j / (j + 1)) * ((rel + nonrel + pooled) / j) * (
                    (rel + eps) / (rel + nonrel + 2 * eps)
                )
            rel += 1
        elif row.grades[item] >= 0:
            nonrel += 1
        elif row.grades[item] <= -2:
            pooled += 1
    return total / n_rel


def o_rbp_residual(ranking, row, k, params):
    """trec_eval's m_rbp_resid.c: the unjudged ranks' RBP weight plus p**n."""
    p = params["p"]
    weights = [(1 - p) * p**i for i, j in enumerate(ranking) if _unjudged(row, j)]
    return math.fsum(weights) + p ** len(ranking) if weights else 0.0


def o_unjudged(ranking, row, k, params):
    return sum(_unjudged(row, j) for j in _top(ranking, k)) / k


def _discount(i, params):
    """The discount of 1-based rank i (the DCG family's ``discount``)."""
    discount, b = params["discount"], params["log_base"]
    if callable(discount):
        return float(discount(i))
    if discount == "log":
        return 1.0 / math.log(i + 1, b)
    if discount == "jarvelin":  # Jarvelin and Kekalainen: no discount before rank b
        return 1.0 if i < b else 1.0 / math.log(i, b)
    if discount == "reciprocal":
        return 1.0 / i
    return params["discount_p"] ** (i - 1)  # geometric


def _dcg_with(gains_in_order, k, params):
    return sum(
        g * _discount(i, params)
        for i, g in enumerate(_top(list(gains_in_order), k), start=1)
    )


def _ideal_gains(row):
    return sorted((g for g in row.gains if g > 0), reverse=True)


def o_dcg(ranking, row, k, params):
    return _dcg_with([row.gains[j] for j in ranking], k, params)


def o_ndcg(ranking, row, k, params):
    ideal = _dcg_with(_ideal_gains(row), k, params)
    if ideal == 0:
        return None
    return o_dcg(ranking, row, k, params) / ideal


def o_ideal_dcg(ranking, row, k, params):
    return _dcg_with(_ideal_gains(row), k, params)


def o_sdcg(ranking, row, k, params):
    """DCG@k over k ranks of the largest gain (Moffat et al. 2015)."""
    if params["max_rel"] is None:
        top = max(row.gains, default=0.0)
    else:
        top = row.gain_of(params["max_rel"])
    norm = top * sum(_discount(i, params) for i in range(1, k + 1))
    return o_dcg(ranking, row, k, params) / norm if norm > 0 else 0.0


def _ps_gains(row, params):
    """The propensity-scored gains: a relevant item's weight (1 without
    ``propensity``), else 0."""
    w = params.get("propensity")
    return [
        (1.0 if w is None else float(w[j])) if r else 0.0 for j, r in enumerate(row.rel)
    ]


def ps_sums(ranking, row, k, params, discount):
    """(the ranking's weighted gain at the top k, the best one), with
    ``discount(i)`` at 1-based rank i: Jain et al.'s PSP@k (times k) and
    PSDCG@k, from the definitions."""
    gains = _ps_gains(row, params)
    top = sum(gains[j] * discount(i) for i, j in enumerate(ranking[:k], start=1))
    ideal = sorted(gains, reverse=True)[:k]
    best = sum(g * discount(i) for i, g in enumerate(ideal, start=1))
    return top, best


def _ps_ratio(ranking, row, k, params, discount):
    top, best = ps_sums(ranking, row, k, params, discount)
    return None if best == 0 else top / best


def o_psprecision(ranking, row, k, params):
    return _ps_ratio(ranking, row, k, params, lambda i: 1.0)


def o_psndcg(ranking, row, k, params):
    return _ps_ratio(ranking, row, k, params, lambda i: 1.0 / math.log2(i + 1))


def o_yaap(ranking, row, k, params):
    """trec_eval's yaap: log((1 + S) / (1 + |R| - S)), S = |R| AP."""
    found, s = 0, 0.0
    for i, j in enumerate(ranking, start=1):
        if row.rel[j]:
            found += 1
            s += found / i
    return math.log((1.0 + s) / (1.0 + sum(row.rel) - s))


def o_r_precision(ranking, row, k, params):
    n_rel = sum(row.rel)
    if n_rel == 0:
        return None
    # trec_eval's Rprec_mult: precision at (long)(x R + 0.9), R at x = 1.
    c = int(params["multiple"] * n_rel + 0.9)
    return sum(row.rel[j] for j in ranking[:c]) / c if c else 0.0


def _recall_point(x, n_rel):
    """trec_eval 10.0's ``lround(x * R)``: halves away from zero."""
    v = x * n_rel
    return math.floor(v) + (v - math.floor(v) >= 0.5)


def o_iprec(ranking, row, k, params):
    n_rel = sum(row.rel)
    if n_rel == 0:
        return None
    c = _recall_point(params["recall_level"], n_rel)
    # (i, rank) of the i-th relevant item of the ranking.
    found = [(i, rank) for i, rank in enumerate(
        (rank for rank, j in enumerate(ranking, start=1) if row.rel[j]), start=1
    )]  # fmt: skip
    if c > len(found):
        return 0.0
    return max((i / rank for i, rank in found if i >= max(c, 1)), default=0.0)


def o_eleven_point(ranking, row, k, params):
    values = [
        o_iprec(ranking, row, k, {"recall_level": x}) for x in params["recall_levels"]
    ]
    if values[0] is None:
        return None
    return math.fsum(values) / len(values)


def o_err(ranking, row, k, params):
    """Chapelle et al.'s cascade, straight from the definition."""
    relevant = [g for g, r in zip(row.grades, row.rel) if r]
    g_max = params["max_grade"]
    if g_max is None:
        g_max = max(relevant, default=0)
    stop = [
        (2.0**g - 1.0) / 2.0**g_max if r and g > 0 else 0.0
        for g, r in zip(row.grades, row.rel)
    ]
    value, reach = 0.0, 1.0
    for i, j in enumerate(_top(ranking, k), start=1):
        value += reach * stop[j] / i
        reach *= 1.0 - stop[j]
    return value


def o_fall_out(ranking, row, k, params):
    """Judged non-relevant items (0 <= grade <= threshold) in the top k over
    those of the row; None without any."""
    judged = [0 <= g <= row.threshold for g in row.grades]
    if not any(judged):
        return None
    return sum(judged[j] for j in _top(ranking, k)) / sum(judged)


def _full_orders(ranking, row):
    """Every complete order of the row's items: the ranking, then each
    permutation of the items it leaves out (scored -inf: not retrieved, below
    every other item and tied among themselves), equally likely."""
    rest = [j for j in range(len(row.grades)) if j not in set(ranking)]
    return [list(ranking) + list(p) for p in itertools.permutations(rest)]


def _auc_of_order(order, pos, neg, max_fpr):
    """AUC of a strict order, or the McClish-standardized partial AUC: the
    ROC staircase drawn step by step (each non-relevant item a step of 1/N
    to the right at the height of the relevant items above it, over P),
    its area cut at max_fpr."""
    place = {j: i for i, j in enumerate(order)}
    P, N = len(pos), len(neg)
    heights = [
        sum(place[p] < place[n] for p in pos) / P
        for n in sorted(neg, key=place.__getitem__)
    ]
    if max_fpr is None:
        return math.fsum(heights) / N
    area = math.fsum(
        h * min(1.0 / N, max(0.0, max_fpr - i / N)) for i, h in enumerate(heights)
    )
    low, high = max_fpr**2 / 2, max_fpr
    return 0.5 * (1 + (area - low) / (high - low))


def o_auc(ranking, row, k, params):
    """Relevant against judged non-relevant items; None without either. The
    whole row (k=None): the mean over the orders of the items at -inf. The
    top k: its relevant and judged non-relevant items, 0 lacking either."""
    t = row.threshold
    pos = [j for j, g in enumerate(row.grades) if g > t]
    neg = [j for j, g in enumerate(row.grades) if 0 <= g <= t]
    if not pos or not neg:
        return None
    if k is None:
        orders = _full_orders(ranking, row)
        values = [_auc_of_order(o, pos, neg, params.get("max_fpr")) for o in orders]
        return math.fsum(values) / len(values)
    top = list(_top(ranking, k))
    pos_k = [j for j in top if j in pos]
    neg_k = [j for j in top if j in neg]
    if not pos_k or not neg_k:
        return 0.0
    return _auc_of_order(top, pos_k, neg_k, None)


def o_pairwise_accuracy(ranking, row, k, params):
    """Pairs of judged items of different grades ranked in order; None
    without any pair; the items at -inf in every order, as o_auc."""
    g = row.grades
    judged = [j for j in range(len(g)) if g[j] >= 0]
    pairs = [(a, b) for a in judged for b in judged if g[a] > g[b]]
    if not pairs:
        return None
    values = []
    for order in _full_orders(ranking, row):
        place = {j: i for i, j in enumerate(order)}
        values.append(sum(place[a] < place[b] for a, b in pairs) / len(pairs))
    return math.fsum(values) / len(values)


# trec_eval's gain measures and utility: tests/trec_eval_reference.py (a port
# of trec_eval's C measures, independent of the package) on one ranking. The
# package's gain is the grade of a relevant item (grade > threshold), so an
# item below the threshold is given grade 0; the column indices are the docnos.


def _trec_rels(ranking, row):
    grades = {j: int(g) for j, g in enumerate(row.gains)}
    return trec_eval_reference.res_rels(list(ranking), grades, relevance_level=1)


def _positive_gain(row):
    return any(g > 0 for g in row.gains)


def o_rbp(ranking, row, k, params):
    return trec_eval_reference.rbp(
        _trec_rels(_top(ranking, k), row), None, p=params["p"]
    )


def o_rndcg(ranking, row, k, params):
    if not _positive_gain(row):
        return None
    return trec_eval_reference.Rndcg(_trec_rels(ranking, row), None)


def o_binary_g(ranking, row, k, params):
    if not any(row.rel):
        return None
    return trec_eval_reference.binG(_trec_rels(ranking, row), None)


def o_utility(ranking, row, k, params):
    weights = tuple(params[f"{c}_weight"] for c in ("tp", "fp", "fn", "tn"))
    return trec_eval_reference.utility(
        _trec_rels(ranking, row), None, params=weights, num_docs_in_coll=len(row.rel)
    )


def o_ndcg_rel(ranking, row, k, params):
    if not _positive_gain(row):
        return None
    return trec_eval_reference.ndcg_rel(_trec_rels(ranking, row), None)


def o_normalized_gain(ranking, row, k, params):
    if not _positive_gain(row):
        return None
    return trec_eval_reference.G(_trec_rels(ranking, row), None)


#: The oracle of every metric of the registry, by name.
ORACLES = {
    "precision": o_precision,
    "relative_precision": o_relative_precision,
    "recall": o_recall,
    "f1": o_f1,
    "fbeta": o_fbeta,
    "hit": o_hit,
    "mrr": o_mrr,
    "map": o_ap,
    "dcg": o_dcg,
    "ndcg": o_ndcg,
    "r_precision": o_r_precision,
    "interpolated_precision": o_iprec,
    "eleven_point_precision": o_eleven_point,
    "set_precision": o_set_precision,
    "set_recall": o_set_recall,
    "set_f": o_set_f,
    "set_relative_precision": o_set_relative_precision,
    "set_average_precision": o_set_average_precision,
    "bpref": o_bpref,
    "infap": o_infap,
    "unjudged": o_unjudged,
    "rbp_residual": o_rbp_residual,
    "rbp": o_rbp,
    "rndcg": o_rndcg,
    "binary_g": o_binary_g,
    "utility": o_utility,
    "ndcg_rel": o_ndcg_rel,
    "normalized_gain": o_normalized_gain,
    "err": o_err,
    "fall_out": o_fall_out,
    "auc": o_auc,
    "pairwise_accuracy": o_pairwise_accuracy,
    "ideal_dcg": o_ideal_dcg,
    "sdcg": o_sdcg,
    "yaap": o_yaap,
    "psprecision": o_psprecision,
    "psndcg": o_psndcg,
}

#: Metrics undefined (None in the oracle) on rows with no relevant item.
ORACLE_UNDEFINED = {
    "relative_precision",
    "recall",
    "f1",
    "fbeta",
    "map",
    "ndcg",
    "r_precision",
    "interpolated_precision",
    "eleven_point_precision",
    "set_recall",
    "set_f",
    "set_relative_precision",
    "set_average_precision",
    "bpref",
    "infap",
    "rndcg",
    "binary_g",
    "ndcg_rel",
    "normalized_gain",
    "fall_out",
    "auc",
    "pairwise_accuracy",
    "psprecision",
    "psndcg",
}

#: Metrics undefined on the rows with no non-relevant item (0 <= grade <=
#: threshold) instead of the rows with no relevant item.
NO_NON_RELEVANT = {"fall_out"}

#: Metrics undefined on the rows lacking a relevant or a judged non-relevant
#: item (AUC), or two judged items of different grades (pairwise accuracy).
NEEDS_BOTH = {"auc"}
NEEDS_PAIR = {"pairwise_accuracy"}


def empty_rows(metric, y_true, threshold=0):
    """The rows where ``zero_division`` applies to ``metric`` (None: the rows
    with no relevant item)."""
    y = np.asarray(y_true)
    if metric in NEEDS_BOTH:
        has_neg = np.any((y >= 0) & (y <= threshold), axis=1)
        return ~(np.any(y > threshold, axis=1) & has_neg)
    if metric in NEEDS_PAIR:
        judged = np.where(y >= 0, y, np.nan)
        return ~(
            np.nanmax(judged, axis=1, initial=-1)
            > np.nanmin(judged, axis=1, initial=np.inf)
        )
    if metric in NO_NON_RELEVANT:
        return ~np.any((y >= 0) & (y <= threshold), axis=1)
    return ~np.any(y > threshold, axis=1)


#: Metrics defined on rows with no relevant item (zero_division never applies).
ALWAYS_DEFINED = {name for name, m in METRICS.items() if m.empty_rows == "never"}


def _inverse_sqrt(rank):
    """A discount given as a callable of the 1-based rank."""
    return 1.0 / np.sqrt(rank)


#: Options the oracle checks for each metric parameter.
PARAM_VALUES = {
    "denominator": ("relevant", "min", "retrieved"),
    "gain": ("linear", "exponential"),
    "log_base": (2, 10),
    "beta": (0.0, 0.5, 2.0),
    "multiple": (0.2, 1.0, 1.4, 2.0, 3.0),
    "recall_level": (0.0, 0.1, 0.3, 0.5, 0.75, 1.0),
    "recall_levels": (
        (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
        (0.25, 0.6),
    ),
    "max_grade": (None, 3, 6.5),
    "p": (0.9, 0.5),
    "tp_weight": (1.0, 2.0),
    "fp_weight": (-1.0, 0.5),
    "fn_weight": (0.0, -1.5),
    "tn_weight": (0.0, 0.25),
    "max_fpr": (None, 0.3, 0.5, 1.0),
    # a map that reorders the grades (3 below 1) and a callable
    "gains": (None, {1: 3.5, 3: 0.5}, np.sqrt),
    "discount": ("log", "jarvelin", "reciprocal", "geometric", _inverse_sqrt),
    "discount_p": (0.9, 0.5),
    "max_rel": (None, 3),
    # one weight per column: tests/test_propensity.py checks the weights
    "propensity": (None,),
}
DEFAULT_PARAMS = {
    "denominator": "relevant",
    "gain": "linear",
    "log_base": 2,
    "beta": 1.0,
    "multiple": 1.0,
    "recall_level": 0.0,
    "recall_levels": (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    "max_grade": 4,
    "p": 0.9,
    "tp_weight": 1.0,
    "fp_weight": -1.0,
    "fn_weight": 0.0,
    "tn_weight": 0.0,
    "max_fpr": None,
    "gains": None,
    "discount": "log",
    "discount_p": 0.9,
    "max_rel": None,
    "propensity": None,
}


class _Row:
    """One row's relevance as the oracle reads it."""

    def __init__(self, grades, threshold, gain, gains=None):
        self.grades = grades
        self.threshold = threshold
        self.rel = [g > threshold for g in grades]
        self.gain, self.gain_map = gain, gains
        if gain == "exponential":
            self.gains = [2.0**g - 1.0 if r else 0.0 for g, r in zip(grades, self.rel)]
        else:
            self.gains = [float(g) if r else 0.0 for g, r in zip(grades, self.rel)]
        if gains is not None:  # a gain map: relevant judged grades only
            self.gains = [
                self.gain_of(g) if r and g >= 0 else 0.0
                for g, r in zip(grades, self.rel)
            ]

    def gain_of(self, grade):
        """The gain of a grade, relevant or not (SDCG's max_rel)."""
        if callable(self.gain_map):
            return float(self.gain_map(grade))
        if self.gain_map is not None and grade in self.gain_map:
            return float(self.gain_map[grade])
        if grade <= 0:
            return 0.0
        return 2.0**grade - 1.0 if self.gain == "exponential" else float(grade)


def oracle_row(metric, scores, grades, *, ignore_ties, threshold, k, params):
    """Expected value of ``metric`` on one row (None if undefined)."""
    params = {**DEFAULT_PARAMS, **params}
    row = _Row(grades, threshold, params["gain"], params["gains"])
    one = ORACLES[metric]
    values = [one(r, row, k, params) for r in rankings(scores, ignore_ties)]
    if values[0] is None:
        assert all(v is None for v in values)
        return None
    return math.fsum(values) / len(values)


def oracle(metric, y_true, y_score, **kwargs):
    """Per-row expected values; None marks undefined rows."""
    return [
        oracle_row(metric, list(s), list(t), **kwargs)
        for s, t in zip(np.asarray(y_score).tolist(), np.asarray(y_true).tolist())
    ]


def fill_undefined(values, zero_division, y_true=None, threshold=0, metric=None):
    """Oracle values with ``zero_division`` in the undefined rows (None) and,
    given ``y_true``, in every row with no relevant item (where precision,
    hit, MRR and DCG are 0 by definition, and zero_division=1.0 or nan still
    applies), for fall-out (``metric``) in every row with no non-relevant
    item, unless ``metric`` is defined there whatever the policy."""
    empty = [False] * len(values)
    if y_true is not None and metric not in ALWAYS_DEFINED:
        empty = empty_rows(metric, y_true, threshold).tolist()
    return np.array(
        [zero_division if v is None or e else v for v, e in zip(values, empty)],
        dtype=np.float64,
    )


def weighted_mean(values, weights):
    keep = ~np.isnan(values)
    if not keep.any():
        return math.nan
    w = np.ones_like(values) if weights is None else np.asarray(weights)
    return math.fsum(values[keep] * w[keep]) / math.fsum(w[keep])


# --------------------------------------------------------------------------
# Metrics under test, read from the registry
# --------------------------------------------------------------------------

#: The public function of every metric, by name.
FUNCS = {name: getattr(sklearn_rankk, m.function_name) for name, m in METRICS.items()}
KS = (1, 2, 3, 5)


def _dcg_family_combination(p):
    gains, discount = p.get("gains"), p.get("discount", "log")
    if gains is not None and (p.get("gain") == "exponential" or discount != "log"):
        return False
    if p.get("gain") == "exponential" and discount != "log":
        return False
    if p.get("log_base", 2) != 2 and discount != "log":
        return False
    if p.get("discount_p", 0.9) != 0.9 and discount != "geometric":
        return False
    return p.get("max_rel") is None or (gains is None and discount == "log")


def configurations(metric):
    """(k, metric-specific params) pairs to check for ``metric``."""
    info = METRICS[metric]
    names = info.param_names
    extra = [
        dict(zip(names, values))
        for values in itertools.product(*(PARAM_VALUES[n] for n in names))
    ]
    # The DCG family: a gain map is not combined with gain="exponential";
    # gain maps are checked with the default discount, each discount without
    # a map, exponential gains and log_base with the "log" discount only,
    # discount_p with "geometric"; SDCG's max_rel with the default discount.
    extra = [p for p in extra if _dcg_family_combination(p)]
    if not info.needs_k:  # cut per row (|R|, retrieved items)
        return [(None, p) for p in extra]
    ks = KS + ((None,) if info.allow_k_none else ())
    whole_row_only = [p.name for p in info.params if p.whole_row_only]
    # The DCG family's gain maps and discounts: at two cut-offs (one inside
    # the rows, one past most of them), the rest of the grid at every k.
    few = (2, 5)
    return [
        (k, p)
        for p in extra
        for k in (few if _new_dcg_options(p) else ks)
        if k is None or all(p[n] is None for n in whole_row_only)
    ]


def _new_dcg_options(p):
    return any(
        p.get(name, DEFAULT_PARAMS[name]) != DEFAULT_PARAMS[name]
        for name in ("gains", "discount", "discount_p", "max_rel")
    )


def call(metric, y_true, y_score, k, params, **kwargs):
    if METRICS[metric].needs_k:
        kwargs["k"] = k
    # The mean the oracle's weighted_mean checks: the plain (sample-weighted)
    # mean of the rows, which is not the default of the propensity-scored
    # metrics (pyxclib's ratio of dataset means, tests/test_propensity.py).
    if "average" not in kwargs and METRICS[metric].default_average != "mean":
        kwargs["average"] = "mean"
    return FUNCS[metric](y_true, y_score, **params, **kwargs)


def random_case(seed):
    """Small, heavily tied random inputs with corner cases built in."""
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(1, 7))
    n_rows = int(rng.integers(2, 8))
    n_levels = int(rng.integers(1, 5))  # scores in 0 .. n_levels - 1
    y_score = rng.integers(0, n_levels, size=(n_rows, n_items)).astype(np.float64)
    y_score[rng.random((n_rows, n_items)) < 0.2] = -np.inf
    grades = rng.integers(1, 4, size=(n_rows, n_items))
    y_true = np.where(rng.random((n_rows, n_items)) < 0.5, 0, grades)
    if seed % 5 == 2:  # items never judged (-1) and pooled but not judged (-2)
        y_true[rng.random((n_rows, n_items)) < 0.3] = -1
        y_true[rng.random((n_rows, n_items)) < 0.15] = -2
    y_true[0] = 0  # a row with no relevant item
    if n_rows > 2:
        # a row whose relevant item is not retrieved
        y_true[1, 0] = 2
        y_score[1, 0] = -np.inf
    if seed % 3 == 0:
        y_true = y_true.astype(np.float64)
    if seed % 4 == 1:
        y_score = y_score.astype(np.float32)  # small integers: exact in float32
    weights = rng.uniform(0.1, 2.0, size=n_rows) if seed % 2 else None
    return y_true, y_score, weights


def row_values(names, y_true, y_score, *, zero_division="warn", qid=None, **options):
    """Per-row values of scorer names from one engine pass: dict name -> array
    (NaN where ``zero_division=np.nan`` leaves a row out)."""
    scorer = sklearn_rankk.get_scorer(
        list(names), zero_division=zero_division, **options
    )
    rows = engine.row_values(
        scorer.requests, y_true, y_score, qid=qid, **scorer.options
    )
    return engine.with_undefined(
        rows, scorer.requests, scorer.zero_division, keys=scorer.keys
    )


def trec_file(name):
    """Path of one of trec_eval's vendored regression files."""
    path = TREC_DIR / name
    assert path.is_file(), f"{path} is missing from the vendored trec_eval files"
    return path


def random_trec_files(
    folder,
    seed,
    *,
    max_queries,
    doc_ids,
    draws,
    max_extra_judged,
    grades,
    not_retrieved=0.0,
    tops,
    divisors,
    tag,
):
    """A random qrels file and run (``folder / "qrels"``, ``folder / "run"``)
    for the command-line tests: 1 to ``max_queries`` queries, each with
    up to ``draws`` documents drawn from ``d1 .. d<doc_ids>``, about 60% of
    them judged plus up to ``max_extra_judged`` judged documents not
    retrieved (``x0``, ...); grades drawn from ``grades`` for half the
    queries, 0/1 for the others; scores ``randint(0, top) / divisor`` (ties),
    ``top`` and ``divisor`` drawn from ``tops`` and ``divisors``; a query of
    the qrels left out of the run with probability ``not_retrieved``; and a
    query of the run only (999). Returns the two paths; the same arguments
    give the same files."""
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(rng.randint(1, max_queries)):
        qid = f"{100 + q}"
        docs = list(dict.fromkeys(f"d{rng.randint(1, doc_ids)}" for _ in range(draws)))
        docs = docs[: rng.randint(1, len(docs))]
        judged = [d for d in docs if rng.random() < 0.6]
        judged += [f"x{i}" for i in range(rng.randint(0, max_extra_judged))]
        drawn = grades if rng.random() < 0.5 else [0, 1]
        qrels += [f"{qid} 0 {d} {rng.choice(drawn)}" for d in judged]
        if not_retrieved and rng.random() < not_retrieved:
            continue  # judged, not in the run
        top = rng.choice(tops)
        run += [
            f"{qid} Q0 {d} {i + 1} {rng.randint(0, top) / rng.choice(divisors)} {tag}"
            for i, d in enumerate(docs)
        ]
    run.append("999 Q0 d1 1 1.0 t")  # a query of the run only
    rng.shuffle(run)
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    (folder / "run").write_text("\n".join(run) + "\n")
    return folder / "qrels", folder / "run"
