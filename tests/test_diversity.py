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


# -- alpha-nDCG@k, ERR-IA@k, nERR-IA@k ----------------------------------------


def _gains_along(rel, ranking, k, alpha, weights, discount):
    """sum over ranks r <= k of disc(r) sum_t w_t (1 - alpha)^c_t over the
    intents t of the item at rank r, c_t the items of t above it (Clarke et
    al. 2008; Chapelle et al. 2011 with R = alpha, divided by alpha)."""
    seen = [0] * rel.shape[1]
    total = 0.0
    for r, j in enumerate(ranking[:k], start=1):
        d = 1.0 / np.log2(1 + r) if discount == "log" else 1.0 / r
        for t in range(rel.shape[1]):
            if rel[j, t]:
                total += weights[t] * (1 - alpha) ** seen[t] * d
                seen[t] += 1
    return total


def _greedy(rel, k, alpha, weights, discount):
    """ndeval's idealResult: at each rank the item of largest gain; equal
    gains: the largest relevance vector (tuple order)."""
    left = [j for j in range(rel.shape[0]) if rel[j].any()]
    seen = [0] * rel.shape[1]
    ranking = []
    while left and len(ranking) < k:
        best = None
        for j in left:
            g = sum(
                weights[t] * (1 - alpha) ** seen[t]
                for t in range(rel.shape[1])
                if rel[j, t]
            )
            key = tuple(bool(x) for x in rel[j])
            if (
                best is None
                or g > best[0] + 1e-12
                or (abs(g - best[0]) <= 1e-12 and key > best[1])
            ):
                best = (g, key, j)
        ranking.append(best[2])
        left.remove(best[2])
        for t in range(rel.shape[1]):
            seen[t] += bool(rel[best[2], t])
    return _gains_along(rel, ranking, k, alpha, weights, discount)


def alpha_oracle(y_true, y_score, k, ignore_ties, alpha, weights=None):
    """Per row: (alpha-nDCG@k, ERR-IA@k, nERR-IA@k), means over the
    rankings; NaN where no intent has a relevant item."""
    n, _, n_int = y_true.shape
    w = np.ones((n, n_int)) if weights is None else np.broadcast_to(weights, (n, n_int))
    star = sum((1 - alpha) ** (r - 1) / r for r in range(1, k + 1))
    out = []
    for row in range(n):
        rel = y_true[row] > 0
        present = rel.any(axis=0)
        if not present.any():
            out.append((np.nan,) * 3)
            continue
        wr = np.where(present, w[row], 0.0)
        wr = wr / wr.sum()
        ones = np.ones(n_int)
        idcg = _greedy(rel, k, alpha, ones, "log")
        ierr = _greedy(rel, k, alpha, wr, "reciprocal")
        a = b = count = 0
        for ranking in rankings(y_score[row], ignore_ties):
            a += _gains_along(rel, ranking, k, alpha, ones, "log")
            b += _gains_along(rel, ranking, k, alpha, wr, "reciprocal")
            count += 1
        out.append((a / count / idcg, b / count / star, b / count / ierr))
    return np.array(out).T


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("alpha", [0.5, 0.0, 0.3, 1.0])
@pytest.mark.parametrize("seed,k", [(s, k) for s in range(4) for k in (1, 2, 4)])
def test_alpha_measures_match_enumeration(seed, k, alpha, ignore_ties):
    from sklearn_rankk import alpha_ndcg_at_k, err_ia_at_k, nerr_ia_at_k

    rng = np.random.default_rng(100 + seed)
    y_score = rng.integers(0, 3, size=(4, 6)).astype(float)
    if seed % 2:
        y_score[rng.random((4, 6)) < 0.2] = -np.inf
    y_true = (rng.random((4, 6, 3)) < 0.35).astype(int) * rng.integers(1, 3, (4, 6, 3))
    y_true[0] = 0  # a row with no intent
    weights = rng.random(3) + 0.1
    ndcg, err, nerr = alpha_oracle(y_true, y_score, k, ignore_ties, alpha)
    common = dict(k=k, alpha=alpha, ignore_ties=ignore_ties, average=None)
    got = alpha_ndcg_at_k(y_true, y_score, zero_division=np.nan, **common)
    np.testing.assert_allclose(got, ndcg, atol=1e-12)
    got = err_ia_at_k(y_true, y_score, zero_division=np.nan, **common)
    np.testing.assert_allclose(got, err, atol=1e-12)
    got = nerr_ia_at_k(y_true, y_score, zero_division=np.nan, **common)
    np.testing.assert_allclose(got, nerr, atol=1e-12)
    # intent weights (ERR-IA's P(t | q))
    _, err, nerr = alpha_oracle(y_true, y_score, k, ignore_ties, alpha, weights)
    got = err_ia_at_k(
        y_true, y_score, intent_weights=weights, zero_division=np.nan, **common
    )
    np.testing.assert_allclose(got, err, atol=1e-12)
    got = nerr_ia_at_k(
        y_true, y_score, intent_weights=weights, zero_division=np.nan, **common
    )
    np.testing.assert_allclose(got, nerr, atol=1e-12)


def test_alpha_measures_large_tie_groups():
    """A constant ranker over 40 items (the walk's branch for groups with
    many items of no gain): the expectation from the law of the relevant
    items' slots, each item in a slot of the top k or beyond it, every
    injective placement of the 4 relevant items among the 40 slots equally
    likely (an item beyond k adds nothing and precedes nothing in it)."""
    from sklearn_rankk import alpha_ndcg_at_k, err_ia_at_k

    m, k = 40, 5
    y_true = np.zeros((1, m, 2))
    y_true[0, [0, 1, 2], 0] = 1
    y_true[0, [2, 3], 1] = 1
    rel = y_true[0] > 0
    exp_ndcg = exp_err = 0.0
    total = m * (m - 1) * (m - 2) * (m - 3)
    for place in itertools.product(range(k + 1), repeat=4):  # k: beyond
        top = [p for p in place if p < k]
        if len(set(top)) < len(top):
            continue
        ways = 1
        for i in range(4 - len(top)):
            ways *= m - k - i
        ranking = [None] * k
        for item, p in enumerate(place):
            if p < k:
                ranking[p] = item
        seq = [4 if j is None else j for j in ranking]
        rel5 = np.vstack([rel[:4], np.zeros((1, 2), bool)])
        exp_ndcg += ways * _gains_along(rel5, seq, k, 0.5, np.ones(2), "log")
        exp_err += ways * _gains_along(rel5, seq, k, 0.5, np.ones(2) / 2, "reciprocal")
    idcg = _greedy(rel, k, 0.5, np.ones(2), "log")
    star = sum(0.5 ** (r - 1) / r for r in range(1, k + 1))
    y_score = np.zeros((1, m))
    assert alpha_ndcg_at_k(y_true, y_score, k=k) == pytest.approx(
        exp_ndcg / total / idcg, abs=1e-12
    )
    assert err_ia_at_k(y_true, y_score, k=k) == pytest.approx(
        exp_err / total / star, abs=1e-12
    )


def test_alpha_hand_worked():
    # Items 0, 1: intent 0; item 2: intent 1; ranked 0, 1, 2 (k=3, alpha=.5)
    from sklearn_rankk import alpha_ndcg_at_k, err_ia_at_k, nerr_ia_at_k

    y_true = np.zeros((1, 3, 2))
    y_true[0, [0, 1], 0] = 1
    y_true[0, 2, 1] = 1
    y_score = np.array([[3.0, 2.0, 1.0]])
    dcg = 1 + 0.5 / np.log2(3) + 1 / np.log2(4)
    ideal = 1 + 1 / np.log2(3) + 0.5 / np.log2(4)  # 0, 2, 1
    assert alpha_ndcg_at_k(y_true, y_score, k=3) == pytest.approx(dcg / ideal)
    err = (1 + 0.5 / 2 + 1 / 3) / 2
    assert err_ia_at_k(y_true, y_score, k=3) == pytest.approx(
        err / (1 + 0.25 + 0.25 / 3)
    )
    assert nerr_ia_at_k(y_true, y_score, k=3) == pytest.approx(
        err / ((1 + 1 / 2 + 0.5 / 3) / 2)
    )
    # all three tied: each intent-0 item is first with probability 2/3...
    # the mean over the 6 orderings, by hand: intent 0's two items at ranks
    # (1,2), (1,3), (2,3) twice each, intent 1's item at the rank left.
    y_tied = np.zeros((1, 3))
    d = [1 / np.log2(1 + r) for r in (1, 2, 3)]
    expect = (
        (d[0] + 0.5 * d[1] + d[2])
        + (d[0] + 0.5 * d[2] + d[1])
        + (d[1] + 0.5 * d[2] + d[0])
    ) / 3
    assert alpha_ndcg_at_k(y_true, y_tied, k=3) == pytest.approx(expect / ideal)


def test_alpha_column_order_and_errors():
    from sklearn_rankk import alpha_ndcg_at_k, err_ia_at_k, nerr_ia_at_k

    rng = np.random.default_rng(7)
    y_true = (rng.random((20, 15, 4)) < 0.3).astype(int)
    y_score = rng.integers(0, 4, size=(20, 15)).astype(float)
    perm = rng.permutation(15)
    for f in (alpha_ndcg_at_k, err_ia_at_k, nerr_ia_at_k):
        a = f(y_true, y_score, k=5, average=None)
        b = f(y_true[:, perm], y_score[:, perm], k=5, average=None)
        np.testing.assert_allclose(a, b, atol=1e-12)
        with pytest.raises(ValueError, match="alpha must be <= 1"):
            f(y_true, y_score, alpha=1.5)
        with pytest.raises(ValueError, match="k must be an integer >= 1"):
            f(y_true, y_score, k=0)
        with pytest.warns(Warning, match="no intent with a relevant item"):
            assert f(np.zeros((1, 2, 2)), y_score[:1, :2], k=1) == 0.0


def _ndeval_inputs(seed, n, m, n_int):
    """Runs with ties, named so that ndeval's orders are the package's:
    items sorted per row by relevance vector (largest first), docno
    d{m-1-j}, so that pyndeval's docno order among tied scores is the later
    column first (ignore_ties=True) and ndeval's greedy ideal, taking the
    largest docno among equal gains, takes the largest relevance vector."""
    rng = np.random.default_rng(seed)
    y_true = (rng.random((n, m, n_int)) < 0.25).astype(int)
    y_true[0, 0, 0] = 1
    for r in range(n):
        keys = [tuple(-y_true[r, j]) for j in range(m)]
        y_true[r] = y_true[r][sorted(range(m), key=keys.__getitem__)]
    y_score = rng.integers(0, 6, size=(n, m)).astype(float)
    y_score[rng.random((n, m)) < 0.1] = -np.inf
    qrels = [
        (f"q{r}", str(t), f"d{m - 1 - j:03d}", int(y_true[r, j, t]))
        for r in range(n)
        for j in range(m)
        for t in range(n_int)
        if y_true[r, :, t].any()
    ]
    run = [
        (f"q{r}", f"d{m - 1 - j:03d}", float(y_score[r, j]))
        for r in range(n)
        for j in range(m)
        if y_score[r, j] > -np.inf
    ]
    return y_true, y_score, qrels, run


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("alpha", [0.5, 0.3])
def test_alpha_measures_agree_with_ndeval(seed, alpha):
    """ndeval (through pyndeval) per query: alpha-nDCG@k, ERR-IA@k,
    nERR-IA@k with ties broken as ndeval breaks them (see _ndeval_inputs).
    ndeval's ERR-IA@1 is not divided by the number of intents (its
    normalisation loop starts at rank 2): the test multiplies ours."""
    pyndeval = pytest.importorskip("pyndeval", reason="pyndeval is not installed")
    from sklearn_rankk import alpha_ndcg_at_k, err_ia_at_k, nerr_ia_at_k

    n, m, n_int = 10, 25, 4
    y_true, y_score, qrels, run = _ndeval_inputs(700 + seed, n, m, n_int)
    ks = (1, 2, 3, 5, 10, 20)
    names = [f"{x}@{k}" for k in ks for x in ("alpha-nDCG", "ERR-IA", "nERR-IA")]
    found = pyndeval.ndeval(qrels, run, measures=names, alpha=alpha)
    n_present = (y_true > 0).any(axis=1).sum(axis=1)
    for k in ks:
        common = dict(
            k=k, alpha=alpha, ignore_ties=True, average=None, zero_division=np.nan
        )
        got = {
            "alpha-nDCG": alpha_ndcg_at_k(y_true, y_score, **common),
            "ERR-IA": err_ia_at_k(y_true, y_score, **common),
            "nERR-IA": nerr_ia_at_k(y_true, y_score, **common),
        }
        if k == 1:
            got["ERR-IA"] = got["ERR-IA"] * n_present
        for r in range(n):
            if not y_true[r].any():  # ndeval does not report it
                assert f"q{r}" not in found
                continue
            for name, values in got.items():
                assert values[r] == pytest.approx(
                    found[f"q{r}"][f"{name}@{k}"], abs=1e-9
                ), (name, k, r)


@pytest.mark.parametrize("n_intents", [3, 70])
def test_alpha_measures_many_intents(n_intents):
    """More intents than an integer code holds (the greedy ideal's other
    way of sorting the relevance vectors), and few."""
    from sklearn_rankk import alpha_ndcg_at_k, nerr_ia_at_k

    rng = np.random.default_rng(n_intents)
    y_true = (rng.random((5, 8, n_intents)) < 0.1).astype(int)
    y_true[:, :3] = y_true[:, 3:6]  # items with the same relevance vector
    y_score = rng.random((5, 8))
    ndcg, _, nerr = alpha_oracle(y_true, y_score, 4, True, 0.5)
    common = dict(k=4, ignore_ties=True, average=None, zero_division=np.nan)
    got = alpha_ndcg_at_k(y_true, y_score, **common)
    np.testing.assert_allclose(got, ndcg, atol=1e-12)
    got = nerr_ia_at_k(y_true, y_score, **common)
    np.testing.assert_allclose(got, nerr, atol=1e-12)


def test_no_relevant_item_as_ndeval():
    """ndeval scores 0 a judged topic with no relevant document (its
    measures return early): zero_division=0.0; and leaves k = 1's ERR-IA
    undivided by the number of intents (here 2, hence 2.0)."""
    pyndeval = pytest.importorskip("pyndeval", reason="pyndeval is not installed")
    from sklearn_rankk import alpha_ndcg_at_k, err_ia_at_k, nerr_ia_at_k

    qrels = [("q1", "0", "d1", 0), ("q1", "1", "d2", 0)]
    qrels += [("q2", "0", "d1", 1), ("q2", "1", "d1", 1)]
    run = [("q1", "d1", 2.0), ("q1", "d2", 1.0), ("q2", "d1", 1.0), ("q2", "d2", 0.0)]
    names = ["alpha-nDCG@5", "ERR-IA@1", "ERR-IA@5", "nERR-IA@5"]
    found = pyndeval.ndeval(qrels, run, measures=names)
    y_true = np.zeros((2, 2, 2))
    y_true[1, 0] = 1  # q2: d1 relevant to both intents
    y_score = np.array([[2.0, 1.0], [1.0, 0.0]])
    z = dict(average=None, zero_division=0.0)
    ours = {
        "alpha-nDCG@5": alpha_ndcg_at_k(y_true, y_score, k=5, **z),
        "ERR-IA@1": err_ia_at_k(y_true, y_score, k=1, **z) * 2,
        "ERR-IA@5": err_ia_at_k(y_true, y_score, k=5, **z),
        "nERR-IA@5": nerr_ia_at_k(y_true, y_score, k=5, **z),
    }
    for name in names:
        assert [found["q1"][name], found["q2"][name]] == pytest.approx(ours[name])
