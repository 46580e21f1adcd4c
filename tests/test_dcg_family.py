"""The DCG family's gain maps and discounts, ideal DCG, SDCG and yaap.

The registry-driven tests (test_common) check every option against the
brute-force oracle of tests/helpers.py in both tie modes. Here: hand-worked
values, the exact expectation under ties in closed form, the messages, and
trec_eval 10.0 itself (ideal_dcg, yaap and ndcg_p's discount).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

# trec_eval, built from its sources (skips with the reason where it cannot be).
from test_cli_trec_eval import generate, run_ours, run_theirs, trec_eval  # noqa: F401

from sklearn_rankk import (
    dcg_at_k_score,
    ideal_dcg_at_k_score,
    ndcg_at_k_score,
    sdcg_at_k_score,
    yaap_score,
)

# One sample: grades 3, 2, 0; ranked as columns 1, 2, 0 (grades 2, 0, 3).
Y_TRUE = [[3, 2, 0]]
Y_SCORE = [[0.1, 0.5, 0.2]]
LOG2_3 = math.log2(3)


@pytest.mark.parametrize(
    "options, expected",
    [
        ({}, 2 + 3 / 2),  # 2/log2(2) + 0 + 3/log2(4)
        ({"gains": {2: 9, 3: 1}}, 9 + 1 / 2),
        ({"gains": lambda g: g * g}, 4 + 9 / 2),
        ({"discount": "reciprocal"}, 2 + 3 / 3),
        ({"discount": "jarvelin"}, 2 + 3 / LOG2_3),  # ranks 1, 2 undiscounted
        ({"discount": "jarvelin", "log_base": 3}, 2 + 3 / 1),  # 1/log3(3)
        ({"discount": "geometric", "discount_p": 0.5}, 2 + 3 * 0.25),
        ({"discount": lambda i: 1.0 / i**2}, 2 + 3 / 9),
    ],
)
def test_dcg_hand_worked(options, expected):
    assert dcg_at_k_score(Y_TRUE, Y_SCORE, k=None, **options) == pytest.approx(
        expected, rel=1e-15
    )


def test_ndcg_gain_map_reorders_the_ideal():
    # Grade 3 gains 1, grade 2 gains 9: the ideal puts the grade 2 item first.
    got = ndcg_at_k_score(Y_TRUE, Y_SCORE, k=None, gains={2: 9, 3: 1})
    assert got == pytest.approx((9 + 1 / 2) / (9 + 1 / LOG2_3), rel=1e-15)
    assert ideal_dcg_at_k_score(
        Y_TRUE, Y_SCORE, k=None, gains={2: 9, 3: 1}
    ) == pytest.approx(9 + 1 / LOG2_3, rel=1e-15)


def test_negative_and_zero_gains():
    # trec_eval allows gains <= 0: they count in DCG, not in the ideal.
    y_true, y_score = [[1, 2, 0]], [[0.9, 0.8, 0.7]]
    dcg = dcg_at_k_score(y_true, y_score, k=None, gains={1: -1.0})
    assert dcg == pytest.approx(-1 + 2 / LOG2_3, rel=1e-15)
    ndcg = ndcg_at_k_score(y_true, y_score, k=None, gains={1: -1.0})
    assert ndcg == pytest.approx((-1 + 2 / LOG2_3) / 2, rel=1e-15)
    assert dcg_at_k_score(y_true, y_score, k=None, gains={1: 0, 2: 0}) == 0.0


def test_exact_ties_mean_gain_per_rank():
    # Four tied items, grades 3, 1, 0, 2 with gains 5, 1, 0, 7: every rank
    # holds the mean gain 13/4, whatever the discount.
    y_true, y_score = [[3, 1, 0, 2]], [[1.0, 1.0, 1.0, 1.0]]
    gains = {3: 5, 2: 7}
    for discount, d in (
        ("log", [1 / math.log2(i + 1) for i in range(1, 4)]),
        ("reciprocal", [1 / i for i in range(1, 4)]),
        ("geometric", [0.9 ** (i - 1) for i in range(1, 4)]),
    ):
        got = dcg_at_k_score(y_true, y_score, k=3, gains=gains, discount=discount)
        assert got == pytest.approx(13 / 4 * sum(d), rel=1e-14)
        ideal = 7 * d[0] + 5 * d[1] + 1 * d[2]
        got = ndcg_at_k_score(y_true, y_score, k=3, gains=gains, discount=discount)
        assert got == pytest.approx(13 / 4 * sum(d) / ideal, rel=1e-14)


def test_sdcg_hand_worked():
    # k=2: DCG@2 = 2 (grade 2 at rank 1); the all-relevant list: 3 (the
    # largest gain) at ranks 1 and 2.
    got = sdcg_at_k_score(Y_TRUE, Y_SCORE, k=2)
    assert got == pytest.approx(2 / (3 * (1 + 1 / LOG2_3)), rel=1e-15)
    got = sdcg_at_k_score(Y_TRUE, Y_SCORE, k=2, max_rel=4)
    assert got == pytest.approx(2 / (4 * (1 + 1 / LOG2_3)), rel=1e-15)
    # Beyond the row's 3 items the normaliser still reads k ranks.
    got = sdcg_at_k_score(Y_TRUE, Y_SCORE, k=5)
    norm = 3 * sum(1 / math.log2(i + 1) for i in range(1, 6))
    assert got == pytest.approx(3.5 / norm, rel=1e-15)


def test_yaap_hand_worked_and_ties():
    # Relevant at ranks 1 and 3 of 4, |R| = 3 (one not retrieved):
    # S = 1/1 + 2/3.
    y_true = [[1, 0, 1, 0, 1]]
    y_score = [[0.9, 0.8, 0.7, 0.6, -np.inf]]
    s = 1 + 2 / 3
    assert yaap_score(y_true, y_score) == pytest.approx(
        math.log((1 + s) / (1 + 3 - s)), rel=1e-15
    )
    # Two tied items, one relevant: S is 1 or 1/2, each with probability 1/2.
    got = yaap_score([[1, 0]], [[0.5, 0.5]])
    expected = 0.5 * math.log(2 / 1) + 0.5 * math.log(1.5 / 1.5)
    assert got == pytest.approx(expected, rel=1e-15)
    assert yaap_score([[0, 0]], [[0.5, 0.5]]) == 0.0  # log 1, as trec_eval


def test_yaap_too_many_orderings():
    y_true = np.tile([1, 0], 30)[None, :]
    y_score = np.zeros_like(y_true, dtype=float)
    with pytest.raises(ValueError, match="ignore_ties=True"):
        yaap_score(y_true, y_score)
    assert np.isfinite(yaap_score(y_true, y_score, ignore_ties=True))


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"gains": {1: 2}, "gain": "exponential"}, ValueError, "cannot be combined"),
        ({"gains": [1, 2]}, TypeError, "mapping of grades to gains"),
        ({"gains": {-1: 2}}, ValueError, "negative"),
        ({"gains": {1: np.nan}}, ValueError, "finite"),
        ({"discount": "harmonic"}, ValueError, "or a callable"),
        ({"discount": "geometric", "discount_p": 1.5}, ValueError, "discount_p"),
        ({"discount": lambda i: np.nan * i}, ValueError, "finite"),
    ],
)
def test_messages(options, error, message):
    with pytest.raises(error, match=message):
        dcg_at_k_score(Y_TRUE, Y_SCORE, k=2, **options)


@pytest.mark.parametrize("measure", ["ideal_dcg", "yaap", "ideal_dcg.1=3,2=9"])
def test_cli_as_trec_eval(trec_eval, tmp_path, capsys, measure):  # noqa: F811
    """trec_eval 10.0's ideal_dcg and yaap, every per-query line and the mean."""
    for seed in range(25):
        qrels, run = generate(tmp_path, seed)
        status, ours, err = run_ours(capsys, "-q", "-c", "-m", measure, qrels, run)
        assert status == 0, err
        theirs = run_theirs(trec_eval, "-q", "-c", "-m", measure, qrels, run)
        assert sorted(ours.splitlines()) == sorted(theirs.splitlines()), seed


def _ndcg_p(rels, all_grades):
    """trec_eval 10.0's te_calc_ndcg_p (m_ndcg_p.c; not compiled into its
    program), ported line for line: ``rels`` the grades of the retrieved
    documents in rank order, ``all_grades`` every judged grade of the query.
    Rank 1 is not discounted, rank i > 1 by log2(i)."""
    total = 0.0
    for i, gain in enumerate(rels):
        gain = max(gain, 0)
        if gain != 0:
            total += gain / math.log2(i + 1) if i > 0 else gain
    ideal = 0.0
    for i, gain in enumerate(sorted((g for g in all_grades if g > 0), reverse=True)):
        ideal += gain if i == 0 else gain / math.log2(i + 1)
    num_rel_ret = sum(1 for g in rels if g > 0)
    return total / ideal if num_rel_ret > 0 else 0.0


def test_jarvelin_is_trec_eval_ndcg_p(tmp_path):
    """discount="jarvelin" at k=None is trec_eval's ndcg_p on every query
    with a relevant document retrieved (ndcg_p is 0 on the others), in
    trec_eval's order of tied documents (ignore_ties=True on from_trec)."""
    from sklearn_rankk import from_trec

    for seed in range(10):
        qrels, run = generate(tmp_path, seed)
        y_true, y_score, _ = from_trec(qrels, run)
        ours = ndcg_at_k_score(
            y_true,
            y_score,
            k=None,
            discount="jarvelin",
            ignore_ties=True,
            average=None,
            zero_division=0.0,
        )
        for grades, scores, value in zip(y_true, y_score, ours):
            retrieved = np.flatnonzero(scores > -np.inf)
            order = retrieved[np.lexsort((-retrieved, -scores[retrieved]))]
            expected = _ndcg_p(grades[order].tolist(), grades.tolist())
            assert value == pytest.approx(expected, rel=1e-13, abs=1e-15)
