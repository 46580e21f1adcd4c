"""Heavy ties: G, inferred AP and ERR on rows whose tie groups hold hundreds of
items and tens of relevant ones, against the exact expectation.

Enumerating the orderings is impossible at that size, so the reference is an
independent exact computation written from the definitions, in 40-digit
decimal arithmetic with whole binomial coefficients: for every relevant (or
positive-gain) member of a group and every offset o in it, the o members
above it are a uniformly random o-subset of the others, so the counts of each
kind among them (grade by grade for G and ERR; relevant, judged non-relevant,
unjudged never pooled and unjudged pooled for inferred AP) are multivariate
hypergeometric; the measure's term is summed over all of them. The groups
are independent; what lies before a group is fixed. On tiny rows the
reference itself is checked against the brute-force oracle (every ordering),
and the package against both, in both tie modes.
"""

from __future__ import annotations

import decimal
import itertools
import math
from decimal import Decimal

import helpers
import numpy as np
import pytest

from sklearn_rankk import err_at_k_score, normalized_gain_score
from sklearn_rankk import inferred_average_precision_score as infap_score

CTX = decimal.Context(prec=40)
LN2 = CTX.ln(Decimal(2))
INFAP_EPSILON = Decimal("0.00001")


def _groups(scores):
    """Column indices of the finite scores, tie group by tie group, best first."""
    finite = [j for j, s in enumerate(scores) if s != -math.inf]
    values = sorted({scores[j] for j in finite}, reverse=True)
    return [[j for j in finite if scores[j] == v] for v in values]


def _splits(counts, total):
    """Every way of taking `total` items from kinds of `counts` items, with
    its number of subsets (the most numerous kind takes the rest)."""
    free = max(range(len(counts)), key=counts.__getitem__)
    rest = [range(c + 1) if i != free else range(1) for i, c in enumerate(counts)]
    for ks in itertools.product(*rest):
        k = total - sum(ks)
        if 0 <= k <= counts[free]:
            ks = ks[:free] + (k,) + ks[free + 1 :]
            yield ks, math.prod(math.comb(c, k) for c, k in zip(counts, ks))


def exact_g(grades, scores):
    """trec_eval's G (m_G.c), the exact expectation over the orderings of tied
    items: sum over items of gain g > 0 of g / log2(2 + C(i) - S(i)), C(i) the
    sum over ranks <= i of max(ideal gain, 1), S(i) the gains of ranks <= i;
    over the ideal gains' total."""
    gains = [g if g > 0 else 0 for g in grades]
    ideal = sorted((g for g in gains if g > 0), reverse=True)
    if not ideal:
        return None
    retrieved = sum(len(g) for g in _groups(scores))
    cost, total = [], 0
    for i in range(retrieved):
        total += max(ideal[i] if i < len(ideal) else 0, 1)
        cost.append(total)
    value, start, before = Decimal(0), 0, 0
    for members in _groups(scores):
        n = len(members)
        kinds = sorted({gains[j] for j in members})  # 0 among them, if any
        count = [sum(gains[j] == v for j in members) for v in kinds]
        for i, v in enumerate(kinds):
            if v == 0:
                continue
            others = count.copy()
            others[i] -= 1
            for o in range(n):
                norm = math.comb(n - 1, o)
                for ks, ways in _splits(others, o):
                    above = sum(k * g for k, g in zip(ks, kinds))
                    arg = Decimal(2 + cost[start + o] - before - v - above)
                    term = Decimal(v) * LN2 / CTX.ln(arg)
                    value += CTX.multiply(
                        Decimal(count[i] * ways) / Decimal(n * norm), term
                    )
        start += n
        before += sum(gains[j] for j in members)
    return float(value / sum(Decimal(g) for g in ideal))


def exact_infap(grades, scores):
    """trec_eval's infAP (m_infap.c), the exact expectation: a relevant item
    at rank j (0-based) with rb relevant, nb judged non-relevant and ub
    pooled-unjudged items above adds 1/(j+1) + (j/(j+1)) ((rb+nb+ub)/j)
    ((rb+eps)/(rb+nb+2eps)) (1 at rank 0); over R. Grade -1 (or in (-2, 0)):
    unjudged, never pooled; -2 or less: pooled, unjudged."""

    def kind(g):
        return 0 if g > 0 else 1 if g >= 0 else 3 if g <= -2 else 2

    n_rel = sum(g > 0 for g in grades)
    if n_rel == 0:
        return None
    eps = INFAP_EPSILON
    value, start, seen = Decimal(0), 0, [0, 0, 0, 0]
    for members in _groups(scores):
        n = len(members)
        count = [sum(kind(grades[j]) == c for j in members) for c in range(4)]
        if count[0]:
            others = count.copy()
            others[0] -= 1
            for o in range(n):
                norm = math.comb(n - 1, o)
                j = start + o
                for ks, ways in _splits(others, o):
                    rb = Decimal(seen[0] + ks[0])
                    nb = Decimal(seen[1] + ks[1])
                    ub = Decimal(seen[3] + ks[3])
                    if j == 0:
                        term = Decimal(1)
                    else:
                        term = CTX.divide(1, j + 1) + CTX.divide(
                            (rb + nb + ub) * (rb + eps), (j + 1) * (rb + nb + 2 * eps)
                        )
                    value += CTX.divide(count[0] * ways * term, n * norm)
        start += n
        seen = [s + c for s, c in zip(seen, count)]
    return float(value / n_rel)


def exact_err(grades, scores, k=None, max_grade=4):
    """ERR (Chapelle et al. 2009), the exact expectation over the orderings of
    tied items: the sum over ranks p of R_p / p times the product of (1 - R)
    over the ranks above, R = (2**g - 1) / 2**max_grade for a grade g > 0
    (else 0), over the first k ranks. A member of grade g is at offset o of
    its group with probability (members of grade g) / n, and the o members
    above it are then a uniformly random o-subset of the others."""
    with decimal.localcontext(CTX):
        value, survive, start = Decimal(0), Decimal(1), 0
        for group in _groups(scores):
            if k is not None and start >= k:
                break
            n = len(group)
            gains = [grades[j] if grades[j] > 0 else 0 for j in group]
            kinds = sorted(set(gains))
            count = [gains.count(g) for g in kinds]
            stop = [1 - Decimal(2**g - 1) / Decimal(2**max_grade) for g in kinds]
            lim = n if k is None else min(n, k - start)
            for i, g in enumerate(kinds):
                if g == 0:
                    continue
                others = count[:]
                others[i] -= 1
                for o in range(lim):
                    above = sum(
                        ways * math.prod(v**c for v, c in zip(stop, ks))
                        for ks, ways in _splits(others, o)
                    )
                    value += (
                        survive * count[i] * (1 - stop[i]) * above
                        / (n * math.comb(n - 1, o) * (start + o + 1))
                    )  # fmt: skip
            survive *= math.prod(v**c for v, c in zip(stop, count))
            start += n
        return float(value)


def heavy_row(seed, n, relevant, groups, *, unjudged=0.0, top=4):
    """One row: `groups` tie groups of random sizes, `relevant` items of
    grades 1..top placed at random (some in the last group: below every
    cut-off a top-k selection would read), a share of unjudged items."""
    rng = np.random.default_rng(seed)
    grades = np.zeros(n, dtype=np.int64)
    if unjudged:
        mask = rng.random(n) < unjudged
        grades[mask] = rng.choice([-1, -2], mask.sum())
    rel = rng.choice(n, relevant, replace=False)
    grades[rel] = rng.integers(1, top + 1, relevant)
    cuts = np.sort(rng.choice(np.arange(1, n), groups - 1, replace=False))
    scores = np.zeros(n)
    for g, (a, b) in enumerate(zip([0, *cuts], [*cuts, n])):
        scores[a:b] = groups - g
    grades[-1] = max(grades[-1], 1)  # a relevant item at the very last rank
    perm = rng.permutation(n)
    return grades[perm], scores[perm]


# Sizes where the reference runs in seconds.
HEAVY = [
    # seed, items, relevant, groups, unjudged share
    (0, 240, 10, 1, 0.0),
    (1, 400, 15, 3, 0.0),
    (2, 200, 16, 4, 0.0),
    (3, 320, 10, 2, 0.0),
]
HEAVY_JUDGED = [
    (4, 200, 8, 1, 0.1),
    (5, 240, 10, 3, 0.08),
    (6, 300, 12, 2, 0.0),
]


@pytest.mark.parametrize(("seed", "n", "relevant", "groups", "share"), HEAVY)
def test_g_heavy_ties(seed, n, relevant, groups, share):
    grades, scores = heavy_row(seed, n, relevant, groups, unjudged=share, top=3)
    got = normalized_gain_score(grades[None], scores[None], average=None)[0]
    assert got == pytest.approx(exact_g(grades.tolist(), scores.tolist()), rel=5e-15)


@pytest.mark.parametrize(("seed", "n", "relevant", "groups", "share"), HEAVY_JUDGED)
def test_infap_heavy_ties(seed, n, relevant, groups, share):
    grades, scores = heavy_row(seed, n, relevant, groups, unjudged=share, top=1)
    got = infap_score(grades[None], scores[None], average=None)[0]
    assert got == pytest.approx(
        exact_infap(grades.tolist(), scores.tolist()), rel=1e-14
    )


@pytest.mark.parametrize("pooled", [False, True])
@pytest.mark.parametrize("unjudged", [0, 1, 2, 3, 40])
def test_infap_tie_groups_by_unjudged_count(unjudged, pooled):
    """Tie groups with 0, 1, 2, 3 and 40 unjudged items (never pooled or
    pooled): the kernel sums a group's offsets from kept weight tables,
    except with one or two unjudged items (one offset at a time): each
    against the exact reference."""
    rng = np.random.default_rng(100 + unjudged + 7 * pooled)
    grades, scores = [], []
    for size, rel, top in ((70, 9, 3.0), (50, 4, 2.0), (30, 5, 1.0)):
        kind = [1] * rel + [-2 if pooled else -1] * min(unjudged, size - rel)
        kind += [0] * (size - len(kind))
        grades += list(rng.permutation(kind))
        scores += [top] * size
    grades, scores = np.array(grades), np.array(scores)
    perm = rng.permutation(len(grades))
    grades, scores = grades[perm], scores[perm]
    got = infap_score(grades[None], scores[None], average=None)[0]
    assert got == pytest.approx(
        exact_infap(grades.tolist(), scores.tolist()), rel=1e-14
    )


def test_g_fractional_grades_in_heavy_ties():
    """Grades that are not whole numbers take G's general recurrence: the
    same exact value."""
    grades, scores = heavy_row(7, 120, 8, 2, top=3)
    grades = grades.astype(float)
    grades[grades > 0] += 0.5
    got = normalized_gain_score(grades[None], scores[None], average=None)[0]
    assert got == pytest.approx(exact_g(grades.tolist(), scores.tolist()), rel=1e-12)


def _err_row(seed, sizes, relevant, grades):
    """A row of tie groups of `sizes` (best first), `relevant[i]` relevant
    items of random grades from `grades` in group i, in random order."""
    rng = np.random.default_rng(seed)
    y, s = [], []
    for g, (size, rel) in enumerate(zip(sizes, relevant)):
        y += list(rng.permutation([*rng.choice(grades, rel), *[0] * (size - rel)]))
        s += [float(len(sizes) - g)] * size
    perm = rng.permutation(len(y))
    return np.array(y)[perm], np.array(s)[perm]


@pytest.mark.parametrize(
    ("sizes", "relevant", "grades", "k"),
    [
        # a group of 600 with 120 relevant: its mixing weights (120 x 600)
        # are made in chunks, for every offset and for the first 250
        ((600,), (120,), (2,), None),
        ((600,), (120,), (2,), 250),
        ((40, 600), (6, 120), (3,), None),
        # groups whose weights are kept by shape, read whole or in part
        ((150, 200, 150), (12, 20, 12), (1, 3), None),
        ((150, 200, 150), (12, 20, 12), (1, 3), 230),
        ((30, 120, 30), (3, 40, 2), (1, 2, 4), 100),
    ],
)
def test_err_heavy_ties(sizes, relevant, grades, k):
    """ERR's tie groups mix their gains over their offsets with hypergeometric
    weights, kept by group shape or made in chunks for large groups and for
    a group the cut-off reads in part: each against the exact reference."""
    y, s = _err_row(len(sizes) + sum(relevant), sizes, relevant, grades)
    got = err_at_k_score(y[None], s[None], k=k, average=None)[0]
    assert got == pytest.approx(exact_err(y.tolist(), s.tolist(), k=k), rel=1e-13)


# --------------------------------------------------------------------------
# Tiny rows: the reference and the package against every ordering
# --------------------------------------------------------------------------

TINY = [
    # grades, scores
    ([3, 0, 1, 2, 0, 1, 2], [1, 1, 1, 1, 1, 1, 1]),
    ([2, 0, 2, 1, 0, 1, 3, 0], [2, 2, 2, 1, 1, 1, 1, 0]),
    ([0, 1, 4, 0, 2, 2, 0, 1], [5, 3, 3, 3, 3, 3, -math.inf, 0]),
    ([1, -1, 0, -2, 1, 0, -2, 1], [1, 1, 1, 1, 1, 0, 0, 0]),
    ([0, -2, 1, -1, 1, 0, -2, -1], [4, 4, 4, 4, 4, 4, 4, 2]),
]


@pytest.mark.parametrize(("grades", "scores"), TINY)
@pytest.mark.parametrize("ignore_ties", [False, True])
def test_tiny_rows_against_every_ordering(grades, scores, ignore_ties):
    if ignore_ties:
        # one ordering: the reference reads a row without ties in that order
        order = sorted(range(len(scores)), key=lambda j: (-scores[j], -j))
        ref_scores = [0.0] * len(scores)
        for rank, j in enumerate(order):
            ref_scores[j] = -math.inf if scores[j] == -math.inf else float(-rank)
    else:
        ref_scores = [float(s) for s in scores]
    y_true, y_score = np.array([grades]), np.array([scores], dtype=float)
    for metric, exact, function in [
        ("normalized_gain", exact_g, normalized_gain_score),
        ("infap", exact_infap, infap_score),
        ("err", exact_err, err_at_k_score),
    ]:
        k = {"k": None} if metric == "err" else {}
        brute = helpers.oracle_row(
            metric, list(map(float, scores)), grades, ignore_ties=ignore_ties,
            threshold=0, k=None, params={},
        )  # fmt: skip
        assert exact(grades, ref_scores) == pytest.approx(brute, rel=5e-15)
        got = function(y_true, y_score, ignore_ties=ignore_ties, average=None, **k)[0]
        assert got == pytest.approx(brute, rel=1e-14), metric
