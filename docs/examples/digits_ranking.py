"""Rank the ten digit classes for every image of scikit-learn's digits data.

A classifier's ``predict_proba`` is a score matrix: one row per image, one
column per digit. The true digit is the one relevant item of each row, so
hit@k is top-k accuracy, MRR@10 is the mean reciprocal rank of the true digit
and nDCG@5 rewards putting it near the top.

Run: ``python docs/examples/digits_ranking.py``
"""

import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rankk import (
    hit_at_k_score,
    map_at_k_score,
    mrr_at_k_score,
    ndcg_at_k_score,
    precision_at_k_score,
)


def main():
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=0
    )
    models = {
        "logistic regression": make_pipeline(
            StandardScaler(), LogisticRegression(max_iter=2000)
        ),
        "gaussian naive Bayes": GaussianNB(),
    }
    rows = []
    for name, model in models.items():
        scores = model.fit(X_train, y_train).predict_proba(X_test)
        labels = model.classes_  # column j of scores is digit labels[j]
        rows.append(
            (
                name,
                hit_at_k_score(y_test, scores, k=1, labels=labels),
                hit_at_k_score(y_test, scores, k=3, labels=labels),
                mrr_at_k_score(y_test, scores, k=10, labels=labels),
                ndcg_at_k_score(y_test, scores, k=5, labels=labels),
                map_at_k_score(y_test, scores, k=3, labels=labels),
            )
        )
    # A constant ranker: ties are exact expectations, so it scores what a
    # random ranking scores on average (hit@3 = 3/10), not 0 or 1.
    constant = np.zeros((len(y_test), 10))
    rows.append(
        (
            "constant (random baseline)",
            hit_at_k_score(y_test, constant, k=1),
            hit_at_k_score(y_test, constant, k=3),
            mrr_at_k_score(y_test, constant, k=10),
            ndcg_at_k_score(y_test, constant, k=5),
            map_at_k_score(y_test, constant, k=3),
        )
    )
    header = ("model", "hit@1", "hit@3", "MRR@10", "nDCG@5", "MAP@3")
    print(f"digits: {len(y_test)} test images, 10 classes ranked per image\n")
    print(f"{header[0]:<28}" + "".join(f"{h:>8}" for h in header[1:]))
    for name, *values in rows:
        print(f"{name:<28}" + "".join(f"{v:8.4f}" for v in values))
    p = precision_at_k_score(y_test, constant, k=3)
    print(f"\nP@3 of the constant ranker: {p:.4f} (= 1 relevant / 10 digits)")


if __name__ == "__main__":
    main()
