# The kernel's requests (included by _kernel.pyx): the codes of request.hpp
# read from its enums, request.hpp's Request and Plan, the fields of a
# request as Python sees them (_REQUEST_FIELDS), and the Plan of a call.

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

# The codes as module constants (plain ints): _kernel.NDCG, _kernel.K_NREL, ...
for _codes in (Formula, FormulaReads, Denominator, KCode, Ties, RowFlag, RowCount):
    globals().update({_name: int(_code) for _name, _code in _codes.__members__.items()})
del _codes


# The fields of request.hpp's Request, for REQUEST_DTYPE (a numpy structured
# dtype) and the dicts of evaluate_segments. A new field goes at the end of
# this list, of request.hpp's Request, of the Request declared above and of
# _requests below; requests.kernel_request sets it (0 unless it says).
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

# Their names, in order (requests.kernel_request fills each, without numpy).
REQUEST_FIELD_NAMES = tuple(_name for _name, _ in _REQUEST_FIELDS)


cdef vector[Request] _requests(requests) except *:
    """Requests from a structured array of REQUEST_DTYPE, or a list of dicts
    by field name (evaluate_segments): the fields of request.hpp's Request.
    The array's rows are read as tuples (tolist): a numpy record's fields,
    read by name, cost about 1 us each."""
    if isinstance(requests, list):
        rows = [tuple([d[name] for name in REQUEST_FIELD_NAMES]) for d in requests]
    elif requests.dtype.names != REQUEST_FIELD_NAMES:
        raise TypeError("requests must be an array of REQUEST_DTYPE.")
    else:
        rows = requests.tolist()
    cdef vector[Request] out
    cdef Request r
    for (formula, denominator, exponential, curve, k, col, log_base, beta, level, levels,
         n_levels, p, u_tp, u_fp, u_fn, u_tn, max_grade, gain_grades, gain_values, n_gain,
         disc, n_disc) in rows:
        r.formula = formula
        r.denominator = denominator
        r.exponential = exponential
        r.curve = curve
        r.k = k
        r.col = col
        r.log_base = log_base
        r.beta = beta
        r.level = level
        r.levels = <const double*> <size_t> levels
        r.n_levels = n_levels
        r.p = p
        r.u_tp = u_tp
        r.u_fp = u_fp
        r.u_fn = u_fn
        r.u_tn = u_tn
        r.max_grade = max_grade
        r.gain_grades = <const double*> <size_t> gain_grades
        r.gain_values = <const double*> <size_t> gain_values
        r.n_gain = n_gain
        r.disc = <const double*> <size_t> disc
        r.n_disc = n_disc
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
