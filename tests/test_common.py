"""Every metric of the registry: its oracle, and the invariants it must satisfy.

The test functions are parametrized over the registry, so a new metric is
checked by every test here as soon as it has an entry in the registry and an
oracle in ``helpers.ORACLES``:

* the brute-force permutation oracle (every ordering of tied items, see
  ``helpers``), on small, heavily tied random inputs with corner cases, for
  every option, tie mode, threshold and ``zero_division``;
* invariants: row order, joint column permutation, sample weights as row
  repetition, strictly monotone transforms of the scores, bounds, perfect
  rankings, float32, sparse and pandas inputs, the float return type.
"""

import itertools
import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import (
    ALWAYS_DEFINED,
    ATOL,
    FUNCS,
    NEG_INF,
    NO_NON_RELEVANT,
    ORACLE_UNDEFINED,
    ORACLES,
    RTOL,
    configurations,
    empty_rows,
    fill_undefined,
    oracle,
    oracle_row,
    random_case,
    rankings,
    row_values,
    weighted_mean,
)
from helpers import call as call_with
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankk
from sklearn_rankk._core.registry import METRICS

ALL = sorted(METRICS)


def call(name, y_true, y_score, k=3, **kwargs):
    if METRICS[name].needs_k:
        kwargs["k"] = k
    kwargs.setdefault("zero_division", 0.0)
    # The plain mean of the rows, which these tests check; the propensity-
    # scored metrics average otherwise by default (tests/test_propensity.py).
    kwargs.setdefault("average", "mean")
    return FUNCS[name](y_true, y_score, **kwargs)


# --------------------------------------------------------------------------
# The registry itself
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_every_metric_has_an_oracle_and_a_public_function(name):
    info = METRICS[name]
    assert name in ORACLES, f"add the oracle of {name!r} to tests/helpers.py"
    assert info.function_name in sklearn_rankk.__all__
    # Rows with no relevant item follow zero_division exactly when the
    # definition leaves the metric undefined there.
    assert (info.empty_rows == "zero_division") == (name in ORACLE_UNDEFINED)


def data(seed=0, n=30, m=9, ties=True, neg_inf=True):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, size=(n, m)) * (rng.random((n, m)) < 0.4)
    y_true[0] = 0
    y_score = (
        rng.integers(0, 5, size=(n, m)).astype(float)
        if ties
        else rng.standard_normal((n, m))
    )
    if neg_inf:
        y_score[rng.random((n, m)) < 0.1] = -np.inf
    return y_true, y_score


@pytest.mark.parametrize("name", ALL)
def test_returns_python_float_and_per_row_array(name):
    y_true, y_score = data()
    value = call(name, y_true, y_score)
    assert type(value) is float
    rows = call(name, y_true, y_score, average=None)
    assert rows.dtype == np.float64 and rows.shape == (y_true.shape[0],)
    assert value == pytest.approx(rows.mean())


@pytest.mark.parametrize("name", ALL)
def test_row_order_invariance(name):
    y_true, y_score = data(1)
    perm = np.random.default_rng(1).permutation(y_true.shape[0])
    a = call(name, y_true, y_score, average=None)
    b = call(name, y_true[perm], y_score[perm], average=None)
    np.testing.assert_allclose(a[perm], b, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", ALL)
def test_joint_column_permutation(name):
    y_true, y_score = data(2)
    perm = np.random.default_rng(2).permutation(y_true.shape[1])
    a = call(name, y_true, y_score, average=None)
    b = call(name, y_true[:, perm], y_score[:, perm], average=None)
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ALL)
def test_column_order_breaks_ties_with_ignore_ties(name):
    # As in scikit-learn (reversed stable argsort), the later column ranks
    # first among equal scores: with constant scores the ranking is the
    # columns from last to first.
    y_true = np.array([[0, 0, 1, 0, 2, 0]])
    y_score = np.zeros((1, 6))
    identity = np.arange(6.0)[None]
    assert call(name, y_true, y_score, ignore_ties=True) == pytest.approx(
        call(name, y_true, identity)
    )


@pytest.mark.parametrize("name", ALL)
def test_sample_weight_is_row_repetition(name):
    y_true, y_score = data(3)
    w = np.random.default_rng(3).integers(0, 4, size=y_true.shape[0])
    w[1] = 2
    weighted = call(name, y_true, y_score, sample_weight=w)
    repeated = call(name, np.repeat(y_true, w, axis=0), np.repeat(y_score, w, axis=0))
    assert weighted == pytest.approx(repeated, rel=1e-12)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize(
    "transform",
    [lambda s: 3 * s - 7, lambda s: s**3, np.exp, lambda s: np.arctan(s) * 1e3],
    ids=["affine", "cube", "exp", "arctan"],
)
def test_strictly_monotone_transform(name, transform):
    y_true, y_score = data(4, neg_inf=False)
    y_score = y_score / 2  # scores 0..2 by halves: exact under every transform
    a = call(name, y_true, y_score, average=None)
    b = call(name, y_true, transform(y_score), average=None)
    np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("ignore_ties", [False, True])
def test_bounds(name, ignore_ties):
    low, high = METRICS[name].bounds
    for seed in range(5):
        y_true, y_score = data(seed)
        for k in (1, 3, 20):
            rows = call(
                name, y_true, y_score, k=k, average=None, ignore_ties=ignore_ties
            )
            if low is not None:
                assert np.all(rows >= low)
            if high is not None:
                assert np.all(rows <= high + 1e-12)


# The losses proper (fall-out); the diagnostics of the judgments are not
# about the ranking (test_diagnostics_scorers_are_negated).
LOSSES = [
    n for n in ALL if not METRICS[n].greater_is_better and not METRICS[n].diagnostic
]


@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("k", [1, 2, 3])
def test_perfect_ranking_scores_the_best_loss(name, k):
    # A loss is at its best, 0, when the top k holds only relevant items, and
    # at its worst, 1, when every non-relevant item comes first and k covers
    # them; its scorer, "neg_...", then gives -0 and -1: model selection
    # maximises it toward the perfect ranking.
    y_true, _ = data(5, neg_inf=False)
    y_true = y_true[(y_true > 0).sum(axis=1) >= k]  # rows with >= k relevant items
    y_true = y_true[(y_true == 0).any(axis=1)]  # and a non-relevant one
    assert y_true.shape[0] >= 5
    noise = np.random.default_rng(5).random(y_true.shape) * 0.5
    perfect, worst = (y_true > 0) + noise, (y_true == 0) + noise
    assert call(name, y_true, perfect, k=k) == 0.0
    n_nonrel = (y_true == 0).sum(axis=1)
    worst_rows = call(name, y_true, worst, k=k, average=None)
    np.testing.assert_allclose(worst_rows[n_nonrel <= k], 1.0)
    scorer = sklearn_rankk.get_scorer(f"neg_{name}@{k}")
    assert scorer._score(y_true, perfect) == 0.0
    assert scorer._score(y_true, perfect) > scorer._score(y_true, worst)


@pytest.mark.parametrize("name", [n for n in ALL if METRICS[n].perfect_is_one])
@pytest.mark.parametrize("k", [1, 2, 5, 50])
def test_perfect_ranking_scores_one(name, k):
    y_true, _ = data(5, neg_inf=False)
    y_true = y_true[1:]  # rows with a relevant item
    y_true = y_true[y_true.any(axis=1)]
    perfect = y_true + np.random.default_rng(5).random(y_true.shape) * 0.5
    assert call(name, y_true, perfect, k=k) == pytest.approx(1.0)


def test_perfect_ranking_for_the_other_metrics():
    # Precision is 1 when |R| >= k; recall, F1 and AP when |R| == k.
    y_true = np.array([[0, 1, 1, 0, 1], [1, 1, 1, 0, 0]])
    y_score = y_true + np.array([[0.1, 0.2, 0.3, 0.4, 0.5]])
    for name in ("precision", "recall", "f1", "map"):
        assert call(name, y_true, y_score, k=3) == pytest.approx(1.0)


@pytest.mark.parametrize("name", ALL)
def test_float32_equals_float64(name):
    y_true, y_score = data(6)
    a = call(name, y_true, y_score.astype(np.float32))
    b = call(name, y_true, y_score)
    assert a == pytest.approx(b, rel=1e-12)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize(
    "fmt",
    [
        sp.csr_matrix,
        sp.csc_matrix,
        sp.coo_matrix,
        sp.lil_matrix,
        sp.csr_array,
        sp.coo_array,
        sp.dok_matrix,
    ],  # fmt: skip
)
def test_sparse_equals_dense(name, fmt):
    y_true, y_score = data(7)
    a = call(name, fmt(y_true), y_score, average=None)
    b = call(name, y_true, y_score, average=None)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", ALL)
def test_relevance_dtypes_and_containers(name):
    pd = pytest.importorskip("pandas")
    y_true, y_score = data(8)
    expected = call(name, y_true, y_score)
    assert call(name, y_true.astype(float), y_score) == expected
    assert call(name, y_true.tolist(), y_score.tolist()) == expected
    assert call(name, pd.DataFrame(y_true), pd.DataFrame(y_score)) == expected
    binary = y_true > 0
    assert call(name, binary, y_score) == call(name, binary.astype(np.int8), y_score)


@pytest.mark.parametrize("name", ALL)
def test_ignore_ties_is_exact_on_tie_free_scores(name):
    y_true, y_score = data(9, ties=False)
    a = call(name, y_true, y_score, average=None)
    b = call(name, y_true, y_score, average=None, ignore_ties=True)
    np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", ALL)
def test_zero_division(name):
    y_true = np.array([[0, 0, 0], [1, 0, 0]])
    if name in NO_NON_RELEVANT:  # undefined where every item is relevant
        y_true = 1 - y_true
    y_score = np.array([[0.3, 0.2, 0.1], [0.1, 0.2, 0.3]])
    info = METRICS[name]
    kw = {"k": 2} if info.needs_k else {}
    f = FUNCS[name]
    undefined_zero = f(y_true, y_score, zero_division=0.0, average=None, **kw)
    if info.empty_rows == "never":
        # A value on every row (utility, the unjudged fraction): zero_division
        # changes nothing, and "warn" does not warn.
        y_true = np.array([[0, -1, 0], [1, 0, 0]])
        want = oracle(
            name,
            y_true,
            y_score,
            ignore_ties=False,
            threshold=0,
            k=kw.get("k"),
            params={},
        )
        for zero_division in ("warn", 0.0, 1.0, np.nan):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                got = f(
                    y_true, y_score, zero_division=zero_division, average=None, **kw
                )
            np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
        return
    if name not in ORACLE_UNDEFINED:
        # Defined as 0 on rows without relevant items: "warn" keeps the 0
        # silently; the other values apply as to every metric (issue 17.3).
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert f(y_true, y_score, **kw) == undefined_zero.mean()
    else:
        with pytest.warns(UndefinedMetricWarning, match="1 of 2"):
            assert f(y_true, y_score, **kw) == undefined_zero.mean()
    assert undefined_zero[0] == 0.0
    ones = f(y_true, y_score, zero_division=1.0, average=None, **kw)
    assert ones[0] == 1.0 and ones[1] == undefined_zero[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f(y_true, y_score, zero_division=np.nan, **kw) == undefined_zero[1]
    rows = f(y_true, y_score, zero_division=np.nan, average=None, **kw)
    assert np.isnan(rows[0])
    only_undefined = f(y_true[:1], y_score[:1], zero_division=np.nan, **kw)
    assert np.isnan(only_undefined)


@pytest.mark.parametrize("name", ALL)
def test_not_retrieved_items_sit_at_no_rank(name):
    # A relevant item scored -inf is never placed, even when the row has fewer
    # than k finite scores, but it still counts as relevant.
    y_true = np.array([[1, 0, 1]])
    if name in NO_NON_RELEVANT:  # non-relevant items unretrieved, but counted
        y_true = 1 - y_true
    if METRICS[name].reads_judgments and METRICS[name].empty_rows == "never":
        # the unjudged fraction: unjudged items alike
        y_true = np.array([[-1, 0, -1]])
    y_score = np.array([[-np.inf, 0.5, -np.inf]])
    # (the relevant item ranked first: bpref gives 0 to one ranked below
    # every judged non-relevant item)
    y_score_ranked = np.array([[-np.inf, 0.1, 0.5]])
    if not METRICS[name].reads_scores:  # the ideal DCG: y_true alone
        assert call(name, y_true, y_score, k=3) == call(
            name, y_true, y_score_ranked, k=3
        )
        return
    if METRICS[name].bounds[0] is None:  # utility: 0 is no reference point
        for scores in (y_score, y_score_ranked):
            want = oracle(
                name,
                y_true,
                scores,
                ignore_ties=False,
                threshold=0,
                k=3 if METRICS[name].needs_k else None,
                params={},
            )
            assert call(name, y_true, scores, k=3) == pytest.approx(want[0])
        assert call(name, y_true, y_score_ranked, k=3) > call(
            name, y_true, y_score, k=3
        )
        return
    assert call(name, y_true, y_score, k=3) == 0.0
    assert call(name, y_true, y_score_ranked, k=3) > 0.0


# --------------------------------------------------------------------------
# The brute-force oracle
# --------------------------------------------------------------------------

SEEDS = range(60)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("metric", ALL)
def test_matches_bruteforce_oracle(metric, seed):
    y_true, y_score, weights = random_case(seed)
    for (k, params), ignore_ties, threshold in itertools.product(
        configurations(metric), (False, True), (0, 1)
    ):
        expected = oracle(
            metric,
            y_true,
            y_score,
            ignore_ties=ignore_ties,
            threshold=threshold,
            k=k,
            params=params,
        )
        common = dict(ignore_ties=ignore_ties, relevance_threshold=threshold)
        # zero_division decides the rows with no relevant item, for every
        # metric; those are the rows where the oracle finds the metric
        # undefined, or where it is 0 by definition.
        empty = empty_rows(metric, y_true, threshold)
        if METRICS[metric].empty_rows == "never":  # a value on every row
            empty[:] = False
        if metric in ORACLE_UNDEFINED:
            assert [e is None for e in expected] == empty.tolist()
        else:
            assert None not in expected
            assert all(e == 0 for e, x in zip(expected, empty) if x)
        expected = [None if x else e for e, x in zip(expected, empty)]
        for zero_division in (np.nan, 0.0, 1.0):
            want = fill_undefined(expected, zero_division)
            msg = (
                f"{metric} k={k} {params} ignore_ties={ignore_ties} "
                f"threshold={threshold} zero_division={zero_division}\n"
                f"y_true={y_true.tolist()}\ny_score={y_score.tolist()}"
            )
            got = call_with(
                metric,
                y_true,
                y_score,
                k,
                params,
                average=None,
                zero_division=zero_division,
                **common,
            )
            assert isinstance(got, np.ndarray), msg
            assert got.dtype == np.float64, msg
            assert got.shape == (y_true.shape[0],), msg
            np.testing.assert_allclose(
                got, want, rtol=RTOL, atol=ATOL, equal_nan=True, err_msg=msg
            )

            got_mean = call_with(
                metric,
                y_true,
                y_score,
                k,
                params,
                sample_weight=weights,
                zero_division=zero_division,
                **common,
            )
            assert type(got_mean) is float, msg
            np.testing.assert_allclose(
                got_mean,
                weighted_mean(want, weights),
                rtol=RTOL,
                atol=ATOL,
                equal_nan=True,
                err_msg=msg,
            )


@pytest.mark.parametrize("metric", ALL)
def test_warn_matches_zero(metric):
    """ "warn" gives the 0.0 values, and warns only for metrics that can be
    undefined and only when some row is undefined."""
    y_true, y_score, _ = random_case(7)
    k, params = configurations(metric)[-1]
    assert not y_true[0].any()
    if metric in NO_NON_RELEVANT:  # a row with no non-relevant item
        y_true[0] = 1
    kwargs = dict(average=None, relevance_threshold=0)
    want = call_with(metric, y_true, y_score, k, params, zero_division=0.0, **kwargs)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        got = call_with(metric, y_true, y_score, k, params, **kwargs)
    undefined_warnings = [
        w for w in record if issubclass(w.category, UndefinedMetricWarning)
    ]
    assert len(undefined_warnings) == (1 if metric in ORACLE_UNDEFINED else 0)
    np.testing.assert_array_equal(got, want)

    # No undefined row: no warning at all.
    y_true_all = y_true.copy()
    y_true_all[:, 0] = 0 if metric in NO_NON_RELEVANT else 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call_with(metric, y_true_all, y_score, k, params, **kwargs)


def test_oracle_sanity():
    """The oracle itself on hand-checked values."""
    # Two tied items, one relevant: P@1 = 1/2, MRR = (1 + 1/2) / 2.
    kw = dict(ignore_ties=False, threshold=0, params={})
    assert oracle_row("precision", [1.0, 1.0], [1, 0], k=1, **kw) == 0.5
    assert oracle_row("mrr", [1.0, 1.0], [1, 0], k=None, **kw) == 0.75
    # Not retrieved relevant item counts in |R| but is at no rank.
    assert oracle_row("recall", [1.0, NEG_INF], [1, 1], k=5, **kw) == 0.5
    assert oracle_row("precision", [1.0, NEG_INF], [1, 1], k=5, **kw) == 0.2
    # AP "retrieved" is the mean of the per-ordering ratios.
    # Items tied: [rel, rel, non] in 3! orders, k=2.
    ap = oracle_row(
        "map",
        [0.0, 0.0, 0.0],
        [1, 1, 0],
        k=2,
        ignore_ties=False,
        threshold=0,
        params={"denominator": "retrieved"},
    )
    # Over the 6 orderings the relevant ranks within the top 2 are {1, 2}
    # twice (AP 1), {1} twice (AP 1) and {2} twice (AP 1/2).
    assert ap == pytest.approx((2 * 1 + 2 * 1 + 2 * 0.5) / 6)
    # DCG with exponential gain, hand computed.
    dcg = oracle_row(
        "dcg",
        [0.1, 0.5, 0.2],
        [3, 2, 0],
        k=None,
        ignore_ties=False,
        threshold=0,
        params={"gain": "exponential", "log_base": 2},
    )
    # ranks: grade 2 (gain 3), grade 0, grade 3 (gain 7) at rank 3.
    assert dcg == pytest.approx(3 + 7 / math.log2(4))
    assert len(rankings([1.0, 1.0, 2.0, 2.0, NEG_INF], False)) == 4
    # ignore_ties: the later column first among equal scores.
    assert rankings([1.0, 2.0, 1.0, NEG_INF], True) == [(1, 2, 0)]


@pytest.mark.parametrize("seed", range(0, 60, 3))
@pytest.mark.parametrize("ignore_ties", [False, True])
def test_every_metric_in_one_pass_matches_the_oracle(seed, ignore_ties):
    """One pass ranks each row as deep as its deepest request (R-precision
    at |R|, k=None), and each metric reads only its own ranks: still the
    oracle's values, tie groups crossing any cut-off included."""
    y_true, y_score, _ = random_case(seed)
    names = [
        "precision@2",
        "recall@1",
        "f1@3",
        "hit@2",
        "mrr",
        "map@2",
        "map",
        "dcg@3",
        "ndcg@1",
        "ndcg",
        "r_precision",
    ]
    rows = row_values(
        names, y_true, y_score, zero_division=np.nan, ignore_ties=ignore_ties
    )
    for name in names:
        metric, _, k = name.partition("@")
        params = {"denominator": "relevant", "gain": "linear", "log_base": 2}
        expected = oracle(
            metric,
            y_true,
            y_score,
            ignore_ties=ignore_ties,
            threshold=0,
            k=int(k) if k else None,
            params=params,
        )
        np.testing.assert_allclose(
            rows[name],
            fill_undefined(expected, np.nan, y_true),
            rtol=RTOL,
            atol=ATOL,
            err_msg=name,
        )


@pytest.mark.parametrize("name", ALL)
def test_plus_infinity_ranks_first_tied_with_each_other(name):
    # +inf is a score like any other: above every finite score, and two +inf
    # items are tied (the oracle enumerates their orderings).
    y_true = np.array([[1, 0, 2, 0, 1], [0, 0, 0, 3, 1]])
    y_score = np.array(
        [[np.inf, np.inf, 0.3, -np.inf, 0.5], [1.0, np.inf, 2.0, 0.0, -1]]
    )
    for ignore_ties in (False, True):
        for k, params in configurations(name):
            expected = fill_undefined(
                oracle(
                    name,
                    y_true,
                    y_score,
                    ignore_ties=ignore_ties,
                    threshold=0,
                    k=k,
                    params=params,
                ),
                np.nan,
                y_true,
                metric=name,
            )
            got = call_with(
                name,
                y_true,
                y_score,
                k,
                params,
                average=None,
                ignore_ties=ignore_ties,
                zero_division=np.nan,
            )
            np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ignore_ties", [False, True])
def test_one_pass_sorting_only_the_ordered_depth(seed, ignore_ties):
    """One pass whose deepest cut is a set-based one (R-precision at |R|)
    below shallower order-dependent ones (MRR@1, AP@1, nDCG@2):
    the kernel sorts only the ranks the order-dependent cuts read and
    partitions the rest. Heavy ties on both boundaries; every value against
    the oracle."""
    rng = np.random.default_rng(seed)
    shape = (40, 11)  # |R| about 8: R-precision cuts far below D = 2
    y_true = rng.integers(1, 3, shape) * (rng.random(shape) < 0.75)
    y_score = rng.integers(0, 7, shape).astype(float)
    y_score[rng.random(shape) < 0.1] = -np.inf
    names = ["mrr@1", "map@1", "ndcg@2", "precision@2", "hit@1", "r_precision"]
    rows = row_values(
        names, y_true, y_score, zero_division=np.nan, ignore_ties=ignore_ties
    )
    for name in names:
        metric, _, k = name.partition("@")
        expected = oracle(
            metric,
            y_true,
            y_score,
            ignore_ties=ignore_ties,
            threshold=0,
            k=int(k) if k else None,
            params={"denominator": "relevant", "gain": "linear", "log_base": 2},
        )
        np.testing.assert_allclose(
            rows[name],
            fill_undefined(expected, np.nan, y_true),
            rtol=RTOL,
            atol=ATOL,
            err_msg=name,
        )


def deep_cut_rows(seed, n_rows, dtype, many_relevant=False):
    """Rows long enough for the selection's candidate path (more than 8 items
    per rank of the deepest cut-off), whose set cut-offs (|R| of
    R-precision, precision@5, ...) lie below the ordered depth 2: the kernel
    answers them from the selection's candidates. Distinct scores but for two
    small tie groups, one straddling the ordered depth and one straddling
    rank 3 to 5 (the deep cut-offs), so that the oracle can enumerate the
    orderings; relevant items above, inside and below the groups, and some
    not retrieved (-inf). Each row's scores sit at a random level and some
    rows have a few top scores far above the rest: the threshold the kernel
    guesses from the previous row then leaves too few candidates in some
    rows (it reads the row again, down to where the candidates' spread puts
    enough, or to -inf when that is still too few), and some rows retrieve
    fewer items than the deep cut-offs."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_rows):
        m = 300 if i % 6 == 4 else int(rng.choice([48, 57, 64]))
        by_rank = np.arange(m, 0, -1, dtype=np.float64)  # distinct, exact in float32
        if i % 5 == 3:  # three top scores, then a gap
            by_rank[:3] += 1000.0
        for start, size in ((int(rng.integers(0, 3)), 2), (int(rng.integers(2, 5)), 3)):
            by_rank[start : start + size] = by_rank[start]
        by_rank += rng.choice([0.0, 8.0, 16.0, 40.0, 200.0])
        y_score = np.empty(m)
        y_score[rng.permutation(m)] = by_rank
        y_score[rng.random(m) < (0.95 if i % 6 == 5 else 0.1)] = -np.inf
        n_rel = int(rng.integers(10, 20)) if many_relevant else int(rng.integers(3, 6))
        if many_relevant and i % 12 == 10:  # 16 retrieved, most of them relevant
            y_score[rng.permutation(m)[16:]] = -np.inf
            n_rel = 19
        y_true = np.zeros(m, dtype=np.int64)
        # Relevant items among the top ranks, and one anywhere.
        top = np.argsort(-y_score, kind="stable")[: n_rel + 3]
        chosen = rng.choice(top, n_rel - 1, replace=False)
        y_true[chosen] = rng.integers(1, 3, n_rel - 1)
        y_true[rng.choice(np.flatnonzero(y_true == 0))] = 1
        if i % 7 == 0:  # no relevant item above the deep tie group
            y_true[:] = 0
            group = np.flatnonzero(y_score == by_rank[4])
            y_true[group[0]] = 1
            others = np.flatnonzero(y_true == 0)
            y_true[rng.choice(others, n_rel - 1, replace=False)] = 1
        rows.append((y_true, y_score.astype(dtype)))
    return rows


DEEP_NAMES = {
    # R-precision at |R| in 3..5 and set cut-offs at 4 and 5, below MRR, AP
    # and nDCG at 2.
    "few": [
        "ndcg@2",
        "mrr@2",
        "map@2",
        "precision@2",
        "hit@2",
        "r_precision",
        "precision@5",
        "recall@4",
        "f1@5",
        "fbeta@4",
        "hit@5",
        "relative_precision@4",
    ],
    # Many relevant candidates (the kernel then splits the candidates at the
    # cut-off's score instead of placing each relevant one).
    "many": [
        "ndcg@2",
        "precision@5",
        "recall@5",
        "hit@5",
        "f1@4",
        "fbeta@5",
        "relative_precision@5",
    ],
    # Beyond the retrieved items of some long rows (and every row short
    # enough to be selected whole).
    "beyond": ["ndcg@2", "recall@20", "hit@20", "fbeta@20"],
    # Cut at each row's retrieved items (set measures, utility): counted, not
    # selected, in rows that retrieve more than the ordered depth.
    "retrieved": [
        "ndcg@2",
        "hit@5",
        "set_precision",
        "set_recall",
        "set_f",
        "set_relative_precision",
        "set_average_precision",
        "utility",
    ],
}


def deep_cut_expected(names, rows, ignore_ties):
    expected = {}
    for name in names:
        metric, _, k = name.partition("@")
        values = [
            oracle_row(
                metric,
                list(y_score.astype(np.float64)),
                list(y_true),
                ignore_ties=ignore_ties,
                threshold=0,
                k=int(k) if k else None,
                params={"beta": 2.0},
            )
            for y_true, y_score in rows
        ]
        empty = [
            metric not in ALWAYS_DEFINED and not np.any(y_true > 0)
            for y_true, _ in rows
        ]
        expected[name] = np.where(empty, np.nan, fill_undefined(values, np.nan))
    return expected


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("plan", sorted(DEEP_NAMES))
def test_set_cutoffs_below_the_ordered_depth_match_the_oracle(
    seed, ignore_ties, dtype, plan
):
    """Set cut-offs deeper than every order-dependent one, answered from the
    selection's candidates: dense rows (rows of one length) and the same rows
    as segments of skewed lengths (qid, with short segments between them,
    which the kernel selects whole), in one pass, against the oracle."""
    rows = deep_cut_rows(seed, 18, dtype, many_relevant=plan != "few")
    names = DEEP_NAMES[plan]
    expected = deep_cut_expected(names, rows, ignore_ties)
    options = dict(zero_division=np.nan, ignore_ties=ignore_ties, beta=2.0)
    # Dense: the rows of each length as one matrix, in order.
    for m in sorted({len(y) for y, _ in rows}):
        pick = [i for i, (y, _) in enumerate(rows) if len(y) == m]
        y_true = np.array([rows[i][0] for i in pick])
        y_score = np.array([rows[i][1] for i in pick])
        got = row_values(names, y_true, y_score, **options)
        for name in names:
            np.testing.assert_allclose(
                got[name], expected[name][pick], rtol=RTOL, atol=ATOL, err_msg=name
            )
    # Segments: every row, each followed by a short segment of its head.
    seg_rows = []
    for y_true, y_score in rows:
        seg_rows += [(y_true, y_score), (y_true[:3], y_score[:3])]
    seg_expected = deep_cut_expected(names, seg_rows, ignore_ties)
    qid = np.repeat(np.arange(len(seg_rows)), [len(y) for y, _ in seg_rows])
    got = row_values(
        names,
        np.concatenate([y for y, _ in seg_rows]),
        np.concatenate([s for _, s in seg_rows]),
        qid=qid,
        **options,
    )
    for name in names:
        np.testing.assert_allclose(
            got[name], seg_expected[name], rtol=RTOL, atol=ATOL, err_msg=name
        )
