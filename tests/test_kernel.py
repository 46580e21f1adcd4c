"""The compiled kernel against an independent numpy engine, at scale.

``reference.py`` holds the package's former numpy implementation (a numpy
top-k selection plus the closed-form formulas written with numpy arrays). The
brute-force oracle of ``test_common`` enumerates orderings and needs tiny
rows; here rows are long, so every selection path of the kernel (sorted
buffer for small K, heap for larger K, selection over the whole row when K
is a large fraction of it), wide tie groups straddling the cut-off, deep
cut-offs (R-precision at |R|), every relevance layout (dense of every dtype,
CSR, flat segments) and one or two threads are checked.
"""

import itertools

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from helpers import FUNCS
from reference import FORMULAS, RAW_FORMULAS, reference_values
from threadpoolctl import threadpool_limits

import sklearn_rankk
from sklearn_rankk import num_threads
from sklearn_rankk._core import _kernel
from sklearn_rankk._core import ranking as _ranking
from sklearn_rankk._core.ranking import n_threads
from sklearn_rankk._core.registry import METRICS

RTOL = 1e-10
ATOL = 1e-12


def reference_top_k(scores, K, later_first):
    """Top K columns (score desc; ties by column, ascending or descending)."""
    n, m = scores.shape
    cols = np.empty((n, K), dtype=np.int64)
    outside = np.zeros(n, dtype=np.int64)
    for i in range(n):
        key = -np.arange(m) if later_first else np.arange(m)
        order = np.lexsort((key, -scores[i]))
        cols[i] = order[:K]
        if not later_first:
            kth = scores[i, order[K - 1]]
            outside[i] = np.count_nonzero(scores[i, order[K:]] == kth)
    return np.take_along_axis(scores, cols, axis=1), cols, outside


@pytest.mark.parametrize(
    "name", ["dcg_at_k_score", "ndcg_at_k_score", "err_at_k_score"]
)
def test_a_row_gets_the_same_bits_whichever_selection_serves_it(name):
    """The members of the tie group straddling the cut are summed in column
    order whichever selection found them, so a row's value does not depend
    on the path. Rows of 300 items at k=40 are sorted whole (40 * 8 >= 300);
    the same rows with 200 unretrieved items (-inf, grade 0) appended go
    through the candidate buffer. The values must be equal bit for bit
    (grades with fractions: a different order of the gains' sum shows in
    the last bits, as it did when the candidates' order was nth_element's)."""
    rng = np.random.default_rng(0)
    n, m = 200, 300
    scores = np.round(rng.random((n, m)), 1)
    y = rng.integers(0, 5, (n, m)) * (rng.random((n, m)) < 0.2) * rng.random((n, m))
    padded_scores = np.hstack([scores, np.full((n, 200), -np.inf)])
    padded_y = np.hstack([y, np.zeros((n, 200))])
    kw = {"max_grade": None} if name == "err_at_k_score" else {}
    fn = getattr(sklearn_rankk, name)
    whole = fn(y, scores, k=40, average=None, **kw)
    buffered = fn(padded_y, padded_scores, k=40, average=None, **kw)
    np.testing.assert_array_equal(buffered, whole)


@pytest.mark.parametrize("K", [1, 5, 64, 65, 100, 124, 125, 400, 1000])
@pytest.mark.parametrize("later_first", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_selection_path(K, later_first, dtype):
    # K <= 64 with K * 8 < row: sorted buffer; larger K: heap; K * 8 >= row:
    # selection over the whole row. Rows of 1000 with ties and -inf.
    rng = np.random.default_rng(K)
    scores = rng.integers(0, 150, size=(20, 1000)).astype(dtype)
    scores[rng.random((20, 1000)) < 0.1] = -np.inf
    scores[0] = 1.0  # one row all tied
    scores[1] = rng.random(1000)  # one tie-free row
    values, cols, outside, nan = _kernel.top_k(scores, K, later_first)
    exp_values, exp_cols, exp_outside = reference_top_k(scores, K, later_first)
    np.testing.assert_array_equal(values, exp_values)
    np.testing.assert_array_equal(cols, exp_cols)
    if not later_first:
        # Left-out items tied with the K-th (-inf ones do not matter).
        finite = np.isfinite(exp_values[:, -1])
        np.testing.assert_array_equal(outside[finite], exp_outside[finite])
    assert not nan.any()


@pytest.mark.parametrize("K", [3, 200])
def test_nan_is_found_anywhere_in_the_row(K):
    for position in (0, 2, 31, 32, 33, 511, 999):
        scores = np.random.default_rng(position).random((2, 1000))
        scores[1, position] = np.nan
        for dtype in (np.float64, np.float32):
            *_, nan = _kernel.top_k(scores.astype(dtype), K)
            assert nan.tolist() == [False, True], position


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("k", [(5, 1000), (25, 1000)])
def test_nan_rows_with_deep_set_cutoffs_raise(k, ignore_ties):
    """Mostly NaN rows leave the selection fewer candidates than a deep set
    cut-off (precision@1000 beside @5 or @25): the row is rejected, as any
    row with a NaN score (it once read past the candidates and crashed)."""
    rng = np.random.default_rng(0)
    y_score = np.full((2, 10_000), np.nan)
    y_score[0] = rng.random(10_000)
    y_true = np.zeros((2, 10_000), dtype=np.int64)
    some = rng.choice(10_000, 20, replace=False)
    y_score[1, some] = rng.random(20)
    y_true[:, some] = 1
    with pytest.raises(ValueError, match="y_score contains NaN"):
        sklearn_rankk.ranking_report(
            y_true, y_score, k=k, metrics=["precision"], ignore_ties=ignore_ties
        )


def large_case(seed, n=40, m=600, levels=6):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, levels, size=(n, m)).astype(np.float64)
    if seed % 2:
        scores += rng.random((n, m)) * 0.5  # some ties broken, some not
    scores[rng.random((n, m)) < 0.05] = -np.inf
    scores[0] = 3.0  # one row all tied
    grades = rng.integers(1, 4, size=(n, m))
    y = np.where(rng.random((n, m)) < 0.08, grades, 0)
    y[1] = 0  # a row with no relevant item
    y[2, : m // 2] = grades[2, : m // 2]  # a row with many relevant items
    return y, scores


def configurations(metric):
    info = METRICS[metric]
    if not info.needs_k:
        return [(None, {})]
    ks = [1, 7, 70, 300] + ([None] if info.allow_k_none else [])
    params = [{}]
    if "denominator" in info.param_names:
        params = [{"denominator": d} for d in ("relevant", "min", "retrieved")]
    if "gain" in info.param_names:
        params = [{"gain": "linear"}, {"gain": "exponential", "log_base": 10}]
    if "max_grade" in info.param_names:
        params = [{}, {"max_grade": None}]
    if "p" in info.param_names:
        params = [{"p": 0.9}, {"p": 0.6}]
    if "tp_weight" in info.param_names:
        weights = ("tp_weight", "fp_weight", "fn_weight", "tn_weight")
        params = [{}, dict(zip(weights, (2.0, -0.5, -1.0, 0.1)))]
    return list(itertools.product(ks, params))


# The metrics the numpy reference has (tests/reference.py: the former numpy
# engine's formulas, and ERR and fall-out written row by row); those added
# otherwise (bpref, infAP, ...) are checked against the brute-force oracle
# (test_common) and their references (test_judged).
@pytest.mark.parametrize(
    "metric", sorted(m for m in METRICS if m in FORMULAS or m in RAW_FORMULAS)
)
@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_matches_the_numpy_engine(metric, seed):
    y, scores = large_case(seed)
    for (k, params), ignore_ties, threshold in itertools.product(
        configurations(metric), (False, True), (0, 1)
    ):
        expected, expected_empty = reference_values(
            metric,
            y,
            scores,
            k=k,
            params=params,
            ignore_ties=ignore_ties,
            threshold=threshold,
        )
        kwargs = dict(params, average=None, zero_division=np.nan)
        if METRICS[metric].needs_k:
            kwargs["k"] = k
        got = FUNCS[metric](
            y, scores, ignore_ties=ignore_ties, relevance_threshold=threshold, **kwargs
        )
        # zero_division=nan leaves out the rows with no relevant item, for
        # every metric.
        expected = np.where(expected_empty, np.nan, expected)
        np.testing.assert_allclose(
            got,
            expected,
            rtol=RTOL,
            atol=ATOL,
            err_msg=f"{metric} k={k} {params} ties={ignore_ties} t={threshold}",
        )


LAYOUTS = ["dense", "bool", "float32", "uint16", "int8", "csr", "csc", "segments"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("threads", [1, 2])
def test_every_relevance_layout_and_thread_count(layout, threads, monkeypatch):
    # The cases are small: make every input worth both threads.
    monkeypatch.setattr(_ranking, "MIN_CELLS_PER_THREAD", 1)
    y, scores = large_case(3, n=30, m=300)
    if layout in ("bool",):
        y = y > 0
    names = ["precision@5", "recall@40", "hit@3", "mrr", "map@50", "ndcg@20"]
    names += ["ndcg", "dcg@7", "f1@9", "r_precision", "err@20", "err"]
    names += ["neg_fall_out@30", "neg_fall_out"]  # scorers of a loss: neg_
    from sklearn_rankk import get_scorer
    from sklearn_rankk._core import engine

    scorer = get_scorer(names, zero_division=0.0)
    expected = {}
    for name, request in zip(names, scorer.requests):
        metric = request.metric.name
        values, empty = reference_values(
            metric,
            y,
            scores,
            k=request.k,
            params=request.options,
            ignore_ties=False,
            threshold=0,
        )
        expected[name] = values
    converted = {
        "dense": y,
        "bool": y,
        "float32": y.astype(np.float32),
        "uint16": y.astype(np.uint16),
        "int8": y.astype(np.int8),
        "csr": sp.csr_matrix(y),
        "csc": sp.csc_matrix(y),
        "segments": y,
    }[layout]
    with num_threads(threads):
        if layout == "segments":
            qid = np.repeat(np.arange(y.shape[0]), y.shape[1])
            rows = engine.row_values(
                scorer.requests, converted.ravel(), scores.ravel(), qid=qid
            )
        else:
            rows = engine.row_values(scorer.requests, converted, scores)
    for name, values in zip(names, rows.values):
        np.testing.assert_allclose(
            values, expected[name], rtol=RTOL, atol=ATOL, err_msg=name
        )


def test_segments_of_any_length_equal_their_own_rows():
    """Skewed segments (1 to 2,000 items, some empty of relevant items), with
    ties across segment boundaries: each segment's values are those of its
    own one-row matrix."""
    rng = np.random.default_rng(7)
    lengths = [1, 2, 2000, 3, 57, 1, 640, 9]
    y = [rng.integers(0, 3, n) * (rng.random(n) < 0.3) for n in lengths]
    s = [rng.integers(0, 4, n).astype(float) for n in lengths]  # ties everywhere
    qid = np.repeat(np.arange(len(lengths)), lengths)
    flat_y, flat_s = np.concatenate(y), np.concatenate(s)
    for name, function in FUNCS.items():
        kwargs = {"k": 5} if METRICS[name].needs_k else {}
        try:
            alone = [
                function(t[None], v[None], average=None, zero_division=np.nan, **kwargs)
                for t, v in zip(y, s)
            ]
        except ValueError as error:
            # A measure whose exact tie expectation can be refused (yaap, on
            # the 2,000-item segment's large tie groups): refused in segments
            # too, and compared with the ties broken.
            assert "ignore_ties=True" in str(error), name
            with pytest.raises(ValueError, match="ignore_ties=True"):
                function(flat_y, flat_s, qid=qid, average=None, **kwargs)
            kwargs["ignore_ties"] = True
            alone = [
                function(t[None], v[None], average=None, zero_division=np.nan, **kwargs)
                for t, v in zip(y, s)
            ]
        got = function(
            flat_y, flat_s, qid=qid, average=None, zero_division=np.nan, **kwargs
        )
        np.testing.assert_array_equal(got, np.concatenate(alone), err_msg=name)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("layout", ["dense", "float32", "csr", "segments"])
@pytest.mark.parametrize("few_scores", [False, True])
def test_set_cutoffs_below_the_ordered_depth_at_scale(
    seed, ignore_ties, layout, few_scores
):
    """The report's nine metrics at k=10 and set cut-offs at 25 to 60 in one
    pass, on rows of 1000 items (|R| about 30): the set cut-offs deeper than
    the ordered depth 10 (R-precision's |R|, precision@60, ...) come from
    the selection's candidates. Rows alternate between score levels (the
    threshold guessed from the previous row is then too high or too low),
    ties straddle every cut-off, some items are not retrieved; segments are
    of skewed lengths (1 to 3000 items). With few_scores, W4's shape: one
    decimal (tie groups of about 100; the K-th score is then often the
    candidates' largest or smallest) and about 100 relevant items a row.
    Against the numpy engine."""
    rng = np.random.default_rng(seed)
    n = 60
    lengths = [1000] * n
    if layout == "segments":
        lengths = rng.choice([1, 7, 120, 600, 1000, 3000], n)
    m = max(lengths)
    scores = np.full((n, m), -np.inf)
    y = np.zeros((n, m), dtype=np.int64)
    for i, length in enumerate(lengths):
        level = rng.choice([0.0, 0.5, 2.0])
        decimals = 1 if few_scores else 2 + i % 2
        row = np.round(rng.random(length), decimals) + level  # ties
        row[rng.random(length) < 0.05] = -np.inf
        scores[i, :length] = row
        share = 0.1 if few_scores else 0.03
        y[i, :length] = rng.integers(1, 4, length) * (rng.random(length) < share)
    names = ["precision@10", "recall@10", "f1@10", "hit@10", "mrr@10", "map@10"]
    names += ["dcg@10", "ndcg@10", "r_precision", "precision@60", "hit@60"]
    names += ["recall@25", "f1@60", "relative_precision@40"]
    from sklearn_rankk import get_scorer
    from sklearn_rankk._core import engine

    scorer = get_scorer(names, zero_division=0.0, ignore_ties=ignore_ties)
    y_in, s_in = y, scores
    if layout == "float32":
        s_in = scores.astype(np.float32)
        scores = s_in.astype(np.float64)  # the reference reads the same values
    elif layout == "csr":
        y_in = sp.csr_matrix(y)
    if layout == "segments":
        keep = np.arange(m) < np.asarray(lengths)[:, None]
        qid = np.repeat(np.arange(n), lengths)
        rows = engine.row_values(
            scorer.requests, y[keep], scores[keep], qid=qid, **scorer.options
        )
    else:
        rows = engine.row_values(scorer.requests, y_in, s_in, **scorer.options)
    for name, request, values in zip(names, scorer.requests, rows.values):
        expected, _ = reference_values(
            request.metric.name,
            y,
            scores,
            k=request.k,
            params=request.options,
            ignore_ties=ignore_ties,
            threshold=0,
        )
        np.testing.assert_allclose(
            values, expected, rtol=RTOL, atol=ATOL, err_msg=f"{name} {layout}"
        )


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_top_k_where_the_guessed_threshold_misses(ignore_ties, dtype):
    """The top-k metrics alone (no set cut-off deeper than k), on rows of
    1000 items whose threshold, guessed from the rows before (a moving
    average), is far off: runs of alike rows, then a row at a level far
    below them (too few candidates: the row is read again below the guess,
    down to the candidates' spread, then to -inf), a row far above (every
    item a candidate: the buffer is cut back as it fills), rows of a few
    top scores over a flat rest, rows tied whole, and rows with fewer than k
    retrieved items, rows of a few items above the guess and the rest far
    below (read again from where the candidates' spread puts the wanted
    count). Against the numpy engine; and bit for bit against each row
    alone and the rows in reverse order (other guesses, other paths)."""
    rng = np.random.default_rng(7)
    rows = []
    for i in range(100):
        kind = i % 10
        row = np.round(rng.random(1000), 2 if i % 2 else 6)
        if kind == 4:
            row -= 50.0  # far below the rows before
        elif kind == 5:
            row += 80.0  # far above
        elif kind == 6:
            row[:] = 0.5
            row[rng.choice(1000, 3, replace=False)] = 9.0  # three, then a flat rest
        elif kind == 7:
            row[:] = 1.0  # tied whole
        elif kind == 8:
            row[rng.permutation(1000)[6:]] = -np.inf  # six retrieved
        elif kind == 9:  # five above the guess (about 0.98), the rest below 0.5
            row = rng.random(1000) * 0.5
            row[rng.choice(1000, 5, replace=False)] = 0.99 + rng.random(5) / 200
        rows.append(row)
    scores = np.array(rows).astype(dtype)
    y = rng.integers(1, 4, scores.shape) * (rng.random(scores.shape) < 0.05)
    names = ["precision@10", "ndcg@10", "mrr@10", "map@10", "hit@1", "precision@1"]
    names += ["dcg@20", "recall@3", "f1@10"]
    from sklearn_rankk import get_scorer
    from sklearn_rankk._core import engine

    scorer = get_scorer(names, zero_division=0.0, ignore_ties=ignore_ties)
    rows = engine.row_values(scorer.requests, y, scores, **scorer.options)
    for name, request, values in zip(names, scorer.requests, rows.values):
        expected, _ = reference_values(
            request.metric.name,
            y,
            scores.astype(np.float64),
            k=request.k,
            params=request.options,
            ignore_ties=ignore_ties,
            threshold=0,
        )
        np.testing.assert_allclose(values, expected, rtol=RTOL, atol=ATOL, err_msg=name)
    alone = np.hstack(  # (values: a row per request, a column per row)
        [
            np.asarray(
                engine.row_values(
                    scorer.requests, y[i : i + 1], scores[i : i + 1], **scorer.options
                ).values
            )
            for i in range(len(y))
        ]
    )
    reverse = engine.row_values(
        scorer.requests, y[::-1].copy(), scores[::-1].copy(), **scorer.options
    ).values
    together = np.asarray(rows.values)
    np.testing.assert_array_equal(alone, together)
    np.testing.assert_array_equal(np.asarray(reverse)[:, ::-1], together)


def test_threads_follow_threadpoolctl_and_the_explicit_setting():
    with threadpool_limits(limits=1, user_api="openmp"):
        assert n_threads() == 1
    with num_threads(1):
        assert n_threads() == 1
    with pytest.raises(ValueError, match="positive integer"), num_threads(0):
        pass


@pytest.mark.parametrize("cells, expected", [(100, 1), (1 << 20, 2)])
def test_small_inputs_run_on_one_thread(cells, expected, monkeypatch):
    seen = []
    real = _kernel.evaluate_aligned

    def spy(*args):
        seen.append(args[-1])
        return real(*args)

    monkeypatch.setattr(_ranking._kernel, "evaluate_aligned", spy)
    scores = np.zeros((cells // 100, 100))
    with num_threads(2):
        FUNCS["hit"](np.ones_like(scores), scores, k=3)
        # (inside the block: outside it, OMP_NUM_THREADS=1 would say 1)
        want = min(expected, n_threads())
    assert seen == [want]


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
    scores, y = np.zeros((2, 5)), np.zeros((2, 5), dtype=np.uint8)
    requests = np.zeros(1, dtype=_kernel.REQUEST_DTYPE)
    requests["k"] = 2
    args = (requests, 1, 0, 0.0)
    with pytest.raises(ValueError, match="same shape"):
        _kernel.evaluate_aligned(scores, y[:, :3].copy(), None, 5, *args, 1)
    with pytest.raises(ValueError, match="number of columns"):
        _kernel.evaluate_aligned(scores, y, None, 4, *args, 1)
    with pytest.raises(ValueError, match="offsets"):
        bad = np.array([0, 3, 2], dtype=np.int64)
        _kernel.evaluate_aligned(scores.ravel(), y.ravel(), bad, 0, *args, 1)
    with pytest.raises(ValueError, match="offsets"):
        bad = np.array([0, 11], dtype=np.int64)  # past the end
        _kernel.evaluate_aligned(scores.ravel(), y.ravel(), bad, 0, *args, 1)
    with pytest.raises(ValueError, match="indptr"):
        _kernel.evaluate_csr(
            scores,
            np.zeros(2, dtype=np.int64),  # covers one row, not two
            np.zeros(0, np.int64),
            np.zeros(0),
            0,
            *args,
            1,
        )
    with pytest.raises(TypeError, match="unsupported"):
        _kernel.evaluate_aligned(scores.astype(np.float16), y, None, 5, *args, 1)
    for K in (0, 6):
        with pytest.raises(ValueError, match="K must be"):
            _kernel.top_k(scores, K)


INTEGER_DTYPES = ["u1", "i1", "i2", "u2", "i4", "u4", "i8", "u8"]


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_integer_grades_against_thresholds_at_the_type_limits(dtype):
    """Integer grades are compared with floor(threshold) in their own type;
    thresholds below, inside and beyond the type's range all count as the
    float comparison y > threshold does. nDCG's grade pass also counts the
    levels up to threshold + 4, which must not overflow the type (thresholds
    3 and 5 below its largest value)."""
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
        float(info.max) - 4.5,
        float(info.max) - 2.5,
        float(info.max) - 0.5,
        float(info.max),
        float(info.max) + 1.0,
    ]
    for threshold in thresholds:
        for metric in ("precision", "recall", "r_precision", "map", "ndcg"):
            if metric == "ndcg" and threshold < 0:
                continue  # (relevant negative grades: gain 0 here, not in the engine)
            k = {} if metric == "r_precision" else {"k": 4}
            expected, _ = reference_values(
                metric,
                y.astype(np.float64),
                scores,
                k=k.get("k"),
                params={},
                ignore_ties=False,
                threshold=threshold,
            )
            got = FUNCS[metric](
                y,
                scores,
                relevance_threshold=threshold,
                average=None,
                zero_division=0.0,
                **k,
            )
            np.testing.assert_allclose(
                got, expected, rtol=RTOL, err_msg=f"{metric} at {threshold}"
            )


@pytest.mark.parametrize("dtype", ["i1", "u1", "i8", "u8", "f4", "f8"])
@pytest.mark.parametrize("levels", [2, 5, 6, 60])
def test_ideal_ranking_of_few_and_many_grades(dtype, levels):
    """The ideal DCG reads the largest grades level by level, then gathers the
    rest when a row has many distinct grades; binary relevance has a shortcut;
    integer grades within four levels of the threshold come from the counts
    of the grade pass (levels 5 and 6 put the top grade at the fourth level
    above the threshold and past it, for thresholds 0, 1 and 2.5). Every
    path, against the numpy engine, at cut-offs within and beyond the top
    grade's count."""
    rng = np.random.default_rng(levels)
    n, m = 30, 300
    y = np.where(rng.random((n, m)) < 0.3, rng.integers(0, levels, size=(n, m)), 0)
    y[0] = levels - 1  # every item of the top grade
    y[1] = 0  # nothing relevant
    y[2, :levels] = np.arange(levels)  # each grade once
    y = y.astype(dtype)
    scores = rng.random((n, m))
    for k, threshold, gain in itertools.product(
        (1, 3, 10, 60), (0, 1, 2.5, -1), ("linear", "exponential")
    ):
        expected, empty = reference_values(
            "ndcg",
            y.astype(np.float64),
            scores,
            k=k,
            params={"gain": gain},
            ignore_ties=False,
            threshold=threshold,
        )
        got = FUNCS["ndcg"](
            y,
            scores,
            k=k,
            gain=gain,
            relevance_threshold=threshold,
            average=None,
            zero_division=np.nan,
        )
        np.testing.assert_allclose(
            got,
            np.where(empty, np.nan, expected),
            rtol=RTOL,
            atol=ATOL,
            err_msg=f"k={k} t={threshold} {gain}",
        )
