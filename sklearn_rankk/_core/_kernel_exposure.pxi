# Beyond-accuracy measures in the kernel (included by _kernel.pyx): item
# exposure (exposure.hpp).

cdef extern from "exposure.hpp" namespace "rankk" nogil:
    void c_exposure "rankk::exposure_any"(
        int32_t score_type, const void* scores, int64_t n_rows, int64_t m, int64_t k,
        cbool later_first, const double* weights, const double* values,
        int64_t n_values, int32_t n_threads, double* exposure, double* certain,
        double* log_miss, double* length, double* sums, uint8_t* flags) except +


def exposure(scores, int64_t k, bint later_first, weights, values, int n_threads):
    """Each item's inclusion in the top ``k`` lists of a dense score matrix.

    Parameters
    ----------
    scores : ndarray of float32 or float64 of shape (n_rows, m), C-contiguous
    k : int >= 1
    later_first : bool
        One ranking (the later column first among equal scores) instead of
        the expectation over the orderings of tied items.
    weights : ndarray of float64 of shape (n_rows,) or None
    values : ndarray of float64 of shape (n_values, m), C-contiguous
        Per-item values whose expected sum over each row's list is returned.

    Returns
    -------
    exposure, certain, log_miss : ndarray of shape (m,)
        Expected weighted lists holding each item; lists (of positive weight)
        certain to hold it; the sum of ``log(1 - p)`` over the lists that may
        hold it with probability ``0 < p < 1``.
    length : ndarray of shape (n_rows,)
        Items in each row's list, ``min(k, finite scores)``.
    sums : ndarray of shape (n_rows, n_values)
        Expected sum of each value vector over each row's list.
    flags : ndarray of uint8 of shape (n_rows,)
        ``FLAG_NAN_SCORE`` where a score is NaN, ``FLAG_NO_MEMORY``.
    """
    if scores.ndim != 2 or not scores.flags.c_contiguous:
        raise ValueError("scores must be a C-contiguous 2-D array.")
    if scores.dtype not in _dtype_tables()["score"]:
        raise TypeError(f"unsupported dtype {scores.dtype}.")
    cdef int64_t n_rows = scores.shape[0], m = scores.shape[1]
    if k < 1 or m < 1:
        raise ValueError("k and the number of columns must be at least 1.")
    if values.dtype != np.float64 or values.ndim != 2 or values.shape[1] != m \
            or not values.flags.c_contiguous:
        raise ValueError("values must be a C-contiguous float64 array (n_values, m).")
    if weights is not None and (weights.dtype != np.float64 or weights.shape != (n_rows,)
                                or not weights.flags.c_contiguous):
        raise ValueError("weights must be a contiguous float64 array (n_rows,).")
    cdef int64_t n_values = values.shape[0]
    expo = np.empty(m, dtype=np.float64)
    certain = np.empty(m, dtype=np.float64)
    log_miss = np.empty(m, dtype=np.float64)
    length = np.zeros(n_rows, dtype=np.float64)
    sums = np.zeros((n_rows, n_values), dtype=np.float64)
    flags = np.zeros(n_rows, dtype=np.uint8)
    cdef int32_t st = _dtype_tables()["score"][scores.dtype]
    cdef const void* sp = _data(scores)
    cdef const double* wp = <const double*> _data(weights) if weights is not None else NULL
    cdef const double* vp = <const double*> _data(values) if n_values else NULL
    cdef double* ep = <double*> <size_t> expo.ctypes.data
    cdef double* cp = <double*> <size_t> certain.ctypes.data
    cdef double* lp = <double*> <size_t> log_miss.ctypes.data
    cdef double* np_ = <double*> <size_t> length.ctypes.data
    cdef double* sp2 = <double*> <size_t> sums.ctypes.data
    cdef uint8_t* fp = <uint8_t*> <size_t> flags.ctypes.data
    with nogil:
        c_exposure(st, sp, n_rows, m, k, later_first, wp, vp, n_values, n_threads,
                   ep, cp, lp, np_, sp2, fp)
    return expo, certain, log_miss, length, sums, flags
