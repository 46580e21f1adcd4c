"""Per-row metric formulas on the kernel's ranking, exact under ties.

Every formula reads a :class:`~sklearn_rankk._core.ranking.Ranked`: the ranks,
tie groups and relevance the kernel returns for a block of rows. The value is
the exact expectation over all orderings of tied items (McSherry & Najork,
ECIR 2008); with ``ignore_ties=True`` every tie group has one item and the
same formulas give the value of that single ranking.

Notation for one row: ranks ``p = 0 .. K-1``; the item at rank ``p`` lies in
tie group ``g`` of ``n_g`` items (whole row) of which ``r_g`` are relevant,
starting at rank ``a_g``; ``o = p - a_g`` is its offset in the group.

* expected relevance at ``p``: ``r_g / n_g`` (linear metrics: P, R, F1,
  R-precision, DCG, nDCG);
* probability that rank ``p`` is relevant given that no earlier rank of its
  group is: ``r_g / (n_g - o)``; with these, P(no relevant item in the top k)
  and P(first relevant item at rank p) are products (hit, MRR);
* ``E[rel_i rel_j]`` for two ranks of one group: ``r_g (r_g - 1) /
  (n_g (n_g - 1))``, of different groups: the product of the expectations (AP).

A formula is ``formula(ranked, cut, k, params) -> (values, empty)``: ``cut``
(n_rows,) is the number of ranks counted per row, ``k`` the nominal cut-off
(precision divides by it even when a row is shorter), ``params`` the metric's
validated parameters. ``empty`` marks the rows where the metric has nothing
to measure (no relevant item, or an ideal DCG of 0); what such rows are worth
is decided once, by the engine. A curve formula is ``curve(ranked, k_max,
params) -> (values of shape (n_rows, k_max), empty)``: the value at every
cut-off ``1 .. k_max``.

This module imports nothing from the package: the registry points at its
functions.
"""

from __future__ import annotations

import numpy as np


def discount(K, log_base):
    """``1 / log_base(rank + 1)`` for the ranks ``1 .. K``."""
    return np.log(log_base) / np.log(np.arange(2, K + 2, dtype=np.float64))


def safe_div(num, den):
    """``num / den``, 0 where ``den`` is not positive."""
    num = np.asarray(num, dtype=np.float64)
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def _in_cut(ranked, cut):
    return np.arange(ranked.k) < cut[:, None]


def _no_relevant(ranked):
    return ranked.n_relevant == 0


def _n_relevant_in_cut(ranked, cut):
    """Expected number of relevant items in the top ``cut`` ranks."""
    return np.sum(ranked.expected_relevant(), axis=1, where=_in_cut(ranked, cut))


def precision(ranked, cut, k, params):
    return _n_relevant_in_cut(ranked, cut) / k, _no_relevant(ranked)


def recall(ranked, cut, k, params):
    n_rel = ranked.n_relevant
    return safe_div(_n_relevant_in_cut(ranked, cut), n_rel), n_rel == 0


def f1(ranked, cut, k, params):
    # F1@k = 2 P R / (P + R) = 2 |R_k| / (k + |R|): linear in |R_k|.
    n_rel = ranked.n_relevant
    return 2.0 * _n_relevant_in_cut(ranked, cut) / (k + n_rel), n_rel == 0


def _first_hit_terms(ranked, cut):
    """Per rank: P(relevant | no earlier rank of its group is relevant).

    Returns (h, survive) where survive[:, p] = P(no relevant item at ranks < p)
    within the cut.
    """
    r_g = ranked.relevant_group_sum()
    offset = np.arange(ranked.k) - ranked.gstart
    h = np.clip(r_g / (ranked.gsize - offset), 0.0, 1.0)
    h = np.where(ranked.valid & _in_cut(ranked, cut), h, 0.0)
    survive = np.ones_like(h)
    np.cumprod(1.0 - h[:, :-1], axis=1, out=survive[:, 1:])
    return h, survive


def hit(ranked, cut, k, params):
    h, survive = _first_hit_terms(ranked, cut)
    return 1.0 - survive[:, -1] * (1.0 - h[:, -1]), _no_relevant(ranked)


def reciprocal_rank(ranked, cut, k, params):
    h, survive = _first_hit_terms(ranked, cut)
    ranks = np.arange(1, ranked.k + 1, dtype=np.float64)
    return np.sum(survive * h / ranks, axis=1), _no_relevant(ranked)


def average_precision(ranked, cut, k, params):
    """AP@k = sum_{p < k} rel_p * P@(p+1) / denominator, in expectation."""
    denominator = params["denominator"]
    pos = np.arange(ranked.k)
    in_cut = _in_cut(ranked, cut)
    r_g = ranked.relevant_group_sum()
    n_g = ranked.gsize
    valid = ranked.valid
    e = ranked.expected_relevant()
    pair = np.where(
        valid & (n_g > 1), r_g * (r_g - 1) / (n_g * np.maximum(n_g - 1, 1)), 0.0
    )
    # Relevant items expected before each group's start (groups before are
    # wholly inside the top K, so this is their exact count).
    csum = np.concatenate([np.zeros((e.shape[0], 1)), np.cumsum(e, axis=1)], axis=1)
    before = np.take_along_axis(csum, ranked.gstart, axis=1)
    offset = pos - ranked.gstart
    ranks = pos + 1.0
    terms = np.where(in_cut, (e * (1.0 + before) + offset * pair) / ranks, 0.0)
    numerator = terms.sum(axis=1)
    n_rel = ranked.n_relevant
    empty = n_rel == 0
    if denominator == "relevant":
        return safe_div(numerator, n_rel), empty
    if denominator == "min":
        return safe_div(numerator, np.minimum(k, n_rel)), empty

    # "retrieved": divide by the number of relevant items in the top k, which
    # is random only through the tie group straddling the cut-off. Condition
    # on h, the number of its relevant items that land inside the cut
    # (hypergeometric); given h they are uniformly spread over its ranks.
    retrieved = np.sum(e, axis=1, where=in_cut)
    values = safe_div(numerator, retrieved)
    last = np.maximum(cut - 1, 0)[:, None]
    a = np.take_along_axis(ranked.gstart, last, axis=1)[:, 0]
    n = np.take_along_axis(n_g, last, axis=1)[:, 0]
    r = np.take_along_axis(r_g, last, axis=1)[:, 0]
    valid_last = np.take_along_axis(valid, last, axis=1)[:, 0]
    m = cut - a
    straddle = valid_last & (a + n > cut) & (r > 0) & (cut > 0)
    if np.any(straddle):
        from scipy.stats import hypergeom  # heavy import: only when needed

        rows = np.flatnonzero(straddle)
        a, n, r, m = a[rows], n[rows], r[rows].astype(np.int64), m[rows]
        pre = pos < a[:, None]
        c0 = np.sum(e[rows], axis=1, where=pre)
        n0 = np.sum(terms[rows], axis=1, where=pre)
        strad = ~pre & in_cut[rows]
        s1 = np.sum(np.where(strad, 1.0 / ranks, 0.0), axis=1)
        s2 = np.sum(np.where(strad, (pos - a[:, None]) / ranks, 0.0), axis=1)
        hs = np.arange(int(np.max(np.minimum(m, r))) + 1)[None, :]
        pmf = hypergeom.pmf(hs, n[:, None], r[:, None], m[:, None])
        mf = m[:, None].astype(np.float64)
        num = (
            n0[:, None]
            + hs / mf * (1.0 + c0[:, None]) * s1[:, None]
            + np.where(mf > 1, hs * (hs - 1) / (mf * np.maximum(mf - 1, 1)), 0.0)
            * s2[:, None]
        )
        den = c0[:, None] + hs
        cond = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
        values[rows] = np.sum(pmf * cond, axis=1)
    return values, empty


def _dcg_values(ranked, cut, params):
    g = ranked.expected_gain(params["gain"])
    disc = discount(ranked.k, params["log_base"])
    return np.sum(g * disc, axis=1, where=_in_cut(ranked, cut))


def dcg(ranked, cut, k, params):
    return _dcg_values(ranked, cut, params), _no_relevant(ranked)


def ndcg(ranked, cut, k, params):
    dcg = _dcg_values(ranked, cut, params)
    ideal = ranked.ideal_gains(params["gain"])
    disc = discount(ranked.k, params["log_base"])
    idcg = np.sum(ideal * disc, axis=1, where=_in_cut(ranked, cut))
    return safe_div(dcg, idcg), idcg <= 0


def _cumulative_relevant(ranked, k):
    """Expected relevant items in the top 1, 2, ..., k ranks: (n_rows, k).

    Ranks beyond the row's width add nothing, so the last count repeats.
    """
    counts = ranked.cached(
        "rel_cumulative", lambda: np.cumsum(ranked.expected_relevant(), axis=1)
    )
    if counts.shape[1] >= k:
        return counts[:, :k]
    return np.pad(counts, ((0, 0), (0, k - counts.shape[1])), mode="edge")


def precision_curve(ranked, k, params):
    values = _cumulative_relevant(ranked, k) / np.arange(1, k + 1)
    return values, _no_relevant(ranked)


def recall_curve(ranked, k, params):
    n_rel = ranked.n_relevant
    return safe_div(_cumulative_relevant(ranked, k), n_rel[:, None]), n_rel == 0


def f1_curve(ranked, k, params):
    n_rel = ranked.n_relevant
    denominator = np.arange(1, k + 1) + n_rel[:, None]
    return 2.0 * _cumulative_relevant(ranked, k) / denominator, n_rel == 0
