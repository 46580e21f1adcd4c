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
