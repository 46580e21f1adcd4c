"""Sphinx configuration of the sklearn_rankk documentation.

Build (from the repository root), warnings as errors::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The built pages need no network: the formulas are typeset by a copy of
MathJax 3 that the ``sphinx-mathjax-offline`` extension (a ``docs`` extra)
puts in ``_static/mathjax``. One switch, off by default because the machines
that build these docs (developers', CI's) reach no site but the package
registries:

* ``SKLEARN_RANKK_DOCS_INTERSPHINX=1`` links names of numpy, scipy,
  scikit-learn and matplotlib to their documentation. It downloads their
  inventories, so it needs the network; without it those names are shown
  as code, unlinked, and the build gives no warning.

``python docs/check_pages.py OUT`` checks a few built pages in headless
Chromium (formulas typeset, nothing wider than the page) and saves
screenshots in ``OUT``.
"""

import os
from pathlib import Path

import sklearn_rankk
from sklearn_rankk._core.registry import METRICS

HERE = Path(__file__).resolve().parent

project = "sklearn_rankk"
author = "the sklearn_rankk developers"
copyright = "the sklearn_rankk developers"
release = sklearn_rankk.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # MathJax 3 served with the pages (mathjax_path set by the extension), so
    # that formulas render offline; no CDN.
    "sphinx-mathjax-offline",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
    "matplotlib.sphinxext.plot_directive",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "README.md", "sg_execution_times.rst"]
default_role = "literal"
# The docstrings write the number of relevant items as |R|, which reST would
# read as a substitution: define it as itself.
rst_prolog = r"""
.. |R| replace:: \|R\|
"""

# -- API reference --------------------------------------------------------
# The metric functions are listed from the metric registry: api.rst includes
# this file, written here at every build (not a source page of its own).
METRIC_LIST = "metric_functions.rst"
(HERE / METRIC_LIST).write_text(
    ".. currentmodule:: sklearn_rankk\n\n.. autosummary::\n   :toctree: generated/\n\n"
    + "".join(f"   {metric.function_name}\n" for metric in METRICS.values()),
    encoding="utf-8",
)
exclude_patterns.append(METRIC_LIST)
# Pages with autosummary lists (an included file is not scanned with its page).
autosummary_generate = ["api.rst", METRIC_LIST]
# Properties of the public classes, for the class template (autosummary's own
# "attributes" also lists dataclass and NamedTuple fields, which the class
# docstrings document in their Attributes section).
autosummary_context = {
    "class_properties": {
        name: sorted(
            member
            for member, value in vars(getattr(sklearn_rankk, name)).items()
            if isinstance(value, property) and not member.startswith("_")
        )
        for name in sklearn_rankk.__all__
        if isinstance(getattr(sklearn_rankk, name), type)
    }
}
autodoc_typehints = "none"
autodoc_default_options = {"members": False, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# -- Links to other projects (opt-in: needs the network) ---------------------
intersphinx_mapping = {}
if os.environ.get("SKLEARN_RANKK_DOCS_INTERSPHINX") == "1":
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable", None),
        "scipy": ("https://docs.scipy.org/doc/scipy", None),
        "sklearn": ("https://scikit-learn.org/stable", None),
        "matplotlib": ("https://matplotlib.org/stable", None),
    }

# -- Gallery --------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    # Every script is an example (they also run as plain scripts).
    "filename_pattern": r"\.py$",
    "ignore_pattern": r"__init__\.py",
    "doc_module": ("sklearn_rankk",),
    "backreferences_dir": "generated/backreferences",
    "reference_url": {"sklearn_rankk": None},
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "show_memory": False,
    "min_reported_time": 5,
    # No execution-times page: it loads jQuery and DataTables from CDNs, so
    # it would be the one page that needs the network.
    "write_computation_times": False,
    "abort_on_example_error": True,
}

# -- Figures drawn at build time (plot directive) ---------------------------
plot_include_source = False
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 120)]
plot_rcparams = {"figure.autolayout": True, "font.size": 11}

# -- HTML -------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"sklearn_rankk {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_js_files = ["break_names.js"]  # names break after "_", not mid-word
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    # The gallery examples have no in-page contents column: their code and
    # printed output get the width of ruff's 88-character lines. (Page names,
    # not a second wildcard, which the theme would warn about.)
    "secondary_sidebar_items": {
        "**": ["page-toc"],
        **{f"auto_examples/{p.stem}": [] for p in HERE.parent.glob("examples/*.py")},
    },
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "changelog": []}

# MyST: $...$ and $$...$$ math in the Markdown pages.
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3


# -- Workarounds ------------------------------------------------------------
def _no_email_links(app, doctree):
    """reST turns metric names such as nDCG@10 into e-mail links: undo that.

    The documentation has no e-mail address, so every ``mailto:`` reference
    is a metric name, shown as plain text.
    """
    from docutils import nodes

    for ref in list(doctree.findall(nodes.reference)):
        if ref.get("refuri", "").startswith("mailto:"):
            ref.replace_self(nodes.Text(ref.astext()))


def setup(app):
    app.connect("doctree-read", _no_email_links)
