"""The bucket index that places a row's items among its relevant scores.

AUC, partial AUC, pairwise accuracy and the whole-ranking measures (AP,
bpref, infAP, interpolated precision, binG, yaap) count every item of a row
into the gap between two relevant scores, or the tie group of one, through a
bucket index over the relevant scores' range (key_buckets.hpp). The rows here
aim at its edges: relevant scores crowded into one bucket beside an outlier
(the search inside a bucket), items just inside and outside the keys' range
and on its ends, a relevant score of +inf and a range that overflows (the
binary search instead of buckets), a subnormal range, every relevant item on
one score (a range of 0), -0.0 tied with 0.0, many relevant items; with tie
groups of relevant, non-relevant and unjudged items and items at -inf.
Every value is checked against the brute-force oracle (every ordering of
the tied items) in both tie modes, dense and CSR, and AUC also against
scikit-learn's ``roc_auc_score`` row by row.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import ATOL, FUNCS, RTOL
from sklearn.metrics import roc_auc_score
from test_relevant_ranks import _call, _expected

MEASURES = [
    ("auc", {}),
    ("auc", {"max_fpr": 0.3}),
    ("pairwise_accuracy", {}),
    ("map", {}),
    ("bpref", {}),
    ("infap", {}),
    ("interpolated_precision", {"recall_level": 0.5}),
    ("eleven_point_precision", {}),
    ("binary_g", {}),
    ("yaap", {}),
]


def _row(rng, n, relevant_scores, *, extra=()):
    """A row of n items: the given relevant scores (grades 1-3), then the
    items of ``extra`` (score, grade), the rest distinct scores spread over
    [-1, 2] with grade 0, a few unjudged (-1, -2)."""
    scores = np.linspace(-1.0, 2.0, n)
    rng.shuffle(scores)
    grades = np.zeros(n, dtype=np.int64)
    k = len(relevant_scores)
    scores[:k] = relevant_scores
    grades[:k] = rng.integers(1, 4, k)
    for i, (v, g) in enumerate(extra):
        scores[k + i] = v
        grades[k + i] = g
    rest = np.arange(k + len(extra), n)
    grades[rng.choice(rest, 4, replace=False)] = [-1, -1, -2, -2]
    order = rng.permutation(n)
    return grades[order], scores[order]


def edge_rows(seed=0, n=60):
    rng = np.random.default_rng(seed)
    eps = 1e-9
    rows = []
    # crowded: 14 relevant scores within 1e-8, one far above; non-relevant
    # and unjudged items between them and tied with two of them
    crowd = 0.5 + eps * np.arange(14)
    rows.append(
        _row(
            rng,
            n,
            [*crowd, 1.9],
            extra=[
                (0.5 + eps * 3.5, 0),
                (0.5 + eps * 7.5, -1),
                (0.5 + eps * 2, 0),
                (0.5 + eps * 9, -2),
                (0.5 - eps, 0),
                (0.5 + eps * 13, 0),
            ],
        )
    )
    # the keys' range ends: items on them and one ulp outside
    lo, hi = 0.25, 1.25
    rows.append(
        _row(
            rng,
            n,
            [lo, 0.75, hi],
            extra=[
                (lo, 0),
                (hi, -1),
                (np.nextafter(lo, -1.0), 0),
                (np.nextafter(hi, 3.0), 0),
                (np.nextafter(lo, 3.0), 0),
                (-np.inf, 0),
                (-np.inf, 1),
            ],
        )
    )
    # a relevant score of +inf, +inf tied with a non-relevant item
    rows.append(
        _row(
            rng, n, [np.inf, 0.4, 1.1], extra=[(np.inf, 0), (np.inf, -1), (-np.inf, 0)]
        )
    )
    # a range that overflows a double
    rows.append(_row(rng, n, [-1e308, 0.3, 1e308], extra=[(1e308, 0), (-1e308, 0)]))
    # a subnormal range: relevant scores 0 and 2**-1073, -0.0 tied with 0.0
    tiny = 2.0**-1073
    rows.append(
        _row(
            rng,
            n,
            [0.0, tiny],
            extra=[(-0.0, 0), (tiny / 2, 0), (tiny, -1), (5e-324, 0)],
        )
    )
    # every relevant item on one score (a range of 0), tied with others
    rows.append(
        _row(
            rng,
            n,
            [0.6, 0.6, 0.6],
            extra=[
                (0.6, 0),
                (0.6, -1),
                (np.nextafter(0.6, 1), 0),
                (np.inf, 0),
                (-np.inf, 0),
                (-np.inf, -1),
            ],
        )
    )
    # many relevant items: most of the row (a few ties)
    scores = np.round(rng.random(n), 3)
    grades = rng.integers(0, 4, n)
    grades[rng.choice(n, 3, replace=False)] = -1
    rows.append((grades, scores))
    y_true = np.array([r[0] for r in rows])
    y_score = np.array([r[1] for r in rows])
    return y_true, y_score


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize(("metric", "params"), MEASURES)
def test_edge_rows_match_the_oracle(metric, params, ignore_ties):
    y_true, y_score = edge_rows()
    want = _expected(metric, params, y_true, y_score, ignore_ties)
    got = _call(metric, params, y_true, y_score, ignore_ties)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
    y_csr = np.maximum(y_true, 0)  # CSR: stored grades only, none unjudged
    want = _expected(metric, params, y_csr, y_score, ignore_ties)
    got = _call(metric, params, sp.csr_array(y_csr), y_score, ignore_ties)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("max_fpr", [None, 0.05, 0.3])
def test_edge_rows_auc_is_roc_auc_score(max_fpr):
    """Exact ties count 1/2 in both: every row, the crowded one included."""
    y_true, y_score = edge_rows(1)
    kw = {} if max_fpr is None else {"max_fpr": max_fpr}
    got = FUNCS["auc"](y_true, y_score, average=None, zero_division=np.nan, **kw)
    for i, (t, s) in enumerate(zip(y_true, y_score)):
        judged = t >= 0
        s = np.where(np.isneginf(s), -np.finfo(float).max, s)[judged]
        s = np.where(np.isposinf(s), np.finfo(float).max, s)
        if np.isinf(y_score[i]).any() or np.abs(s).max() > 1e300:
            continue  # sklearn's curve cannot take these scores
        want = roc_auc_score(t[judged] > 0, s, **kw)
        assert got[i] == pytest.approx(want, rel=1e-13, abs=1e-15), i


@pytest.mark.parametrize("ignore_ties", [False, True])
def test_many_relevant_items_against_sorting(ignore_ties):
    """Long rows where most items are relevant (a key every few items) and
    where few are, half of each row in ties: AUC and pairwise accuracy (on
    binary relevance, the same) equal scikit-learn's ``roc_auc_score``, on
    scores made distinct in the later-column-first order for ignore_ties."""
    rng = np.random.default_rng(4)
    n, m = 8, 2_000
    rate = np.linspace(0.01, 0.95, n)[:, None]
    y_true = (rng.random((n, m)) < rate).astype(np.int64)
    y_score = rng.random((n, m))
    y_score[:, : m // 2] = np.round(y_score[:, : m // 2], 3)  # ties
    reference = y_score
    if ignore_ties:  # the later column first: each row's ranks as distinct scores
        reference = np.empty_like(y_score)
        for i in range(n):
            order = np.lexsort((np.arange(m), y_score[i]))
            reference[i, order] = np.arange(m)
    got = FUNCS["auc"](
        y_true, y_score, ignore_ties=ignore_ties, average=None, zero_division=np.nan
    )
    want = [roc_auc_score(t, s) for t, s in zip(y_true, reference)]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    got = FUNCS["pairwise_accuracy"](
        y_true, y_score, ignore_ties=ignore_ties, average=None, zero_division=np.nan
    )
    np.testing.assert_allclose(got, want, rtol=1e-12)


def long_rows(seed=5, m=1_300):
    """Rows longer than the bucket pass's chunk (512 items), with fewer
    buckets than 32 a key (the buckets are sized to the row), on scores
    exact in float32 (multiples of 2**-20 below 1): relevant items spread,
    at the bottom of the ranking (below every cut-off), at its top, crowded
    into one bucket (60 relevant items: more than AUC's short-row scan
    takes), on a range of a few ulps and on one score (one key); tie pairs
    of a relevant item with a non-relevant, an unjudged and a relevant one;
    items at -inf."""
    rng = np.random.default_rng(seed)
    rows = []

    def base():
        scores = (rng.permutation(m) + 1) * 2.0**-11  # distinct, in (0, 0.64)
        grades = np.zeros(m, dtype=np.int64)
        grades[rng.choice(m, 6, replace=False)] = [-1, -1, -1, -2, -2, -2]
        return grades, scores

    def tie(grades, scores, j, other, grade):
        scores[other] = scores[j]
        grades[other] = grade

    # spread: 30 relevant items, three tie pairs, three items at -inf
    grades, scores = base()
    rel = rng.choice(np.flatnonzero(grades == 0), 30, replace=False)
    grades[rel] = rng.integers(1, 4, 30)
    free = np.flatnonzero(grades == 0)
    tie(grades, scores, rel[0], free[0], 0)
    tie(grades, scores, rel[1], free[1], -1)
    tie(grades, scores, rel[2], rel[3], 2)
    scores[[free[2], free[3], rel[4]]] = -np.inf
    rows.append((grades, scores))
    # the relevant items at the bottom: the six lowest scores, one tie pair
    grades, scores = base()
    order = np.argsort(scores)
    grades[order[:6]] = [1, 2, 1, 3, 1, 0]
    scores[order[5]] = scores[order[4]]
    rows.append((grades, scores))
    # at the top: the five highest, one tied with an unjudged item
    grades, scores = base()
    order = np.argsort(-scores)
    grades[order[:6]] = [2, 1, 1, 1, 3, -1]
    scores[order[5]] = scores[order[4]]
    rows.append((grades, scores))
    # crowded: 12 of 60 relevant items within 12 * 2**-20 (one bucket),
    # non-relevant and unjudged items between them
    grades, scores = base()
    rel = rng.choice(np.flatnonzero(grades == 0), 60, replace=False)
    grades[rel] = 1
    scores[rel[:12]] = 0.3 + np.arange(12) * 2.0**-20
    free = np.flatnonzero(grades == 0)
    scores[free[:5]] = 0.3 + (np.arange(5) * 2 + 0.5) * 2.0**-20
    grades[free[3:5]] = -1
    rows.append((grades, scores))
    # a range of a few ulps: every other item far above or below it
    grades, scores = base()
    two = np.flatnonzero(grades == 0)[:3]
    scores[two] = [0.25, 0.25 + 2.0**-24, 0.25 + 2.0**-23]
    grades[two] = [1, 1, 0]
    rows.append((grades, scores))
    # one relevant item (one key: a range of 0), tied with a non-relevant
    # one, and one just above it
    grades, scores = base()
    one = np.flatnonzero(grades == 0)[:3]
    scores[one] = [0.375, 0.375, 0.375 + 2.0**-23]
    grades[one] = [2, 0, 0]
    rows.append((grades, scores))
    y_true = np.array([r[0] for r in rows])
    y_score = np.array([r[1] for r in rows])
    return y_true, y_score


def _check_dense_csr_f32(metric, params, y_true, y_score, ignore_ties):
    """The oracle's values on dense and CSR relevance (unjudged grades as 0
    in CSR), for float64 and float32 scores (the same numbers)."""
    want = _expected(metric, params, y_true, y_score, ignore_ties)
    y_csr = np.maximum(y_true, 0)
    want_csr = _expected(metric, params, y_csr, y_score, ignore_ties)
    for scores in (y_score, y_score.astype(np.float32)):
        got = _call(metric, params, y_true, scores, ignore_ties)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
        got = _call(metric, params, sp.csr_array(y_csr), scores, ignore_ties)
        np.testing.assert_allclose(got, want_csr, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize(("metric", "params"), MEASURES)
def test_long_rows_match_the_oracle(metric, params, ignore_ties):
    """float64 and float32 scores (the buckets then count in float32), dense
    and CSR relevance: the oracle's values (the float32 scores are the same
    numbers)."""
    y_true, y_score = long_rows()
    _check_dense_csr_f32(metric, params, y_true, y_score, ignore_ties)


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize(("metric", "params"), MEASURES)
def test_one_item_rows(metric, params, ignore_ties):
    """Rows of one item: relevant, non-relevant, unjudged, relevant at
    -inf, in float64 and float32."""
    y_true = np.array([[1], [0], [-1], [2]])
    y_score = np.array([[0.5], [0.5], [0.25], [-np.inf]])
    want = _expected(metric, params, y_true, y_score, ignore_ties)
    for scores in (y_score, y_score.astype(np.float32)):
        got = _call(metric, params, y_true, scores, ignore_ties)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_auc_heavy_ties_many_relevant(dtype):
    """Short rows of many relevant items on few distinct scores (W3's
    shape: the keys then come from a hash of the scores, and the row is
    counted by comparisons with each), with unjudged
    items and items at -inf among them: scikit-learn's ``roc_auc_score``
    over the judged items (ties 1/2; -inf below every finite score), and
    AUC with ``ignore_ties`` equals it on each row's distinct ranks."""
    rng = np.random.default_rng(7)
    n, m = 6, 300
    y_score = np.round(rng.random((n, m)), 1).astype(dtype)
    y_true = (rng.random((n, m)) < np.linspace(0.05, 0.5, n)[:, None]).astype(np.int64)
    y_true[:, :6] = -1  # unjudged
    y_score[:, 3:9] = -np.inf  # unjudged, relevant and not at -inf
    y_true[:, 8] = 1
    got = FUNCS["auc"](y_true, y_score, average=None, zero_division=np.nan)
    got_later = FUNCS["auc"](
        y_true, y_score, ignore_ties=True, average=None, zero_division=np.nan
    )
    for i in range(n):
        judged = y_true[i] >= 0
        s = np.where(np.isneginf(y_score[i]), -1.0, y_score[i]).astype(np.float64)
        want = roc_auc_score(y_true[i][judged], s[judged])
        assert got[i] == pytest.approx(want, rel=1e-13, abs=1e-15), i
        # the later column first, -inf items still tied among themselves
        ranks = np.empty(m)
        finite = np.flatnonzero(s > -1.0)
        order = np.lexsort((finite, s[finite]))
        ranks[finite[order]] = np.arange(finite.size)
        ranks[s == -1.0] = -1.0
        want = roc_auc_score(y_true[i][judged], ranks[judged])
        assert got_later[i] == pytest.approx(want, rel=1e-13, abs=1e-15), i


def few_key_rows(seed=11):
    """Rows whose relevant items hold at most 16 distinct scores (exact
    ties: the keys come from a hash of the scores and the items are counted
    by comparisons, count_few_keys) and one past it: relevant scores of
    -0.0 and 0.0 (one key), +inf tied with a non-relevant item, relevant
    items at -inf, unjudged items tied with keys; short rows (41 items: the
    vectorised pass's tail) and rows longer than its block of 1,024 items."""
    rng = np.random.default_rng(seed)

    def row(m, key_scores, n_rel, ties=()):
        # distinct non-relevant scores away from the keys, then n_rel
        # relevant items over key_scores, then ties (score, grade)
        scores = rng.permutation(m).astype(np.float64) / m + 10.0
        grades = np.zeros(m, dtype=np.int64)
        grades[rng.choice(m, 3, replace=False)] = [-1, -2, -1]
        free = np.flatnonzero(grades == 0)
        at = rng.choice(free, n_rel + len(ties), replace=False)
        scores[at[:n_rel]] = np.resize(key_scores, n_rel)
        grades[at[:n_rel]] = rng.integers(1, 4, n_rel)
        for j, (v, g) in zip(at[n_rel:], ties):
            scores[j], grades[j] = v, g
        return grades, scores

    sixteen = 10.0 + (np.arange(16) + 0.5) / 16
    short = [
        row(41, [0.0, -0.0, 10.25, np.inf], 6, [(np.inf, 0), (-0.0, -1), (10.25, 0)]),
        row(41, [10.5, -np.inf, 10.75], 5, [(-np.inf, 0), (10.5, -2)]),
        row(41, sixteen, 16, [(sixteen[3], 0), (sixteen[9], -1)]),
        row(41, np.append(sixteen, 9.0), 17, [(sixteen[3], 0), (9.0, 0)]),
    ]
    long = [
        row(2_601, sixteen, 16, [(sixteen[0], 0), (sixteen[15], -1), (-np.inf, 0)]),
        row(
            2_601,
            np.append(sixteen[:5], [np.inf, -0.0, 0.0]),
            9,
            [(0.0, 0), (np.inf, -1)],
        ),
    ]
    return [
        (np.array([r[0] for r in g]), np.array([r[1] for r in g]))
        for g in (short, long)
    ]


FEW_KEY_MEASURES = [
    *MEASURES,
    ("dcg", {}),
    ("ndcg", {}),
    ("err", {}),
    ("normalized_gain", {}),
    ("rbp", {}),
    ("mrr", {}),
]


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize(("metric", "params"), FEW_KEY_MEASURES)
def test_few_distinct_relevant_scores_match_the_oracle(metric, params, ignore_ties):
    """Rows of at most 16 distinct relevant scores (and one of 17): every
    whole-ranking measure that places the items among the relevant scores
    equals the brute-force oracle in both tie modes, dense and CSR, float64
    and float32 (the scores are exact in float32)."""
    for y, s in few_key_rows():
        _check_dense_csr_f32(metric, params, y, s, ignore_ties)
