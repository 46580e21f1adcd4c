"""Intent-aware measures (issue 27 item 5, in part): P-IA@k and S-recall@k.

The oracle enumerates every ordering of the tied items of a row (the value
under ties is the mean over them) and, with ``ignore_ties=True``,
scikit-learn's order (numpy's stable argsort, reversed); the measures are
computed there from their definitions (Agrawal et al. 2009; Zhai, Cohen and
Lafferty 2003), not through the package.
"""

import itertools

import numpy as np
import pytest

from sklearn_rankk import intent_aware_precision_at_k, subtopic_recall_at_k


def rankings(row, ignore_ties):
    finite = [j for j in range(len(row)) if row[j] > -np.inf]
    if ignore_ties:
        order = [int(j) for j in np.argsort(row, kind="stable")[::-1]]
        yield [j for j in order if j in finite]
        return
    values = sorted({row[j] for j in finite}, reverse=True)
    groups = [[j for j in finite if row[j] == v] for v in values]
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [j for p in perms for j in p]


def oracle(y_true, y_score, k, ignore_ties, weights=None):
    """Per row: (P-IA@k, S-recall@k), means over the rankings; NaN where no
    intent has a relevant item."""
    n, _, n_int = y_true.shape
    w = np.ones((n, n_int)) if weights is None else np.broadcast_to(weights, (n, n_int))
    pia, srec = [], []
    for r in range(n):
        rel = y_true[r] > 0
        present = rel.any(axis=0)
        if not present.any():
            pia.append(np.nan)
            srec.append(np.nan)
            continue
        wr = np.where(present, w[r], 0.0)
        wr = wr / wr.sum()
        a, b, count = 0.0, 0.0, 0
        for ranking in rankings(y_score[r], ignore_ties):
            top = ranking[:k]
            per_intent = rel[top].sum(axis=0) / k
            a += float(np.sum(wr * per_intent))
            covered = rel[top].any(axis=0) & present
            b += covered.sum() / present.sum()
            count += 1
        pia.append(a / count)
        srec.append(b / count)
    return np.array(pia), np.array(srec)


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("seed,k", [(s, k) for s in range(6) for k in (1, 2, 4)])
def test_matches_enumeration(seed, k, ignore_ties):
    rng = np.random.default_rng(seed)
    y_score = rng.integers(0, 3, size=(4, 6)).astype(float)
    if seed % 2:
        y_score[rng.random((4, 6)) < 0.2] = -np.inf
    y_true = (rng.random((4, 6, 3)) < 0.3).astype(int)
    y_true[0] = 0  # a row with no intent
    weights = rng.random(3) + 0.1
    pia, srec = oracle(y_true, y_score, k, ignore_ties, weights)
    got = intent_aware_precision_at_k(
        y_true,
        y_score,
        k=k,
        intent_weights=weights,
        ignore_ties=ignore_ties,
        average=None,
        zero_division=np.nan,
    )
    np.testing.assert_allclose(got, pia, atol=1e-12)
    got = subtopic_recall_at_k(
        y_true,
        y_score,
        k=k,
        ignore_ties=ignore_ties,
        average=None,
        zero_division=np.nan,
    )
    np.testing.assert_allclose(got, srec, atol=1e-12)
    # the mean leaves the undefined rows out with zero_division=np.nan
    assert subtopic_recall_at_k(
        y_true, y_score, k=k, ignore_ties=ignore_ties, zero_division=np.nan
    ) == pytest.approx(np.nanmean(srec))


def test_hand_worked_tie():
    # Intent 0: items 0 and 1; intent 1: item 2. Items 1, 2, 3 tie for the
    # one slot left after item 0 at k=2: intent 1 is covered with
    # probability 1/3, so S-recall = (1 + 1/3) / 2 = 2/3; P-IA = (P@2 of
    # intent 0: (1 + 1/3) / 2 = 2/3, of intent 1: (1/3) / 2 = 1/6) / 2.
    y_true = np.zeros((1, 4, 2))
    y_true[0, [0, 1], 0] = 1
    y_true[0, 2, 1] = 1
    y_score = np.array([[9.0, 5.0, 5.0, 5.0]])
    assert subtopic_recall_at_k(y_true, y_score, k=2) == pytest.approx(2 / 3)
    assert intent_aware_precision_at_k(y_true, y_score, k=2) == pytest.approx(
        (2 / 3 + 1 / 6) / 2
    )


def test_errors_and_zero_division():
    y_score = np.array([[1.0, 2.0]])
    with pytest.raises(ValueError, match="y_true must be 3-D"):
        subtopic_recall_at_k(np.zeros((1, 2)), y_score)
    with pytest.raises(ValueError, match="first two dimensions"):
        subtopic_recall_at_k(np.zeros((1, 3, 2)), y_score)
    with pytest.raises(ValueError, match="intent_weights must have shape"):
        intent_aware_precision_at_k(np.ones((1, 2, 2)), y_score, intent_weights=[1])
    with pytest.raises(ValueError, match="non-negative"):
        intent_aware_precision_at_k(np.ones((1, 2, 2)), y_score, intent_weights=[1, -1])
    with pytest.warns(Warning, match="no intent with a relevant item"):
        assert subtopic_recall_at_k(np.zeros((1, 2, 2)), y_score, k=1) == 0.0


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("k", [1, 3, 5, 10])
def test_agrees_with_ndeval(seed, k):
    """ndeval (TREC Web track diversity), through pyndeval: P-IA@k and
    strec@k per query, on runs without ties (ndeval's order of tied
    documents is its own)."""
    pyndeval = pytest.importorskip("pyndeval", reason="pyndeval is not installed")
    rng = np.random.default_rng(500 + seed)
    n, m, n_int = 8, 12, 4
    y_true = (rng.random((n, m, n_int)) < 0.2).astype(int)
    y_true[0, 0, 0] = 1  # at least one query with a relevant item
    y_score = rng.permutation(n * m).reshape(n, m).astype(float)
    qrels = [
        (f"q{r}", str(t), f"d{j}", int(y_true[r, j, t]))
        for r in range(n)
        for j in range(m)
        for t in range(n_int)
        if y_true[r, :, t].any()
    ]
    run = [(f"q{r}", f"d{j}", float(y_score[r, j])) for r in range(n) for j in range(m)]
    found = pyndeval.ndeval(qrels, run, measures=[f"P-IA@{k}", f"strec@{k}"])
    pia = intent_aware_precision_at_k(
        y_true, y_score, k=k, average=None, zero_division=np.nan
    )
    srec = subtopic_recall_at_k(
        y_true, y_score, k=k, average=None, zero_division=np.nan
    )
    for r in range(n):
        if not y_true[r].any():
            assert f"q{r}" not in found or np.isnan(pia[r])
            continue
        assert pia[r] == pytest.approx(found[f"q{r}"][f"P-IA@{k}"], abs=1e-9)
        assert srec[r] == pytest.approx(found[f"q{r}"][f"strec@{k}"], abs=1e-9)
