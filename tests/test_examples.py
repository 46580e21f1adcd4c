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
        (
            "compare_systems.py",
            ["Holm", "0.9844+", "\\toprule", "\\textbf{0.9844}$^{+}$"],
        ),
        (
            "trec_files_command_line.py",
            [
                "system A: 30 queries",
                "ndcg_cut_10           \tall\t0.8408",
                "map                   \tall\t0.7462",
                "map over the whole run (trec_eval's map): 0.7462",
            ],
        ),
    ],
)
def test_example_runs(script, expected, capsys, monkeypatch):
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # digits_ranking.py and grid_search_ndcg.py skip the plot
        if script in (
            "compare_models.py",
            "compare_systems.py",
            "trec_files_command_line.py",
        ):
            pytest.skip(f"{script} needs matplotlib")
        plt = None
    if plt is not None:
        plt.switch_backend("Agg")
        # The examples end with plt.show(), as scripts do; Agg shows nothing.
        monkeypatch.setattr(plt, "show", lambda *args, **kwargs: None)
    runpy.run_path(str(EXAMPLES / script), run_name="__main__")
    if plt is not None:
        plt.close("all")
    out = capsys.readouterr().out
    for text in expected:
        assert text in out
