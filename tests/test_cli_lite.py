"""The command line evaluates TREC files without numpy (issue 24 item 2).

trec_eval's regression commands, plain measures and ``--help`` run without
importing numpy, scikit-learn, scipy or pandas; the numpy-free path and the
engine's numpy path (still taken for gain maps, discount tables and inputs
that are not files) print the same bytes on trec_eval's regression files
and on generated files, with every option.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import helpers
import pytest

from sklearn_rankk._io import cli

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("numpy", "sklearn", "scipy", "pandas")


def _modules_after_cli(argv):
    """(exit status, stdout, the heavy modules imported) of the command line
    run as the console script runs it, in a fresh interpreter."""
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['sklearn-rankk', *{argv!r}]\n"
        "try:\n"
        "    runpy.run_module('sklearn_rankk', run_name='__main__')\n"
        "except SystemExit as exc:\n"
        "    status = exc.code\n"
        "sys.stdout.flush()\n"
        f"print('HEAVY', sorted(m for m in {HEAVY!r} if m in sys.modules), status)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    out, _, last = done.stdout.rstrip("\n").rpartition("\n")
    assert last.startswith("HEAVY "), done.stdout[-300:]
    return last, out + "\n"


def _regression(name):
    return str(helpers.trec_file(name))


REGRESSION = {
    "out.test.aq": ["-m", "all_trec", "-q", "qrels.test", "results.test"],
    "out.test.aql": [
        "-m",
        "all_trec",
        "-mrelstring.20",
        "-q",
        "-l2",
        "qrels.rel_level",
        "results.test",
    ],
}


@pytest.mark.parametrize("expected", sorted(REGRESSION))
def test_regression_commands_import_no_numpy(expected):
    """trec_eval's two regression commands: its output byte for byte, and
    numpy never imported."""
    argv = [
        _regression(a) if a.endswith((".test", ".rel_level")) else a
        for a in REGRESSION[expected]
    ]
    last, out = _modules_after_cli(argv)
    assert last == "HEAVY [] 0"
    assert out == helpers.trec_file(expected).read_text()


@pytest.mark.parametrize(
    "argv",
    [
        ["-m", "map", "-m", "ndcg_cut.10"],
        ["-q", "-c", "-m", "P.5,10", "-m", "set_F.0.5", "-m", "gm_map"],
        ["-q", "-m", "nDCG@10", "-m", "P(rel=2)@5", "-m", "NumRet(rel=1)"],
    ],
)
def test_plain_measures_import_no_numpy(argv):
    files = [_regression("qrels.test"), _regression("results.test")]
    last, out = _modules_after_cli([*argv, *files])
    assert last == "HEAVY [] 0"
    assert "\tall\t" in out


def test_help_imports_no_numpy():
    last, out = _modules_after_cli(["--help"])
    assert last == "HEAVY [] 0"
    assert out.startswith("usage: sklearn-rankk")


def test_gain_map_takes_the_numpy_path():
    """A gain map needs the engine's numpy path: the same command line."""
    files = [_regression("qrels.rel_level"), _regression("results.test")]
    last, _ = _modules_after_cli(["-m", "ndcg.1=3,2=9", *files])
    assert last.startswith("HEAVY ['numpy'") and last.endswith(" 0")


def _both_paths(monkeypatch, capsys, argv):
    """(status, stdout, stderr) of the numpy-free path and the numpy path."""
    found = []
    for lite in (True, False):
        monkeypatch.setattr(cli, "_LITE", lite)
        status = cli.main([str(a) for a in argv])
        out, err = capsys.readouterr()
        found.append((status, out, err))
    return found


@pytest.mark.parametrize("expected", sorted(REGRESSION))
def test_both_paths_on_the_regression_files(monkeypatch, capsys, expected):
    argv = [
        _regression(a) if a.endswith((".test", ".rel_level")) else a
        for a in REGRESSION[expected]
    ]
    lite, full = _both_paths(monkeypatch, capsys, argv)
    assert lite == full
    assert lite[1] == helpers.trec_file(expected).read_text()


def _generate(folder, seed):
    """A qrels file and a run with tied scores, graded and negative grades,
    unjudged documents, relevant documents not retrieved, queries of the run
    without judgments and queries of the qrels without results."""
    return helpers.random_trec_files(
        folder,
        seed,
        max_queries=9,
        doc_ids=150,
        draws=50,
        max_extra_judged=6,
        grades=[0, 0, 1, 1, 2, 3, 12, -1, -3],
        not_retrieved=0.15,
        tops=[1, 3, 1000],
        divisors=[1, 3],
        tag=f"t{seed}",
    )


OPTIONS = [
    ["-q"],
    ["-q", "-c"],
    ["-q", "-l2"],
    ["-q", "-c", "-l3", "-M", "4"],
    ["-q", "-J"],
    ["-q", "-J", "-M", "7", "-c"],
    ["-q", "-n", "-N", "500"],
    ["--ties", "average", "-q"],
    ["-q", "-Z", "ZSCORES"],
]
MEASURES = [
    ["all_trec"],
    ["all_trec", "relstring.20"],
    ["official"],
    ["map", "ndcg_cut.10", "P.1,3", "recall", "iprec_at_recall.0.149,0.151"],
    ["set_F.0.5", "utility.2,-1,0.5,1", "Rndcg", "gm_bpref", "num_q", "runid"],
    ["11pt_avg.0.1,0.5", "Rprec_mult_0.50", "infAP", "bpref", "unj", "rbp.p=0.8"],
    ["nDCG@10", "P(rel=2)@5", "NumRet(rel=2)", "NumRel", "SetF(beta=0.5)", "AP"],
    ["ndcg@5", "map@10", "mrr@3", "hit@2", "ideal_dcg", "yaap", "G", "binG"],
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("options", OPTIONS, ids=" ".join)
def test_both_paths_on_generated_files(monkeypatch, capsys, tmp_path, seed, options):
    qrels, run = _generate(tmp_path, seed)
    zscores = tmp_path / "zscores"
    zscores.write_text(
        "100 map 0.2 0.1\n101 map 0.3 0\n100 P_5 0.1 0.05\n102 num_ret 10 2\n"
        "100 gm_bpref 0.2 0.5\n101 set_F_0.5 0.2 0.3\n"
    )
    options = [str(zscores) if o == "ZSCORES" else o for o in options]
    for measures in MEASURES:
        argv = [*options, *(a for m in measures for a in ("-m", m)), qrels, run]
        lite, full = _both_paths(monkeypatch, capsys, argv)
        assert lite == full, argv
        # (yaap's exact expectation over large tie groups is refused, by both)
        assert lite[0] == 0 or "2**20 placements" in lite[2], (argv, lite[2])


def test_both_paths_on_a_bad_file(monkeypatch, capsys, tmp_path):
    """Errors are the same messages (the files are read by one reader)."""
    qrels, run = _generate(tmp_path, 0)
    for argv in ([run, qrels], [qrels, tmp_path / "missing"]):
        lite, full = _both_paths(monkeypatch, capsys, ["-m", "map", *argv])
        assert lite == full
        assert lite[0] == 1


def test_kernel_request_sets_every_field_of_the_kernel():
    """One builder of the kernel's request fields for both paths: every
    field of the kernel's structured dtype, its recall levels held."""
    from sklearn_rankk._core import _kernel
    from sklearn_rankk._core.registry import METRICS
    from sklearn_rankk._core.requests import kernel_request, make_request

    request = make_request(
        METRICS["eleven_point_precision"], None, {"recall_levels": [0.25, 0.75]}
    )
    held = []
    fields, width = kernel_request(request, 10, 3, held)
    assert list(fields) == list(_kernel.REQUEST_DTYPE.names)
    assert (fields["col"], width, fields["formula"]) == (3, 1, _kernel.ELEVEN_PT)
    assert [list(a) for a in held] == [[0.25, 0.75]]
    assert (fields["levels"], fields["n_levels"]) == held[0].buffer_info()
    assert fields["gain_grades"] == fields["disc"] == fields["n_gain"] == 0
