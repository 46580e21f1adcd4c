"""Interpolated precision (trec_eval's iprec_at_recall, 11pt_avg) and
R-precision at a multiple of |R| (Rprec_mult).

References: the brute-force oracle of ``helpers`` (every ordering of the tied
items) on heavily tied rows, hand-worked values, closed forms for one large
tie group, and ``trec_eval_reference`` (a port of trec_eval 10.0's C
measures) on rows without ties.
"""

from __future__ import annotations

import math

import helpers
import numpy as np
import pytest
import trec_eval_reference as ref

from sklearn_rankk import (
    eleven_point_precision_score,
    interpolated_precision_recall_curve,
    interpolated_precision_score,
    r_precision_score,
)

# Levels where lround(x R) and trec_eval 9's (long)(x R + 0.9) differ for
# small R (0.1, 0.3, 0.6, 0.7), and halves (0.25 with R = 2, 6, ...).
LEVELS = (0.0, 0.1, 0.25, 0.3, 0.5, 0.6, 0.7, 1.0)


def tied_rows(seed, n_rows=60):
    """Rows of 1 to 7 items with scores from 1 to 3 values (large tie groups,
    several groups per row), some not retrieved, relevance of any density."""
    rng = np.random.default_rng(seed)
    for _ in range(n_rows):
        m = int(rng.integers(1, 8))
        y = (rng.random(m) < rng.random()) * rng.integers(1, 3, m)
        s = rng.integers(0, int(rng.integers(1, 4)), m).astype(float)
        s[rng.random(m) < 0.15] = -np.inf
        yield y[None], s[None]


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_matches_the_brute_force_oracle_on_heavily_tied_rows(seed, ignore_ties):
    for y, s in tied_rows(seed):
        for metric, params in [("interpolated_precision", {"recall_level": x})
                               for x in LEVELS] + [
            ("eleven_point_precision", {}),
            ("eleven_point_precision", {"recall_levels": (0.3, 0.7, 0.25)}),
        ]:  # fmt: skip
            expected = helpers.oracle(
                metric,
                y,
                s,
                ignore_ties=ignore_ties,
                threshold=0,
                k=None,
                params=params,
            )[0]
            got = helpers.FUNCS[metric](
                y, s, ignore_ties=ignore_ties, average=None, zero_division=np.nan,
                **params,
            )[0]  # fmt: skip
            if expected is None:
                assert np.isnan(got)
            else:
                assert got == pytest.approx(expected, rel=1e-12, abs=1e-14), (y, s)


def test_hand_worked_ties():
    # Four tied items, two relevant: the pair at {1,2}, {1,3}, {1,4}, {2,3},
    # {2,4}, {3,4}, best precisions 1, 1, 1, 2/3, 1/2, 1/2: 7/9.
    assert interpolated_precision_score(
        [[1, 0, 1, 0]], np.zeros((1, 4))
    ) == pytest.approx(7 / 9, rel=1e-14)
    # Two groups of two, one relevant item each: the first at rank 1 or 2,
    # the second at rank 3 or 4; best precisions max(1, 2/3) = 1,
    # max(1, 2/4) = 1, max(1/2, 2/3) = 2/3, max(1/2, 2/4) = 1/2: 19/24.
    y, s = [[1, 0, 0, 1]], [[2.0, 2.0, 1.0, 1.0]]
    assert interpolated_precision_score(y, s) == pytest.approx(19 / 24, rel=1e-14)
    # At level 1 (c = 2) only the second item counts: (2/3 + 2/4) / 2.
    assert interpolated_precision_score(y, s, recall_level=1.0) == pytest.approx(
        7 / 12, rel=1e-14
    )
    assert interpolated_precision_score(y, s, ignore_ties=True) == 2 / 3


@pytest.mark.parametrize("n", [2, 7, 300])
def test_one_large_tie_group_closed_forms(n):
    """A row of n tied items. One relevant: its rank Q is uniform, the value
    is E[1/Q] = H_n / n at every level. All but one relevant, the
    non-relevant item at rank P: best precision 1 unless P = 1, then
    (n - 1)/n; at level 1 the last relevant item's precision, 1 if P = n,
    else (n - 1)/n."""
    one = np.zeros((1, n), dtype=int)
    one[0, n // 2] = 1
    harmonic = math.fsum(1 / q for q in range(1, n + 1))
    for x in (0.0, 0.5, 1.0):
        assert interpolated_precision_score(
            one, np.zeros((1, n)), recall_level=x
        ) == pytest.approx(harmonic / n, rel=1e-12)
    most = 1 - one
    assert interpolated_precision_score(most, np.zeros((1, n))) == pytest.approx(
        (n - 1) / n + (n - 1) / n**2, rel=1e-12
    )
    assert interpolated_precision_score(
        most, np.zeros((1, n)), recall_level=1.0
    ) == pytest.approx(((n - 1) / n) ** 2 + 1 / n, rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_agrees_with_trec_eval_10_without_ties(seed):
    """Distinct scores, some relevant items not retrieved, some rows with
    nothing relevant retrieved: the per-row values of trec_eval 10.0's
    iprec_at_recall, 11pt_avg and Rprec_mult (the port)."""
    rng = np.random.default_rng(seed)
    n, m = 30, 25
    y = rng.integers(0, 3, (n, m)) * (rng.random((n, m)) < 0.3)
    s = rng.standard_normal((n, m))
    s[rng.random((n, m)) < 0.3] = -np.inf
    s[0] = -np.inf  # nothing retrieved
    y[1] = 0  # nothing relevant
    y[1, 3] = 2
    s[1, 3] = -np.inf  # relevant, not retrieved
    mults = (0.2, 0.5, 1.0, 1.4, 2.0, 3.0)
    ours = {
        "iprec": np.array([
            interpolated_precision_score(y, s, recall_level=x, average=None,
                                         zero_division=0.0, relevance_threshold=1)
            for x in ref.DEFAULT_RECALL_LEVELS
        ]).T,
        "11pt": eleven_point_precision_score(y, s, average=None, zero_division=0.0,
                                             relevance_threshold=1),
        "mult": np.array([
            r_precision_score(y, s, multiple=x, average=None, zero_division=0.0,
                              relevance_threshold=1)
            for x in mults
        ]).T,
    }  # fmt: skip
    for i in range(n):
        docs = [(f"d{j}", s[i, j]) for j in range(m) if s[i, j] > -np.inf]
        qrels = {f"d{j}": int(y[i, j]) for j in range(m)}
        ranking = ref.rank_documents(docs)
        if not ranking:  # trec_eval never sees such a query; 0 here
            assert not ours["iprec"][i].any() and ours["11pt"][i] == 0
            continue
        rr = ref.res_rels(ranking, qrels, relevance_level=2)
        np.testing.assert_allclose(
            ours["iprec"][i], ref.iprec_at_recall(rr, qrels, 2), rtol=1e-14
        )
        assert ours["11pt"][i] == pytest.approx(ref.eleven_pt_avg(rr, qrels, 2))
        np.testing.assert_allclose(
            ours["mult"][i], ref.Rprec_mult(rr, qrels, 2, mults), rtol=1e-14
        )


def test_recall_point_is_trec_eval_10s():
    """R = 3 at level 0.7: lround(2.1) = 2 relevant items, where trec_eval 9
    took (long)(3.0) = 3; R = 2 at 0.6: lround(1.2) = 1, trec_eval 9 took
    2."""
    y, s = [[1, 1, 0, 0, 1]], [[5.0, 4.0, 3.0, 2.0, 1.0]]  # precisions 1, 1, 3/5
    assert interpolated_precision_score(y, s, recall_level=0.7) == 1.0
    assert interpolated_precision_score(y, s, recall_level=1.0) == 0.6
    y2, s2 = [[1, 0, 0, 1]], [[4.0, 3.0, 2.0, 1.0]]  # precisions 1, 2/4
    assert interpolated_precision_score(y2, s2, recall_level=0.6) == 1.0
    assert interpolated_precision_score(y2, s2, recall_level=0.8) == 0.5


def test_parameters_are_checked():
    y, s = [[1, 0]], [[0.5, 0.2]]
    with pytest.raises(ValueError, match="recall_level must be <= 1.0"):
        interpolated_precision_score(y, s, recall_level=1.5)
    with pytest.raises(ValueError, match="recall_level must be >= 0.0"):
        interpolated_precision_score(y, s, recall_level=-0.1)
    with pytest.raises(ValueError, match=r"recall_levels\[1\] must be <= 1.0"):
        eleven_point_precision_score(y, s, recall_levels=[0.5, 2])
    with pytest.raises(ValueError, match="recall_levels must not be empty"):
        eleven_point_precision_score(y, s, recall_levels=[])
    with pytest.raises(TypeError, match="recall_levels must be a non-empty sequence"):
        eleven_point_precision_score(y, s, recall_levels=0.5)
    with pytest.raises(ValueError, match="multiple must be > 0.0"):
        r_precision_score(y, s, multiple=0)


@pytest.mark.parametrize(
    "levels, error, message",
    [
        ([0.5, 2], ValueError, r"recall_levels\[1\] must be <= 1.0"),
        ([], ValueError, "recall_levels must not be empty"),
        (0.5, TypeError, "recall_levels must be a non-empty sequence"),
        ([True], TypeError, r"recall_levels\[0\] must be a real number"),
    ],
)
def test_the_curve_checks_its_levels_as_the_11_point_average(levels, error, message):
    y, s = [[1, 0]], [[0.5, 0.2]]
    for call in (eleven_point_precision_score, interpolated_precision_recall_curve):
        with pytest.raises(error, match=message):
            call(y, s, recall_levels=levels)
