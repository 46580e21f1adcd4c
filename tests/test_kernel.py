"""The compiled kernel against the numpy reference it replaced.

The reference below is the package's former numpy implementation of the
top-k selection (``np.partition`` per row, ties by column order) plus plain
numpy reads of the relevance; the kernel must return exactly the same ranks,
tie groups and relevance sums, for dense and CSR relevance, float32 and
float64 scores, ties, ``-inf`` and ``K`` up to the whole row, with one and two
threads.
"""

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from sklearn_rankk import num_threads
from sklearn_rankk._core import ranking as _topk
from sklearn_rankk._core.ranking import RelevanceSource, n_threads, rank_block


def reference_top_k(scores, K):
    """Columns of the top K (score desc, column asc), tie-group starts/sizes."""
    n, m = scores.shape
    kth = np.partition(scores, m - K, axis=1)[:, m - K] if m > K else scores.min(1)
    above = scores > kth[:, None]
    tied = scores == kth[:, None]
    room = K - above.sum(1)
    rank_in_tie = np.cumsum(tied, axis=1)
    selected = above | (tied & (rank_in_tie <= room[:, None]))
    cols = np.nonzero(selected)[1].reshape(n, K)
    sel = np.take_along_axis(scores, cols, axis=1)
    order = K - 1 - np.argsort(sel[:, ::-1], axis=1, kind="stable")[:, ::-1]
    cols = np.take_along_axis(cols, order, axis=1)
    sel = np.take_along_axis(sel, order, axis=1)
    gstart = np.zeros((n, K), dtype=int)
    gsize = np.zeros((n, K), dtype=int)
    for i in range(n):  # plain loops: the reference must be obviously right
        start = 0
        for p in range(K):
            if p and sel[i, p] != sel[i, p - 1]:
                start = p
            gstart[i, p] = start
        for p in range(K):
            gsize[i, p] = np.count_nonzero(scores[i] == sel[i, p])
    return cols, sel, gstart, gsize, tied


def reference(y_true, scores, K, threshold):
    dense = y_true.toarray() if sp.issparse(y_true) else np.asarray(y_true)
    dense = dense.astype(np.float64)
    cols, values, gstart, gsize, tied = reference_top_k(scores, K)
    relevant = dense > threshold
    gain = np.where(relevant, dense, 0.0)
    ideal = -np.sort(-gain, axis=1)[:, :K]
    return {
        "cols": cols,
        "valid": values > -np.inf,
        "gstart": gstart,
        "gsize": gsize,
        "grade": np.take_along_axis(dense, cols, axis=1),
        "n_relevant": relevant.sum(1),
        "tied_relevant": (relevant & tied).sum(1),
        "tied_gain": (gain * tied).sum(1),
        "tied_gain_exp": ((np.exp2(gain) - 1) * tied).sum(1),
        "ideal": ideal,
    }


def cases():
    for seed in range(12):
        rng = np.random.default_rng(seed)
        n, m = int(rng.integers(1, 30)), int(rng.integers(1, 60))
        levels = int(rng.integers(1, 6))
        scores = rng.integers(0, levels, size=(n, m)).astype(float)
        if seed % 3:
            scores += rng.random((n, m)) * (seed % 2)  # tie-free rows too
        scores[rng.random((n, m)) < 0.15] = -np.inf
        if seed % 4 == 0:
            scores = scores.astype(np.float32)
        y = rng.integers(0, 4, size=(n, m)) * (rng.random((n, m)) < 0.4)
        for K in sorted({1, min(3, m), m // 2 or 1, m}):
            yield seed, y, scores, K


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "form", ["dense", "bool", "float32", "uint16", "csr", "csr_bool", "csc"]
)
def test_kernel_matches_numpy_reference(form, threads, monkeypatch):
    # The cases are small: make every block worth both threads.
    monkeypatch.setattr(_topk, "MIN_CELLS_PER_THREAD", 1)
    for seed, y, scores, K in cases():
        threshold = 1.0 if seed % 2 else 0.0
        if form == "bool":
            y, threshold = y > 0, 0.0
        converted = {
            "dense": y,
            "bool": y,
            "float32": y.astype(np.float32),
            "uint16": y.astype(np.uint16),
            "csr": sp.csr_matrix(y),
            "csr_bool": sp.csr_matrix(y > 0),
            "csc": sp.csc_matrix(y).tocsr(),
        }[form]
        if form == "csr_bool":
            y, threshold = y > 0, 0.0
        source = RelevanceSource(converted, threshold)
        expected = reference(y, scores, K, threshold)
        rows = slice(0, scores.shape[0])
        with num_threads(threads):
            got = rank_block(
                source,
                scores,
                rows,
                K,
                ignore_ties=False,
                want_ideal=True,
                exponential=True,
            )
        for name, value in expected.items():
            np.testing.assert_allclose(
                getattr(got, name), value, err_msg=f"{name}, seed {seed}, K {K}"
            )


@pytest.mark.parametrize("K", [5, 64, 65, 100, 124, 125, 400, 1000])
def test_every_selection_path(K):
    # K <= 64 with K * 8 < row: sorted buffer; larger K: heap; K * 8 >= row:
    # selection over the whole row. Rows of 1000 with ties and -inf.
    rng = np.random.default_rng(K)
    scores = rng.integers(0, 150, size=(20, 1000)).astype(float)
    scores[rng.random((20, 1000)) < 0.1] = -np.inf
    scores[0] = 1.0  # one row all tied
    y = rng.integers(0, 3, size=(20, 1000))
    expected = reference(y, scores, K, 0.0)
    for ignore_ties in (False, True):
        got = rank_block(
            RelevanceSource(y, 0.0),
            scores,
            slice(0, 20),
            K,
            ignore_ties=ignore_ties,
            want_ideal=True,
            exponential=False,
        )
        np.testing.assert_array_equal(got.cols, expected["cols"])
        np.testing.assert_array_equal(got.grade, expected["grade"])
        np.testing.assert_array_equal(got.ideal, expected["ideal"])
        if not ignore_ties:
            np.testing.assert_array_equal(got.gsize, expected["gsize"])
            np.testing.assert_array_equal(got.tied_relevant, expected["tied_relevant"])


def test_ignore_ties_groups_are_single_ranks():
    scores = np.array([[1.0, 1.0, 1.0, 0.5]])
    got = rank_block(
        RelevanceSource(np.ones((1, 4)), 0.0),
        scores,
        slice(0, 1),
        3,
        ignore_ties=True,
        want_ideal=False,
        exponential=False,
    )
    assert got.cols.tolist() == [[0, 1, 2]]
    assert got.gstart.tolist() == [[0, 1, 2]] and got.gsize.tolist() == [[1, 1, 1]]


def test_csr_rows_are_read_at_the_block_offset():
    rng = np.random.default_rng(0)
    y = (rng.random((50, 20)) < 0.3).astype(int)
    scores = rng.random((50, 20))
    source = RelevanceSource(sp.csr_matrix(y), 0.0)
    for rows in (slice(0, 10), slice(10, 37), slice(37, 50)):
        got = rank_block(
            source,
            scores,
            rows,
            5,
            ignore_ties=False,
            want_ideal=False,
            exponential=False,
        )
        expected = reference(y[rows], scores[rows], 5, 0.0)
        np.testing.assert_array_equal(got.grade, expected["grade"])
        np.testing.assert_array_equal(got.n_relevant, expected["n_relevant"])


def test_threads_follow_threadpoolctl_and_the_explicit_setting():
    with threadpool_limits(limits=1, user_api="openmp"):
        assert n_threads() == 1
    with num_threads(1):
        assert n_threads() == 1
    with pytest.raises(ValueError, match="positive integer"), num_threads(0):
        pass


@pytest.mark.parametrize("cells, expected", [(100, 1), (1 << 20, 2)])
def test_small_blocks_run_on_one_thread(cells, expected, monkeypatch):
    seen = []
    real = _topk._kernel.rank_dense

    def spy(*args):
        seen.append(args[-1])
        return real(*args)

    monkeypatch.setattr(_topk._kernel, "rank_dense", spy)
    scores = np.zeros((cells // 100, 100))
    source = RelevanceSource(np.ones_like(scores), 0.0)
    with num_threads(2):
        rank_block(
            source,
            scores,
            slice(0, scores.shape[0]),
            3,
            ignore_ties=True,
            want_ideal=False,
            exponential=False,
        )
    assert seen == [min(expected, n_threads())]


def _threads_in_worker():
    return n_threads()


def test_no_oversubscription_in_joblib_workers():
    # loky workers (GridSearchCV(n_jobs=2)) get cpu_count // n_jobs threads.
    got = joblib.Parallel(n_jobs=2, backend="loky")(
        joblib.delayed(_threads_in_worker)() for _ in range(2)
    )
    cpus = joblib.cpu_count()
    assert all(t <= max(1, cpus // 2) for t in got)


def test_kernel_checks_its_arguments():
    from sklearn_rankk._core import _kernel

    scores, y = np.zeros((2, 5)), np.zeros((2, 5), dtype=np.uint8)
    row_k = np.full(2, 2, dtype=np.int64)
    for K in (0, 6):
        with pytest.raises(ValueError, match="K must be"):
            _kernel.rank_dense(scores, y, K, row_k, True, 0.0, False, False, 1)
    with pytest.raises(ValueError, match="row_k"):
        _kernel.rank_dense(scores, y, 2, row_k + 1, True, 0.0, False, False, 1)
    with pytest.raises(ValueError, match="same shape"):
        _kernel.rank_dense(
            scores, y[:, :3].copy(), 2, row_k, True, 0.0, False, False, 1
        )
    indptr = np.zeros(2, dtype=np.int64)  # covers one row, not two
    with pytest.raises(ValueError, match="indptr"):
        _kernel.rank_csr(
            scores,
            indptr,
            np.zeros(0, np.int64),
            np.zeros(0),
            0,
            2,
            row_k,
            True,
            0.0,
            False,
            False,
            1,
        )


def test_rows_ranked_to_their_own_depth():
    # R-precision ranks each row to its |R|: a row ranked to depth 2 inside a
    # block of depth 4 has the same first two ranks and tie groups as alone.
    rng = np.random.default_rng(5)
    scores = rng.integers(0, 3, size=(30, 12)).astype(float)
    y = rng.integers(0, 2, size=(30, 12))
    row_k = rng.integers(1, 13, size=30)
    source = RelevanceSource(y, 0.0)
    got = rank_block(
        source,
        scores,
        slice(0, 30),
        row_k,
        ignore_ties=False,
        want_ideal=False,
        exponential=False,
    )
    for i, kr in enumerate(row_k):
        alone = reference(y[i : i + 1], scores[i : i + 1], int(kr), 0.0)
        np.testing.assert_array_equal(got.cols[i, :kr], alone["cols"][0])
        np.testing.assert_array_equal(got.gsize[i, :kr], alone["gsize"][0])
        assert got.tied_relevant[i] == alone["tied_relevant"][0]
        assert not got.valid[i, kr:].any()


INTEGER_DTYPES = ["u1", "i1", "i2", "u2", "i4", "u4", "i8", "u8"]


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_integer_grades_against_thresholds_at_the_type_limits(dtype):
    """Integer grades are compared with floor(threshold) in their own type;
    thresholds below, inside and beyond the type's range all count as the
    float comparison y > threshold does."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(0)
    values = np.array(
        [info.min, info.min + 1, 0, 1, 2, 3, info.max - 1, info.max], dtype=dtype
    )
    y = rng.choice(values, size=(12, 9)).astype(dtype)
    scores = rng.integers(0, 4, size=y.shape).astype(np.float64)
    thresholds = [
        float(info.min) - 1.5,
        float(info.min) - 0.5,
        float(info.min),
        -0.5,
        0.0,
        0.5,
        2.7,
        float(info.max) - 0.5,
        float(info.max),
        float(info.max) + 1.0,
    ]
    for threshold in thresholds:
        with np.errstate(over="ignore", invalid="ignore"):  # 2**grade: unused
            expected = reference(y, scores, 4, threshold)
        source = RelevanceSource(y, threshold)
        got = rank_block(
            source,
            scores,
            slice(0, y.shape[0]),
            4,
            ignore_ties=False,
            want_ideal=True,
            exponential=False,
        )
        for name in ("n_relevant", "ideal", "tied_relevant", "grade"):
            np.testing.assert_allclose(
                getattr(got, name), expected[name], err_msg=f"{name} at {threshold}"
            )
