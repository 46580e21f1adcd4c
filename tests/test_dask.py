"""Dask inputs (dense and sparse chunks, class labels, mixed with in-memory
inputs), on the local scheduler and on a LocalCluster of two processes
(loopback only), and scorers in GridSearchCV under joblib's dask backend.

The reference for every number is the in-memory call on the computed
arrays (itself checked against brute force, sklearn and trec_eval
elsewhere); the per-row values are the same, so the means are equal with
``==``.
"""

import logging
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rankk import (
    RankingAccumulator,
    get_scorer,
    hit_at_k_score,
    map_at_k_score,
    mrr_at_k_score,
    ndcg_at_k_score,
    ranking_report,
    recall_at_k_score,
)

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

NAMES = [
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


def _data(n=200, m=30, seed=0):
    """Graded relevance with empty rows; scores with ties and -inf."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, size=(n, m)) * (rng.random((n, m)) < 0.15)
    y_true[rng.random(n) < 0.1] = 0
    y_score = rng.integers(0, 6, size=(n, m)).astype(np.float64)
    y_score[rng.random((n, m)) < 0.05] = -np.inf
    return y_true, y_score, rng.random(n)


@pytest.fixture(autouse=True)
def local_scheduler():
    # The threaded scheduler unless a test sends its work to the cluster.
    with dask.config.set(scheduler="threads"):
        yield


@pytest.mark.parametrize(
    "chunks",
    [(37, 30), (50, 7), (200, 30), (1, 30)],
    ids=["rows", "columns split", "one chunk", "single rows"],
)
@pytest.mark.parametrize("options", [{"zero_division": np.nan}, {"ignore_ties": True}])
def test_dense_dask_equals_in_memory(chunks, options):
    y_true, y_score, w = _data()
    scorer = get_scorer(NAMES, **({"zero_division": 0.0} | options))
    expected = scorer._score(y_true, y_score, sample_weight=w)
    got = scorer._score(
        da.from_array(y_true, chunks=chunks),
        da.from_array(y_score, chunks=(chunks[0] + 3, chunks[1])),
        sample_weight=da.from_array(w, chunks=chunks[0] + 5),
    )
    assert got == expected


@pytest.mark.parametrize("how", ["from_array csr", "map_blocks", "csr_array"])
def test_row_chunked_sparse_relevance(how):
    y_true, y_score, w = _data(seed=1)
    if how == "from_array csr":
        y_true_d = da.from_array(sp.csr_matrix(y_true), chunks=(29, 30), asarray=False)
    elif how == "csr_array":
        y_true_d = da.from_array(sp.csr_array(y_true), chunks=(64, 30), asarray=False)
    else:  # sparse chunks split over the columns too: rechunked to whole rows
        y_true_d = da.from_array(y_true, chunks=(40, 10)).map_blocks(sp.csr_matrix)
    assert sp.issparse(y_true_d.blocks[0].compute())
    scorer = get_scorer(NAMES, zero_division=1.0)
    got = scorer._score(y_true_d, da.from_array(y_score, chunks=(50, 30)))
    assert got == scorer._score(sp.csr_matrix(y_true), y_score)


def test_per_row_values_come_back_as_numpy():
    y_true, y_score, _ = _data(seed=2)
    got = map_at_k_score(
        da.from_array(y_true, chunks=(33, 30)),
        da.from_array(y_score, chunks=(33, 30)),
        k=5,
        average=None,
        zero_division=np.nan,
    )
    expected = map_at_k_score(y_true, y_score, k=5, average=None, zero_division=np.nan)
    assert type(got) is np.ndarray and got.dtype == np.float64
    np.testing.assert_array_equal(got, expected)


def test_mixed_dask_and_in_memory_inputs():
    y_true, y_score, w = _data(seed=3)
    kwargs = {"k": 5, "zero_division": 1.0}
    expected = ndcg_at_k_score(y_true, y_score, sample_weight=w, **kwargs)
    y_true_d = da.from_array(y_true, chunks=(41, 30))
    y_score_d = da.from_array(y_score, chunks=(41, 30))
    w_d = da.from_array(w, chunks=60)
    for args in [
        (y_true, y_score_d, w),
        (sp.csr_matrix(y_true), y_score_d, w_d),
        (y_true_d, y_score, w),  # the scores are in memory: so is the work
        (y_true, y_score, w_d),
    ]:
        got = ndcg_at_k_score(args[0], args[1], sample_weight=args[2], **kwargs)
        assert got == expected


def test_class_labels():
    rng = np.random.default_rng(4)
    classes = np.array(["ant", "bee", "cat", "dog", "eel"], dtype=object)
    y = classes[rng.integers(0, 5, 120)]
    y_score = rng.random((120, 5))
    y_d = da.from_array(y, chunks=7)  # blocks of 7 rows miss classes
    y_score_d = da.from_array(y_score, chunks=(10, 5))
    for labels in [None, list(classes)]:
        for f, k in [(hit_at_k_score, 2), (mrr_at_k_score, None)]:
            expected = f(y, y_score, k=k, labels=labels)
            assert f(y_d, y_score_d, k=k, labels=labels) == expected
    with pytest.raises(ValueError, match="Number of classes in y_true"):
        hit_at_k_score(y_d[:3], y_score_d[:3], k=1)  # only some classes
    with pytest.raises(ValueError, match="not found in labels"):
        hit_at_k_score(y_d, y_score_d, k=1, labels=["ant", "bee", "cat", "dog", "fox"])


def test_dask_dataframe_inputs():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    y_true, y_score, w = _data(seed=5)
    frame = dd.from_pandas(pd.DataFrame(y_score), npartitions=3)
    weights = dd.from_pandas(pd.Series(w), npartitions=4)
    expected = recall_at_k_score(
        y_true, y_score, k=5, sample_weight=w, zero_division=np.nan
    )
    got = recall_at_k_score(
        da.from_array(y_true, chunks=(70, 30)),
        frame,
        k=5,
        sample_weight=weights,
        zero_division=np.nan,
    )
    assert got == expected


def test_zero_division_warns_once_with_the_total_count():
    y_true, y_score, _ = _data(seed=6)
    n_empty = int(np.sum((y_true > 0).sum(axis=1) == 0))
    assert n_empty > 0
    with pytest.warns(UndefinedMetricWarning) as record:
        value = recall_at_k_score(
            da.from_array(y_true, chunks=(20, 30)),
            da.from_array(y_score, chunks=(20, 30)),
            k=3,
        )
    assert len(record) == 1
    assert f"in {n_empty} of 200 samples" in str(record[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        assert value == recall_at_k_score(y_true, y_score, k=3)


def test_errors_name_the_input():
    y_true, y_score, w = _data(seed=7)
    y_true_d = da.from_array(y_true, chunks=(50, 30))
    y_score_d = da.from_array(y_score, chunks=(50, 30))
    with pytest.raises(ValueError, match="same shape"):
        ndcg_at_k_score(y_true_d[:, :29], y_score_d, k=3)
    with pytest.raises(ValueError, match="same shape"):
        ndcg_at_k_score(y_true_d[:199], y_score_d, k=3)
    with pytest.raises(ValueError, match="y_score must be a 2-D"):
        ndcg_at_k_score(y_true_d[0], y_score_d[0], k=3)
    with pytest.raises(ValueError, match="y_score is empty"):
        ndcg_at_k_score(y_true_d[:0], y_score_d[:0], k=3)
    bad = y_score.copy()
    bad[187, 4] = np.nan  # found in its block, on the worker
    with pytest.raises(ValueError, match="y_score contains NaN"):
        ndcg_at_k_score(y_true_d, da.from_array(bad, chunks=(50, 30)), k=3)
    bad_true = y_true.astype(float)
    bad_true[150, 2] = np.nan  # found in its block, on the worker
    with pytest.raises(ValueError, match="y_true contains NaN"):
        ndcg_at_k_score(da.from_array(bad_true, chunks=(50, 30)), y_score_d, k=3)
    with pytest.raises(ValueError, match="sample_weight has 199"):
        ndcg_at_k_score(y_true_d, y_score_d, k=3, sample_weight=w[:199])
    with pytest.raises(ValueError, match="labels is only used with 1-D"):
        ndcg_at_k_score(y_true_d, y_score_d, k=3, labels=list(range(30)))
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        ndcg_at_k_score(y_true_d, y_score_d[y_score_d[:, 0] > 0], k=3)
    with pytest.raises(TypeError, match="ignore_ties"):
        ndcg_at_k_score(y_true_d, y_score_d, k=3, ignore_ties="no")


def test_each_task_gets_whole_rows_of_one_block(monkeypatch):
    import sklearn_rankk._parallel.dask_inputs as dask_module

    seen = []
    block_values = dask_module._block_values

    def spy(requests, y_true, y_score, labels, options):
        seen.append((sp.issparse(y_true), y_true.shape, type(y_score), y_score.shape))
        return block_values(requests, y_true, y_score, labels, options)

    monkeypatch.setattr(dask_module, "_block_values", spy)
    y_true, y_score, _ = _data(seed=8)
    y_true_d = da.from_array(sp.csr_matrix(y_true), chunks=(25, 30), asarray=False)
    with dask.config.set(scheduler="sync"):
        y_score_d = da.from_array(y_score, chunks=(25, 30))
        got = map_at_k_score(y_true_d, y_score_d, k=4, zero_division=0.0)
    assert got == map_at_k_score(y_true, y_score, k=4, zero_division=0.0)
    assert sorted(s[1] for s in seen) == [(25, 30)] * 8
    assert all(sparse for sparse, *_ in seen)
    assert all(s is np.ndarray and shape == (25, 30) for *_, s, shape in seen)


def test_blocks_run_the_kernel_on_one_thread_each(monkeypatch):
    # dask runs blocks in parallel: one OpenMP thread each, as distributed's
    # workers do; the caller's thread keeps its own setting.
    from sklearn_rankk._core import _kernel
    from sklearn_rankk._core import ranking as _topk

    seen = []
    n_threads = _topk.n_threads

    def spy():
        seen.append(n_threads())
        return seen[-1]

    monkeypatch.setattr(_topk, "n_threads", spy)
    before = _kernel.max_threads()
    # (blocks of 70,000 scores: smaller ones run on one thread without
    # asking n_threads)
    y_true, y_score, _ = _data(m=1400, seed=11)
    got = hit_at_k_score(
        da.from_array(y_true, chunks=(50, 1400)),
        da.from_array(y_score, chunks=(50, 1400)),
        k=3,
    )
    assert got == hit_at_k_score(y_true, y_score, k=3)
    assert seen[:4] == [1, 1, 1, 1] and _kernel.max_threads() == before
    assert seen[4:] == [before] * (len(seen) - 4)  # the in-memory call


def test_ranking_report_and_accumulator_take_dask():
    y_true, y_score, w = _data(seed=9)
    y_true_d = da.from_array(y_true, chunks=(45, 30))
    y_score_d = da.from_array(y_score, chunks=(45, 15))
    options = {"k": [1, 5], "zero_division": 0.0, "random_baseline": True}
    expected = ranking_report(y_true, y_score, sample_weight=w, **options)
    got = ranking_report(y_true_d, y_score_d, sample_weight=w, **options)
    assert got.to_dict() == expected.to_dict()
    acc = RankingAccumulator(["ndcg@5", "map"], zero_division=0.0)
    acc.update(y_true_d[:100], y_score_d[:100]).update(y_true[100:], y_score[100:])
    one_shot = get_scorer(["ndcg@5", "map"], zero_division=0.0)._score(y_true, y_score)
    assert acc.result() == pytest.approx(one_shot, rel=1e-12)


def test_dask_is_imported_only_for_dask_inputs():
    code = (
        "import sys, numpy as np, scipy.sparse as sp\n"
        "import sklearn_rankk as rk\n"
        "rk.ndcg_at_k_score(sp.csr_matrix([[1, 0]]), np.array([[0.2, 0.1]]), k=1)\n"
        "rk.get_scorer(['hit@1', 'map'])._score([[1, 0]], [[0.2, 0.1]])\n"
        "loaded = {m.split('.')[0] for m in sys.modules}\n"
        "print(sorted(loaded & {'dask', 'distributed'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------------------
# On a LocalCluster: two worker processes, loopback only
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    with cluster, distributed.Client(cluster, set_as_default=False) as client:
        yield client


def _csr_block(block_info=None):
    """Relevance of one block of rows, generated where it is used."""
    info = block_info[None]
    (start, stop), (_, m) = info["array-location"]
    rng = np.random.default_rng(start)
    n = stop - start
    cols = np.sort(rng.random((n, m)).argsort(axis=1)[:, :4], axis=1).ravel()
    return sp.csr_matrix(
        (rng.integers(1, 3, n * 4), cols, np.arange(0, n * 4 + 1, 4)), shape=(n, m)
    )


def test_on_a_cluster_lazily_generated_blocks(client):
    n, m, rows = 600, 50, 100
    y_score = da.random.default_rng(0).random((n, m), chunks=(rows, m))
    y_score = da.where(y_score < 0.02, -np.inf, da.round(y_score * 20))  # ties
    y_true = da.map_blocks(
        _csr_block,
        chunks=((rows,) * (n // rows), (m,)),
        dtype=np.int64,
        meta=sp.csr_matrix((0, 0), dtype=np.int64),
    )
    scorer = get_scorer(NAMES, zero_division=np.nan)
    distributed = pytest.importorskip("distributed")
    on_cluster = dask.config.set(scheduler=client)
    with on_cluster, distributed.get_task_stream(client) as stream:
        got = scorer._score(y_true, y_score)
    ran = {t["worker"] for t in stream.data if "_block_values" in str(t["key"])}
    assert len(ran) == 2, "both workers evaluated blocks"
    y_true_all, y_score_all = dask.compute(y_true, y_score, scheduler=client)
    assert sp.issparse(y_true_all)
    assert got == scorer._score(y_true_all, y_score_all)


def test_on_a_cluster_accumulators_merge(client):
    y_true, y_score, w = _data(seed=10)
    names = ["ndcg@5", "recall@3", "r_precision"]

    def part(start, stop):
        acc = RankingAccumulator(names, zero_division=np.nan)
        return acc.update(y_true[start:stop], y_score[start:stop], w[start:stop])

    futures = client.map(part, [0, 70, 150], [70, 150, 200])
    parts = [pickle.loads(pickle.dumps(p)) for p in client.gather(futures)]
    merged = parts[0].merge(parts[1]).merge(parts[2])
    one_shot = get_scorer(names, zero_division=np.nan)._score(
        y_true, y_score, sample_weight=w
    )
    assert merged.n_samples_ == 200
    assert merged.result() == pytest.approx(one_shot, rel=1e-12)


def test_grid_search_under_the_dask_joblib_backend(client):
    import joblib
    from sklearn.datasets import load_digits
    from sklearn.model_selection import GridSearchCV
    from sklearn.neighbors import KNeighborsClassifier

    X, y = load_digits(return_X_y=True)
    X, y = X[:600], y[:600]
    scoring = get_scorer(["ndcg@3", "hit@1", "mrr"])

    def search(n_jobs):
        return GridSearchCV(
            KNeighborsClassifier(),
            {"n_neighbors": [3, 9], "weights": ["uniform", "distance"]},
            scoring=scoring,
            refit="ndcg@3",
            cv=3,
            n_jobs=n_jobs,
        ).fit(X, y)

    local = search(None)
    distributed = pytest.importorskip("distributed")
    backend = joblib.parallel_backend("dask", client=client)
    with distributed.get_task_stream(client) as stream, backend:
        remote = search(-1)
    assert any("fit_and_score" in str(t["key"]) for t in stream.data)
    for key, value in local.cv_results_.items():
        if "time" in key:
            continue
        if key == "params":
            assert remote.cv_results_[key] == value
        else:
            np.testing.assert_array_equal(remote.cv_results_[key], value, err_msg=key)
    assert remote.best_params_ == local.best_params_
