"""The ecosystem's doors: ir_measures' names, long tables, ``evaluate``.

Every number is ir_measures' own (its default providers: pytrec_eval,
gdeval, msmarco), on generated qrels and runs with tied scores, unjudged
retrieved documents and graded judgments, read from dicts, pandas,
pyarrow and polars tables, ir_datasets-style namedtuples and TREC files.
"""

from __future__ import annotations

import gzip
import io
import math
import os
from collections import namedtuple

import numpy as np
import pytest

from sklearn_rankk import (
    bpref_score,
    evaluate,
    from_qrels_and_run,
    from_trec,
    get_scorer,
    get_scorer_names,
    inferred_average_precision_score,
    ndcg_at_k_score,
    precision_at_k_score,
    ranking_report,
)
from sklearn_rankk._core.registry import IR_MEASURES
from sklearn_rankk._io.names import parse_name

TREC_EVAL_FILES = os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "shared", "conformance", "trec_eval"
)
if not os.path.isdir(TREC_EVAL_FILES):
    TREC_EVAL_FILES = "/work/shared/conformance/trec_eval"

GenericQrel = namedtuple("GenericQrel", "query_id doc_id relevance iteration")
GenericScoredDoc = namedtuple("GenericScoredDoc", "query_id doc_id score")

#: ir_measures names of every supported measure, with their parameters.
NAMES = [
    "P@1", "P@5", "P@10", "P(rel=2)@5", "R@5", "R@100", "R(rel=2)@10",
    "AP", "AP@10", "AP(rel=2)", "MAP", "RR", "RR(rel=2)", "MRR",
    "nDCG", "nDCG@5", "nDCG@10", "NDCG@20", "nDCG(dcg='exp-log2')@10",
    "Rprec", "Rprec(rel=2)", "Success@1", "Success@5", "Success(rel=3)@10",
    "Bpref", "Bpref(rel=2)", "BPref", "infAP", "infAP(rel=2)",
    "SetP", "SetP(rel=2)", "SetP(relative=True)", "SetRelP", "SetR",
    "SetF", "SetF(beta=0.5)", "SetF(beta=2.0)", "SetAP",
    "ERR@5", "ERR@20", "NumRet", "NumRet(rel=1)", "NumRet(rel=2)", "NumRel",
    "NumQ", "Precision@3", "Recall@3",
]  # fmt: skip


#: ir_measures names of the measures its cwl_eval provider computes (SDCG),
#: checked against it where cwl-eval is installed: ``max_rel`` below, at
#: and above the largest grade (4), every parameter written out once.
CWL_NAMES = [
    "SDCG(max_rel=4)@5", "SDCG(max_rel=2)@10", "SDCG(max_rel=6)@3",
    "SDCG(dcg='log2', min_rel=0, max_rel=3)@20",
]  # fmt: skip


def _data(seed=0, n_queries=12, n_docs=40, ties=True):
    """qrels and run dicts: numeric query ids (gdeval reads no others),
    tied scores, unjudged retrieved documents, grades 0-4, one query of
    the run without judgments."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i:03d}" for i in range(n_docs)]
    qrels, run = {}, {}
    for q in range(1, n_queries + 1):
        judged = rng.choice(n_docs, size=rng.integers(4, 20), replace=False)
        grades = rng.choice([0, 0, 0, 1, 1, 2, 3, 4], size=judged.shape[0])
        grades[0] = max(grades[0], 1)  # a relevant document in every query
        qrels[str(q)] = {docs[d]: int(g) for d, g in zip(judged, grades)}
        retrieved = rng.choice(n_docs, size=rng.integers(3, 30), replace=False)
        scores = (
            rng.integers(0, 8, size=retrieved.shape[0]) / 4
            if ties
            else (rng.permutation(retrieved.shape[0]) + 0.5)
        )
        run[str(q)] = {docs[d]: float(s) for d, s in zip(retrieved, scores)}
    run[str(n_queries + 1)] = {docs[0]: 1.0}
    return qrels, run


def _ir_measures(names, qrels, run):
    ir_measures = pytest.importorskip("ir_measures", reason="needs ir-measures")
    measures = [ir_measures.parse_measure(n) for n in names]
    aggregate = ir_measures.calc_aggregate(measures, qrels, run)
    per_query = {}
    for m in ir_measures.iter_calc(measures, qrels, run):
        per_query.setdefault(str(m.measure), {})[m.query_id] = m.value
    return {n: aggregate[m] for n, m in zip(names, measures)}, {
        n: per_query.get(str(m), {}) for n, m in zip(names, measures)
    }


def _tolerance(name):
    return 6e-6 if name.startswith(("ERR", "nDCG(dcg=")) else 1e-9  # gdeval: %.5f


def _check(got, expected, names):
    for name in names:
        assert got[name] == pytest.approx(expected[name], abs=_tolerance(name)), name


def _frames(qrels, run):
    rows_q = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    rows_r = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    q = {
        "query_id": [r[0] for r in rows_q],
        "doc_id": [r[1] for r in rows_q],
        "relevance": [r[2] for r in rows_q],
    }
    r = {
        "query_id": [r[0] for r in rows_r],
        "doc_id": [r[1] for r in rows_r],
        "score": [r[2] for r in rows_r],
    }
    return q, r


def _trec_text(qrels, run):
    q = "".join(
        f"{qid} 0 {d} {g}\n" for qid, docs in qrels.items() for d, g in docs.items()
    )
    r = "".join(
        f"{qid} Q0 {d} {i + 1} {s} tag\n"
        for qid, docs in run.items()
        for i, (d, s) in enumerate(docs.items())
    )
    return q, r


# ---------------------------------------------------------------------------
# Names: every supported ir_measures name equals ir_measures
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_every_supported_name_equals_ir_measures(seed):
    qrels, run = _data(seed)
    expected, per_query = _ir_measures(NAMES, qrels, run)
    got, table = evaluate(qrels, run, NAMES, per_query=True)
    _check(got, expected, NAMES)
    for name in NAMES:
        if name == "NumQ":
            continue
        for qid, value in per_query[name].items():
            assert table.loc[qid, name] == pytest.approx(value, abs=_tolerance(name))


def test_names_cover_every_supported_measure():
    covered = {n.split("(")[0].split("@")[0] for n in NAMES + CWL_NAMES}
    aliases = {a: m.name for m in IR_MEASURES.values() for a in m.aliases}
    covered = {aliases.get(n, n) for n in covered}
    supported = {n for n, m in IR_MEASURES.items() if not m.unsupported}
    assert supported <= covered


def test_rr_at_k_equals_msmarco_without_ties():
    # ir_measures' RR@k (msmarco) ranks tied documents by docno ascending,
    # trec_eval by docno descending: compared on a run without ties.
    qrels, run = _data(3, ties=False)
    names = ["RR@1", "RR@5", "RR(rel=2)@10"]
    expected, _ = _ir_measures(names, qrels, run)
    _check(evaluate(qrels, run, names), expected, names)


def test_unsupported_names_say_why_in_one_line():
    for name, why in [
        ("Judged@10", r"min\(k, retrieved\)"),
        ("alpha_nDCG@10", "subtopic"),
        ("RBP(p=0.8)", "raw"),
        ("IPrec@0.2", "ceil"),
        ("nDCG(judged_only=True)@10", "judged_only"),
        ("P(judged_only=True)@5", "judged_only"),
        ("nDCG(gains={0: 0, 1: 5})@10", "custom gains"),
    ]:
        with pytest.raises(ValueError, match=why) as info:
            evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, [name])
        assert "\n" not in str(info.value)


def test_p_rel_and_p_in_one_list_one_scorer():
    qrels, run = _data(4)
    y_true, y_score, _ = from_qrels_and_run(qrels, run)
    names = ["P(rel=2)@5", "P@5", "nDCG@10", "AP"]
    expected, _ = _ir_measures(names, qrels, run)

    class Identity:
        def decision_function(self, X):
            return X

    scorer = get_scorer(names, ignore_ties=True, zero_division=0.0)
    got = scorer(Identity(), y_score, y_true)
    _check(got, expected, names)
    assert get_scorer("P@5", ignore_ties=True)(Identity(), y_score, y_true) == (
        pytest.approx(precision_at_k_score(y_true, y_score, k=5, ignore_ties=True))
    )
    assert got["P(rel=2)@5"] == pytest.approx(
        precision_at_k_score(
            y_true, y_score, k=5, ignore_ties=True, relevance_threshold=1
        )
    )


def test_get_scorer_names_are_all_accepted_and_concrete():
    names = get_scorer_names()
    assert names and not any("<" in n for n in names)
    for name in names:
        get_scorer(name)
    assert "ndcg@10" in names and "map" in names


@pytest.mark.parametrize(
    "name, message",
    [
        ("ndgc@10", "Did you mean 'ndcg@10'"),
        ("ndcg@0", "k must be an integer >= 1"),
        ("nDCG@0", "k must be an integer >= 1"),
        ("precison@5", "Did you mean 'precision@5'"),
    ],
)
def test_get_scorer_errors_are_one_short_line(name, message):
    with pytest.raises(ValueError, match=message) as info:
        get_scorer(name)
    assert len(str(info.value)) < 200 and "\n" not in str(info.value)


def test_get_scorer_refuses_counts():
    with pytest.raises(ValueError, match="count"):
        get_scorer("NumRet")


# ---------------------------------------------------------------------------
# Long tables: every form gives the same numbers
# ---------------------------------------------------------------------------


def _forms(qrels, run):
    q_cols, r_cols = _frames(qrels, run)
    yield "dict of columns", q_cols, r_cols
    yield (
        "namedtuples",
        [
            GenericQrel(q, d, g, "0")
            for q, d, g in zip(
                q_cols["query_id"], q_cols["doc_id"], q_cols["relevance"]
            )
        ],
        iter(
            GenericScoredDoc(q, d, s)
            for q, d, s in zip(r_cols["query_id"], r_cols["doc_id"], r_cols["score"])
        ),
    )
    q_text, r_text = _trec_text(qrels, run)
    yield "TREC files", io.StringIO(q_text), io.StringIO(r_text)
    yield (
        "gzip TREC files",
        io.BytesIO(gzip.compress(q_text.encode())),
        io.BytesIO(gzip.compress(r_text.encode())),
    )


def _libraries(qrels, run):
    q_cols, r_cols = _frames(qrels, run)
    out = []
    for module, make in [
        ("pandas", lambda pd, c: pd.DataFrame(c)),
        ("pyarrow", lambda pa, c: pa.table(c)),
        ("polars", lambda pl, c: pl.DataFrame(c)),
    ]:
        try:
            lib = __import__(module)
        except ImportError:
            continue
        out.append((module, make(lib, q_cols), make(lib, r_cols)))
    return out


def test_every_input_form_equals_ir_measures():
    qrels, run = _data(5)
    names = NAMES
    expected, _ = _ir_measures(names, qrels, run)
    _check(evaluate(qrels, run, names), expected, names)
    for what, q, r in [*_forms(qrels, run), *_libraries(qrels, run)]:
        got = evaluate(q, r, names)
        assert list(got) == names, what
        _check(got, expected, names)


def test_arrow_stream_objects():
    pa = pytest.importorskip("pyarrow", reason="needs pyarrow")
    qrels, run = _data(12)
    q_cols, r_cols = _frames(qrels, run)

    class Stream:  # only the Arrow PyCapsule interface, as DuckDB's results
        def __init__(self, table):
            self.table = table

        def __arrow_c_stream__(self, requested_schema=None):
            return self.table.__arrow_c_stream__(requested_schema)

    names = ["nDCG@10", "P(rel=2)@5", "Bpref"]
    got = evaluate(Stream(pa.table(q_cols)), Stream(pa.table(r_cols)), names)
    assert got == evaluate(qrels, run, names)


def test_frames_give_identical_matrices():
    qrels, run = _data(6)
    reference = from_trec(qrels, run)
    libraries = _libraries(qrels, run)
    if not libraries:
        pytest.skip("needs pandas, pyarrow or polars")
    for what, q, r in libraries:
        y_true, y_score, qids = from_qrels_and_run(q, r)
        np.testing.assert_array_equal(y_true, reference[0], err_msg=what)
        np.testing.assert_array_equal(y_score, reference[1], err_msg=what)
        assert qids == reference[2]


def test_pandas_frames_with_integer_ids_and_other_column_names():
    pd = pytest.importorskip("pandas")
    qrels = pd.DataFrame({"user": [1, 1, 2], "item": [10, 11, 10], "rating": [1, 0, 1]})
    run = pd.DataFrame(
        {
            "user": [1, 1, 2, 2],
            "item": [11, 10, 12, 10],
            "prediction": [0.9, 0.2, 0.5, 0.1],
        }
    )
    got = evaluate(qrels, run, ["P@1", "RR"])
    # By hand: user 1 ranks 11 (grade 0) then 10 (1); user 2 ranks 12
    # (unjudged) then 10 (1).
    assert got == {"P@1": 0.0, "RR": 0.5}
    renamed = run.rename(columns={"prediction": "s"})
    with pytest.raises(ValueError, match="score column"):
        evaluate(qrels, renamed, ["RR"])
    assert evaluate(qrels, renamed, ["RR"], columns={"score": "s"}) == {"RR": 0.5}


def test_ir_datasets_dataset_object():
    qrels, run = _data(7)
    q_cols, r_cols = _frames(qrels, run)

    class Dataset:  # ir_datasets' dataset: qrels_iter() and scoreddocs_iter()
        def qrels_iter(self):
            return (
                GenericQrel(*row, "0")
                for row in zip(
                    q_cols["query_id"], q_cols["doc_id"], q_cols["relevance"]
                )
            )

        def scoreddocs_iter(self):
            return (
                GenericScoredDoc(*row)
                for row in zip(r_cols["query_id"], r_cols["doc_id"], r_cols["score"])
            )

    names = ["nDCG@10", "AP"]
    assert evaluate(Dataset(), Dataset(), names) == pytest.approx(
        evaluate(qrels, run, names)
    )


def test_duplicates_and_bad_values_in_tables_are_errors():
    q = {"query_id": ["1", "1"], "doc_id": ["a", "a"], "relevance": [1, 0]}
    r = {"query_id": ["1"], "doc_id": ["a"], "score": [1.0]}
    with pytest.raises(ValueError, match="judged twice"):
        evaluate(q, r, ["P@1"])
    q = {"query_id": ["1"], "doc_id": ["a"], "relevance": [1]}
    r = {"query_id": ["1"], "doc_id": ["a"], "score": [float("nan")]}
    with pytest.raises(ValueError, match="not finite"):
        evaluate(q, r, ["P@1"])
    r = {"query_id": ["1", None], "doc_id": ["a", "b"], "score": [1.0, 2.0]}
    with pytest.raises(ValueError, match="query_id is missing in row 1"):
        evaluate(q, r, ["P@1"])
    pd = pytest.importorskip("pandas")
    with pytest.raises(ValueError, match="query_id is missing in row 1"):
        evaluate(pd.DataFrame(q), pd.DataFrame(r), ["P@1"])
    r = pd.DataFrame(
        {"query_id": ["1", "1"], "doc_id": ["a", "a"], "score": [1.0, 2.0]}
    )
    with pytest.raises(ValueError, match="document 'a' is listed twice for query '1'"):
        evaluate(pd.DataFrame(q), r, ["P@1"])


# ---------------------------------------------------------------------------
# The trap closed: unjudged documents marked by default
# ---------------------------------------------------------------------------


def _trec_eval_test_files():
    qrels = os.path.join(TREC_EVAL_FILES, "qrels.test")
    run = os.path.join(TREC_EVAL_FILES, "results.test")
    if not os.path.exists(qrels):
        pytest.skip("trec_eval's test files are not here")
    return qrels, run


def test_bpref_on_trec_eval_test_files_with_defaults():
    qrels, run = _trec_eval_test_files()
    y_true, y_score, _ = from_trec(qrels, run)
    # trec_eval 10.0's own output on these files (out.test: bpref 0.1981).
    assert round(bpref_score(y_true, y_score, ignore_ties=True), 4) == 0.1981
    assert round(evaluate(qrels, run, "Bpref")["Bpref"], 4) == 0.1981
    assert round(evaluate(qrels, run, "bpref")["bpref"], 4) == 0.1981
    # out.test.aq: infAP 0.1785.
    infap = inferred_average_precision_score(y_true, y_score, ignore_ties=True)
    assert round(infap, 4) == 0.1785
    assert evaluate(qrels, run, "infAP")["infAP"] == pytest.approx(infap, abs=1e-12)


def test_marking_changes_no_other_measure():
    qrels, run = _data(8)
    marked = from_trec(qrels, run)
    plain = from_trec(qrels, run, mark_unjudged=False)
    for k in (1, 5, 10):
        assert ndcg_at_k_score(marked[0], marked[1], k=k) == pytest.approx(
            ndcg_at_k_score(plain[0], plain[1], k=k)
        )


def test_matrices_follow_the_metric_functions():
    rng = np.random.default_rng(9)
    y_true = rng.integers(0, 3, size=(20, 8))
    y_score = rng.integers(0, 4, size=(20, 8)).astype(float)
    got, table = evaluate(y_true, y_score, ["ndcg@5", "P@3"], per_query=True)
    assert got["ndcg@5"] == ndcg_at_k_score(y_true, y_score, k=5)
    assert got["P@3"] == precision_at_k_score(y_true, y_score, k=3)
    assert table.shape == (20, 2)


# ---------------------------------------------------------------------------
# The "From other libraries" page
# ---------------------------------------------------------------------------

PAGE = os.path.join(
    os.path.dirname(__file__), "..", "docs", "user_guide", "from_other_libraries.rst"
)
PAGE_QRELS = {
    "q1": {"d1": 2, "d2": 0, "d3": 1, "d7": 1},
    "q2": {"d4": 1, "d5": 0, "d8": 2},
}
PAGE_RUN = {
    "q1": {"d1": 0.9, "d2": 0.8, "d5": 0.7, "d3": 0.4},
    "q2": {"d6": 0.9, "d4": 0.6, "d5": 0.5, "d8": 0.2},
}
PAGE_NUMBERS = [0.6718, 0.4, 0.5, 0.75, 0.4167]  # nDCG@10, P@5, MAP, MRR, bpref


def test_from_other_libraries_page_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="needs pytrec_eval")
    measures = ["ndcg_cut_10", "P_5", "map", "recip_rank", "bpref"]
    per_query = pytrec_eval.RelevanceEvaluator(PAGE_QRELS, set(measures)).evaluate(
        PAGE_RUN
    )
    got = [np.mean([v[m] for v in per_query.values()]) for m in measures]
    assert [round(float(v), 4) for v in got] == PAGE_NUMBERS


def test_from_other_libraries_page_ir_measures():
    names = ["nDCG@10", "P@5", "AP", "RR", "Bpref"]
    expected, _ = _ir_measures(names, PAGE_QRELS, PAGE_RUN)
    assert [round(expected[n], 4) for n in names] == PAGE_NUMBERS
    got = evaluate(PAGE_QRELS, PAGE_RUN, names)
    assert [round(got[n], 4) for n in names] == PAGE_NUMBERS


def test_from_other_libraries_page_ranx():
    ranx = pytest.importorskip("ranx", reason="needs ranx")
    names = ["ndcg@10", "precision@5", "map", "mrr", "bpref"]
    got = ranx.evaluate(ranx.Qrels(PAGE_QRELS), ranx.Run(PAGE_RUN), names)
    assert [round(float(got[n]), 4) for n in names] == PAGE_NUMBERS


def test_from_other_libraries_page_lists_every_ir_measures_name():
    with open(PAGE, encoding="utf-8") as f:
        text = f.read()
    for name in IR_MEASURES:
        assert f"``{name}" in text, name


# ---------------------------------------------------------------------------
# The command line's -m and ranking_report's metrics read the same names
# ---------------------------------------------------------------------------


def test_command_line_reads_ir_measures_names(tmp_path, capsys):
    from sklearn_rankk._io.cli import main

    qrels, run = _data(10)
    q_text, r_text = _trec_text(qrels, run)
    (tmp_path / "qrels").write_text(q_text)
    (tmp_path / "run.gz").write_bytes(gzip.compress(r_text.encode()))
    names = ["P(rel=2)@5", "P@5", "nDCG@10", "AP", "Bpref", "NumRet", "NumQ"]
    expected, _ = _ir_measures(names, qrels, run)
    argv = [a for n in names for a in ("-m", n)]
    assert main([*argv, str(tmp_path / "qrels"), str(tmp_path / "run.gz")]) == 0
    out = capsys.readouterr().out
    printed = {line.split()[0]: float(line.split()[2]) for line in out.splitlines()}
    for name in names:
        assert printed[name] == pytest.approx(expected[name], abs=5e-5), name


def test_ranking_report_reads_measure_names():
    rng = np.random.default_rng(11)
    y_true = rng.integers(0, 3, size=(30, 12))
    y_score = rng.integers(0, 5, size=(30, 12)).astype(float)
    report = ranking_report(
        y_true, y_score, k=[1, 5], metrics=["precision", "P(rel=2)@5", "nDCG@10"]
    )
    assert report["precision@5"] == precision_at_k_score(y_true, y_score, k=5)
    assert report["P(rel=2)@5"] == precision_at_k_score(
        y_true, y_score, k=5, relevance_threshold=1
    )
    assert report["nDCG@10"] == ndcg_at_k_score(y_true, y_score, k=10)
    assert "(as named)" in str(report)
    with pytest.raises(ValueError, match="Did you mean 'nDCG@10'"):
        ranking_report(y_true, y_score, metrics=["nDGC@10"])


def test_accumulator_keeps_each_measures_threshold():
    from sklearn_rankk import RankingAccumulator

    rng = np.random.default_rng(13)
    y_true = rng.integers(0, 3, size=(40, 10))
    y_score = rng.random((40, 10))
    accumulator = RankingAccumulator(get_scorer(["P(rel=2)@5", "P@5"]))
    for start in range(0, 40, 10):
        accumulator.update(y_true[start : start + 10], y_score[start : start + 10])
    got = accumulator.result()
    assert got["P(rel=2)@5"] == pytest.approx(
        precision_at_k_score(y_true, y_score, k=5, relevance_threshold=1)
    )
    assert got["P@5"] == pytest.approx(precision_at_k_score(y_true, y_score, k=5))


# ---------------------------------------------------------------------------
# ir_measures' SDCG (cwl_eval): sdcg_at_k_score with max_rel, grades clipped
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", CWL_NAMES)
def test_sdcg_names_read_as_ir_measures_reads_them(name):
    ir_measures = pytest.importorskip("ir_measures", reason="needs ir-measures")
    theirs = ir_measures.parse_measure(name)
    request = parse_name(name).request
    assert request.metric.name == "sdcg"
    assert request.k == theirs["cutoff"]
    assert request.options["max_rel"] == theirs["max_rel"]
    assert request.relevance_threshold is None


@pytest.mark.parametrize("seed", [5, 6])
def test_sdcg_names_equal_ir_measures_cwl_eval(seed):
    pytest.importorskip("cwl", reason="needs cwl-eval (ir_measures' cwl_eval)")
    # cwl_eval ranks tied documents in the run's order: a run without ties.
    qrels, run = _data(seed, ties=False)
    expected, per_query = _ir_measures(CWL_NAMES, qrels, run)
    got, table = evaluate(qrels, run, CWL_NAMES, per_query=True)
    _check(got, expected, CWL_NAMES)
    for name in CWL_NAMES:
        assert per_query[name]
        for qid, value in per_query[name].items():
            assert table.loc[qid, name] == pytest.approx(value, abs=1e-9)


def test_sdcg_name_clips_grades_at_max_rel():
    """Hand-worked: grades 5, 1, 0 ranked in that order, max_rel=2: the
    gains are 2 (5 clipped), 1, 0 over 2 times the first two discounts."""
    qrels = {"q": {"a": 5, "b": 1, "c": 0}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    d2 = 1 / math.log2(3)
    want = (2 + d2) / (2 * (1 + d2))
    got = evaluate(qrels, run, ["SDCG(max_rel=2)@2", "SDCG(max_rel=5)@2"])
    assert got["SDCG(max_rel=2)@2"] == pytest.approx(want, rel=1e-12)
    assert got["SDCG(max_rel=5)@2"] == pytest.approx(
        (5 + d2) / (5 * (1 + d2)), rel=1e-12
    )


@pytest.mark.parametrize(
    "name, why",
    [
        ("SDCG(dcg='log2')@10", "needs max_rel"),
        ("SDCG(max_rel=4)", "needs a cut-off"),
        ("SDCG(max_rel=4, min_rel=1)@10", "min_rel"),
        ("SDCG(max_rel=4, dcg='exp-log2')@10", "dcg must be one of"),
        ("SDCG(max_rel=4, rel=2)@10", "takes no parameter"),
    ],
)
def test_sdcg_names_refused_say_why_in_one_line(name, why):
    with pytest.raises(ValueError, match=why) as info:
        evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, [name])
    assert "\n" not in str(info.value)
