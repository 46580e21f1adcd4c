"""
A results table as a paper prints it: systems x measures, against a baseline
============================================================================

A results section compares several systems on several measures at once,
against a baseline, and marks which differences are significant after
correcting for the many tests. :func:`~sklearn_rankk.compare_systems` does it
in one call: each system is evaluated on every measure by one pass of the
top-k kernel, each is tested against the baseline on every query with a
paired test, and the p-values of each measure are corrected together.

Here the "systems" are three classifiers and a baseline that rank the ten
digit classes of every held-out image of scikit-learn's digits data; the
images are the queries.
"""

# %%
# Four rankers of the ten classes
# -------------------------------
# Every model ranks the classes of each held-out image by its predicted
# probability. Gaussian naive Bayes is the baseline.
import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier

from sklearn_rankk import PerQueryDifferenceDisplay, compare_systems

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.5, stratify=y, random_state=0
)
models = {
    "GaussianNB": GaussianNB(),
    "LDA": LinearDiscriminantAnalysis(),
    "5-NN": KNeighborsClassifier(n_neighbors=5),
    "Forest": RandomForestClassifier(n_estimators=50, random_state=0),
}
systems = {
    name: model.fit(X_train, y_train).predict_proba(X_test)
    for name, model in models.items()
}

# %%
# The table
# ---------
# Four measures; Fisher's randomization test (1999 random sign flips of the
# per-image differences; the default is 9999) against the baseline, Holm's
# correction over the three systems of each measure. ``+`` marks a system
# significantly better than the baseline, ``-`` significantly worse. Below
# the table, each comparison:
# the mean difference with its 95% interval, the effect size (Cohen's d_z),
# the raw and corrected p-values and the images won, tied and lost.
#
# Ties between classes are averaged exactly: 5-NN and the forest give many
# classes the same probability (often 0), and a tie costs what it would cost
# on average.
comparison = compare_systems(
    y_test,
    systems,
    measures=["hit@1", "hit@3", "mrr", "ndcg@5"],
    baseline="GaussianNB",
    method="randomization",
    correction="holm",
    n_resamples=1999,
    random_state=0,
)
print(comparison)

# %%
# The same table for a paper
# --------------------------
# ``to_latex()`` gives a booktabs table (``\usepackage{booktabs}``), the best
# mean of each measure in bold, the markers as superscripts, and a caption
# that states the test, the correction and alpha. ``to_markdown()`` gives
# the same for a README; in a notebook the comparison shows as an HTML
# table, and ``to_frame()`` gives the numbers as a pandas DataFrame.
print(comparison.to_latex(label="tab:digits"))

# %%
# Where does a system win?
# ------------------------
# A mean hides how the difference is spread over the queries. The display
# draws each image's difference in reciprocal rank between the forest and
# the baseline, sorted: most images tie (both rank the right class first),
# the forest wins on many, and loses on a few.
display = PerQueryDifferenceDisplay.from_comparison(
    comparison, measure="mrr", system="Forest"
)
display.ax_.set_title("Forest - GaussianNB, per held-out image")
plt.show()
