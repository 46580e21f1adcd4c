"""AUC and its kin against their references.

Per-row AUC and partial AUC against scikit-learn's ``roc_auc_score`` row by
row (it counts a tied pair 1/2, as the exact expectation does); AUC@k against
torchmetrics' ``retrieval_auroc(top_k=)`` where it is installed; pairwise
accuracy and the weighted averages (GAUC, micro) against plain loops. The
brute-force oracle over every ordering of tied items is test_common's.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import roc_auc_score

import sklearn_rankk
from sklearn_rankk import auc_score, pairwise_accuracy_score


def _data(seed, n_rows=30, n_items=12, levels=None, unjudged=False):
    rng = np.random.default_rng(seed)
    y_score = rng.random((n_rows, n_items))
    if levels:
        y_score = np.floor(y_score * levels)  # heavy ties
    y_true = (rng.random((n_rows, n_items)) < 0.35).astype(np.int64)
    if unjudged:
        y_true[rng.random((n_rows, n_items)) < 0.2] = -1
    return y_true, y_score


def _sklearn_rows(y_true, y_score, threshold=0, **kwargs):
    """roc_auc_score on each row's judged items; NaN where it is undefined.
    A -inf score (which scikit-learn refuses) becomes one finite value below
    every other: the not retrieved items rank last, tied."""
    out = []
    y_score = np.where(np.isneginf(y_score), -1e300, y_score)
    for t, s in zip(y_true, y_score):
        judged = t >= 0
        labels = (t[judged] > threshold).astype(int)
        if labels.min() == labels.max():
            out.append(np.nan)
        else:
            out.append(roc_auc_score(labels, s[judged], **kwargs))
    return np.array(out)


def _later_first(y_score):
    """Distinct scores in ignore_ties' order: by score, then the later column
    first (each finite score replaced by its place in that order); -inf
    items still tie."""
    m = y_score.shape[1]
    out = np.empty(y_score.shape)
    for i, s in enumerate(y_score):
        order = np.lexsort((np.arange(m), s))  # ascending; ties: later higher
        out[i, order] = np.arange(m)
    return np.where(np.isneginf(y_score), -np.inf, out)


@pytest.mark.parametrize("levels", [None, 2, 4])
@pytest.mark.parametrize("unjudged", [False, True])
def test_auc_equals_roc_auc_score_row_by_row(levels, unjudged):
    y_true, y_score = _data(1, levels=levels, unjudged=unjudged)
    want = _sklearn_rows(y_true, y_score)
    got = auc_score(y_true, y_score, average=None, zero_division=np.nan)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    # A constant ranker scores 1/2 on every defined row.
    flat = auc_score(y_true, np.zeros_like(y_score), average=None, zero_division=np.nan)
    np.testing.assert_array_equal(flat[~np.isnan(want)], 0.5)


@pytest.mark.parametrize("rate", [0.02, 0.3, 0.7, 0.98])
@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("tied", [True, False])
@pytest.mark.parametrize("m", [300, 9000])
def test_auc_on_long_rows_every_counting_path(rate, ignore_ties, dtype, tied, m):
    # Few and many relevant items (each counting path of the kernel: a scan
    # per relevant score, the table of cells, dense rows mostly grade 0 read
    # as CSR rows), ties or none, unjudged items and -inf, short rows and
    # rows past the scans' length, dense and CSR relevance: scikit-learn on
    # the judged items, ties broken beforehand as ignore_ties does.
    rng = np.random.default_rng(int(rate * 100) + m)
    n = 12 if m < 1000 else 3
    y_true = (rng.random((n, m)) < rate).astype(np.int64)
    y_true[rng.random((n, m)) < 0.05] = -1
    y_score = rng.random((n, m)).astype(dtype)
    if tied:
        y_score = np.floor(y_score * 40)
    y_score[rng.random((n, m)) < 0.05] = -np.inf
    reference = _later_first(y_score) if ignore_ties else y_score.astype(np.float64)
    want = _sklearn_rows(y_true, reference)
    for relevance in (y_true, sp.csr_matrix(np.maximum(y_true, 0))):
        if sp.issparse(relevance):
            want_here = _sklearn_rows(np.maximum(y_true, 0), reference)
        else:
            want_here = want
        got = auc_score(
            relevance,
            y_score,
            ignore_ties=ignore_ties,
            average=None,
            zero_division=np.nan,
        )
        np.testing.assert_allclose(got, want_here, rtol=1e-12, atol=1e-14)


def test_auc_threshold_and_graded_relevance():
    rng = np.random.default_rng(2)
    y_true = rng.integers(0, 4, size=(25, 10))
    y_score = np.round(rng.random((25, 10)), 1)
    for threshold in (0, 1, 2):
        want = _sklearn_rows(y_true, y_score, threshold=threshold)
        got = auc_score(
            y_true,
            y_score,
            relevance_threshold=threshold,
            average=None,
            zero_division=np.nan,
        )
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("max_fpr", [0.05, 0.2, 0.5, 0.77, 1.0])
def test_partial_auc_equals_roc_auc_score_without_ties(max_fpr):
    y_true, y_score = _data(3, n_items=40)
    want = _sklearn_rows(y_true, y_score, max_fpr=max_fpr)
    got = auc_score(
        y_true, y_score, max_fpr=max_fpr, average=None, zero_division=np.nan
    )
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_ignore_ties_is_sklearns_order():
    # With ignore_ties=True, tied scores are ranked the later column first:
    # scikit-learn on scores made distinct in that order agrees.
    y_true, y_score = _data(4, levels=3)
    n = y_score.shape[1]
    distinct = y_score + np.arange(n) / (10.0 * n)  # later column first
    for max_fpr in (None, 0.3):
        want = _sklearn_rows(y_true, distinct, max_fpr=max_fpr)
        got = auc_score(
            y_true,
            y_score,
            ignore_ties=True,
            max_fpr=max_fpr,
            average=None,
            zero_division=np.nan,
        )
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_partial_auc_under_ties_is_the_mean_over_orderings():
    # One row, a tie group of relevant and non-relevant items spanning
    # max_fpr: the exact expectation, by hand over the 4!/(2!2!) = 6 orders of
    # the group (relevant R, non-relevant N): items 0 (N, 0.9) above, then
    # the group {1, 2 relevant; 3, 4 non-relevant} at 0.5, then 5 (N, 0.1).
    y_true = np.array([[0, 1, 1, 0, 0, 0]])
    y_score = np.array([[0.9, 0.5, 0.5, 0.5, 0.5, 0.1]])
    max_fpr = 0.5
    values = []
    for order in set(itertools.permutations("RRNN")):
        ranking = "N" + "".join(order) + "N"
        labels = np.array([c == "R" for c in ranking], dtype=int)
        scores = -np.arange(len(ranking), dtype=float)
        values.append(roc_auc_score(labels, scores, max_fpr=max_fpr))
    want = math.fsum(values) / len(values)
    got = auc_score(y_true, y_score, max_fpr=max_fpr)
    assert got == pytest.approx(want, rel=1e-13)
    # scikit-learn's straight ROC segment through the tie is not the mean.
    assert roc_auc_score(y_true[0], y_score[0], max_fpr=max_fpr) != pytest.approx(
        want, rel=1e-6
    )


def _partial_auc_exact(labels, scores, max_fpr):
    """The expected partial AUC over the orders of tied items (-inf ties
    too), McClish-standardized: the non-relevant items in rank order, each
    spanning 1/N of the false positive rate up to max_fpr; the i-th of a tie
    group of r relevant and u non-relevant items has on average i r / (u + 1)
    of the group's relevant items above it."""
    n_pos = int(labels.sum())
    n_neg = len(labels) - n_pos
    f_n = max_fpr * n_neg
    area, i0, above = 0.0, 0, 0
    for value in np.unique(scores)[::-1]:
        group = scores == value
        r = int(labels[group].sum())
        u = int(group.sum()) - r
        for i in range(1, u + 1):
            weight = min(1.0, max(0.0, f_n - (i0 + i - 1)))
            if weight <= 0.0:
                break
            area += weight * (above + i * r / (u + 1))
        i0 += u
        above += r
    pauc = area / (n_pos * n_neg)
    return 0.5 * (1 + (pauc - 0.5 * max_fpr**2) / (max_fpr - 0.5 * max_fpr**2))


def test_partial_auc_reference_is_the_mean_over_orderings():
    # _partial_auc_exact against every order of the tied items, each order
    # scored by scikit-learn (distinct scores), on small tied rows.
    rng = np.random.default_rng(17)
    for _ in range(30):
        m = int(rng.integers(3, 8))
        labels = (rng.random(m) < 0.4).astype(int)
        if labels.min() == labels.max():
            continue
        scores = np.floor(rng.random(m) * 3)
        max_fpr = float(rng.choice([0.2, 0.5, 0.7]))
        values = []
        for perm in itertools.permutations(range(m)):
            perm = np.array(perm)
            if np.any(np.diff(scores[perm]) > 0):
                continue  # not a ranking of these scores
            ranks = np.empty(m)
            ranks[perm] = -np.arange(m)
            values.append(roc_auc_score(labels, ranks, max_fpr=max_fpr))
        want = math.fsum(values) / len(values)
        assert _partial_auc_exact(labels, scores, max_fpr) == pytest.approx(
            want, rel=1e-12
        )


@pytest.mark.parametrize("max_fpr", [0.01, 0.1, 0.3])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("tied", [True, False])
@pytest.mark.parametrize("m", [600, 5000])
def test_partial_auc_on_long_rows(max_fpr, dtype, tied, m):
    # Long rows, where partial AUC counts only the items at the top of the
    # row (pauc_top) when the relevant items are few, and the whole row when
    # they are many; ties or none, unjudged items and -inf, dense and CSR
    # relevance: the exact expectation (_partial_auc_exact) on the judged
    # items.
    rng = np.random.default_rng(m + int(max_fpr * 100))
    n = 6
    y_true = (rng.random((n, m)) < rng.choice([0.01, 0.05, 0.4], size=(n, 1))).astype(
        np.int64
    )
    y_true[rng.random((n, m)) < 0.03] = -1
    y_score = rng.random((n, m)).astype(dtype)
    if tied:
        y_score = np.floor(y_score * 40)
    y_score[rng.random((n, m)) < 0.05] = -np.inf
    for relevance in (y_true, sp.csr_matrix(np.maximum(y_true, 0))):
        grades = relevance.toarray() if sp.issparse(relevance) else relevance
        want = []
        for t, s in zip(grades, y_score.astype(np.float64)):
            judged = t >= 0
            labels = (t[judged] > 0).astype(int)
            want.append(_partial_auc_exact(labels, s[judged], max_fpr))
        got = auc_score(relevance, y_score, max_fpr=max_fpr, average=None)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_not_retrieved_items_rank_last_and_tie():
    # -inf: below every finite score, tied among themselves (both tie modes).
    y_true = np.array([[1, 0, 1, 0, 0]])
    y_score = np.array([[0.5, 0.7, -np.inf, -np.inf, 0.1]])
    # pairs (relevant, non-relevant): (0,1) 0, (0,3) 1, (0,4) 1, (2,1) 0,
    # (2,3) 1/2, (2,4) 0: 2.5 / 6
    for ignore_ties in (False, True):
        assert auc_score(y_true, y_score, ignore_ties=ignore_ties) == pytest.approx(
            2.5 / 6, rel=1e-15
        )
    # AUC@k: -inf items are never in the top k; top 5 = items 1, 0, 4.
    assert auc_score(y_true, y_score, k=5) == pytest.approx(0.5)


def test_auc_at_k_by_hand():
    # Ranked 0 (R), 1 (N), then a tie {2 (R), 3 (N)}; the top 3 takes one of
    # the two, each with probability 1/2: {0,1,2} gives 1/2, {0,1,3} 2/2.
    y_true = np.array([[1, 0, 1, 0]])
    y_score = np.array([[0.9, 0.8, 0.5, 0.5]])
    assert auc_score(y_true, y_score, k=3) == pytest.approx(0.75, rel=1e-15)
    assert auc_score(y_true, y_score, k=1) == 0.0  # no non-relevant item
    assert auc_score(y_true, y_score, k=4) == auc_score(y_true, y_score)


def test_auc_at_k_matches_torchmetrics():
    torch = pytest.importorskip("torch", reason="torchmetrics needs torch")
    functional = pytest.importorskip("torchmetrics.functional.retrieval")
    y_true, y_score = _data(5, n_items=15)  # no ties: topk's order is the order
    for k in (3, 7, 15):
        got = auc_score(y_true, y_score, k=k, average=None, zero_division=0.0)
        want = [
            float(functional.retrieval_auroc(torch.tensor(s), torch.tensor(t), top_k=k))
            for s, t in zip(y_score, y_true)
        ]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_max_fpr_needs_the_whole_row():
    with pytest.raises(ValueError, match="max_fpr applies to the whole row"):
        auc_score([[1, 0]], [[0.2, 0.1]], k=2, max_fpr=0.5)
    with pytest.raises(ValueError, match="max_fpr"):
        auc_score([[1, 0]], [[0.2, 0.1]], max_fpr=0.0)


# --------------------------------------------------------------------------
# Group AUC and the micro averages
# --------------------------------------------------------------------------


def test_gauc_weightings():
    y_true, y_score = _data(6, levels=5, unjudged=True)
    rows = _sklearn_rows(y_true, y_score)
    keep = ~np.isnan(rows)
    n_pos = (y_true > 0).sum(axis=1)
    n_neg = (y_true == 0).sum(axis=1)
    w = np.random.default_rng(6).uniform(0.5, 2.0, size=len(rows))
    for average, count in (
        ("relevant", n_pos),
        ("judged", n_pos + n_neg),
        ("pairs", n_pos * n_neg),
    ):
        for sample_weight in (None, w):
            weights = count * (1.0 if sample_weight is None else sample_weight)
            want = math.fsum(rows[keep] * weights[keep]) / math.fsum(weights[keep])
            got = auc_score(
                y_true,
                y_score,
                average=average,
                sample_weight=sample_weight,
                zero_division=np.nan,
            )
            assert got == pytest.approx(want, rel=1e-12)


def test_micro_auc_is_the_pooled_pair_count():
    # average="pairs": every (relevant, non-relevant) pair of the data alike.
    y_true, y_score = _data(7, levels=3)
    wins = pairs = 0.0
    for t, s in zip(y_true, y_score):
        for p in np.flatnonzero(t > 0):
            for n in np.flatnonzero(t == 0):
                wins += (s[p] > s[n]) + 0.5 * (s[p] == s[n])
                pairs += 1
    got = auc_score(y_true, y_score, average="pairs", zero_division=np.nan)
    assert got == pytest.approx(wins / pairs, rel=1e-12)


def test_weighted_averages_apply_to_every_metric_but_pairs():
    y_true, y_score = _data(8)
    rows = sklearn_rankk.recall_at_k_score(
        y_true, y_score, k=3, average=None, zero_division=np.nan
    )
    n_pos = (y_true > 0).sum(axis=1)
    keep = ~np.isnan(rows)
    want = np.sum(rows[keep] * n_pos[keep]) / np.sum(n_pos[keep])
    got = sklearn_rankk.recall_at_k_score(
        y_true, y_score, k=3, average="relevant", zero_division=np.nan
    )
    assert got == pytest.approx(want, rel=1e-12)
    with pytest.raises(ValueError, match='average="pairs" applies to'):
        sklearn_rankk.recall_at_k_score(y_true, y_score, average="pairs")
    with pytest.raises(ValueError, match="average"):
        auc_score(y_true, y_score, average="clicks")


# --------------------------------------------------------------------------
# Pairwise accuracy
# --------------------------------------------------------------------------


def _pairwise_loop(t, s):
    conc = pairs = 0.0
    for a in range(len(t)):
        for b in range(len(t)):
            if t[a] >= 0 and t[b] >= 0 and t[a] > t[b]:
                conc += (s[a] > s[b]) + 0.5 * (s[a] == s[b])
                pairs += 1
    return conc, pairs


def test_pairwise_accuracy_against_a_loop():
    rng = np.random.default_rng(9)
    y_true = rng.integers(-1, 4, size=(20, 9))
    y_score = np.round(rng.random((20, 9)), 1)
    rows = pairwise_accuracy_score(y_true, y_score, average=None, zero_division=np.nan)
    total_conc = total_pairs = 0.0
    for i, (t, s) in enumerate(zip(y_true, y_score)):
        conc, pairs = _pairwise_loop(t, s)
        total_conc += conc
        total_pairs += pairs
        if pairs:
            assert rows[i] == pytest.approx(conc / pairs, rel=1e-13)
        else:
            assert np.isnan(rows[i])
    micro = pairwise_accuracy_score(y_true, y_score, average="pairs")
    assert micro == pytest.approx(total_conc / total_pairs, rel=1e-13)


def test_pairwise_accuracy_is_auc_on_binary_relevance():
    y_true, y_score = _data(10, levels=4, unjudged=True)
    for ignore_ties in (False, True):
        a = pairwise_accuracy_score(
            y_true, y_score, average=None, ignore_ties=ignore_ties, zero_division=0.0
        )
        b = auc_score(
            y_true, y_score, average=None, ignore_ties=ignore_ties, zero_division=0.0
        )
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


# --------------------------------------------------------------------------
# Scorers, streaming, Dask
# --------------------------------------------------------------------------


def test_scorer_names_and_streaming_equal_the_one_shot_call():
    y_true, y_score = _data(11, levels=4, unjudged=True)
    names = ["auc", "auc@5", "pairwise_accuracy"]
    assert set(names) <= set(sklearn_rankk.get_scorer_names())
    acc = sklearn_rankk.RankingAccumulator(names, zero_division=np.nan)
    for start in range(0, y_true.shape[0], 7):
        acc.update(y_true[start : start + 7], y_score[start : start + 7])
    got = acc.result()
    assert got["auc"] == pytest.approx(
        auc_score(y_true, y_score, zero_division=np.nan), rel=1e-13
    )
    assert got["auc@5"] == pytest.approx(
        auc_score(y_true, y_score, k=5, zero_division=np.nan), rel=1e-13
    )
    assert got["pairwise_accuracy"] == pytest.approx(
        pairwise_accuracy_score(y_true, y_score, zero_division=np.nan), rel=1e-13
    )


def test_dask_inputs_and_weighted_averages():
    da = pytest.importorskip("dask.array")
    y_true, y_score = _data(12, levels=3)
    dt, ds = (
        da.from_array(y_true, chunks=(8, -1)),
        da.from_array(y_score, chunks=(8, -1)),
    )
    for average in ("mean", "relevant", "pairs"):
        want = auc_score(y_true, y_score, average=average, zero_division=np.nan)
        got = auc_score(dt, ds, average=average, zero_division=np.nan)
        assert got == pytest.approx(want, rel=1e-13)


@pytest.mark.parametrize("rate", [0.02, 0.05, 0.5])
@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("tied", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_pairwise_accuracy_on_long_rows(rate, ignore_ties, tied, dtype):
    # Few and many items outside the largest grade (each counting path: a
    # scan per key score, the table of cells, dense rows mostly grade 0 read
    # as CSR rows), ties or none, unjudged items and -inf, against the loop
    # over pairs (scores made distinct in the later-column-first order for
    # ignore_ties; -inf tied).
    rng = np.random.default_rng(int(rate * 100) + 7)
    n, m = 6, 150
    graded = rng.integers(1, 4, size=(n, m))
    y_true = np.where(rng.random((n, m)) < rate, graded, 0)
    y_true[rng.random((n, m)) < 0.05] = -1
    y_score = rng.random((n, m)).astype(dtype)
    if tied:
        y_score = np.floor(y_score * 20)
    y_score[rng.random((n, m)) < 0.05] = -np.inf
    reference = _later_first(y_score) if ignore_ties else y_score.astype(np.float64)
    got = pairwise_accuracy_score(
        y_true, y_score, ignore_ties=ignore_ties, average=None, zero_division=np.nan
    )
    for i in range(n):
        conc, pairs = _pairwise_loop(y_true[i], reference[i])
        assert got[i] == pytest.approx(conc / pairs, rel=1e-12)
