"""The benchmark script runs through its sections (no timing is asserted).

``python benchmarks/run.py`` is the command docs/benchmarks.md names for
every figure it shows; a measure that refuses an input there must show as a
refusal in the table, not end the run.
"""

import importlib.util
from pathlib import Path

import pytest

RUN_PY = Path(__file__).resolve().parents[1] / "benchmarks" / "run.py"


@pytest.fixture(scope="module")
def run_py():
    spec = importlib.util.spec_from_file_location("benchmarks_run", RUN_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_heavy_ties_section_reports_a_refusal(run_py, capsys):
    # yaap's exact tie expectation on a row of 1,000 tied items needs more
    # than 2**20 placements: it raises ValueError, which the section shows.
    run_py.heavy_ties(quick=True, metrics=["yaap", "precision"])
    rows = {
        line.split("|")[1].strip(): [cell.strip() for cell in line.split("|")[2:-1]]
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("| ") and not line.startswith("| metric")
    }
    assert rows["yaap"] == ["raises (ties too many: ignore_ties=True)"] * 2
    assert len(rows["precision"]) == 2
    assert all(float(cell) >= 0.0 for cell in rows["precision"])


# benchmarks/ab.py and values.py: the A/B tools docs/benchmarks.md's figures
# of a change come from.
BENCHMARKS = RUN_PY.parent
TREE = BENCHMARKS.parent


@pytest.fixture(scope="module")
def bench_tools():
    import sys

    sys.path.insert(0, str(BENCHMARKS))
    try:
        import ab
        import values

        yield ab, values
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_ab_keywords_parse_literals_and_words(bench_tools):
    ab, _ = bench_tools
    assert ab.keywords(["k=10", "ignore_ties=True", "k2=(1, 5)", "average=micro"]) == {
        "k": 10,
        "ignore_ties": True,
        "k2": (1, 5),
        "average": "micro",
    }
    with pytest.raises(SystemExit, match="NAME=VALUE"):
        ab.keywords(["10"])


def test_values_compare_finds_every_kind_of_difference(bench_tools, capsys):
    import numpy as np

    _, values = bench_tools
    old = [
        ("a", np.array([1.0, np.nan])),
        ("b", np.array([2.0])),
        ("c", np.array([3.0])),
    ]
    assert values.compare(old, [(k, v.copy()) for k, v in old], "old", "new")
    assert "0 differ" in capsys.readouterr().out
    changed = [
        ("a", np.array([1.0, np.nan])),
        ("b", np.array([2.0 + 4e-16])),
        ("d", np.zeros(1)),
    ]
    assert not values.compare(old, changed, "old", "new")
    out = capsys.readouterr().out
    assert "1 differ" in out
    assert "b: 1 of 1 differ" in out
    assert "only in new: d" in out
    assert "only in old: c" in out
    assert "largest relative difference 2.22e-16" in out  # (one ulp of 2.0: 2**-52)


def test_values_compare_refuses_a_repeated_label(bench_tools):
    import numpy as np

    _, values = bench_tools
    twice = [("a", np.zeros(1)), ("a", np.ones(1))]
    with pytest.raises(ValueError, match="repeats a label"):
        values.compare([("a", np.zeros(1))], twice, "old", "new")


def test_values_saved_and_loaded_alike(bench_tools, tmp_path):
    import numpy as np

    _, values = bench_tools
    got = [
        ("x raises ValueError", np.array([np.nan])),
        ("y", np.arange(3.0)),
        ("z", np.ones(0)),
    ]
    values.save(tmp_path / "v.data", got)  # (no suffix added to the name)
    back = values.load(tmp_path / "v.data")
    assert [k for k, _ in back] == [k for k, _ in got]
    for (_, a), (_, b) in zip(got, back):
        np.testing.assert_array_equal(a, b)


@pytest.mark.skipif(
    not list((TREE / "sklearn_rankk" / "_core").glob("_kernel*.so"))
    and not list((TREE / "sklearn_rankk" / "_core").glob("_kernel*.pyd")),
    reason="no extension built in place in the checkout (an installed one is no tree)",
)
def test_ab_runs_a_tree_against_itself(bench_tools, capsys):
    ab, _ = bench_tools
    ab.main(
        [
            str(TREE),
            "precision_at_k_score",
            "--kw",
            "k=5",
            "--quick",
            "--runs",
            "1",
            "--rounds",
            "1",
        ]
    )
    out = capsys.readouterr().out
    assert "precision_at_k_score(k=5) on W1" in out
    assert out.count("| ") >= 4  # the header and a line per build
    assert "this checkout / the other:" in out
