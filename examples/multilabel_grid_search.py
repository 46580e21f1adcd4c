"""
Multilabel model selection with nDCG@5
======================================

A multilabel classifier can be used two ways: its ``predict`` gives a set of
labels for each sample (judged by F1), and its ``predict_proba`` ranks the
labels of each sample (judged by nDCG@5, P@5, ...). The two need not agree
on the best model: here, more neighbours in a k-nearest-neighbours model
make the thresholded label sets worse and the label ranking better.

The ranking metrics come from one :func:`~sklearn_rankk.get_scorer` call
with a list of names: one scorer, one ranking pass, a dict of scores, to
which a callable adds the F1 of ``predict``. ``refit="ndcg@5"`` refits the
model with the best nDCG@5.
"""

# %%
# Data and search
# ---------------
#
# 600 samples with 20 possible labels, about 4 per sample (every sample has
# at least one). ``KNeighborsClassifier.predict_proba`` returns one
# ``(n_samples, 2)`` array per label; the scorer takes the probability of
# each label being present.

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_multilabel_classification
from sklearn.metrics import f1_score
from sklearn.model_selection import GridSearchCV, KFold, train_test_split
from sklearn.neighbors import KNeighborsClassifier

from sklearn_rankk import get_scorer

X, Y = make_multilabel_classification(
    n_samples=600,
    n_features=30,
    n_classes=20,
    n_labels=4,
    allow_unlabeled=False,
    random_state=0,
)
X_train, X_test, Y_train, Y_test = train_test_split(X, Y, test_size=0.3, random_state=0)
ranking = get_scorer(["ndcg@5", "precision@5", "recall@5"])


def scoring(estimator, X, Y):
    """The three ranking metrics (one pass) and the F1 of ``predict``."""
    scores = ranking(estimator, X, Y)
    scores["f1"] = f1_score(Y, estimator.predict(X), average="samples")
    return scores


n_neighbors = [1, 3, 5, 10, 20, 40]
search = GridSearchCV(
    KNeighborsClassifier(weights="distance"),
    {"n_neighbors": n_neighbors},
    scoring=scoring,
    refit="ndcg@5",
    cv=KFold(3),
).fit(X_train, Y_train)

results = search.cv_results_
print("n_neighbors  nDCG@5     P@5     R@5  F1 (samples)")
for i, k in enumerate(n_neighbors):
    print(
        f"{k:>11}  {results['mean_test_ndcg@5'][i]:.4f}  "
        f"{results['mean_test_precision@5'][i]:.4f}  "
        f"{results['mean_test_recall@5'][i]:.4f}  "
        f"{results['mean_test_f1'][i]:12.4f}"
    )
print(f"\nbest by nDCG@5: {search.best_params_}")
best_f1 = results["params"][np.argmax(results["mean_test_f1"])]
print(f"best by F1:     {best_f1}")
held_out = get_scorer("ndcg@5")(search, X_test, Y_test)
print(f"held-out nDCG@5 of the refitted model: {held_out:.4f}")

# %%
# Plot
# ----

fig, ax = plt.subplots(figsize=(6.5, 4))
for key, label in [
    ("mean_test_ndcg@5", "nDCG@5"),
    ("mean_test_precision@5", "P@5"),
    ("mean_test_recall@5", "R@5"),
]:
    ax.plot(n_neighbors, results[key], "o-", label=label)
ax.plot(
    n_neighbors,
    results["mean_test_f1"],
    "k--",
    label="F1 of predict (samples)",
)
ax.set_xscale("log")
ax.set_xticks(n_neighbors, [str(k) for k in n_neighbors])
ax.set_xlabel("n_neighbors")
ax.set_ylabel("mean 3-fold CV score")
ax.legend()
ax.grid(alpha=0.3)
ax.set_title("Ranking the labels improves with more neighbours")
plt.show()
