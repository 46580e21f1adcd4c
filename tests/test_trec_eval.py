"""Conformance with trec_eval.

Two sources of truth:

1. trec_eval's own regression files (``tests/data/trec_eval``, copied from
   usnistgov/trec_eval ``test/``): ``qrels.test``, ``qrels.rel_level`` and
   ``results.test`` are turned into score matrices and every measure this
   package computes is checked, per topic and on the ``all`` line, against
   ``out.test.aq`` and ``out.test.aql`` (values printed with four decimals).
2. pytrec_eval (trec_eval's C code behind a Python API) on random runs, to
   1e-12 per query: tie-free runs (both tie modes must agree with trec_eval)
   and heavily tied runs whose columns are ordered by docno ascending, where
   ``ignore_ties=True`` (the later column first) must reproduce trec_eval
   exactly.

Conventions accounted for (trec_eval -> this package):

* trec_eval ignores the rank column, sorts by score descending and breaks ties
  by docno descending (``strcmp``): columns are ordered by docno ascending and
  ``ignore_ties=True`` ranks tied columns the later first, as scikit-learn's
  reversed stable argsort does; or scores are replaced by strictly decreasing
  values in trec_eval's order.
* Judged relevant documents missing from the run count in ``num_rel`` and in
  the ideal nDCG ranking but sit at no rank: score ``-inf``.
* ``-l L`` (relevant iff rel >= L) is ``relevance_threshold=L - 1`` for the
  binary measures. trec_eval's nDCG ignores ``-l``: it uses every positive
  grade as gain and treats negative grades as 0, so nDCG is computed on
  ``clip(y_true, 0)`` with ``relevance_threshold=0``.
* Queries with no relevant document are 0 in trec_eval: ``zero_division=0.0``.
  Queries absent from the run are skipped by trec_eval (no ``-c``), so every
  generated query retrieves at least one document.
* Precision divides by k even when fewer than k documents are retrieved, as
  in this package.
"""

from __future__ import annotations

import re
from collections import defaultdict
from functools import cache

import numpy as np
import pytest
from helpers import TREC_DIR

from sklearn_rankk import (
    hit_at_k_score,
    map_at_k_score,
    mrr_at_k_score,
    ndcg_at_k_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)

# trec_eval prints "%.4f": a correct value is within half a unit of the last
# printed digit, plus a hair for the binary representation of the printout.
PRINT_TOL = 5e-5 + 1e-9
EXACT_TOL = 1e-12

# The two regression outputs: (qrels file, out file, trec_eval's -l level).
REGRESSION_CASES = {
    "aq": ("qrels.test", "out.test.aq", 1),
    "aql": ("qrels.rel_level", "out.test.aql", 2),
}

CUTOFF_FAMILIES = ("P", "recall", "ndcg_cut", "map_cut", "success")
WHOLE_RUN_MEASURES = ("map", "ndcg", "Rprec", "recip_rank")
_MEASURE_RE = re.compile(r"^(P|recall|ndcg_cut|map_cut|success)_(\d+)$")

# Measures (with their cut-offs) that out.test.aq and out.test.aql hold and
# that this package computes. test_regression_measure_list_is_complete checks
# that this list is exactly what the files hold.
REGRESSION_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
REGRESSION_MEASURES = (
    [f"{m}_{k}" for m in CUTOFF_FAMILIES[:4] for k in REGRESSION_CUTOFFS]
    + [f"success_{k}" for k in (1, 5, 10)]
    + list(WHOLE_RUN_MEASURES)
)


def _trec_dir():
    return TREC_DIR


# --------------------------------------------------------------------------
# Measure name -> package call (per-row values)
# --------------------------------------------------------------------------


def compute_measure(name, y_true, y_score, *, level, ignore_ties, average=None):
    """Values of trec_eval measure ``name``, from this package (per row by
    default, the mean with ``average="mean"``).

    ``level`` is trec_eval's relevance level (relevant iff rel >= level, for
    integer grades); ``y_true`` holds trec_eval's grades, possibly negative.
    """
    common = {
        "average": average,
        "ignore_ties": ignore_ties,
        "zero_division": 0.0,
    }
    binary = dict(common, relevance_threshold=level - 1)
    match = _MEASURE_RE.match(name)
    if match:
        family, k = match.group(1), int(match.group(2))
    else:
        family, k = name, None
    if family == "P":
        return precision_at_k_score(y_true, y_score, k=k, **binary)
    if family == "recall":
        return recall_at_k_score(y_true, y_score, k=k, **binary)
    if family == "success":
        return hit_at_k_score(y_true, y_score, k=k, **binary)
    if family in ("map_cut", "map"):
        return map_at_k_score(y_true, y_score, k=k, denominator="relevant", **binary)
    if family == "recip_rank":
        return mrr_at_k_score(y_true, y_score, k=None, **binary)
    if family == "Rprec":
        return r_precision_score(y_true, y_score, **binary)
    if family in ("ndcg_cut", "ndcg"):
        # trec_eval's nDCG: gain = grade, negative grades count as 0, and the
        # relevance level does not apply.
        gains = np.clip(y_true, 0, None)
        return ndcg_at_k_score(gains, y_score, k=k, gain="linear", **common)
    raise KeyError(name)


# --------------------------------------------------------------------------
# Task 1: trec_eval's regression files
# --------------------------------------------------------------------------


def read_qrels(path):
    """``topic iteration docno rel`` -> {topic: {docno: rel}}."""
    qrels = defaultdict(dict)
    for line in path.read_text().splitlines():
        if line.strip():
            topic, _, docno, rel = line.split()
            qrels[topic][docno] = int(rel)
    return dict(qrels)


def read_run(path):
    """``topic Q0 docno rank score tag`` -> {topic: {docno: score}}."""
    run = defaultdict(dict)
    for line in path.read_text().splitlines():
        if line.strip():
            topic, _, docno, _rank, score, _tag = line.split()
            assert docno not in run[topic], f"duplicate {docno} in topic {topic}"
            run[topic][docno] = float(score)
    return dict(run)


def read_out(path):
    """``measure topic value`` -> {topic: {measure: value string}}."""
    out = defaultdict(dict)
    for line in path.read_text().splitlines():
        if line.strip():
            measure, topic, value = line.split()
            out[topic][measure] = value
    return dict(out)


def build_matrices(qrels, run, topics, tie_mode):
    """Rows = topics; columns = the union of the topic's judged and retrieved
    docnos, padded across topics (y_true 0, score -inf).

    ``tie_mode="docno"``: columns sorted by docno ascending, raw scores, to be
    used with ``ignore_ties=True`` (the later column, the larger docno,
    first). ``tie_mode="rank"``: raw column order
    replaced by strictly decreasing scores in trec_eval's order (score
    descending, docno descending), to be used with exact ties (no ties left).
    """
    columns = [sorted(set(qrels[t]) | set(run[t])) for t in topics]
    n_cols = max(map(len, columns))
    y_true = np.zeros((len(topics), n_cols))
    y_score = np.full((len(topics), n_cols), -np.inf)
    for i, topic in enumerate(topics):
        docs = columns[i]
        if tie_mode == "rank":
            docs = sorted(docs)  # any order: scores carry the ranking
            retrieved = sorted(run[topic], reverse=True)  # docno descending ...
            retrieved.sort(key=lambda d: run[topic][d], reverse=True)  # stable
            position = {d: p for p, d in enumerate(retrieved)}
        for j, docno in enumerate(docs):
            y_true[i, j] = qrels[topic].get(docno, 0)
            if docno in run[topic]:
                if tie_mode == "rank":
                    y_score[i, j] = float(len(position) - position[docno])
                else:
                    y_score[i, j] = run[topic][docno]
    return y_true, y_score


@cache
def regression_case(case, tie_mode):
    trec_dir = _trec_dir()
    qrels_file, out_file, level = REGRESSION_CASES[case]
    qrels = read_qrels(trec_dir / qrels_file)
    run = read_run(trec_dir / "results.test")
    out = read_out(trec_dir / out_file)
    # trec_eval evaluates the topics of the qrels that the run has.
    topics = sorted(set(qrels) & set(run))
    y_true, y_score = build_matrices(qrels, run, topics, tie_mode)
    return topics, y_true, y_score, out, level


TIE_MODES = {"docno": True, "rank": False}  # tie_mode -> ignore_ties


def test_regression_measure_list_is_complete():
    """Every measure of the out files that the package computes is tested."""
    trec_dir = _trec_dir()
    for _, out_file, _ in REGRESSION_CASES.values():
        out = read_out(trec_dir / out_file)
        in_file = {
            m for m in out["all"] if _MEASURE_RE.match(m) or m in WHOLE_RUN_MEASURES
        }
        assert in_file == set(REGRESSION_MEASURES), out_file


@pytest.mark.parametrize("case", sorted(REGRESSION_CASES))
def test_regression_files_parsed_like_trec_eval(case):
    """num_q, num_ret, num_rel, num_rel_ret: the matrices hold trec_eval's data."""
    topics, y_true, y_score, out, level = regression_case(case, "docno")
    retrieved = np.isfinite(y_score)
    relevant = y_true >= level
    assert int(out["all"]["num_q"]) == len(topics)
    for name, per_topic in [
        ("num_ret", retrieved.sum(axis=1)),
        ("num_rel", relevant.sum(axis=1)),
        ("num_rel_ret", (retrieved & relevant).sum(axis=1)),
    ]:
        expected = [int(out[t][name]) for t in topics]
        assert per_topic.tolist() == expected, name
        assert per_topic.sum() == int(out["all"][name]), name
    # Unretrieved relevant documents exist: -inf is exercised.
    assert (relevant & ~retrieved).any()


@pytest.mark.parametrize("tie_mode", sorted(TIE_MODES))
@pytest.mark.parametrize("case", sorted(REGRESSION_CASES))
@pytest.mark.parametrize("measure", REGRESSION_MEASURES)
def test_trec_eval_regression(measure, case, tie_mode):
    topics, y_true, y_score, out, level = regression_case(case, tie_mode)
    ignore_ties = TIE_MODES[tie_mode]
    per_row = compute_measure(
        measure, y_true, y_score, level=level, ignore_ties=ignore_ties
    )
    assert per_row.dtype == np.float64
    assert per_row.shape == (len(topics),)
    expected = np.array([float(out[t][measure]) for t in topics])
    np.testing.assert_allclose(per_row, expected, rtol=0, atol=PRINT_TOL)
    # The 'all' line: the plain mean over the evaluated topics.
    assert abs(per_row.mean() - float(out["all"][measure])) <= PRINT_TOL
    mean = compute_measure(
        measure,
        y_true,
        y_score,
        level=level,
        ignore_ties=ignore_ties,
        average="mean",
    )
    assert isinstance(mean, float)
    assert abs(mean - float(out["all"][measure])) <= PRINT_TOL


# --------------------------------------------------------------------------
# Task 2: pytrec_eval on random runs
# --------------------------------------------------------------------------

N_QUERIES, N_DOCS = 20, 30
CUTOFFS = (1, 3, 5, 10, 15, 20, 30)
# kind -> (grades to draw from, their probabilities, trec_eval relevance level)
RELEVANCE_KINDS = {
    "binary": ([0, 1], [0.75, 0.25], 1),
    "graded": ([-1, 0, 1, 2, 3, 4], [0.1, 0.5, 0.15, 0.1, 0.1, 0.05], 1),
    "graded_level2": ([-1, 0, 1, 2, 3, 4], [0.1, 0.5, 0.15, 0.1, 0.1, 0.05], 2),
}


def pytrec_measures(cutoffs=CUTOFFS):
    """pytrec_eval's measure request: ``family.k1,k2,...`` and whole-run names."""
    cut = ",".join(map(str, cutoffs))
    return {f"{family}.{cut}" for family in CUTOFF_FAMILIES} | set(WHOLE_RUN_MEASURES)


def random_case(seed, kind, *, tied):
    """A random (y_true, y_score, judged, docnos, level) with awkward rows.

    Row 0 has no relevant document (judged non-relevant only), row 1 only
    grades <= 1, row 2 retrieves 3 documents (fewer than most k), row 3 leaves
    every relevant document unretrieved; elsewhere a quarter of the documents
    are unretrieved (``-inf``, missing from the run). Every row retrieves at
    least one document (trec_eval skips queries absent from the run).
    """
    rng = np.random.default_rng(seed)
    grades, probs, level = RELEVANCE_KINDS[kind]
    shape = (N_QUERIES, N_DOCS)
    y_true = rng.choice(grades, size=shape, p=probs).astype(np.int64)
    y_true[0] = np.minimum(y_true[0], 0)
    y_true[1] = np.minimum(y_true[1], 1)
    y_true[3, :3] = max(grades)  # row 3 has relevant documents ...
    if tied:
        y_score = rng.integers(0, 4, size=shape).astype(np.float64)
    else:
        y_score = rng.standard_normal(shape)
        assert all(len(set(row)) == N_DOCS for row in y_score)
    y_score[rng.random(shape) < 0.25] = -np.inf
    y_score[2, rng.permutation(N_DOCS)[3:]] = -np.inf
    y_score[3, y_true[3] > 0] = -np.inf  # ... none of them retrieved
    for i in np.flatnonzero(~np.isfinite(y_score).any(axis=1)):
        y_score[i, 0] = 0.0
    # Judged: every non-zero grade, and some zeros; the rest are unjudged.
    judged = (y_true != 0) | (rng.random(shape) < 0.5)
    judged[:, 0] = True  # every query is in the qrels
    if tied:
        # Docnos whose string order (trec_eval's tie-break) is neither the
        # column order nor numeric order: "D7" > "D10" > "D065".
        numbers = rng.permutation(1000)[:N_DOCS]
        widths = rng.integers(1, 4, size=N_DOCS)
        docnos = [f"D{n:0{w}d}" for n, w in zip(numbers, widths)]
        assert len(set(docnos)) == N_DOCS
    else:
        docnos = [f"doc{j}" for j in range(N_DOCS)]
    return y_true, y_score, judged, docnos, level


def to_trec_dicts(y_true, y_score, judged, docnos):
    """qrels {qid: {docno: rel}} and run {qid: {docno: score}}; ``-inf``
    scores are left out of the run (not retrieved)."""
    qrels, run = {}, {}
    for i in range(y_true.shape[0]):
        qid = f"q{i}"
        qrels[qid] = {docnos[j]: int(y_true[i, j]) for j in np.flatnonzero(judged[i])}
        run[qid] = {
            docnos[j]: float(y_score[i, j])
            for j in np.flatnonzero(np.isfinite(y_score[i]))
        }
    return qrels, run


def pytrec_eval_per_query(qrels, run, level):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, pytrec_measures(), relevance_level=level
    )
    return evaluator.evaluate(run)


def assert_matches_pytrec_eval(y_true, y_score, results, level, ignore_ties):
    qids = [f"q{i}" for i in range(y_true.shape[0])]
    assert sorted(results) == sorted(qids), "pytrec_eval skipped a query"
    names = sorted(results[qids[0]])
    expected_names = {f"{f}_{k}" for f in CUTOFF_FAMILIES for k in CUTOFFS}
    assert set(names) == expected_names | set(WHOLE_RUN_MEASURES)
    mismatches = []
    for name in names:
        ours = compute_measure(
            name, y_true, y_score, level=level, ignore_ties=ignore_ties
        )
        theirs = np.array([results[q][name] for q in qids])
        bad = np.flatnonzero(~(np.abs(ours - theirs) <= EXACT_TOL))
        mismatches += [
            f"{name} {qids[i]}: ours {ours[i]!r}, trec_eval {theirs[i]!r}" for i in bad
        ]
    assert not mismatches, "\n".join(mismatches[:30])


@pytest.mark.parametrize("ignore_ties", [False, True])
@pytest.mark.parametrize("kind", sorted(RELEVANCE_KINDS))
@pytest.mark.parametrize("seed", range(4))
def test_pytrec_eval_tie_free(seed, kind, ignore_ties):
    """Without ties, both tie modes give trec_eval's value, per query."""
    y_true, y_score, judged, docnos, level = random_case(seed, kind, tied=False)
    results = pytrec_eval_per_query(
        *to_trec_dicts(y_true, y_score, judged, docnos), level
    )
    assert_matches_pytrec_eval(y_true, y_score, results, level, ignore_ties)


@pytest.mark.parametrize("kind", sorted(RELEVANCE_KINDS))
@pytest.mark.parametrize("seed", range(4))
def test_pytrec_eval_ties_in_docno_order(seed, kind):
    """With ties, columns in docno-ascending order and ``ignore_ties=True``
    (the later column first) reproduce trec_eval's tie-break exactly."""
    y_true, y_score, judged, docnos, level = random_case(seed, kind, tied=True)
    results = pytrec_eval_per_query(
        *to_trec_dicts(y_true, y_score, judged, docnos), level
    )
    order = sorted(range(N_DOCS), key=lambda j: docnos[j])
    assert order != list(range(N_DOCS))
    assert_matches_pytrec_eval(
        y_true[:, order], y_score[:, order], results, level, ignore_ties=True
    )
    # The ties matter: the reverse tie-break (docno ascending) disagrees.
    # (ignore_ties=True on the reversed columns ranks docnos ascending.)
    reverse = order[::-1]
    flipped = compute_measure(
        "map", y_true[:, reverse], y_score[:, reverse], level=level, ignore_ties=True
    )
    assert not np.allclose(flipped, [results[f"q{i}"]["map"] for i in range(N_QUERIES)])


def test_pytrec_eval_skips_queries_missing_from_run():
    """Why every generated query retrieves a document: without ``-c``,
    trec_eval leaves out queries of the qrels that the run lacks, whereas a
    row of ``-inf`` here is a query that retrieved nothing (0 everywhere)."""
    qrels = {"q0": {"a": 1, "b": 0}, "q1": {"a": 1}}
    run = {"q0": {"a": 0.2, "b": 0.7}}
    results = pytrec_eval_per_query(qrels, run, 1)
    assert sorted(results) == ["q0"]
    y_true = np.array([[1, 0], [1, 0]])
    y_score = np.array([[0.2, 0.7], [-np.inf, -np.inf]])
    for name in sorted(results["q0"]):
        values = compute_measure(name, y_true, y_score, level=1, ignore_ties=False)
        assert abs(values[0] - results["q0"][name]) <= EXACT_TOL, name
        assert values[1] == 0.0, name
