"""Run a script against another checkout's build of sklearn_rankk.

ab.py and values.py compare this checkout with another one (a git worktree
of an older commit, say, with its extension built in place: ``git worktree
add /tmp/old <commit> && cd /tmp/old && python setup.py build_ext
--inplace``, with Cython installed; see docs/user_guide/performance.rst).
Each build is imported in a process of its own, started by `run_child`;
the child calls `use_tree` before importing the package.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
THIS_TREE = os.path.dirname(HERE)


def use_tree(tree):
    """Import sklearn_rankk from ``tree`` (a checkout) in this process.

    Put ``tree`` first on ``sys.path`` and drop an editable install's import
    hook, which would otherwise serve the installed checkout; then check that
    the package imported is the tree's.
    """
    tree = os.path.abspath(tree)
    sys.meta_path[:] = [
        finder
        for finder in sys.meta_path
        if "editable" not in (type(finder).__module__ + repr(finder)).lower()
    ]
    sys.path.insert(0, tree)
    import sklearn_rankk

    where = os.path.abspath(sklearn_rankk.__file__)
    if not where.startswith(tree + os.sep):
        raise SystemExit(f"sklearn_rankk was imported from {where}, not from {tree}")
    return sklearn_rankk


def describe(tree):
    """The tree's commit, short, with ``+changes`` when its files differ."""
    try:
        head = subprocess.run(
            ["git", "-C", tree, "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", tree, "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return os.path.abspath(tree)
    return head + ("+changes" if dirty else "")


def run_child(script, tree, args):
    """Run ``script --child TREE ARGS`` in a fresh interpreter; its JSON answer.

    The child prints one JSON object on its last line of output.
    """
    cmd = [sys.executable, os.path.join(HERE, script), "--child", os.path.abspath(tree)]
    done = subprocess.run(cmd + list(args), capture_output=True, text=True, cwd=HERE)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd + list(args))} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])
