"""show_versions: the system, the dependencies and how the kernel was built.

For bug reports, in the style of :func:`sklearn.show_versions`. Versions are
read from the installed packages' metadata, without importing them.
"""

from __future__ import annotations

import platform
import sys
from importlib.metadata import PackageNotFoundError, version

# (name shown, distribution names to look up: the first one installed wins)
_REQUIRED = (
    ("numpy", ("numpy",)),
    ("scipy", ("scipy",)),
    ("scikit-learn", ("scikit-learn",)),
    ("threadpoolctl", ("threadpoolctl",)),
    ("joblib", ("joblib",)),
)
_OPTIONAL = (
    ("pandas", ("pandas",)),
    ("matplotlib", ("matplotlib",)),
    ("dask", ("dask",)),
    ("distributed", ("distributed",)),
    ("pytrec_eval", ("pytrec-eval-terrier", "pytrec-eval")),
    ("lightgbm", ("lightgbm",)),
    ("xgboost", ("xgboost", "xgboost-cpu")),
    ("ranx", ("ranx",)),
)


def _version(distributions):
    for name in distributions:
        try:
            return version(name)
        except PackageNotFoundError:
            pass
    return None


def _get_sys_info():
    """Python, its executable and the machine."""
    return {
        "python": sys.version.replace("\n", " "),
        "executable": sys.executable,
        "machine": platform.platform(),
    }


def _get_deps_info():
    """Versions of sklearn_rankk, its dependencies and the optional packages.

    The required dependencies are always listed (None when missing); the
    optional ones only when installed.
    """
    info = {"sklearn_rankk": _version(("sklearn-rankk",))}
    for name, distributions in _REQUIRED:
        info[name] = _version(distributions)
    for name, distributions in _OPTIONAL:
        found = _version(distributions)
        if found is not None:
            info[name] = found
    return info


def _get_build_info():
    """How the compiled kernel was built, and the threads it uses by default."""
    from ._core import _kernel
    from ._core.ranking import n_threads

    return {
        "OpenMP": _kernel.openmp_enabled(),
        "kernel threads": n_threads(),
        "compiler": _kernel.compiler(),
    }


def show_versions():
    """Print the system, the dependency versions and how the kernel was built.

    Paste its output into bug reports. Three sections: System (Python, its
    executable, the machine), Python dependencies (sklearn_rankk, numpy,
    scipy, scikit-learn, threadpoolctl, joblib, then the optional packages
    that are installed: pandas, matplotlib, dask, distributed, pytrec_eval,
    lightgbm, xgboost, ranx) and Build info: whether the compiled top-k kernel
    was built with OpenMP (without it, rows are ranked on one thread), the
    number of threads it uses by default (:func:`set_num_threads`,
    ``OMP_NUM_THREADS``, ``threadpoolctl``) and the compiler that built it.

    See Also
    --------
    set_num_threads : Set the number of threads of the kernel.

    Examples
    --------
    >>> from sklearn_rankk import show_versions
    >>> show_versions()  # doctest: +ELLIPSIS
    <BLANKLINE>
    System:
        python: ...
    executable: ...
       machine: ...
    <BLANKLINE>
    Python dependencies:
    sklearn_rankk: ...
            numpy: ...
            scipy: ...
     scikit-learn: ...
    threadpoolctl: ...
           joblib: ...
    <BLANKLINE>
    Build info:
            OpenMP: ...
    kernel threads: ...
          compiler: ...
    """
    sections = (
        ("System", _get_sys_info()),
        ("Python dependencies", _get_deps_info()),
        ("Build info", _get_build_info()),
    )
    for title, info in sections:
        width = max(map(len, info))
        print(f"\n{title}:")
        for key, value in info.items():
            print(f"{key:>{width}}: {value}")
