"""
nDCG@5 and accuracy pick different models
=========================================

Accuracy only looks at the top-1 prediction; nDCG@5 also rewards putting the
true digit second or third when the top guess is wrong. On scikit-learn's
digits data, a grid search over a decision tree's ``min_samples_leaf`` picks
a different tree under each, and the tree nDCG@5 picks ranks the true class
better on held-out data.

Run: ``python examples/grid_search_ndcg.py``
"""

# %%
# One grid search, two metrics
# ----------------------------
#
# ``scoring`` mixes a scikit-learn scorer name and a ranking scorer;
# ``refit=False`` because the point is to compare what each would pick.

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.tree import DecisionTreeClassifier

from sklearn_rankk import get_scorer

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.3, stratify=y, random_state=0
)
search = GridSearchCV(
    DecisionTreeClassifier(random_state=0),
    {"min_samples_leaf": [1, 5]},
    cv=StratifiedKFold(3),
    scoring={"accuracy": "accuracy", "ndcg@5": get_scorer("ndcg@5")},
    refit=False,
).fit(X_train, y_train)
results = search.cv_results_
print("min_samples_leaf  mean CV accuracy  mean CV nDCG@5")
for i, params in enumerate(results["params"]):
    accuracy = results["mean_test_accuracy"][i]
    ndcg5 = results["mean_test_ndcg@5"][i]
    print(f"{params['min_samples_leaf']:>16}  {accuracy:>16.4f}  {ndcg5:>14.4f}")

# %%
# What each choice gives on held-out data
# ---------------------------------------

ndcg = get_scorer("ndcg@5")
held_out = {}
for metric in ("accuracy", "ndcg@5"):
    best = results["params"][results[f"rank_test_{metric}"].argmin()]
    tree = DecisionTreeClassifier(random_state=0, **best).fit(X_train, y_train)
    held_out[metric] = (best, tree.score(X_test, y_test), ndcg(tree, X_test, y_test))
    leaf = best["min_samples_leaf"]
    print(
        f"picked by {metric:<8}: min_samples_leaf={leaf}, held-out accuracy "
        f"{held_out[metric][1]:.4f}, nDCG@5 {held_out[metric][2]:.4f}"
    )

# %%
# Plot
# ----
#
# Cross-validated scores of both candidates (left) and the held-out scores
# of the tree each metric picked (right).

try:
    import matplotlib.pyplot as plt
except ImportError:  # a plain install has no matplotlib
    plt = None

if plt is not None:
    leaves = [p["min_samples_leaf"] for p in results["params"]]
    x = np.arange(len(leaves))
    fig, (cv_ax, test_ax) = plt.subplots(
        1, 2, figsize=(9, 3.8), sharey=True, layout="constrained"
    )
    cv_ax.bar(x - 0.2, results["mean_test_accuracy"], 0.4, label="accuracy")
    cv_ax.bar(x + 0.2, results["mean_test_ndcg@5"], 0.4, label="nDCG@5")
    cv_ax.set_xticks(x, [f"min_samples_leaf={v}" for v in leaves])
    cv_ax.set_title("mean 3-fold CV score")
    cv_ax.set_ylim(0.75, 0.92)
    cv_ax.legend(loc="upper left")
    picks = list(held_out)
    test_ax.bar(x - 0.2, [held_out[m][1] for m in picks], 0.4, label="accuracy")
    test_ax.bar(x + 0.2, [held_out[m][2] for m in picks], 0.4, label="nDCG@5")
    test_ax.set_xticks(
        x, [f"picked by {m}\n{held_out[m][0]}" for m in picks], fontsize=8
    )
    test_ax.set_title("held-out score of the picked tree")
    plt.show()
