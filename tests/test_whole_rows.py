"""Whole-ranking measures on long rows, against the brute-force oracle.

A measure that reads every rank (interpolated precision, bpref, the gain
measures, a cut-off of k=None, ...) ranks the whole row; a row of 256 items
or more is put in order by a radix sort on the scores' bits rather than by
comparisons. These rows are long enough for that path, hold a few tie
groups (relevant items inside them), relevant items at the very bottom of
the ranking (below every cut-off a shorter selection would read), -0.0 tied
with 0.0, unretrieved items and, in some rows, unjudged items; each metric
is checked row by row against the oracle in both tie modes.
"""

import numpy as np
import pytest
from helpers import ATOL, FUNCS, RTOL, fill_undefined, oracle

from sklearn_rankk._core.registry import METRICS

# The metrics that read every rank (k=None where a metric takes k).
WHOLE = [
    "interpolated_precision",
    "eleven_point_precision",
    "bpref",
    "infap",
    "rbp_residual",
    "rndcg",
    "binary_g",
    "ndcg_rel",
    "normalized_gain",
    "map",
    "ndcg",
    "dcg",
    "mrr",
    "err",
    "rbp",
    "fall_out",
]


def long_rows(seed, n_items=300):
    """Rows of n_items: distinct scores but for three tie groups (sizes 3, 3
    and 2: 72 orderings), relevant items inside the groups and at the last
    ranks."""
    rng = np.random.default_rng(seed)
    rows_t, rows_s = [], []
    for r in range(3):
        scores = rng.permutation(n_items).astype(np.float64) + 1.0
        order = np.argsort(-scores, kind="stable")
        # three tie groups at random depths (one of them the last ranks)
        starts = sorted(rng.choice(n_items - 12, 2, replace=False)) + [n_items - 3]
        groups = []
        for start, size in zip(starts, (3, 3, 2)):
            members = order[start : start + size]
            scores[members] = scores[members[0]]
            groups.append(members)
        grades = np.zeros(n_items, dtype=np.int64)
        relevant = rng.choice(n_items, 8, replace=False)
        grades[relevant] = rng.integers(1, 4, relevant.size)
        for members in groups:  # one or two relevant members in each group
            grades[members[: 1 + r % 2]] = rng.integers(1, 4)
        grades[order[-1]] = 2  # the last rank is relevant
        grades[order[-5]] = 1
        if r == 1:  # unjudged items: not pooled (-1), pooled (-2)
            pool = rng.choice(np.flatnonzero(grades == 0), 20, replace=False)
            grades[pool[:12]] = -1
            grades[pool[12:]] = -2
        if r == 2:  # -0.0 ties with 0.0; one relevant item not retrieved
            scores[order[100]] = -0.0
            scores[order[101]] = 0.0
            scores[order[50]] = -np.inf
            grades[order[50]] = 3
        rows_t.append(grades)
        rows_s.append(scores)
    return np.array(rows_t), np.array(rows_s)


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("metric", WHOLE)
@pytest.mark.parametrize("seed", [0, 1])
def test_whole_row_matches_oracle(metric, ignore_ties, seed):
    y_true, y_score = long_rows(seed)
    info = METRICS[metric]
    kw = {"k": None} if info.needs_k else {}
    expected = oracle(
        metric,
        y_true,
        y_score,
        ignore_ties=ignore_ties,
        threshold=0,
        k=None,
        params={},
    )
    for i in range(y_true.shape[0]):
        got = FUNCS[metric](
            y_true[i : i + 1],
            y_score[i : i + 1],
            ignore_ties=ignore_ties,
            zero_division=0.0,
            **kw,
        )
        want = fill_undefined([expected[i]], 0.0, y_true[i : i + 1], metric=metric)[0]
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"row {i}")


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("metric", ["dcg", "ndcg"])
@pytest.mark.parametrize(
    "params",
    [{"gain": "exponential"}, {"log_base": 10}, {"gain": "exponential", "log_base": 3}],
)
def test_whole_row_dcg_options_match_oracle(metric, params, ignore_ties):
    """DCG and nDCG over the whole ranking read the relevant items' ranks
    only (no sorted row): exponential gains and other log bases too."""
    y_true, y_score = long_rows(2)
    expected = oracle(
        metric,
        y_true,
        y_score,
        ignore_ties=ignore_ties,
        threshold=0,
        k=None,
        params=params,
    )
    got = FUNCS[metric](
        y_true,
        y_score,
        k=None,
        average=None,
        ignore_ties=ignore_ties,
        **({"zero_division": 0.0} if metric == "ndcg" else {}),
        **params,
    )
    want = fill_undefined(expected, 0.0, y_true, metric=metric)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_whole_row_order_is_the_ranking(dtype):
    """The whole-row order (radix) is score descending, then the lower column
    first, or with ties="later_first" the later column first."""
    from sklearn_rankk._core import _kernel

    rng = np.random.default_rng(7)
    scores = rng.integers(0, 40, size=(5, 700)).astype(dtype)
    scores[0, ::7] = np.nan
    scores[1, ::5] = -0.0
    scores[2, :3] = -np.inf
    for later in (False, True):
        values, cols, outside, nan = _kernel.top_k(scores, 700, later_first=later)
        for r in range(5):
            key = np.where(np.isnan(scores[r]), -np.inf, scores[r]).astype(np.float64)
            tie = np.arange(700) if not later else -np.arange(700)
            want = np.lexsort((tie, -key))
            np.testing.assert_array_equal(cols[r], want)
            np.testing.assert_array_equal(values[r], key[want])
        assert not outside.any()
        assert nan.tolist() == [True, False, False, False, False]
