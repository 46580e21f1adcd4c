"""trec_eval's gain measures (rbp, Rndcg, binG, ndcg_rel, G) and utility.

References: ``tests/trec_eval_reference.py`` (the port of trec_eval's C
measures) through the command line on generated runs, the brute-force oracle
on heavily tied graded rows (both tie modes), G's definition written out for
fractional grades (outside the reference's integer grades), ranx's RBP where
its convention is the same (grades 0/1), and hand-worked values.
"""

from __future__ import annotations

import math

import helpers
import numpy as np
import pytest
import trec_eval_reference
from test_cli import generated

from sklearn_rankk import (
    binary_g_score,
    ndcg_rel_score,
    normalized_gain_score,
    rank_biased_precision_score,
    rndcg_score,
    utility_score,
)
from sklearn_rankk._io.cli import evaluate

GAIN_MEASURES = ["utility", "binG", "G", "ndcg_rel", "Rndcg", "rbp"]
NAMES = {"utility": "utility", "binG": "binary_g", "G": "normalized_gain",
         "ndcg_rel": "ndcg_rel", "Rndcg": "rndcg", "rbp": "rbp"}  # fmt: skip


# --------------------------------------------------------------------------
# trec_eval, through the command line's computation
# --------------------------------------------------------------------------


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", range(4))
def test_cli_matches_trec_eval_reference(seed, level):
    """Per query, on runs with tied scores (trec_eval's docno order), grades
    -1..4, relevant documents not retrieved and a query without relevant
    documents."""
    qrels, run = generated(seed)
    del qrels["399"]  # judged, not in the run: trec_eval 10.0 stops there
    per_query, _ = trec_eval_reference.evaluate(
        qrels, run, GAIN_MEASURES, relevance_level=level
    )
    qids, values = evaluate(qrels, run, GAIN_MEASURES, level=level)
    assert qids == [qid for qid, _ in per_query]
    for i, (_, measured) in enumerate(per_query):
        for _, name, value in measured:
            assert values[name][i] == pytest.approx(value, rel=1e-12, abs=1e-12), name


# --------------------------------------------------------------------------
# Exact ties on heavily tied graded rows
# --------------------------------------------------------------------------


def tied_rows(seed, n_rows=6, n_items=7):
    """Two or three score levels over 7 items: tie groups of 2 to 7 items
    with grades 0..4 mixed in each."""
    rng = np.random.default_rng(seed)
    y_score = rng.integers(0, 2 + seed % 2, size=(n_rows, n_items)).astype(float)
    y_score[0] = 1.0  # one tie group
    y_score[1, :2] = -np.inf  # not retrieved
    y_true = rng.choice([0, 0, 1, 2, 3, 4], size=(n_rows, n_items))
    y_true[2] = 0  # no relevant item
    return y_true, y_score


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", sorted(NAMES.values()))
def test_heavily_tied_rows_match_the_oracle(name, seed, ignore_ties):
    y_true, y_score = tied_rows(seed)
    configurations = helpers.configurations(name)
    for k, params in (configurations[0], configurations[-1]):
        for threshold in (0, 2):
            expected = helpers.oracle(
                name,
                y_true,
                y_score,
                ignore_ties=ignore_ties,
                threshold=threshold,
                k=k,
                params=params,
            )
            got = helpers.call(
                name,
                y_true,
                y_score,
                k,
                params,
                average=None,
                ignore_ties=ignore_ties,
                relevance_threshold=threshold,
                zero_division=np.nan,
            )
            want = [np.nan if v is None else v for v in expected]
            if helpers.METRICS[name].empty_rows != "never":
                empty = ~np.any(y_true > threshold, axis=1)
                want = np.where(empty, np.nan, want)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def g_by_definition(ranking, gains):
    """trec_eval's G on one ranking, for any non-negative gains."""
    ideal = sorted((g for g in gains if g > 0), reverse=True)
    total = cost = so_far = 0.0
    for i, j in enumerate(ranking):
        cost += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
        so_far += gains[j]
        if gains[j]:
            total += gains[j] / math.log2(2 + cost - so_far)
    return total / sum(ideal)


@pytest.mark.parametrize("seed", range(6))
def test_g_with_fractional_grades(seed):
    """Gains that are not integers: the recurrence's partial sums are not
    integers either (and some coincide: 0.5 + 1.5 = 2)."""
    rng = np.random.default_rng(seed)
    y_true = rng.choice([0, 0, 0.5, 1.5, 2.0, 0.25], size=(4, 7))
    y_true[:, 0] = 1.5
    y_score = rng.integers(0, 2, size=(4, 7)).astype(float)
    y_score[0] = 0.0
    got = normalized_gain_score(y_true, y_score, average=None)
    for row, scores, value in zip(y_true, y_score, got):
        orderings = helpers.rankings(list(scores), ignore_ties=False)
        want = math.fsum(g_by_definition(r, list(row)) for r in orderings)
        assert value == pytest.approx(want / len(orderings), rel=1e-12)


def test_g_on_a_wide_tie_group_is_a_probability_weighted_mean():
    """A constant ranker over many items: bounded, and between the worst and
    the best ranking (no sampling; the recurrence handles 400 tied items)."""
    rng = np.random.default_rng(0)
    y_true = np.where(rng.random((1, 400)) < 0.1, rng.integers(1, 4, (1, 400)), 0)
    y_score = np.zeros((1, 400))
    value = normalized_gain_score(y_true, y_score)
    best = normalized_gain_score(y_true, y_true.astype(float))
    worst = normalized_gain_score(y_true, -y_true.astype(float))
    assert worst < value < best == pytest.approx(1.0)


# --------------------------------------------------------------------------
# Peers and hand-worked values
# --------------------------------------------------------------------------


# ranx (numba) warns about a cast of its own; nothing of ours.
@pytest.mark.filterwarnings("ignore:unsafe cast from uint64 to int64")
@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_rbp_matches_ranx_on_binary_relevance(p):
    """ranx's rbp: (1 - p) sum rel_i p**(i - 1) over the whole run with the
    raw grade; with grades 0/1 there is nothing to rescale."""
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(1)
    y_true = (rng.random((8, 30)) < 0.3).astype(int)
    y_true[:, 0] = 1
    y_score = rng.random((8, 30))  # no ties: ranx keeps insertion order
    qrels = ranx.Qrels(
        {f"q{i}": {f"d{j}": int(g) for j, g in enumerate(row) if g}
         for i, row in enumerate(y_true)}
    )  # fmt: skip
    run = ranx.Run(
        {f"q{i}": {f"d{j}": float(s) for j, s in enumerate(row)}
         for i, row in enumerate(y_score)}
    )  # fmt: skip
    scores = ranx.evaluate(qrels, run, f"rbp.{round(p * 100)}", return_mean=False)
    got = rank_biased_precision_score(y_true, y_score, k=None, p=p, average=None)
    np.testing.assert_allclose(got, scores, rtol=1e-12, atol=1e-15)


def test_hand_worked_values():
    # rbp: grades 3, 0, 1 scaled by 3; p = 0.5: 0.5 * (1 + 0.25 / 3).
    rbp = rank_biased_precision_score([[3, 0, 1]], [[0.9, 0.5, 0.2]], k=None, p=0.5)
    assert rbp == pytest.approx(0.5 * (1 + 0.25 / 3))
    # ... and at k = 1: only the first rank.
    rbp = rank_biased_precision_score([[3, 0, 1]], [[0.9, 0.5, 0.2]], k=1, p=0.5)
    assert rbp == pytest.approx(0.5)
    # binG: relevant at ranks 1 and 3, one non-relevant above the second.
    value = binary_g_score([[1, 0, 1, 0]], [[4, 3, 2, 1]])
    assert value == pytest.approx((1 + 1 / math.log2(3)) / 2)
    # Ties: two items, one relevant: 0 or 1 non-relevant above, each 1/2.
    value = binary_g_score([[1, 0]], [[1, 1]])
    assert value == pytest.approx((1 + 1 / math.log2(3)) / 2)
    # utility: TP = 1, FP = 2, FN = 1, TN = 1 (5 items, 3 retrieved).
    y_true, y_score = [[1, 0, 1, 0, 0]], [[0.9, 0.8, -np.inf, 0.3, -np.inf]]
    assert utility_score(y_true, y_score) == -1.0
    assert utility_score(
        y_true, y_score, tp_weight=3, fp_weight=-1, fn_weight=-2, tn_weight=0.5
    ) == pytest.approx(3 - 2 - 2 + 0.5)
    # Rndcg: grades 2, 1 ideal; ranking 1, 2, 0, 0: ends of the ideal's levels
    # at 1 and 2, and the ranking is 2 longer: nDCG@1, nDCG@2, nDCG@4.
    d = [1 / math.log2(i + 2) for i in range(4)]
    y_true, y_score = [[1, 2, 0, 0]], [[4, 3, 2, 1]]
    dcg2 = d[0] + 2 * d[1]
    idcg1, idcg2 = 2 * d[0], 2 * d[0] + d[1]
    want = (d[0] / idcg1 + dcg2 / idcg2 + dcg2 / idcg2) / 3
    assert rndcg_score(y_true, y_score) == pytest.approx(want)
    # ndcg_rel: positives at ranks 1 (gain 1) and 2 (gain 2).
    want = (d[0] / idcg1 + dcg2 / idcg2) / 2
    assert ndcg_rel_score(y_true, y_score) == pytest.approx(want)
    # G: costs max(ideal, 1) = 2, 1; gains so far 1, 3.
    want = (1 / math.log2(2 + 2 - 1) + 2 / math.log2(2 + 3 - 3)) / 3
    assert normalized_gain_score(y_true, y_score) == pytest.approx(want)


@pytest.mark.parametrize("p", [0.0, 1.0, -0.5, 1.5])
def test_rbp_persistence_must_be_in_the_open_unit_interval(p):
    with pytest.raises(ValueError, match="p must be"):
        rank_biased_precision_score([[1, 0]], [[0.2, 0.1]], p=p)


def test_utility_on_rows_without_relevant_items():
    """Defined there: minus the retrieved items by default, whatever
    zero_division says."""
    y_true, y_score = [[0, 0, 0]], [[0.3, 0.2, -np.inf]]
    for zero_division in ("warn", 0.0, 1.0, np.nan):
        assert utility_score(y_true, y_score, zero_division=zero_division) == -2.0


def test_scorer_names():
    """Scorer names reach the same values as the functions."""
    y_true, y_score = tied_rows(0)
    for name in NAMES.values():
        scorer_name, k = ("rbp@5", {"k": 5}) if name == "rbp" else (name, {})
        values = helpers.row_values([scorer_name], y_true, y_score, zero_division=0.0)
        function = helpers.FUNCS[name]
        want = function(y_true, y_score, average=None, zero_division=0.0, **k)
        np.testing.assert_array_equal(values[scorer_name], want)


def test_cli_rndcg_is_zero_without_a_document_at_the_level():
    """trec_eval's Rndcg reads every positive grade but is 0 on a query with
    no document at -l's level; the other gain measures are not."""
    qrels = {"q1": {"a": 1, "b": 0, "c": 1}, "q2": {"a": 2, "b": 1}}
    run = {"q1": {"a": 0.5, "b": 0.9}, "q2": {"b": 0.9, "a": 0.5}}
    for level in (1, 2):
        per_query, _ = trec_eval_reference.evaluate(
            qrels, run, GAIN_MEASURES, relevance_level=level
        )
        _, values = evaluate(qrels, run, GAIN_MEASURES, level=level)
        for i, (_, measured) in enumerate(per_query):
            for _, name, value in measured:
                assert values[name][i] == pytest.approx(value, abs=1e-12), name
    assert values["Rndcg"][0] == 0.0 and values["ndcg_rel"][0] > 0.0
