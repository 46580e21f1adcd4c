"""The examples in examples/ run and print what they promise."""

import runpy
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("digits_ranking.py", ["hit@3", "MRR@10", "constant (random baseline)"]),
        ("grid_search_ndcg.py", ["picked by accuracy", "picked by ndcg@5"]),
        (
            "compare_models.py",
            ["random ranking (expected)", "95% CI", "randomization", "p (holm)"],
        ),
    ],
)
def test_example_runs(script, expected, capsys):
    if script == "compare_models.py":
        plt = pytest.importorskip("matplotlib.pyplot")
        plt.switch_backend("Agg")
    runpy.run_path(str(EXAMPLES / script), run_name="__main__")
    if script == "compare_models.py":
        plt.close("all")
    out = capsys.readouterr().out
    for text in expected:
        assert text in out
