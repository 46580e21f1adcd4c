"""The worked examples of the seed documents (../shared/seeds), exact values.

A ranked list of relevance flags becomes one row: the item at rank i gets
score -i; relevant items that the list does not contain get score -inf (not
retrieved), so they count in |R| but sit at no rank.
"""

from fractions import Fraction as F

import numpy as np
import pytest

from sklearn_rankk import (
    f1_at_k_score,
    map_at_k_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)


def ranked(flags, total_relevant=None):
    """y_true, y_score (1 row) for a ranked list of relevance flags."""
    flags = list(flags)
    missing = (total_relevant or sum(flags)) - sum(flags)
    y_true = np.array([flags + [1] * missing])
    y_score = np.array([[-float(i) for i in range(len(flags))] + [-np.inf] * missing])
    return y_true, y_score


# "Precision@k" table: relevant at ranks 1, 3, 4, 6, 8, 10.
TABLE = [1, 0, 1, 1, 0, 1, 0, 1, 0, 1]
P_TABLE = [F(1, 1), F(1, 2), F(2, 3), F(3, 4), F(3, 5), F(4, 6), F(4, 7), F(5, 8),
           F(5, 9), F(6, 10)]  # fmt: skip
R_TABLE = [F(c, 8) for c in (1, 1, 2, 3, 3, 4, 4, 5, 5, 6)]  # |R| = 8


@pytest.mark.parametrize("k", range(1, 11))
def test_precision_table(k):
    y_true, y_score = ranked(TABLE)
    assert precision_at_k_score(y_true, y_score, k=k) == pytest.approx(
        float(P_TABLE[k - 1]), abs=1e-15
    )


@pytest.mark.parametrize("k", range(1, 11))
def test_recall_table_with_eight_relevant(k):
    y_true, y_score = ranked(TABLE, total_relevant=8)
    assert recall_at_k_score(y_true, y_score, k=k) == pytest.approx(
        float(R_TABLE[k - 1]), abs=1e-15
    )
    # P@k * k = R@k * |R|
    assert precision_at_k_score(y_true, y_score, k=k) * k == pytest.approx(
        recall_at_k_score(y_true, y_score, k=k) * 8
    )


# The code example: 20 ranked flags, 10 relevant items in the corpus.
CODE = [1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1]


@pytest.mark.parametrize(
    ("k", "n_found"), [(1, 1), (3, 2), (5, 3), (10, 6), (15, 7), (20, 9)]
)
def test_code_example(k, n_found):
    y_true, y_score = ranked(CODE, total_relevant=10)
    assert precision_at_k_score(y_true, y_score, k=k) == pytest.approx(n_found / k)
    assert recall_at_k_score(y_true, y_score, k=k) == pytest.approx(n_found / 10)


@pytest.mark.parametrize(
    ("flags", "n_relevant", "expected"),
    [
        ([1, 1, 1, 1, 1, 0, 0, 0, 0, 0], 5, 1.0),  # Example 1: perfect ranking
        ([1, 0, 1, 0, 1, 0, 0, 1, 0, 1], 5, 0.6),  # Example 2: imperfect
        ([0, 0, 0, 1, 1, 1, 0, 0, 0, 0], 3, 0.0),  # Example 3: worst
    ],
)
def test_r_precision_examples(flags, n_relevant, expected):
    y_true, y_score = ranked(flags, total_relevant=n_relevant)
    assert r_precision_score(y_true, y_score) == pytest.approx(expected)
    # R-precision = P@|R| = R@|R|
    assert precision_at_k_score(y_true, y_score, k=n_relevant) == pytest.approx(
        expected
    )
    assert recall_at_k_score(y_true, y_score, k=n_relevant) == pytest.approx(expected)


# Product search "wireless headphones": 6 relevant products at ranks
# 1, 3, 5, 7, 10 and 13 of 15 results.
PRODUCTS = [1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0]


@pytest.mark.parametrize(
    ("k", "precision", "recall"),
    [(1, 1.0, 1 / 6), (3, 2 / 3, 2 / 6), (5, 3 / 5, 3 / 6), (10, 5 / 10, 5 / 6)],
)
def test_product_search(k, precision, recall):
    y_true, y_score = ranked(PRODUCTS)
    assert precision_at_k_score(y_true, y_score, k=k) == pytest.approx(precision)
    assert recall_at_k_score(y_true, y_score, k=k) == pytest.approx(recall)
    assert f1_at_k_score(y_true, y_score, k=k) == pytest.approx(
        2 * precision * recall / (precision + recall)
    )


def test_product_search_r_precision_and_ap():
    y_true, y_score = ranked(PRODUCTS)
    assert r_precision_score(y_true, y_score) == pytest.approx(0.5)  # P@6 = 3/6
    # AP by hand: precision at each relevant rank, over |R| = 6.
    ap = (1 / 1 + 2 / 3 + 3 / 5 + 4 / 7 + 5 / 10 + 6 / 13) / 6
    assert map_at_k_score(y_true, y_score, k=None) == pytest.approx(ap, abs=1e-15)
    assert map_at_k_score(y_true, y_score, k=15) == pytest.approx(ap, abs=1e-15)


def test_precision_at_5_example():
    # Retrieved doc1..doc5, relevant doc1, doc3, doc5: P@5 = 0.6.
    y_true, y_score = ranked([1, 0, 1, 0, 1])
    assert precision_at_k_score(y_true, y_score, k=5) == pytest.approx(0.6)


def test_position_blindness():
    a = ranked([1, 1, 1, 0, 0, 0, 0, 0, 0, 0])
    b = ranked([0, 0, 0, 0, 0, 0, 0, 1, 1, 1])
    assert precision_at_k_score(*a, k=10) == precision_at_k_score(*b, k=10) == 0.3
    assert map_at_k_score(*a, k=10) > map_at_k_score(*b, k=10)


@pytest.mark.parametrize(
    ("k", "p_x", "p_y"),
    [(2, 1.0, 0.0), (3, 2 / 3, 1 / 3), (5, 0.4, 0.6), (10, 0.2, 0.3)],
)
def test_winner_depends_on_k(k, p_x, p_y):
    x = ranked([1, 1, 0, 0, 0, 0, 0, 0, 0, 0])
    y = ranked([0, 0, 1, 1, 1, 0, 0, 0, 0, 0])
    assert precision_at_k_score(*x, k=k) == pytest.approx(p_x)
    assert precision_at_k_score(*y, k=k) == pytest.approx(p_y)


def test_seven_clicks_of_ten_shown():
    y_true, y_score = ranked([1, 1, 0, 1, 1, 0, 1, 1, 0, 1])
    assert precision_at_k_score(y_true, y_score, k=10) == pytest.approx(0.7)


def test_recall_bounded_by_k_over_relevant():
    # Recall@5 with 10 relevant documents cannot exceed 0.5.
    y_true, y_score = ranked([1] * 10)
    assert recall_at_k_score(y_true, y_score, k=5) == pytest.approx(0.5)
