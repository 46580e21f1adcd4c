"""show_versions, and what the compiled kernel says about its own build."""

import os
import re

import numpy as np
import scipy
import sklearn

import sklearn_rankk
from sklearn_rankk import _show_versions as sv
from sklearn_rankk import num_threads, show_versions
from sklearn_rankk._core import _kernel
from sklearn_rankk._core.ranking import n_threads


def _sections(text):
    """{section title: {key: value}} from show_versions' output."""
    sections = {}
    for block in text.strip().split("\n\n"):
        title, *lines = block.splitlines()
        assert title.endswith(":"), block
        sections[title[:-1]] = dict(
            re.fullmatch(r"\s*(.+?): (.*)", line).groups() for line in lines
        )
    return sections


def test_show_versions_sections(capsys):
    show_versions()
    out = capsys.readouterr().out
    sections = _sections(out)
    assert list(sections) == ["System", "Python dependencies", "Build info"]
    system = sections["System"]
    assert list(system) == ["python", "executable", "machine"]
    deps = sections["Python dependencies"]
    assert deps["sklearn_rankk"] == sklearn_rankk.__version__
    assert deps["numpy"] == np.__version__
    assert deps["scipy"] == scipy.__version__
    assert deps["scikit-learn"] == sklearn.__version__
    assert "threadpoolctl" in deps
    build = sections["Build info"]
    assert build["OpenMP"] == str(_kernel.openmp_enabled())
    assert build["kernel threads"] == str(n_threads())
    assert build["compiler"] == _kernel.compiler()
    # keys are right-aligned within a section
    for block in out.strip().split("\n\n"):
        colons = {line.index(": ") for line in block.splitlines()[1:]}
        assert len(colons) == 1, block


def test_show_versions_follows_the_thread_setting(capsys):
    with num_threads(1):
        show_versions()
    assert _sections(capsys.readouterr().out)["Build info"]["kernel threads"] == "1"


def test_optional_packages_are_listed_only_when_installed(monkeypatch):
    monkeypatch.setattr(
        sv,
        "_OPTIONAL",
        (("not-a-package", ("sklearn-rankk-no-such-dist",)), ("numpy", ("numpy",))),
    )
    deps = sv._get_deps_info()
    assert "not-a-package" not in deps
    assert deps["numpy"] == np.__version__
    # a required dependency is always listed
    monkeypatch.setattr(sv, "_REQUIRED", (("gone", ("sklearn-rankk-no-such-dist",)),))
    assert sv._get_deps_info()["gone"] is None


def test_kernel_build_is_consistent():
    # CI sets SKLEARN_RANKK_EXPECT_OPENMP for the builds it makes (.ci/run's
    # serial build, the wheels): the tests ran against the intended kernel.
    expected = os.environ.get("SKLEARN_RANKK_EXPECT_OPENMP")
    if expected is not None:
        assert _kernel.openmp_enabled() is (expected == "1")
    assert isinstance(_kernel.openmp_enabled(), bool)
    assert isinstance(_kernel.compiler(), str) and _kernel.compiler()
    assert _kernel.max_threads() >= 1
    if not _kernel.openmp_enabled():
        # without OpenMP the kernel has one thread, whatever OMP_NUM_THREADS
        assert _kernel.max_threads() == 1
        assert n_threads() == 1
