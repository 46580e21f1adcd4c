"""A second, independent engine for the tests: numpy selection + numpy formulas.

This is the package's former numpy implementation (before the compiled
kernel computed the formulas): a plain numpy top-k selection (``lexsort``
per row, ties in exact mode grouped, in ``ignore_ties`` mode the later column
first) feeding the closed-form tie-aware formulas written with numpy arrays.
The brute-force oracle of ``helpers`` enumerates orderings and only works on
tiny rows; this reference works at any size, so the kernel's selection paths
(sorted buffer, heap, whole-row selection), deep cut-offs and wide tie groups
are checked against it on large rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from sklearn_rankk._core.registry import METRICS

# --------------------------------------------------------------------------
# The top K of each row, plain numpy
# --------------------------------------------------------------------------


def reference_ranked(y_true, y_score, K, *, threshold, ignore_ties):
    """The former kernel's outputs for dense inputs, as a ``Ranked``."""
    y = np.asarray(y_true, dtype=np.float64)
    s = np.asarray(y_score, dtype=np.float64)
    n, m = s.shape
    cols = np.empty((n, K), dtype=np.intp)
    gstart = np.empty((n, K), dtype=np.int64)
    gsize = np.empty((n, K), dtype=np.int64)
    tied_r = np.zeros(n)
    tied_g = np.zeros(n)
    tied_e = np.zeros(n)
    relevant = y > threshold
    gain = np.where(relevant, y, 0.0)
    for i in range(n):
        col_key = -np.arange(m) if ignore_ties else np.arange(m)
        order = np.lexsort((col_key, -s[i]))[:K]
        cols[i] = order
        values = s[i, order]
        for p in range(K):
            if ignore_ties:
                gstart[i, p], gsize[i, p] = p, 1
            else:
                gstart[i, p] = np.flatnonzero(values == values[p])[0]
                gsize[i, p] = np.count_nonzero(s[i] == values[p])
        if not ignore_ties:
            tied = s[i] == values[K - 1]
            tied_r[i] = np.count_nonzero(relevant[i] & tied)
            tied_g[i] = np.sum(gain[i] * tied)
            with np.errstate(over="ignore", invalid="ignore"):  # 2**huge: unused
                tied_e[i] = np.sum((np.exp2(gain[i]) - 1.0) * tied)
    ideal = -np.sort(-gain, axis=1)[:, :K]
    return Ranked(
        cols=cols,
        valid=np.take_along_axis(s, cols, axis=1) > -np.inf,
        gstart=gstart,
        gsize=gsize,
        grade=np.take_along_axis(y, cols, axis=1),
        n_relevant=relevant.sum(axis=1),
        tied_relevant=tied_r,
        tied_gain=tied_g,
        tied_gain_exp=tied_e,
        ideal=ideal,
        threshold=threshold,
        ties=not ignore_ties,
        row_k=np.full(n, K),
        n_items=m,
    )


@dataclass
class Ranked:
    """The top ``K`` items of each row of a block, with their relevance.

    Attributes
    ----------
    cols : ndarray of shape (n_rows, K), int
        Column index of the item at each rank.
    valid : ndarray of shape (n_rows, K), bool
        False where the item's score is ``-inf`` (not retrieved: at no rank).
    gstart : ndarray of shape (n_rows, K), int
        Rank (0-based) at which the tie group of each position starts.
    gsize : ndarray of shape (n_rows, K), int
        Number of items in the whole row tied with the item at this rank.
    grade : ndarray of shape (n_rows, K), float
        ``y_true`` of the item at each rank.
    n_relevant : ndarray of shape (n_rows,), int
        Relevant items of the row (``y_true > threshold``), retrieved or not.
    tied_relevant, tied_gain, tied_gain_exp : ndarray of shape (n_rows,)
        Relevant items, and their linear and exponential gains, summed over
        the whole row's items tied with the K-th (the last group).
    ideal : ndarray of shape (n_rows, K)
        The K largest relevant grades of the row, decreasing, padded with 0.
    threshold : float
        Relevance threshold.
    ties : bool
        False if ties are broken by column order (every rank its own group).
    row_k : ndarray of shape (n_rows,)
        Ranks produced for each row; ranks beyond are not retrieved.
    """

    cols: np.ndarray
    valid: np.ndarray
    gstart: np.ndarray
    gsize: np.ndarray
    grade: np.ndarray
    n_relevant: np.ndarray
    tied_relevant: np.ndarray
    tied_gain: np.ndarray
    tied_gain_exp: np.ndarray
    ideal: np.ndarray
    threshold: float
    ties: bool
    row_k: np.ndarray
    _cache: dict = field(default_factory=dict)
    _parent: Ranked | None = None
    n_items: int = 0

    @property
    def k(self):
        return self.cols.shape[1]

    def window(self, width):
        """The first ``width`` ranks, for a metric whose cut-offs fit in them.

        Sums over tie groups still come from the whole ranking (a group may
        extend past the window), through the parent; everything else is a
        view of the first ``width`` columns, so a metric at k = 10 costs
        O(10) per row even when the block was ranked deeper for another one
        (R-precision).
        """
        if width >= self.k:
            return self
        w = slice(None, width)
        return Ranked(
            cols=self.cols[:, w],
            valid=self.valid[:, w],
            gstart=self.gstart[:, w],
            gsize=self.gsize[:, w],
            grade=self.grade[:, w],
            n_relevant=self.n_relevant,
            tied_relevant=self.tied_relevant,
            tied_gain=self.tied_gain,
            tied_gain_exp=self.tied_gain_exp,
            ideal=self.ideal[:, w],
            threshold=self.threshold,
            ties=self.ties,
            row_k=np.minimum(self.row_k, width),
            _parent=self,
        )

    @property
    def relevant(self):
        """Binary relevance of the item at each rank."""
        return self.cached("rel", lambda: self.grade > self.threshold)

    def gains(self, gain):
        """Gain of the item at each rank (0 at or below the threshold)."""

        def compute():
            g = np.where(self.relevant, self.grade, 0.0)
            return g if gain == "linear" else np.exp2(g) - 1.0

        return self.cached(("gain", gain), compute)

    def ideal_gains(self, gain):
        """Gains of the ideal ranking's first K ranks."""
        return self.ideal if gain == "linear" else np.exp2(self.ideal) - 1.0

    def group_sum(self, at, tied_total):
        """Sum over the tie group of each rank, of values ``at`` the ranks.

        The last group is summed over the whole row (``tied_total``), so it
        includes its items beyond the cut-off.
        """
        if not self.ties:
            return at
        if self._parent is not None:  # a window cannot see its groups' ends
            raise RuntimeError("group sums of a window come from its parent")
        csum = np.cumsum(at, axis=1, dtype=np.float64)
        kr = self.row_k[:, None]
        gend_in = np.minimum(self.gstart + self.gsize, kr)
        upto = np.take_along_axis(csum, gend_in - 1, axis=1)
        before = np.where(
            self.gstart > 0,
            np.take_along_axis(csum, np.maximum(self.gstart - 1, 0), axis=1),
            0.0,
        )
        # The last group of each row: the one holding its rank row_k - 1.
        last_start = np.take_along_axis(self.gstart, kr - 1, axis=1)
        last = (self.gstart == last_start) & (np.arange(at.shape[1]) < kr)
        return np.where(last, tied_total[:, None], upto - before)

    def expected(self, at, tied_total):
        """Expected value at each rank over all orderings of tied items.

        Zero at ranks whose item is not retrieved (score ``-inf``).
        """
        out = self.group_sum(at, tied_total) / self.gsize
        return np.where(self.valid, out, 0.0)

    def cached(self, key, compute):
        """``compute()``, once per ranking: metrics of one pass share it."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def relevant_group_sum(self):
        """Relevant items in the tie group of each rank (whole row)."""
        if self._parent is not None:
            return self._parent.relevant_group_sum()[:, : self.k]
        return self.cached(
            "rel_group", lambda: self.group_sum(self.relevant, self.tied_relevant)
        )

    def expected_relevant(self):
        """Expected relevance at each rank."""
        if self._parent is not None:
            return self._parent.expected_relevant()[:, : self.k]
        return self.cached(
            "rel_expected",
            lambda: np.where(self.valid, self.relevant_group_sum() / self.gsize, 0.0),
        )

    def expected_gain(self, gain):
        """Expected gain at each rank."""
        if self._parent is not None:
            return self._parent.expected_gain(gain)[:, : self.k]
        tied = self.tied_gain if gain == "linear" else self.tied_gain_exp
        return self.cached(
            ("gain_expected", gain), lambda: self.expected(self.gains(gain), tied)
        )


# --------------------------------------------------------------------------
# The formulas, numpy
# --------------------------------------------------------------------------


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


def relative_precision(ranked, cut, k, params):
    n_rel = ranked.n_relevant
    return safe_div(_n_relevant_in_cut(ranked, cut), np.minimum(k, n_rel)), n_rel == 0


def set_precision(ranked, cut, k, params):
    # Nothing retrieved (k = 0): 0.
    return safe_div(_n_relevant_in_cut(ranked, cut), k), _no_relevant(ranked)


def set_average_precision(ranked, cut, k, params):
    n_rel = ranked.n_relevant
    hits = _n_relevant_in_cut(ranked, cut)
    return safe_div(hits * hits, k * n_rel), n_rel == 0


def fbeta(ranked, cut, k, params):
    n_rel = ranked.n_relevant
    b2 = params.get("beta", 1.0) ** 2
    num = (1 + b2) * _n_relevant_in_cut(ranked, cut)
    return safe_div(num, b2 * n_rel + k), n_rel == 0


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


def r_precision(ranked, cut, k, params):
    # Precision at c = (long)(multiple |R| + 0.9) (0 for c = 0): recall at
    # |R| for multiple=1.
    return safe_div(_n_relevant_in_cut(ranked, cut), k), _no_relevant(ranked)


# --------------------------------------------------------------------------
# Interpolated precision: per tie group, the distribution of its largest
# precision by a backward pass over positions, vectorised over the support
# points (every cell at once, no sharing between points), then the expected
# maximum over the groups as the integral of 1 - prod_g P(X_g < x).
# --------------------------------------------------------------------------


def _lround(x):
    f = math.floor(x)
    return f + (x - f >= 0.5)


def _group_cdfs(a, n, r, c0, ls, floor):
    """Support points x > floor (decreasing) and P(X_g < x) for each L."""
    k = np.arange(1, r + 1)
    q = np.arange(1, n + 1)
    num = (c0 + k)[:, None] * np.ones(n, dtype=np.int64)
    den = np.ones(r, dtype=np.int64)[:, None] * (a + q)[None, :]
    ok = (q[None, :] >= k[:, None]) & (q[None, :] <= n - r + k[:, None])
    frac = np.unique(np.stack([num[ok], den[ok]], axis=1), axis=0)
    x = frac[:, 0] / frac[:, 1]
    keep = x > floor
    frac, x = frac[keep], x[keep]
    order = np.argsort(-x, kind="stable")
    frac, x = frac[order], x[order]
    fnum, fden = frac[:, 0], frac[:, 1]
    # H[:, j]: P(the rest keeps every landing below the line) after
    # position qq holding j relevant items, from the end backwards.
    H = np.zeros((len(x), r + 1))
    H[:, r] = 1.0
    norm = math.comb(n, r)
    out = {L: np.zeros(len(x)) for L in ls}
    for qq in range(n, 0, -1):
        if qq < n:
            new = np.zeros_like(H)
            for j in range(max(0, r - (n - qq)), min(qq, r) + 1):
                p = (r - j) / (n - qq)
                # The (j + 1)-th relevant item landing at position qq + 1.
                below = (c0 + j + 1) * fden < fnum * (a + qq + 1)
                up = np.where(below, H[:, j + 1], 0.0) if j < r else 0.0
                new[:, j] = p * up + (1 - p) * H[:, j]
            H = new
        # The L-th relevant item at position qq (then H after qq counts
        # the later ones).
        for L in ls:
            if L <= qq <= n - r + L:
                pmf = math.comb(qq - 1, L - 1) * math.comb(n - qq, r - L) / norm
                below = (c0 + L) * fden < fnum * (a + qq)
                out[L] += pmf * np.where(below, H[:, L], 0.0)
    return x, out


def _iprec_row(rel, gstart, ties, cs):
    """Expected interpolated precision of one ranked row at each recall point."""
    # Groups (start, size, relevant, relevant before) of the retrieved ranks.
    if ties:
        starts = list(np.flatnonzero(np.r_[True, gstart[1:] != gstart[:-1]]))
    else:
        starts = list(range(len(rel)))
    groups, before = [], 0
    for lo, hi in zip(starts, starts[1:] + [len(rel)]):
        r = int(rel[lo:hi].sum())
        if r:
            groups.append((lo, hi - lo, r, before))
        before += r
    wanted = [c for c in cs if before > 0 and c <= before]
    floors = {
        c: max((c0 + r) / (a + n) for a, n, r, c0 in groups if c0 + r >= max(c, 1))
        for c in wanted
    }
    cdfs = {}
    for g in groups:
        a, n, r, c0 = g
        ls = sorted({max(1, max(c, 1) - c0) for c in wanted if c0 + r >= max(c, 1)})
        if n > 1 and r < n and ls:
            floor = min(floors[c] for c in wanted if c0 + r >= max(c, 1))
            cdfs[g] = _group_cdfs(a, n, r, c0, ls, floor)
    values = []
    for c in cs:
        if c not in floors:
            values.append(0.0)
            continue
        cc, floor = max(c, 1), floors[c]
        counted = [g for g in groups if g[3] + g[2] >= cc]
        events = []
        for slot, g in enumerate(counted):
            if g in cdfs:
                x, cdf = cdfs[g]
                f = cdf[max(1, cc - g[3])]
                events += [(xi, slot, fi) for xi, fi in zip(x, f) if xi > floor]
        events.sort(key=lambda e: -e[0])
        current = [1.0] * len(counted)
        value, top = floor, 1.0
        for xi, slot, fi in events:
            value += (top - xi) * (1.0 - math.prod(current))
            top, current[slot] = xi, fi
        value += (top - floor) * (1.0 - math.prod(current))
        values.append(value)
    return values


_IPREC_CACHE = {}


def _iprec_all(ranked, levels):
    """Interpolated precision at each level, per row (the default levels
    computed once per block and reused: they include level 0)."""
    key = (
        ranked.grade.tobytes(),
        ranked.gstart.tobytes(),
        ranked.valid.tobytes(),
        ranked.n_relevant.tobytes(),
        ranked.threshold,
        ranked.ties,
    )
    if set(levels) <= set(DEFAULT_RECALL_LEVELS):
        if key not in _IPREC_CACHE:
            if len(_IPREC_CACHE) >= 8:
                _IPREC_CACHE.clear()
            _IPREC_CACHE[key] = _iprec_levels(ranked, DEFAULT_RECALL_LEVELS)
        every = _IPREC_CACHE[key]
        return every[:, [DEFAULT_RECALL_LEVELS.index(x) for x in levels]]
    return _iprec_levels(ranked, levels)


def _iprec_levels(ranked, levels):
    rows = []
    for i in range(ranked.cols.shape[0]):
        valid = ranked.valid[i]
        rel = ranked.grade[i][valid] > ranked.threshold
        cs = [_lround(x * int(ranked.n_relevant[i])) for x in levels]
        rows.append(_iprec_row(rel, ranked.gstart[i][valid], ranked.ties, cs))
    return np.array(rows).reshape(len(rows), len(levels))


def interpolated_precision(ranked, cut, k, params):
    values = _iprec_all(ranked, [params.get("recall_level", 0.0)])[:, 0]
    return values, _no_relevant(ranked)


def eleven_point_precision(ranked, cut, k, params):
    levels = params.get("recall_levels", DEFAULT_RECALL_LEVELS)
    values = _iprec_all(ranked, levels)
    return values[:, ::-1].sum(axis=1) / len(levels), _no_relevant(ranked)


DEFAULT_RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
# ---- trec_eval's gain measures and utility -------------------------------
# The whole-ranking ones (all but rbp) are cut at the retrieved items: every
# tie group lies inside the cut. Per row, in plain Python over the groups.


def rbp(ranked, cut, k, params):
    top = ranked.ideal_gains("linear")[:, 0]
    scale = np.where(top > 1.0, top, 1.0)
    p = params["p"]
    weights = (1.0 - p) * p ** np.arange(ranked.k, dtype=np.float64)
    g = ranked.expected_gain("linear")
    value = np.sum(g * weights, axis=1, where=_in_cut(ranked, cut)) / scale
    return value, _no_relevant(ranked)


def utility(ranked, cut, k, params):
    tp = _n_relevant_in_cut(ranked, cut)
    n_ret, n_rel, m = cut, ranked.n_relevant, ranked.n_items
    value = (
        params["tp_weight"] * tp
        + params["fp_weight"] * (n_ret - tp)
        + params["fn_weight"] * (n_rel - tp)
        + params["tn_weight"] * (m + tp - n_ret - n_rel)
    )
    return value, np.zeros(len(cut), dtype=bool)


def _groups(ranked, i, cut):
    """(start, end) of the tie groups of row i's top ``cut`` ranks."""
    out, a = [], 0
    while a < cut:
        b = a + 1
        while b < cut and ranked.gstart[i, b] == ranked.gstart[i, a]:
            b += 1
        out.append((a, b))
        a = b
    return out


def _positive_ideal(ranked, i):
    ideal = ranked.ideal_gains("linear")[i]
    n_pos = int(np.count_nonzero(ideal > 0))
    assert n_pos < len(ideal) or n_pos == ranked.n_relevant[i], "ideal cut short"
    return ideal[:n_pos]


def _row_loop(ranked, cut, one):
    values, empty = np.zeros(len(cut)), np.zeros(len(cut), dtype=bool)
    for i in range(len(cut)):
        values[i], empty[i] = one(i, int(cut[i]))
    return values, empty


def binary_g(ranked, cut, k, params):
    rel = ranked.relevant

    def one(i, c):
        total, nonrel = 0.0, 0
        for a, b in _groups(ranked, i, c):
            n, r = b - a, int(np.count_nonzero(rel[i, a:b]))
            # X non-relevant members above a relevant one: uniform on 0..n-r
            total += r * np.mean(1.0 / np.log2(2.0 + nonrel + np.arange(n - r + 1)))
            nonrel += n - r
        n_rel = ranked.n_relevant[i]
        return (total / n_rel if n_rel else 0.0), n_rel == 0

    return _row_loop(ranked, cut, one)


def rndcg(ranked, cut, k, params):
    g = ranked.expected_gain("linear")

    def one(i, c):
        ideal = _positive_ideal(ranked, i)
        n_pos = len(ideal)
        if n_pos == 0:
            return 0.0, True
        ends = [
            b for b in range(1, n_pos + 1) if b == n_pos or ideal[b] != ideal[b - 1]
        ]
        depth = max(n_pos, c)
        dcg = np.cumsum(
            np.where(np.arange(depth) < c, np.resize(g[i], depth), 0.0)
            * discount(depth, 2)
        )
        idcg = np.cumsum(
            np.resize(ideal, depth) * (np.arange(depth) < n_pos) * discount(depth, 2)
        )
        values = [dcg[b - 1] / idcg[b - 1] for b in ends]
        if c >= n_pos + 2:
            values.append(dcg[c - 1] / idcg[c - 1])
        return float(np.mean(values)), False

    return _row_loop(ranked, cut, one)


def ndcg_rel(ranked, cut, k, params):
    gains = ranked.gains("linear")

    def one(i, c):
        ideal = _positive_ideal(ranked, i)
        n_pos = len(ideal)
        if n_pos == 0:
            return 0.0, True
        depth = max(n_pos, c)
        disc = discount(depth, 2)
        idcg = np.cumsum(np.resize(ideal, depth) * (np.arange(depth) < n_pos) * disc)
        total, dcg_before, pos_ret = 0.0, 0.0, 0
        for a, b in _groups(ranked, i, c):
            gr = gains[i, a:b]
            n, P, S = b - a, int(np.count_nonzero(gr > 0)), float(np.sum(gr))
            # E[pos_i gain_j]: S/n (j = i), P/n E[gain_j] (earlier group),
            # S (P-1) / (n (n-1)) (same group)
            for p in range(a, b):
                in_group = disc[a:p].sum() * (
                    S * (P - 1) / (n * (n - 1)) if n > 1 else 0
                )
                e_dcg = S / n * disc[p] + P / n * dcg_before + in_group
                total += e_dcg / idcg[p]
            dcg_before += S / n * disc[a:b].sum()
            pos_ret += P
        total += (n_pos - pos_ret) * dcg_before / idcg[-1]
        return (total / n_pos if total > 0 else 0.0), False

    return _row_loop(ranked, cut, one)


def _subset_sums(others):
    """count[c, T]: subsets of ``others`` (positive integer gains) of c items
    summing to T, built item by item."""
    total = int(sum(others))
    count = np.zeros((len(others) + 1, total + 1))
    count[0, 0] = 1.0
    for j, g in enumerate(others):
        g = int(g)
        count[1 : j + 2, g:] += count[: j + 1, : total + 1 - g].copy()
    return count


def normalized_gain(ranked, cut, k, params):
    gains = ranked.gains("linear")
    assert np.all(gains == np.round(gains)), "integer grades only"

    def one(i, c):
        ideal = _positive_ideal(ranked, i)
        if len(ideal) == 0:
            return 0.0, True
        depth = max(len(ideal), c)
        cost = np.cumsum(
            np.maximum(np.resize(ideal, depth) * (np.arange(depth) < len(ideal)), 1.0)
        )
        total, S0 = 0.0, 0.0
        for a, b in _groups(ranked, i, c):
            gr = gains[i, a:b]
            n = b - a
            for g in np.unique(gr[gr > 0]):  # members of equal gain: equal terms
                j = int(np.flatnonzero(gr == g)[0])
                others = np.delete(gr, j)
                pos = others[others > 0]
                z = n - 1 - len(pos)
                count = _subset_sums(pos)
                T = np.arange(count.shape[1])
                term = 0.0
                for o in range(n):  # the item at rank a + o, o others above it
                    cc = np.arange(max(0, o - z), min(o, len(pos)) + 1)
                    w = [math.comb(z, o - x) / math.comb(n - 1, o) for x in cc]
                    prob = np.asarray(w) @ count[cc]
                    reach = prob > 0  # sums that occur (others: no log)
                    f = g / np.log2(2.0 + cost[a + o] - S0 - g - T[reach])
                    term += np.dot(prob[reach], f) / n
                total += term * np.count_nonzero(gr == g)
            S0 += gr.sum()
        return total / ideal.sum(), False

    return _row_loop(ranked, cut, one)


FORMULAS = {
    "precision": precision,
    "recall": recall,
    "f1": f1,
    "fbeta": fbeta,
    "relative_precision": relative_precision,
    "set_precision": set_precision,
    "set_recall": recall,
    "set_f": fbeta,
    "set_relative_precision": relative_precision,
    "set_average_precision": set_average_precision,
    "hit": hit,
    "mrr": reciprocal_rank,
    "map": average_precision,
    "dcg": dcg,
    "ndcg": ndcg,
    "r_precision": r_precision,
    "interpolated_precision": interpolated_precision,
    "eleven_point_precision": eleven_point_precision,
    "rbp": rbp,
    "utility": utility,
    "binary_g": binary_g,
    "rndcg": rndcg,
    "ndcg_rel": ndcg_rel,
    "normalized_gain": normalized_gain,
}


def _tie_groups(scores, ignore_ties):
    """The finite items of a row in rank order, as tie groups (lists of
    columns; one column each with ``ignore_ties``)."""
    m = scores.shape[0]
    key = -np.arange(m) if ignore_ties else np.arange(m)
    order = [j for j in np.lexsort((key, -scores)) if scores[j] > -np.inf]
    if ignore_ties:
        return [[j] for j in order]
    groups = []
    for j in order:
        if groups and scores[groups[-1][0]] == scores[j]:
            groups[-1].append(j)
        else:
            groups.append([j])
    return groups


def err(y_true, y_score, cut, params, threshold, ignore_ties):
    """ERR by the leave-one-out elementary symmetric polynomials: the member
    at offset o of a group of n is x with probability 1/n, after a uniform
    o-subset of the other n - 1, whose mean product of (1 - R) is
    e_o(others) / C(n - 1, o) (polynomial products, not the kernel's
    recurrence)."""
    from scipy.special import comb

    y = np.asarray(y_true, dtype=np.float64)
    s = np.asarray(y_score, dtype=np.float64)
    relevant = y > threshold
    values = np.zeros(y.shape[0])
    for i in range(y.shape[0]):
        g_max = params.get("max_grade", 4)
        if g_max is None:
            g_max = y[i][relevant[i]].max() if relevant[i].any() else 0.0
        gains = (np.exp2(y[i]) - 1) / np.exp2(g_max)
        stop = np.where(relevant[i] & (y[i] > 0), gains, 0)
        a, reach, total = 0, 1.0, 0.0
        for group in _tie_groups(s[i], ignore_ties):
            if a >= cut[i]:
                break
            r = stop[group]
            n = len(r)
            lim = min(n, cut[i] - a)
            term = np.zeros(lim)
            for level in np.unique(r[r > 0]):
                others = list(r)
                others.remove(level)
                poly = np.ones(1)
                for v in others:
                    poly = np.convolve(poly, [1.0, 1.0 - v])
                mean = poly[:lim] / comb(n - 1, np.arange(lim))
                term += np.count_nonzero(r == level) * level * mean / n
            total += reach * np.sum(term / (a + 1 + np.arange(lim)))
            reach *= np.prod(1.0 - r)
            a += n
        values[i] = total
    return values, ~relevant.any(axis=1)


def fall_out(y_true, y_score, cut, params, threshold, ignore_ties):
    """Judged non-relevant items (0 <= y <= threshold) in the top cut over
    those of the row: each tie group contributes its share of them for the
    fraction of its members inside the cut."""
    y = np.asarray(y_true, dtype=np.float64)
    s = np.asarray(y_score, dtype=np.float64)
    judged = (y >= 0) & (y <= threshold)
    found = np.zeros(y.shape[0])
    for i in range(y.shape[0]):
        a = 0
        for group in _tie_groups(s[i], ignore_ties):
            inside = min(len(group), max(0, cut[i] - a))
            found[i] += np.count_nonzero(judged[i, group]) * inside / len(group)
            a += len(group)
    total = judged.sum(axis=1)
    return safe_div(found, total), total == 0


#: Formulas read from the inputs themselves, not from ``reference_ranked``.
RAW_FORMULAS = {"err": err, "fall_out": fall_out}


def reference_values(metric, y_true, y_score, *, k, params, ignore_ties, threshold):
    """Per-row values and empty rows of one metric, by the numpy engine."""
    info = METRICS[metric]
    n, m = np.shape(y_score)
    n_rel = np.count_nonzero(np.asarray(y_true) > threshold, axis=1)
    if info.needs_k:
        cut = np.full(n, min(m, k or m))
        nominal = k or m
    elif info.cut_is_n_relevant:
        multiple = params.get("multiple", 1.0)
        nominal = (multiple * n_rel + 0.9).astype(np.int64)
        cut = np.minimum(nominal, m)
    elif info.row_cut == "whole":
        cut = np.full(n, m)
        nominal = cut
    else:  # the retrieved items: scores above -inf
        cut = np.count_nonzero(np.asarray(y_score) > -np.inf, axis=1)
        nominal = cut
    if metric in RAW_FORMULAS:
        return RAW_FORMULAS[metric](
            y_true, y_score, cut, params, threshold, ignore_ties
        )
    K = int(max(1, cut.max()))
    ranked = reference_ranked(
        y_true, y_score, K, threshold=threshold, ignore_ties=ignore_ties
    )
    defaults = {p.name: p.default for p in info.params}
    options = {"denominator": "relevant", "gain": "linear", "log_base": 2}
    options = {**options, **defaults, **params}
    with np.errstate(divide="ignore", invalid="ignore"):
        return FORMULAS[metric](ranked, cut, nominal, options)
