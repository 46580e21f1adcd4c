"""How many threads the kernel uses: :func:`set_num_threads`, OpenMP's
limit and the CPUs this process may use (no numpy: the command line asks
too)."""

from __future__ import annotations

import numbers
import os
import sys
from contextlib import contextmanager

from . import _kernel

#: Fewest score cells per thread: smaller inputs use fewer threads (starting
#: a parallel region costs more than ranking a few thousand scores).
MIN_CELLS_PER_THREAD = 1 << 15

_threads = {"n": None}


def n_threads():
    """Number of threads the kernel uses.

    The value set by :func:`set_num_threads`; else scikit-learn's rule for
    its OpenMP code: OpenMP's limit (``OMP_NUM_THREADS``, and
    ``threadpoolctl.threadpool_limits``, hence joblib's workers under
    ``GridSearchCV(n_jobs=2)``), capped at the number of CPUs this process
    may use unless ``OMP_NUM_THREADS`` is set. 1 without OpenMP.
    """
    if not _kernel.openmp_enabled():
        return 1
    if _threads["n"] is not None:
        return max(1, min(_threads["n"], usable_cpus()))
    limit = _kernel.max_threads()
    if os.environ.get("OMP_NUM_THREADS"):
        return max(1, limit)
    return max(1, min(limit, usable_cpus()))


def usable_cpus():
    """CPUs this process may use (cgroup quotas and affinity, as joblib).

    joblib's ``cpu_count(only_physical_cores=True)``; on Linux its rule is
    followed here without importing joblib (a quarter of a second, as long
    as the rest of a command-line run): the CPU affinity, the cgroup's CPU
    quota and ``LOKY_MAX_CPU_COUNT``, else the physical cores.
    """
    found = usable_cpus_linux() if sys.platform == "linux" else None
    if found is not None:
        return found
    from joblib import cpu_count

    return cpu_count(only_physical_cores=True)


def usable_cpus_linux():
    """joblib's count on Linux (loky's ``cpu_count``), or None if a file it
    reads is not as expected (joblib then decides)."""
    try:
        os_count = os.cpu_count() or 1
        user = min(
            len(os.sched_getaffinity(0)),
            _cgroup_cpus(os_count),
            int(os.environ.get("LOKY_MAX_CPU_COUNT", os_count)),
        )
        if user < os_count:
            return max(user, 1)
        if _physical_cores["n"] is None:
            cores = set()
            for cpu in os.listdir("/sys/devices/system/cpu"):
                topology = f"/sys/devices/system/cpu/{cpu}/topology/"
                if cpu[3:].isdigit() and os.path.isdir(topology):
                    with open(topology + "physical_package_id") as f:
                        package = f.read().strip()
                    with open(topology + "core_id") as f:
                        cores.add((package, f.read().strip()))
            _physical_cores["n"] = len(cores)
        return _physical_cores["n"] if _physical_cores["n"] >= 1 else None
    except (OSError, ValueError, AttributeError):
        return None


_physical_cores = {"n": None}


def _cgroup_cpus(os_count):
    """The cgroup's CPU bandwidth limit, rounded up (v2, else v1)."""
    quota = period = None
    if os.path.exists("/sys/fs/cgroup/cpu.max"):
        with open("/sys/fs/cgroup/cpu.max") as f:
            parts = f.read().split()
        if len(parts) == 2:
            quota, period = parts
    if quota is None:
        v1 = (
            "/sys/fs/cgroup/cpu/cpu.cfs_quota_us",
            "/sys/fs/cgroup/cpu/cpu.cfs_period_us",
        )
        if not all(os.path.exists(name) for name in v1):
            return os_count
        with open(v1[0]) as f:
            quota = f.read().strip()
        with open(v1[1]) as f:
            period = f.read().strip()
    if quota == "max" or int(quota) <= 0 or int(period) <= 0:
        return os_count
    return -(-int(quota) // int(period))


def set_num_threads(n):
    """Set the number of threads of the top-k kernel (None: OpenMP's limit).

    Parameters
    ----------
    n : int or None
        Threads to use; ``None`` restores the default, OpenMP's limit
        (``OMP_NUM_THREADS``, ``threadpoolctl``).

    Returns
    -------
    previous : int or None
        The previous setting, for restoring it.

    Examples
    --------
    >>> from sklearn_rankk import set_num_threads
    >>> previous = set_num_threads(1)
    >>> set_num_threads(previous)
    1
    """
    if n is not None and (
        isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1
    ):
        raise ValueError(f"n must be a positive integer or None; got {n!r}.")
    previous = _threads["n"]
    _threads["n"] = None if n is None else int(n)
    return previous


@contextmanager
def num_threads(n):
    """Context manager: the kernel uses ``n`` threads inside the block.

    Parameters
    ----------
    n : int or None
        As in :func:`set_num_threads`.

    Yields
    ------
    None

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rankk import num_threads, precision_at_k_score
    >>> with num_threads(1):
    ...     precision_at_k_score([[1, 0, 1]], [[0.2, 0.9, 0.4]], k=2)
    0.5
    """
    previous = set_num_threads(n)
    try:
        yield
    finally:
        set_num_threads(previous)


def threads_for(cells, n=None):
    """Threads for an input of ``cells`` scores: ``n`` (by default
    :func:`n_threads`), fewer for small inputs (at least
    :data:`MIN_CELLS_PER_THREAD` cells each). ``n`` may be a function of no
    argument, called only for an input large enough for two threads (the
    CPU count costs about a tenth of a millisecond to read)."""
    if cells < 2 * MIN_CELLS_PER_THREAD:  # one, without reading the CPU count
        return 1
    if n is None:
        n = n_threads
    if callable(n):
        n = n()
    return max(1, min(n, cells // MIN_CELLS_PER_THREAD))
