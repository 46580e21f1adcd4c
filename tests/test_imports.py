"""Start-up: ``import sklearn_rankk``, the command line and the TREC readers
import neither scikit-learn, scipy nor pandas; the names that need them are
imported on first use and stay what they were (sklearn's warning class)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import helpers
import numpy as np
import pytest

import sklearn_rankk

ROOT = Path(__file__).resolve().parent.parent
# joblib: the kernel's CPU count reads /sys on Linux, asks joblib elsewhere.
HEAVY = ("sklearn", "scipy", "pandas", "matplotlib") + (
    ("joblib",) if sys.platform == "linux" else ()
)


def _loaded_after(code):
    """The heavy modules loaded by ``code`` run in a fresh interpreter."""
    check = (
        f"{code}\nimport sys\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", check],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


def test_import_loads_no_heavy_module():
    assert _loaded_after("import sklearn_rankk") == "[]"


def test_trec_readers_load_no_heavy_module():
    qrels, run = helpers.trec_file("qrels.test"), helpers.trec_file("results.test")
    code = (
        "import sklearn_rankk\n"
        f"sklearn_rankk.from_trec({str(qrels)!r}, {str(run)!r})\n"
        f"sklearn_rankk.read_trec_qrels({str(qrels)!r})\n"
        f"sklearn_rankk.read_trec_run({str(run)!r})"
    )
    assert _loaded_after(code) == "[]"


def test_command_line_loads_no_heavy_module():
    """The CLI on trec_eval's regression files, every measure it knows."""
    qrels, run = helpers.trec_file("qrels.test"), helpers.trec_file("results.test")
    argv = ["-q", "-m", "all_trec", str(qrels), str(run)]
    code = (
        "import contextlib, io\n"
        "from sklearn_rankk._io.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    assert main({argv!r}) == 0\n"
        "assert out.getvalue().count('\\n') > 300"
    )
    assert _loaded_after(code) == "[]"


def test_module_entry_point_runs_without_heavy_modules():
    """``python -m sklearn_rankk --help`` with scikit-learn made unimportable."""
    code = (
        "import sys, runpy\n"
        "sys.modules['sklearn'] = sys.modules['scipy'] = sys.modules['pandas'] = None\n"
        "sys.argv = ['sklearn-rankk', '--help']\n"
        "try:\n"
        "    runpy.run_module('sklearn_rankk', run_name='__main__')\n"
        "except SystemExit as exc:\n"
        "    assert exc.code in (0, None), exc.code\n"
        "for m in ('sklearn', 'scipy', 'pandas'):\n"
        "    sys.modules.pop(m)"
    )
    assert _loaded_after(code) == "[]"


@pytest.mark.parametrize("name", sorted(sklearn_rankk.__all__))
def test_every_public_name_resolves(name):
    """Lazy names resolve on access and are listed by dir()."""
    assert getattr(sklearn_rankk, name) is not None
    assert name in dir(sklearn_rankk)


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        sklearn_rankk.not_a_name  # noqa: B018


def test_lazy_names_are_the_modules_objects():
    from sklearn_rankk import _scorer, _stats

    assert sklearn_rankk.get_scorer is _scorer.get_scorer
    assert sklearn_rankk.paired_test is _stats.paired_test


def test_warning_is_sklearns_class():
    """The warning users filter is scikit-learn's UndefinedMetricWarning,
    though scikit-learn is imported only when it is issued."""
    from sklearn.exceptions import UndefinedMetricWarning

    y_true = np.array([[0, 0, 0], [1, 0, 0]])
    y_score = np.array([[0.3, 0.2, 0.1], [0.3, 0.2, 0.1]])
    with pytest.warns(UndefinedMetricWarning, match="1 of 2 samples"):
        assert sklearn_rankk.recall_at_k_score(y_true, y_score, k=1) == 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        sklearn_rankk.recall_at_k_score(y_true, y_score, k=1)


def test_warning_class_loaded_only_when_warning():
    code = (
        "import numpy as np, sklearn_rankk\n"
        "sklearn_rankk.recall_at_k_score(np.eye(3), np.eye(3), k=1)\n"
        "import sys\n"
        "assert 'sklearn' not in sys.modules\n"
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    sklearn_rankk.recall_at_k_score(np.zeros((2, 3)), np.eye(2, 3), k=1)\n"
        "assert w[0].category.__module__ == 'sklearn.exceptions', w[0].category"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


@pytest.mark.skipif(sys.platform != "linux", reason="the Linux rule only")
def test_usable_cpus_without_joblib_is_joblibs_count():
    """The kernel's thread cap, read on Linux without importing joblib, is
    joblib's cpu_count(only_physical_cores=True)."""
    joblib = pytest.importorskip("joblib")
    from sklearn_rankk._core import ranking

    assert ranking._usable_cpus() == joblib.cpu_count(only_physical_cores=True)


@pytest.mark.skipif(sys.platform != "linux", reason="the Linux rule only")
def test_large_input_threads_load_no_heavy_module():
    """Inputs large enough for several threads ask for the CPU count, which
    reads /sys on Linux rather than importing joblib."""
    code = (
        "import numpy as np, sklearn_rankk\n"
        "rng = np.random.default_rng(0)\n"
        "y = rng.integers(0, 2, (400, 400)); s = rng.random((400, 400))\n"
        "sklearn_rankk.precision_at_k_score(y, s, k=5)"
    )
    assert _loaded_after(code) == "[]"


def test_an_unbuilt_source_tree_says_so(tmp_path):
    # The package's Python files without the compiled kernel, as in a clone
    # after `pip install .` (which builds elsewhere): the import names the
    # cause and the two ways out, not "cannot import name '_kernel'".
    source = Path(sklearn_rankk.__file__).parent
    shutil.copytree(
        source,
        tmp_path / "sklearn_rankk",
        ignore=shutil.ignore_patterns("*.so", "*.pyd"),
    )
    done = subprocess.run(
        [sys.executable, "-c", "import sklearn_rankk"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert "compiled kernel is missing" in last
    assert "pip install -e ." in last
