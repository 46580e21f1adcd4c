"""The bottom layer: metric registry, validation, inputs, kernel and engine.

Nothing here imports from the layers above (file formats, parallel and
streaming evaluation, scorers, reports, displays, statistics).
"""

try:
    from . import _kernel  # noqa: F401  (compiled; built by the install)
except ImportError as exc:
    import importlib.util

    if importlib.util.find_spec(f"{__name__}._kernel") is not None:
        raise  # built, but it does not load: that error says why
    raise ImportError(
        f"sklearn_rankk's compiled kernel is missing from {__path__[0]}: Python "
        "is importing a source tree that was never built. Run from another "
        "folder to use the installed package, or build it here with "
        "`pip install -e .`."
    ) from exc
