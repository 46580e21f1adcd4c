"""Run a script against another checkout's build of sklearn_rankk.

ab.py and values.py compare this checkout with another one (a git worktree
of an older commit, say, with its extension built in place: ``git worktree
add /tmp/old <commit> && cd /tmp/old && python setup.py build_ext
--inplace``, with Cython installed; see docs/user_guide/performance.rst).
Each build is imported in a process of its own, started by `run_child`;
the child calls `use_tree` before importing the package.
"""

from __future__ import annotations

import glob
import importlib.machinery
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
THIS_TREE = os.path.dirname(HERE)
BUILD_HINT = "build it in place: cd {} && python setup.py build_ext --inplace"


def check_other(tree):
    """The other checkout's absolute path; exits with a message when it is
    not a checkout of sklearn_rankk, or is this one."""
    tree = os.path.abspath(tree)
    if not os.path.isfile(os.path.join(tree, "sklearn_rankk", "__init__.py")):
        raise SystemExit(
            f"{tree} is not a checkout of sklearn_rankk (no sklearn_rankk/)"
        )
    if os.path.realpath(tree) == os.path.realpath(THIS_TREE):
        raise SystemExit(f"{tree} is this checkout: give another one to compare with")
    return tree


def kernels(tree):
    """The compiled kernels built in place in ``tree`` for this Python."""
    core = os.path.join(tree, "sklearn_rankk", "_core")
    return [
        path
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
        for path in glob.glob(os.path.join(core, "_kernel" + suffix))
    ]


def stale(tree):
    """A warning (or None) when a kernel source of ``tree`` is newer than its
    compiled kernel: the build would not be what the files say."""
    built = kernels(tree)
    if not built:
        return (
            f"{tree} has no kernel built in place for this Python: "
            + BUILD_HINT.format(tree)
        )
    core = os.path.join(tree, "sklearn_rankk", "_core")
    sources = [
        path
        for pattern in ("*.pyx", "*.pxi", "*.hpp", "*.h", "*.cc", "*.cpp")
        for path in glob.glob(os.path.join(core, pattern))
        if not path.endswith("_kernel.cpp")  # (Cython's output)
    ]
    oldest = min(os.path.getmtime(path) for path in built)
    newer = [os.path.basename(p) for p in sources if os.path.getmtime(p) > oldest]
    if newer:
        return (
            f"{tree}: {', '.join(sorted(newer)[:3])} newer than its kernel: "
            + BUILD_HINT.format(tree)
        )
    return None


def warn_stale(trees):
    """Print stale()'s warning, to stderr, for each of ``trees`` that has one."""
    for tree in trees:
        warning = stale(tree)
        if warning:
            print(f"warning: {warning}", file=sys.stderr)


def use_tree(tree):
    """Import sklearn_rankk from ``tree`` (a checkout) in this process.

    Put ``tree`` first on ``sys.path`` and drop the import hooks that serve
    sklearn_rankk from elsewhere (an editable install's); then check that
    the package imported is the tree's.
    """
    tree = os.path.abspath(tree)

    def serves_package(finder):
        if finder is importlib.machinery.PathFinder or not hasattr(finder, "find_spec"):
            return False
        try:
            return finder.find_spec("sklearn_rankk", None) is not None
        except Exception:  # noqa: BLE001 (a hook that cannot answer serves nothing)
            return False

    sys.meta_path[:] = [
        finder for finder in sys.meta_path if not serves_package(finder)
    ]
    sys.path.insert(0, tree)
    try:
        import sklearn_rankk
    except ImportError as error:
        raise SystemExit(
            f"sklearn_rankk does not import from {tree} ({error}); "
            + BUILD_HINT.format(tree)
        ) from None
    where = os.path.abspath(sklearn_rankk.__file__)
    if not where.startswith(tree + os.sep):
        raise SystemExit(f"sklearn_rankk was imported from {where}, not from {tree}")
    return sklearn_rankk


def describe(tree):
    """The tree's commit, short, with ``+changes`` when its files (tracked or
    not, ignored ones aside) differ from it."""
    try:
        head = subprocess.run(
            ["git", "-C", tree, "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", tree, "status", "--porcelain"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return os.path.abspath(tree)
    return head + ("+changes" if dirty else "")


def run_child(script, tree, args):
    """Run ``script --child TREE ARGS`` in a fresh interpreter; its JSON answer.

    The child prints one JSON object on its last line of output; when it
    fails, exits with the end of what it wrote to stderr.
    """
    cmd = [sys.executable, os.path.join(HERE, script), "--child", tree, *args]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=HERE)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-3:])
        raise SystemExit(f"the build at {tree} failed:\n{tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])
