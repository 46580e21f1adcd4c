"""Flat learning-to-rank data: 1-D y_true and y_score grouped by ``qid``.

The reference for every value is the matrix form, built here independently
with plain Python (one row per query in order of first appearance, shorter
rows padded with ``-inf``), the brute-force permutation oracle applied to the
ragged per-query lists directly, and scikit-learn's ``ndcg_score`` query by
query. The real rankers (LightGBM, XGBoost) run in grid search and
cross-validation with metadata routing, checked against a hand-written loop.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
import sklearn
from helpers import FUNCS, NO_NON_RELEVANT, configurations, oracle_row, row_values
from sklearn.base import clone
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import ndcg_score
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_validate

from sklearn_rankk import (
    get_scorer,
    ndcg_at_k_score,
    precision_recall_at_k_curve,
    ranking_report,
)
from sklearn_rankk._core.registry import METRICS

# Some generated queries have no relevant document: the warning is expected
# and its value (0.0) is what the references compute too.
pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.UndefinedMetricWarning"
)


def to_matrix(y_true, y_score, qid):
    """Groups as rows, in order of first appearance, padded with -inf (and
    grade -1: padding is no judged document, for bpref's judged count and
    fall-out's non-relevant items)."""
    groups = {}
    for t, s, q in zip(y_true, y_score, qid):
        groups.setdefault(q, []).append((t, s))
    width = max(len(g) for g in groups.values())
    Y = np.full((len(groups), width), -1.0)
    S = np.full((len(groups), width), -np.inf)
    for i, docs in enumerate(groups.values()):
        for j, (t, s) in enumerate(docs):
            Y[i, j], S[i, j] = t, s
    return Y, S, list(groups)


def flat_case(seed, n_docs=80):
    rng = np.random.default_rng(seed)
    n_queries = int(rng.integers(3, 12))
    qid = rng.integers(0, n_queries, n_docs) * 7 + 3  # not contiguous, not 0..n
    y_score = rng.integers(0, 4, n_docs).astype(float)  # heavily tied
    y_true = np.where(rng.random(n_docs) < 0.4, rng.integers(1, 4, n_docs), 0)
    y_true[qid == qid[0]] = 0  # a query with no relevant document
    return y_true, y_score, qid


def _call(metric, y_true, y_score, k, params, **kwargs):
    if METRICS[metric].needs_k:
        kwargs["k"] = k
    return FUNCS[metric](y_true, y_score, **params, **kwargs)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("metric", list(FUNCS))
def test_flat_equals_matrix_form(metric, seed):
    y_true, y_score, qid = flat_case(seed)
    Y, S, _ = to_matrix(y_true, y_score, qid)
    for (k, params), ignore_ties in itertools.product(
        configurations(metric), (False, True)
    ):
        if params.get("tn_weight", 0.0) != 0.0:
            # utility's true negatives count the row's items: padding a
            # ragged query to the matrix's width adds some.
            continue
        options = dict(ignore_ties=ignore_ties, zero_division=np.nan, average=None)
        flat = _call(metric, y_true, y_score, k, params, qid=qid, **options)
        matrix = _call(metric, Y, S, k, params, **options)
        np.testing.assert_array_equal(flat, matrix)


@pytest.mark.parametrize("seed", range(4))
def test_flat_matches_oracle_on_ragged_lists(seed):
    """The oracle takes each query's own documents: no padding at all."""
    y_true, y_score, qid = flat_case(seed, n_docs=30)
    groups = {}
    for t, s, q in zip(y_true, y_score, qid):
        groups.setdefault(q, ([], []))
        groups[q][0].append(s)
        groups[q][1].append(t)
    for metric in FUNCS:
        for k, params in configurations(metric)[:3]:
            got = _call(
                metric,
                y_true,
                y_score,
                k,
                params,
                qid=qid,
                average=None,
                zero_division=np.nan,
            )
            expected = [
                oracle_row(
                    metric, s, t, ignore_ties=False, threshold=0, k=k, params=params
                )
                for s, t in groups.values()
            ]
            # zero_division=nan: rows with no relevant item left out, for
            # every metric but utility (defined everywhere) and fall-out (None
            # on its rows with no non-relevant item).
            defined = METRICS[metric].empty_rows == "never"  # utility
            expected = [
                np.nan
                if v is None
                or not (defined or metric in NO_NON_RELEVANT or any(g > 0 for g in t))
                else v
                for v, (_, t) in zip(expected, groups.values())
            ]
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_flat_ndcg_matches_sklearn_per_query():
    rng = np.random.default_rng(0)
    qid = np.repeat(["q1", "q2", "q3", "q4"], [5, 9, 3, 12])
    rng.shuffle(qid)
    y_true = rng.integers(0, 4, qid.size)
    y_score = np.round(rng.normal(size=qid.size), 1)
    expected = [
        ndcg_score([y_true[qid == q]], [y_score[qid == q]], k=4)
        for q in dict.fromkeys(qid)
    ]
    got = ndcg_at_k_score(y_true, y_score, qid=qid, k=4, average=None)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert ndcg_at_k_score(y_true, y_score, qid=qid, k=4) == pytest.approx(
        np.mean(expected), rel=1e-12
    )


@pytest.mark.parametrize(
    "qid",
    [
        ["b", "a", "b", "c", "a", "b"],
        [2.5, 1.0, 2.5, -3.0, 1.0, 2.5],
        [("x", 1), ("y", 2), ("x", 1), 5, ("y", 2), ("x", 1)],  # mixed objects
        np.array([9, 4, 9, 0, 4, 9], dtype=np.uint8),
    ],
    ids=["str", "float", "objects", "uint8"],
)
def test_any_hashable_qid_rows_in_order_of_first_appearance(qid):
    y_true = [1, 0, 0, 1, 1, 0]
    y_score = [0.9, 0.1, 0.8, 0.5, 0.7, 0.3]
    # groups: first {0,2,5}: top-1 relevant; second {1,4}: top-1 = doc 4
    # (relevant); third {3}: relevant.
    got = row_values(["precision@1"], y_true, y_score, qid=qid)
    np.testing.assert_array_equal(got["precision@1"], [1.0, 1.0, 1.0])
    p2 = row_values(["precision@2"], y_true, y_score, qid=qid)
    np.testing.assert_array_equal(p2["precision@2"], [0.5, 0.5, 0.5])
    r = row_values(
        ["recall@1"], [0, 1, 1, 1, 0, 1], y_score, qid=qid, zero_division=np.nan
    )["recall@1"]
    np.testing.assert_array_equal(r, [0.0, 0.0, 1.0])  # ranks 0.9 first: not rel.


def test_single_document_and_empty_queries():
    y_true = [0, 1, 0, 0]
    y_score = [0.5, 0.2, 0.9, 0.1]
    qid = [1, 2, 3, 3]
    with pytest.warns(UndefinedMetricWarning, match="2 of 3 samples"):
        values = ndcg_at_k_score(y_true, y_score, qid=qid, average=None)
    np.testing.assert_array_equal(values, [0.0, 1.0, 0.0])
    assert np.isnan(
        ndcg_at_k_score(y_true, y_score, qid=qid, zero_division=np.nan, average=None)
    ).tolist() == [True, False, True]
    assert ndcg_at_k_score(y_true, y_score, qid=qid, zero_division=np.nan) == 1.0


def test_sample_weight_is_per_document_constant_per_query():
    y_true, y_score, qid = flat_case(1)
    Y, S, order = to_matrix(y_true, y_score, qid)
    query_weight = {q: 1.0 + i for i, q in enumerate(order)}
    w = np.array([query_weight[q] for q in qid])
    for metric in ("precision", "ndcg", "map"):
        flat = _call(
            metric, y_true, y_score, 3, {}, qid=qid, sample_weight=w, zero_division=0.0
        )
        matrix = _call(
            metric,
            Y,
            S,
            3,
            {},
            sample_weight=list(query_weight.values()),
            zero_division=0.0,
        )
        assert flat == pytest.approx(matrix, rel=1e-12)
    w[np.flatnonzero(qid == qid[5])[-1]] += 1.0
    with pytest.raises(ValueError, match="constant within each query"):
        ndcg_at_k_score(y_true, y_score, qid=qid, sample_weight=w)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"qid": [1, 1]}, ValueError, "qid has 2 entries but y_score has 3"),
        ({"y_true": [1, 0]}, ValueError, "y_true has 2 entries but y_score has 3"),
        ({"y_score": [[0.1, 0.2, 0.3]]}, ValueError, "y_score must be 1-D"),
        ({"y_true": [[1, 0, 0]]}, ValueError, "y_true must be 1-D"),
        ({"qid": [[1, 1, 2]]}, ValueError, "qid must be 1-D"),
        ({"qid": [1.0, np.nan, 1.0]}, ValueError, r"qid has missing values \(NaN\)"),
        ({"qid": [1, None, 1]}, ValueError, r"qid has missing values \(None\)"),
        ({"qid": ["a", float("nan"), "a"]}, ValueError, "missing values"),
        (
            {"qid": np.array(["2020-01-01", "NaT", "2020-01-01"], "datetime64[D]")},
            ValueError,
            r"missing values \(NaT\)",
        ),
        ({"qid": np.array([[1], [2], [1]], dtype=object)[:, 0]}, None, None),
        ({"labels": [0, 1]}, ValueError, "labels and qid cannot be combined"),
        ({"y_score": [0.1, np.nan, 0.3]}, ValueError, "y_score contains NaN"),
        ({"y_true": [1.0, np.nan, 0.0]}, ValueError, "y_true contains NaN"),
        ({"y_score": ["a", "b", "c"]}, TypeError, "y_score must be a numeric"),
        ({"y_score": [], "y_true": [], "qid": []}, ValueError, "no documents"),
        ({"sample_weight": [1, 1]}, ValueError, "sample_weight has 2 entries"),
    ],
)
def test_qid_errors(kwargs, error, match):
    args = {"y_true": [1, 0, 1], "y_score": [0.1, 0.2, 0.3], "qid": [1, 2, 1]}
    args.update(kwargs)
    if error is None:
        ndcg_at_k_score(**args)
        return
    with pytest.raises(error, match=match):
        ndcg_at_k_score(**args)


def test_report_and_curve_accept_qid():
    y_true, y_score, qid = flat_case(2)
    Y, S, _ = to_matrix(y_true, y_score, qid)
    w = np.ones(len(qid))
    a = ranking_report(
        y_true,
        y_score,
        qid=qid,
        k=[2, 5],
        sample_weight=w,
        random_baseline=True,
        zero_division=0.0,
    )
    b = ranking_report(Y, S, k=[2, 5], random_baseline=True, zero_division=0.0)
    assert a.scores == b.scores and a.random == b.random
    assert a.n_samples == Y.shape[0]
    c1 = precision_recall_at_k_curve(
        y_true, y_score, qid=qid, k_max=6, zero_division=0.0
    )
    c2 = precision_recall_at_k_curve(Y, S, k_max=6, zero_division=0.0)
    for x, y in zip(c1, c2):
        np.testing.assert_array_equal(x, y)


# ----------------------------------------------------------------------------
# Real rankers in model selection, through metadata routing
# ----------------------------------------------------------------------------


def ltr_data(n_queries=60, seed=0):
    """Queries of 4..15 documents, graded relevance 0..3 from a noisy linear
    function of 5 features; rows sorted by qid (as XGBoost and LightGBM
    expect), qid values not contiguous integers."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(4, 16, n_queries)
    qid = np.repeat(np.arange(n_queries) * 10 + 1000, sizes)
    X = rng.normal(size=(qid.size, 5))
    signal = X @ np.array([1.0, 0.5, -0.5, 0.0, 0.2]) + rng.normal(0, 0.7, qid.size)
    y = np.digitize(signal, [0.0, 0.8, 1.6])
    return X, y, qid


def _manual_cv(estimator, grid, X, y, qid, fit_qid, k=5):
    """mean nDCG@k over GroupKFold folds, for each parameter setting."""
    means = []
    for params in grid:
        values = []
        for train, test in GroupKFold(3).split(X, y, qid):
            model = clone(estimator).set_params(**params)
            model.fit(X[train], y[train], **fit_qid(qid[train]))
            values.append(
                ndcg_at_k_score(y[test], model.predict(X[test]), qid=qid[test], k=k)
            )
        means.append(np.mean(values))
    return np.array(means)


class QidLGBMRanker:
    """Defined below only when lightgbm is importable."""


def _qid_lgbm_ranker():
    lightgbm = pytest.importorskip("lightgbm")

    class QidLGBMRanker(lightgbm.LGBMRanker):
        """LGBMRanker that takes per-document query ids, as routing gives them.

        LightGBM wants group sizes of contiguous queries; routing can only
        split per-document metadata, so convert here.
        """

        def fit(self, X, y, qid=None, **kwargs):
            order = np.argsort(qid, kind="stable")
            _, sizes = np.unique(qid[order], return_counts=True)
            return super().fit(X[order], y[order], group=sizes, **kwargs)

    return QidLGBMRanker


def _rankers():
    out = []
    try:
        cls = _qid_lgbm_ranker()
        out.append(
            pytest.param(
                cls(
                    n_estimators=15,
                    min_child_samples=5,
                    verbose=-1,
                    random_state=0,
                    n_jobs=1,
                ),
                {"num_leaves": [3, 7]},
                lambda q: {"qid": q},
                id="lightgbm",
            )
        )
    except pytest.skip.Exception as exc:
        out.append(_missing_peer("lightgbm", exc))
    try:
        xgboost = pytest.importorskip("xgboost")
        out.append(
            pytest.param(
                xgboost.XGBRanker(
                    n_estimators=15,
                    max_depth=2,
                    random_state=0,
                    n_jobs=1,
                    tree_method="hist",
                ),
                {"max_depth": [1, 3]},
                lambda q: {"qid": q},
                id="xgboost",
            )
        )
    except pytest.skip.Exception as exc:
        out.append(_missing_peer("xgboost", exc))
    return out


def _missing_peer(name, exc):
    """A parameter that skips with importorskip's reason (the peers extra)."""
    return pytest.param(
        None, None, None, id=name, marks=pytest.mark.skip(reason=exc.msg)
    )


@pytest.mark.parametrize("ranker, grid, fit_qid", _rankers())
def test_grid_search_with_real_rankers(ranker, grid, fit_qid):
    X, y, qid = ltr_data()
    with sklearn.config_context(enable_metadata_routing=True):
        ranker = clone(ranker).set_fit_request(qid=True)
        search = GridSearchCV(
            ranker, grid, scoring=get_scorer("ndcg@5"), cv=GroupKFold(3)
        ).fit(X, y, qid=qid, groups=qid)
        expected = _manual_cv(
            ranker, list(search.cv_results_["params"]), X, y, qid, fit_qid
        )
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"], expected, rtol=1e-12
    )
    assert 0.3 < search.best_score_ <= 1.0
    # a learned ranker is far above the random baseline of the same queries
    rng = np.random.default_rng(1)
    baseline = ndcg_at_k_score(y, rng.random(len(y)), qid=qid, k=5)
    assert search.best_score_ > baseline + 0.1


@pytest.mark.parametrize("ranker, grid, fit_qid", _rankers())
def test_cross_validate_multi_metric_with_params(ranker, grid, fit_qid):
    X, y, qid = ltr_data(seed=1)
    with sklearn.config_context(enable_metadata_routing=True):
        ranker = clone(ranker).set_fit_request(qid=True)
        result = cross_validate(
            ranker,
            X,
            y,
            cv=GroupKFold(3),
            scoring=get_scorer(["ndcg@5", "map@10", "mrr"]),
            params={"qid": qid, "groups": qid},
        )
    for i, (train, test) in enumerate(GroupKFold(3).split(X, y, qid)):
        model = clone(ranker).fit(X[train], y[train], **fit_qid(qid[train]))
        scores = model.predict(X[test])
        for name, func in (("ndcg@5", "ndcg"), ("map@10", "map"), ("mrr", "mrr")):
            k = None if name == "mrr" else int(name.split("@")[1])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                expected = FUNCS[func](y[test], scores, qid=qid[test], k=k)
            assert result[f"test_{name}"][i] == pytest.approx(expected, rel=1e-12)


def test_scorer_qid_without_routing_and_classifier_rankers():
    """Called directly, a scorer takes qid; a binary classifier ranks by P(1)."""
    from sklearn.linear_model import LogisticRegression

    X, y, qid = ltr_data(seed=2)
    binary = (y >= 2).astype(int)
    model = LogisticRegression().fit(X, binary)
    scorer = get_scorer("ndcg@5", response_method="predict_proba")
    expected = ndcg_at_k_score(binary, model.predict_proba(X)[:, 1], qid=qid, k=5)
    assert scorer(model, X, binary, qid=qid) == pytest.approx(expected, rel=1e-12)
    assert get_scorer("ndcg@5")(model, X, binary, qid=qid) == pytest.approx(
        ndcg_at_k_score(binary, model.decision_function(X), qid=qid, k=5), rel=1e-12
    )
    multi = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="one score per document"):
        get_scorer("ndcg@5", response_method="predict_proba")(multi, X, y, qid=qid)


def test_flat_large_groups_cost_one_matrix_row_each():
    """Padding is -inf: a long query beside short ones changes nothing."""
    rng = np.random.default_rng(5)
    qid = np.concatenate([np.zeros(500, int), np.arange(1, 50).repeat(2)])
    y_true = (rng.random(qid.size) < 0.2).astype(int)
    y_true[0] = 1
    y_score = rng.normal(size=qid.size)
    short = qid > 0
    got = ndcg_at_k_score(
        y_true, y_score, qid=qid, k=3, average=None, zero_division=np.nan
    )
    alone = ndcg_at_k_score(
        y_true[short],
        y_score[short],
        qid=qid[short],
        k=3,
        average=None,
        zero_division=np.nan,
    )
    np.testing.assert_array_equal(got[1:], alone)
    assert not math.isnan(got[0])


def test_missing_ids_in_a_pandas_string_column():
    pd = pytest.importorskip("pandas")
    qid = pd.Series(["a", None, "b", None], dtype="string")
    with pytest.raises(ValueError, match="missing values"):
        ndcg_at_k_score([1, 0, 0, 1], [0.9, 0.5, 0.1, 0.8], k=1, qid=qid)


def test_large_integer_scores_keep_their_order():
    """2**60 and 2**60 + 1 are one float64: the flat path must not tie them."""
    y_true, y_score = [0, 1, 0], np.array([2**60, 2**60 + 1, 5])
    flat = ndcg_at_k_score(y_true, y_score, k=1, qid=[7, 7, 7])
    assert flat == 1.0  # the relevant document has the (strictly) top score
    assert flat == ndcg_at_k_score([y_true], y_score[None], k=1)


def test_report_rejects_labels_with_qid():
    with pytest.raises(ValueError, match="labels and qid cannot be combined"):
        ranking_report([1, 0], [0.2, 0.1], qid=[1, 1], labels=[0, 1])


def test_statistics_take_qid():
    from scipy import stats

    from sklearn_rankk import confidence_interval, paired_test

    y_true, a, qid = flat_case(3, n_docs=200)
    b = np.random.default_rng(9).normal(size=a.shape)
    Y, A, _ = to_matrix(y_true, a, qid)
    _, B, _ = to_matrix(y_true, b, qid)
    rows_a = ndcg_at_k_score(Y, A, k=3, average=None, zero_division=np.nan)
    rows_b = ndcg_at_k_score(Y, B, k=3, average=None, zero_division=np.nan)
    keep = ~np.isnan(rows_a)
    expected = stats.ttest_rel(rows_a[keep], rows_b[keep])
    for metric, kw in (("ndcg@3", {}), (ndcg_at_k_score, {"k": 3})):
        result = paired_test(
            y_true, a, b, metric=metric, qid=qid, zero_division=np.nan, **kw
        )
        assert result.n_samples == keep.sum()
        assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-10)
    ci = confidence_interval(y_true, a, metric="ndcg@3", qid=qid, method="t")
    assert ci.mean == pytest.approx(np.nan_to_num(rows_a).mean(), rel=1e-12)


def test_display_accumulator_and_random_baseline_take_qid():
    """qid= reaches every public entry point: the display, the accumulator
    and the random-baseline statistics equal their matrix-form calls."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from sklearn_rankk import (
        RankingAccumulator,
        RankingCurveDisplay,
        precision_at_k_random_variance,
        random_baseline_test,
    )

    y_true, y_score, qid = flat_case(4, n_docs=120)
    Y, S, _ = to_matrix(y_true, y_score, qid)
    for kind in ("precision_recall_at_k", "ndcg"):
        flat = RankingCurveDisplay.from_predictions(
            y_true, y_score, qid=qid, kind=kind, zero_division=0.0
        )
        matrix = RankingCurveDisplay.from_predictions(
            Y, S, kind=kind, zero_division=0.0
        )
        np.testing.assert_array_equal(flat.k, np.arange(1, Y.shape[1] + 1))
        for attr in ("precision", "recall", "values", "random_values"):
            a, b = getattr(flat, attr), getattr(matrix, attr)
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_array_equal(a, b)
    plt.close("all")

    # The accumulator: batches of whole queries.
    acc = RankingAccumulator(["ndcg@3", "recall@5"], zero_division=0.0)
    first = np.isin(qid, np.unique(qid)[:2])
    acc.update(y_true[first], y_score[first], qid=qid[first])
    acc.update(y_true[~first], y_score[~first], qid=qid[~first])
    assert acc.n_samples_ == Y.shape[0]
    assert acc.result()["ndcg@3"] == pytest.approx(
        ndcg_at_k_score(Y, S, k=3, zero_division=0.0), rel=1e-12
    )

    expected = random_baseline_test(Y, S, k=3)
    got = random_baseline_test(y_true, y_score, k=3, qid=qid)
    assert got == expected
    np.testing.assert_array_equal(
        precision_at_k_random_variance(y_true, y_score, k=3, qid=qid),
        precision_at_k_random_variance(Y, S, k=3),
    )


def test_accumulator_qid_weights_are_per_query():
    from sklearn_rankk import RankingAccumulator

    y_true, y_score, qid = flat_case(5, n_docs=60)
    Y, S, ids = to_matrix(y_true, y_score, qid)
    query_weight = {q: float(i + 1) for i, q in enumerate(ids)}
    w = np.array([query_weight[q] for q in qid])
    acc = RankingAccumulator("precision@2").update(y_true, y_score, w, qid=qid)
    precision_at_k_score = FUNCS["precision"]
    expected = precision_at_k_score(
        Y, S, k=2, sample_weight=[query_weight[q] for q in ids]
    )
    assert acc.result()["precision@2"] == pytest.approx(expected, rel=1e-12)
    # A batch whose queries all weigh 0 is accepted, as without qid.
    acc.update(y_true, y_score, np.zeros_like(w), qid=qid)
    assert acc.result()["precision@2"] == pytest.approx(expected, rel=1e-12)


def test_negative_threshold_with_qid():
    """Queries are segments, not padded rows: a negative threshold (grade 0
    relevant) counts only each query's own documents, as its one-row matrix
    does."""
    y_true, y_score, qid = flat_case(6, n_docs=60)
    ids = list(dict.fromkeys(qid.tolist()))
    for name, function in FUNCS.items():
        kwargs = {"k": 3} if METRICS[name].needs_k else {}
        got = function(
            y_true,
            y_score,
            qid=qid,
            relevance_threshold=-0.5,
            average=None,
            zero_division=0.0,
            **kwargs,
        )
        alone = [
            function(
                y_true[qid == q][None],
                y_score[qid == q][None],
                relevance_threshold=-0.5,
                zero_division=0.0,
                **kwargs,
            )
            for q in ids
        ]
        np.testing.assert_allclose(got, alone, rtol=1e-13, err_msg=name)
