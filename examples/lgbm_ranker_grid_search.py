"""
Learning to rank: LGBMRanker grid search with GroupKFold
========================================================

Learning-to-rank data are flat: one row per (query, document) pair, with
features, a graded relevance and a query id. This example tunes LightGBM's
``LGBMRanker`` with ``GridSearchCV``:

* folds split by query (``GroupKFold`` with ``groups=qid``), so that no
  query is in both the training and the test fold;
* scikit-learn's metadata routing carries ``qid``, split with the rows of
  each fold, to the ranker's ``fit`` and to the scorer, which ranks each
  test query's documents separately;
* one scorer computes nDCG@5, nDCG@10 and MAP@10 from one ranking pass, and
  ``refit="ndcg@5"`` refits the best model.

``LGBMRanker.fit`` takes the sizes of contiguous queries (``group=``)
rather than one id per document, so a small subclass converts.
"""

# %%
# Data
# ----
#
# 150 queries of 5 to 30 documents; relevance 0..3 from a noisy function of
# six features. Query ids are per document, and the rows are shuffled: the
# rows of a query need not be contiguous.

import matplotlib.pyplot as plt
import numpy as np
import sklearn
from lightgbm import LGBMRanker
from sklearn.model_selection import GridSearchCV, GroupKFold

from sklearn_rankk import get_scorer, ndcg_at_k_score

rng = np.random.default_rng(0)
sizes = rng.integers(5, 31, size=150)
qid = np.repeat(np.arange(150), sizes)
X = rng.normal(size=(qid.size, 6))
signal = X @ np.array([1.0, 0.8, -0.6, 0.4, 0.0, 0.0]) + np.sin(2 * X[:, 4])
y = np.digitize(signal + rng.normal(scale=0.8, size=qid.size), [0.5, 1.5, 2.5])
shuffle = rng.permutation(qid.size)  # rows of one query are not contiguous
qid, X, y = qid[shuffle], X[shuffle], y[shuffle]
print(
    f"{qid.size} documents in {sizes.size} queries; "
    f"relevance counts {np.bincount(y).tolist()}"
)

# %%
# A ranker that takes query ids
# -----------------------------


class QidLGBMRanker(LGBMRanker):
    """LGBMRanker that takes per-document query ids, as routing gives them."""

    def fit(self, X, y, qid=None, **kwargs):
        order = np.argsort(qid, kind="stable")
        _, group_sizes = np.unique(qid[order], return_counts=True)
        return super().fit(X[order], y[order], group=group_sizes, **kwargs)


# %%
# Grid search
# -----------

sklearn.set_config(enable_metadata_routing=True)
ranker = QidLGBMRanker(
    n_estimators=40, min_child_samples=10, verbose=-1, random_state=0, n_jobs=1
).set_fit_request(qid=True)
grid = {"num_leaves": [3, 7, 15], "learning_rate": [0.05, 0.2]}
search = GridSearchCV(
    ranker,
    grid,
    scoring=get_scorer(["ndcg@5", "ndcg@10", "map@10"], zero_division=np.nan),
    refit="ndcg@5",
    cv=GroupKFold(n_splits=3),
).fit(X, y, qid=qid, groups=qid)
sklearn.set_config(enable_metadata_routing=False)

results = search.cv_results_
print("num_leaves  learning_rate  nDCG@5  nDCG@10  MAP@10")
for i, params in enumerate(results["params"]):
    print(
        f"{params['num_leaves']:>10}  {params['learning_rate']:>13}  "
        f"{results['mean_test_ndcg@5'][i]:.4f}   {results['mean_test_ndcg@10'][i]:.4f}"
        f"  {results['mean_test_map@10'][i]:.4f}"
    )
print(f"\nbest: {search.best_params_}, mean CV nDCG@5 {search.best_score_:.4f}")

# %%
# A few queries have no relevant document: their nDCG is undefined, and
# ``zero_division=np.nan`` leaves them out of the means instead of counting
# them as 0 (with a warning, the default).
#
# Against a random ranking of the same queries: a constant score ranks each
# query's documents at random, and with ties averaged its value is the exact
# expectation of a random ranking.

baseline = ndcg_at_k_score(y, np.zeros(len(y)), qid=qid, k=5, zero_division=np.nan)
print(f"random ranking nDCG@5: {baseline:.4f}")

# %%
# Plot
# ----

fig, ax = plt.subplots(figsize=(6.5, 4))
leaves = grid["num_leaves"]
for rate in grid["learning_rate"]:
    mask = [p["learning_rate"] == rate for p in results["params"]]
    ax.errorbar(
        leaves,
        results["mean_test_ndcg@5"][mask],
        yerr=results["std_test_ndcg@5"][mask],
        marker="o",
        capsize=3,
        label=f"learning_rate={rate}",
    )
ax.axhline(baseline, color="gray", linestyle="--", label="random ranking")
ax.set_xticks(leaves)
ax.set_xlabel("num_leaves")
ax.set_ylabel("nDCG@5 (mean ± std over 3 query folds)")
ax.legend()
ax.grid(alpha=0.3)
ax.set_title("LGBMRanker, GroupKFold by query")
plt.show()
