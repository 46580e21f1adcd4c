"""
Top-k evaluation of a digits classifier
=======================================

A classifier's ``predict_proba`` is a score matrix: one row per image, one
column per digit. The true digit is the one relevant item of each row, so
hit@k is top-k accuracy, MRR@10 is the mean reciprocal rank of the true
digit and nDCG@5 rewards putting it near the top.

This is the example the README runs: ``python examples/digits_ranking.py``.
It needs only scikit-learn; the plot at the end is drawn when matplotlib is
installed.
"""

# %%
# Two classifiers and a constant baseline
# ---------------------------------------
#
# Half of scikit-learn's digits data trains a logistic regression and a
# Gaussian naive Bayes model; each ranks the ten classes for every image of
# the other half. ``labels=model.classes_`` tells the metrics which digit
# each column scores.

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
scores = {}
for name, model in models.items():
    model.fit(X_train, y_train)
    scores[name] = model.predict_proba(X_test)
labels = np.arange(10)  # column j of every score matrix is digit j

# A constant ranker: ties are exact expectations, so it scores what a random
# ranking scores on average (hit@3 = 3/10), not 0 or 1.
scores["constant (random baseline)"] = np.zeros((len(y_test), 10))

header = ("model", "hit@1", "hit@3", "MRR@10", "nDCG@5", "MAP@3")
print(f"digits: {len(y_test)} test images, 10 classes ranked per image\n")
print(f"{header[0]:<28}" + "".join(f"{h:>8}" for h in header[1:]))
for name, s in scores.items():
    values = (
        hit_at_k_score(y_test, s, k=1, labels=labels),
        hit_at_k_score(y_test, s, k=3, labels=labels),
        mrr_at_k_score(y_test, s, k=10, labels=labels),
        ndcg_at_k_score(y_test, s, k=5, labels=labels),
        map_at_k_score(y_test, s, k=3, labels=labels),
    )
    print(f"{name:<28}" + "".join(f"{v:8.4f}" for v in values))

p = precision_at_k_score(y_test, scores["constant (random baseline)"], k=3)
print(f"\nP@3 of the constant ranker: {p:.4f} (= 1 relevant / 10 digits)")

# %%
# Top-k accuracy at every k
# -------------------------
#
# hit@k for k = 1 .. 9: how often the true digit is among the k
# best-scored classes. The constant ranker's line is the random baseline
# k/10. (At k = 10 every ranker scores 1 whatever its scores: hit@k warns
# there, as scikit-learn's ``top_k_accuracy_score`` does.)

ks = np.arange(1, 10)
curves = {
    name: [hit_at_k_score(y_test, s, k=int(k), labels=labels) for k in ks]
    for name, s in scores.items()
}

try:
    import matplotlib.pyplot as plt
except ImportError:  # the README's plain install has no matplotlib
    plt = None

if plt is not None:
    fig, ax = plt.subplots(figsize=(6, 4))
    for (name, curve), style in zip(curves.items(), ("o-", "s-", "k--")):
        ax.plot(ks, curve, style, label=name)
    ax.set_xlabel("k")
    ax.set_ylabel("hit@k (top-k accuracy)")
    ax.set_xticks(ks)
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title("Digits: is the true class among the top k?")
    plt.show()
