"""compare_systems: many systems, many measures, one table.

Every number is checked against something independent of the code under
test: per-query values from brute-force precision and from hand-built
rankings; p-values from scipy (ttest_rel, wilcoxon, permutation_test,
bootstrap, false_discovery_control, tukey_hsd) and from Holm and
Bonferroni by hand; the whole table from ranx's ``compare`` where the
conventions agree; the renderers from golden strings of a hand-worked
example.
"""

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats

from sklearn_rankk import (
    PairedTestResult,
    SystemComparison,
    compare_systems,
    from_trec,
    paired_test,
)
from sklearn_rankk._stats import adjust_pvalues

# ----------------------------------------------------------------------------
# Data with per-query values known independently
# ----------------------------------------------------------------------------


def bf_precision(y_true, y_score, k):
    """P@k of tie-free rows: relevant items among the k highest scores, / k."""
    top = np.argsort(-y_score, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(y_true > 0, top, axis=1).sum(axis=1) / k


def make_systems(seed=0, n=30, n_items=12, scales=(0.8, 1.2, 3.0)):
    """Relevance with a relevant item in every row and tie-free systems."""
    rng = np.random.RandomState(seed)
    y_true = (rng.rand(n, n_items) < 0.3).astype(int)
    y_true[np.arange(n), rng.randint(n_items, size=n)] = 1
    systems = {
        f"s{i}": y_true + rng.normal(scale=s, size=(n, n_items))
        for i, s in enumerate(scales)
    }
    return y_true, systems


def scores_with_ranks(ranks, n_items=4):
    """(y_true, y_score): one relevant item per row (column 0), at ``ranks``."""
    ranks = np.asarray(ranks)
    n = ranks.shape[0]
    y_true = np.zeros((n, n_items), dtype=int)
    y_true[:, 0] = 1
    y_score = np.empty((n, n_items))
    for i, r in enumerate(ranks):
        others = [v for v in range(n_items, 0, -1) if v != n_items + 1 - r]
        y_score[i] = [n_items + 1 - r, *others]
    return y_true, y_score


# Hand-worked: the relevant item's rank per query, for three systems.
RANKS = {
    "base": [1, 1, 1, 1, 2, 2, 3, 4],  # hit@1 4/8, mrr 5.5833/8
    "good": [1, 1, 1, 1, 1, 1, 1, 2],  # hit@1 7/8, mrr 7.5/8
    "bad": [2, 2, 1, 3, 4, 4, 4, 4],  # hit@1 1/8, mrr 3.3333/8
}


def hand_example(**kwargs):
    y_true = scores_with_ranks(RANKS["base"])[0]
    systems = {name: scores_with_ranks(r)[1] for name, r in RANKS.items()}
    return compare_systems(y_true, systems, measures=["hit@1", "mrr"], **kwargs)


def test_hand_example_per_query_values_and_means():
    res = hand_example(baseline="base", correction=None)
    for name, ranks in RANKS.items():
        ranks = np.asarray(ranks)
        assert res.per_query["hit@1"][name].tolist() == (ranks == 1).tolist()
        assert res.per_query["mrr"][name] == pytest.approx(1 / ranks)
    assert res.means["hit@1"] == {"base": 0.5, "good": 0.875, "bad": 0.125}
    assert res.means["mrr"] == pytest.approx(
        {
            "base": (4 + 1 / 2 + 1 / 2 + 1 / 3 + 1 / 4) / 8,
            "good": 7.5 / 8,
            "bad": (1 / 2 + 1 / 2 + 1 + 1 / 3 + 4 / 4) / 8,
        }
    )
    assert res.qids == tuple(range(8))
    assert res.pairs == [("good", "base"), ("bad", "base")]
    # good vs base on hit@1: wins where good is at 1 and base is not.
    assert res.win_tie_loss["hit@1", "good", "base"] == (3, 5, 0)
    assert res.win_tie_loss["mrr", "good", "base"] == (4, 4, 0)
    assert res.win_tie_loss["mrr", "bad", "base"] == (0, 2, 6)
    assert isinstance(res, SystemComparison)
    assert isinstance(res["mrr", "good", "base"], PairedTestResult)


# ----------------------------------------------------------------------------
# Each test against scipy
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("baseline", ["s1", None])
def test_paired_t_matches_scipy(baseline):
    y_true, systems = make_systems()
    res = compare_systems(
        y_true,
        systems,
        measures=["precision@3", "precision@5"],
        baseline=baseline,
        correction=None,
    )
    for measure, k in (("precision@3", 3), ("precision@5", 5)):
        values = {s: bf_precision(y_true, y, k) for s, y in systems.items()}
        for a, b in res.pairs:
            ref = stats.ttest_rel(values[a], values[b])
            got = res[measure, a, b]
            assert got.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
            assert got.statistic == pytest.approx(ref.statistic, rel=1e-10)
            low, high = ref.confidence_interval(0.95)
            assert got.confidence_interval == pytest.approx((low, high), rel=1e-10)
            d = values[a] - values[b]
            assert got.difference == pytest.approx(d.mean())
            assert got.effect_size == pytest.approx(d.mean() / d.std(ddof=1))
            assert res.pvalues_corrected[measure, a, b] == got.pvalue
        assert res.means[measure] == pytest.approx(
            {s: v.mean() for s, v in values.items()}
        )


def test_wilcoxon_matches_scipy():
    y_true, systems = make_systems(seed=1, n=40)
    res = compare_systems(
        y_true,
        systems,
        measures=["precision@4"],
        baseline="s0",
        method="wilcoxon",
        correction=None,
        random_state=0,
    )
    values = {s: bf_precision(y_true, y, 4) for s, y in systems.items()}
    for a, b in res.pairs:
        ref = stats.wilcoxon(values[a] - values[b])
        assert res["precision@4", a, b].pvalue == pytest.approx(ref.pvalue, rel=1e-10)
        assert res["precision@4", a, b].effect_size_name == "rank_biserial"


def test_randomization_is_exact_and_matches_scipy_permutation_test():
    # 12 queries: 2**12 = 4096 sign vectors <= n_resamples, so exact.
    y_true, systems = make_systems(seed=2, n=12)
    res = compare_systems(
        y_true,
        systems,
        measures=["precision@3"],
        method="randomization",
        correction=None,
        n_resamples=5000,
    )
    values = {s: bf_precision(y_true, y, 3) for s, y in systems.items()}
    for a, b in res.pairs:
        ref = stats.permutation_test(
            (values[a], values[b]),
            lambda x, y, axis: np.mean(x - y, axis=axis),
            permutation_type="samples",
            n_resamples=np.inf,
            vectorized=True,
        )
        assert res["precision@3", a, b].pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def _scipy_bootstrap_pvalue(d, n_resamples, seed):
    """The paired bootstrap test from scipy's bootstrap distribution of the mean."""
    key = "rng" if "rng" in stats.bootstrap.__code__.co_varnames else "random_state"
    dist = stats.bootstrap(
        (d,),
        np.mean,
        n_resamples=n_resamples,
        method="percentile",
        **{key: np.random.default_rng(seed)},
    ).bootstrap_distribution
    extreme = np.abs(dist - d.mean()) >= abs(d.mean()) - 1e-12
    return (1 + np.count_nonzero(extreme)) / (1 + n_resamples)


def test_bootstrap_test_agrees_with_scipy_bootstrap_and_exact_enumeration():
    y_true, systems = make_systems(seed=3, n=25)
    n_resamples = 20000
    res = compare_systems(
        y_true,
        systems,
        measures=["precision@3"],
        baseline="s2",
        method="bootstrap",
        correction=None,
        n_resamples=n_resamples,
        random_state=0,
    )
    values = {s: bf_precision(y_true, y, 3) for s, y in systems.items()}
    for a, b in res.pairs:
        d = values[a] - values[b]
        ref = _scipy_bootstrap_pvalue(d, n_resamples, seed=1)
        got = res["precision@3", a, b].pvalue
        # Two independent Monte Carlo estimates of one p-value.
        sd = np.sqrt(max(ref * (1 - ref), 1 / n_resamples) / n_resamples)
        assert abs(got - ref) <= 5 * np.sqrt(2) * sd + 2 / n_resamples
    # Exact: 6 queries, every one of the 6**6 equally likely resamples.
    d = np.array([0.5, 0.2, -0.1, 0.4, 0.0, 0.3])
    idx = np.array(list(itertools.product(range(6), repeat=6)))
    centred = (d - d.mean())[idx].mean(axis=1)
    exact = np.mean(np.abs(centred) >= abs(d.mean()) - 1e-12)
    zeros = np.zeros((6, 2))
    got = paired_test(
        np.ones((6, 2), dtype=int),
        np.column_stack([d, np.zeros(6)]),
        zeros,
        metric=column0,
        method="bootstrap",
        n_resamples=40000,
        random_state=0,
    ).pvalue
    assert got == pytest.approx(exact, abs=5 * np.sqrt(exact * (1 - exact) / 40000))


def column0(y_true, y_score, *, average=None):
    """A 'metric' whose per-row values are the first column of y_score."""
    assert average is None
    return np.asarray(y_score, dtype=np.float64)[:, 0]


# ----------------------------------------------------------------------------
# Corrections
# ----------------------------------------------------------------------------


def holm_by_hand(p):
    m = len(p)
    order = np.argsort(p)
    out, running = np.empty(m), 0.0
    for i, j in enumerate(order):
        running = max(running, (m - i) * p[j])
        out[j] = min(1.0, running)
    return out


@pytest.mark.parametrize("method", ["bh", "by"])
def test_fdr_adjustments_match_scipy(method):
    rng = np.random.RandomState(0)
    for _ in range(50):
        p = rng.uniform(0, 0.3, size=rng.randint(1, 12)) ** 2
        ref = stats.false_discovery_control(p, method=method)
        assert adjust_pvalues(p, method) == pytest.approx(ref, rel=1e-12)


def test_holm_and_bonferroni_by_hand():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    assert adjust_pvalues(p, "holm") == pytest.approx(holm_by_hand(p))
    assert adjust_pvalues(p, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])
    assert adjust_pvalues(p, None) == pytest.approx(p)


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh", "by", None])
def test_corrections_are_per_measure(correction):
    y_true, systems = make_systems(seed=4, n=30, scales=(0.8, 1.0, 1.3, 3.0))
    measures = ["precision@2", "precision@6"]
    res = compare_systems(
        y_true, systems, measures=measures, correction=correction, alpha=0.05
    )
    for measure, k in zip(measures, (2, 6)):
        values = {s: bf_precision(y_true, y, k) for s, y in systems.items()}
        pairs = list(itertools.combinations(systems, 2))
        raw = np.array([stats.ttest_rel(values[a], values[b]).pvalue for a, b in pairs])
        if correction == "holm":
            expected = holm_by_hand(raw)
        elif correction == "bonferroni":
            expected = np.minimum(1, len(raw) * raw)
        elif correction is None:
            expected = raw
        else:
            expected = stats.false_discovery_control(raw, method=correction)
        got = [res.pvalues_corrected[measure, a, b] for a, b in pairs]
        assert got == pytest.approx(list(expected), rel=1e-9)
        assert [res.reject[measure, a, b] for a, b in pairs] == list(expected <= 0.05)


def test_tukey_matches_scipy_tukey_hsd():
    y_true, systems = make_systems(seed=5, n=30)
    res = compare_systems(y_true, systems, measures=["precision@4"], correction="tukey")
    values = [bf_precision(y_true, y, 4) for y in systems.values()]
    ref = stats.tukey_hsd(*values).pvalue
    names = list(systems)
    for a, b in res.pairs:
        i, j = names.index(a), names.index(b)
        assert res.pvalues_corrected["precision@4", a, b] == pytest.approx(ref[i, j])
        # The raw p-values stay those of the paired test.
        raw = stats.ttest_rel(values[i], values[j]).pvalue
        assert res["precision@4", a, b].pvalue == pytest.approx(raw)


def test_randomized_tests_are_reproducible():
    y_true, systems = make_systems(seed=6, n=40)
    for method in ("randomization", "bootstrap"):
        runs = [
            compare_systems(
                y_true,
                systems,
                measures=["precision@3"],
                method=method,
                n_resamples=999,
                random_state=seed,
            )
            for seed in (0, 0, 1)
        ]
        first, again, other = (r.pvalues for r in runs)
        assert first == again
        assert first != other


# ----------------------------------------------------------------------------
# Losses: lower is better
# ----------------------------------------------------------------------------


def test_a_loss_is_better_when_lower():
    y_true, systems = make_systems(seed=7, n=40, scales=(0.5, 5.0))
    res = compare_systems(
        y_true,
        systems,
        measures=["fall_out@5", "precision@5"],
        baseline="s1",
        correction=None,
    )
    assert res.greater_is_better == {"fall_out@5": False, "precision@5": True}
    wins, ties, losses = res.win_tie_loss["fall_out@5", "s0", "s1"]
    fall_out = res.per_query["fall_out@5"]
    assert wins == np.count_nonzero(fall_out["s0"] < fall_out["s1"])
    assert losses == np.count_nonzero(fall_out["s0"] > fall_out["s1"])
    # s0 is much better: a lower fall-out and a higher precision, both "+".
    assert res[("fall_out@5", "s0", "s1")].difference < 0
    assert res._markers("fall_out@5", "s0") == "+"
    assert res._markers("precision@5", "s0") == "+"
    assert res._best("fall_out@5") == {"s0"}


# ----------------------------------------------------------------------------
# Query sets
# ----------------------------------------------------------------------------


def triples():
    """Three systems as from_trec triples; b lacks q3, c lacks q1 and q4."""
    qrels = {q: {"d1": 1, "d2": 0, "d3": 1} for q in ("q1", "q2", "q3", "q4")}
    docs = {"d1": 0.9, "d2": 0.5, "d3": 0.1}
    worse = {"d1": 0.1, "d2": 0.9, "d3": 0.5}
    run_a = {q: docs for q in qrels}
    run_b = {q: worse for q in ("q1", "q2", "q4")}
    run_c = {q: docs for q in ("q2", "q3")}
    return qrels, {
        name: from_trec(qrels, run)
        for name, run in (("a", run_a), ("b", run_b), ("c", run_c))
    }


def test_different_query_sets_are_an_error_naming_the_queries():
    _, systems = triples()
    with pytest.raises(ValueError) as info:
        compare_systems(None, systems, measures=["precision@1"])
    message = str(info.value)
    assert "system 'b' lacks 1 of the 4 queries: 'q3'" in message
    assert "system 'c' lacks 2 of the 4 queries: 'q1', 'q4'" in message
    assert "missing_queries='zero'" in message and "'drop'" in message


def test_missing_queries_zero_scores_them_zero_as_trec_eval_c():
    qrels, systems = triples()
    res = compare_systems(
        None, systems, measures=["precision@1", "recall@3"], missing_queries="zero"
    )
    assert res.qids == ("q1", "q2", "q3", "q4")
    # a ranks d1 first everywhere, b d2 (not relevant), c as a where it ran.
    assert res.per_query["precision@1"]["a"].tolist() == [1, 1, 1, 1]
    assert res.per_query["precision@1"]["b"].tolist() == [0, 0, 0, 0]
    assert res.per_query["precision@1"]["c"].tolist() == [0, 1, 1, 0]
    assert res.per_query["recall@3"]["b"].tolist() == [1, 1, 0, 1]
    assert res.filled_queries == {"b": ("q3",), "c": ("q1", "q4")}
    assert "3 missing system-query pairs scored 0" in res.to_markdown()
    # The same as reading every run with from_trec(..., complete=True).
    complete = {
        name: from_trec(qrels, run, complete=True)
        for name, run in (
            ("a", {q: {"d1": 0.9, "d2": 0.5, "d3": 0.1} for q in qrels}),
            ("c", {q: {"d1": 0.9, "d2": 0.5, "d3": 0.1} for q in ("q2", "q3")}),
        )
    }
    ref = compare_systems(None, complete, measures=["precision@1", "recall@3"])
    for m in ("precision@1", "recall@3"):
        assert ref.per_query[m]["c"].tolist() == res.per_query[m]["c"].tolist()


def test_missing_queries_drop_keeps_the_common_ones():
    _, systems = triples()
    del systems["c"]
    res = compare_systems(
        None, systems, measures=["precision@1"], missing_queries="drop"
    )
    assert res.qids == ("q1", "q2", "q4")
    assert res.dropped_queries == ("q3",)
    assert res.per_query["precision@1"]["a"].tolist() == [1, 1, 1]
    assert res.filled_queries == {}
    assert "1 queries not in every system left out" in res.to_markdown()


def test_drop_needs_two_common_queries():
    _, systems = triples()  # only q2 is in every system
    with pytest.raises(ValueError, match="Only 1 queries are common"):
        compare_systems(None, systems, measures=["precision@1"], missing_queries="drop")


def test_matrices_share_queries_and_qid_names_them():
    y_true, systems = make_systems(seed=8, n=10, n_items=6)
    res = compare_systems(y_true, systems, measures=["precision@2"])
    assert res.qids == tuple(range(10))
    # The same data as flat learning-to-rank rows, queries named by qid,
    # documents shuffled.
    rng = np.random.RandomState(0)
    qid = np.repeat([f"q{i}" for i in range(10)], 6)
    order = rng.permutation(60)
    flat = compare_systems(
        y_true.ravel()[order],
        {name: y.ravel()[order] for name, y in systems.items()},
        measures=["precision@2"],
        qid=qid[order],
    )
    first = list(dict.fromkeys(qid[order]))
    assert flat.qids == tuple(first)
    rows = [int(q[1:]) for q in first]
    for name in systems:
        np.testing.assert_allclose(
            flat.per_query["precision@2"][name],
            res.per_query["precision@2"][name][rows],
        )


def test_class_labels_with_scores_per_class():
    rng = np.random.RandomState(0)
    y = rng.randint(0, 4, size=30)
    onehot = np.eye(4)[y]
    systems = {"sharp": onehot + rng.rand(30, 4), "noise": rng.rand(30, 4)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = compare_systems(y, systems, measures=["hit@1"], baseline="noise")
    expected = (np.argmax(systems["sharp"], axis=1) == y).astype(float)
    assert res.per_query["hit@1"]["sharp"].tolist() == expected.tolist()


def test_trec_qrels_and_runs_as_files_and_dicts(tmp_path):
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1}}
    runs = {
        "x": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d5": 2.0, "d4": 1.0}},
        "y": {"q1": {"d2": 3.0, "d3": 2.0, "d1": 1.0}, "q2": {"d6": 2.0, "d4": 1.0}},
    }
    res = compare_systems(qrels, runs, measures=["precision@1", "recall@2"])
    assert res.qids == ("q1", "q2")
    assert res.per_query["precision@1"]["x"].tolist() == [1, 1]
    assert res.per_query["precision@1"]["y"].tolist() == [0, 0]
    assert res.per_query["recall@2"]["y"].tolist() == [0.5, 0.5]
    qrels_file = tmp_path / "qrels"
    qrels_file.write_text(
        "".join(
            f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()
        )
    )
    files = {}
    for name, run in runs.items():
        path = tmp_path / f"run.{name}"
        path.write_text(
            "".join(
                f"{q} Q0 {d} {i} {s} {name}\n"
                for q, docs in run.items()
                for i, (d, s) in enumerate(docs.items())
            )
        )
        files[name] = str(path)
    again = compare_systems(
        str(qrels_file), files, measures=["precision@1", "recall@2"]
    )
    for m in res.measures:
        for s in res.systems:
            assert again.per_query[m][s].tolist() == res.per_query[m][s].tolist()


def test_input_errors():
    y_true, systems = make_systems(n=6, n_items=5)
    with pytest.raises(TypeError, match="systems must be a dict"):
        compare_systems(y_true, list(systems.values()), measures=["mrr"])
    with pytest.raises(ValueError, match="at least 2 systems"):
        compare_systems(y_true, {"a": systems["s0"]}, measures=["mrr"])
    with pytest.raises(ValueError, match="baseline='zz' is not one of the systems"):
        compare_systems(y_true, systems, measures=["mrr"], baseline="zz")
    with pytest.raises(ValueError, match="measures is empty"):
        compare_systems(y_true, systems, measures=[])
    with pytest.raises(ValueError, match="Duplicate names in measures"):
        compare_systems(y_true, systems, measures=["mrr", "mrr"])
    with pytest.raises(ValueError, match="correction must be one of"):
        compare_systems(y_true, systems, measures=["mrr"], correction="sidak")
    with pytest.raises(ValueError, match="method must be one of"):
        compare_systems(y_true, systems, measures=["mrr"], method="z")
    with pytest.raises(ValueError, match="missing_queries must be one of"):
        compare_systems(y_true, systems, measures=["mrr"], missing_queries="fill")
    with pytest.raises(ValueError, match="alpha must be strictly between"):
        compare_systems(y_true, systems, measures=["mrr"], alpha=1.5)
    with pytest.raises(TypeError, match="each system must be a score array"):
        compare_systems(y_true, {"a": systems["s0"], "b": {"q": {}}}, measures=["mrr"])
    with pytest.raises(TypeError, match="each system must be the"):
        compare_systems(None, systems, measures=["mrr"])
    with pytest.raises(TypeError, match="each system must be a run"):
        compare_systems({"q": {"d": 1}}, systems, measures=["mrr"])
    with pytest.raises(ValueError, match="Unknown|unknown|not a"):
        compare_systems(y_true, systems, measures=["nonsense@3"])


def test_undefined_queries_left_out_with_nan():
    y_true, systems = make_systems(seed=9, n=20)
    y_true[:3] = 0  # three queries without a relevant item
    res = compare_systems(
        y_true, systems, measures=["recall@5"], baseline="s0", zero_division=np.nan
    )
    v = res.per_query["recall@5"]
    assert np.isnan(v["s0"][:3]).all()
    assert res.means["recall@5"]["s0"] == pytest.approx(np.mean(v["s0"][3:]))
    assert res["recall@5", "s1", "s0"].n_samples == 17
    assert sum(res.win_tie_loss["recall@5", "s1", "s0"]) == 17
    assert res.to_markdown().endswith(
        "Mean over the 17 of 20 queries where each measure is defined "
        "(zero_division=nan leaves out the others). Paired t-test, Holm "
        "correction per measure, alpha = 0.05: + (-) marks a system significantly "
        "better (worse) than the baseline, s0. Best mean of each measure in bold."
    )


# ----------------------------------------------------------------------------
# Against ranx's compare
# ----------------------------------------------------------------------------


def ranx_data(seed=0, n_queries=25, n_docs=30):
    """qrels and three runs as dicts; every query has a relevant document,
    every run ranks every query, scores are distinct within a query."""
    rng = np.random.RandomState(seed)
    qrels, runs = {}, {"bm25": {}, "dense": {}, "random": {}}
    for q in range(n_queries):
        qid = f"q{q:02d}"
        grades = (rng.rand(n_docs) < 0.2) * rng.randint(1, 3, size=n_docs)
        grades[rng.randint(n_docs)] = 2
        qrels[qid] = {f"d{d}": int(g) for d, g in enumerate(grades) if g > 0}
        for name, noise in (("bm25", 1.5), ("dense", 0.7), ("random", 50.0)):
            scores = grades + rng.normal(scale=noise, size=n_docs)
            # The run retrieves 20 of the 30 documents: some relevant ones miss.
            top = np.argsort(-scores)[:20]
            runs[name][qid] = {f"d{d}": float(scores[d]) for d in top}
    return qrels, runs


RANX_MEASURES = ["ndcg@10", "map@100", "precision@5", "recall@10", "mrr@10"]


def test_table_matches_ranx_compare_student_t():
    ranx = pytest.importorskip("ranx")
    qrels, runs = ranx_data()
    res = compare_systems(qrels, runs, measures=RANX_MEASURES, correction=None)
    report = ranx.compare(
        ranx.Qrels(qrels),
        [ranx.Run(run, name=name) for name, run in runs.items()],
        metrics=RANX_MEASURES,
        stat_test="student",
        max_p=0.05,
    )
    for m in RANX_MEASURES:
        for s in runs:
            assert res.means[m][s] == pytest.approx(report.results[s][m], rel=1e-9)
        for a, b in res.pairs:
            ref = report.comparisons[a, b][m]["p_value"]
            assert res[m, a, b].pvalue == pytest.approx(ref, rel=1e-9)
            w = report.win_tie_loss[a, b][m]
            assert res.win_tie_loss[m, a, b] == (w["W"], w["T"], w["L"])


def test_tukey_matches_ranx_compare_tukey():
    ranx = pytest.importorskip("ranx")
    qrels, runs = ranx_data(seed=1)
    res = compare_systems(qrels, runs, measures=RANX_MEASURES, correction="tukey")
    report = ranx.compare(
        ranx.Qrels(qrels),
        [ranx.Run(run, name=name) for name, run in runs.items()],
        metrics=RANX_MEASURES,
        stat_test="tukey",
        max_p=0.05,
    )
    for m in RANX_MEASURES:
        for a, b in res.pairs:
            ref = report.comparisons[a, b][m]["p_value"]
            assert res.pvalues_corrected[m, a, b] == pytest.approx(ref, rel=1e-9)


# ----------------------------------------------------------------------------
# Renderers: golden strings of the hand-worked example
# ----------------------------------------------------------------------------


def test_hand_example_significance_premises():
    """The markers below follow from these scipy p-values (all < 0.1)."""
    values = {n: 1 / np.asarray(r) for n, r in RANKS.items()}
    hits = {n: (np.asarray(r) == 1).astype(float) for n, r in RANKS.items()}
    for v in (values, hits):
        for a, b in itertools.combinations(RANKS, 2):
            assert stats.ttest_rel(v[a], v[b]).pvalue < 0.1
    assert stats.ttest_rel(hits["good"], hits["base"]).pvalue == pytest.approx(
        0.0796, abs=1e-4
    )


GOLDEN_TEXT = """\
Mean over 8 queries. Paired t-test, no correction, alpha = 0.1: + (-) marks a
system significantly better (worse) than the baseline, base.

system    hit@1      mrr
base    0.5000   0.6979
good    0.8750+  0.9375+
bad     0.1250-  0.4167-

diff. = system - vs, effect = Cohen's d_z, p adj. = corrected p, * = significant
measure  system  vs      diff.        95% interval  effect       p   p adj.  W/T/L
hit@1    good    base  +0.3750  [-0.0577, +0.8077]  +0.725  0.0796  0.0796*  3/5/0
hit@1    bad     base  -0.3750  [-0.8077, +0.0577]  -0.725  0.0796  0.0796*  0/5/3
mrr      good    base  +0.2396  [+0.0057, +0.4734]  +0.856  0.0459  0.0459*  4/4/0
mrr      bad     base  -0.2812  [-0.4917, -0.0708]  -1.117  0.0159  0.0159*  0/2/6"""

GOLDEN_MARKDOWN = """\
| system | hit@1 | mrr |
|:--|--:|--:|
| base | 0.5000 | 0.6979 |
| good | **0.8750**<sup>+</sup> | **0.9375**<sup>+</sup> |
| bad | 0.1250<sup>-</sup> | 0.4167<sup>-</sup> |

Mean over 8 queries. Paired t-test, no correction, alpha = 0.1: + (-) marks a \
system significantly better (worse) than the baseline, base. Best mean of each \
measure in bold."""

GOLDEN_LATEX = (
    r"""\begin{table}
\centering
\caption{Mean over 8 queries. Paired t-test, no correction, $\alpha = 0.1$: """
    r"""$^{+}$ ($^{-}$) marks a system significantly better (worse) than the """
    r"""baseline, base. Best mean of each measure in bold.}
\label{tab:hand}
\begin{tabular}{lrr}
\toprule
System & hit@1 & mrr \\
\midrule
base & 0.5000 & 0.6979 \\
good & \textbf{0.8750}$^{+}$ & \textbf{0.9375}$^{+}$ \\
bad & 0.1250$^{-}$ & 0.4167$^{-}$ \\
\bottomrule
\end{tabular}
\end{table}"""
)

GOLDEN_HTML = """\
<table>
<caption>Mean over 8 queries. Paired t-test, no correction, alpha = 0.1: + (-) \
marks a system significantly better (worse) than the baseline, base. Best mean \
of each measure in bold.</caption>
<thead><tr><th>system</th><th style="text-align: right">hit@1</th>\
<th style="text-align: right">mrr</th></tr></thead>
<tbody>
<tr><th>base</th><td style="text-align: right">0.5000</td>\
<td style="text-align: right">0.6979</td></tr>
<tr><th>good</th><td style="text-align: right"><b>0.8750</b><sup>+</sup></td>\
<td style="text-align: right"><b>0.9375</b><sup>+</sup></td></tr>
<tr><th>bad</th><td style="text-align: right">0.1250<sup>-</sup></td>\
<td style="text-align: right">0.4167<sup>-</sup></td></tr>
</tbody>
</table>"""

GOLDEN_ALL_PAIRS = (
    r"""\begin{table}
\centering
\caption{Mean over 8 queries. Paired t-test, no correction, $\alpha = 0.1$: a """
    r"""superscript letter marks a system significantly better than the system """
    r"""of that letter. Best mean of each measure in bold.}
\begin{tabular}{lrr}
\toprule
System & hit@1 & mrr \\
\midrule
(a) base & 0.5000$^{c}$ & 0.6979$^{c}$ \\
(b) good & \textbf{0.8750}$^{ac}$ & \textbf{0.9375}$^{ac}$ \\
(c) bad & 0.1250 & 0.4167 \\
\bottomrule
\end{tabular}
\end{table}"""
)


def test_renderers_golden_strings():
    res = hand_example(baseline="base", correction=None, alpha=0.1)
    assert str(res) == GOLDEN_TEXT
    assert repr(res) == GOLDEN_TEXT
    assert res.to_markdown() == GOLDEN_MARKDOWN
    assert res.to_latex(label="tab:hand") == GOLDEN_LATEX
    assert res._repr_html_() == GOLDEN_HTML
    pairs = hand_example(correction=None, alpha=0.1)
    assert pairs.to_latex() == GOLDEN_ALL_PAIRS
    assert pairs.to_string(details=False).splitlines()[3:] == [
        "system       hit@1       mrr",
        "(a) base  0.5000c   0.6979c",
        "(b) good  0.8750ac  0.9375ac",
        "(c) bad   0.1250    0.4167",
    ]


def test_caption_names_each_test_and_correction():
    res = hand_example(baseline="base", method="wilcoxon", correction="by")
    assert "Wilcoxon signed-rank test, Benjamini-Yekutieli correction per measure" in (
        res.to_latex()
    )
    res = hand_example(method="randomization", correction="tukey", random_state=0)
    assert "Fisher's randomization test (paired, sign flips), Tukey HSD" in (
        res.to_markdown()
    )
    res = hand_example(method="bootstrap", correction="holm", random_state=0)
    assert "Paired bootstrap test, Holm correction per measure" in str(res)


def test_latex_escapes_names():
    y_true, systems = make_systems(n=10)
    systems = {"bm25_rm3 & co": systems["s0"], "50%": systems["s1"]}
    tex = compare_systems(
        y_true, systems, measures=["r_precision"], baseline="50%"
    ).to_latex()
    assert r"bm25\_rm3 \& co" in tex
    assert r"r\_precision" in tex
    assert r"baseline, 50\%." in tex


def test_to_frame():
    pd = pytest.importorskip("pandas")
    res = hand_example(baseline="base", correction=None, alpha=0.1)
    tests = res.to_frame()
    assert list(tests["system"]) == ["good", "bad", "good", "bad"]
    assert list(tests["baseline"]) == ["base"] * 4
    assert tests["pvalue"].tolist() == pytest.approx(
        [0.07960201, 0.07960201, 0.04592392, 0.01592584]
    )
    assert tests[["wins", "ties", "losses"]].values.tolist() == [
        [3, 5, 0],
        [0, 5, 3],
        [4, 4, 0],
        [0, 2, 6],
    ]
    means = res.to_frame("means")
    assert means.loc["good", "hit@1"] == 0.875
    assert list(means.index) == ["base", "good", "bad"]
    per_query = res.to_frame("per_query")
    assert per_query.shape == (8, 6)
    assert per_query[("mrr", "bad")].tolist() == pytest.approx(
        1 / np.array(RANKS["bad"])
    )
    assert isinstance(per_query.columns, pd.MultiIndex)
    with pytest.raises(ValueError, match="kind must be one of"):
        res.to_frame("wide")


# ----------------------------------------------------------------------------
# The display of per-query differences
# ----------------------------------------------------------------------------


def legend(display):
    return [t.get_text() for t in display.ax_.get_legend().get_texts()]


@pytest.fixture
def pyplot():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    plt.switch_backend("Agg")
    yield plt
    plt.close("all")


def test_display_from_comparison_sorted_bars(pyplot):
    from sklearn_rankk import PerQueryDifferenceDisplay

    res = hand_example(baseline="base")
    display = PerQueryDifferenceDisplay.from_comparison(
        res, measure="mrr", system="bad"
    )
    diff = 1 / np.array(RANKS["bad"]) - 1 / np.array(RANKS["base"])
    heights = [bar.get_height() for bar in display.bars_]
    assert heights == pytest.approx(sorted(diff, reverse=True))
    assert display.differences == pytest.approx(diff)
    assert sorted(display.order_.tolist()) == list(range(8))
    assert display.ax_ is display.bars_[0].axes
    assert display.figure_ is display.ax_.figure
    assert display.ax_.get_ylabel() == "mrr: bad - base"
    assert legend(display) == [
        "better on 0 of 8 queries",
        "tied on 2 of 8 queries",
        "worse on 6 of 8 queries",
    ]
    # Losses orange (C1), ties grey.
    from matplotlib.colors import to_rgba

    colors = [bar.get_facecolor() for bar in display.bars_]
    assert colors[:2] == [to_rgba("0.6")] * 2
    assert colors[2:] == [to_rgba("C1")] * 6


def test_display_draws_on_the_given_axes_and_replots(pyplot):
    from sklearn_rankk import PerQueryDifferenceDisplay

    res = hand_example(baseline="base")
    fig, (ax1, ax2) = pyplot.subplots(1, 2)
    display = PerQueryDifferenceDisplay.from_comparison(res, ax=ax1)
    assert display.ax_ is ax1 and (display.name, display.measure) == ("good", "hit@1")
    display.plot(ax=ax2, name="renamed", color="k")
    assert display.ax_ is ax2
    assert display.ax_.get_ylabel() == "hit@1: renamed - base"
    assert display.bars_[0].get_facecolor() == (0.0, 0.0, 0.0, 1.0)


def test_display_loss_gains_are_negative_differences(pyplot):
    from sklearn_rankk import PerQueryDifferenceDisplay

    display = PerQueryDifferenceDisplay(
        differences=[0.2, -0.1, np.nan, 0.0], greater_is_better=False
    ).plot()
    assert [b.get_height() for b in display.bars_] == pytest.approx([-0.1, 0.0, 0.2])
    assert display.order_.tolist() == [1, 3, 0]
    assert legend(display) == [
        "better on 1 of 3 queries",
        "tied on 1 of 3 queries",
        "worse on 1 of 3 queries",
    ]


def test_display_from_predictions_matches_the_metric(pyplot):
    from sklearn_rankk import PerQueryDifferenceDisplay

    y_true, systems = make_systems(seed=10, n=15)
    display = PerQueryDifferenceDisplay.from_predictions(
        y_true,
        systems["s0"],
        systems["s2"],
        metric="precision@3",
        name="s0",
        baseline_name="s2",
    )
    expected = bf_precision(y_true, systems["s0"], 3) - bf_precision(
        y_true, systems["s2"], 3
    )
    assert display.differences == pytest.approx(expected)


def test_display_errors(pyplot):
    from sklearn_rankk import PerQueryDifferenceDisplay

    with pytest.raises(ValueError, match="has no baseline"):
        PerQueryDifferenceDisplay.from_comparison(hand_example())
    res = hand_example(baseline="base")
    with pytest.raises(ValueError, match="measure='map' is not one of"):
        PerQueryDifferenceDisplay.from_comparison(res, measure="map")
    with pytest.raises(ValueError, match="system='base' is not one of"):
        PerQueryDifferenceDisplay.from_comparison(res, system="base")
    with pytest.raises(ValueError, match="non-empty 1-D"):
        PerQueryDifferenceDisplay(differences=[]).plot()
    with pytest.raises(ValueError, match="name and baseline_name must differ"):
        PerQueryDifferenceDisplay.from_predictions(
            np.eye(3), np.eye(3), np.eye(3), metric="mrr", name="a", baseline_name="a"
        )


@pytest.mark.parametrize("correction", ["bh", "by"])
def test_compare_models_takes_the_fdr_corrections(correction):
    from sklearn_rankk import compare_models

    y_true, systems = make_systems(seed=11, n=30, scales=(0.8, 1.0, 1.3, 3.0))
    res = compare_models(y_true, systems, metric="precision@4", correction=correction)
    values = {s: bf_precision(y_true, y, 4) for s, y in systems.items()}
    pairs = list(itertools.combinations(systems, 2))
    raw = [stats.ttest_rel(values[a], values[b]).pvalue for a, b in pairs]
    expected = stats.false_discovery_control(raw, method=correction)
    assert [res.pvalues_corrected[p] for p in pairs] == pytest.approx(list(expected))


def test_one_engine_pass_per_system_for_all_measures(monkeypatch):
    from sklearn_rankk._core import engine

    calls = []
    original = engine.row_values

    def counting(requests, *args, **kwargs):
        calls.append(len(requests))
        return original(requests, *args, **kwargs)

    monkeypatch.setattr(engine, "row_values", counting)
    y_true, systems = make_systems(n=10)
    compare_systems(
        y_true, systems, measures=["ndcg@10", "map@5", "precision@3", "mrr"]
    )
    assert calls == [4, 4, 4]
