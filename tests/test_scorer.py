"""Scorers with real scikit-learn estimators and entry points.

Every expected value is computed independently of the scorer: the test builds
the score matrix from the estimator's output by hand and calls the package's
metric functions on it, or uses scikit-learn's own metrics and scorers
(``accuracy``, ``top_k_accuracy_score``, ``ndcg_score``) where they coincide.
"""

import pickle

import numpy as np
import pytest
import sklearn
from helpers import FUNCS as ALL_FUNCS
from sklearn.base import clone
from sklearn.datasets import load_digits, make_multilabel_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LogisticRegression, Ridge, RidgeClassifier
from sklearn.metrics import (
    accuracy_score,
    dcg_score,
    make_scorer,
    ndcg_score,
    top_k_accuracy_score,
)
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    RandomizedSearchCV,
    StratifiedKFold,
    cross_val_score,
    cross_validate,
    learning_curve,
    validation_curve,
)
from sklearn.multiclass import OneVsRestClassifier
from sklearn.multioutput import ClassifierChain, MultiOutputClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
from sklearn.neural_network import MLPClassifier
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

import sklearn_rankk
from sklearn_rankk import (
    RankingScorer,
    dcg_at_k_score,
    get_scorer,
    get_scorer_names,
    make_ranking_scorer,
    map_at_k_score,
    ndcg_at_k_score,
    precision_at_k_score,
    r_precision_score,
)
from sklearn_rankk._core.registry import METRICS

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

# The metrics with a cut-off k.
FUNCS = {name: f for name, f in ALL_FUNCS.items() if METRICS[name].needs_k}
K_NONE_OK = ["mrr", "map", "dcg", "ndcg"]
NAMES = [
    "precision@2",
    "recall@3",
    "f1@2",
    "hit@1",
    "mrr@2",
    "mrr",
    "map@3",
    "map",
    "dcg@2",
    "dcg",
    "ndcg@3",
    "ndcg",
    "r_precision",
]


def _expected(name, y_true, y_score, **kwargs):
    """The metric function named by a scorer name, called directly."""
    if name == "r_precision":
        return r_precision_score(y_true, y_score, **kwargs)
    metric, _, k = name.partition("@")
    return FUNCS[metric](y_true, y_score, k=int(k) if k else None, **kwargs)


def _sklearn_version():
    return tuple(int(p) for p in sklearn.__version__.split(".")[:2])


class _Scores:
    """Not a model: ``predict`` returns X, so a scorer scores X against y."""

    def __init__(self):
        self.calls = 0

    def fit(self, X, y):
        return self

    def predict(self, X):
        self.calls += 1
        return np.asarray(X, dtype=float)


def _graded(seed=0, n=30, m=8):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, size=(n, m))
    y_true[np.arange(n), rng.integers(0, m, size=n)] = 3  # every row relevant
    y_score = rng.integers(0, 5, size=(n, m)).astype(float)  # many ties
    return y_true, y_score


def _multilabel(n_labels=5, n=150):
    return make_multilabel_classification(
        n_samples=n,
        n_features=12,
        n_classes=n_labels,
        n_labels=2,
        allow_unlabeled=False,
        random_state=0,
    )


def _positive_proba(proba, classes):
    """Per-label list of (n, n_classes) probabilities -> P(label = 1) matrix."""
    columns = []
    for p, cls in zip(proba, classes):
        cls = list(cls)
        assert p.shape == (p.shape[0], len(cls))
        columns.append(p[:, cls.index(1)] if 1 in cls else np.zeros(p.shape[0]))
    return np.column_stack(columns)


def _digits(n=600):
    X, y = load_digits(return_X_y=True)
    return X[:n] / 16.0, y[:n]


# ----------------------------------------------------------------------------
# 1. Names
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("metric", sorted(FUNCS))
@pytest.mark.parametrize("k", [1, 3, 8, 25])
def test_every_metric_at_k_name(metric, k):
    y_true, y_score = _graded()
    # A loss's scorer is "neg_<name>@<k>", the negated value.
    loss = not METRICS[metric].greater_is_better
    # zero_division=0.0, as "warn" without the warning (fall-out is undefined
    # on the rows where every item is relevant).
    scorer = get_scorer(f"{'neg_' if loss else ''}{metric}@{k}", zero_division=0.0)
    assert isinstance(scorer, RankingScorer)
    expected = FUNCS[metric](y_true, y_score, k=k, zero_division=0.0)
    expected *= -1 if loss else 1
    assert scorer(_Scores(), y_score, y_true) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "name", [n for n, m in METRICS.items() if m.diagnostic], ids=str
)
def test_diagnostics_scorers_are_negated(name):
    """The unjudged fraction and RBP's residual measure the judgments (lower
    is better): their scorer is "neg_...", as a loss's, so that
    cross_validate reports them and model selection does not favour rankings
    by what the assessors left unjudged."""
    metric = METRICS[name]
    at = "@2" if metric.needs_k else ""
    y_true = np.array([[1, -1, 0], [0, 1, -1], [-2, 1, 0]])
    y_score = np.array([[0.3, 0.2, 0.1], [0.1, 0.3, 0.2], [0.3, 0.2, 0.1]])
    with pytest.raises(ValueError, match="diagnostic of the judgments"):
        get_scorer(f"{name}{at}")
    kwargs = {"k": 2} if metric.needs_k else {}
    value = ALL_FUNCS[name](y_true, y_score, **kwargs)
    assert value > 0
    scorer = get_scorer(f"neg_{name}{at}")
    assert scorer(_Scores(), y_score, y_true) == pytest.approx(-value, rel=1e-12)
    made = make_ranking_scorer(ALL_FUNCS[name], **kwargs)
    assert made(_Scores(), y_score, y_true) == pytest.approx(-value, rel=1e-12)
    assert f"neg_{name}{'@10' if metric.needs_k else ''}" in get_scorer_names()


@pytest.mark.parametrize("metric", K_NONE_OK)
def test_metric_alone_is_whole_ranking(metric):
    y_true, y_score = _graded(1)
    got = get_scorer(metric)(_Scores(), y_score, y_true)
    assert got == pytest.approx(FUNCS[metric](y_true, y_score, k=None), rel=1e-12)


def test_r_precision_name():
    y_true, y_score = _graded(2)
    got = get_scorer("r_precision")(_Scores(), y_score, y_true)
    assert got == pytest.approx(r_precision_score(y_true, y_score), rel=1e-12)


def test_get_scorer_names_lists_the_forms():
    names = get_scorer_names()
    for metric in FUNCS:
        prefix = "" if METRICS[metric].greater_is_better else "neg_"
        assert f"{prefix}{metric}@10" in names
    for metric in K_NONE_OK:
        assert metric in names
    assert "r_precision" in names
    for wrong in ["precision", "recall", "f1", "hit", "r_precision@10"]:
        assert wrong not in names
    # Every listed name is accepted by get_scorer, as listed (issue 28).
    for name in names:
        assert "<" not in name
        get_scorer(name)


def test_unknown_name_suggests_closest_in_one_line():
    with pytest.raises(ValueError, match="ndcg@10") as info:
        get_scorer("ndgc@10")
    message = str(info.value)
    assert "Did you mean 'ndcg@10'" in message
    assert len(message) < 200 and "\n" not in message  # issue 28: not 1,600


@pytest.mark.parametrize(
    "name",
    [
        "precision",  # k is required
        "recall",
        "f1",
        "hit",
        "ndcg@0",
        "map@0",
        "ndcg@-1",
        "ndcg@1.5",
        "ndcg@",
        "r_precision@5",
        "ndcg@10 ",
        "",
        "accuracy",
    ],
)
def test_invalid_names_fail(name):
    with pytest.raises(
        ValueError, match="Unknown scorer name|k must be an integer >= 1|no cut-off"
    ):
        get_scorer(name)


def test_invalid_scoring_arguments():
    with pytest.raises(TypeError):
        get_scorer(10)
    with pytest.raises(TypeError):
        get_scorer([])
    with pytest.raises(ValueError, match="Duplicate"):
        get_scorer(["ndcg@3", "ndcg@3"])
    with pytest.raises(ValueError, match="Unknown scorer name 'ndgc@3'"):
        get_scorer(["map@3", "ndgc@3"])
    with pytest.raises(TypeError):
        get_scorer("precision@3", gain="exponential")  # no gain for precision
    with pytest.raises(ValueError):
        get_scorer("ndcg@3", response_method="predict_log_proba")


def test_list_scorer_is_one_pass_dict_keyed_by_names():
    y_true, y_score = _graded(3)
    model = _Scores()
    scores = get_scorer(NAMES)(model, y_score, y_true)
    assert model.calls == 1  # one call to the estimator for all metrics
    assert list(scores) == NAMES
    for name in NAMES:
        assert scores[name] == pytest.approx(
            _expected(name, y_true, y_score), rel=1e-12
        ), name


def test_get_scorer_passes_options_to_every_metric():
    y_true, y_score = _graded(4)
    scorer = get_scorer(
        ["map@3", "ndcg@4", "precision@2"],
        denominator="min",
        gain="exponential",
        ignore_ties=True,
        relevance_threshold=1,
    )
    got = scorer(_Scores(), y_score, y_true)
    common = {"ignore_ties": True, "relevance_threshold": 1}
    assert got["map@3"] == pytest.approx(
        map_at_k_score(y_true, y_score, k=3, denominator="min", **common)
    )
    assert got["ndcg@4"] == pytest.approx(
        ndcg_at_k_score(y_true, y_score, k=4, gain="exponential", **common)
    )
    assert got["precision@2"] == pytest.approx(
        precision_at_k_score(y_true, y_score, k=2, **common)
    )


# ----------------------------------------------------------------------------
# 2. Pickle and repr
# ----------------------------------------------------------------------------

SCORERS = [
    ("single", lambda: get_scorer("ndcg@10"), lambda y, s: ndcg_at_k_score(y, s, k=10)),
    (
        "list",
        lambda: get_scorer(["ndcg@10", "precision@5", "map@10"]),
        lambda y, s: {
            "ndcg@10": ndcg_at_k_score(y, s, k=10),
            "precision@5": precision_at_k_score(y, s, k=5),
            "map@10": map_at_k_score(y, s, k=10),
        },
    ),
    (
        "make_ranking_scorer",
        lambda: make_ranking_scorer(map_at_k_score, k=20, denominator="min"),
        lambda y, s: map_at_k_score(y, s, k=20, denominator="min"),
    ),
    (
        "options",
        lambda: get_scorer("map@3", denominator="retrieved", ignore_ties=True),
        lambda y, s: map_at_k_score(
            y, s, k=3, denominator="retrieved", ignore_ties=True
        ),
    ),
    (
        "response_method",
        lambda: get_scorer("dcg", response_method="predict", gain="exponential"),
        lambda y, s: dcg_at_k_score(y, s, k=None, gain="exponential"),
    ),
    (
        "r_precision",
        lambda: make_ranking_scorer(r_precision_score, zero_division=1.0),
        lambda y, s: r_precision_score(y, s, zero_division=1.0),
    ),
]


def _same(a, b):
    if isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            assert a[key] == pytest.approx(b[key], rel=1e-12), key
    else:
        assert a == pytest.approx(b, rel=1e-12)


@pytest.mark.parametrize(
    "make, expected", [s[1:] for s in SCORERS], ids=[s[0] for s in SCORERS]
)
def test_pickle_round_trip(make, expected):
    y_true, y_score = _graded(5, m=25)
    scorer = make()
    value = scorer(_Scores(), y_score, y_true)
    _same(value, expected(y_true, y_score))
    again = pickle.loads(pickle.dumps(scorer))
    assert repr(again) == repr(scorer)
    _same(again(_Scores(), y_score, y_true), value)


@pytest.mark.parametrize(
    "make, expected", [s[1:] for s in SCORERS], ids=[s[0] for s in SCORERS]
)
def test_repr_rebuilds(make, expected):
    y_true, y_score = _graded(6, m=25)
    scorer = make()
    rebuilt = eval(repr(scorer), dict(vars(sklearn_rankk)))
    assert isinstance(rebuilt, RankingScorer)
    assert repr(rebuilt) == repr(scorer)
    _same(rebuilt(_Scores(), y_score, y_true), expected(y_true, y_score))


def test_repr_examples_from_the_issue():
    assert repr(get_scorer("ndcg@10")) == "get_scorer('ndcg@10')"
    assert repr(get_scorer(["ndcg@10", "map"])) == "get_scorer(['ndcg@10', 'map'])"
    assert (
        repr(make_ranking_scorer(map_at_k_score, k=20, denominator="min"))
        == "make_ranking_scorer(map_at_k_score, k=20, denominator='min')"
    )


def test_repr_rebuilds_with_nan_zero_division():
    scorer = get_scorer("map@5", zero_division=np.nan)
    namespace = {**vars(sklearn_rankk), "np": np}
    rebuilt = eval(repr(scorer), namespace)
    assert repr(rebuilt) == repr(scorer)


# ----------------------------------------------------------------------------
# 3. Every kind of model
# ----------------------------------------------------------------------------


def _decision(model, X):
    return model.decision_function(X)


def _proba(model, X):
    return model.predict_proba(X)


def _proba_list(model, X):
    return _positive_proba(model.predict_proba(X), model.classes_)


def _predict(model, X):
    return model.predict(X)


MULTILABEL_MODELS = [
    ("ovr_logreg", lambda: OneVsRestClassifier(LogisticRegression()), _decision),
    ("kneighbors", lambda: KNeighborsClassifier(), _proba_list),
    (
        "random_forest",
        lambda: RandomForestClassifier(n_estimators=10, random_state=0),
        _proba_list,
    ),
    (
        "multioutput_logreg",
        lambda: MultiOutputClassifier(LogisticRegression()),
        _proba_list,
    ),
    ("chain", lambda: ClassifierChain(LogisticRegression(), random_state=0), _decision),
    (
        "mlp",
        lambda: MLPClassifier(hidden_layer_sizes=(16,), max_iter=30, random_state=0),
        _proba,
    ),
    ("ridge_classifier", lambda: RidgeClassifier(), _decision),
    ("ovr_linear_svc", lambda: OneVsRestClassifier(LinearSVC()), _decision),
]
REGRESSORS = [
    ("ridge", lambda: Ridge(alpha=1.0), _predict),
    ("kneighbors_regressor", lambda: KNeighborsRegressor(n_neighbors=4), _predict),
]


@pytest.mark.parametrize(
    "make, scores_of",
    [m[1:] for m in MULTILABEL_MODELS],
    ids=[m[0] for m in MULTILABEL_MODELS],
)
def test_multilabel_classifiers(make, scores_of):
    X, Y = _multilabel()
    model = make().fit(X[:100], Y[:100])
    y_score = scores_of(model, X[100:])
    assert y_score.shape == (50, 5)
    got = get_scorer(NAMES)(model, X[100:], Y[100:])
    for name in NAMES:
        expected = _expected(name, Y[100:], y_score)
        assert got[name] == pytest.approx(expected, rel=1e-12, abs=1e-15), name
    single = get_scorer("ndcg@3")(model, X[100:], Y[100:])
    assert single == pytest.approx(ndcg_at_k_score(Y[100:], y_score, k=3), rel=1e-12)


@pytest.mark.parametrize(
    "make, scores_of", [m[1:] for m in REGRESSORS], ids=[m[0] for m in REGRESSORS]
)
def test_multioutput_regressors_predict_graded_relevance(make, scores_of):
    X, Y = _multilabel()
    grades = Y * np.random.default_rng(0).integers(1, 4, size=Y.shape)  # 0..3
    model = make().fit(X[:100], grades[:100])
    y_score = scores_of(model, X[100:])
    assert y_score.shape == (50, 5)
    got = get_scorer(NAMES)(model, X[100:], grades[100:])
    for name in NAMES:
        expected = _expected(name, grades[100:], y_score)
        assert got[name] == pytest.approx(expected, rel=1e-12), name
    # Exponential gain on the grades, and sklearn's own nDCG/DCG.
    got = get_scorer("ndcg@3", gain="exponential")(model, X[100:], grades[100:])
    expected = ndcg_at_k_score(grades[100:], y_score, k=3, gain="exponential")
    assert got == pytest.approx(expected, rel=1e-12)
    got = get_scorer(["ndcg@3", "dcg"])(model, X[100:], grades[100:])
    assert got["ndcg@3"] == pytest.approx(ndcg_score(grades[100:], y_score, k=3))
    assert got["dcg"] == pytest.approx(dcg_score(grades[100:], y_score))


def test_response_method_order_and_override():
    X, Y = _multilabel()
    model = OneVsRestClassifier(LogisticRegression()).fit(X[:100], Y[:100])
    proba = model.predict_proba(X[100:])
    decision = model.decision_function(X[100:])
    for method, matrix in [("predict_proba", proba), ("decision_function", decision)]:
        got = get_scorer("map@3", response_method=method)(model, X[100:], Y[100:])
        assert got == pytest.approx(map_at_k_score(Y[100:], matrix, k=3), rel=1e-12)
    # predict: the 0/1 predictions as scores (ties averaged).
    got = get_scorer("precision@2", response_method="predict")(model, X[100:], Y[100:])
    expected = precision_at_k_score(Y[100:], model.predict(X[100:]), k=2)
    assert got == pytest.approx(expected, rel=1e-12)
    # A tuple is tried in order; an estimator lacking all of them is an error.
    ridge = RidgeClassifier().fit(X[:100], Y[:100])
    scorer = get_scorer("ndcg@3", response_method=("predict_proba", "predict"))
    expected = ndcg_at_k_score(Y[100:], ridge.predict(X[100:]), k=3)
    assert scorer(ridge, X[100:], Y[100:]) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(AttributeError, match="predict_proba"):
        get_scorer("ndcg@3", response_method="predict_proba")(ridge, X[100:], Y[100:])


# ----------------------------------------------------------------------------
# 4. The traps
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, scores_of",
    [m[1:] for m in MULTILABEL_MODELS],
    ids=[m[0] for m in MULTILABEL_MODELS],
)
def test_two_label_multilabel_problem(make, scores_of):
    X, Y = _multilabel(n_labels=2)
    assert Y.shape[1] == 2
    model = make().fit(X[:100], Y[:100])
    y_score = scores_of(model, X[100:])
    # Every estimator here treats the 2-column y as multilabel (2-D output).
    assert y_score.shape == (50, 2)
    names = ["hit@1", "precision@1", "map@2", "ndcg@1", "mrr"]
    got = get_scorer(names)(model, X[100:], Y[100:])
    for name in names:
        expected = _expected(name, Y[100:], y_score)
        assert got[name] == pytest.approx(expected, rel=1e-12), name


def test_binary_estimator_on_two_column_y_is_a_clear_error():
    # A model fitted as binary returns 1-D decision values: with a 2-column y
    # the scorer must refuse rather than guess.
    X, Y = _multilabel(n_labels=2)
    model = LogisticRegression().fit(X[:100], Y[:100, 1])
    assert model.decision_function(X[100:]).ndim == 1
    with pytest.raises(ValueError, match="1-D scores.*binary"):
        get_scorer("ndcg@1")(model, X[100:], Y[100:])


CONSTANT_LABEL_MODELS = [
    ("kneighbors", lambda: KNeighborsClassifier(), _proba_list),
    (
        "random_forest",
        lambda: RandomForestClassifier(n_estimators=10, random_state=0),
        _proba_list,
    ),
    ("ovr_logreg_proba", lambda: OneVsRestClassifier(LogisticRegression()), _proba),
    (
        "ovr_logreg_decision",
        lambda: OneVsRestClassifier(LogisticRegression()),
        _decision,
    ),
    ("ridge_classifier", lambda: RidgeClassifier(), _decision),
    (
        "mlp",
        lambda: MLPClassifier(hidden_layer_sizes=(16,), max_iter=30, random_state=0),
        _proba,
    ),
]


@pytest.mark.parametrize(
    "make, scores_of",
    [m[1:] for m in CONSTANT_LABEL_MODELS],
    ids=[m[0] for m in CONSTANT_LABEL_MODELS],
)
@pytest.mark.filterwarnings("ignore:Label .* present in all training:UserWarning")
def test_label_constant_in_training(make, scores_of):
    X, Y = _multilabel()
    Y_train = Y[:100].copy()
    Y_train[:, 3] = 1  # always relevant in training
    Y_train[:, 4] = 0  # never relevant in training, relevant in the test rows
    assert Y[100:, 4].any() and not Y[100:, 3].all()
    model = make().fit(X[:100], Y_train)
    y_score = scores_of(model, X[100:])
    assert y_score.shape == (50, 5)
    method = "predict_proba" if scores_of is not _decision else "decision_function"
    if scores_of is _proba_list:
        # Ragged classes_: (n, 1) arrays for the two constant labels.
        assert [len(c) for c in model.classes_] == [2, 2, 2, 1, 1]
        assert np.all(y_score[:, 3] == 1) and np.all(y_score[:, 4] == 0)
    got = get_scorer(NAMES, response_method=method)(model, X[100:], Y[100:])
    for name in NAMES:
        expected = _expected(name, Y[100:], y_score)
        assert got[name] == pytest.approx(expected, rel=1e-12, abs=1e-15), name


@pytest.mark.parametrize(
    "make",
    [
        KNeighborsClassifier,
        lambda: RandomForestClassifier(n_estimators=10, random_state=0),
        lambda: MultiOutputClassifier(GaussianNB()),
    ],
    ids=["kneighbors", "random_forest", "multioutput_nb"],
)
def test_label_constant_in_a_cv_training_fold(make):
    X, Y = _multilabel()
    Y = Y.copy()
    Y[:, 4] = 0
    Y[:20, 4] = 1  # with KFold(3), fold 0 trains on rows where label 4 is 0
    cv = KFold(3)
    scorer = get_scorer("ndcg@3", zero_division=0.0)  # rows without labels
    got = cross_val_score(make(), X, Y, cv=cv, scoring=scorer)
    expected = []
    for fold, (train, test) in enumerate(cv.split(X)):
        model = make().fit(X[train], Y[train])
        classes = (
            model.classes_
            if hasattr(model, "classes_")
            else [e.classes_ for e in model.estimators_]
        )
        if fold == 0:
            assert list(classes[4]) == [0]
        y_score = _positive_proba(model.predict_proba(X[test]), classes)
        expected.append(ndcg_at_k_score(Y[test], y_score, k=3, zero_division=0.0))
    np.testing.assert_allclose(got, expected, rtol=1e-12)


MULTICLASS_MODELS = [
    ("logreg", lambda: LogisticRegression(max_iter=300), _decision, True),
    ("kneighbors", lambda: KNeighborsClassifier(n_neighbors=7), _proba, False),
    ("gaussian_nb", GaussianNB, _proba, False),  # ties at probability 0
]


@pytest.mark.parametrize(
    "make, scores_of, tie_free",
    [m[1:] for m in MULTICLASS_MODELS],
    ids=[m[0] for m in MULTICLASS_MODELS],
)
@pytest.mark.parametrize("string_labels", [False, True])
def test_multiclass_test_fold_lacks_a_class(make, scores_of, tie_free, string_labels):
    X, y = _digits()
    if string_labels:
        y = np.array([f"digit {d}" for d in y])
    test = np.arange(400, 600)[y[400:] != y[0]]  # no row of class y[0]
    model = make().fit(X[:400], y[:400])
    assert len(model.classes_) == 10
    assert len(np.unique(y[test])) == 9
    y_score = scores_of(model, X[test])
    names = ["hit@1", "hit@3", "mrr", "ndcg@3", "map@2", "precision@1"]
    got = get_scorer(names)(model, X[test], y[test])
    for name in names:
        expected = _expected(name, y[test], y_score, labels=model.classes_)
        assert got[name] == pytest.approx(expected, rel=1e-12), name
    if tie_free:
        for k in (1, 3):
            expected = top_k_accuracy_score(
                y[test], y_score, k=k, labels=model.classes_
            )
            assert got[f"hit@{k}"] == pytest.approx(expected, rel=1e-12)
        assert got["hit@1"] == pytest.approx(
            accuracy_score(y[test], model.predict(X[test]))
        )


@pytest.mark.parametrize(
    "make, scores_of, tie_free",
    [m[1:] for m in MULTICLASS_MODELS],
    ids=[m[0] for m in MULTICLASS_MODELS],
)
@pytest.mark.parametrize("string_labels", [False, True])
def test_multiclass_training_fold_lacks_a_class(
    make, scores_of, tie_free, string_labels
):
    X, y = _digits()
    if string_labels:
        y = np.array([f"digit {d}" for d in y])
    missing = y[3]  # the class 3, a column in the middle of the classes
    train = np.arange(400)[y[:400] != missing]
    test = np.arange(400, 600)
    model = make().fit(X[train], y[train])
    assert missing not in model.classes_ and len(model.classes_) == 9
    unseen = y[test] == missing
    assert 0 < unseen.sum() < len(test)
    seen = ~unseen
    y_score = scores_of(model, X[test])
    names = ["hit@1", "hit@3", "mrr", "mrr@2", "ndcg@3", "ndcg", "map@2", "recall@3"]
    got = get_scorer(names)(model, X[test], y[test])
    for name in names:
        # Rows of the unseen class are misses: 0. The others map their label
        # to a column through classes_.
        per_row = np.zeros(len(test))
        per_row[seen] = _expected(
            name, y[test][seen], y_score[seen], labels=model.classes_, average=None
        )
        assert got[name] == pytest.approx(per_row.mean(), rel=1e-12), name
    if tie_free:
        for k in (1, 3):
            hits = top_k_accuracy_score(
                y[test][seen], y_score[seen], k=k, labels=model.classes_
            )
            expected = hits * seen.sum() / len(test)
            assert got[f"hit@{k}"] == pytest.approx(expected, rel=1e-12)
        # hit@1 is the accuracy: predict never gives the unseen class.
        assert got["hit@1"] == pytest.approx(
            accuracy_score(y[test], model.predict(X[test]))
        )


def test_multiclass_cross_val_score_with_class_missing_from_training():
    X, y = _digits()
    train = np.arange(400)[y[:400] != 5]
    test = np.arange(400, 600)
    cv = [(train, test), (test, np.arange(400))]
    got = cross_val_score(
        LogisticRegression(max_iter=300), X, y, cv=cv, scoring=get_scorer("hit@1")
    )
    expected = [
        accuracy_score(
            y[te], LogisticRegression(max_iter=300).fit(X[tr], y[tr]).predict(X[te])
        )
        for tr, te in cv
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


# hit@2 of two classes is trivially 1: warned about, as top_k_accuracy_score.
@pytest.mark.filterwarnings("ignore:'k' \\(2\\) greater than or equal")
@pytest.mark.parametrize("string_labels", [False, True])
def test_binary_labels_with_1d_decision_function(string_labels):
    X, y = _digits()
    y = y % 2
    if string_labels:
        y = np.where(y == 0, "even", "odd")
    model = LogisticRegression(max_iter=300).fit(X[:400], y[:400])
    decision = model.decision_function(X[400:])
    assert decision.ndim == 1 and np.all(decision != 0)
    acc = accuracy_score(y[400:], model.predict(X[400:]))
    assert 0.5 < acc < 1
    names = ["hit@1", "precision@1", "hit@2", "mrr", "ndcg@2", "map@1"]
    got = get_scorer(names)(model, X[400:], y[400:])
    # Two items, one relevant: at rank 1 when the prediction is right, else 2.
    assert got["hit@1"] == pytest.approx(acc, rel=1e-12)
    assert got["precision@1"] == pytest.approx(acc, rel=1e-12)
    assert got["map@1"] == pytest.approx(acc, rel=1e-12)
    assert got["hit@2"] == 1.0
    assert got["mrr"] == pytest.approx(acc + (1 - acc) / 2, rel=1e-12)
    assert got["ndcg@2"] == pytest.approx(acc + (1 - acc) / np.log2(3), rel=1e-12)
    # predict_proba, two columns, gives the same values.
    proba = get_scorer(names, response_method="predict_proba")(model, X[400:], y[400:])
    for name in names:
        assert proba[name] == pytest.approx(got[name], rel=1e-12), name


# ----------------------------------------------------------------------------
# 5. Entry points
# ----------------------------------------------------------------------------


def _ovr():
    return OneVsRestClassifier(LogisticRegression())


def _folds(make, X, Y, cv, params, scores_of, metric, *, fit_weight=None, weight=None):
    """Per-fold metric values, every model fitted and scored by hand."""
    values = []
    for train, test in cv.split(X, Y):
        model = make().set_params(**params)
        fit_kw = {} if fit_weight is None else {"sample_weight": fit_weight[train]}
        model.fit(X[train], Y[train], **fit_kw)
        score_kw = {} if weight is None else {"sample_weight": weight[test]}
        values.append(metric(Y[test], scores_of(model, X[test]), **score_kw))
    return np.array(values)


def _ndcg3(y, s, **kw):
    return ndcg_at_k_score(y, s, k=3, **kw)


def _p2(y, s, **kw):
    return precision_at_k_score(y, s, k=2, **kw)


def _map3(y, s, **kw):
    return map_at_k_score(y, s, k=3, **kw)


GRID = {"estimator__C": [0.01, 1.0]}


def _check_search_results(search, cv, X, Y, metrics, refit_name):
    results = search.cv_results_
    for i, params in enumerate(results["params"]):
        for key, metric in metrics.items():
            expected = _folds(_ovr, X, Y, cv, params, _decision, metric)
            got = [results[f"split{f}_test_{key}"][i] for f in range(cv.n_splits)]
            np.testing.assert_allclose(got, expected, rtol=1e-10)
            assert results[f"mean_test_{key}"][i] == pytest.approx(expected.mean())
    best = int(np.argmax(results[f"mean_test_{refit_name}"]))
    assert search.best_index_ == best
    assert search.best_params_ == results["params"][best]
    refitted = _ovr().set_params(**search.best_params_).fit(X, Y)
    np.testing.assert_allclose(
        search.best_estimator_.decision_function(X), refitted.decision_function(X)
    )


def _search(kind, scoring, refit, n_jobs=None):
    cv = KFold(3)
    if kind == "grid":
        search = GridSearchCV(
            _ovr(), GRID, cv=cv, scoring=scoring, refit=refit, n_jobs=n_jobs
        )
    else:
        search = RandomizedSearchCV(
            _ovr(),
            {"estimator__C": [0.001, 0.01, 0.1, 1.0, 10.0]},
            n_iter=2,
            random_state=0,
            cv=cv,
            scoring=scoring,
            refit=refit,
            n_jobs=n_jobs,
        )
    return search, cv


@pytest.mark.parametrize("kind", ["grid", "random"])
def test_search_single_scorer(kind):
    X, Y = _multilabel()
    search, cv = _search(kind, get_scorer("ndcg@3"), True)
    search.fit(X, Y)
    _check_search_results(search, cv, X, Y, {"score": _ndcg3}, "score")
    expected = get_scorer("ndcg@3")(search.best_estimator_, X, Y)
    assert search.score(X, Y) == pytest.approx(expected)


@pytest.mark.parametrize("kind", ["grid", "random"])
def test_search_dict_of_scorers(kind):
    X, Y = _multilabel()
    scoring = {"p@2": get_scorer("precision@2"), "map@3": get_scorer("map@3")}
    search, cv = _search(kind, scoring, "map@3")
    search.fit(X, Y)
    metrics = {"p@2": _p2, "map@3": _map3}
    _check_search_results(search, cv, X, Y, metrics, "map@3")


@pytest.mark.parametrize(
    "kind, n_jobs", [("grid", None), ("random", None), ("grid", 2)]
)
def test_search_list_scorer_refit_by_name(kind, n_jobs):
    X, Y = _multilabel()
    scoring = get_scorer(["ndcg@3", "precision@2", "map@3"])
    search, cv = _search(kind, scoring, "precision@2", n_jobs=n_jobs)
    search.fit(X, Y)
    metrics = {"ndcg@3": _ndcg3, "precision@2": _p2, "map@3": _map3}
    _check_search_results(search, cv, X, Y, metrics, "precision@2")
    assert search.best_score_ == pytest.approx(
        search.cv_results_["mean_test_precision@2"][search.best_index_]
    )


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_cross_validate(n_jobs):
    X, Y = _multilabel()
    cv = KFold(3)
    scoring = {"p@5": get_scorer("precision@5"), "map@10": get_scorer("map@10")}
    got = cross_validate(
        _ovr(), X, Y, cv=cv, scoring=scoring, n_jobs=n_jobs, return_train_score=True
    )
    expected = _folds(
        _ovr, X, Y, cv, {}, _decision, lambda y, s: precision_at_k_score(y, s, k=5)
    )
    np.testing.assert_allclose(got["test_p@5"], expected, rtol=1e-10)
    expected = _folds(
        _ovr, X, Y, cv, {}, _decision, lambda y, s: map_at_k_score(y, s, k=10)
    )
    np.testing.assert_allclose(got["test_map@10"], expected, rtol=1e-10)
    assert np.all(got["train_map@10"] > 0)

    # One-pass list scorer: dict of scores, keys as given.
    names = ["ndcg@3", "precision@2", "map@3"]
    got = cross_validate(_ovr(), X, Y, cv=cv, scoring=get_scorer(names), n_jobs=n_jobs)
    for name, metric in zip(names, [_ndcg3, _p2, _map3]):
        expected = _folds(_ovr, X, Y, cv, {}, _decision, metric)
        np.testing.assert_allclose(got[f"test_{name}"], expected, rtol=1e-10)


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_cross_val_score(n_jobs):
    X, Y = _multilabel()
    cv = KFold(3)
    got = cross_val_score(
        _ovr(), X, Y, cv=cv, scoring=get_scorer("ndcg@3"), n_jobs=n_jobs
    )
    expected = _folds(_ovr, X, Y, cv, {}, _decision, _ndcg3)
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    # Agrees with scikit-learn's own nDCG scorer on the same folds.
    reference = make_scorer(ndcg_score, k=3, response_method="decision_function")
    np.testing.assert_allclose(
        got, cross_val_score(_ovr(), X, Y, cv=cv, scoring=reference), rtol=1e-10
    )


def test_cross_val_score_multiclass_matches_sklearn_top_k_accuracy():
    X, y = _digits()
    cv = StratifiedKFold(3)
    model = LogisticRegression(max_iter=300)
    got = cross_val_score(model, X, y, cv=cv, scoring=get_scorer("hit@2"))
    expected = cross_val_score(model, X, y, cv=cv, scoring="top_k_accuracy")
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_permutation_importance():
    X, Y = _multilabel()
    X = np.column_stack([X, np.ones(len(X))])  # a constant feature
    model = _ovr().fit(X[:100], Y[:100])
    kw = {"n_repeats": 3, "random_state": 0}
    got = permutation_importance(
        model, X[100:], Y[100:], scoring=get_scorer("ndcg@3"), **kw
    )
    reference = make_scorer(ndcg_score, k=3, response_method="decision_function")
    expected = permutation_importance(model, X[100:], Y[100:], scoring=reference, **kw)
    np.testing.assert_allclose(got.importances, expected.importances, atol=1e-12)
    assert np.all(got.importances[-1] == 0)  # permuting a constant changes nothing
    assert got.importances_mean.max() > 0

    # Multiclass, one-pass list scorer: a dict of results.
    X, y = _digits()
    model = LogisticRegression(max_iter=300).fit(X[:400], y[:400])
    got = permutation_importance(
        model, X[400:], y[400:], scoring=get_scorer(["hit@1", "hit@2"]), **kw
    )
    assert set(got) == {"hit@1", "hit@2"}
    for name, reference in [("hit@1", "accuracy"), ("hit@2", "top_k_accuracy")]:
        expected = permutation_importance(
            model, X[400:], y[400:], scoring=reference, **kw
        )
        np.testing.assert_allclose(
            got[name].importances, expected.importances, atol=1e-12
        )


def test_learning_curve():
    X, Y = _multilabel()
    reference = make_scorer(ndcg_score, k=3, response_method="decision_function")
    kw = {"train_sizes": [0.5, 1.0], "cv": KFold(3)}
    sizes, train, test = learning_curve(
        _ovr(), X, Y, scoring=get_scorer("ndcg@3"), **kw
    )
    _, ref_train, ref_test = learning_curve(_ovr(), X, Y, scoring=reference, **kw)
    np.testing.assert_allclose(train, ref_train, rtol=1e-10)
    np.testing.assert_allclose(test, ref_test, rtol=1e-10)
    # The full-size test column, by hand.
    expected = _folds(_ovr, X, Y, KFold(3), {}, _decision, _ndcg3)
    np.testing.assert_allclose(test[-1], expected, rtol=1e-10)


def test_validation_curve():
    X, Y = _multilabel()
    kw = {"param_name": "estimator__C", "param_range": [0.01, 1.0], "cv": KFold(3)}
    train, test = validation_curve(_ovr(), X, Y, scoring=get_scorer("map@3"), **kw)
    for i, C in enumerate(kw["param_range"]):
        expected = _folds(_ovr, X, Y, KFold(3), {"estimator__C": C}, _decision, _map3)
        np.testing.assert_allclose(test[i], expected, rtol=1e-10)
    assert train.shape == (2, 3) and np.all(train > 0)
    # Multiclass: hit@1 is accuracy.
    X, y = _digits()
    kw = {"param_name": "C", "param_range": [0.01, 1.0], "cv": StratifiedKFold(3)}
    model = LogisticRegression(max_iter=300)
    got = validation_curve(model, X, y, scoring=get_scorer("hit@1"), **kw)
    expected = validation_curve(model, X, y, scoring="accuracy", **kw)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def _weights(n):
    return np.random.default_rng(0).uniform(0.1, 3.0, size=n)


def test_sample_weight_routed_to_scorer_cross_validate():
    X, Y = _multilabel()
    w = _weights(len(X))
    cv = KFold(3)
    with sklearn.config_context(enable_metadata_routing=True):

        def make():
            return OneVsRestClassifier(
                LogisticRegression().set_fit_request(sample_weight=True)
            )

        scorer = get_scorer("ndcg@3").set_score_request(sample_weight=True)
        got = cross_validate(
            make(), X, Y, cv=cv, scoring=scorer, params={"sample_weight": w}, n_jobs=2
        )["test_score"]
        expected = _folds(make, X, Y, cv, {}, _decision, _ndcg3, fit_weight=w, weight=w)
        # Fold 0 spelled out.
        train, test = next(cv.split(X))
        model = make().fit(X[train], Y[train], sample_weight=w[train])
        fold0 = ndcg_at_k_score(
            Y[test], model.decision_function(X[test]), k=3, sample_weight=w[test]
        )
        unweighted = _folds(make, X, Y, cv, {}, _decision, _ndcg3, fit_weight=w)

        # A one-pass list scorer, and a pickled copy keeps its request.
        names = get_scorer(["ndcg@3", "map@3"]).set_score_request(sample_weight=True)
        names = pickle.loads(pickle.dumps(names))
        both = cross_validate(
            make(), X, Y, cv=cv, scoring=names, params={"sample_weight": w}
        )
        map3 = _folds(make, X, Y, cv, {}, _decision, _map3, fit_weight=w, weight=w)
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    assert got[0] == pytest.approx(fold0, rel=1e-10)
    assert not np.allclose(got, unweighted)  # the weights matter
    np.testing.assert_allclose(both["test_ndcg@3"], expected, rtol=1e-10)
    np.testing.assert_allclose(both["test_map@3"], map3, rtol=1e-10)


def test_sample_weight_routed_dict_of_scorers_grid_search():
    # scikit-learn #31599: a dict mixing a plain callable with sklearn scorers
    # fails on sample_weight; ours takes part in routing.
    X, Y = _multilabel()
    w = _weights(len(X))
    cv = KFold(3)
    with sklearn.config_context(enable_metadata_routing=True):

        def make():
            return OneVsRestClassifier(
                LogisticRegression().set_fit_request(sample_weight=True)
            )

        reference = make_scorer(
            ndcg_score, k=3, response_method="decision_function"
        ).set_score_request(sample_weight=True)
        scoring = {
            "ours": get_scorer("ndcg@3").set_score_request(sample_weight=True),
            "map@3": get_scorer("map@3").set_score_request(sample_weight=True),
            "sklearn": reference,
        }
        search = GridSearchCV(
            make(), GRID, cv=cv, scoring=scoring, refit="ours", n_jobs=2
        ).fit(X, Y, sample_weight=w)
        results = search.cv_results_
        for i, params in enumerate(results["params"]):
            for key, metric in [("ours", _ndcg3), ("map@3", _map3)]:
                expected = _folds(
                    make, X, Y, cv, params, _decision, metric, fit_weight=w, weight=w
                )
                got = [results[f"split{f}_test_{key}"][i] for f in range(3)]
                np.testing.assert_allclose(got, expected, rtol=1e-10)
    np.testing.assert_allclose(
        results["mean_test_ours"], results["mean_test_sklearn"], rtol=1e-10
    )


def test_sample_weight_without_routing_grid_search():
    # Without metadata routing, scikit-learn >= 1.7 forwards fit's
    # sample_weight to every scorer of a dict that accepts it.
    X, Y = _multilabel()
    w = _weights(len(X))
    cv = KFold(3)
    scoring = {"ours": get_scorer("ndcg@3"), "acc": "accuracy"}
    grid = {"alpha": [0.01, 100.0]}
    search = GridSearchCV(
        RidgeClassifier(), grid, cv=cv, scoring=scoring, refit="ours"
    ).fit(X, Y, sample_weight=w)
    weight = w if _sklearn_version() >= (1, 7) else None
    for i, params in enumerate(search.cv_results_["params"]):
        expected = _folds(
            RidgeClassifier,
            X,
            Y,
            cv,
            params,
            _decision,
            _ndcg3,
            fit_weight=w,
            weight=weight,
        )
        got = [search.cv_results_[f"split{f}_test_ours"][i] for f in range(3)]
        np.testing.assert_allclose(got, expected, rtol=1e-10)
        unweighted = _folds(
            RidgeClassifier, X, Y, cv, params, _decision, _ndcg3, fit_weight=w
        )
        if weight is not None:
            assert not np.allclose(expected, unweighted)  # the weights matter


def test_unrequested_sample_weight_is_an_error_under_routing():
    from sklearn.exceptions import UnsetMetadataPassedError

    X, Y = _multilabel()
    w = _weights(len(X))
    with sklearn.config_context(enable_metadata_routing=True):
        model = OneVsRestClassifier(
            LogisticRegression().set_fit_request(sample_weight=True)
        )
        with pytest.raises(UnsetMetadataPassedError):
            cross_validate(
                model,
                X,
                Y,
                cv=KFold(3),
                scoring=get_scorer("ndcg@3"),
                params={"sample_weight": w},
            )


def test_metadata_routing_request():
    scorer = get_scorer("ndcg@3")
    with pytest.raises(RuntimeError, match="enable_metadata_routing"):
        scorer.set_score_request(sample_weight=True)
    with sklearn.config_context(enable_metadata_routing=True):
        assert scorer.set_score_request(sample_weight=True) is scorer
        routing = scorer.get_metadata_routing()
        assert routing.score.requests == {"sample_weight": True, "qid": True}
        scorer.set_score_request(qid=False)
        assert scorer.get_metadata_routing().score.requests["qid"] is False
        with pytest.raises(TypeError, match="sample_weight"):
            scorer.set_score_request(groups=True)


def test_grid_search_ndcg_picks_a_different_model_than_accuracy():
    X, y = load_digits(return_X_y=True)
    cv = StratifiedKFold(3)
    grid = {"min_samples_leaf": [1, 5]}
    tree = DecisionTreeClassifier(random_state=0)
    by_ndcg = GridSearchCV(tree, grid, cv=cv, scoring=get_scorer("ndcg@5")).fit(X, y)
    by_accuracy = GridSearchCV(tree, grid, cv=cv, scoring="accuracy").fit(X, y)
    assert by_ndcg.best_params_ != by_accuracy.best_params_
    # The cv values, by hand: nDCG@5 of predict_proba through classes_.
    for i, params in enumerate(by_ndcg.cv_results_["params"]):
        values = []
        for train, test in cv.split(X, y):
            model = clone(tree).set_params(**params).fit(X[train], y[train])
            proba = model.predict_proba(X[test])
            values.append(ndcg_at_k_score(y[test], proba, k=5, labels=model.classes_))
        assert by_ndcg.cv_results_["mean_test_score"][i] == pytest.approx(
            np.mean(values), rel=1e-12
        )
    # The nDCG choice ranks better; accuracy's choice classifies better.
    ndcg = by_ndcg.cv_results_["mean_test_score"]
    acc = by_accuracy.cv_results_["mean_test_score"]
    assert ndcg[by_ndcg.best_index_] > ndcg[by_accuracy.best_index_]
    assert acc[by_accuracy.best_index_] > acc[by_ndcg.best_index_]
    # Refit works with our scorer.
    assert by_ndcg.best_estimator_.predict(X[:5]).shape == (5,)
    assert by_ndcg.score(X, y) == pytest.approx(
        ndcg_at_k_score(
            y,
            by_ndcg.best_estimator_.predict_proba(X),
            k=5,
            labels=by_ndcg.best_estimator_.classes_,
        )
    )


def test_make_ranking_scorer_rejects_k_for_r_precision():
    # R-precision cuts each row at its own |R|: a k would be silently lost.
    for k in (5, 10, None):
        with pytest.raises(TypeError, match="r_precision_score has no cut-off k"):
            make_ranking_scorer(r_precision_score, k=k)
    scorer = make_ranking_scorer(r_precision_score)
    assert repr(scorer) == "make_ranking_scorer(r_precision_score)"
    # The default k=10 still reaches the metrics that have a cut-off.
    assert repr(make_ranking_scorer(map_at_k_score)) == (
        "make_ranking_scorer(map_at_k_score, k=10)"
    )


def test_errors_point_at_the_fix():
    """Scoring mistakes a scikit-learn user makes get a message that says
    what to do."""
    from sklearn.metrics import make_scorer

    X, y = load_digits(return_X_y=True)
    X, y = X[:300], y[:300]
    # A regressor or ranker (one score per row) scored without qid.
    ranker = Ridge().fit(X, y)
    with pytest.raises(ValueError, match=r"qid=qid.*enable_metadata_routing"):
        get_scorer("ndcg@5")(ranker, X, y)
    # sklearn's make_scorer calls predict: predicted labels, not scores.
    model = GaussianNB().fit(X, y)
    scorer = make_scorer(FUNCS["hit"], k=3)
    with pytest.raises(ValueError, match="response_method='predict_proba'"):
        scorer(model, X, y)
    # A model that never saw a class: its scores have a column too few.
    seen = y != 9
    model = GaussianNB().fit(X[seen], y[seen])
    scorer = make_scorer(FUNCS["hit"], k=3, response_method="predict_proba")
    with pytest.raises(ValueError, match=r"labels=.*get_scorer.*counts such a"):
        scorer(model, X, y)
    # ... which get_scorer handles: the unseen class is a miss.
    assert 0 < get_scorer("hit@3")(model, X, y) < 1
