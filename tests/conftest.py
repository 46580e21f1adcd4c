"""Test session setup: one BLAS thread.

The suite runs many small numpy and kernel calls, often under joblib
workers: without limits, BLAS and OpenMP thread pools oversubscribe the
machine's cores (the scorer tests once took 169 s instead of about 27 s on
two cores). The kernel's OpenMP threads keep their default; tests that
measure threading set their own counts.
"""

import pytest
from threadpoolctl import threadpool_limits


@pytest.fixture(autouse=True, scope="session")
def _limit_threads():
    with threadpool_limits(limits=1, user_api="blas"):
        yield
