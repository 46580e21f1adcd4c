"""
Evaluating a recommender: sparse relevance, seen items excluded
===============================================================

A recommender scores every item for every user; the items a user
interacted with later (the test interactions) are the relevant ones. Two
things make this different from a plain classifier:

* the relevance matrix is large and almost empty, so it is kept sparse
  (scipy CSR): the metrics read it row block by row block, without ever
  densifying it;
* the items a user already interacted with during training must not be
  recommended again. They get the score ``-inf``, which means *not
  retrieved*: they take no place in the top k.

The data are generated: users and items with latent tastes, about 40
interactions per user, 80% of them for training and 20% held out.
"""

# %%
# Interactions
# ------------

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from sklearn.decomposition import TruncatedSVD

from sklearn_rankk import ndcg_at_k_score, ranking_report

rng = np.random.default_rng(0)
n_users, n_items, n_factors = 2000, 1000, 8
user_taste = rng.normal(size=(n_users, n_factors))
item_taste = rng.normal(size=(n_items, n_factors))
popularity = rng.normal(scale=1.5, size=n_items)
affinity = user_taste @ item_taste.T + popularity

# Each user interacts with ~40 items, drawn with probability growing with
# affinity (Gumbel top-k sampling), then 20% of them are held out.
noisy = affinity + rng.gumbel(size=affinity.shape)
chosen = np.argpartition(-noisy, 40, axis=1)[:, :40]
held_out = rng.random(chosen.shape) < 0.2
rows = np.repeat(np.arange(n_users), 40).reshape(chosen.shape)


def interactions(mask):
    return sp.csr_matrix(
        (np.ones(mask.sum()), (rows[mask], chosen[mask])), shape=(n_users, n_items)
    )


train, test = interactions(~held_out), interactions(held_out)
print(
    f"train: {train.nnz} interactions, test: {test.nnz}, "
    f"density of the test matrix: {test.nnz / (n_users * n_items):.2%}"
)

# %%
# Two recommenders
# ----------------
#
# A popularity baseline (the same order for every user: items by number of
# training interactions) and a low-rank model (truncated SVD of the
# training matrix), which personalises.

item_counts = np.asarray(train.sum(axis=0)).ravel()
svd = TruncatedSVD(n_components=16, random_state=0).fit(train)
scores = {
    "popularity": np.tile(item_counts.astype(float), (n_users, 1)),
    "truncated SVD": svd.transform(train) @ svd.components_,
}

# %%
# Excluding the items already seen
# --------------------------------
#
# Without exclusion, the models recommend mostly what the user already
# interacted with in training, which are never test items. With ``-inf`` on
# the training interactions, those items are simply not retrieved.

seen = train.nonzero()
reports, excluded_scores = {}, {}
for name, s in scores.items():
    excluded = s.copy()
    excluded[seen] = -np.inf
    excluded_scores[name] = excluded
    reports[name, "ranked"] = ranking_report(
        test, s, k=[10], metrics=["precision", "recall", "ndcg", "map"]
    )
    reports[name, "excluded"] = ranking_report(
        test,
        excluded,
        k=[10],
        metrics=["precision", "recall", "ndcg", "map"],
        random_baseline=True,
    )

names = ("precision@10", "recall@10", "ndcg@10", "map@10")
print("model         seen items   P@10    R@10  nDCG@10  MAP@10")
for (name, mode), report in reports.items():
    print(f"{name:<14}{mode:<9}" + "".join(f"{report[m]:8.4f}" for m in names))

# %%
# The random baseline of the same candidates: a ranking that orders each
# user's unseen items at random. ``ranking_report(..., random_baseline=True)``
# computes its exact expectation.

print(reports["truncated SVD", "excluded"])

# %%
# Per-user values
# ---------------
#
# ``average=None`` gives every user's nDCG@10; the distribution shows how
# many users get nothing useful in their top 10.

per_user = {
    name: ndcg_at_k_score(test, s, k=10, average=None)
    for name, s in excluded_scores.items()
}
for name, values in per_user.items():
    print(f"{name:<15} users with nDCG@10 = 0: {np.mean(values == 0):.1%}")

# %%
# Plot
# ----

fig, (bars, hist) = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
metrics = ["precision@10", "recall@10", "ndcg@10"]
x = np.arange(len(metrics))
for i, key in enumerate(reports):
    bars.bar(
        x + (i - 1.5) * 0.2,
        [reports[key][m] for m in metrics],
        0.2,
        label=f"{key[0]}, seen items {key[1]}",
    )
bars.set_xticks(x, metrics)
bars.set_ylabel("mean over users")
bars.set_ylim(0, 0.6)
bars.legend(fontsize=8, loc="upper left")
bars.set_title("Excluding seen items (score -inf)")
for name, values in per_user.items():
    hist.hist(values, bins=20, range=(0, 1), alpha=0.6, label=name)
hist.set_xlabel("nDCG@10 of one user (seen items excluded)")
hist.set_ylabel("users")
hist.legend()
hist.set_title("Per-user nDCG@10")
plt.show()
