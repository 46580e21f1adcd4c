"""The README's code runs as pasted (issue 28).

Every ```python block of README.md runs on its own, in a fresh namespace,
from the repository root; a block that imports an optional peer (lightgbm,
xgboost, ...) is skipped, with the reason, where that peer is missing. A line
``expression  # 0.25`` (or ``# array([0.5, 0. ])``) states the value the
expression has: it is checked, to the digits shown. The ```console block of
the command line runs too, and must print what the README shows.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _blocks(language):
    """(line number, code) of each fenced block of ``language``."""
    text = README.read_text(encoding="utf-8")
    pattern = re.compile(rf"^```{language}\n(.*?)^```$", re.S | re.M)
    return [
        (text.count("\n", 0, m.start()) + 1, m.group(1)) for m in pattern.finditer(text)
    ]


PYTHON = _blocks("python")
CONSOLE = _blocks("console")


def test_the_readme_has_its_blocks():
    assert len(PYTHON) >= 6
    assert len(CONSOLE) >= 1


def _missing_peers(code):
    """Top-level modules the block imports that are not installed."""
    modules = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules.add(node.module.split(".")[0])
    return sorted(m for m in modules if importlib.util.find_spec(m) is None)


def _stated_value(line):
    """The value a line's comment states (``# 0.25``, ``# array([...])``)."""
    comment = line.partition("  # ")[2]
    number = re.match(r"-?\d+(?:\.\d+)?(?![\w.])", comment)
    if number:
        return float(number.group()), len(number.group().partition(".")[2])
    array = re.match(r"array\((\[.*?\])\)", comment)
    if array:
        values = ast.literal_eval(re.sub(r"(\d)\.(?=[,\] ])", r"\1.0", array.group(1)))
        digits = max(
            len(v.partition(".")[2]) for v in re.findall(r"-?[\d.]+", array.group(1))
        )
        return np.array(values, dtype=float), digits
    return None


@pytest.mark.parametrize(("line", "code"), PYTHON, ids=[f"line{n}" for n, _ in PYTHON])
def test_python_block_runs_as_pasted(line, code, monkeypatch):
    missing = _missing_peers(code)
    if missing:
        pytest.skip(f"README block at line {line} needs {', '.join(missing)}")
    monkeypatch.chdir(ROOT)
    lines = code.splitlines()
    namespace = {"__name__": "__readme__"}
    tree = ast.parse(code)
    ast.increment_lineno(tree, line)  # warnings and tracebacks: README lines
    for statement in tree.body:
        source = ast.Module(body=[statement], type_ignores=[])
        if isinstance(statement, ast.Expr):
            value = eval(  # noqa: S307 - the README's own code
                compile(ast.Expression(statement.value), "README.md", "eval"),
                namespace,
            )
            stated = _stated_value(lines[statement.end_lineno - line - 1])
            if stated is not None:
                expected, digits = stated
                np.testing.assert_array_equal(
                    np.round(np.asarray(value, dtype=float), digits),
                    expected,
                    err_msg=f"README.md line {statement.lineno}",
                )
        else:
            exec(compile(source, "README.md", "exec"), namespace)  # noqa: S102


def test_the_tour_states_its_values():
    # The first block is the tour: its comments are numbers, all checked.
    _, code = PYTHON[0]
    assert sum(_stated_value(row) is not None for row in code.splitlines()) >= 6


@pytest.mark.parametrize(
    ("line", "block"), CONSOLE, ids=[f"line{n}" for n, _ in CONSOLE]
)
def test_console_block_prints_what_the_readme_shows(line, block):
    cwd = ROOT
    commands = []  # (command, expected output lines)
    for row in block.splitlines():
        if row.startswith("$ "):
            command = shlex.split(row[2:], comments=True)
            if command[0] == "cd":
                cwd = cwd / command[1]
                continue
            commands.append((command, []))
        else:
            commands[-1][1].append(row)
    assert commands, f"README line {line}: no command"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])}
    for command, expected in commands:
        assert command[0] == "sklearn-rankk"
        done = subprocess.run(
            [sys.executable, "-m", "sklearn_rankk", *command[1:]],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == expected
