"""
Is one model really a better ranker? Intervals, paired tests and curves
=======================================================================

Three classifiers rank the ten digit classes for every image of
scikit-learn's digits data. One mean nDCG@3 per model does not say whether
the differences are real, where along the list a model wins, or how far
above random it is: this example answers all three on the same held-out
images.
"""

# %%
# Three models, one test set
# --------------------------
# Every model ranks the ten classes of each held-out image by its predicted
# probability. The images are the rows, shared by all models, so the
# comparisons below are paired.
import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier

from sklearn_rankk import (
    RankingCurveDisplay,
    compare_models,
    confidence_interval,
    paired_test,
    ranking_report,
)

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.5, stratify=y, random_state=0
)
models = {
    "GaussianNB": GaussianNB(),
    "LDA": LinearDiscriminantAnalysis(),
    "5-NN": KNeighborsClassifier(n_neighbors=5),
}
scores = {
    name: model.fit(X_train, y_train).predict_proba(X_test)
    for name, model in models.items()
}

# %%
# One report per model
# --------------------
# Every metric at k = 1, 3, 5 from one top-k pass, next to what a random
# ranking of the ten classes is expected to score, and the lift over it.
# Ties are averaged exactly: 5-NN gives many classes the same probability
# (often 0), and a tie costs what it would cost on average, never more.
report = ranking_report(
    y_test,
    scores["LDA"],
    k=[1, 3, 5],
    metrics=["hit", "mrr", "ndcg"],
    random_baseline=True,
)
print(report)

# %%
# How sure is each mean?
# ----------------------
# A 95% BCa bootstrap interval of mean nDCG@3 over the test images.
for name, y_score in scores.items():
    ci = confidence_interval(y_test, y_score, metric="ndcg@3", random_state=0)
    print(f"{name:>10}: nDCG@3 = {ci.mean:.4f}", end="  ")
    print(f"95% CI [{ci.low:.4f}, {ci.high:.4f}]")

# %%
# Is LDA better than GaussianNB?
# ------------------------------
# The same images scored by both: a paired t-test and the sign-flip
# randomization test on the per-image nDCG@3 differences.
for method in ("t", "randomization"):
    result = paired_test(
        y_test,
        scores["LDA"],
        scores["GaussianNB"],
        metric="ndcg@3",
        method=method,
        random_state=0,
    )
    low, high = result.confidence_interval
    print(
        f"{method:>13}: difference {result.difference:+.4f} "
        f"[{low:+.4f}, {high:+.4f}], {result.effect_size_name} "
        f"{result.effect_size:.3f}, p = {result.pvalue:.2g}"
    )

# %%
# Every pair, corrected for multiple comparisons
# ----------------------------------------------
# Wilcoxon signed-rank tests on all three pairs, with Holm's correction.
comparison = compare_models(y_test, scores, metric="ndcg@3", method="wilcoxon")
print(comparison)

# %%
# Where along the list does each model win?
# -----------------------------------------
# nDCG@k for k = 1..10, with the exact random-ranking baseline.
fig, ax = plt.subplots(figsize=(6.4, 4.2))
for name, y_score in scores.items():
    display = RankingCurveDisplay.from_predictions(
        y_test, y_score, kind="ndcg", k_max=10, name=name, ax=ax
    )
ax.set_title("nDCG@k on held-out digits")
fig.tight_layout()
plt.show()
