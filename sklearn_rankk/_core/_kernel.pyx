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

cdef extern from "request.hpp" namespace "rankk" nogil:
    # The codes, defined in request.hpp only: each enum is a Python IntEnum
    # here, and its members module constants (below).
    cpdef enum Formula:
        PRECISION
        RECALL
        F1
        HIT
        RECIPROCAL_RANK
        AVERAGE_PRECISION
        DCG
        NDCG
        FBETA
        RELATIVE_PRECISION
        SET_AVERAGE_PRECISION
        IPREC
        ELEVEN_PT
        BPREF
        INFERRED_AP
        UNJUDGED
        RBP_RESIDUAL
        RBP
        RNDCG
        BING
        UTILITY
        NDCG_REL
        G_GAIN
        ERR
        FALL_OUT
        AUC
        PAIRWISE_ACCURACY
        COUNT_ROW
        IDEAL_DCG
        SDCG
        YAAP
        ALPHA_GAIN
        INTENT_PRECISION
        INTENT_HIT
        INTENT_ALPHA
        ITEM_WEIGHTS

    cpdef enum FormulaReads:
        READS_ORDER
        SET_SUM
        READS_IDEAL
        READS_JUDGED

    cpdef enum Denominator:
        DEN_RELEVANT
        DEN_MIN
        DEN_RETRIEVED

    cpdef enum KCode:
        K_WHOLE
        K_NREL
        K_NRET

    cpdef enum Ties:
        TIES_EXACT
        TIES_LATER_FIRST

    cpdef enum RowCount:
        COUNT_RELEVANT
        COUNT_JUDGED
        COUNT_AUC_PAIRS
        COUNT_GRADED_PAIRS

    cpdef enum RowFlag:
        FLAG_NAN_SCORE
        FLAG_NAN_REL
        FLAG_INF_REL
        FLAG_EXP_OVERFLOW
        FLAG_NO_MEMORY
        FLAG_TIES_TOO_MANY

    uint32_t formula_reads(int32_t formula)

    cdef struct Request:
        int32_t formula
        int32_t denominator
        int32_t exponential
        int32_t curve
        int64_t k
        int64_t col
        double log_base
        double beta
        double level
        const double* levels
        int64_t n_levels
        double p
        double u_tp
        double u_fp
        double u_fn
        double u_tn
        double max_grade
        const double* gain_grades
        const double* gain_values
        int64_t n_gain
        const double* disc
        int64_t n_disc

    cdef struct Plan:
        const Request* req
        int32_t n_req
        int32_t ties
        double threshold
        int32_t want_ideal
        int32_t any_exponential
        int32_t want_judged
        int32_t n_threads
        int64_t out_stride

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


cdef extern from "<string_view>" namespace "std" nogil:
    cdef cppclass string_view:
        const char* data()
        size_t size()

cdef extern from "trec.hpp" namespace "rankk" nogil:
    cdef cppclass StringTable:
        vector[string_view] strings
        vector[int64_t] first_line
        vector[int64_t] ranks()

    cdef cppclass TrecEntries:
        vector[int64_t] qid, doc, line, grade
        vector[double] score
        string tag
        int64_t error_line
        string error

    void c_parse_trec "rankk::parse_trec"(
        const char* data, size_t size, int kind, StringTable& qids,
        StringTable& docs, TrecEntries& out) except +
    int64_t first_invalid_utf8_line "rankk::first_invalid_utf8_line"(
        const unsigned char* s, size_t n)

    cdef cppclass TrecJoin:
        StringTable qids
        TrecEntries qrels_status, run_status
        vector[int64_t] row_qid, left_out
        int64_t n_judged_queries, n_run_queries
        int dup_kind
        int64_t dup_line, dup_qid
        string_view dup_doc
        cbool parse(int kind, const char* data, size_t size) except +
        void select(cbool complete) except +
        size_t capacity()
        int64_t fill(const char* qrels_data, const char* run_data, cbool mark_unjudged,
                     int64_t max_retrieved, cbool judged_only, int64_t* y_true,
                     double* y_score, int64_t* offsets) except +


cdef extern from "_portable.h" nogil:
    int rankk_max_threads()
    int rankk_openmp_enabled()
    const char* rankk_compiler()

# The codes as module constants (plain ints): _kernel.NDCG, _kernel.K_NREL, ...
for _codes in (Formula, FormulaReads, Denominator, KCode, Ties, RowFlag, RowCount):
    globals().update({_name: int(_code) for _name, _code in _codes.__members__.items()})
del _codes

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


cdef vector[Request] _requests(requests) except *:
    """Requests from a structured array with the fields of request.hpp's Request."""
    cdef vector[Request] out
    cdef Request r
    for row in requests:
        r.formula = row["formula"]
        r.denominator = row["denominator"]
        r.exponential = row["exponential"]
        r.curve = row["curve"]
        r.k = row["k"]
        r.col = row["col"]
        r.log_base = row["log_base"]
        r.beta = row["beta"]
        r.level = row["level"]
        r.levels = <const double*> <size_t> row["levels"]
        r.n_levels = row["n_levels"]
        r.p = row["p"]
        r.u_tp = row["u_tp"]
        r.u_fp = row["u_fp"]
        r.u_fn = row["u_fn"]
        r.u_tn = row["u_tn"]
        r.max_grade = row["max_grade"]
        r.gain_grades = <const double*> <size_t> row["gain_grades"]
        r.gain_values = <const double*> <size_t> row["gain_values"]
        r.n_gain = row["n_gain"]
        r.disc = <const double*> <size_t> row["disc"]
        r.n_disc = row["n_disc"]
        out.push_back(r)
    return out


cdef Plan _plan(const vector[Request]& req, int ties, double threshold, int n_threads,
                int64_t out_stride):
    cdef Plan plan
    cdef size_t i
    plan.req = req.data()
    plan.n_req = <int32_t> req.size()
    plan.ties = ties
    plan.threshold = threshold
    plan.want_ideal = 0
    plan.any_exponential = 0
    plan.want_judged = 0
    for i in range(req.size()):
        if formula_reads(req[i].formula) & READS_JUDGED:
            plan.want_judged = 1
        # ERR with max_grade=None reads the row's top grade from the ideal.
        if formula_reads(req[i].formula) & READS_IDEAL or (
            req[i].formula == ERR and req[i].max_grade != req[i].max_grade
        ):
            plan.want_ideal = 1
        if req[i].exponential:
            plan.any_exponential = 1
    plan.n_threads = n_threads
    plan.out_stride = out_stride
    return plan


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
    if offsets is None:
        # y of the intent-aware requests (INTENT_*): (n_rows, m, n_intents)
        f = requests["formula"]
        intents = requests["n_levels"][(f >= INTENT_PRECISION) & (f <= INTENT_ALPHA)][:1].tolist()
        if scores.ndim != 2 or y.shape != scores.shape + tuple(intents):
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
    cdef vector[Request] req = _requests(requests)
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


# The fields of request.hpp's Request, for REQUEST_DTYPE (a numpy structured
# dtype) and the dicts of evaluate_segments.
_REQUEST_FIELDS = [
    ("formula", "int32"),
    ("denominator", "int32"),
    ("exponential", "int32"),
    ("curve", "int32"),
    ("k", "int64"),
    ("col", "int64"),
    ("log_base", "float64"),
    ("beta", "float64"),
    ("level", "float64"),
    ("levels", "uint64"),  # address of ELEVEN_PT's float64 levels
    ("n_levels", "int64"),
    ("p", "float64"),
    ("u_tp", "float64"),
    ("u_fp", "float64"),
    ("u_fn", "float64"),
    ("u_tn", "float64"),
    ("max_grade", "float64"),
    ("gain_grades", "uint64"),  # address of the gain map's float64 grades
    ("gain_values", "uint64"),  # and of their gains
    ("n_gain", "int64"),
    ("disc", "uint64"),  # address of the float64 discounts of ranks 1..n_disc
    ("n_disc", "int64"),
]


# -- TREC files -----------------------------------------------------------------

cdef object _int64_array(const vector[int64_t]& v):
    out = np.empty(v.size(), dtype=np.int64)
    if v.size():
        memcpy(<void*> <size_t> out.ctypes.data, v.data(), v.size() * sizeof(int64_t))
    return out


cdef object _float64_array(const vector[double]& v):
    out = np.empty(v.size(), dtype=np.float64)
    if v.size():
        memcpy(<void*> <size_t> out.ctypes.data, v.data(), v.size() * sizeof(double))
    return out


cdef object _table(StringTable& table):
    """A string table as (one bytes blob, int64 offsets, first lines)."""
    cdef size_t i, n = table.strings.size(), total = 0
    for i in range(n):
        total += table.strings[i].size()
    blob = bytearray(total)
    offsets = np.empty(n + 1, dtype=np.int64)
    cdef char* b = blob
    cdef int64_t[::1] off = offsets
    cdef size_t at = 0
    off[0] = 0
    for i in range(n):
        memcpy(b + at, table.strings[i].data(), table.strings[i].size())
        at += table.strings[i].size()
        off[i + 1] = at
    return bytes(blob), offsets, _int64_array(table.first_line)


def parse_trec_files(qrels, run):
    """Parse a qrels file and a run file (their bytes; either may be None).

    Returns a dict: ``"qrels"`` and ``"run"`` (None, an error ``(line,
    message)``, or the entries: qid and doc ids, grades or scores, line
    numbers, and for a run the last line's tag), and the shared string
    tables ``"qids"`` and ``"docs"`` as ``(blob, offsets, first_line)``, with
    each docno's rank in byte order (``"doc_rank"``) and each qid's
    (``"qid_rank"``).
    """
    cdef StringTable qids, docs
    cdef TrecEntries q_out, r_out
    cdef const unsigned char[::1] buf
    result = {"qrels": None, "run": None}
    for name, data, kind in (("qrels", qrels, 0), ("run", run, 1)):
        if data is None:
            continue
        buf = data
        n = buf.shape[0]
        bad = first_invalid_utf8_line(&buf[0] if n else NULL, n)
        if bad:
            result[name] = ("utf-8", bad)
            return result
        out = &q_out if kind == 0 else &r_out
        with nogil:
            c_parse_trec(<const char*> &buf[0] if n else NULL, n, kind, qids, docs,
                         out[0])
        if out.error_line:
            result[name] = ("error", out.error_line, out.error.decode("utf-8", "replace"))
            return result
        entries = {
            "qid": _int64_array(out.qid),
            "doc": _int64_array(out.doc),
            "line": _int64_array(out.line),
        }
        if kind == 0:
            entries["grade"] = _int64_array(out.grade)
        else:
            entries["score"] = _float64_array(out.score)
            entries["tag"] = out.tag.decode("utf-8")
        result[name] = entries
    result["qids"] = _table(qids)
    result["docs"] = _table(docs)
    result["qid_rank"] = _int64_array(qids.ranks())
    result["doc_rank"] = _int64_array(docs.ranks())
    return result


cdef str _view_str(string_view v):
    return v.data()[:v.size()].decode("utf-8")


def join_trec_files(qrels, run, bint complete, bint mark_unjudged, max_retrieved,
                    bint judged_only, bint lite=False):
    """A qrels file and a run (their bytes) joined query by query in C++.

    Returns a dict: ``"y_true"`` (int64), ``"y_score"`` (float64) and
    ``"offsets"`` (int64): one segment per query (see trec.hpp's
    ``TrecJoin::fill``), written by the parser into these arrays, not
    copied; ``"qids"`` (the query of each segment), ``"left_out"`` (judged
    queries without results, not evaluated) and ``"runid"``. Or, on a bad
    file, a tuple: ``("utf-8", kind, line)``, ``("error", kind, line,
    message)``, ``("duplicate", kind, line, docno, qid)`` or ``("none",
    run queries, judged queries)``; kind is ``"qrels"`` or ``"run"``.
    ``lite``: the three arrays are ``array.array`` (``"q"``, ``"d"``,
    ``"q"``) instead of numpy arrays, and numpy is not imported.
    """
    cdef TrecJoin join
    cdef const unsigned char[::1] q_buf = qrels
    cdef const unsigned char[::1] r_buf = run
    cdef const char* q_data = <const char*> &q_buf[0] if q_buf.shape[0] else NULL
    cdef const char* r_data = <const char*> &r_buf[0] if r_buf.shape[0] else NULL
    cdef size_t q_n = q_buf.shape[0], r_n = r_buf.shape[0]
    cdef int64_t bad
    cdef int kind
    cdef cbool ok
    cdef TrecEntries* status
    for kind, name in ((0, "qrels"), (1, "run")):
        bad = first_invalid_utf8_line(<const unsigned char*> (q_data if kind == 0 else r_data),
                                      q_n if kind == 0 else r_n)
        if bad:
            return ("utf-8", name, bad)
        with nogil:
            ok = join.parse(kind, q_data if kind == 0 else r_data, q_n if kind == 0 else r_n)
        if not ok:
            status = &join.qrels_status if kind == 0 else &join.run_status
            return ("error", name, status.error_line,
                    status.error.decode("utf-8", "replace"))
    join.select(complete)
    cdef size_t n_rows = join.row_qid.size(), cap = join.capacity()
    cdef size_t room = cap if cap else 1
    cdef int64_t* tp
    cdef double* sp
    cdef int64_t* op
    if lite:
        y_true = carray.clone(_INT64_TEMPLATE, room, zero=False)
        y_score = carray.clone(_FLOAT64_TEMPLATE, room, zero=False)
        offsets = carray.clone(_INT64_TEMPLATE, n_rows + 1, zero=False)
        tp = <int64_t*> (<carray.array> y_true).data.as_voidptr
        sp = <double*> (<carray.array> y_score).data.as_voidptr
        op = <int64_t*> (<carray.array> offsets).data.as_voidptr
    else:
        y_true = np.empty(room, dtype=np.int64)
        y_score = np.empty(room, dtype=np.float64)
        offsets = np.empty(n_rows + 1, dtype=np.int64)
        tp = <int64_t*> <size_t> y_true.ctypes.data
        sp = <double*> <size_t> y_score.ctypes.data
        op = <int64_t*> <size_t> offsets.ctypes.data
    cdef int64_t m = -1 if max_retrieved is None else max_retrieved
    cdef int64_t n_out
    with nogil:
        n_out = join.fill(q_data, r_data, mark_unjudged, m, judged_only, tp, sp, op)
    if n_out < 0:
        return ("duplicate", "qrels" if join.dup_kind == 0 else "run", join.dup_line,
                _view_str(join.dup_doc), _view_str(join.qids.strings[join.dup_qid]))
    if n_rows == 0:
        return ("none", join.n_run_queries, join.n_judged_queries)
    if lite:
        carray.resize(y_true, n_out)
        carray.resize(y_score, n_out)
    else:
        y_true, y_score = y_true[:n_out], y_score[:n_out]
    return {
        "y_true": y_true,
        "y_score": y_score,
        "offsets": offsets,
        "qids": [_view_str(join.qids.strings[q]) for q in join.row_qid],
        "left_out": [_view_str(join.qids.strings[q]) for q in join.left_out],
        "runid": join.run_status.tag.decode("utf-8"),
    }


cdef extern from "<stdio.h>" nogil:
    int snprintf(char* s, size_t n, const char* fmt, ...)


def format_lines(list qids, list heads, list columns):
    """trec_eval's per-query lines, ``head + qid + "\\t" + value + "\\n"``,
    query by query (outer) and column by column (inner), as one bytes.

    ``columns``: one per head, each a float64 array (printed ``%6.4f``, as
    trec_eval's printf does), an int64 array (printed as an integer) or a
    list of str (printed as given); numpy arrays or ``array.array`` of
    type ``"d"`` or ``"q"``.
    """
    cdef Py_ssize_t n_rows = len(qids), n_cols = len(heads), i, j
    cdef string out
    cdef char buf[64]
    cdef int width
    cdef double v
    cdef vector[int] kind
    cdef vector[const double*] floats
    cdef vector[const int64_t*] ints
    cdef vector[string] encoded_qids, encoded_heads
    kept, texts = [], []
    for q in qids:
        encoded_qids.push_back(q.encode("utf-8") + b"\t")
    for h in heads:
        encoded_heads.push_back(h.encode("utf-8"))
    for c in columns:
        if len(c) != n_rows:
            raise ValueError("every column must have one value per query.")
        if isinstance(c, list):
            kind.push_back(2)
            texts.append([t.encode("utf-8") for t in c])
            c = None
        elif isinstance(c, array.array):  # the command line's numpy-free columns
            if c.typecode not in ("q", "d"):
                raise TypeError("an array.array column must be of type 'q' or 'd'.")
            # (not one push_back of a conditional: Cython 3 gives its temporary
            # the type of kind.back(), a reference)
            if c.typecode == "q":
                kind.push_back(1)
            else:
                kind.push_back(0)
            texts.append(None)
        elif c.dtype == np.int64:
            kind.push_back(1)
            c = np.ascontiguousarray(c)
            texts.append(None)
        else:
            kind.push_back(0)
            c = np.ascontiguousarray(c, dtype=np.float64)
            texts.append(None)
        kept.append(c)
        if c is None or not n_rows:
            address = 0
        elif isinstance(c, array.array):
            address = c.buffer_info()[0]
        else:
            address = c.ctypes.data
        floats.push_back(<const double*> <size_t> address if kind.back() == 0 else NULL)
        ints.push_back(<const int64_t*> <size_t> address if kind.back() == 1 else NULL)
    cdef bytes text
    for i in range(n_rows):
        for j in range(n_cols):
            out.append(encoded_heads[j])
            out.append(encoded_qids[i])
            if kind[j] == 0:
                v = floats[j][i]
                if v == v:
                    width = snprintf(buf, sizeof(buf), "%6.4f", v)
                    out.append(buf, width)
                else:
                    text = ("%6.4f" % v).encode("ascii")
                    out.append(<const char*> text, len(text))
            elif kind[j] == 1:
                width = snprintf(buf, sizeof(buf), "%lld", <long long> ints[j][i])
                out.append(buf, width)
            else:
                text = texts[j][i]
                out.append(<const char*> text, len(text))
            out.push_back(b"\n")
    return out.data()[:out.size()]


def trec_relstrings(const int64_t[::1] y_true, const double[::1] y_score,
                    const int64_t[::1] offsets, Py_ssize_t length):
    """trec_eval's relstring of each segment: one character per retrieved
    document (score above -inf) among the first ``length`` in trec_eval's
    order, where tied documents come by docno descending (the segments hold
    them ascending: each run of equal scores is read backwards). A grade
    0-9 is itself, above 9 ``>``, -1 (never judged) ``-``, -2 (pooled, not
    judged) ``.``, any other negative grade ``<``."""
    cdef Py_ssize_t n_rows = offsets.shape[0] - 1, r, i, j, a, b, end, taken
    cdef int64_t g
    cdef string text
    out = []
    for r in range(n_rows):
        text.clear()
        a = offsets[r]
        end = offsets[r + 1]
        taken = 0
        while a < end and taken < length and y_score[a] > -HUGE_VAL:
            b = a + 1
            while b < end and y_score[b] == y_score[a]:
                b += 1
            j = b - 1
            while j >= a and taken < length:
                g = y_true[j]
                if g > 9:
                    text.push_back(b">")
                elif g >= 0:
                    text.push_back(<char> (48 + g))
                elif g == -1:
                    text.push_back(b"-")
                elif g == -2:
                    text.push_back(b".")
                else:
                    text.push_back(b"<")
                taken += 1
                j -= 1
            a = b
        out.append(text.data()[:text.size()].decode("ascii"))
    return out


def trec_counts(const int64_t[::1] y_true, const double[::1] y_score,
                const int64_t[::1] offsets, int64_t level, bint lite=False):
    """trec_eval's counts of each segment: retrieved (score above -inf),
    relevant (grade >= level), relevant retrieved, and judged (grade >= 0)
    non-relevant retrieved (int64 numpy arrays; with ``lite``,
    ``array.array`` of type ``"q"``)."""
    cdef Py_ssize_t n_rows = offsets.shape[0] - 1, r, i
    if lite:
        ret, rel, rel_ret, nonrel_ret = (
            carray.clone(_INT64_TEMPLATE, n_rows, zero=True) for _ in range(4)
        )
    else:
        ret = np.zeros(n_rows, dtype=np.int64)
        rel = np.zeros(n_rows, dtype=np.int64)
        rel_ret = np.zeros(n_rows, dtype=np.int64)
        nonrel_ret = np.zeros(n_rows, dtype=np.int64)
    cdef int64_t[::1] c_ret = ret, c_rel = rel, c_rel_ret = rel_ret
    cdef int64_t[::1] c_nonrel_ret = nonrel_ret
    cdef bint retrieved, relevant
    with nogil:
        for r in range(n_rows):
            for i in range(offsets[r], offsets[r + 1]):
                retrieved = y_score[i] > -HUGE_VAL
                relevant = y_true[i] >= level
                c_ret[r] += retrieved
                c_rel[r] += relevant
                c_rel_ret[r] += relevant and retrieved
                c_nonrel_ret[r] += (not relevant) and y_true[i] >= 0 and retrieved
    return ret, rel, rel_ret, nonrel_ret
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


# -- Beyond-accuracy measures: item exposure (exposure.hpp) ---------------------

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
