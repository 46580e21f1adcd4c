"""Whole-ranking AP, bpref, infAP, iprec, binG, yaap, ERR, MRR, Rndcg,
ndcg_rel, G, RBP, rbp_resid and fall-out: rows unsorted.

Over the whole ranking these measures read only the tie groups holding a
relevant item and how many items (judged non-relevant, unjudged) rank above
each; the kernel counts them against the relevant items' sorted scores
instead of sorting the row. The rows here put relevant items below every
cut-off a partial selection would read (the last ranks, far below k=10 and
below 8 k), inside tie groups with non-relevant and unjudged members, next
to tie groups without a relevant item, at -inf (not retrieved), and on a
-0.0/0.0 tie; every value is checked against the brute-force oracle (every
ordering of the tied items) in both tie modes, with dense, CSR and float32
inputs, and one call asking for these measures beside cut-off measures
gives each the value it has alone.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import ATOL, FUNCS, RTOL, fill_undefined, oracle

from sklearn_rankk._core.engine import requests_for_names, row_values
from sklearn_rankk._core.registry import METRICS
from sklearn_rankk._core.requests import make_request

MEASURES = [
    ("map", {}),
    ("map", {"denominator": "min"}),
    ("map", {"denominator": "retrieved"}),
    ("bpref", {}),
    ("infap", {}),
    ("interpolated_precision", {}),
    ("interpolated_precision", {"recall_level": 0.5}),
    ("eleven_point_precision", {}),
    ("binary_g", {}),
    ("yaap", {}),
    ("err", {}),
    ("err", {"max_grade": None}),
    ("rndcg", {}),
    ("ndcg_rel", {}),
    ("normalized_gain", {}),
    ("rbp_residual", {}),
    ("rbp_residual", {"p": 0.9}),
    ("rbp", {}),
    ("rbp", {"p": 0.5}),
    ("fall_out", {}),
    ("mrr", {}),
]


def deep_rows(seed, n_items):
    """Rows of n_items whose relevant items sit mostly at the bottom of the
    ranking: a tie group of relevant, non-relevant and unjudged items, a tie
    group without a relevant item between two relevant ones, the last rank
    relevant; then a row of no relevant item, one whose relevant items are
    all at -inf, and one with a -0.0/0.0 tie of a relevant item."""
    rng = np.random.default_rng(seed)
    rows_t, rows_s = [], []
    for r in range(6):
        scores = rng.permutation(n_items).astype(np.float64) + 1.0
        order = np.argsort(-scores, kind="stable")
        grades = np.zeros(n_items, dtype=np.int64)
        bottom = order[-12:]
        if r < 3:
            # a group of 4 at ranks m-10..m-7: two relevant, one unjudged
            group = order[-10:-6]
            scores[group] = scores[group[0]]
            grades[group[:2]] = rng.integers(1, 4, 2)
            grades[group[2]] = -1 if r != 1 else -2
            # a group of 3 without a relevant item, above it, and one of 2
            # holding the last rank
            scores[order[-14:-11]] = scores[order[-14]]
            scores[order[-2:]] = scores[order[-2]]
            grades[order[-1]] = 2
            grades[order[-5]] = 1
            grades[order[rng.integers(0, n_items // 2)]] = 3
            # unjudged items above the relevant ones, in the gaps
            pool = rng.choice(
                np.flatnonzero(grades[order[:-14]] == 0), 6, replace=False
            )
            grades[order[pool[:3]]] = -1
            grades[order[pool[3:]]] = -2
        elif r == 3:  # no relevant item at all
            grades[bottom[:3]] = -1
        elif r == 4:  # every relevant item at -inf (not retrieved)
            grades[bottom[:2]] = 1
            scores[bottom[:2]] = -np.inf
            scores[order[:3]] = -np.inf
            grades[order[0]] = -1  # an unjudged item at -inf
        else:  # -0.0 ties with 0.0, a relevant item in the tie
            scores[order[-4]] = -0.0
            scores[order[-3]] = 0.0
            grades[order[-4]] = 1
            grades[order[-1]] = 1
        rows_t.append(grades)
        rows_s.append(scores)
    return np.array(rows_t), np.array(rows_s)


def _expected(metric, params, y_true, y_score, ignore_ties):
    exp = oracle(
        metric,
        y_true,
        y_score,
        ignore_ties=ignore_ties,
        threshold=0,
        k=None,
        params=params,
    )
    return fill_undefined(exp, 0.0, y_true, metric=metric)


def _call(metric, params, y_true, y_score, ignore_ties):
    kw = {"k": None} if METRICS[metric].needs_k else {}
    return FUNCS[metric](
        y_true,
        y_score,
        ignore_ties=ignore_ties,
        zero_division=0.0,
        average=None,
        **kw,
        **params,
    )


@pytest.mark.parametrize("n_items", [40, 300])
@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize(("metric", "params"), MEASURES)
def test_matches_oracle(metric, params, ignore_ties, n_items):
    y_true, y_score = deep_rows(n_items, n_items)
    want = _expected(metric, params, y_true, y_score, ignore_ties)
    got = _call(metric, params, y_true, y_score, ignore_ties)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
    # CSR relevance and float32 scores (exact in float32: whole numbers)
    got = _call(
        metric, params, sp.csr_array(y_true), y_score.astype(np.float32), ignore_ties
    )
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
    # CSR relevance whose columns are not in order within a row: the same
    # values (validation puts them in order before the kernel, which ranks
    # the relevant items it finds by counting, in column order)
    csr = sp.csr_array(y_true)
    for r in range(csr.shape[0]):
        a, b = csr.indptr[r], csr.indptr[r + 1]
        csr.indices[a:b] = csr.indices[a:b][::-1].copy()
        csr.data[a:b] = csr.data[a:b][::-1].copy()
    csr.has_sorted_indices = False
    got = _call(metric, params, csr, y_score, ignore_ties)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("ignore_ties", [False, True])
def test_tie_groups_without_relevant_items(ignore_ties):
    """Scores of few distinct values: many tie groups, most without a
    relevant item, between the relevant ones (a gap of several groups is
    counted as one). The oracle gets the groups without a relevant item
    in a fixed order (their order changes none of these measures; all
    their orderings would be too many to enumerate)."""
    rng = np.random.default_rng(3)
    y_score = rng.integers(0, 30, size=(4, 60)).astype(np.float64)
    y_true = np.zeros((4, 60), dtype=np.int64)
    for i in range(4):
        top, mid, low = rng.choice(60, 3, replace=False)
        y_score[i, top] = 28.5
        y_score[i, mid] = 12.0 + i  # tied with the items of that score
        y_score[i, low] = 1.5
        y_true[i, [top, mid, low]] = [1, 2, 1]
        y_true[i, rng.choice(np.flatnonzero(y_true[i] == 0), 4, replace=False)] = -1
    fixed = y_score.copy()
    for i in range(4):
        for v in np.unique(y_score[i]):
            members = np.flatnonzero(y_score[i] == v)
            if not (y_true[i, members] > 0).any():
                fixed[i, members] += np.arange(members.size) * 1e-3
    for metric, params in MEASURES:
        if metric == "rbp_residual":  # reads the unjudged items' ranks
            continue
        want = _expected(metric, params, y_true, fixed, ignore_ties)
        got = _call(metric, params, y_true, y_score, ignore_ties)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=metric)


@pytest.mark.parametrize("ignore_ties", [False, True])
def test_relevant_items_on_top(ignore_ties):
    """The relevant items at the top of rankings one to four items longer
    (the rest retrieved, or at -inf): the ranks read end at the last
    relevant item, short of the ranking's end, which Rndcg reads (a last
    nDCG term when the ranking is at least 2 longer than the ideal)."""
    y_true = np.zeros((8, 6), dtype=np.int64)
    y_true[:, :2] = [1, 2]  # the lower grade first: nDCG@2 < 1
    plain = np.tile(np.arange(6, 0, -1, dtype=np.float64), (4, 1))
    for i in range(4):  # 3, 4, 5, 6 retrieved items
        plain[i, 3 + i :] = -np.inf
    tied = plain.copy()
    tied[:, 1] = tied[:, 0]  # the two relevant items tied
    tied[2:, 2] = tied[2:, 0]  # and a non-relevant one with them
    y_score = np.vstack([plain, tied])
    for metric, params in MEASURES:
        want = _expected(metric, params, y_true, y_score, ignore_ties)
        got = _call(metric, params, y_true, y_score, ignore_ties)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=metric)


@pytest.mark.parametrize("ignore_ties", [False, True])
def test_beside_cut_off_measures(ignore_ties):
    """One call for these measures and measures at a cut-off: each value is
    the one it has alone, bit for bit."""
    y_true, y_score = deep_rows(5, 300)
    names = [
        "ndcg@10",
        "map",
        "bpref",
        "precision@5",
        "infap",
        "eleven_point_precision",
        "binary_g",
        "yaap",
        "rndcg",
        "ndcg_rel",
        "normalized_gain",
        "rbp_residual",
        "rbp",
        "fall_out",
        "mrr",
    ]
    together = row_values(
        requests_for_names(names, {}), y_true, y_score, ignore_ties=ignore_ties
    )
    for i, name in enumerate(names):
        alone = row_values(
            requests_for_names([name], {}), y_true, y_score, ignore_ties=ignore_ties
        )
        np.testing.assert_array_equal(together.values[i], alone.values[0], err_msg=name)


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize(
    ("metric", "params"),
    [
        ("rbp", {}),
        ("rbp", {"p": 0.5}),
        ("fall_out", {}),
        ("mrr", {}),
        ("map", {}),
        ("dcg", {}),
        ("ndcg", {}),
        ("err", {}),
    ],
)
def test_same_bits_as_the_sorted_path(metric, params, ignore_ties):
    """The value over the whole ranking, read from the relevant items'
    ranks, is the last point of the measure's curve over every rank, which
    the kernel computes on the sorted row: the same value, bit for bit."""
    for seed, n_items in ((11, 40), (12, 300)):
        y_true, y_score = deep_rows(seed, n_items)
        for y in (y_true, sp.csr_array(y_true)):
            requests = [
                make_request(METRICS[metric], None, params),
                make_request(METRICS[metric], None, params, curve=True),
            ]
            whole, curve = row_values(
                requests, y, y_score, ignore_ties=ignore_ties
            ).values
            np.testing.assert_array_equal(whole, np.asarray(curve)[:, -1])
