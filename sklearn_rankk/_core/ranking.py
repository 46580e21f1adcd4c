"""The kernel's Python side: requests compiled, inputs handed over, threads.

:func:`evaluate` hands validated inputs to the compiled kernel
(:mod:`sklearn_rankk._core._kernel`, the only place where rows are ranked and
metrics computed): dense score matrices and flat segments go to it whole and
without copies when their dtypes are the kernel's; other inputs (row-sliceable
arrays such as memmaps, sparse scores, other dtypes) are read and converted
one block of rows at a time, so memory stays bounded. The kernel spreads the
rows over threads (:func:`n_threads`).
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from . import _kernel
from .validation import as_float64_exact
from .validation import sparse as sp

#: Number of matrix cells (rows x columns) per block when inputs are read or
#: converted block by block: a block holds ``max(1, BLOCK_CELLS // n_columns)``
#: rows.
BLOCK_CELLS = 1 << 20

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
        return max(1, min(_threads["n"], _usable_cpus()))
    limit = _kernel.max_threads()
    if os.environ.get("OMP_NUM_THREADS"):
        return max(1, limit)
    return max(1, min(limit, _usable_cpus()))


def _usable_cpus():
    """CPUs this process may use (cgroup quotas and affinity, as joblib).

    joblib's ``cpu_count(only_physical_cores=True)``; on Linux its rule is
    followed here without importing joblib (a quarter of a second, as long
    as the rest of a command-line run): the CPU affinity, the cgroup's CPU
    quota and ``LOKY_MAX_CPU_COUNT``, else the physical cores.
    """
    found = _usable_cpus_linux() if sys.platform == "linux" else None
    if found is not None:
        return found
    from joblib import cpu_count

    return cpu_count(only_physical_cores=True)


def _usable_cpus_linux():
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
        isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1
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


def iter_blocks(n_rows, n_cols, block_cells=BLOCK_CELLS):
    """Yield ``slice`` objects of rows such that each block has ~block_cells."""
    step = max(1, block_cells // max(n_cols, 1))
    for start in range(0, n_rows, step):
        yield slice(start, min(start + step, n_rows))


# --------------------------------------------------------------------------
# Requests as the kernel takes them
# --------------------------------------------------------------------------

_DENOMINATORS = {
    "relevant": _kernel.DEN_RELEVANT,
    "min": _kernel.DEN_MIN,
    "retrieved": _kernel.DEN_RETRIEVED,
}


# Where a metric without k cuts each row (Metric.row_cut): the kernel's depth.
_ROW_CUTS = {
    "n_relevant": _kernel.K_NREL,
    "n_retrieved": _kernel.K_NRET,
    "whole": _kernel.K_WHOLE,
}


@dataclass(frozen=True)
class Compiled:
    """Requests as a kernel array, with their output columns.

    Attributes
    ----------
    array : structured ndarray (``_kernel.REQUEST_DTYPE``)
    n_cols : int
        Output columns of all the requests.
    columns : list of slice
        Each request's output columns (one, or ``k`` for a curve).
    held : tuple of ndarray
        Arrays the kernel reads through an address in ``array`` (the recall
        levels of 11-point precision), kept alive with it.
    """

    array: np.ndarray
    n_cols: int
    columns: list
    held: tuple = ()


# utility's coefficients -> the kernel's u_tp, u_fp, u_fn, u_tn.
_UTILITY_DEFAULTS = {
    "tp_weight": 1.0,
    "fp_weight": -1.0,
    "fn_weight": 0.0,
    "tn_weight": 0.0,
}


def _discount_table(discount, log_base, p, n):
    """The discounts of ranks 1..n (float64), or None for the kernel's own
    ``1 / log_b(rank + 1)``; ``"constant"``: 1 at every rank."""
    if isinstance(discount, str) and discount == "log":
        return None
    ranks = np.arange(1, n + 1, dtype=np.float64)
    if isinstance(discount, str) and discount == "constant":  # PSP@k's sum
        return np.ones_like(ranks)
    if callable(discount):
        try:
            table = np.asarray(discount(ranks), dtype=np.float64)
        except (TypeError, ValueError):
            table = None
        if table is None or table.shape != ranks.shape:
            table = np.array([discount(i) for i in range(1, n + 1)], dtype=np.float64)
        if not np.all(np.isfinite(table)):
            raise ValueError(
                "discount (a callable of the 1-based rank) must give finite "
                "real discounts; it gave a NaN or an infinite value."
            )
        return np.ascontiguousarray(table)
    if discount == "jarvelin":  # 1 before rank b, then 1 / log_b(rank)
        with np.errstate(divide="ignore"):
            table = np.log(log_base) / np.log(ranks)
        return np.where(ranks < log_base, 1.0, table)
    if discount == "reciprocal":
        return 1.0 / ranks
    return np.power(float(p), ranks - 1.0)  # geometric


def _gain_table(gains, grades):
    """A gain map as the kernel's two arrays (grades increasing, gains)."""
    if callable(gains):
        grades = np.asarray(grades, dtype=np.float64)
        values = np.asarray(gains(grades), dtype=np.float64)
        if values.shape != grades.shape:
            values = np.array([gains(g) for g in grades], dtype=np.float64)
        if not np.all(np.isfinite(values)):
            raise ValueError(
                "gains (a callable of the grade) must give finite real gains; "
                "it gave a NaN or an infinite value."
            )
        return np.ascontiguousarray(grades), np.ascontiguousarray(values)
    pairs = np.asarray(gains, dtype=np.float64).reshape(-1, 2)
    return np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])


def relevant_grades(y_true, threshold):
    """The grades a gain map may be asked for, increasing: the distinct
    grades of ``y_true`` above ``threshold`` and not negative (for small
    integer grades, every whole number up to the largest)."""
    if sp.issparse(y_true):
        values = np.asarray(y_true.data)
        if threshold < 0:
            values = np.append(values, 0)
    else:
        values = np.asarray(y_true)
    if values.dtype.kind in "biu" and values.size:
        # Small integer grades: every whole number up to the largest (one
        # read of y_true; a grade absent from it is never looked up).
        hi = int(values.max())
        if hi <= 4096:
            whole = np.arange(hi + 1, dtype=np.float64)
            return whole[(whole > threshold) & (whole >= 0)]
    values = values[(values > threshold) & (values >= 0)]
    return np.unique(values.astype(np.float64))


def compile_requests(requests, n_items, grades=None):
    """The kernel's request array; curves without ``k`` span ``n_items``.

    ``grades``: the relevant grades of the inputs, where a request's gain
    map is a callable (evaluated on them)."""
    array = np.zeros(len(requests), dtype=_kernel.REQUEST_DTYPE)
    columns, col, held = [], 0, []
    for row, request in zip(array, requests):
        metric, options = request.metric, request.options
        if request.curve:
            k = request.k or n_items
        elif not metric.needs_k:
            k = _ROW_CUTS[metric.row_cut]
        else:
            k = request.k or _kernel.K_WHOLE
        width = k if request.curve else 1
        row["formula"] = metric.formula
        row["denominator"] = _DENOMINATORS[options.get("denominator", "relevant")]
        row["exponential"] = options.get("gain") == "exponential"
        row["curve"] = request.curve
        row["k"] = k
        row["col"] = col
        row["log_base"] = options.get("log_base", 2)
        row["beta"] = options.get("beta", 1.0)
        row["level"] = options.get("multiple", options.get("recall_level", 1.0))
        if options.get("max_fpr") is not None:  # AUC: the partial area's end
            row["level"] = options["max_fpr"]
        if "count" in options:  # COUNT_ROW: which count
            row["level"] = options["count"]
        if "recall_levels" in options:
            levels = np.ascontiguousarray(options["recall_levels"], dtype=np.float64)
            held.append(levels)
            row["levels"] = levels.ctypes.data
            row["n_levels"] = levels.size
        row["p"] = options.get("p", 0.9)
        for coefficient, default in _UTILITY_DEFAULTS.items():
            row[f"u_{coefficient[:2]}"] = options.get(coefficient, default)
        max_grade = options.get("max_grade")  # ERR; None: each row's largest grade
        if metric.formula == _kernel.SDCG:  # SDCG's grade of the ideal list
            max_grade = options.get("max_rel")
        row["max_grade"] = np.nan if max_grade is None else max_grade
        if options.get("gains") is not None:  # the DCG family's gain map
            if callable(options["gains"]) and max_grade is not None:
                grades = np.union1d(grades, [float(max_grade)])  # SDCG's max_rel
            table = _gain_table(options["gains"], grades)
            held.extend(table)
            row["gain_grades"], row["gain_values"] = (a.ctypes.data for a in table)
            row["n_gain"] = table[0].size
        disc = _discount_table(
            metric.fixed_discount or options.get("discount", "log"),
            options.get("log_base", 2),
            options.get("discount_p", 0.9),
            max(k if k > 0 else n_items, 1),
        )
        if disc is not None:
            held.append(disc)
            row["disc"], row["n_disc"] = disc.ctypes.data, disc.size
        columns.append(slice(col, col + width))
        col += width
    return Compiled(array, col, columns, tuple(held))


# --------------------------------------------------------------------------
# Inputs to the kernel
# --------------------------------------------------------------------------


def _threads_for(cells):
    return max(1, min(n_threads(), cells // MIN_CELLS_PER_THREAD))


def _scores_block(block):
    """Dense scores in a dtype the kernel takes (float32/float64), C-ordered."""
    if sp.issparse(block):
        block = block.toarray()
    block = np.asarray(block)
    if block.dtype not in _kernel.SCORE_DTYPES:
        block = as_float64_exact(block)
    return np.ascontiguousarray(block)


def _relevance_block(block):
    """Dense relevance in a dtype the kernel takes, C-ordered."""
    if sp.issparse(block):
        block = block.toarray()
    block = np.asarray(block)
    if block.dtype != np.bool_ and block.dtype not in _kernel.RELEVANCE_DTYPES:
        block = block.astype(np.float64)
    return np.ascontiguousarray(block)


def evaluate(compiled, data, *, ties, threshold):
    """Every compiled request on every row of validated inputs.

    Parameters
    ----------
    compiled : Compiled
    data : RankingInput
        ``y_score`` a 2-D array (in memory, row-sliceable or sparse) or flat
        scores with ``offsets``; ``y_true`` aligned with it, or CSR.
    ties : int
        ``_kernel.TIES_EXACT`` or ``_kernel.TIES_LATER_FIRST``.
    threshold : float

    Returns
    -------
    values : ndarray of shape (n_rows, n_cols)
    empty : ndarray of bool of shape (n_rows, n_requests)
    flags : ndarray of uint8 of shape (n_rows,)
    """
    args = (compiled.array, compiled.n_cols, ties, threshold)
    y_true, y_score = data.y_true, data.y_score
    if data.offsets is not None:  # segments of flat arrays: one call
        scores = _scores_block(y_score)
        out = _kernel.evaluate_aligned(
            scores,
            _relevance_block(y_true),
            data.offsets,
            0,
            *args,
            _threads_for(scores.size),
        )
        return out[0], out[1].view(bool), out[2]
    n_rows, n_items = data.shape
    csr = sp.issparse(y_true) and threshold >= 0
    if csr:  # only stored grades can be relevant: read CSR as it is
        indptr = y_true.indptr.astype(np.int64, copy=False)
        indices = y_true.indices.astype(np.int64, copy=False)
        grades = y_true.data.astype(np.float64, copy=False)
    whole = (
        isinstance(y_score, np.ndarray)
        and not isinstance(y_score, np.memmap)
        and y_score.dtype in _kernel.SCORE_DTYPES
        and y_score.flags.c_contiguous
        and (
            csr
            or (
                isinstance(y_true, np.ndarray)
                and (y_true.dtype in _kernel.RELEVANCE_DTYPES or y_true.dtype == bool)
                and y_true.flags.c_contiguous
            )
        )
    )

    def block(rows, scores, relevance):
        threads = _threads_for(scores.size)
        if csr:
            return _kernel.evaluate_csr(
                scores, indptr, indices, grades, rows.start, *args, threads
            )
        return _kernel.evaluate_aligned(
            scores, relevance, None, n_items, *args, threads
        )

    if whole:  # in memory, in the kernel's dtypes: no copy, one call
        v, e, f = block(slice(0, n_rows), y_score, y_true)
        return v, e.view(bool), f
    values = np.empty((n_rows, compiled.n_cols))
    empty = np.empty((n_rows, len(compiled.columns)), dtype=bool)
    flags = np.empty(n_rows, dtype=np.uint8)
    for rows in iter_blocks(n_rows, n_items):
        relevance = None if csr else _relevance_block(y_true[rows])
        v, e, f = block(rows, _scores_block(y_score[rows]), relevance)
        values[rows], empty[rows], flags[rows] = v, e.view(bool), f
    return values, empty, flags
