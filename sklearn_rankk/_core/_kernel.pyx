# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
# distutils: language = c++
"""The compiled kernel: rows in, metric values out (see kernel.hpp).

:func:`evaluate_aligned` takes scores with relevance aligned to them: a
dense matrix (every row ``m`` items) or segments of flat arrays (row ``r`` is
``offsets[r]:offsets[r + 1]``); :func:`evaluate_csr` takes dense score rows
with relevance in CSR form. Both compute every requested metric of every row
in one pass and return ``(values, empty, flags)``: the values (one column
per request, ``k`` columns for a curve), whether each row is empty for each
request (no relevant item, or an ideal DCG of 0), and per-row flags (NaN
scores, NaN/infinite grades, overflowing exponential gains).

The GIL is released; rows are spread over OpenMP threads when the extension
is built with OpenMP.

This file holds the module's plumbing (numpy imported on first use, the
dtype tables, the build's facts); the rest is included from one file per
concern, each under 800 lines:

* ``_kernel_requests.pxi``: the codes of request.hpp (its enums, read with
  ``cdef extern``), its ``Request`` and ``Plan``, ``_REQUEST_FIELDS`` (the
  fields of a request as Python sees them) and the plan of a call;
* ``_kernel_rows.pxi``: the entry points on rows: dense and flat segments
  (:func:`evaluate_aligned`), CSR relevance (:func:`evaluate_csr`), flat
  segments in any buffer without numpy (:func:`evaluate_segments`, the
  command line's) and :func:`top_k`;
* ``_kernel_trec.pxi``: TREC files (trec.hpp): parsing, the join into
  segments (numpy arrays or ``array.array``), trec_eval's per-query lines,
  relstrings and counts;
* ``_kernel_exposure.pxi``: item exposure (exposure.hpp).
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t
from libc.math cimport HUGE_VAL
from libc.string cimport memcpy
from libcpp cimport bool as cbool
from libcpp.string cimport string
from libcpp.vector cimport vector

from cpython cimport array as carray
import array


class _Numpy:
    """numpy, imported by the first function that uses it: the command line
    evaluates TREC files through this module without numpy (its import takes
    longer than trec_eval's whole run on small files)."""

    def __getattr__(self, name):
        import numpy

        globals()["np"] = numpy  # later look-ups find numpy itself
        return getattr(numpy, name)


np = _Numpy()

# Templates of the numpy-free outputs (array.array of int64 and float64).
cdef carray.array _INT64_TEMPLATE = array.array("q")
cdef carray.array _FLOAT64_TEMPLATE = array.array("d")

cdef extern from "_portable.h" nogil:
    int rankk_max_threads()
    int rankk_openmp_enabled()
    const char* rankk_compiler()

cdef dict _tables = {}


def _dtype_tables():
    """numpy's dtypes the kernel takes (made on first use, with numpy)."""
    if not _tables:
        scores = {np.dtype(np.float32): 0, np.dtype(np.float64): 1}
        relevance = {
            np.dtype(t): i
            for i, t in enumerate(("u1", "i1", "i2", "i4", "i8", "u2", "u4", "u8", "f4",
                                   "f8"))
        }
        _tables.update(
            score=scores,
            relevance=relevance,
            SCORE_DTYPES=frozenset(scores),
            RELEVANCE_DTYPES=frozenset(relevance),
            REQUEST_DTYPE=np.dtype(_REQUEST_FIELDS),
        )
    return _tables


def __getattr__(name):
    """``SCORE_DTYPES``, ``RELEVANCE_DTYPES`` and ``REQUEST_DTYPE`` (numpy
    objects, made on first use)."""
    if name in ("SCORE_DTYPES", "RELEVANCE_DTYPES", "REQUEST_DTYPE"):
        value = _dtype_tables()[name]
        globals()[name] = value
        return value
    raise AttributeError(f"module 'sklearn_rankk._core._kernel' has no attribute {name!r}")


def max_threads():
    """OpenMP's thread limit (honours OMP_NUM_THREADS and threadpoolctl); 1
    without OpenMP."""
    return rankk_max_threads()


def openmp_enabled():
    """Whether the kernel was compiled with OpenMP."""
    return bool(rankk_openmp_enabled())


def compiler():
    """The compiler that built the kernel, as its predefined macros name it."""
    return rankk_compiler().decode("ascii", "replace").strip()


# The kernel's pieces, by concern (Cython's include: one module, one
# namespace; the codes and requests first, as the others use them).
include "_kernel_requests.pxi"
include "_kernel_rows.pxi"
include "_kernel_trec.pxi"
include "_kernel_exposure.pxi"
