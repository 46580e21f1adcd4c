"""
Precision and recall at every cut-off
=====================================

How many labels should a tagging model show? Precision@k falls and
recall@k rises as k grows; :func:`~sklearn_rankk.precision_recall_at_k_curve`
gives both, and F1@k, at every ``k = 1 .. k_max`` from one ranking pass.

A one-vs-rest logistic regression ranks the 15 possible labels of each
sample of a generated multilabel data set; a constant score (every label
tied) gives the random-ranking curves to compare with.
"""

# %%
# Curves
# ------

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_multilabel_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier

from sklearn_rankk import precision_recall_at_k_curve

X, Y = make_multilabel_classification(
    n_samples=1500,
    n_features=25,
    n_classes=15,
    n_labels=3,
    allow_unlabeled=False,
    random_state=1,
)
X_train, X_test, Y_train, Y_test = train_test_split(X, Y, random_state=0)
model = OneVsRestClassifier(LogisticRegression(max_iter=1000)).fit(X_train, Y_train)

curves = {
    "logistic regression": precision_recall_at_k_curve(
        Y_test, model.decision_function(X_test)
    ),
    "random ranking": precision_recall_at_k_curve(Y_test, np.zeros(Y_test.shape)),
}
precision, recall, f1, k = curves["logistic regression"]
best = int(np.argmax(f1))
print(f"mean number of labels per sample: {Y_test.sum(axis=1).mean():.2f}")
print(" k     P@k     R@k    F1@k")
for i in range(8):
    print(f"{k[i]:2d}  {precision[i]:.4f}  {recall[i]:.4f}  {f1[i]:.4f}")
print(
    f"F1@k is highest at k = {k[best]}: P@k {precision[best]:.4f}, "
    f"R@k {recall[best]:.4f}"
)

# %%
# The random curves are exact: P@k of a random ranking is the share of
# relevant labels, whatever k.

print(curves["random ranking"].precision[:5].round(4))

# %%
# Plot
# ----
#
# Left: P@k, R@k and F1@k against k. Right: precision against recall as k
# grows, the ranking's precision-recall curve.

fig, (by_k, pr) = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
for name, curve in curves.items():
    style = "-" if name == "logistic regression" else "--"
    by_k.plot(curve.k, curve.precision, style, color="C0")
    by_k.plot(curve.k, curve.recall, style, color="C1")
    by_k.plot(curve.k, curve.f1, style, color="C2")
    pr.plot(curve.recall, curve.precision, style + "o", markersize=3, label=name)
# One legend entry per metric (colour) and per ranking (line style), in
# the order that fills the legend's columns: metrics on its first row.
for style, label in (
    ("C0-", "P@k"),
    ("k-", "logistic regression"),
    ("C1-", "R@k"),
    ("k--", "random ranking"),
    ("C2-", "F1@k"),
):
    by_k.plot([], [], style, label=label)
by_k.axvline(k[best], color="gray", linewidth=0.8)
by_k.set_xlabel("k")
by_k.set_xticks(k)
by_k.set_ylim(0, 1.02)
# Below the axes: the six curves leave no free corner inside.
by_k.legend(fontsize=8, ncols=3, loc="upper center", bbox_to_anchor=(0.5, -0.17))
by_k.set_title("Precision, recall and F1 at k")
for i in (0, 2, 4):
    pr.annotate(
        f"k={k[i]}",
        (recall[i], precision[i]),
        textcoords="offset points",
        xytext=(6, 2),
        fontsize=8,
    )
pr.set_xlabel("recall@k")
pr.set_ylabel("precision@k")
pr.set_xlim(0, 1.02)
pr.set_ylim(0, 1.02)
pr.legend()
pr.set_title("Precision against recall, k = 1 .. 15")
plt.show()
