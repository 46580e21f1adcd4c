"""Judged and unjudged items: bpref, infAP, the unjudged fraction, and the
inputs that mark them (``mark_unjudged=True`` of from_trec and from_id_lists).

References: the plain-Python port of trec_eval 10.0 (tests/trec_eval_reference.py,
independent of the package), trec_eval itself through pytrec_eval, and the
brute-force oracle of tests/helpers.py on tie groups larger than
test_common's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import trec_eval_reference as te
from helpers import oracle, trec_file

from sklearn_rankk import (
    bpref_score,
    from_id_lists,
    from_trec,
    inferred_average_precision_score,
    map_at_k_score,
    ndcg_at_k_score,
    precision_at_k_score,
    rank_biased_precision_residual,
    unjudged_fraction_at_k,
)

JUDGED = {
    "bpref": bpref_score,
    "infap": inferred_average_precision_score,
}


def random_run(seed, n_queries=12, n_docs=40):
    """qrels and a run as dicts, with unjudged, pooled-unjudged (negative
    grade) and unretrieved judged documents, and tied scores."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{j:03d}" for j in rng.permutation(n_docs)]
        judged = docs[: int(rng.integers(1, n_docs))]
        grades = rng.choice([-1, 0, 0, 1, 2], size=len(judged))
        qrels[f"q{q}"] = dict(zip(judged, grades.tolist()))
        ranked = rng.permutation(docs)[: int(rng.integers(1, n_docs))]
        scores = rng.integers(0, 6, size=len(ranked)) / 2  # ties
        run[f"q{q}"] = dict(zip(ranked.tolist(), scores.tolist()))
    return qrels, run


def reference(measure, qrels, run, qids, level=1):
    out = []
    for q in qids:
        ranking = te.rank_documents(list(run[q].items()))
        out.append(getattr(te, measure)(ranking, qrels[q], level))
    return np.array(out)


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", range(4))
def test_bpref_and_infap_match_trec_eval_port(seed, level):
    qrels, run = random_run(seed)
    y_true, y_score, qids = from_trec(qrels, run, mark_unjudged=True)
    options = dict(ignore_ties=True, relevance_threshold=level - 1, average=None)
    for name, func in (
        ("bpref", bpref_score),
        ("infAP", inferred_average_precision_score),
    ):
        got = func(y_true, y_score, zero_division=0.0, **options)
        np.testing.assert_allclose(
            got, reference(name, qrels, run, qids, level), rtol=1e-12, atol=1e-14
        )
    for p in (0.5, 0.9):
        got = rank_biased_precision_residual(y_true, y_score, p=p, **options)
        want = [
            te.rbp_resid(te.rank_documents(list(run[q].items())), qrels[q], level, p)
            for q in qids
        ]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    for k in (5, 10, 20):
        got = unjudged_fraction_at_k(y_true, y_score, k=k, **options)
        want = [v[0] for v in reference_unj(qrels, run, qids, k)]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def reference_unj(qrels, run, qids, k):
    return [
        te.unj(te.rank_documents(list(run[q].items())), qrels[q], 1, (k,)) for q in qids
    ]


@pytest.mark.parametrize("seed", range(3))
def test_bpref_and_infap_match_pytrec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = random_run(seed)
    # trec_eval 9 (inside pytrec_eval) compares scores as floats: halves are
    # exact, so its ties are ours.
    got = pytrec_eval.RelevanceEvaluator(qrels, {"bpref", "infAP"}).evaluate(run)
    y_true, y_score, qids = from_trec(qrels, run, mark_unjudged=True)
    for name, func in (
        ("bpref", bpref_score),
        ("infAP", inferred_average_precision_score),
    ):
        ours = func(y_true, y_score, ignore_ties=True, zero_division=0.0, average=None)
        np.testing.assert_allclose(ours, [got[q][name] for q in qids], atol=1e-12)


def large_tied_case(seed):
    """Rows of up to 8 items in one or two tie groups, with every kind of
    judgment: relevant, judged non-relevant, never pooled, pooled."""
    rng = np.random.default_rng(seed)
    n, m = 6, 8
    y_true = rng.choice([2, 1, 0, 0, -1, -2], size=(n, m))
    y_score = rng.integers(0, 2, size=(n, m)).astype(float)
    y_score[rng.random((n, m)) < 0.15] = -np.inf
    y_true[0] = [0, -1, 0, -2, 0, 0, -1, 0]  # no relevant item
    y_score[1] = 0.0  # one group of 8
    return y_true, y_score


@pytest.mark.parametrize("threshold", [0, 1])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", ["bpref", "infap", "unjudged", "rbp_residual"])
def test_exact_ties_on_large_groups(name, seed, threshold):
    """Up to 8! orderings of one group, against the brute-force oracle."""
    y_true, y_score = large_tied_case(seed)
    k = 5 if name == "unjudged" else None
    params = {"p": 0.8} if name == "rbp_residual" else {}
    expected = oracle(
        name,
        y_true,
        y_score,
        ignore_ties=False,
        threshold=threshold,
        k=k,
        params=params,
    )
    kwargs = {"k": k} if k else {}
    kwargs.update(params)
    func = {
        **JUDGED,
        "unjudged": unjudged_fraction_at_k,
        "rbp_residual": rank_biased_precision_residual,
    }[name]
    got = func(
        y_true,
        y_score,
        relevance_threshold=threshold,
        zero_division=np.nan,
        average=None,
        **kwargs,
    )
    want = [np.nan if v is None else v for v in expected]
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-13)


def test_hand_worked_bpref_and_infap():
    # Ranked: R N U(-1) R; unranked: N. R = 2, N = 2.
    y_true = [[1, 0, -1, 1, 0]]
    y_score = [[4.0, 3.0, 2.0, 1.0, -np.inf]]
    # bpref: (1 + (1 - 1/2)) / 2
    assert bpref_score(y_true, y_score) == 0.75
    # infAP: 1 at rank 1; rank 4: 1/4 + (3/4)(2/3)(1 + e)/(2 + 2e) = 1/2.
    assert inferred_average_precision_score(y_true, y_score) == pytest.approx(0.75)
    # A pooled-unjudged item (-2) above the second relevant item counts in
    # the share of the ranks above that were pooled: 3 of 3.
    y_true = [[1, 0, -2, 1, 0]]
    e = 1e-5
    second = 1 / 4 + (3 / 4) * (3 / 3) * (1 + e) / (2 + 2 * e)
    assert inferred_average_precision_score(y_true, y_score) == pytest.approx(
        (1 + second) / 2, rel=1e-14
    )
    # With complete judgments infAP is AP, but for the smoothing eps = 1e-5.
    y_true = [[1, 0, 0, 1, 0]]
    assert inferred_average_precision_score(y_true, y_score) == pytest.approx(
        map_at_k_score(y_true, y_score, k=None), rel=1e-5
    )


def test_constant_scores_bpref_closed_form():
    """One tie group: each relevant item has X ~ U{0..u} judged non-relevant
    items above it, so bpref = mean over x of 1 - min(x, R)/min(N, R)."""
    y_true = [[1, 1, 0, 0, 0, -1]]
    R, N = 2, 3
    want = sum(1 - min(x, R) / min(N, R) for x in range(N + 1)) / (N + 1)
    assert bpref_score(y_true, np.zeros((1, 6))) == pytest.approx(want, rel=1e-14)


# --------------------------------------------------------------------------
# Inputs that mark the unjudged items
# --------------------------------------------------------------------------


def test_from_trec_marks_unjudged_documents():
    qrels = {"q1": {"d1": 1, "d2": 0, "d9": 1, "d7": 0, "d8": -1}, "q2": {"d5": 1}}
    run = {"q1": {"d1": 0.5, "d2": 0.5, "d3": 0.1, "d8": 0.05}, "q2": {"d4": 0.9}}
    y_true, y_score, qids = from_trec(qrels, run, mark_unjudged=True)
    assert qids == ["q1", "q2"]
    # q1: d1 d2 (tied, docno ascending), d3 (never judged), d8 (pooled),
    # then the judged documents the run lacks, in file order: d9, d7.
    np.testing.assert_array_equal(y_true[0], [1, 0, -1, -2, 1, 0])
    np.testing.assert_array_equal(y_true[1], [-1, 1, -1, -1, -1, -1])  # padding: -1
    assert np.isneginf(y_score[0, 4:]).all() and np.isneginf(y_score[1, 1:]).all()
    # The other metrics are unchanged by the marking.
    plain_true, plain_score, _ = from_trec(qrels, run)
    for func, kw in ((precision_at_k_score, {"k": 3}), (ndcg_at_k_score, {"k": None})):
        for ignore_ties in (False, True):
            np.testing.assert_array_equal(
                func(y_true, y_score, ignore_ties=ignore_ties, average=None, **kw),
                func(
                    plain_true, plain_score, ignore_ties=ignore_ties, average=None, **kw
                ),
            )
    with pytest.raises(TypeError, match="mark_unjudged must be True or False"):
        from_trec(qrels, run, mark_unjudged="yes")


def test_from_trec_files_bpref_matches_regression_output():
    """bpref of out.test.aq, from the vendored files through from_trec."""
    y_true, y_score, qids = from_trec(
        trec_file("qrels.test"), trec_file("results.test"), mark_unjudged=True
    )
    got = bpref_score(y_true, y_score, ignore_ties=True, average=None)
    lines = trec_file("out.test.aq").read_text().splitlines()
    want = {
        q: float(v)
        for name, q, v in (line.split("\t") for line in lines)
        if name.strip() == "bpref" and q != "all"
    }
    assert [f"{x:6.4f}" for x in got] == [f"{want[q]:6.4f}" for q in qids]


def test_from_id_lists_marks_unjudged_ids():
    judged = [{"a": 1, "b": 0, "z": 0}, {"x": 2}]
    ranked = [["a", "c", "b"], ["y"]]
    y_true, y_score = from_id_lists(judged, ranked, mark_unjudged=True)
    np.testing.assert_array_equal(y_true, [[1, -1, 0, 0], [-1, 2, -1, -1]])
    # a: no judged non-relevant above; R = 1, N = 2.
    np.testing.assert_array_equal(
        bpref_score(y_true, y_score, average=None), [1.0, 0.0]
    )
    np.testing.assert_array_equal(
        unjudged_fraction_at_k(y_true, y_score, k=2, average=None), [0.5, 0.5]
    )
    plain_true, plain_score = from_id_lists(judged, ranked)
    np.testing.assert_array_equal(plain_true, [[1, 0, 0], [0, 2, 0]])
    with pytest.raises(TypeError, match="mark_unjudged must be True or False"):
        from_id_lists(judged, ranked, mark_unjudged=1)


def test_sparse_and_qid_inputs_read_judgments_alike():
    import scipy.sparse as sp

    y_true, y_score = large_tied_case(4)
    dense = {
        name: func(y_true, y_score, average=None, zero_division=0.0)
        for name, func in JUDGED.items()
    }
    for name, func in JUDGED.items():
        # CSR: stored negative grades are unjudged, implicit zeros judged.
        sparse = func(sp.csr_matrix(y_true), y_score, average=None, zero_division=0.0)
        np.testing.assert_allclose(sparse, dense[name], rtol=1e-13)
        # qid: one segment per row, no padding.
        qid = np.repeat(np.arange(y_true.shape[0]), y_true.shape[1])
        flat = func(
            y_true.ravel(), y_score.ravel(), qid=qid, average=None, zero_division=0.0
        )
        np.testing.assert_allclose(flat, dense[name], rtol=1e-13)


# --------------------------------------------------------------------------
# The geometric mean (trec_eval's gm_map, gm_bpref)
# --------------------------------------------------------------------------


def test_gmean_is_trec_eval_geometric_mean():
    y_true, y_score, qids = from_trec(
        trec_file("qrels.test"), trec_file("results.test"), mark_unjudged=True
    )
    for func, measure in ((map_at_k_score, "gm_map"), (bpref_score, "gm_bpref")):
        kwargs = {"k": None} if func is map_at_k_score else {}
        got = func(y_true, y_score, ignore_ties=True, average="gmean", **kwargs)
        qrels = te.read_qrels(trec_file("qrels.test"))
        run, _ = te.read_results(trec_file("results.test"))
        logs = [getattr(te, measure)(te.rank_documents(run[q]), qrels[q]) for q in qids]
        assert got == pytest.approx(math.exp(sum(logs) / len(logs)), rel=1e-12)


def test_gmean_floors_zeros_and_weights():
    y_true = [[1, 0], [0, 1], [1, 0]]
    y_score = [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]]  # P@1: 1, 0, 1
    got = precision_at_k_score(y_true, y_score, k=1, average="gmean")
    assert got == pytest.approx((1 * 1e-5 * 1) ** (1 / 3), rel=1e-12)
    weighted = precision_at_k_score(
        y_true, y_score, k=1, average="gmean", sample_weight=[1, 2, 1]
    )
    assert weighted == pytest.approx((1e-5**2) ** (1 / 4), rel=1e-12)
    with pytest.raises(ValueError, match="average"):
        precision_at_k_score(y_true, y_score, k=1, average="median")


@pytest.mark.parametrize("seed", range(3))
def test_bpref_matches_ranx(seed):
    """ranx's bpref reads the same definition: qrels grades < rel_lvl are the
    judged non-relevant documents (no negative grades here, and at least one
    judged non-relevant document per query, where ranx divides by 0)."""
    ranx = pytest.importorskip("ranx")
    qrels, run = random_run(seed)
    qrels = {
        q: {d: max(g, 0) for d, g in docs.items()}
        for q, docs in qrels.items()
        if any(g <= 0 for g in docs.values()) and any(g > 0 for g in docs.values())
    }
    run = {q: docs for q, docs in run.items() if q in qrels}
    # Distinct scores: ranx breaks ties its own way (insertion order).
    run = {
        q: {d: s + 1e-3 * i for i, (d, s) in enumerate(docs.items())}
        for q, docs in run.items()
    }
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "bpref", return_mean=False)
    y_true, y_score, qids = from_trec(qrels, run, mark_unjudged=True)
    assert qids == sorted(run)  # ranx's order: the run's query ids, sorted
    np.testing.assert_allclose(
        bpref_score(y_true, y_score, average=None), theirs, atol=1e-12
    )
