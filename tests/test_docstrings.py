"""Documentation checks: numpydoc validation, the API page, the pages' doctests.

* Every public name (``sklearn_rankk.__all__``) and every public method and
  property of a public class passes ``numpydoc.validate`` with one set of
  checks, the same for every object, with no per-object exceptions.
* Every public name has an Examples section (they run as doctests through
  pytest's ``--doctest-modules``).
* Every public name is listed on the API reference page, ``docs/api.rst``.
* The ``>>>`` examples of the documentation pages (``docs/``) run and print
  what the pages say; the worked numbers on them come from hand-worked
  examples (the metrics page's tables) and are checked here against the
  package.
"""

from __future__ import annotations

import doctest
import inspect
import re
from pathlib import Path

import pytest

import sklearn_rankk
from sklearn_rankk._core.registry import METRICS

numpydoc_validate = pytest.importorskip("numpydoc.validate")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

# numpydoc's checks, all of them except these global ones:
#   ES01  an extended summary: a one-line summary is enough for many names;
#   SA01  a See Also section: not every object has a natural neighbour;
#   RT02  numpydoc flags a *named* single return value ("score : float");
#         the numpydoc format allows the name, scikit-learn's docstrings use
#         it, and so do ours;
#   EX01  an Examples section on every object: replaced by the stricter
#         rule of test_every_public_name_has_examples for the public names
#         (methods and properties are shown in their class's Examples).
EXCLUDED_CHECKS = {"ES01", "SA01", "RT02", "EX01"}
CHECKS = numpydoc_validate.get_validation_checks({"all", *EXCLUDED_CHECKS})


def _is_namedtuple_field(value):
    # Fields of a NamedTuple are documented in the class's Attributes
    # section; their getters carry namedtuple's generated "Alias for field
    # number N" docstrings.
    return type(value).__name__ == "_tuplegetter"


def public_objects():
    """Dotted names of the public functions, classes, methods, properties."""
    names = []
    for name in sklearn_rankk.__all__:
        obj = getattr(sklearn_rankk, name)
        names.append(f"sklearn_rankk.{name}")
        if inspect.isclass(obj):
            for member, value in vars(obj).items():
                if member.startswith("_") or _is_namedtuple_field(value):
                    continue
                if isinstance(value, (classmethod, staticmethod)):
                    value = value.__func__  # from_estimator and the like
                if inspect.isfunction(value) or isinstance(value, property):
                    names.append(f"sklearn_rankk.{name}.{member}")
    return names


def numpydoc_failures():
    failures = []
    for name in public_objects():
        result = numpydoc_validate.validate(name)
        failures += [
            f"{name}: {code} {message}"
            for code, message in result["errors"]
            if code in CHECKS
        ]
    return failures


def test_public_objects_are_found():
    names = public_objects()
    assert "sklearn_rankk.ndcg_at_k_score" in names
    assert "sklearn_rankk.RankingReport.to_frame" in names
    assert "sklearn_rankk.RankingReport.lift" in names  # a property
    assert "sklearn_rankk.PrecisionRecallAtK.precision" not in names
    assert "sklearn_rankk.RankingCurveDisplay.from_estimator" in names


def test_numpydoc_validation():
    failures = numpydoc_failures()
    assert not failures, "numpydoc validation failed:\n" + "\n".join(failures)


def test_every_public_name_has_examples():
    missing = [
        name
        for name in sklearn_rankk.__all__
        if ">>>" not in (inspect.getdoc(getattr(sklearn_rankk, name)) or "")
        or "Examples\n--------" not in inspect.getdoc(getattr(sklearn_rankk, name))
    ]
    assert not missing, f"public names without an Examples section: {missing}"


def test_every_public_name_is_on_the_api_page():
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    # Entries of the autosummary lists: an indented bare name on its own line.
    listed = re.findall(r"^ {3}([A-Za-z_][A-Za-z_0-9]*)$", text, flags=re.MULTILINE)
    # The metric functions come from the registry, through docs/conf.py.
    assert ".. include:: metric_functions.rst" in text
    listed += [metric.function_name for metric in METRICS.values()]
    missing = sorted(set(sklearn_rankk.__all__) - set(listed))
    assert not missing, (
        f"add these public names to their group in docs/api.rst: {missing}"
    )
    unknown = sorted(set(listed) - set(sklearn_rankk.__all__))
    assert not unknown, f"docs/api.rst lists names that are not public: {unknown}"
    assert len(listed) == len(set(listed)), "a name is listed twice in docs/api.rst"


def doc_pages():
    skip = {"_build", "generated", "auto_examples", "_templates"}
    pages = [
        p
        for p in sorted(DOCS.rglob("*"))
        if p.suffix in {".rst", ".md"} and not skip & set(p.relative_to(DOCS).parts)
    ]
    return [p for p in pages if ">>>" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize(
    "page", doc_pages(), ids=lambda p: str(p.relative_to(DOCS)).replace("\\", "/")
)
def test_page_examples(page):
    parser = doctest.DocTestParser()
    text = page.read_text(encoding="utf-8")
    test = parser.get_doctest(text, {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    )
    report = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
    assert runner.tries > 0


def test_pages_with_worked_examples_are_tested():
    names = {p.name for p in doc_pages()}
    assert {"metrics.rst", "conventions.rst", "getting_started.rst"} <= names
