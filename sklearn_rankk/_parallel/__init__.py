"""Evaluation in pieces: a mergeable streaming accumulator, and Dask inputs.

Importing this package registers the Dask support with the engine (dask
itself is imported only when a dask input is seen).
"""

from . import dask_inputs  # noqa: F401
