"""Inputs that cannot fool the package: each gets the right number or a
ValueError/TypeError naming the parameter; never a wrong number, a C++
exception, an OverflowError or a MemoryError from deep inside.

Each class of input is a table of hand-picked cases and a hypothesis test
that generates it: malformed sparse matrices, integers beyond int64 or
absurd for the input, sample weights and grades at the extremes of float64,
and numbers in TREC files that C's ``atof`` (trec_eval) and Python's
``float`` read differently.

References: the right numbers come from the same inputs at an ordinary scale
(a weighted mean does not change when every weight is multiplied by a power
of two, nDCG when every linear grade is), and from Python's ``float``.
"""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import FUNCS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sklearn_rankk import (
    RankingAccumulator,
    dcg_at_k_score,
    get_scorer,
    ndcg_at_k_score,
    precision_at_k_score,
    precision_recall_at_k_curve,
    ranking_report,
    read_trec_qrels,
    read_trec_run,
)
from sklearn_rankk._core.registry import METRICS

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
Y = np.array([[1, 0, 2, 0], [0, 1, 0, 0], [3, 0, 0, 1]])
S = np.array([[0.9, 0.1, 0.4, 0.3], [0.2, 0.5, 0.1, 0.3], [0.7, 0.6, 0.2, 0.9]])


# --------------------------------------------------------------------------
# Sparse matrices whose arrays disagree
# --------------------------------------------------------------------------


def _corrupt(kind, dtype=None):
    y = Y if dtype is None else Y.astype(dtype)
    m = sp.csr_matrix(y)
    if kind == "short data":
        m.data = m.data[:-1]
    elif kind == "long data":
        m.data = np.append(m.data, 5)
    elif kind == "decreasing indptr":
        m.indptr = m.indptr.copy()
        m.indptr[1], m.indptr[2] = m.indptr[2], m.indptr[1]
    elif kind == "indptr past the end":
        m.indptr = m.indptr.copy()
        m.indptr[-1] += 3
    elif kind == "index out of range":
        m.indices = m.indices.copy()
        m.indices[0] = 4
    elif kind == "negative index":
        m.indices = m.indices.copy()
        m.indices[0] = -1
    elif kind == "short indptr":
        m.indptr = m.indptr[:-1]
    elif kind == "csc decreasing indptr":
        m = sp.csc_matrix(y)
        m.indptr = m.indptr.copy()
        m.indptr[1], m.indptr[2] = m.indptr[2], m.indptr[1]
    elif kind == "coo short row":
        m = sp.coo_matrix(y)
        m.row = m.row[:-1]
    elif kind == "coo column out of range":
        m = sp.coo_matrix(y)
        m.col = m.col.copy()
        m.col[0] = 9
    return m


SPARSE_CASES = [
    "short data",
    "long data",
    "decreasing indptr",
    "indptr past the end",
    "index out of range",
    "negative index",
    "short indptr",
    "csc decreasing indptr",
    "coo short row",
    "coo column out of range",
]


@pytest.mark.parametrize("kind", SPARSE_CASES)
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_malformed_sparse_y_true(kind, name):
    kwargs = {"k": 2} if METRICS[name].needs_k else {}
    with pytest.raises(ValueError, match="y_true is a malformed sparse matrix"):
        FUNCS[name](_corrupt(kind), S, **kwargs)


@pytest.mark.parametrize("kind", SPARSE_CASES)
def test_malformed_sparse_y_score(kind):
    with pytest.raises(ValueError, match="y_score is a malformed sparse matrix"):
        precision_at_k_score(Y, _corrupt(kind, float), k=2)


@SETTINGS
@given(
    seed=st.integers(0, 2**16),
    array=st.sampled_from(["data", "indices", "indptr"]),
    change=st.sampled_from(["drop", "add", "shuffle", "big", "negative"]),
)
def test_generated_malformed_sparse(seed, array, change):
    """A random CSR with one of its arrays damaged: the right number if the
    matrix is still valid, else a ValueError naming y_true."""
    rng = np.random.default_rng(seed)
    dense = (rng.random((4, 5)) < 0.5) * rng.integers(1, 4, (4, 5))
    scores = rng.random((4, 5))
    m = sp.csr_matrix(dense)
    values = getattr(m, array).copy()
    if change == "drop" and values.size:
        values = values[:-1]
    elif change == "add":
        values = np.append(values, values[-1] if values.size else 1)
    elif change == "shuffle":
        rng.shuffle(values)
    elif change == "big" and values.size:
        values[rng.integers(values.size)] = 10**6
    elif change == "negative" and values.size:
        values[rng.integers(values.size)] = -3
    setattr(m, array, values)
    ptr, ind = np.asarray(m.indptr), np.asarray(m.indices)
    valid = (
        ptr.shape[0] == 5
        and ptr[0] == 0
        and np.all(np.diff(ptr) >= 0)
        and ptr[-1] == ind.shape[0] == m.data.shape[0]
        and (ind.size == 0 or (ind.min() >= 0 and ind.max() < 5))
    )
    if valid and array != "data":  # still a matrix: the right number
        got = ndcg_at_k_score(m, scores, k=3, zero_division=0.0)
        expected = ndcg_at_k_score(m.toarray(), scores, k=3, zero_division=0.0)
        assert got == pytest.approx(expected, rel=1e-12)
        return
    if valid:  # data still lines up: values changed, still a valid matrix
        ndcg_at_k_score(m, scores, k=3, zero_division=0.0)
        return
    with pytest.raises(ValueError, match="y_true is a malformed sparse matrix"):
        ndcg_at_k_score(m, scores, k=3, zero_division=0.0)


# --------------------------------------------------------------------------
# Integers beyond int64, or absurd for the input
# --------------------------------------------------------------------------


@pytest.mark.parametrize("k", [2**53 + 1, 2**63, 10**30, np.uint64(2**64 - 1)])
def test_absurd_k_is_an_error_naming_k(k):
    with pytest.raises(
        ValueError, match=r"^k must be an integer between 1 and 2\*\*53"
    ):
        precision_at_k_score(Y, S, k=k)
    with pytest.raises(ValueError, match=r"k must be an integer between"):
        ranking_report(Y, S, k=[1, k])


def test_largest_k_is_accepted_and_exact():
    # Beyond the row, precision keeps dividing by k; 2**53 is exact in float64.
    relevant_found = (Y > 0).sum(axis=1).mean()
    assert precision_at_k_score(Y, S, k=2**53) == relevant_found / 2**53


@pytest.mark.parametrize("name", ["ndcg@99999999999999999999", "hit@" + "9" * 40])
def test_absurd_cut_off_in_a_scorer_name(name):
    with pytest.raises(ValueError, match=rf"Scorer name {name!r}: k must be"):
        get_scorer(name)


def test_k_max_beyond_memory_is_an_error_naming_k_max():
    with pytest.raises(ValueError, match=r"k_max=10000000000000 asks for"):
        precision_recall_at_k_curve(Y, S, k_max=10**13)
    with pytest.raises(ValueError, match=r"k_max must be an integer between"):
        precision_recall_at_k_curve(Y, S, k_max=2**70)


@SETTINGS
@given(k=st.integers(1, 2**80))
def test_generated_k(k):
    if k > 2**53:
        with pytest.raises(ValueError, match="^k must be"):
            precision_at_k_score(Y, S, k=k)
    else:  # beyond the row: every relevant item is found, divided by k
        got = precision_at_k_score(Y, S, k=k, average=None)
        if k >= 4:
            np.testing.assert_array_equal(got, (Y > 0).sum(axis=1) / k)


# --------------------------------------------------------------------------
# Sample weights at the extremes of float64
# --------------------------------------------------------------------------

WEIGHTS = np.array([1.0, 3.0, 0.5])
EXPONENTS = [-1074 + 3, -1060, -600, 600, 1020, 1022]


@pytest.mark.parametrize("exponent", EXPONENTS)
def test_weighted_mean_at_the_extremes(exponent):
    """Weights times 2**exponent (denormal ones, ones whose sum overflows):
    the same weighted mean, in the functions, the report and the
    accumulator."""
    scaled = np.ldexp(WEIGHTS, exponent)
    for name in ("ndcg", "precision", "map"):
        kwargs = {"k": 2, "zero_division": 0.0}
        expected = FUNCS[name](Y, S, sample_weight=WEIGHTS, **kwargs)
        assert FUNCS[name](Y, S, sample_weight=scaled, **kwargs) == expected
    report = ranking_report(Y, S, k=2, sample_weight=scaled, zero_division=0.0)
    assert report["ndcg@2"] == ndcg_at_k_score(Y, S, k=2, sample_weight=WEIGHTS)
    acc = RankingAccumulator(["ndcg@2", "recall@3"], zero_division=0.0)
    acc.update(Y[:1], S[:1], scaled[:1]).update(Y[1:], S[1:], scaled[1:])
    one_shot = RankingAccumulator(["ndcg@2", "recall@3"], zero_division=0.0)
    one_shot.update(Y, S, WEIGHTS)
    assert acc.result() == pytest.approx(one_shot.result(), rel=1e-15)


def test_accumulator_with_weights_of_every_magnitude():
    # Batches weighing 2**-1000 and 2**1000: the first is negligible, the
    # result is the second batch's mean; merged the other way round too.
    tiny = RankingAccumulator("ndcg@2", zero_division=0.0).update(
        Y[:2], S[:2], np.ldexp([1.0, 1.0], -1000)
    )
    huge = RankingAccumulator("ndcg@2", zero_division=0.0).update(
        Y[2:], S[2:], np.ldexp([1.0], 1000)
    )
    expected = ndcg_at_k_score(Y[2:], S[2:], k=2)
    for acc in (tiny.merge(huge),):
        assert acc.result()["ndcg@2"] == pytest.approx(expected, rel=1e-15)


@SETTINGS
@given(exponent=st.integers(-1070, 1020), seed=st.integers(0, 1000))
def test_generated_weight_scales(exponent, seed):
    w = np.ldexp(np.random.default_rng(seed).uniform(0.5, 2.0, 3), exponent)
    # The weights as given (denormal ones keep fewer digits), at unit scale.
    expected = ndcg_at_k_score(Y, S, k=3, sample_weight=np.ldexp(w, -exponent))
    got = ndcg_at_k_score(Y, S, k=3, sample_weight=w)
    assert got == pytest.approx(expected, rel=1e-12)


# --------------------------------------------------------------------------
# Grades at the extremes of float64
# --------------------------------------------------------------------------


@pytest.mark.parametrize("exponent", [900, 1000, 1022])
def test_ndcg_of_huge_grades(exponent):
    """An ideal DCG beyond float64: nDCG is scale-free, so the grades times
    2**exponent give the nDCG of the grades; DCG itself is an error."""
    big = np.ldexp(Y.astype(float), exponent)
    for ignore_ties, scores in ((False, S), (False, np.round(S, 0)), (True, S)):
        for k in (1, 3, None):
            kwargs = dict(k=k, average=None, ignore_ties=ignore_ties)
            expected = ndcg_at_k_score(Y, scores, zero_division=0.0, **kwargs)
            got = ndcg_at_k_score(big, scores, zero_division=0.0, **kwargs)
            np.testing.assert_allclose(got, expected, rtol=1e-13)
    # DCG scales with the grades; its mean too, without overflowing.
    expected = dcg_at_k_score(Y, S, k=None)
    assert dcg_at_k_score(big, S, k=None) == np.ldexp(expected, exponent)
    # A row whose DCG is beyond float64: an error, not inf or a wrong mean.
    with pytest.raises(ValueError, match="dcg overflowed float64"):
        dcg_at_k_score(np.ldexp([[3.0, 3.0, 3.0]], 1022), S[:1, :3], k=None)


def test_exponential_gain_of_huge_grades():
    with pytest.raises(ValueError, match="overflows for grades >= 1024"):
        ndcg_at_k_score(Y * 1000, S, k=2, gain="exponential")
    # 2**1023 - 1 is finite, the ideal DCG of two of them is not: still right.
    y = np.array([[1023, 1023, 1, 0]])
    s = np.array([[0.1, 0.2, 0.9, 0.5]])
    got = ndcg_at_k_score(y, s, k=3, gain="exponential")
    ideal = 1 + 1 / math.log2(3)  # in units of 2**1023
    expected = (0.5**1023 * (2 - 1) + 0 + 1 / 2) / ideal
    assert got == pytest.approx(expected, rel=1e-12)


@SETTINGS
@given(exponent=st.integers(-1000, 1020), seed=st.integers(0, 1000))
def test_generated_grade_scales(exponent, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, (3, 6)).astype(float)
    y[:, 0] = 1  # a relevant item per row
    s = rng.integers(0, 3, (3, 6)).astype(float)  # ties
    expected = ndcg_at_k_score(y, s, k=4, average=None)
    got = ndcg_at_k_score(np.ldexp(y, exponent), s, k=4, average=None)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


# --------------------------------------------------------------------------
# Numbers in TREC files
# --------------------------------------------------------------------------

BAD_SCORES = ["1_000", "\u0661\u0662", "0x10", "1e400", "-1e400", "inf", "nan",
              "1.5.2", "", "1e", "e5", "+-1", "1,5", "\u00bd"]  # fmt: skip
BAD_GRADES = ["99999999999999999999", "-9223372036854775809", "1_0", "\u0663",
              "1.0", "1e3", "0x1"]  # fmt: skip


@pytest.mark.parametrize("score", [s for s in BAD_SCORES if s])
def test_trec_scores_read_alike_or_rejected(score):
    text = f"q Q0 d1 1 1 t\nq Q0 d2 2 {score} t\n"
    with pytest.raises(ValueError, match=r"run:2: score .* is not a finite number"):
        read_trec_run(_named(text, "run"))


@pytest.mark.parametrize("grade", BAD_GRADES)
def test_trec_grades_integers_of_64_bits(grade):
    text = f"q 0 d1 1\nq 0 d2 {grade}\n"
    with pytest.raises(
        ValueError, match=r"qrels:2: relevance .* is (not an integer|out of range)"
    ):
        read_trec_qrels(_named(text, "qrels"))


def _named(text, name):
    f = io.StringIO(text)
    f.name = name
    return f


@SETTINGS
@given(
    field=st.text(
        alphabet=st.sampled_from("0123456789.eE+-_x\u0661 inaf"), min_size=1, max_size=8
    ).filter(lambda f: " " not in f)
)
def test_generated_trec_scores(field):
    """Any score field: accepted with Python's value, or an error naming the
    line; never a different number."""
    text = f"q Q0 d 1 {field} t\n"
    try:
        expected = float(field)
    except ValueError:
        expected = None
    plain = all(c in "0123456789.eE+-" for c in field)
    try:
        got = read_trec_run(_named(text, "run"))["q"]["d"]
    except ValueError as exc:
        assert str(exc).startswith("run:1: score ")
        assert not (plain and expected is not None and math.isfinite(expected))
        return
    assert expected is not None and got == expected
