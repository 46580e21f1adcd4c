"""Propensity-scored precision and nDCG at k, and inverse propensities.

The references, independent of the package:

* the brute-force oracle of tests/helpers.py (``ps_sums``: every ordering of
  the tied items, Jain et al.'s sums from the definitions), in both tie
  modes, per row and for each ``average``;
* pyxclib's own code, transcribed below (pyxclib is not on PyPI):
  ``compute_inv_propesity``, ``psprecision``, ``psndcg`` and the helpers they
  call, from https://github.com/kunaldahiya/pyxclib at commit
  5d130862df91a06d03b296ad264c89b037c33db7, file
  ``xclib/evaluation/xc_metrics.py``; the top-k selection of its dense path
  (``_get_topk_array``: argpartition then argsort) and of its sparse path
  (stored entries by decreasing score, padded with the dummy label
  ``n_labels`` whose weight is 0) are transcribed too. Its scores here are
  tie-free, so its tie order does not matter;
* hand-worked examples.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from helpers import ps_sums, random_case, rankings
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rankk
from sklearn_rankk import (
    RankingAccumulator,
    get_scorer,
    inverse_propensity,
    ndcg_at_k_score,
    psndcg_at_k_score,
    psprecision_at_k_score,
    ranking_report,
    relative_precision_at_k_score,
)

FUNCTIONS = {"psprecision": psprecision_at_k_score, "psndcg": psndcg_at_k_score}


# --------------------------------------------------------------------------
# pyxclib, transcribed (commit 5d130862, xclib/evaluation/xc_metrics.py)
# --------------------------------------------------------------------------


def pyxclib_compute_inv_propesity(labels, A, B):
    num_instances, _ = labels.shape
    freqs = np.ravel(np.sum(labels, axis=0))
    C = (np.log(num_instances) - 1) * np.power(B + 1, A)
    wts = 1.0 + C * np.power(freqs + B, -A)
    return np.ravel(wts)


def _pyxclib_topk_dense(X, k):
    # _get_topk_array for float scores
    _indices = np.argpartition(X, -k)[:, -k:]
    _scores = np.take_along_axis(X, _indices, axis=-1)
    indices = np.argsort(-_scores, axis=-1)
    return np.take_along_axis(_indices, indices, axis=1)


def _pyxclib_topk_sparse(X, k):
    # _get_topk_sparse (xclib.utils.sparse.topk): the stored entries of each
    # row by decreasing score, padded with the index num_labels
    X = sp.csr_matrix(X)
    out = np.full((X.shape[0], k), X.shape[1], dtype=np.int64)
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        order = np.argsort(-X.data[lo:hi], kind="stable")[:k]
        out[i, : order.size] = X.indices[lo:hi][order]
    return out


def _pyxclib_setup(X, true_labels, inv_psp, k):
    num_instances, num_labels = true_labels.shape
    if sp.issparse(X):
        indices = _pyxclib_topk_sparse(X, k)
    else:
        indices = _pyxclib_topk_dense(X, k)
    _mat = sp.spdiags(inv_psp, diags=0, m=num_labels, n=num_labels)
    _psp_wtd = np.asarray(_mat.dot(true_labels.T).T)  # _broad_cast to dense
    ps_indices = _pyxclib_topk_dense(_psp_wtd, k)
    inv_psp = np.hstack([inv_psp, np.zeros(1)])
    true_labels = np.hstack([true_labels, np.zeros((num_instances, 1))])
    return indices, true_labels, ps_indices, inv_psp


def _pyxclib_eval_flags(indices, true_labels, inv_psp=None):
    eval_flags = np.take_along_axis(true_labels, indices, axis=-1)
    if inv_psp is not None:
        eval_flags = np.multiply(inv_psp[indices], eval_flags)
    return eval_flags


def _pyxclib_precision(eval_flags, k=5):
    deno = 1 / (np.arange(k) + 1)
    precision = np.mean(np.multiply(np.cumsum(eval_flags, axis=-1), deno), axis=0)
    return np.ravel(precision)


def _pyxclib_ndcg(eval_flags, n, k=5):
    _cumsum = 0
    _dcg = np.cumsum(np.multiply(eval_flags, 1 / np.log2(np.arange(k) + 2)), axis=-1)
    ndcg = np.zeros((1, k), dtype=np.float32)
    for _k in range(k):
        _cumsum += 1 / np.log2(_k + 1 + 1)
        ndcg[0, _k] = np.mean(
            np.multiply(_dcg[:, _k].reshape(-1, 1), 1 / np.minimum(n, _cumsum))
        )
    return np.ravel(ndcg)


def pyxclib_psprecision(X, true_labels, inv_psp, k=5):
    indices, true_labels, ps_indices, inv_psp = _pyxclib_setup(
        X, true_labels, inv_psp, k
    )
    eval_flags = _pyxclib_eval_flags(indices, true_labels, inv_psp)
    ps_eval_flags = _pyxclib_eval_flags(ps_indices, true_labels, inv_psp)
    return _pyxclib_precision(eval_flags, k) / _pyxclib_precision(ps_eval_flags, k)


def pyxclib_psndcg(X, true_labels, inv_psp, k=5):
    indices, true_labels, ps_indices, inv_psp = _pyxclib_setup(
        X, true_labels, inv_psp, k
    )
    eval_flags = _pyxclib_eval_flags(indices, true_labels, inv_psp)
    ps_eval_flags = _pyxclib_eval_flags(ps_indices, true_labels, inv_psp)
    _total_pos = np.asarray(true_labels.sum(axis=1), dtype=np.int32)
    _max_pos = max(np.max(_total_pos), k)
    _cumsum = np.cumsum(1 / np.log2(np.arange(1, _max_pos + 1) + 1))
    n = _cumsum[_total_pos - 1].reshape(-1, 1)
    return _pyxclib_ndcg(eval_flags, n, k) / _pyxclib_ndcg(ps_eval_flags, n, k)


PYXCLIB = {"psprecision": pyxclib_psprecision, "psndcg": pyxclib_psndcg}


def xmc_case(seed, n_rows=40, n_labels=30, density=0.1):
    """Binary labels as in extreme classification, tie-free scores, and
    Jain et al.'s inverse propensities from separate training labels."""
    rng = np.random.default_rng(seed)
    y_train = (rng.random((200, n_labels)) < rng.random(n_labels) * 0.3).astype(int)
    y_true = (rng.random((n_rows, n_labels)) < density).astype(np.float64)
    y_true[0] = 0  # a row with no label, which pyxclib keeps
    y_score = rng.random((n_rows, n_labels)) + y_true * rng.random((n_rows, 1))
    return y_train, y_true, y_score


# --------------------------------------------------------------------------
# pyxclib
# --------------------------------------------------------------------------


@pytest.mark.parametrize("A, B", [(0.55, 1.5), (0.5, 0.4), (0.6, 2.6)])
def test_inverse_propensity_is_pyxclibs(A, B):
    y_train, _, _ = xmc_case(0)
    want = pyxclib_compute_inv_propesity(y_train, A, B)
    np.testing.assert_allclose(inverse_propensity(y_train, A=A, B=B), want, rtol=1e-14)
    np.testing.assert_allclose(
        inverse_propensity(sp.csr_matrix(y_train), A=A, B=B), want, rtol=1e-14
    )
    np.testing.assert_allclose(
        inverse_propensity(y_train.astype(bool), A=A, B=B), want, rtol=1e-14
    )


def test_inverse_propensity_by_hand():
    # N = 4, C = (log 4 - 1) 2.5**0.55; label 0 in 3 samples, the others in 1.
    y_train = np.array([[1, 0, 1], [1, 0, 0], [1, 1, 0], [0, 0, 0]])
    c = (math.log(4) - 1) * 2.5**0.55
    want = [1 + c * 4.5**-0.55, 1 + c * 2.5**-0.55, 1 + c * 2.5**-0.55]
    np.testing.assert_allclose(inverse_propensity(y_train), want, rtol=1e-15)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("seed", range(4))
def test_matches_pyxclib_dense(name, seed):
    y_train, y_true, y_score = xmc_case(seed)
    w = inverse_propensity(y_train)
    want = PYXCLIB[name](y_score, y_true, w, k=5)
    got = [
        FUNCTIONS[name](y_true, y_score, k=k, propensity=w, zero_division=0.0)
        for k in range(1, 6)
    ]
    # pyxclib's nDCG is float32
    rtol = 1e-6 if name == "psndcg" else 1e-12
    np.testing.assert_allclose(got, want, rtol=rtol)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_matches_pyxclib_sparse_predictions(name):
    """pyxclib's evaluate.py: sparse predictions, a few labels per row; the
    labels not predicted are not retrieved (-inf here)."""
    y_train, y_true, y_score = xmc_case(7)
    rng = np.random.default_rng(7)
    kept = rng.random(y_score.shape) < 0.15
    predictions = sp.csr_matrix(np.where(kept, y_score, 0.0))
    w = inverse_propensity(y_train, A=0.6, B=2.6)
    want = PYXCLIB[name](predictions, y_true, w, k=5)
    scores = np.where(kept, y_score, -np.inf)
    got = [
        FUNCTIONS[name](
            sp.csr_matrix(y_true), scores, k=k, propensity=w, zero_division=0.0
        )
        for k in range(1, 6)
    ]
    rtol = 1e-6 if name == "psndcg" else 1e-12
    np.testing.assert_allclose(got, want, rtol=rtol)


# --------------------------------------------------------------------------
# The oracle: every ordering of the tied items, both tie modes
# --------------------------------------------------------------------------


def _discount(name):
    if name == "psprecision":
        return lambda i: 1.0
    return lambda i: 1.0 / math.log2(i + 1)


def oracle_sums(name, y_true, y_score, w, k, ignore_ties, threshold):
    """Per row: the expected weighted gain at the top k, the best one and the
    row's weight in pyxclib's ratio (best / k, or best / binary ideal DCG)."""
    from helpers import _Row

    out = []
    for scores, grades in zip(y_score.tolist(), y_true.tolist()):
        row = _Row(grades, threshold, "linear")
        params = {"propensity": w}
        sums = [
            ps_sums(r, row, k, params, _discount(name))
            for r in rankings(scores, ignore_ties)
        ]
        top = math.fsum(s[0] for s in sums) / len(sums)
        best = sums[0][1]
        n_rel = sum(row.rel)
        if name == "psprecision":
            norm = k
        else:
            norm = sum(1 / math.log2(i + 1) for i in range(1, min(k, n_rel) + 1))
        out.append((top, best, best / norm if norm else 0.0))
    return np.array(out)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("ignore_ties", [False, True])
def test_matches_oracle(name, seed, ignore_ties):
    y_true, y_score, weights = random_case(seed)
    if weights is None:
        weights = np.ones(y_true.shape[0])
    rng = np.random.default_rng(100 + seed)
    w = rng.choice([1.0, 1.5, 2.0, 4.0, 7.25], size=y_true.shape[1])
    f = FUNCTIONS[name]
    for k in (1, 2, 3, 5):
        for threshold in (0, 1):
            sums = oracle_sums(name, y_true, y_score, w, k, ignore_ties, threshold)
            top, best, ideal_weight = sums.T
            defined = best > 0
            common = dict(
                k=k,
                propensity=w,
                ignore_ties=ignore_ties,
                relevance_threshold=threshold,
                zero_division=np.nan,
            )
            rows = f(y_true, y_score, average=None, **common)
            want = np.where(defined, top / np.where(defined, best, 1), np.nan)
            np.testing.assert_allclose(rows, want, rtol=1e-12, equal_nan=True)
            if not defined.any():
                continue
            # pyxclib's ratio of the dataset means, sample-weighted
            ratio = (
                np.where(defined, top / np.where(defined, best, 1), 0) * ideal_weight
            )
            want_ideal = math.fsum(weights * ratio) / math.fsum(weights * ideal_weight)
            if math.fsum(weights * ideal_weight) > 0:
                got = f(y_true, y_score, sample_weight=weights, **common)
                assert got == pytest.approx(want_ideal, rel=1e-12, abs=1e-15)
                got = f(
                    y_true, y_score, sample_weight=weights, average="ideal", **common
                )
                assert got == pytest.approx(want_ideal, rel=1e-12, abs=1e-15)
            # the plain mean of the per-row ratios
            keep = defined & (weights > 0)
            if keep.any():
                want_mean = math.fsum(weights[keep] * want[keep]) / math.fsum(
                    weights[keep]
                )
                got = f(
                    y_true, y_score, sample_weight=weights, average="mean", **common
                )
                assert got == pytest.approx(want_mean, rel=1e-12, abs=1e-15)


def test_tie_group_straddling_k_by_hand():
    """Three tied items, two relevant of weights 2 and 6, one slot left at
    k=2 after the first item (relevant, weight 1): each tied item is in the
    top 2 with probability 1/3."""
    y_true = np.array([[1, 1, 1, 0]])
    y_score = np.array([[0.9, 0.5, 0.5, 0.5]])
    w = np.array([1.0, 2.0, 6.0, 3.0])
    # PSP@2: (1 + (2 + 6 + 0) / 3) / (6 + 2)
    got = psprecision_at_k_score(y_true, y_score, k=2, propensity=w, average=None)
    np.testing.assert_allclose(got, [(1 + 8 / 3) / 8])
    # PSDCG@2: 1 + (8 / 3) / log2(3) over 6 + 2 / log2(3)
    got = psndcg_at_k_score(y_true, y_score, k=2, propensity=w, average=None)
    np.testing.assert_allclose(
        got, [(1 + 8 / 3 / math.log2(3)) / (6 + 2 / math.log2(3))]
    )
    # ignore_ties: the later column first (column 3, not relevant; then 2)
    got = psprecision_at_k_score(
        y_true, y_score, k=2, propensity=w, average=None, ignore_ties=True
    )
    np.testing.assert_allclose(got, [1 / 8])


def test_docstring_example_by_hand():
    y_true = np.array([[1, 0, 1, 0], [0, 1, 0, 0]])
    y_score = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.1, 0.7, 0.4]])
    w = np.array([2.0, 1.0, 4.0, 1.0])
    # PSP@2: row 1 gains 2 of the best 6; row 2 gains 0 of the best 1.
    assert psprecision_at_k_score(y_true, y_score, k=2, propensity=w) == pytest.approx(
        (2 / 2 + 0) / (6 / 2 + 1 / 2)
    )
    # PSnDCG@2: B = 1 + 1/log2(3) for row 1 (two labels), 1 for row 2.
    b1 = 1 + 1 / math.log2(3)
    best1 = 4 + 2 / math.log2(3)
    want = (2 / b1 + 0) / (best1 / b1 + 1 / 1)
    assert psndcg_at_k_score(y_true, y_score, k=2, propensity=w) == pytest.approx(want)


# --------------------------------------------------------------------------
# Without propensity, inputs, scorers, reports, accumulators
# --------------------------------------------------------------------------


def test_unit_weights_are_relative_precision_and_binary_ndcg():
    y_true, y_score, _ = random_case(3)
    kw = dict(k=3, average=None, zero_division=0.0)
    np.testing.assert_allclose(
        psprecision_at_k_score(y_true, y_score, **kw),
        relative_precision_at_k_score(y_true, y_score, **kw),
    )
    np.testing.assert_allclose(
        psndcg_at_k_score(y_true, y_score, **kw),
        ndcg_at_k_score((y_true > 0).astype(int), y_score, **kw),
    )
    ones = np.ones(y_true.shape[1])
    for f in FUNCTIONS.values():
        assert f(y_true, y_score, k=3, zero_division=0.0) == f(
            y_true, y_score, k=3, propensity=ones, zero_division=0.0
        )


@pytest.mark.parametrize("threshold", [0, 1, -1])
def test_sparse_equals_dense(threshold):
    y_train, y_true, y_score = xmc_case(2)
    y_true[3, :4] = [2, -1, 3, 0]
    w = inverse_propensity(y_train)
    for f in FUNCTIONS.values():
        kw = dict(
            k=4,
            propensity=w,
            relevance_threshold=threshold,
            average=None,
            zero_division=0.0,
        )
        np.testing.assert_allclose(
            f(sp.csr_matrix(y_true), y_score, **kw),
            f(y_true, y_score, **kw),
            rtol=1e-14,
        )


def test_scorer_report_and_accumulator_give_pyxclibs_ratio():
    y_train, y_true, y_score = xmc_case(5)
    w = inverse_propensity(y_train)
    want = {
        "psprecision@3": pyxclib_psprecision(y_score, y_true, w, k=3)[2],
        "psndcg@3": pyxclib_psndcg(y_score, y_true, w, k=3)[2],
    }
    scorer = get_scorer(list(want), propensity=w, zero_division=0.0)
    scores = scorer._score(y_true, y_score)
    report = ranking_report(
        y_true,
        y_score,
        k=3,
        metrics=["psprecision", "psndcg"],
        propensity=w,
        zero_division=0.0,
    )
    acc = RankingAccumulator(list(want), propensity=w, zero_division=0.0)
    for start in range(0, y_true.shape[0], 7):
        acc.update(y_true[start : start + 7], y_score[start : start + 7])
    result = acc.result()
    for name, value in want.items():
        assert scores[name] == pytest.approx(value, rel=1e-6)
        assert report[name] == pytest.approx(value, rel=1e-6)
        assert result[name] == pytest.approx(value, rel=1e-6)
        metric, k = name.split("@")
        assert scores[name] == pytest.approx(
            FUNCTIONS[metric](
                y_true, y_score, k=int(k), propensity=w, zero_division=0.0
            ),
            rel=1e-12,
        )
    # a scorer of one metric returns one number
    one = get_scorer("psndcg@3", propensity=w, zero_division=0.0)
    assert one._score(y_true, y_score) == pytest.approx(scores["psndcg@3"], rel=1e-12)
    # merged accumulators built from equal (not identical) weights
    left = RankingAccumulator(list(want), propensity=w.copy(), zero_division=0.0)
    right = RankingAccumulator(list(want), propensity=w.copy(), zero_division=0.0)
    left.update(y_true[:13], y_score[:13])
    right.update(y_true[13:], y_score[13:])
    merged = left.merge(right).result()
    for name in want:
        assert merged[name] == pytest.approx(result[name], rel=1e-12)


def test_dask_gives_the_same_ratio():
    da = pytest.importorskip("dask.array")
    y_train, y_true, y_score = xmc_case(6)
    w = inverse_propensity(y_train)
    for f in FUNCTIONS.values():
        want = f(y_true, y_score, k=4, propensity=w, zero_division=0.0)
        got = f(
            da.from_array(y_true, chunks=(9, -1)),
            da.from_array(y_score, chunks=(9, -1)),
            k=4,
            propensity=w,
            zero_division=0.0,
        )
        assert got == pytest.approx(want, rel=1e-12)


def test_rows_without_labels_weigh_nothing_in_pyxclibs_ratio():
    y_true = np.array([[1, 0, 0], [0, 0, 0]])
    y_score = np.array([[0.1, 0.5, 0.2], [0.3, 0.2, 0.1]])
    w = np.array([3.0, 1.0, 1.0])
    for f in FUNCTIONS.values():
        with pytest.warns(UndefinedMetricWarning):
            warned = f(y_true, y_score, k=2, propensity=w)
        for zero_division in (0.0, 1.0, np.nan):
            assert f(
                y_true, y_score, k=2, propensity=w, zero_division=zero_division
            ) == pytest.approx(warned)
        # the plain mean counts the empty row as zero_division says
        assert (
            f(y_true, y_score, k=2, propensity=w, average="mean", zero_division=1.0)
            > warned
        )


def test_errors():
    y_true = np.array([[1, 0, 1]])
    y_score = np.array([[0.1, 0.5, 0.2]])
    with pytest.raises(
        ValueError, match=r"propensity must have one weight per item: shape \(3,\)"
    ):
        psprecision_at_k_score(y_true, y_score, propensity=[1.0, 2.0])
    for bad in (
        [1.0, 0.0, 2.0],
        [1.0, -1.0, 2.0],
        [1.0, np.nan, 2.0],
        [1.0, np.inf, 1.0],
    ):
        with pytest.raises(ValueError, match="propensity must hold finite weights > 0"):
            psndcg_at_k_score(y_true, y_score, propensity=bad)
    with pytest.raises(TypeError, match="propensity must be an array-like"):
        psndcg_at_k_score(y_true, y_score, propensity=2.0)
    with pytest.raises(ValueError, match="propensity must be a non-empty 1-D array"):
        psndcg_at_k_score(y_true, y_score, propensity=[[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match='average="ideal" applies to the propensity'):
        sklearn_rankk.ndcg_at_k_score(y_true, y_score, average="ideal")
    with pytest.raises(ValueError, match="qid"):
        psndcg_at_k_score(
            [1, 0, 1], [0.1, 0.5, 0.2], qid=[1, 1, 1], propensity=[1, 1, 1]
        )
    with pytest.raises(ValueError, match="NaN"):
        psndcg_at_k_score([[1, np.nan, 1]], y_score)
    with pytest.raises(ValueError, match="B"):
        inverse_propensity(y_true, B=-1.0)
    with pytest.raises(ValueError, match="2-D"):
        inverse_propensity([1, 0, 1])
