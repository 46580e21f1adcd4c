"""Dask inputs: per-row metric values computed block by block on the workers.

Placeholder until the Dask support lands (issue 7).
"""

from __future__ import annotations


def per_row_values_dask(
    requests,
    y_true,
    y_score,
    *,
    sample_weight=None,
    ignore_ties=False,
    relevance_threshold=0,
    labels=None,
):
    """Same contract as :func:`sklearn_rankk._metrics.per_row_values`."""
    raise NotImplementedError("dask inputs are not supported yet.")
