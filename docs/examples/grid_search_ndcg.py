"""Model selection by ranking quality: nDCG@5 and accuracy can pick different models.

Accuracy only looks at the top-1 prediction; nDCG@5 also rewards putting the
true digit second or third when the top guess is wrong. On scikit-learn's
digits data, a grid search over a decision tree's ``min_samples_leaf`` picks a
different tree under each, and the tree nDCG@5 picks ranks the true class
better on held-out data.

Run: ``python docs/examples/grid_search_ndcg.py``
"""

from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.tree import DecisionTreeClassifier

from sklearn_rankk import get_scorer


def main():
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
    ndcg = get_scorer("ndcg@5")
    for metric in ("accuracy", "ndcg@5"):
        best = results["params"][results[f"rank_test_{metric}"].argmin()]
        tree = DecisionTreeClassifier(random_state=0, **best).fit(X_train, y_train)
        print(
            f"picked by {metric:<8}: {best}  held-out accuracy "
            f"{tree.score(X_test, y_test):.4f}, nDCG@5 {ndcg(tree, X_test, y_test):.4f}"
        )


if __name__ == "__main__":
    main()
