"""Out of core on one machine: memmap and row-sliceable scores, and the
streaming RankingAccumulator (batches, merge, pickling).

The reference for every number is the in-memory one-shot call on the same
rows (itself checked against brute force, sklearn and trec_eval elsewhere),
plus a numpy top-k oracle computed here for tie-free scores.
"""

import pickle
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import FUNCS
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rankk import (
    RankingAccumulator,
    get_scorer,
    ndcg_at_k_score,
    precision_at_k_score,
    recall_at_k_score,
)
from sklearn_rankk._core.ranking import BLOCK_CELLS
from sklearn_rankk._core.registry import METRICS

ALL_NAMES = [
    "precision@3",
    "recall@5",
    "f1@4",
    "hit@2",
    "mrr@5",
    "mrr",
    "map@5",
    "map",
    "dcg@3",
    "ndcg@5",
    "ndcg",
    "r_precision",
]


def _data(n, m, seed=0, ties=True):
    """Graded relevance with empty rows, scores with ties and -inf."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, size=(n, m)) * (rng.random((n, m)) < 0.15)
    y_true[rng.random(n) < 0.1] = 0  # rows with no relevant item
    if ties:
        y_score = rng.integers(0, 6, size=(n, m)).astype(np.float64)
        y_score[rng.random((n, m)) < 0.05] = -np.inf
    else:
        y_score = rng.random((n, m))
    return y_true, y_score


def _topk_oracle(y_true, y_score, k):
    """P@k and R@k of tie-free scores by a full argsort (numpy only)."""
    top = np.argsort(-y_score, axis=1, kind="stable")[:, :k]
    hits = np.take_along_axis(y_true > 0, top, axis=1).sum(axis=1)
    n_rel = (y_true > 0).sum(axis=1)
    return np.mean(hits / k), np.mean(hits[n_rel > 0] / n_rel[n_rel > 0])


def _memmap(path, array):
    mm = np.memmap(path, dtype=array.dtype, mode="w+", shape=array.shape)
    mm[:] = array
    mm.flush()
    return np.memmap(path, dtype=array.dtype, mode="r", shape=array.shape)


class RowSliceable:
    """A minimal out-of-core array: dtype, shape, ndim and row slicing only.

    It records every slice read and refuses to be converted whole.
    """

    def __init__(self, array):
        self._array = array
        self.dtype, self.shape, self.ndim = array.dtype, array.shape, array.ndim
        self.reads = []

    def __getitem__(self, key):
        assert isinstance(key, slice), key
        self.reads.append((key.start, key.stop))
        return np.array(self._array[key])

    def __array__(self, *args, **kwargs):
        raise AssertionError("the whole array was requested")


# ---------------------------------------------------------------------------
# memmap and row-sliceable scores
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "relevance, dtype",
    [
        ("dense", np.float32),
        ("csr", np.float64),
        ("memmap", np.float16),
        ("dense", np.int32),
    ],
)
def test_memmap_scores_equal_in_memory(tmp_path, relevance, dtype):
    # 1,600 x 700: 1,497 rows a block, so two blocks, the last partial.
    y_true, y_score = _data(1_600, 700)
    y_score = np.where(np.isinf(y_score), -1, y_score).astype(dtype)
    mm = _memmap(tmp_path / "scores.dat", y_score)
    if relevance == "csr":
        y_true_in = sp.csr_matrix(y_true)
    elif relevance == "memmap":
        y_true_in = _memmap(tmp_path / "relevance.dat", y_true)
    else:
        y_true_in = y_true
    scorer = get_scorer(ALL_NAMES, zero_division=np.nan)
    expected = scorer._score(y_true, y_score)
    got = scorer._score(y_true_in, mm)
    assert got == expected  # the same rows, the same blocks: bit-exact


def test_memmap_tie_free_against_numpy_oracle(tmp_path):
    y_true, y_score = _data(2_500, 900, seed=3, ties=False)
    mm = _memmap(tmp_path / "scores.dat", y_score.astype(np.float32))
    p, r = _topk_oracle(y_true, y_score.astype(np.float32), 7)
    assert precision_at_k_score(y_true, mm, k=7) == pytest.approx(p, rel=1e-12)
    assert recall_at_k_score(
        sp.csr_matrix(y_true), mm, k=7, zero_division=np.nan
    ) == pytest.approx(r, rel=1e-12)


def test_memmap_bounded_memory(tmp_path):
    # 40,000 x 1,000 float32 scores: 160 MB on disk, 40 blocks of 4 MB.
    # Bound: per-row outputs (9 bytes a row per metric) plus one block's
    # temporaries, far below one block's bytes here (k is small); a copy of
    # the matrix would be 160 MB.
    n, m = 40_000, 1_000
    rng = np.random.default_rng(1)
    path = tmp_path / "scores.dat"
    mm = np.memmap(path, dtype=np.float32, mode="w+", shape=(n, m))
    for start in range(0, n, 5_000):  # written by blocks: no 160 MB array here
        mm[start : start + 5_000] = rng.random((5_000, m), dtype=np.float32)
    mm.flush()
    del mm
    mm = np.memmap(path, dtype=np.float32, mode="r", shape=(n, m))
    per_row = 20
    cols = np.concatenate(
        [np.sort(rng.choice(m, per_row, replace=False)) for _ in range(n)]
    )
    # Canonical CSR with int64 indices, as the kernel reads it: no copy of
    # y_true either (O(nnz) otherwise), so the peak is the scores' alone.
    y_true = sp.csr_matrix(
        (np.ones(n * per_row), cols, np.arange(0, n * per_row + 1, per_row)),
        shape=(n, m),
    )
    y_true.indices = y_true.indices.astype(np.int64)
    y_true.indptr = y_true.indptr.astype(np.int64)
    assert y_true.has_canonical_format
    tracemalloc.start()
    try:
        value = recall_at_k_score(y_true, mm, k=10)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    block_bytes = BLOCK_CELLS * mm.dtype.itemsize
    assert peak < block_bytes, f"peak {peak / 1e6:.1f} MB"
    # Oracle on 500 rows: the top 10 columns by a full argsort.
    rows = slice(0, 500)
    top = np.argsort(-np.asarray(mm[rows]), axis=1)[:, :10]
    found = np.take_along_axis(y_true[rows].toarray() > 0, top, axis=1).sum(axis=1)
    head = recall_at_k_score(y_true[rows], mm[rows], k=10)
    assert head == pytest.approx(np.mean(found / per_row), rel=1e-12)
    assert 0 < value < 1


def test_row_sliceable_read_once_by_blocks():
    y_true, y_score = _data(2_000, 1_500, seed=2)
    lazy = RowSliceable(y_score)
    scorer = get_scorer(["ndcg@10", "map@5", "r_precision"], zero_division=0.0)
    got = scorer._score(sp.csr_matrix(y_true), lazy)
    assert got == scorer._score(y_true, y_score)
    # Every row read exactly once, in blocks of at most BLOCK_CELLS cells.
    step = BLOCK_CELLS // 1_500
    assert lazy.reads == [(s, min(s + step, 2_000)) for s in range(0, 2_000, step)]


def test_row_sliceable_nan_found_in_its_block(tmp_path):
    y_true, y_score = _data(3_000, 700)
    y_score[2_999, 5] = np.nan  # in the last block only
    with pytest.raises(ValueError, match="y_score contains NaN"):
        ndcg_at_k_score(y_true, RowSliceable(y_score), k=5)
    mm = _memmap(tmp_path / "scores.dat", y_score)
    with pytest.raises(ValueError, match="y_score contains NaN"):
        ndcg_at_k_score(y_true, mm, k=5)


def test_row_sliceable_metadata_errors():
    y_true, y_score = _data(10, 5)
    with pytest.raises(ValueError, match="y_score must be a 2-D"):
        ndcg_at_k_score(y_true[0], RowSliceable(y_score[0]), k=3)
    with pytest.raises(ValueError, match="y_score is empty"):
        ndcg_at_k_score(y_true[:0], RowSliceable(y_score[:0]), k=3)
    with pytest.raises(TypeError, match="y_score must be a numeric"):
        ndcg_at_k_score(y_true, RowSliceable(y_score.astype(str)), k=3)
    with pytest.raises(ValueError, match="same shape"):
        ndcg_at_k_score(y_true[:, :4], RowSliceable(y_score), k=3)


# ---------------------------------------------------------------------------
# RankingAccumulator
# ---------------------------------------------------------------------------


def _splits(n, rng):
    """Batch boundaries: one batch, single rows, and random cuts."""
    yield [0, n]
    yield list(range(n + 1))
    for _ in range(2):
        cuts = np.sort(
            rng.choice(np.arange(1, n), size=rng.integers(1, 8), replace=False)
        )
        yield [0, *cuts.tolist(), n]


def _names():
    names = []
    for name, info in METRICS.items():
        name = info.scorer_prefix + name  # a loss's scorer: "neg_..."
        if not info.needs_k:
            names.append(name)
            continue
        names += [f"{name}@1", f"{name}@4"]
        if info.allow_k_none:
            names.append(name)
    return names


def _one_shot(name, y_true, y_score, sample_weight, options):
    """The public metric function on all the rows at once (negated for the
    scorer of a loss)."""
    if name.startswith("neg_"):
        return -_one_shot(name[4:], y_true, y_score, sample_weight, options)
    metric, _, k = name.partition("@")
    kwargs = {
        key: value
        for key, value in options.items()
        if key in _COMMON or key in METRICS[metric].param_names
    }
    if METRICS[metric].needs_k:
        kwargs["k"] = int(k) if k else None
    return FUNCS[metric](y_true, y_score, sample_weight=sample_weight, **kwargs)


_COMMON = ("zero_division", "ignore_ties", "relevance_threshold")


OPTIONS = [
    {"zero_division": 0.0},
    {"zero_division": 1.0},
    {"zero_division": np.nan},
    {"zero_division": 0.0, "ignore_ties": True},
    {"zero_division": 1.0, "relevance_threshold": 1},
    {"zero_division": np.nan, "denominator": "retrieved", "gain": "exponential"},
    {"zero_division": 0.0, "denominator": "min", "log_base": 10},
]


@pytest.mark.parametrize("options", OPTIONS, ids=repr)
@pytest.mark.parametrize("weighted", [False, True])
def test_accumulator_equals_one_shot_for_every_metric(options, weighted):
    rng = np.random.default_rng(7)
    y_true, y_score = _data(40, 9, seed=5)
    weights = rng.random(40) * (rng.random(40) < 0.8) if weighted else None
    names = _names()
    expected = {
        name: _one_shot(name, y_true, y_score, weights, options) for name in names
    }
    results = []
    for cuts in _splits(40, rng):
        acc = RankingAccumulator(names, **options)
        for a, b in zip(cuts[:-1], cuts[1:]):
            batch_w = None if weights is None else weights[a:b]
            assert acc.update(y_true[a:b], y_score[a:b], batch_w) is acc
        assert acc.n_samples_ == 40
        results.append(acc.result())
    for name in names:
        np.testing.assert_allclose(
            [r[name] for r in results], expected[name], rtol=1e-12, err_msg=name
        )
    # Exact sums: the result does not depend on the batches at all.
    assert all(_nan_equal(r, results[0]) for r in results)


def _nan_equal(a, b):
    return a.keys() == b.keys() and all(
        a[k] == b[k] or (np.isnan(a[k]) and np.isnan(b[k])) for k in a
    )


def test_accumulator_merge_tree_and_pickle():
    rng = np.random.default_rng(11)
    y_true, y_score = _data(200, 30, seed=8)
    weights = rng.random(200)
    names = ["ndcg@10", "recall@5", "map", "r_precision"]
    options = {"zero_division": np.nan}
    one_shot = get_scorer(names, **options)._score(
        y_true, y_score, sample_weight=weights
    )
    # Eight "workers", each with a contiguous part; merged pairwise, after a
    # pickle round trip as between processes.
    cuts = [0, 13, 50, 51, 90, 120, 160, 199, 200]
    parts = []
    for a, b in zip(cuts[:-1], cuts[1:]):
        acc = RankingAccumulator(names, **options)
        acc.update(y_true[a:b], y_score[a:b], sample_weight=weights[a:b])
        parts.append(pickle.loads(pickle.dumps(acc)))
    while len(parts) > 1:
        parts = [parts[i].merge(parts[i + 1]) for i in range(0, len(parts), 2)]
    merged = parts[0].result()
    assert parts[0].n_samples_ == 200
    for name in names:
        assert merged[name] == pytest.approx(one_shot[name], rel=1e-12)
    # merge leaves the other accumulator unchanged
    a = RankingAccumulator(names, **options).update(y_true[:10], y_score[:10])
    b = RankingAccumulator(names, **options).update(y_true[10:], y_score[10:])
    before = b.result()
    a.merge(b)
    assert b.result() == before and b.n_samples_ == 190


def test_accumulator_warns_once_with_the_total_count():
    y_true, y_score = _data(50, 8, seed=4)
    n_empty = int(np.sum((y_true > 0).sum(axis=1) == 0))
    assert 0 < n_empty < 50
    acc = RankingAccumulator(["recall@3", "ndcg@3", "precision@3"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # update never warns
        for a in range(0, 50, 7):
            acc.update(y_true[a : a + 7], y_score[a : a + 7])
    with pytest.warns(UndefinedMetricWarning) as record:
        result = acc.result()
    messages = [str(w.message) for w in record]
    # One warning for the call (issue 28), naming recall and ndcg; precision
    # is never undefined.
    assert len(messages) == 1
    assert f"in {n_empty} of 50 samples" in messages[0]
    assert messages[0].startswith("recall@3, ndcg@3 are ill-defined")
    assert record[0].filename == __file__  # attributed to the caller
    with pytest.warns(UndefinedMetricWarning):
        expected = recall_at_k_score(y_true, y_score, k=3)
    assert result["recall@3"] == pytest.approx(expected, rel=1e-12)


def test_accumulator_every_row_left_out_is_nan():
    y_true, y_score = _data(10, 5)
    y_true[:] = 0
    acc = RankingAccumulator(["recall@2", "hit@2"], zero_division=np.nan)
    acc.update(y_true[:4], y_score[:4]).update(y_true[4:], y_score[4:])
    result = acc.result()
    # nan leaves out the rows with no relevant item for every metric.
    assert np.isnan(result["recall@2"]) and np.isnan(result["hit@2"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "warn": hit is 0 there, silently
        assert RankingAccumulator("hit@2").update(y_true, y_score).result() == {
            "hit@2": 0.0
        }
    assert np.isnan(recall_at_k_score(y_true, y_score, k=2, zero_division=np.nan))


def test_accumulator_zero_weight_batches():
    y_true, y_score = _data(30, 6, seed=9)
    w = np.ones(30)
    w[:10] = 0  # the first batch weighs nothing
    acc = RankingAccumulator("ndcg@3", zero_division=0.0)
    acc.update(y_true[:10], y_score[:10], np.zeros(10))
    acc.update(y_true[10:], y_score[10:], np.ones(20))
    expected = ndcg_at_k_score(y_true, y_score, k=3, sample_weight=w, zero_division=0.0)
    assert acc.result()["ndcg@3"] == pytest.approx(expected, rel=1e-12)
    # Batches without weights weigh each row 1.
    mixed = RankingAccumulator("ndcg@3", zero_division=0.0)
    mixed.update(y_true[:10], y_score[:10], np.zeros(10)).update(
        y_true[10:], y_score[10:]
    )
    assert mixed.result() == acc.result()
    only_zero = RankingAccumulator("ndcg@3").update(y_true, y_score, np.zeros(30))
    with pytest.raises(ValueError, match="at least one positive weight"):
        only_zero.result()
    # Other weight errors are the one-shot call's.
    with pytest.raises(ValueError, match="non-negative"):
        acc.update(y_true[:2], y_score[:2], [-1.0, 1.0])
    with pytest.raises(ValueError, match="sample_weight has 3 entries"):
        acc.update(y_true[:2], y_score[:2], [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="finite"):
        acc.update(y_true[:2], y_score[:2], [np.nan, 1.0])


def test_accumulator_class_labels_and_sparse_batches():
    rng = np.random.default_rng(3)
    labels = np.array(["a", "b", "c", "d"])
    y = labels[rng.integers(0, 4, 40)]
    y_score = rng.random((40, 4))
    acc = RankingAccumulator(["hit@1", "mrr"])
    for a in range(0, 40, 3):  # batches of 3 rows cannot hold every class
        acc.update(y[a : a + 3], y_score[a : a + 3], labels=labels)
    expected = get_scorer(["hit@1", "mrr"])._score(y, y_score, labels=labels)
    assert acc.result() == pytest.approx(expected, rel=1e-12)
    y_true, y_score = _data(40, 12, seed=6)
    sparse = RankingAccumulator(["map@4"], zero_division=1.0)
    for a in range(0, 40, 9):
        sparse.update(sp.csr_matrix(y_true[a : a + 9]), y_score[a : a + 9])
    expected = get_scorer(["map@4"], zero_division=1.0)._score(y_true, y_score)
    assert sparse.result() == pytest.approx(expected, rel=1e-12)


def test_accumulator_state_does_not_grow():
    y_true, y_score = _data(300, 5, seed=1)
    acc = RankingAccumulator(["ndcg@3", "recall@2"], zero_division=0.0)
    sizes = []
    for i in range(300):
        acc.update(y_true[i : i + 1], y_score[i : i + 1], [1.0 + i % 3])
        if i in (9, 299):
            sizes.append(len(pickle.dumps(acc)))
    assert sizes[1] - sizes[0] < 200, sizes


def test_accumulator_errors():
    y_true, y_score = _data(6, 4)
    with pytest.raises(ValueError, match="call update"):
        RankingAccumulator("ndcg@3").result()
    with pytest.raises(ValueError, match="Unknown scorer name"):
        RankingAccumulator("ndgc@3")
    with pytest.raises(TypeError, match="response_method"):
        RankingAccumulator("ndcg@3", response_method="predict")
    with pytest.raises(TypeError, match="Unexpected keyword"):
        RankingAccumulator("ndcg@3", k=3)
    acc = RankingAccumulator(["ndcg@3"], zero_division=np.nan)
    same = RankingAccumulator("ndcg@3", zero_division=float("nan"))
    acc.merge(same)  # the same configuration, however spelled
    for other in [
        RankingAccumulator(["ndcg@3"]),
        RankingAccumulator(["ndcg@3"], zero_division=np.nan, gain="exponential"),
        RankingAccumulator(["ndcg@4"], zero_division=np.nan),
        RankingAccumulator(["ndcg@3", "hit@1"], zero_division=np.nan),
    ]:
        with pytest.raises(ValueError, match="Cannot merge"):
            acc.merge(other)
    with pytest.raises(TypeError, match="RankingAccumulator"):
        acc.merge({"ndcg@3": 0.5})
    with pytest.raises(ValueError, match="same shape"):
        acc.update(y_true[:, :3], y_score)
    assert acc.n_samples_ == 0
    assert repr(acc) == "RankingAccumulator(['ndcg@3'], zero_division=float('nan'))"


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_random_baseline_of_a_memmap_is_read_by_blocks(tmp_path, dtype):
    from sklearn_rankk import random_baseline_test, ranking_report
    from sklearn_rankk._core.inputs import random_ranking_scores
    from sklearn_rankk._core.validation import is_row_sliceable

    rng = np.random.default_rng(3)
    dense = rng.normal(size=(300, 50)).astype(dtype)
    dense[rng.random(dense.shape) < 0.2] = -np.inf
    y_true = (rng.random(dense.shape) < 0.2).astype(int)
    path = tmp_path / "scores.bin"
    mm = np.memmap(path, dtype=dtype, mode="w+", shape=dense.shape)
    mm[:] = dense
    mm.flush()
    mm = np.memmap(path, dtype=dtype, mode="r", shape=dense.shape)
    constant = random_ranking_scores(mm)
    assert is_row_sliceable(constant)  # a view made block by block
    block = constant[10:20]
    np.testing.assert_array_equal(block == -np.inf, np.isneginf(dense[10:20]))
    assert np.all(block[np.isfinite(block)] == 0)
    a = ranking_report(y_true, mm, k=[1, 5], random_baseline=True, zero_division=0.0)
    b = ranking_report(y_true, dense, k=[1, 5], random_baseline=True, zero_division=0.0)
    assert a.scores == b.scores
    assert a.random == pytest.approx(b.random, rel=1e-12)
    # E[P@5] = |R retrieved| * min(5, N) / N / 5 row by row, in closed form
    finite = np.isfinite(dense)
    n = finite.sum(axis=1)
    r = (finite & (y_true > 0)).sum(axis=1)
    expected = np.mean(np.where(n > 0, r * np.minimum(5, n) / np.maximum(n, 1) / 5, 0))
    assert a.random["precision@5"] == pytest.approx(expected, rel=1e-12)
    test = random_baseline_test(y_true, mm, k=5)
    assert test.expected == pytest.approx(expected, rel=1e-12)
