"""The command line against trec_eval 10.0 itself, and its options.

Differential tests build trec_eval from its C sources (``../shared`` beside
the project, or the folder named by ``TREC_EVAL_SRC``; a built program named
by ``TREC_EVAL``) into a temporary folder, and skip with the reason when
there is no source, no C compiler or no ``make``. The other tests check
trec_eval's documented arithmetic on hand-worked data, or lines trec_eval
printed on its own regression files.
"""

from __future__ import annotations

import gzip
import os
import random
import shutil
import subprocess
from pathlib import Path

import helpers
import numpy as np
import pytest

from sklearn_rankk._io.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _trec_eval_sources():
    if os.environ.get("TREC_EVAL_SRC"):
        return Path(os.environ["TREC_EVAL_SRC"])
    for up in (ROOT.parent, ROOT.parent.parent):
        path = up / "shared" / "conformance" / "trec_eval_src"
        if (path / "Makefile").is_file():
            return path
    return None


@pytest.fixture(scope="session")
def trec_eval(tmp_path_factory):
    """Path of a trec_eval 10.0 program, built here from its sources."""
    if os.environ.get("TREC_EVAL"):
        return os.environ["TREC_EVAL"]
    sources = _trec_eval_sources()
    if sources is None:
        pytest.skip("no trec_eval sources (../shared/conformance/trec_eval_src)")
    if shutil.which("make") is None or shutil.which("gcc") is None:
        pytest.skip("building trec_eval needs make and gcc")
    folder = tmp_path_factory.mktemp("trec_eval") / "src"
    shutil.copytree(sources, folder)
    done = subprocess.run(
        ["make", "-s", 'CFLAGS=-O2 -I. -DVERSIONID=\\"10.0\\" -w'],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    program = folder / "trec_eval"
    if done.returncode or not program.is_file():
        pytest.skip(f"trec_eval did not build: {done.stderr[-300:]}")
    return str(program)


def run_ours(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def run_theirs(program, *argv):
    done = subprocess.run(
        [program, *map(str, argv)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def generate(folder, seed):
    """A qrels file and a run with tied scores, graded and negative grades,
    unjudged documents, relevant documents not retrieved and queries of the
    run without judgments (every judged query is in the run)."""
    return helpers.random_trec_files(
        folder,
        seed,
        max_queries=8,
        doc_ids=200,
        draws=60,
        max_extra_judged=8,
        grades=[0, 0, 1, 1, 2, 3, -1],
        tops=[2, 5, 1000],
        divisors=[1, 4, 7],
        tag="t",
    )


def lines_of(out, names=None):
    lines = out.splitlines()
    if names is not None:
        lines = [line for line in lines if line.split("\t")[0].rstrip() in names]
    return sorted(lines)


# Each case: (options, measures).
CASES = {
    "all_trec": (["-c"], ["all_trec"]),
    "level 2": (["-l2"], ["all_trec"]),
    "-M 5": (["-M", "5"], ["all_trec"]),
    "-c -M 3": (["-c", "-M3"], ["all_trec"]),
    "-J": (["-J"], ["all_trec"]),
    "-J -M 10 -l2": (["-J", "-M", "10", "-l2"], ["all_trec"]),
    "parameters": (
        ["-N", "1000"],
        [
            "set_F.0.5",
            "utility.2,-1,0.5,1",
            "ndcg.1=3,2=9",
            "Rndcg.1=2,2=5",
            "G.2=5",
            "ndcg_rel.1=4",
            "rbp.p=0.95",
            "rbp_resid.p=0.5",
            "gm_map",
            "gm_bpref",
            "set_F",
            "iprec_at_recall.0.149,0.151",
        ],
    ),  # fmt: skip
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_lines_as_trec_eval(trec_eval, tmp_path, capsys, case):
    """Every line trec_eval prints for the measures computed here, byte for
    byte, per query and 'all', over generated runs (trec_eval prints its own
    order: compared as sorted lines)."""
    options, measures = CASES[case]
    argv = [*options, *(a for m in measures for a in ("-m", m))]
    for seed in range(25):
        qrels, run = generate(tmp_path, seed)
        status, ours, _ = run_ours(capsys, "-q", *argv, qrels, run)
        assert status == 0
        theirs = run_theirs(trec_eval, "-q", *argv, qrels, run)
        # trec_eval divides 0 by 0 (prints -nan) for the interpolated
        # precisions of a query that -J leaves without documents; 0 here.
        theirs = "\n".join(
            line for line in theirs.splitlines() if not line.endswith("nan")
        )
        names = {line.split("\t")[0].rstrip() for line in ours.splitlines()}
        ours_lines = lines_of(ours)
        if "-J" in options:
            keys = {tuple(line.split("\t")[:2]) for line in theirs.splitlines()}
            ours_lines = [
                line for line in ours_lines if tuple(line.split("\t")[:2]) in keys
            ]
        _assert_same(ours_lines, lines_of(theirs, names), seed)


# The kernel computes infAP in an algebraically equal form that can round the
# other way at a tie of the 4th decimal (docs/user_guide/conformance.rst).
LAST_DIGIT = {"infAP"}


def _assert_same(ours, theirs, seed):
    def keyed(lines):
        return {tuple(line.split("\t")[:2]): line.split("\t")[2] for line in lines}

    ours, theirs = keyed(ours), keyed(theirs)
    assert ours.keys() == theirs.keys(), seed
    for key, value in theirs.items():
        if ours[key] != value:
            assert key[0].rstrip() in LAST_DIGIT, (seed, key, ours[key], value)
            assert abs(float(ours[key]) - float(value)) < 1.5e-4, (seed, key)


@pytest.mark.parametrize(
    "measures",
    [
        ["P.5", "P.10"],
        ["P", "P.5"],
        ["P.5", "P"],
        ["iprec_at_recall.0.149,0.151"],
        ["set_F.0.5", "set_F"],
        ["ndcg.1=3", "ndcg"],
        ["relstring.5", "all_trec"],
        ["map", "official"],
    ],
)
def test_repeated_specs_as_trec_eval(trec_eval, tmp_path, capsys, measures):
    qrels, run = generate(tmp_path, 3)
    argv = [a for m in measures for a in ("-m", m)]
    _, ours, _ = run_ours(capsys, "-q", *argv, qrels, run)
    theirs = run_theirs(trec_eval, "-q", *argv, qrels, run)
    if "all_trec" in measures:  # trec_eval's all_trec has more measures
        names = {line.split("\t")[0].rstrip() for line in ours.splitlines()}
        assert lines_of(ours) == lines_of(theirs, names)
    else:
        assert lines_of(ours) == lines_of(theirs)


# --------------------------------------------------------------------------
# trec_eval's arithmetic, hand-worked
# --------------------------------------------------------------------------


def write(tmp_path, qrels_lines, run_lines):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(line + "\n" for line in qrels_lines))
    run.write_text("".join(line + "\n" for line in run_lines))
    return qrels, run


def test_mean_adds_queries_in_order(tmp_path, capsys):
    """Issue 24's example: 8 queries with P_20 = .05, 0, 0, 0, .05, .15,
    .05, .05. Added in order in double precision, then divided by 8, the
    mean is just below 0.04375 and trec_eval prints 0.0437 (numpy's
    pairwise sum gives 0.04375 exactly, printed 0.0438)."""
    relevant = [1, 0, 0, 0, 1, 3, 1, 1]
    qrels, run = [], []
    for q, n_rel in enumerate(relevant):
        for d in range(20):
            qrels.append(f"q{q} 0 d{d} {int(d < n_rel)}")
            run.append(f"q{q} Q0 d{d} {d + 1} {100 - d} t")
        qrels.append(f"q{q} 0 extra 1")  # every query has a relevant document
    total = 0.0
    for n_rel in relevant:
        total += n_rel / 20
    assert f"{total / 8:6.4f}" == "0.0437"  # the arithmetic of the test itself
    status, out, _ = run_ours(capsys, "-m", "P.20", *write(tmp_path, qrels, run))
    assert status == 0
    assert out == "P_20                  \tall\t0.0437\n"


def test_set_f_from_precision_and_recall(tmp_path, capsys):
    """Issue 24's example: 58 relevant documents, 6 retrieved of which 5
    relevant. trec_eval's 2PR/(P+R) from P = 5/6 and R = 5/58 in double
    precision prints 0.1563; the exact 2*5/(6+58) = 0.15625 would print
    0.1562."""
    qrels = [f"q 0 r{i} 1" for i in range(58)] + ["q 0 n0 0"]
    run = [f"q Q0 r{i} {i + 1} {10 - i} t" for i in range(5)]
    run.append("q Q0 n0 6 1 t")
    p, r = 5 / 6, 5 / 58
    assert f"{2 * p * r / (p + r):6.4f}" == "0.1563"
    status, out, _ = run_ours(capsys, "-q", "-m", "set_F", *write(tmp_path, qrels, run))
    assert status == 0
    assert out.splitlines()[0] == "set_F                 \tq\t0.1563"
    # set_F.x weights recall by x: (x + 1) P R / (x P + R).
    status, out, _ = run_ours(capsys, "-m", "set_F.0.5", *write(tmp_path, qrels, run))
    assert out == f"set_F_0.5             \tall\t{1.5 * p * r / (0.5 * p + r):6.4f}\n"


def test_utility_with_collection_size(tmp_path, capsys):
    """utility.a,b,c,d: a TP + b FP + c FN + d (N + TP - retrieved - |R|)."""
    qrels = ["q 0 a 1", "q 0 b 1", "q 0 c 0", "q 0 d 1"]
    run = ["q Q0 a 1 3 t", "q Q0 c 2 2 t", "q Q0 e 3 1 t"]  # TP 1, FP 2, FN 2
    files = write(tmp_path, qrels, run)
    _, out, _ = run_ours(capsys, "-N", "100", "-m", "utility.3,-1,-2,0.5", *files)
    expected = 3 * 1 - 1 * 2 - 2 * 2 + 0.5 * (100 + 1 - 3 - 3)
    assert out == f"utility_3,-1,-2,0.5   \tall\t{expected:6.4f}\n"
    _, out, _ = run_ours(capsys, "-m", "utility", *files)
    assert out == f"utility               \tall\t{1 - 2:6.4f}\n"


def test_max_retrieved_and_judged_only(tmp_path, capsys):
    """-M 2 keeps the first two documents in trec_eval's order (score
    descending, ties by docno descending); -J drops the unjudged ones
    first... after the cut, as trec_eval does."""
    qrels = ["q 0 a 1", "q 0 b 0", "q 0 c 1"]
    # trec_eval's order: u (3), then b and a tied at 2 (docno descending:
    # b first), then c (1).
    run = ["q Q0 a 1 2 t", "q Q0 b 2 2 t", "q Q0 c 3 1 t", "q Q0 u 4 3 t"]
    files = write(tmp_path, qrels, run)
    _, out, _ = run_ours(capsys, "-q", "-m", "relstring", "-m", "num_ret", *files)
    assert "'-011'" in out  # u unjudged, b 0, a 1, c 1 (as trec_eval prints)
    _, out, _ = run_ours(
        capsys, "-q", "-M", "2", "-m", "relstring", "-m", "num_ret", *files
    )
    assert "\t'-0'\n" in out and "num_ret               \tq\t2\n" in out
    _, out, _ = run_ours(capsys, "-q", "-J", "-m", "relstring", "-m", "P.1", *files)
    assert "\t'011'\n" in out and "P_1                   \tq\t0.0000\n" in out
    _, out, _ = run_ours(capsys, "-q", "-J", "-M", "2", "-m", "num_ret", *files)
    assert "num_ret               \tq\t1\n" in out  # u and b kept, u dropped


def test_gain_map_is_a_remapping_of_grades(tmp_path, capsys):
    """ndcg.1=3,2=9: grade 1 counts 3 and grade 2 counts 9, as if the
    qrels had those grades (gains above 1 apart: trec_eval's ideal is the
    true one)."""
    qrels = ["q 0 a 1", "q 0 b 2", "q 0 c 0"]
    run = ["q Q0 a 1 3 t", "q Q0 c 2 2 t", "q Q0 b 3 1 t"]
    mapped = ["q 0 a 3", "q 0 b 9", "q 0 c 0"]
    _, out, _ = run_ours(capsys, "-m", "ndcg.1=3,2=9", *write(tmp_path, qrels, run))
    _, same, _ = run_ours(capsys, "-m", "ndcg", *write(tmp_path, mapped, run))
    assert out.split("\t")[2] == same.split("\t")[2]
    assert out.startswith("ndcg_1=3,2=9          \tall\t")


def test_gzip_input_by_magic_bytes(tmp_path, capsys):
    qrels, run = helpers.trec_file("qrels.test"), helpers.trec_file("results.test")
    _, plain, _ = run_ours(capsys, "-q", "-m", "all_trec", qrels, run)
    zipped_qrels, zipped_run = tmp_path / "q.gz", tmp_path / "run.txt"
    zipped_qrels.write_bytes(gzip.compress(qrels.read_bytes()))
    zipped_run.write_bytes(gzip.compress(run.read_bytes()))  # no .gz: magic bytes
    status, out, _ = run_ours(capsys, "-q", "-m", "all_trec", zipped_qrels, zipped_run)
    assert status == 0 and out == plain


def test_broken_gzip_is_an_error(tmp_path, capsys):
    qrels = tmp_path / "qrels.gz"
    qrels.write_bytes(gzip.compress(b"q 0 a 1\n")[:12])
    run = tmp_path / "run"
    run.write_text("q Q0 a 1 1 t\n")
    status, _, err = run_ours(capsys, qrels, run)
    assert status == 1 and "not a readable gzip file" in err


def test_repeated_specs_on_regression_files(capsys):
    """Lines trec_eval 10.0 printed for these arguments on its regression
    files (qrels.test, results.test)."""
    files = helpers.trec_file("qrels.test"), helpers.trec_file("results.test")
    _, out, _ = run_ours(capsys, "-m", "P.5", "-m", "P.10", *files)
    assert out == "P_5                   \tall\t0.2667\n"
    _, out, _ = run_ours(capsys, "-m", "P", "-m", "P.5", *files)
    assert out == "P_5                   \tall\t0.2667\n"
    _, out, _ = run_ours(capsys, "-m", "iprec_at_recall.0.149,0.151", *files)
    assert out == (
        "iprec_at_recall_0.15  \tall\t0.3664\niprec_at_recall_0.15  \tall\t0.3186\n"
    )
    _, out, _ = run_ours(capsys, "-m", "set_F.0.5", "-m", "set_F", *files)
    assert out == "set_F_0.5             \tall\t0.1045\n"
    _, out, _ = run_ours(capsys, "-m", "utility.2,-1,0,0", *files)
    assert out == "utility_2,-1,0,0      \tall\t-369.0000\n"
    _, out, _ = run_ours(capsys, "-m", "rbp.p=0.9", "-m", "G.1=2", *files)
    assert out == (
        "rbp_p=0.9             \tall\t0.3234\nG_1=2                 \tall\t0.1240\n"
    )
    _, out, _ = run_ours(capsys, "-m", "Rndcg.1=2", "-m", "ndcg_rel.1=2", *files)
    assert out == (
        "Rndcg_1=2             \tall\t0.3232\nndcg_rel_1=2          \tall\t0.3682\n"
    )


def test_zscores_hand_worked(tmp_path, capsys):
    """-Z: (v - mean) / stddev per query and measure; 0 where stddev is 0
    and v is the mean, -1000000 where the file has no line (trec_eval's
    convert_zscores.c); the 'all' line averages the z-scores."""
    qrels = ["a 0 d1 1", "a 0 d2 0", "b 0 d1 1", "c 0 d1 1"]
    run = ["a Q0 d1 1 2 t", "a Q0 d2 2 1 t", "b Q0 d2 1 1 t", "c Q0 d1 1 1 t"]
    zfile = tmp_path / "z"
    zfile.write_text("a P_1 0.5 0.25\nb P_1 0 0\nc map 1 2\nzz P_1 0 1\n")
    files = write(tmp_path, qrels, run)
    status, out, _ = run_ours(capsys, "-q", "-Z", zfile, "-m", "P.1", *files)
    assert status == 0
    z = [(1 - 0.5) / 0.25, 0.0, -1000000.0]  # P_1 = 1, 0, 1
    assert out.splitlines() == [
        f"ZP_1                   \t{q}\t{v:6.4f}" for q, v in zip("abc", z)
    ] + [f"ZP_1                   \tall\t{sum(z) / 3:6.4f}"]


def test_zscores_as_trec_eval(trec_eval, tmp_path, capsys):
    qrels, run = generate(tmp_path, 4)
    rng = random.Random(0)
    qids = sorted({line.split()[0] for line in qrels.read_text().splitlines()})
    measures = ["map", "P_5", "num_ret", "gm_map", "ndcg_cut_10", "set_F"]
    lines = [
        f"{q} {m} {rng.uniform(0, 0.5):.3f} {rng.choice([0, 0.1, 0.3]):.3f}"
        for q in qids
        for m in measures
        if rng.random() < 0.8
    ]
    # A last query after every evaluated one: trec_eval's binary search
    # reads past its table for a query sorting after the file's last.
    lines.append("zzz map 0 1")
    zfile = tmp_path / "z"
    zfile.write_text("\n".join(lines) + "\n")
    argv = ["-q", "-Z", zfile, "-m", "map", "-m", "P.5", "-m", "num_ret",
            "-m", "gm_map", "-m", "ndcg_cut.10", "-m", "set_F", "-m", "num_q",
            qrels, run]  # fmt: skip
    _, ours, _ = run_ours(capsys, *argv)
    assert lines_of(ours) == lines_of(run_theirs(trec_eval, *argv))


def test_scores_read_as_c_reads_them(tmp_path):
    """Scores are read correctly rounded (Python's float, C's strtod): signs,
    exponents, long mantissas, subnormal and underflowing values; queries
    interleaved; the run's tag is its last line's."""
    from sklearn_rankk import read_trec_run

    rng = random.Random(0)
    texts = ["+1.5", "-0", "0.1", "1e-310", "1e-400", "-2.5E+3", "7", "+.5", "5.",
             "123456789012345678901", "0.30000000000000004441",
             "4.9406564584124654e-324"]  # fmt: skip
    for _ in range(300):
        mantissa = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 25)))
        point = rng.randint(0, len(mantissa))
        text = mantissa[:point] + "." + mantissa[point:]
        if rng.random() < 0.5:
            text += f"e{rng.randint(-330, 300)}"
        texts.append(rng.choice(["", "-", "+"]) + text)
    lines = [f"q{i % 3} Q0 d{i} 1 {t} tag{i}" for i, t in enumerate(texts)]
    path = tmp_path / "run"
    path.write_text("\n".join(lines) + "\n")
    run = read_trec_run(str(path))
    for i, text in enumerate(texts):
        assert run[f"q{i % 3}"][f"d{i}"] == float(text), text


def test_runid_is_the_last_lines_tag(tmp_path, capsys):
    qrels, run = write(
        tmp_path,
        ["a 0 d1 1", "b 0 d1 1"],
        ["a Q0 d1 1 1 first", "b Q0 d1 1 1 second", "# a comment", ""],
    )
    _, out, _ = run_ours(capsys, "-m", "runid", qrels, run)
    assert out == "runid                 \tall\tsecond\n"


def test_from_trec_max_retrieved_and_judged_only():
    """from_trec's -M and -J, hand-worked: the same cut as the command line."""
    from sklearn_rankk import from_trec

    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    # trec_eval's order: u (3), b and a tied at 2 (docno descending), c (1).
    run = {"q": {"a": 2.0, "b": 2.0, "c": 1.0, "u": 3.0}}
    y_true, y_score, _ = from_trec(qrels, run, max_retrieved=2, mark_unjudged=True)
    # u and b retrieved (by score); a and c judged, not retrieved.
    assert y_true.tolist() == [[-1, 0, 1, 1]]
    assert y_score.tolist() == [[3.0, 2.0, -np.inf, -np.inf]]
    y_true, y_score, _ = from_trec(qrels, run, judged_only=True)
    assert y_true.tolist() == [[1, 0, 1]] and y_score.tolist() == [[2.0, 2.0, 1.0]]
    y_true, _, _ = from_trec(qrels, run, judged_only=True, max_retrieved=2)
    assert y_true.tolist() == [[0, 1, 1]]  # u and b kept by -M, u dropped by -J
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="max_retrieved must be None or an"):
            from_trec(qrels, run, max_retrieved=bad)
