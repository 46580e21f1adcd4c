"""The examples in docs/examples run and print what they promise."""

import runpy
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("digits_ranking.py", ["hit@3", "MRR@10", "constant (random baseline)"]),
        ("grid_search_ndcg.py", ["picked by accuracy", "picked by ndcg@5"]),
    ],
)
def test_example_runs(script, expected, capsys):
    runpy.run_path(str(EXAMPLES / script), run_name="__main__")
    out = capsys.readouterr().out
    for text in expected:
        assert text in out
