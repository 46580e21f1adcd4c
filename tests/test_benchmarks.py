"""The benchmark script runs through its sections (no timing is asserted).

``python benchmarks/run.py`` is the command docs/benchmarks.md names for
every figure it shows; a measure that refuses an input there must show as a
refusal in the table, not end the run.
"""

import importlib.machinery
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
        import builds
        import values

        yield ab, values, builds
    finally:
        sys.path.remove(str(BENCHMARKS))
        for name in ("ab", "values", "builds", "run"):
            sys.modules.pop(name, None)


def test_ab_keywords_parse_literals_and_words(bench_tools):
    ab, _, _ = bench_tools
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

    _, values, _ = bench_tools
    old = [
        ("a", np.array([1.0, np.nan])),
        ("b", np.array([2.0])),
        ("c", np.array([3.0])),
        ("z", np.array([0.0])),
    ]
    assert values.compare(old, [(k, v.copy()) for k, v in old], "old", "new")
    assert "0 differ, 0 calls on one side only" in capsys.readouterr().out
    changed = [
        ("a", np.array([1.0, np.nan])),
        ("b", np.array([2.0 + 4e-16])),
        ("d", np.zeros(1)),
        ("z", np.array([-0.0])),  # equal as floats, not bit for bit
    ]
    assert not values.compare(old, changed, "old", "new")
    out = capsys.readouterr().out
    assert "2 differ, 2 calls on one side only" in out
    assert "b: 1 of 1 differ" in out
    assert "z: 1 of 1 differ" in out
    assert "only in new: d" in out
    assert "only in old: c" in out
    assert "largest relative difference 2.22e-16" in out  # (one ulp of 2.0: 2**-52)
    # A call on one side only fails the comparison on its own.
    assert not values.compare(old, old[:-1], "old", "new")
    assert "0 differ, 1 calls on one side only" in capsys.readouterr().out


def test_values_compare_refuses_a_repeated_label(bench_tools):
    import numpy as np

    _, values, _ = bench_tools
    twice = [("a", np.zeros(1)), ("a", np.ones(1))]
    with pytest.raises(ValueError, match="repeats a label"):
        values.compare([("a", np.zeros(1))], twice, "old", "new")


def test_values_saved_and_loaded_alike(bench_tools, tmp_path):
    import numpy as np

    _, values, _ = bench_tools
    got = [
        ("x raises ValueError: no", np.array([np.nan])),
        ("y", np.arange(3.0)),
        ("z", np.ones(0)),
    ]
    values.save(tmp_path / "v.data", got)  # (no suffix added to the name)
    back = values.load(tmp_path / "v.data")
    assert [k for k, _ in back] == [k for k, _ in got]
    for (_, a), (_, b) in zip(got, back):
        np.testing.assert_array_equal(a, b)


def test_values_collect_covers_the_whole_ranking_and_refusals(bench_tools):
    import sklearn_rankk as rk

    _, values, _ = bench_tools
    got = values.collect(rk, shapes=[(3, 12, 1, 0.3, False, 0.1)])
    labels = [label for label, _ in got]
    assert len(set(labels)) == len(labels)
    for name in ("ndcg", "precision", "map"):
        assert any(
            label.startswith(f"{name} ") and "'k': None" in label for label in labels
        )
    assert any("ranking_report" in label for label in labels)
    assert any(
        label.startswith("bpref ") and "unjudged=0.1" in label for label in labels
    )
    assert any(
        label.startswith("ideal_dcg_at_k_score levels uint64") for label in labels
    )
    # A call that raises is kept, with its exception's name and message.
    refused = [label for label in labels if " raises " in label]
    assert all(": " in label.split(" raises ")[1] for label in refused)


def test_builds_refuse_what_is_not_another_checkout(bench_tools, tmp_path, capsys):
    _, _, builds = bench_tools
    with pytest.raises(SystemExit, match="not a checkout of sklearn_rankk"):
        builds.check_other(tmp_path)
    with pytest.raises(SystemExit, match="is this checkout"):
        builds.check_other(TREE)
    (tmp_path / "sklearn_rankk" / "_core").mkdir(parents=True)
    (tmp_path / "sklearn_rankk" / "__init__.py").write_text("")
    assert builds.check_other(tmp_path) == str(tmp_path)
    assert "no kernel built in place" in builds.stale(str(tmp_path))
    builds.warn_stale([str(tmp_path)])
    assert "warning: " in capsys.readouterr().err


BUILT_IN_PLACE = pytest.mark.skipif(
    not any(
        (TREE / "sklearn_rankk" / "_core" / f"_kernel{suffix}").exists()
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
    ),
    reason="no extension built in place in the checkout (an installed one is no tree)",
)


@BUILT_IN_PLACE
def test_ab_times_two_builds(bench_tools, tmp_path, capsys):
    import re
    import shutil

    ab, _, _ = bench_tools
    other = tmp_path / "other"
    shutil.copytree(TREE / "sklearn_rankk", other / "sklearn_rankk")
    ab.main(
        [str(other), "precision_at_k_score", "--quick", "--runs", "1", "--rounds", "2"]
    )
    out = capsys.readouterr().out
    assert "precision_at_k_score(k=10) on W1" in out
    rows = re.findall(
        r"^\| (\S+)(?: \(this checkout\))? \| [\d.]+ \| [\d.]+ \| [\d.]+ \|", out, re.M
    )
    assert len(rows) == 2, out
    assert re.search(
        r"this checkout / the other: [\d.]+ in time, [\d.]+ in ratio to F", out
    )


@BUILT_IN_PLACE
def test_ab_reports_a_missing_function_in_one_line(bench_tools, tmp_path):
    import shutil

    ab, _, _ = bench_tools
    other = tmp_path / "other"
    shutil.copytree(TREE / "sklearn_rankk", other / "sklearn_rankk")
    with pytest.raises(SystemExit, match="has no function 'ndcg_score_at_k'"):
        ab.main(
            [str(other), "ndcg_score_at_k", "--quick", "--runs", "1", "--rounds", "1"]
        )


def test_threshold_rules_simulates_each_rule(capsys):
    spec = importlib.util.spec_from_file_location(
        "benchmarks_threshold_rules", RUN_PY.parent / "threshold_rules.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--rows", "400"])
    rows = [
        line.split("|")[1:-1]
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("| ") and not line.startswith("| rule")
    ]
    assert [(r[0].strip(), int(r[1])) for r in rows] == [
        ("before", 38),
        ("gap", 38),
        ("gap", 20),
        ("average", 20),
        ("average", 23),
    ]
    # Where the rule estimates the wanted rank, a row keeps about that many.
    for rule, want, mean, _, _ in rows:
        if rule.strip() != "before":
            assert abs(float(mean) - int(want)) < 3, (rule, want, mean)
