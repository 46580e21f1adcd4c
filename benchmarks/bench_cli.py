"""The command line against trec_eval and pytrec_eval on a large TREC run.

Generates a run of ``--queries`` x ``--docs`` lines (1,000 x 1,000 = 1M by
default, tied scores included) and ``--qrels-per-query`` judgments per
query (100: 100,000 lines), then times, each in a fresh process:

- ``sklearn-rankk`` (``python -m sklearn_rankk``) of this checkout;
- ``trec_eval``, found on PATH or given with ``--trec-eval`` (build it from
  usnistgov/trec_eval with ``make``; with ``-O2`` for a fair comparison);
  a one-line reason is printed when there is none;
- ``pytrec_eval`` (pytrec-eval-terrier) reading the same files, if installed.

First, start-up on trec_eval's small regression files: the median wall
time of ``--startup-runs`` runs (10) of both of trec_eval's regression
commands, of ``-m map -m ndcg_cut.10`` and of ``--help``, for this checkout
(and, with ``--baseline FOLDER``, another checkout, e.g. main, run from
that folder; with ``--installed PYTHON``, the package installed in another
environment), trec_eval and Python itself, and the total of ``python -X
importtime`` (the sum of every module's own import time).

For each measure set (``-m all_trec`` and ``-m map -m ndcg_cut.10``) it
prints the best wall time of ``--repeat`` runs (with the CPU time of that
run) and the peak resident memory of the process, and checks that
sklearn-rankk's output equals trec_eval's byte for byte (lines of measures
both compute, per query with -q).

Usage::

    python benchmarks/bench_cli.py [--trec-eval PATH] [--repeat 3]
        [--baseline /work/main] [--installed VENV/bin/python] [--startup-only]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MEASURE_SETS = {
    "all_trec": ["-m", "all_trec"],
    "map+ndcg_cut.10": ["-m", "map", "-m", "ndcg_cut.10"],
}

PYTREC = """
import sys, pytrec_eval
qrels_path, run_path, *measures = sys.argv[1:]
with open(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(run_path) as f:
    run = pytrec_eval.parse_run(f)
names = pytrec_eval.supported_measures if measures == ["all_trec"] else set(measures)
result = pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)
print(len(result), file=sys.stderr)
"""


def generate(folder, n_queries, n_docs, n_judged, seed=0):
    """qrels and run files as a TREC collection has them: each query's
    documents drawn from a collection of 5 million docnos (so that few repeat
    across queries), scores rounded to 2 decimals (ties), grades 0-3; 60% of
    the judged documents retrieved, the rest not."""
    rng = np.random.default_rng(seed)
    qrels, run = folder / "qrels", folder / "run"
    with open(run, "w") as f_run, open(qrels, "w") as f_qrels:
        for q in range(n_queries):
            docs = rng.choice(5_000_000, n_docs, replace=False)
            scores = np.round(rng.normal(size=n_docs), 2)
            f_run.write(
                "".join(
                    f"{q} Q0 D{d:07d} {r + 1} {s} bench\n"
                    for r, (d, s) in enumerate(zip(docs.tolist(), scores.tolist()))
                )
            )
            n_in = min(int(0.6 * n_judged), n_docs)
            judged = np.concatenate(
                [
                    rng.choice(docs, n_in, replace=False),
                    rng.choice(5_000_000, n_judged - n_in, replace=False),
                ]
            )
            judged = np.unique(judged)
            grades = rng.choice([0, 0, 0, 1, 2, 3], judged.shape[0])
            f_qrels.write(
                "".join(
                    f"{q} 0 D{d:07d} {g}\n"
                    for d, g in zip(judged.tolist(), grades.tolist())
                )
            )
    return qrels, run


class _Popen(subprocess.Popen):
    """Popen that keeps the child's peak resident memory (from wait4)."""

    _peak = _cpu = float("nan")

    def _try_wait(self, wait_flags):
        try:
            pid, status, usage = os.wait4(self.pid, wait_flags)
        except ChildProcessError:
            return self.pid, 0
        if pid:
            self._peak = usage.ru_maxrss / 2**10  # ru_maxrss: KiB on Linux
            self._cpu = usage.ru_utime + usage.ru_stime
        return pid, status


# GNU time measures the command as its own child: a child of this process
# would count this process's memory in its peak (Linux keeps the largest
# resident size across exec).
GNU_TIME = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None


def timed(command, repeat):
    """(best wall seconds, its CPU seconds, peak RSS MiB over the runs,
    stdout)."""
    best, cpu, peak, out = float("inf"), float("nan"), 0.0, b""
    for _ in range(repeat):
        wrapped = [GNU_TIME, "-f", "%M %U %S", *command] if GNU_TIME else command
        start = time.perf_counter()
        proc = _Popen(wrapped, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = proc.communicate()
        wall = time.perf_counter() - start
        if proc.returncode:
            raise RuntimeError(f"{command[0]} failed: {err.decode()[-500:]}")
        run_peak, run_cpu = proc._peak, proc._cpu
        if GNU_TIME:
            kib, user, system = err.decode().split()[-3:]
            run_peak, run_cpu = int(kib) / 2**10, float(user) + float(system)
        if wall < best:
            best, cpu = wall, run_cpu
        peak = max(peak, run_peak)
    return best, cpu, peak, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trec-eval", default=shutil.which("trec_eval"))
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--qrels-per-query", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", help="folder for the generated files (kept)")
    parser.add_argument("--startup-runs", type=int, default=10)
    parser.add_argument(
        "--baseline", help="another checkout (built) to time start-up against"
    )
    parser.add_argument(
        "--installed",
        help="the python of another environment with the package installed "
        "(a regular, not editable, install) to time start-up in too",
    )
    parser.add_argument(
        "--startup-only", action="store_true", help="skip the large files"
    )
    args = parser.parse_args()
    _startup(args.trec_eval, args.startup_runs, args.baseline, args.installed)
    if args.startup_only:
        return
    folder = Path(args.data or tempfile.mkdtemp(prefix="bench_cli_"))
    folder.mkdir(parents=True, exist_ok=True)
    qrels, run = generate(folder, args.queries, args.docs, args.qrels_per_query)
    n_run = args.queries * args.docs
    n_qrels = args.queries * args.qrels_per_query
    print(f"data: {n_run:,} run lines, {n_qrels:,} qrels lines in {folder}")
    ours = [sys.executable, "-m", "sklearn_rankk"]
    tools = {"sklearn-rankk": ours}
    if args.trec_eval:
        tools["trec_eval"] = [args.trec_eval]
    else:
        print("trec_eval: not timed (none on PATH; give --trec-eval PATH)")
    try:
        import pytrec_eval  # noqa: F401

        tools["pytrec_eval"] = None
    except ImportError:
        print("pytrec_eval: not timed (pip install pytrec-eval-terrier)")
    print(f"{'measures':<16} {'tool':<14} {'wall s':>8} {'CPU s':>7} {'peak MiB':>9}")
    for name, measures in MEASURE_SETS.items():
        outputs, figures = {}, {}
        for tool, command in tools.items():
            if tool == "pytrec_eval":
                wanted = ["all_trec"] if name == "all_trec" else ["map", "ndcg_cut.10"]
                command = [sys.executable, "-c", PYTREC, str(qrels), str(run), *wanted]
            else:
                command = [*command, "-q", *measures, str(qrels), str(run)]
            wall, cpu, peak, out = timed(command, args.repeat)
            outputs[tool] = out
            figures[tool] = (wall, cpu, peak)
            print(f"{name:<16} {tool:<14} {wall:>8.2f} {cpu:>7.2f} {peak:>9.0f}")
        if "trec_eval" in outputs:
            print(f"{'':<16} identical to trec_eval: {_same(outputs)}")
            ours, theirs = figures["sklearn-rankk"], figures["trec_eval"]
            print(
                f"{'':<16} sklearn-rankk / trec_eval: wall "
                f"{ours[0] / theirs[0]:.2f}, CPU {ours[1] / theirs[1]:.2f}, peak "
                f"memory {ours[2] / theirs[2]:.2f}"
            )


SMALL = {
    "-m all_trec -q qrels.test results.test (out.test.aq)": [
        "-q",
        "-m",
        "all_trec",
        "qrels.test",
    ],
    "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test (out.test.aql)": [
        "-q",
        "-m",
        "all_trec",
        "-mrelstring.20",
        "-l2",
        "qrels.rel_level",
    ],
    "-m map -m ndcg_cut.10 qrels.test results.test": [
        "-m",
        "map",
        "-m",
        "ndcg_cut.10",
        "qrels.test",
    ],
    "--help": ["--help"],
}


def _run(command, cwd=ROOT):
    """Wall seconds of one run (output discarded)."""
    start = time.perf_counter()
    subprocess.run(
        command,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    return time.perf_counter() - start


def _import_total(command, cwd):
    """Seconds of every module's own import time (``-X importtime``)."""
    done = subprocess.run(
        [command[0], "-X", "importtime", *command[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    total = 0
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            total += int(line.split(":", 1)[1].split("|")[0])
    return total / 1e6


def _startup(trec_eval, runs, baseline, installed):
    """trec_eval's regression commands, plain measures and --help on the
    small files: start-up dominates. Each program's runs are interleaved
    with the others' (the load of a shared machine changes), after one run
    not timed (which writes the bytecode cache, if it may)."""
    data = ROOT / "tests" / "data" / "trec_eval"
    programs = {"sklearn-rankk": ([sys.executable, "-m", "sklearn_rankk"], ROOT)}
    if baseline:
        programs[f"sklearn-rankk of {baseline}"] = (
            [sys.executable, "-m", "sklearn_rankk"],
            Path(baseline),
        )
    if installed:
        programs[f"sklearn-rankk installed ({installed})"] = (
            [installed, "-m", "sklearn_rankk"],
            Path(tempfile.gettempdir()),
        )
    cache = "off" if sys.dont_write_bytecode else "on"
    print(
        f"small files (tests/data/trec_eval): median wall s of {runs} runs, "
        f"interleaved; -X importtime total s; bytecode cache {cache} "
        f"(PYTHONDONTWRITEBYTECODE makes every run compile the package's "
        f"sources, as no installed package does)"
    )
    for what, args in SMALL.items():
        argv = [*args]
        if args[-1] != "--help":
            argv = [*args[:-1], str(data / args[-1]), str(data / "results.test")]
        commands = {name: ([*pre, *argv], cwd) for name, (pre, cwd) in programs.items()}
        if trec_eval and args[-1] != "--help":
            commands["trec_eval"] = ([trec_eval, *argv], ROOT)
        walls = {name: [] for name in commands}
        for command, cwd in commands.values():
            _run(command, cwd)
        for _ in range(runs):
            for name, (command, cwd) in commands.items():
                walls[name].append(_run(command, cwd))
        print(f"  {what}")
        for name, (command, cwd) in commands.items():
            imports = ""
            if name != "trec_eval":
                imports = f"   (importtime {_import_total(command, cwd):.3f})"
            print(f"    {name:<48} {statistics.median(walls[name]):>6.3f}{imports}")
    for code in ("pass", "import numpy"):
        wall = statistics.median(
            _run([sys.executable, "-c", code]) for _ in range(runs)
        )
        print(f"  {f'python -c {code!r}':<50} {wall:>6.3f}")


def _same(outputs):
    ours = outputs["sklearn-rankk"].decode().splitlines()
    names = {line.split("\t")[0].rstrip() for line in ours}
    theirs = [
        line
        for line in outputs["trec_eval"].decode().splitlines()
        if line.split("\t")[0].rstrip() in names
    ]
    return "yes" if sorted(ours) == sorted(theirs) else "NO"


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
