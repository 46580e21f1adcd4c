"""The trec_eval-compatible command line (``python -m sklearn_rankk``).

References: trec_eval's own regression outputs (``out.test.aq`` and
``out.test.aql``, reproduced line for line), trec_eval through pytrec_eval on
generated runs (per query, 1e-12 numerically and identical printouts), and
hand-worked values for the tie modes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import helpers
import numpy as np
import pytest

from sklearn_rankk._io.cli import evaluate, main, parse_measure

SHARED = ["map", "Rprec", "recip_rank", "P", "recall", "ndcg", "ndcg_cut",
          "map_cut", "relative_P", "success", "set_P", "set_relative_P",
          "set_recall", "set_map", "set_F", "runid", "num_q", "num_ret",
          "num_rel", "num_rel_ret", "gm_map", "bpref", "relstring", "infAP",
          "gm_bpref", "num_nonrel_judged_ret", "unj", "utility", "binG", "G",
          "ndcg_rel", "Rndcg", "rbp", "rbp_resid", "Rprec_mult",
          "iprec_at_recall", "11pt_avg"]  # fmt: skip
# Lines of each regression file printed for those measures (of 387).
SHARED_LINES = 387


def trec_file(name):
    return str(helpers.trec_file(name))


def run_main(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def shared_lines(out_file, measure_names):
    """The lines of a trec_eval output for the given measures, in order."""
    lines = Path(trec_file(out_file)).read_text().splitlines(keepends=True)
    return [line for line in lines if line.split("\t")[0].rstrip() in measure_names]


# --------------------------------------------------------------------------
# trec_eval's regression outputs
# --------------------------------------------------------------------------

# (qrels, out file, extra arguments) as in trec_eval's Makefile quicktest.
REGRESSION = {
    "aq": ("qrels.test", "out.test.aq", []),
    "aql": ("qrels.rel_level", "out.test.aql", ["-l2", "-mrelstring.20"]),
}


@pytest.mark.parametrize("case", sorted(REGRESSION))
def test_reproduces_trec_eval_regression_output(capsys, case):
    """Every line of out.test.aq / out.test.aql for a shared measure, byte
    for byte and in the same order."""
    qrels, out_file, extra = REGRESSION[case]
    status, out, err = run_main(
        capsys, "-q", "-m", "all_trec", *extra, trec_file(qrels),
        trec_file("results.test"),
    )  # fmt: skip
    assert status == 0 and err == ""
    printed = {line.split("\t")[0].rstrip() for line in out.splitlines()}
    expected = shared_lines(out_file, printed)
    assert len(expected) == SHARED_LINES
    assert out.splitlines(keepends=True) == expected
    # Every shared measure of the file is printed: nothing left out.
    in_file = {line.split("\t")[0].rstrip() for line in expected}
    for line in Path(trec_file(out_file)).read_text().splitlines():
        name = line.split("\t")[0].rstrip()
        family = name.rpartition("_")[0] if name[-1].isdigit() else name
        assert (family in SHARED) == (name in in_file), name


def test_regression_output_with_explicit_names(capsys):
    """The same lines from measures named one by one, as trec_eval and as
    scorer names (printed as written)."""
    names = ["map", "Rprec", "recip_rank", "P_5", "ndcg_cut_10", "map_cut_100",
             "success_1", "recall_1000", "ndcg"]  # fmt: skip
    status, out, _ = run_main(
        capsys, "-q", "-l", "2", *[a for n in names for a in ("-m", n)],
        trec_file("qrels.rel_level"), trec_file("results.test"),
    )  # fmt: skip
    assert status == 0
    expected = shared_lines("out.test.aql", set(names))
    # trec_eval prints in its own measure order; we print in the order given.
    assert sorted(out.splitlines(keepends=True)) == sorted(expected)
    aliases = {"map": "map@1000", "Rprec": "r_precision", "recip_rank": "mrr",
               "P_5": "P@5", "ndcg_cut_10": "ndcg@10", "map_cut_100": "map@100",
               "success_1": "hit@1", "recall_1000": "recall@1000",
               "ndcg": "ndcg"}  # fmt: skip
    status, out2, _ = run_main(
        capsys, "-q", "-l", "2", *[a for n in names for a in ("-m", aliases[n])],
        trec_file("qrels.rel_level"), trec_file("results.test"),
    )  # fmt: skip
    renamed = out
    for name, alias in aliases.items():
        renamed = renamed.replace(f"{name:<22}\t", f"{alias:<22}\t")
    assert out2 == renamed


def test_real_parameter_families_named_one_by_one(capsys):
    """Rprec_mult_0.2 and Rprec_mult.1.4,2: trec_eval's lines for those
    values, labelled as trec_eval labels them (%3.2f)."""
    status, out, _ = run_main(
        capsys, "-q", "-m", "Rprec_mult_0.2", "-m", "Rprec_mult.1.4,2",
        trec_file("qrels.test"), trec_file("results.test"),
    )  # fmt: skip
    assert status == 0
    names = {"Rprec_mult_0.20", "Rprec_mult_1.40", "Rprec_mult_2.00"}
    assert out.splitlines(keepends=True) == shared_lines("out.test.aq", names)


def test_tie_modes_on_regression_files(capsys):
    """results.test has tied scores: '--ties average' moves one value of
    out.test.aql (ndcg_cut_100, topic 301), every other line stays."""
    args = ["-q", "-l2", "-m", "all_trec", trec_file("qrels.rel_level"),
            trec_file("results.test")]  # fmt: skip
    _, trec_eval_ties, _ = run_main(capsys, *args)
    _, average, _ = run_main(capsys, "--ties", "average", *args)
    changed = set(average.splitlines()) - set(trec_eval_ties.splitlines())
    assert {line.split("\t")[0].rstrip() for line in changed} == {"ndcg_cut_100"}


# --------------------------------------------------------------------------
# Agreement with pytrec_eval on generated runs
# --------------------------------------------------------------------------


def write_trec(tmp_path, qrels, run):
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    rng = np.random.default_rng(0)
    with open(qrels_path, "w") as f:
        for qid, docs in qrels.items():
            for docno, rel in docs.items():
                f.write(f"{qid} 0 {docno} {rel}\n")
    with open(run_path, "w") as f:
        for qid, docs in run.items():
            items = list(docs.items())
            for r in rng.permutation(len(items)):  # file order means nothing
                docno, score = items[r]
                f.write(f"{qid}\tQ0\t{docno}\t{r + 1}\t{score!r}\tsys\n")
    return qrels_path, run_path


def generated(seed):
    """Tied integer scores, docnos whose string order is not numeric, grades
    -1..4, relevant documents missing from the run, a query without
    relevant documents, queries on one side only."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(10):
        docs = [f"d{n:0{w}d}" for n, w in
                zip(rng.permutation(300)[:50], rng.integers(1, 4, 50))]  # fmt: skip
        grades = rng.choice([-1, 0, 1, 2, 3, 4], 50, p=[0.1, 0.4, 0.2, 0.1, 0.1, 0.1])
        qrels[f"{300 + q}"] = {
            d: int(g) for d, g in zip(docs, grades) if rng.random() < 0.6
        }
        n_ret = int(rng.integers(1, 40))
        picked = rng.permutation(50)[:n_ret]
        run[f"{300 + q}"] = {docs[j]: float(rng.integers(0, 6)) for j in picked}
    qrels["300"] = {d: min(g, 0) for d, g in qrels["300"].items()}
    qrels["399"] = {"d1": 1}  # judged, not in the run
    run["398"] = {"d1": 1.0}  # in the run, not judged
    return qrels, run


TREC_MEASURES = ["P_1", "P_5", "P_20", "recall_5", "recall_30", "ndcg_cut_3",
                 "ndcg_cut_10", "map_cut_10", "success_1", "success_5", "map",
                 "ndcg", "recip_rank", "Rprec", "relative_P_1", "relative_P_5",
                 "relative_P_30", "set_P", "set_recall", "set_relative_P",
                 "set_map", "set_F", "bpref", "infAP", "num_ret", "num_rel",
                 "num_rel_ret", "utility", "binG", "G", "ndcg_rel",
                 "Rndcg", "Rprec_mult_0.20", "Rprec_mult_0.60",
                 "Rprec_mult_1.40", "Rprec_mult_2.00", "iprec_at_recall_0.00",
                 "iprec_at_recall_0.50", "iprec_at_recall_1.00"]  # fmt: skip
# (pytrec_eval bundles trec_eval 9, whose recall points (long)(x R + 0.9)
# equal 10.0's lround(x R) at the levels 0, 0.5 and 1 for every R; the other
# levels and 11pt_avg are checked against trec_eval_reference below.)


def pytrec(qrels, run, level):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    measures = {m.rpartition("_")[0] + "." + m.rpartition("_")[2]
                if m[-1].isdigit() else m for m in TREC_MEASURES}  # fmt: skip
    return pytrec_eval.RelevanceEvaluator(qrels, measures, level).evaluate(run)


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", range(3))
def test_agrees_with_pytrec_eval(tmp_path, capsys, seed, level):
    qrels, run = generated(seed)
    results = pytrec(qrels, run, level)
    qids = sorted(results)
    assert "398" not in qids and "399" not in qids
    # Numerically, through the command line's computation.
    got_qids, values = evaluate(qrels, run, TREC_MEASURES, level=level)
    assert got_qids == qids
    for name in TREC_MEASURES:
        expected = [results[q][name] for q in qids]
        np.testing.assert_allclose(values[name], expected, rtol=0, atol=1e-12)
    # As printed, from the files.
    qrels_path, run_path = write_trec(tmp_path, qrels, run)
    args = [a for m in TREC_MEASURES for a in ("-m", m)]
    status, out, err = run_main(capsys, "-q", f"-l{level}", *args, qrels_path,
                                run_path)  # fmt: skip
    # Query 399 is judged but not in the run: left out, never silently.
    assert status == 0 and err == (
        "sklearn-rankk: warning: 1 query of the qrels ('399') has no results in "
        "the run and is left out of the mean (trec_eval 10.0 stops with an "
        "error); use -c to count it as 0.\n"
    )
    # Counts print as integers and sum over queries, as trec_eval's.
    counts = ("num_ret", "num_rel", "num_rel_ret")
    form = {m: "{:d}" if m in counts else "{:6.4f}" for m in TREC_MEASURES}
    expected = [f"{m:<22}\t{q}\t" + form[m].format(int(results[q][m]) if m in counts
                else results[q][m]) for q in qids for m in TREC_MEASURES]  # fmt: skip
    expected += [
        f"{m:<22}\tall\t"
        + (
            f"{int(sum(results[q][m] for q in qids))}"
            if m in counts
            else f"{sum(results[q][m] for q in qids) / len(qids):6.4f}"
        )
        for m in TREC_MEASURES
    ]
    assert out.splitlines() == expected


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", range(3))
def test_real_parameter_families_agree_with_trec_eval_reference(
    tmp_path, capsys, seed, level
):
    """iprec_at_recall, Rprec_mult and 11pt_avg with parameters, as trec_eval
    10.0 prints them (the port in trec_eval_reference), line for line."""
    ref = pytest.importorskip("trec_eval_reference")
    qrels, run = generated(seed)
    measures = ["iprec_at_recall.0.1,0.25,0.3,0.6,0.7,0.9", "Rprec_mult.0.3,1.7",
                "11pt_avg.0.0,0.1,0.3,0.35,1.0"]  # fmt: skip
    expected = ref.trec_eval_lines(
        qrels, run, "sys", measures, query_flag=True, relevance_level=level,
        missing_topics="skip",
    )  # fmt: skip
    qrels_path, run_path = write_trec(tmp_path, qrels, run)
    args = [a for m in measures for a in ("-m", m)]
    status, out, _ = run_main(capsys, "-q", f"-l{level}", *args, qrels_path,
                              run_path)  # fmt: skip
    assert status == 0
    assert out.splitlines() == [line.rstrip("\n") for line in expected]
    assert len(expected) == 9 * 11  # 9 measures, 10 queries and 'all'


def test_complete_averages_over_all_judged_queries(tmp_path, capsys):
    """-c: queries judged but missing from the run count as 0 in the mean
    and get their own (0) lines, as in trec_eval."""
    qrels, run = generated(5)
    results = pytrec(qrels, run, 1)
    judged = sorted(qrels)
    qrels_path, run_path = write_trec(tmp_path, qrels, run)
    status, out, _ = run_main(capsys, "-c", "-q", "-m", "map", "-m", "P_5",
                              qrels_path, run_path)  # fmt: skip
    assert status == 0
    lines = [line.split("\t") for line in out.splitlines()]
    assert [q for _, q, _ in lines] == [q for q in judged for _ in "mP"] + ["all"] * 2
    for m in ("map", "P_5"):
        total = sum(results[q][m] for q in results)
        mean = next(v for name, q, v in lines if q == "all" and name.rstrip() == m)
        assert mean == f"{total / len(judged):6.4f}"
        missing = next(v for name, q, v in lines if q == "399" and name.rstrip() == m)
        assert missing == "0.0000"


# --------------------------------------------------------------------------
# Measure names
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("P_5", [("P_5", "precision", 5)]),
        ("P@5", [("P@5", "precision", 5)]),
        ("precision@5", [("precision@5", "precision", 5)]),
        ("P.5,10", [("P_5", "precision", 5), ("P_10", "precision", 10)]),
        ("ndcg_cut.3", [("ndcg_cut_3", "ndcg", 3)]),
        ("success", [("success_1", "hit", 1), ("success_5", "hit", 5),
                     ("success_10", "hit", 10)]),
        ("map_cut_20", [("map_cut_20", "map", 20)]),
        ("recip_rank", [("recip_rank", "mrr", None)]),
        ("Rprec", [("Rprec", "r_precision", None)]),
        ("r_precision", [("r_precision", "r_precision", None)]),
        ("ndcg", [("ndcg", "ndcg", None)]),
        ("mrr@10", [("mrr@10", "mrr", 10)]),
        ("f1@3", [("f1@3", "f1", 3)]),
        ("Rprec_mult.0.5,2", [("Rprec_mult_0.50", "r_precision", None),
                              ("Rprec_mult_2.00", "r_precision", None)]),
        ("Rprec_mult_0.2", [("Rprec_mult_0.20", "r_precision", None)]),
        ("iprec_at_recall.0.1,0.5", [
            ("iprec_at_recall_0.10", "interpolated_precision", None),
            ("iprec_at_recall_0.50", "interpolated_precision", None)]),
        ("iprec_at_recall_0.3", [
            ("iprec_at_recall_0.30", "interpolated_precision", None)]),
        ("11pt_avg", [("11pt_avg", "eleven_point_precision", None)]),
        ("11pt_avg.0.2,0.8", [("11pt_avg_0.2,0.8", "eleven_point_precision", None)]),
    ],
)  # fmt: skip
def test_parse_measure(text, expected):
    assert parse_measure(text) == expected


def test_default_measures_and_recall_family():
    # trec_eval's official measures, those computed here, in its order.
    assert [m for m, _, _ in parse_measure("official")] == [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map",
        "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall_0.00",
        "iprec_at_recall_0.10", "iprec_at_recall_0.20", "iprec_at_recall_0.30",
        "iprec_at_recall_0.40", "iprec_at_recall_0.50", "iprec_at_recall_0.60",
        "iprec_at_recall_0.70", "iprec_at_recall_0.80", "iprec_at_recall_0.90",
        "iprec_at_recall_1.00", "P_5", "P_10", "P_15",
        "P_20", "P_30", "P_100", "P_200", "P_500", "P_1000",
    ]  # fmt: skip
    assert len(parse_measure("recall")) == 9


def test_default_is_official(capsys):
    args = [trec_file("qrels.test"), trec_file("results.test")]
    _, default, _ = run_main(capsys, *args)
    _, official, _ = run_main(capsys, "-m", "official", *args)
    assert default == official and len(default.splitlines()) == 30


def test_output_layout_and_labels(tmp_path, capsys):
    qrels_path, run_path = write_trec(
        tmp_path, {"q1": {"a": 1, "b": 1}}, {"q1": {"a": 2.0, "c": 1.0}}
    )
    status, out, _ = run_main(
        capsys, "-q", "-m", "P@2", "-m", "precision@2", "-m", "P_2", "-m", "P.2",
        "-m", "ndcg_cut_1000",
        qrels_path, run_path,
    )  # fmt: skip
    assert status == 0
    assert out == (
        "P@2                   \tq1\t0.5000\n"
        "precision@2           \tq1\t0.5000\n"
        "P_2                   \tq1\t0.5000\n"
        "ndcg_cut_1000         \tq1\t0.6131\n"  # 1 / (1 + 1/log2(3))
        "P@2                   \tall\t0.5000\n"
        "precision@2           \tall\t0.5000\n"
        "P_2                   \tall\t0.5000\n"
        "ndcg_cut_1000         \tall\t0.6131\n"
    )
    status, out, _ = run_main(capsys, "-n", "-q", "-m", "map", qrels_path, run_path)
    assert out == "map                   \tq1\t0.5000\n"


def test_ties_flag(tmp_path, capsys):
    """Three tied documents, the relevant one has the middle docno: rank 2
    in trec_eval's order, rank 1 with probability 1/3 on average."""
    qrels_path, run_path = write_trec(
        tmp_path, {"q": {"d2": 1}}, {"q": {"d1": 0.5, "d2": 0.5, "d3": 0.5}}
    )
    _, out, _ = run_main(capsys, "-n", "-q", "-m", "P_1", "-m", "recip_rank",
                         qrels_path, run_path)  # fmt: skip
    assert (
        out == "P_1                   \tq\t0.0000\nrecip_rank            \tq\t0.5000\n"
    )
    _, out, _ = run_main(capsys, "-n", "-q", "--ties", "average", "-m", "P_1",
                         "-m", "recip_rank", qrels_path, run_path)  # fmt: skip
    assert (
        out == "P_1                   \tq\t0.3333\nrecip_rank            \tq\t0.6111\n"
    )


# --------------------------------------------------------------------------
# Errors and exit codes
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("measure", "message"),
    [
        ("ndgc@10", "Did you mean 'ndcg@10'"),
        ("map_avgjg", "'map_avgjg' is trec_eval's but is not computed here"),
        ("mapp", "Unknown measure 'mapp'. Did you mean 'map'?"),
        ("P.5,x", "Bad cut-offs in measure 'P.5,x'"),
        ("recip_rank.1=0", "only trec_eval's cut-off measures"),
        ("ndcg.1=x", "expected name=value pairs"),
        ("ndcg.1=-2", "gains here are at least 0"),
        ("rbp.1=2", "only the persistence p"),
        ("utility.1,2", "utility takes 4 coefficients"),
        ("Rprec.0.5", "only trec_eval's cut-off measures"),
        ("Rprec_mult.0.5,x", "Bad parameters in measure 'Rprec_mult.0.5,x'"),
        ("Rprec_mult.0", "multiple must be > 0.0"),
        ("iprec_at_recall.1.5", "recall_level must be <= 1.0"),
        ("11pt_avg.0.5,2", "recall_levels[1] must be <= 1.0"),
        ("iprec_at_recall.x", "Bad parameters in measure 'iprec_at_recall.x'"),
        ("recall", None),
    ],
)
def test_unknown_measure_is_a_usage_error(tmp_path, capsys, measure, message):
    qrels_path, run_path = write_trec(tmp_path, {"q": {"a": 1}}, {"q": {"a": 1.0}})
    status, out, err = run_main(capsys, "-m", measure, qrels_path, run_path)
    if message is None:
        assert status == 0
        return
    assert status == 2 and out == ""
    # One line that names the fix (issue 24), not the usage.
    assert err.startswith("sklearn-rankk: error: ") and err.count("\n") == 1
    assert message in err


def test_bad_files_exit_1_naming_file_and_line(tmp_path, capsys):
    qrels_path, run_path = write_trec(tmp_path, {"q": {"a": 1}}, {"q": {"a": 1.0}})
    bad = tmp_path / "bad_run"
    bad.write_text("q Q0 a 1 1.0 t\nq Q0 b 2 oops t\n")
    status, out, err = run_main(capsys, qrels_path, bad)
    assert (status, out) == (1, "")
    assert (
        err == f"sklearn-rankk: error: {bad}:2: score 'oops' is not a finite number.\n"
    )
    status, _, err = run_main(capsys, tmp_path / "missing", run_path)
    assert status == 1 and "missing" in err and "No such file" in err
    other = tmp_path / "other_qrels"
    other.write_text("z 0 a 1\n")
    status, _, err = run_main(capsys, other, run_path)
    assert status == 1 and "No query has both" in err


def test_usage_errors_exit_2(tmp_path, capsys):
    qrels_path, run_path = write_trec(tmp_path, {"q": {"a": 1}}, {"q": {"a": 1.0}})
    assert run_main(capsys, qrels_path)[0] == 2
    status, _, err = run_main(capsys, "-l0", qrels_path, run_path)
    assert status == 2 and "-l must be at least 1" in err
    assert run_main(capsys, "--ties", "random", qrels_path, run_path)[0] == 2
    status, out, _ = run_main(capsys, "--help")
    assert status == 0 and "--ties average" in out and "docno" in out


# --------------------------------------------------------------------------
# python -m sklearn_rankk
# --------------------------------------------------------------------------


def test_python_dash_m(tmp_path, capsys):
    qrels_path, run_path = write_trec(
        tmp_path, {"q1": {"a": 1}, "q2": {"b": 2}}, {"q1": {"a": 1.0, "b": 2.0}}
    )
    argv = ["-q", "-m", "ndcg@10", "-m", "map", str(qrels_path)]
    _, expected, expected_err = run_main(capsys, *argv, run_path)
    assert "('q2') has no results in the run" in expected_err
    with open(run_path, "rb") as stdin:  # the run from stdin, as '-'
        done = subprocess.run(
            [sys.executable, "-m", "sklearn_rankk", *argv, "-"],
            stdin=stdin, capture_output=True, text=True, check=False,
        )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, expected, expected_err)


def test_closed_output_pipe_ends_quietly(tmp_path):
    """``sklearn-rankk ... | head -1``: no traceback, no "Exception ignored"
    message, and the status a shell shows for a tool that SIGPIPE ended."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"q{i} 0 d1 1\n" for i in range(3000)))
    run.write_text("".join(f"q{i} Q0 d1 1 0.5 t\n" for i in range(3000)))
    command = [sys.executable, "-m", "sklearn_rankk", "-q", "-m", "all_trec"]
    with subprocess.Popen(
        [*command, str(qrels), str(run)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        first = process.stdout.readline()
        process.stdout.close()  # the reader goes away, output still pending
        stderr = process.stderr.read()
        status = process.wait(timeout=120)
    assert first.startswith(b"num_ret")
    assert stderr == b""
    assert status == 141
