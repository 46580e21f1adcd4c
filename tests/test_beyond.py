"""Beyond-accuracy measures (issue 27 item 2): item exposure, catalog
coverage, Gini index, entropy; average popularity, novelty, long-tail share.

Oracles independent of the kernel: every ordering of the tied items of every
row enumerated (the value under ties is their mean), scikit-learn's order for
``ignore_ties=True`` from numpy's stable argsort, and the peers' formulas
written out from their sources (RecBole, Microsoft recommenders), on lists
without ties, where every peer agrees on what the top k is.
"""

import itertools
import math
import warnings

import numpy as np
import pytest
import scipy.sparse
from scipy.stats import entropy as scipy_entropy

from sklearn_rankk import (
    average_popularity_at_k,
    catalog_coverage_at_k,
    entropy_at_k,
    gini_index_at_k,
    item_exposure,
    long_tail_share_at_k,
    novelty_at_k,
)

# --------------------------------------------------------------------------
# Oracles
# --------------------------------------------------------------------------


def orderings(row):
    """Every ranking of the row's finite items (a list of column indices)
    that sorting by score allows: tied items in every order, each equally
    likely (the product of the groups' permutations)."""
    finite = [j for j in range(len(row)) if np.isfinite(row[j]) or row[j] > 0]
    values = sorted({row[j] for j in finite}, reverse=True)
    groups = [[j for j in finite if row[j] == v] for v in values]
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [j for p in perms for j in p]


def sklearn_order(row):
    """scikit-learn's order (reversed stable argsort: the later column first
    among equal scores), finite items only."""
    order = np.argsort(row, kind="stable")[::-1]
    return [int(j) for j in order if np.isfinite(row[j]) or row[j] > 0]


def lists_of(row, k, ignore_ties):
    """The top-k lists of a row, each with its probability."""
    if ignore_ties:
        return [(sklearn_order(row)[:k], 1.0)]
    found = [o[:k] for o in orderings(row)]
    return [(lst, 1.0 / len(found)) for lst in found]


def oracle_exposure(y_score, k, ignore_ties, weights=None):
    n, m = y_score.shape
    w = np.ones(n) if weights is None else np.asarray(weights, float)
    x = np.zeros(m)
    for r in range(n):
        for lst, p in lists_of(y_score[r], k, ignore_ties):
            for j in lst:
                x[j] += w[r] * p
    return x


def oracle_coverage(y_score, k, ignore_ties):
    """Mean over every joint choice of the rows' orderings of the fraction
    of items in some list."""
    per_row = [lists_of(row, k, ignore_ties) for row in y_score]
    total = 0.0
    for combo in itertools.product(*per_row):
        p = math.prod(q for _, q in combo)
        shown = set().union(*(set(lst) for lst, _ in combo))
        total += p * len(shown) / y_score.shape[1]
    return total


def oracle_row_means(y_score, values, k, ignore_ties):
    """Per row: the mean over orderings of the mean value over the list."""
    out = []
    for row in y_score:
        acc = 0.0
        for lst, p in lists_of(row, k, ignore_ties):
            acc += p * (np.mean([values[j] for j in lst]) if lst else np.nan)
        out.append(acc)
    return np.array(out)


def gini_mean_difference(x):
    """Gini coefficient as the mean absolute difference over twice the mean
    (its textbook definition; items with zero exposure included)."""
    x = np.asarray(x, float)
    n = x.shape[0]
    return np.abs(x[:, None] - x[None, :]).sum() / (2 * n * n * x.mean())


def tied_scores(rng, n, m, levels=3, inf_share=0.0):
    s = rng.integers(0, levels, size=(n, m)).astype(float)
    if inf_share:
        s[rng.random((n, m)) < inf_share] = -np.inf
    return s


CASES = [(seed, k) for seed in range(6) for k in (1, 2, 3, 5)]


# --------------------------------------------------------------------------
# Exactness under ties, and sklearn's order with ignore_ties
# --------------------------------------------------------------------------


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("seed,k", CASES)
def test_item_exposure_matches_enumeration(seed, k, ignore_ties):
    rng = np.random.default_rng(seed)
    s = tied_scores(rng, 4, 6, inf_share=0.15 if seed % 2 else 0.0)
    w = rng.random(4) + 0.1
    got = item_exposure(s, k=k, ignore_ties=ignore_ties, sample_weight=w)
    np.testing.assert_allclose(got, oracle_exposure(s, k, ignore_ties, w), atol=1e-12)


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("seed,k", CASES)
def test_coverage_is_the_expected_coverage(seed, k, ignore_ties):
    rng = np.random.default_rng(100 + seed)
    s = tied_scores(rng, 3, 5, inf_share=0.1 if seed % 2 else 0.0)
    got = catalog_coverage_at_k(s, k=k, ignore_ties=ignore_ties)
    assert got == pytest.approx(oracle_coverage(s, k, ignore_ties), abs=1e-12)


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("seed,k", CASES)
def test_gini_and_entropy_of_the_expected_exposure(seed, k, ignore_ties):
    rng = np.random.default_rng(200 + seed)
    s = tied_scores(rng, 4, 6)
    x = oracle_exposure(s, k, ignore_ties)
    assert gini_index_at_k(s, k=k, ignore_ties=ignore_ties) == pytest.approx(
        gini_mean_difference(x), abs=1e-12
    )
    for base in (2, np.e, 10):
        h = scipy_entropy(x, base=base)
        got = entropy_at_k(s, k=k, ignore_ties=ignore_ties, base=base)
        assert got == pytest.approx(h, abs=1e-12)
        got = entropy_at_k(
            s, k=k, ignore_ties=ignore_ties, base=base, normalize="log_n_items"
        )
        assert got == pytest.approx(h / (np.log(6) / np.log(base)), abs=1e-12)
        got = entropy_at_k(
            s, k=k, ignore_ties=ignore_ties, base=base, normalize="n_exposed"
        )
        assert got == pytest.approx(h / np.count_nonzero(x), abs=1e-12)


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("seed,k", CASES)
def test_popularity_measures_match_enumeration(seed, k, ignore_ties):
    rng = np.random.default_rng(300 + seed)
    s = tied_scores(rng, 4, 6, inf_share=0.15 if seed % 2 else 0.0)
    s[:, 0] = 5.0  # every row lists at least one item
    pop = rng.integers(1, 20, size=6).astype(float)
    arp = average_popularity_at_k(s, pop, k=k, ignore_ties=ignore_ties, average=None)
    np.testing.assert_allclose(arp, oracle_row_means(s, pop, k, ignore_ties))
    nov = novelty_at_k(s, pop, k=k, ignore_ties=ignore_ties, average=None)
    info = -np.log2(pop / pop.sum())
    np.testing.assert_allclose(nov, oracle_row_means(s, info, k, ignore_ties))
    nov = novelty_at_k(s, pop, k=k, total=40, ignore_ties=ignore_ties, average=None)
    np.testing.assert_allclose(
        nov, oracle_row_means(s, -np.log2(pop / 40), k, ignore_ties)
    )
    mask = pop <= np.median(pop)
    share = long_tail_share_at_k(
        s, k=k, tail=mask, ignore_ties=ignore_ties, average=None
    )
    np.testing.assert_allclose(share, oracle_row_means(s, mask, k, ignore_ties))


def test_constant_ranker_spreads_exposure_evenly():
    s = np.zeros((3, 8))
    np.testing.assert_allclose(item_exposure(s, k=2), np.full(8, 3 * 2 / 8))
    assert gini_index_at_k(s, k=2) == pytest.approx(0.0, abs=1e-15)
    assert entropy_at_k(s, k=2, normalize="log_n_items") == pytest.approx(1.0)
    # every item misses all three lists with probability (6/8)**3
    assert catalog_coverage_at_k(s, k=2) == pytest.approx(1 - 0.75**3)
    # ignore_ties: the later columns first, in every row
    np.testing.assert_array_equal(
        item_exposure(s, k=2, ignore_ties=True), [0, 0, 0, 0, 0, 0, 3, 3]
    )


# --------------------------------------------------------------------------
# The peers' formulas, written out from their sources (lists without ties)
# --------------------------------------------------------------------------


def top_k_matrix(s, k):
    """Each row's top k columns, best first (no ties in these inputs)."""
    return np.argsort(-s, axis=1, kind="stable")[:, :k]


def recbole_gini(item_matrix, num_items):
    """RecBole 1.x, recbole/evaluator/metrics.py, GiniIndex.get_gini."""
    from collections import Counter

    item_count = dict(Counter(item_matrix.flatten()))
    sorted_count = np.array(sorted(item_count.values()))
    num_recommended_items = sorted_count.shape[0]
    total_num = item_matrix.shape[0] * item_matrix.shape[1]
    idx = np.arange(num_items - num_recommended_items + 1, num_items + 1)
    gini_index = np.sum((2 * idx - num_items - 1) * sorted_count) / total_num
    return gini_index / num_items


def recbole_entropy(item_matrix):
    """RecBole 1.x, recbole/evaluator/metrics.py, ShannonEntropy.get_entropy."""
    from collections import Counter

    item_count = dict(Counter(item_matrix.flatten()))
    total_num = item_matrix.shape[0] * item_matrix.shape[1]
    result = 0.0
    for cnt in item_count.values():
        p = cnt / total_num
        result += -p * np.log(p)
    return result / len(item_count)


def recbole_tail(item_matrix, count_items, tail_ratio):
    """RecBole 1.x, TailPercentage.get_tail with tail_ratio <= 1, then
    metric_info's mean over the list; count_items: item -> count."""
    count_items = sorted(count_items.items(), key=lambda kv: (kv[1], kv[0]))
    cut = max(int(len(count_items) * tail_ratio), 1)
    tail_items = [item for item, cnt in count_items[:cut]]
    value = np.isin(item_matrix, tail_items).astype(float)
    return value.mean(axis=1)


def ms_recommenders_distributional_coverage(reco_items):
    """Microsoft recommenders, recommenders/evaluation/python_evaluation.py,
    distributional_coverage: -sum p(i) log2 p(i), p(i) the item's share of
    the recommendations."""
    _, counts = np.unique(reco_items, return_counts=True)
    p = counts / reco_items.size
    return -np.sum(p * np.log2(p))


def ms_recommenders_novelty(reco_items, train_items):
    """Microsoft recommenders, python_evaluation.py, historical_item_novelty
    and novelty: -log2(count / n_records) summed over the recommendations,
    over their number."""
    items, counts = np.unique(train_items, return_counts=True)
    nov = dict(zip(items, -np.log2(counts / train_items.size)))
    return sum(nov[i] for i in reco_items.flatten()) / reco_items.size


def ms_recommenders_catalog_coverage(reco_items, train_items):
    """Microsoft recommenders, python_evaluation.py, catalog_coverage."""
    return np.unique(reco_items).size / np.unique(train_items).size


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [1, 3, 7])
def test_agrees_with_recbole_and_ms_recommenders(seed, k):
    rng = np.random.default_rng(400 + seed)
    n, m = 30, 25
    s = rng.random((n, m))
    items = top_k_matrix(s, k)
    # training interactions: every item at least once
    train = np.concatenate([np.arange(m), rng.integers(0, m, size=200)])
    counts = np.bincount(train, minlength=m).astype(float)
    assert gini_index_at_k(s, k=k) == pytest.approx(recbole_gini(items, m))
    assert entropy_at_k(s, k=k, base=np.e, normalize="n_exposed") == pytest.approx(
        recbole_entropy(items)
    )
    assert entropy_at_k(s, k=k) == pytest.approx(
        ms_recommenders_distributional_coverage(items)
    )
    assert novelty_at_k(s, counts, k=k) == pytest.approx(
        ms_recommenders_novelty(items, train)
    )
    assert catalog_coverage_at_k(s, k=k) == pytest.approx(np.unique(items).size / m)
    assert catalog_coverage_at_k(s, k=k, n_catalog=m) == pytest.approx(
        ms_recommenders_catalog_coverage(items, train)
    )
    # RecBole's AveragePopularity: per user, mean count over the list; mean
    assert average_popularity_at_k(s, counts, k=k) == pytest.approx(
        counts[items].mean(axis=1).mean()
    )
    tail = recbole_tail(items, dict(enumerate(counts)), 0.2)
    np.testing.assert_allclose(
        long_tail_share_at_k(s, counts, k=k, tail=0.2, average=None), tail
    )


# --------------------------------------------------------------------------
# Hand-worked examples (docs/user_guide/beyond_accuracy.rst)
# --------------------------------------------------------------------------


def test_hand_worked_example():
    # Row 0 ranks item 0 first, then items 1, 2, 3 tied for the one slot left;
    # row 1 ranks items 2 and 3 in its two slots; row 2 ties all four items.
    s = np.array([[9, 5, 5, 5], [0, 1, 7, 8], [3, 3, 3, 3]], dtype=float)
    # exposure: item 0: 1 + 1/2; items 1: 1/3 + 1/2; 2, 3: 1/3 + 1 + 1/2
    x = item_exposure(s, k=2)
    np.testing.assert_allclose(x, [1.5, 5 / 6, 11 / 6, 11 / 6])
    assert x.sum() == pytest.approx(6.0)  # three lists of two
    # coverage: item 0 certain; item 1 missed by row 0 w.p. 2/3, row 2 w.p. 1/2
    assert catalog_coverage_at_k(s, k=2) == pytest.approx((3 + (1 - 1 / 3)) / 4)
    pop = np.array([8.0, 4.0, 2.0, 2.0])
    # row 0: (8 + (4 + 2 + 2) / 3) / 2; row 1: (2 + 2) / 2; row 2: 16 / 4
    np.testing.assert_allclose(
        average_popularity_at_k(s, pop, k=2, average=None), [16 / 3, 2.0, 4.0]
    )
    # Gini: sorted exposures 5/6, 3/2, 11/6, 11/6 times (2i - 5) = -3, -1, 1, 3,
    # over n * sum = 4 * 6: (-15/6 - 9/6 + 11/6 + 33/6) / 24 = 5/36
    assert gini_index_at_k(s, k=2) == pytest.approx(5 / 36)
    # entropy: shares 1/4, 5/36, 11/36, 11/36
    shares = np.array([9, 5, 11, 11]) / 36
    assert entropy_at_k(s, k=2) == pytest.approx(-np.sum(shares * np.log2(shares)))
    # ignore_ties: row 0 takes item 3 (the later column), row 2 items 3 and 2
    np.testing.assert_array_equal(item_exposure(s, k=2, ignore_ties=True), [1, 0, 2, 3])


# --------------------------------------------------------------------------
# Inputs: blocks, dtypes, sparse scores, weights, empty lists, errors
# --------------------------------------------------------------------------


def test_blocks_add_up_and_inputs_agree():
    rng = np.random.default_rng(7)
    s = rng.integers(0, 4, size=(40, 30)).astype(float)
    whole = item_exposure(s, k=5)
    parts = item_exposure(s[:13], k=5) + item_exposure(s[13:], k=5)
    np.testing.assert_allclose(whole, parts)
    np.testing.assert_allclose(whole.sum(), 40 * 5)
    np.testing.assert_allclose(item_exposure(s.astype(np.float32), k=5), whole)
    np.testing.assert_allclose(item_exposure(s.astype(np.int64), k=5), whole)
    np.testing.assert_allclose(item_exposure(scipy.sparse.csr_matrix(s), k=5), whole)
    np.testing.assert_allclose(item_exposure(s.tolist(), k=5), whole)
    # integer weights = repeated rows
    w = rng.integers(0, 3, size=40)
    np.testing.assert_allclose(
        item_exposure(s, k=5, sample_weight=w), item_exposure(np.repeat(s, w, 0), k=5)
    )
    # coverage: only whether a weight is 0 matters (a repeated row draws its
    # tie order again, a weight does not)
    assert catalog_coverage_at_k(s, k=2, sample_weight=w) == pytest.approx(
        catalog_coverage_at_k(s[w > 0], k=2)
    )


@pytest.mark.parametrize("m,k", [(3000, 5), (3000, 100), (200, 150), (70000, 3)])
def test_long_rows_every_selection_path(m, k):
    """The selection's paths (candidates, streaming, radix, whole-row) on long
    rows with heavy ties: exposure from the tie-group rule, in numpy."""
    rng = np.random.default_rng(m + k)
    s = rng.integers(0, 50, size=(6, m)).astype(float)
    s[1] = 0.0
    s[2, : m // 2] = -np.inf
    want = np.zeros(m)
    for row in s:
        finite = np.isfinite(row)
        order = np.sort(row[finite])[::-1]
        if order.size <= k:
            want[finite] += 1
            continue
        last = order[k - 1]
        above = row > last
        tied = row == last
        want[above] += 1
        want[tied] += (k - above.sum()) / tied.sum()
    np.testing.assert_allclose(item_exposure(s, k=k), want, atol=1e-9)
    lists = item_exposure(s, k=k, ignore_ties=True)
    assert set(np.unique(lists)) <= set(range(7))
    np.testing.assert_allclose(lists.sum(), want.sum())


def test_empty_lists_follow_zero_division():
    s = np.array([[1.0, 2.0, 3.0], [-np.inf, -np.inf, -np.inf]])
    pop = [1.0, 2.0, 4.0]
    with pytest.warns(Warning, match="average_popularity_at_k is ill-defined"):
        got = average_popularity_at_k(s, pop, k=2, average=None)
    np.testing.assert_allclose(got, [3.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert average_popularity_at_k(s, pop, k=2, zero_division=np.nan) == 3.0
        assert average_popularity_at_k(s, pop, k=2, zero_division=1.0) == 2.0
    with pytest.raises(ValueError, match="no list holds any item"):
        gini_index_at_k(s[1:], k=2)
    assert catalog_coverage_at_k(s[1:], k=2) == 0.0


def test_errors_name_the_parameter():
    s = np.array([[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="item_popularity must be 1-D"):
        average_popularity_at_k(s, [1.0, 2.0], k=2)
    with pytest.raises(ValueError, match="item_popularity must be positive"):
        novelty_at_k(s, [1.0, 0.0, 2.0], k=2)
    with pytest.raises(ValueError, match="item_popularity must be non-negative"):
        average_popularity_at_k(s, [1.0, -1.0, 2.0], k=2)
    with pytest.raises(ValueError, match="item_popularity must be finite"):
        average_popularity_at_k(s, [1.0, np.nan, 2.0], k=2)
    with pytest.raises(ValueError, match="y_score contains NaN"):
        item_exposure([[1.0, np.nan]], k=1)
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        item_exposure(s, k=0)
    with pytest.raises(ValueError, match="normalize must be one of"):
        entropy_at_k(s, k=1, normalize="max")
    with pytest.raises(ValueError, match="base must be > 1"):
        entropy_at_k(s, k=1, base=1)
    with pytest.raises(ValueError, match="tail must be <= 1"):
        long_tail_share_at_k(s, [1, 2, 3], k=1, tail=2.0)
    with pytest.raises(ValueError, match="needs item_popularity"):
        long_tail_share_at_k(s, k=1, tail=0.5)
    with pytest.raises(TypeError, match="boolean mask"):
        long_tail_share_at_k(s, k=1, tail=[1, 0, 1])
    with pytest.raises(ValueError, match="one entry per item"):
        long_tail_share_at_k(s, k=1, tail=[True, False])
    with pytest.raises(ValueError, match="sample_weight has 2 entries"):
        item_exposure(s, k=1, sample_weight=[1, 2])
    with pytest.raises(ValueError, match="average must be one of"):
        novelty_at_k(s, [1, 2, 3], k=1, average="gmean")
    with pytest.raises(TypeError, match="ignore_ties must be True or False"):
        item_exposure(s, k=1, ignore_ties=1)


# --------------------------------------------------------------------------
# Streaming (ExposureAccumulator) and Dask arrays
# --------------------------------------------------------------------------


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("zero_division", [0.0, 1.0, np.nan])
def test_accumulator_batches_and_merge_equal_one_shot(ignore_ties, zero_division):
    from sklearn_rankk import ExposureAccumulator

    rng = np.random.default_rng(11)
    s = tied_scores(rng, 90, 25, levels=4, inf_share=0.3)
    s[5] = -np.inf  # a row with an empty list
    w = rng.random(90)
    pop = rng.integers(1, 30, size=25).astype(float)
    opts = dict(ignore_ties=ignore_ties)
    row_opts = dict(opts, sample_weight=w, zero_division=zero_division)
    want = {
        "catalog_coverage@4": catalog_coverage_at_k(s, k=4, **opts),
        "gini_index@4": gini_index_at_k(s, k=4, sample_weight=w, **opts),
        "entropy@4": entropy_at_k(s, k=4, sample_weight=w, **opts),
        "average_popularity@4": average_popularity_at_k(s, pop, k=4, **row_opts),
        "novelty@4": novelty_at_k(s, pop, k=4, **row_opts),
        "long_tail_share@4": long_tail_share_at_k(s, pop, k=4, tail=0.3, **row_opts),
    }
    params = dict(item_popularity=pop, tail=0.3, zero_division=zero_division, **opts)
    left = ExposureAccumulator(4, **params)
    right = ExposureAccumulator(4, **params)
    for start in range(0, 60, 25):
        left.update(s[start : min(start + 25, 60)], w[start : min(start + 25, 60)])
    right.update(s[60:], w[60:])
    got = left.merge(right).result()
    assert left.n_samples_ == 90
    assert set(got) == set(want)
    for name, value in want.items():
        assert got[name] == pytest.approx(value, rel=1e-12), name
    np.testing.assert_allclose(
        left.exposure_, item_exposure(s, k=4, sample_weight=w, **opts)
    )


def test_accumulator_errors():
    from sklearn_rankk import ExposureAccumulator

    acc = ExposureAccumulator(2)
    with pytest.raises(ValueError, match="no rows yet"):
        acc.result()
    acc.update(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="y_score has 4 items"):
        acc.update(np.zeros((2, 4)))
    with pytest.raises(ValueError, match="same parameters"):
        acc.merge(ExposureAccumulator(3))
    with pytest.raises(TypeError, match="takes an ExposureAccumulator"):
        acc.merge(object())
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        ExposureAccumulator(0)


def test_dask_arrays_are_read_block_by_block():
    da = pytest.importorskip("dask.array", reason="dask is not installed")
    rng = np.random.default_rng(12)
    s = tied_scores(rng, 60, 20)
    lazy = da.from_array(s, chunks=(16, 20))
    np.testing.assert_allclose(item_exposure(lazy, k=3), item_exposure(s, k=3))
    assert gini_index_at_k(lazy, k=3) == pytest.approx(gini_index_at_k(s, k=3))


def test_inputs_read_in_blocks_add_up():
    """Sparse scores of more than one block of rows (BLOCK_CELLS scores):
    the blocks' sums equal the dense matrix's, given whole."""
    s = scipy.sparse.random(2100, 1000, density=0.01, random_state=3, format="csr")
    s.data = np.round(s.data, 1)  # ties, also with the implicit zeros
    dense = s.toarray()
    np.testing.assert_allclose(item_exposure(s, k=5), item_exposure(dense, k=5))
    assert catalog_coverage_at_k(s, k=5) == pytest.approx(
        catalog_coverage_at_k(dense, k=5)
    )
