# The kernel's entry points on rows (included by _kernel.pyx): dense and
# flat-segment inputs with aligned relevance (numpy), CSR relevance, flat
# segments in any buffer without numpy (the command line), and top_k.

cdef extern from "kernel.hpp" namespace "rankk" nogil:
    void c_evaluate_aligned "rankk::evaluate_aligned_any"(
        int32_t score_type, int32_t rel_type, const void* scores, const void* y,
        const int64_t* offsets, int64_t m, int64_t n_rows, const Plan& plan,
        double* out, uint8_t* empty, uint8_t* flags) except +
    void c_evaluate_csr "rankk::evaluate_csr_any"(
        int32_t score_type, const void* scores, int64_t m, int64_t n_rows,
        const int64_t* indptr, const int64_t* indices, const double* data,
        int64_t row_offset, const Plan& plan, double* out, uint8_t* empty,
        uint8_t* flags) except +
    void c_top_k "rankk::top_k_any"(
        int32_t score_type, const void* scores, int64_t n_rows, int64_t m, int64_t K,
        cbool later_first, double* values, int64_t* cols, int64_t* outside,
        uint8_t* nan) except +


def _outputs(Py_ssize_t n_rows, Py_ssize_t n_cols, Py_ssize_t n_req):
    return (
        np.empty((n_rows, n_cols), dtype=np.float64),
        np.empty((n_rows, n_req), dtype=np.uint8),
        np.zeros(n_rows, dtype=np.uint8),
    )


cdef const void* _data(arr):
    """Address of the first element of a C-contiguous array."""
    cdef size_t address = arr.ctypes.data
    return <const void*> address


def evaluate_aligned(scores, y, offsets, int64_t m, requests, int64_t n_cols, int ties,
                     double threshold, int n_threads):
    """Every request on every row; relevance aligned with the scores.

    Parameters
    ----------
    scores : ndarray of float32 or float64, C-contiguous (2-D, or 1-D flat)
    y : ndarray, same layout as ``scores``, a dtype of ``RELEVANCE_DTYPES``
        (or bool)
    offsets : ndarray of int64 of shape (n_rows + 1,) or None
        Segments of the flat arrays; None: ``scores`` is a 2-D matrix.
    m : int
        Items per row of a 2-D matrix (ignored with ``offsets``).
    requests : structured array with the fields of request.hpp's Request
    n_cols : int
        Output columns.

    Returns
    -------
    values : ndarray of shape (n_rows, n_cols)
    empty : ndarray of uint8 of shape (n_rows, n_requests)
    flags : ndarray of uint8 of shape (n_rows,)
    """
    if y.dtype == np.bool_:
        y = y.view(np.uint8)
    if not (scores.flags.c_contiguous and y.flags.c_contiguous):
        raise ValueError("scores and y must be C-contiguous.")
    if scores.dtype not in _dtype_tables()["score"] or y.dtype not in _dtype_tables()["relevance"]:
        raise TypeError(f"unsupported dtypes {scores.dtype}, {y.dtype}.")
    cdef int64_t n_rows
    cdef const int64_t* off = NULL
    cdef vector[Request] req = _requests(requests)
    cdef size_t i
    if offsets is None:
        # y of the intent-aware requests (INTENT_*): (n_rows, m, n_intents)
        intents = ()
        for i in range(req.size()):
            if INTENT_PRECISION <= req[i].formula <= INTENT_ALPHA:
                intents = (req[i].n_levels,)
                break
        if scores.ndim != 2 or y.shape != scores.shape + intents:
            raise ValueError("scores and y must be 2-D of the same shape.")
        n_rows = scores.shape[0]
        if scores.shape[1] != m:
            raise ValueError("m must be the number of columns.")
    else:
        if offsets.dtype != np.int64 or not offsets.flags.c_contiguous:
            raise TypeError("offsets must be a contiguous int64 array.")
        n_rows = offsets.shape[0] - 1
        if (n_rows < 0 or offsets[0] < 0 or np.any(np.diff(offsets) < 0)
                or offsets[n_rows] > scores.size or scores.size != y.size):
            raise ValueError("offsets do not describe segments of scores and y.")
        off = <const int64_t*> _data(offsets)
    cdef Plan plan = _plan(req, ties, threshold, n_threads, n_cols)
    out, empty, flags = _outputs(n_rows, n_cols, req.size())
    if n_rows == 0:
        return out, empty, flags
    cdef int32_t st = _dtype_tables()["score"][scores.dtype], rt = _dtype_tables()["relevance"][y.dtype]
    cdef const void* sp = _data(scores)
    cdef const void* yp = _data(y)
    cdef double* op = <double*> <size_t> out.ctypes.data
    cdef uint8_t* ep = <uint8_t*> <size_t> empty.ctypes.data
    cdef uint8_t* fp = <uint8_t*> <size_t> flags.ctypes.data
    with nogil:
        c_evaluate_aligned(st, rt, sp, yp, off, m, n_rows, plan, op, ep, fp)
    return out, empty, flags


def evaluate_csr(scores, indptr, indices, data, int64_t row_offset, requests,
                 int64_t n_cols, int ties, double threshold, int n_threads):
    """Every request on every row of dense scores with CSR relevance.

    ``indptr`` and ``indices`` are int64, ``data`` float64; ``indices`` must
    be sorted within each row and ``threshold >= 0`` (the implicit zeros are
    then not relevant). Row ``r`` of ``scores`` is CSR row ``row_offset + r``.
    """
    if scores.ndim != 2 or not scores.flags.c_contiguous:
        raise ValueError("scores must be a C-contiguous 2-D array.")
    if scores.dtype not in _dtype_tables()["score"]:
        raise TypeError(f"unsupported dtype {scores.dtype}.")
    for name, arr, dtype in (("indptr", indptr, np.int64), ("indices", indices, np.int64),
                             ("data", data, np.float64)):
        if arr.dtype != dtype or arr.ndim != 1 or not arr.flags.c_contiguous:
            raise TypeError(f"{name} must be a contiguous 1-D {np.dtype(dtype)} array.")
    cdef int64_t n_rows = scores.shape[0], m = scores.shape[1]
    if row_offset < 0 or indptr.shape[0] < row_offset + n_rows + 1:
        raise ValueError("indptr does not cover the rows of this block.")
    cdef vector[Request] req = _requests(requests)
    cdef Plan plan = _plan(req, ties, threshold, n_threads, n_cols)
    out, empty, flags = _outputs(n_rows, n_cols, req.size())
    if n_rows == 0:
        return out, empty, flags
    cdef int32_t st = _dtype_tables()["score"][scores.dtype]
    cdef const void* sp = _data(scores)
    cdef const int64_t* ip = <const int64_t*> _data(indptr)
    cdef const int64_t* ix = <const int64_t*> _data(indices) if indices.shape[0] else NULL
    cdef const double* dp = <const double*> _data(data) if data.shape[0] else NULL
    cdef double* op = <double*> <size_t> out.ctypes.data
    cdef uint8_t* ep = <uint8_t*> <size_t> empty.ctypes.data
    cdef uint8_t* fp = <uint8_t*> <size_t> flags.ctypes.data
    with nogil:
        c_evaluate_csr(st, sp, m, n_rows, ip, ix, dp, row_offset, plan, op, ep, fp)
    return out, empty, flags


def top_k(scores, int64_t K, bint later_first=False):
    """The top ``K`` of each row of a 2-D score matrix, for the tests.

    Returns (values, columns, left-out tied items, NaN seen), ranks in order.
    """
    scores = np.ascontiguousarray(scores)
    if scores.dtype not in _dtype_tables()["score"] or scores.ndim != 2:
        raise TypeError("scores must be a 2-D float32 or float64 array.")
    cdef int64_t n = scores.shape[0], m = scores.shape[1]
    if not 1 <= K <= m:
        raise ValueError(f"K must be in [1, {m}] (the row length); got {K}.")
    values = np.empty((n, K), dtype=np.float64)
    cols = np.empty((n, K), dtype=np.int64)
    outside = np.empty(n, dtype=np.int64)
    nan = np.empty(n, dtype=np.uint8)
    cdef int32_t st = _dtype_tables()["score"][scores.dtype]
    cdef const void* sp = _data(scores)
    cdef double* vp = <double*> <size_t> values.ctypes.data
    cdef int64_t* cp = <int64_t*> <size_t> cols.ctypes.data
    cdef int64_t* op = <int64_t*> <size_t> outside.ctypes.data
    cdef uint8_t* np_ = <uint8_t*> <size_t> nan.ctypes.data
    if n:
        with nogil:
            c_top_k(st, sp, n, m, K, later_first, vp, cp, op, np_)
    return values, cols, outside, nan.astype(bool)


def evaluate_segments(const double[::1] scores, const int64_t[::1] y,
                      const int64_t[::1] offsets, list requests, int64_t n_cols,
                      int ties, double threshold, int n_threads):
    """:func:`evaluate_aligned` on segments of flat float64 scores and int64
    grades in any buffer (``array.array``), without numpy: the command
    line's evaluation of TREC files.

    ``requests``: one dict per request with every field of request.hpp's
    ``Request`` (``_REQUEST_FIELDS``; the array fields are addresses).
    Returns ``(values, empty, flags)``: an ``array.array("d")`` of
    ``n_rows * n_cols`` values, row by row; ``bytes`` of ``n_rows *
    n_requests`` empty marks, row by row; ``bytes`` of ``n_rows`` flags.
    """
    cdef int64_t n_rows = offsets.shape[0] - 1, r
    if n_rows < 0 or scores.shape[0] != y.shape[0]:
        raise ValueError("offsets do not describe segments of scores and y.")
    for r in range(n_rows):
        if offsets[r] < 0 or offsets[r + 1] < offsets[r]:
            raise ValueError("offsets do not describe segments of scores and y.")
    if n_rows and offsets[n_rows] > scores.shape[0]:
        raise ValueError("offsets do not describe segments of scores and y.")
    cdef vector[Request] req = _requests(requests)
    cdef Plan plan = _plan(req, ties, threshold, n_threads, n_cols)
    cdef carray.array out = carray.clone(_FLOAT64_TEMPLATE, n_rows * n_cols, zero=False)
    empty = bytearray(n_rows * req.size())
    flags = bytearray(n_rows)
    if n_rows == 0:
        return out, bytes(empty), bytes(flags)
    cdef const void* sp = <const void*> &scores[0] if scores.shape[0] else NULL
    cdef const void* yp = <const void*> &y[0] if y.shape[0] else NULL
    cdef double* op = <double*> out.data.as_voidptr
    cdef uint8_t* ep = <uint8_t*> (<char*> empty) if req.size() else NULL
    cdef uint8_t* fp = <uint8_t*> (<char*> flags)
    with nogil:
        # score type 1: float64; relevance type 4: int64 (_dtype_tables' order)
        c_evaluate_aligned(1, 4, sp, yp, &offsets[0], 0, n_rows, plan, op, ep, fp)
    return out, bytes(empty), bytes(flags)
