# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
# distutils: language = c++
"""The compiled top-k kernel: the only place where rows are ranked.

For every row of a score matrix, one pass keeps the best ``K`` items in a
small heap (or, when ``K`` is a large fraction of the row, a selection over
the whole row), orders them (score descending, lower column first among
ties) and records the tie groups the exact tie-aware metrics need. While the
row is in cache, a second pass reads the relevance of the row: the number of
relevant items, the relevance summed over the items tied with the K-th score
(the group that straddles the cut-off, including its members beyond it) and,
on request, the ``K`` largest relevant grades (the ideal ranking of nDCG).

Relevance comes from a dense matrix (any numeric dtype) or directly from CSR
arrays (``indptr``, ``indices``, ``data``), never densified. Rows are spread
over OpenMP threads; the GIL is released.
"""

from cython.parallel cimport parallel, prange
from libc.math cimport exp2, INFINITY
from libc.stdlib cimport free, malloc
from libcpp.algorithm cimport nth_element, sort as cpp_sort
from libcpp.pair cimport pair

cdef extern from "_portable.h":
    int rankk_ctz64(unsigned long long) noexcept nogil
    int rankk_max_threads() noexcept nogil
    int rankk_openmp_enabled() noexcept nogil
    const char* rankk_compiler() noexcept nogil

cdef extern from "_simd.h":
    unsigned long long rankk_mask32_f64(const double* s, double worst) noexcept nogil
    unsigned long long rankk_mask32_f32(const float* s, double worst) noexcept nogil

import math

import numpy as np

ctypedef fused floating:
    float
    double

ctypedef fused relevance:
    unsigned char
    signed char
    short
    int
    long long
    unsigned short
    unsigned int
    unsigned long long
    float
    double

ctypedef pair[double, Py_ssize_t] keyed

# Scores tested at once against the worst kept score (see _select_row).
DEF CHUNK = 32
# How a dense row's relevance is tested (see rank_dense).
DEF FLOAT_COMPARE = 0
DEF INT_COMPARE = 1
DEF ALL_RELEVANT = 2
DEF NONE_RELEVANT = 3
# Up to this K, the best K are kept in a sorted buffer rather than a heap
# (measured faster up to 64: the shifts are predictable branches).
DEF SMALL_K = 64


def max_threads():
    """OpenMP's thread limit (honours OMP_NUM_THREADS and threadpoolctl)."""
    return rankk_max_threads()


def openmp_enabled():
    """Whether the kernel was compiled with OpenMP (else rows run on one thread)."""
    return bool(rankk_openmp_enabled())


def compiler():
    """The compiler that built the kernel, as its predefined macros name it."""
    return rankk_compiler().decode("ascii", "replace").strip()


# -- the best K of a row ------------------------------------------------------
# A min-heap on (value, -column): its root is the worst kept item, so an item
# enters only if its value is strictly larger (an equal value comes from a
# later column and ranks after it).

cdef inline bint _worse(double v1, Py_ssize_t j1, double v2, Py_ssize_t j2) noexcept nogil:
    return v1 < v2 or (v1 == v2 and j1 > j2)


cdef inline void _sift_down(double* hv, Py_ssize_t* hj, Py_ssize_t size,
                            Py_ssize_t i) noexcept nogil:
    cdef Py_ssize_t child, worst
    cdef double tv
    cdef Py_ssize_t tj
    while True:
        worst = i
        child = 2 * i + 1
        if child < size and _worse(hv[child], hj[child], hv[worst], hj[worst]):
            worst = child
        child = child + 1
        if child < size and _worse(hv[child], hj[child], hv[worst], hj[worst]):
            worst = child
        if worst == i:
            return
        tv = hv[i]; hv[i] = hv[worst]; hv[worst] = tv
        tj = hj[i]; hj[i] = hj[worst]; hj[worst] = tj
        i = worst


cdef inline void _sift_up(double* hv, Py_ssize_t* hj, Py_ssize_t i) noexcept nogil:
    cdef Py_ssize_t parent
    cdef double tv
    cdef Py_ssize_t tj
    while i > 0:
        parent = (i - 1) // 2
        if not _worse(hv[i], hj[i], hv[parent], hj[parent]):
            return
        tv = hv[i]; hv[i] = hv[parent]; hv[parent] = tv
        tj = hj[i]; hj[i] = hj[parent]; hj[parent] = tj
        i = parent


cdef inline void _note_tie(double worst, double* eq_value,
                           Py_ssize_t* eq_count) noexcept nogil:
    """Count an item left out (turned away or evicted) at score ``worst``."""
    if worst == eq_value[0]:
        eq_count[0] += 1
    else:
        eq_value[0] = worst
        eq_count[0] = 1


cdef inline double _keep(bint small, double v, Py_ssize_t i, Py_ssize_t K,
                         double* bv, Py_ssize_t* bj) noexcept nogil:
    """Put item ``i`` of score ``v`` in place of the worst kept one.

    ``small``: the buffer is sorted (score descending; an equal score came
    earlier, so it stays ahead), else it is a heap. Returns the new worst.
    """
    cdef Py_ssize_t p
    if small:
        p = K - 1
        while p > 0 and v > bv[p - 1]:
            bv[p] = bv[p - 1]
            bj[p] = bj[p - 1]
            p -= 1
        bv[p] = v
        bj[p] = i
        return bv[K - 1]
    bv[0] = v
    bj[0] = i
    _sift_down(bv, bj, K, 0)
    return bv[0]


cdef inline unsigned long long _mask32(const floating[::1] s, Py_ssize_t j,
                                      double worst) noexcept nogil:
    """Bit i set when ``s[j + i] >= worst``, for i < CHUNK (= 32)."""
    if floating is double:
        return rankk_mask32_f64(&s[j], worst)
    else:
        return rankk_mask32_f32(&s[j], worst)


cdef Py_ssize_t _select_row(const floating[::1] s, Py_ssize_t K, double* hv,
                            Py_ssize_t* hj, keyed* work, double* out_v,
                            Py_ssize_t* out_j) noexcept nogil:
    """Best K of the row ``s`` into out_v/out_j in rank order.

    Returns the number of items left out of the top K whose score equals the
    K-th score. When streaming, these are the items turned away (or evicted)
    while the worst kept score was equal to theirs: the worst kept score never
    decreases, so one counter for the latest such score is enough.
    """
    cdef Py_ssize_t m = s.shape[0], i, j, end, size, p, eq_count = 0
    cdef double v, worst, eq_value = INFINITY
    cdef unsigned long long mask
    cdef bint small = K <= SMALL_K
    cdef double* bv = out_v if small else hv
    cdef Py_ssize_t* bj = out_j if small else hj
    if K * 8 < m:
        # Stream the row through a buffer of the best K: sorted for small K,
        # a heap otherwise. Fill it with the first K items...
        for j in range(K):
            if small:
                p = j
                while p > 0 and s[j] > bv[p - 1]:
                    bv[p] = bv[p - 1]
                    bj[p] = bj[p - 1]
                    p -= 1
                bv[p] = s[j]
                bj[p] = j
            else:
                hv[j] = s[j]
                hj[j] = j
                _sift_up(hv, hj, j)
        worst = bv[K - 1] if small else bv[0]
        # ...then most chunks of CHUNK items hold nothing that reaches the
        # worst kept score.
        # The test is a bit mask of the items that reach the worst kept score
        # (SIMD), and only those few are visited.
        j = K
        while j < m:
            if j + CHUNK <= m:
                mask = _mask32(s, j, worst)
            else:
                mask = 0
                for i in range(j, m):
                    mask |= (<unsigned long long>(s[i] >= worst)) << (i - j)
            while mask:
                i = j + rankk_ctz64(mask)
                mask &= mask - 1
                v = s[i]
                if v > worst:
                    _note_tie(worst, &eq_value, &eq_count)  # evicted
                    worst = _keep(small, v, i, K, bv, bj)
                elif v == worst:
                    _note_tie(worst, &eq_value, &eq_count)  # turned away
            j += CHUNK
        if not small:
            # Pop the worst first: fill the ranks from the bottom.
            size = K
            for p in range(K - 1, -1, -1):
                out_v[p] = hv[0]
                out_j[p] = hj[0]
                size -= 1
                hv[0] = hv[size]
                hj[0] = hj[size]
                _sift_down(hv, hj, size, 0)
        return eq_count if eq_value == out_v[K - 1] else 0
    # K is a large fraction of the row: select, then sort the first K.
    for j in range(m):
        work[j].first = -<double>s[j]
        work[j].second = j
    if K < m:
        nth_element(work, work + K - 1, work + m)
    cpp_sort(work, work + K)
    for p in range(K):
        out_v[p] = -work[p].first
        out_j[p] = work[p].second
    for j in range(K, m):
        if -work[j].first == out_v[K - 1]:
            eq_count += 1
    return eq_count


cdef void _groups(const double* v, Py_ssize_t K, Py_ssize_t outside, bint ties,
                  long long* gstart, long long* gsize) noexcept nogil:
    """Tie groups of the ranked values; the last one adds ``outside`` items."""
    cdef Py_ssize_t p, start = 0, end
    if not ties:
        for p in range(K):
            gstart[p] = p
            gsize[p] = 1
        return
    for p in range(K):
        if p > 0 and v[p] != v[p - 1]:
            start = p
        gstart[p] = start
    end = K
    for p in range(K - 1, -1, -1):
        gsize[p] = end - gstart[p]
        if gstart[p] == p:
            end = p
    start = gstart[K - 1]
    for p in range(start, K):
        gsize[p] = K - start + outside


cdef inline void _add_tied(double y, double threshold, bint exponential, double* tr,
                           double* tg, double* te) noexcept nogil:
    """Add an item of the straddling tie group to its relevance sums."""
    if y > threshold:
        tr[0] += 1.0
        tg[0] += y
        if exponential:
            te[0] += exp2(y) - 1.0


cdef inline void _unused_ranks(Py_ssize_t kr, Py_ssize_t K, double* v, Py_ssize_t* j,
                               long long* gstart, long long* gsize) noexcept nogil:
    """Ranks kr..K-1 of a row ranked to kr only: not retrieved, no group."""
    cdef Py_ssize_t p
    for p in range(kr, K):
        v[p] = -INFINITY
        j[p] = 0
        gstart[p] = p
        gsize[p] = 1


cdef void _push_ideal(double* iv, Py_ssize_t* isize, Py_ssize_t K, double y) noexcept nogil:
    """Keep the K largest grades seen (a min-heap of values)."""
    cdef Py_ssize_t i, c, w
    cdef double t
    if isize[0] < K:
        i = isize[0]
        iv[i] = y
        isize[0] += 1
        while i > 0 and iv[(i - 1) // 2] > iv[i]:
            t = iv[i]; iv[i] = iv[(i - 1) // 2]; iv[(i - 1) // 2] = t
            i = (i - 1) // 2
    elif y > iv[0]:
        iv[0] = y
        i = 0
        while True:
            w = i
            c = 2 * i + 1
            if c < K and iv[c] < iv[w]:
                w = c
            if c + 1 < K and iv[c + 1] < iv[w]:
                w = c + 1
            if w == i:
                break
            t = iv[i]; iv[i] = iv[w]; iv[w] = t
            i = w


cdef void _ideal_sorted(double* iv, Py_ssize_t size, double* out, Py_ssize_t K) noexcept nogil:
    """Write the heap's grades in decreasing order, padded with 0."""
    cdef Py_ssize_t p
    cpp_sort(iv, iv + size)
    for p in range(K):
        out[p] = iv[size - 1 - p] if p < size else 0.0


cdef inline long long _count_relevant(const relevance[::1] y, double threshold,
                                     relevance ithreshold, int every) noexcept nogil:
    """Items of the row ``y`` above the threshold (``every``: see rank_dense)."""
    cdef Py_ssize_t j, m = y.shape[0]
    cdef long long count = 0
    if every == ALL_RELEVANT:
        return m
    if every == NONE_RELEVANT:
        return 0
    if every == INT_COMPARE:
        for j in range(m):
            count += y[j] > ithreshold
    else:
        for j in range(m):
            count += y[j] > threshold
    return count


cdef inline void _ideal_of_row(const relevance[::1] y, double threshold,
                               relevance ithreshold, int every, long long count,
                               double* iv, Py_ssize_t* isize,
                               Py_ssize_t K) noexcept nogil:
    """Push the ``count`` relevant grades of the row ``y`` into the ideal heap."""
    cdef Py_ssize_t j, m = y.shape[0]
    cdef long long seen = 0
    for j in range(m):
        if every == INT_COMPARE:
            if not y[j] > ithreshold:
                continue
        elif every == FLOAT_COMPARE and not y[j] > threshold:
            continue
        _push_ideal(iv, isize, K, <double> y[j])
        seen += 1
        if seen == count:  # the rest of the row holds no relevant item
            return


def _check_k(Py_ssize_t K, Py_ssize_t m, row_k, Py_ssize_t n):
    if not 1 <= K <= m:
        raise ValueError(f"K must be in [1, {m}] (the row length); got {K}.")
    if row_k.shape[0] != n or (n and (row_k.min() < 1 or row_k.max() > K)):
        raise ValueError(f"row_k must hold one rank count in [1, {K}] per row.")


def _outputs(Py_ssize_t n, Py_ssize_t K, bint want_ideal):
    """The kernel's output arrays; ``grade`` is 0 where nothing is stored."""
    return {
        "cols": np.empty((n, K), dtype=np.intp),
        "values": np.empty((n, K), dtype=np.float64),
        "gstart": np.empty((n, K), dtype=np.int64),
        "gsize": np.empty((n, K), dtype=np.int64),
        "grade": np.zeros((n, K), dtype=np.float64),
        "n_relevant": np.empty(n, dtype=np.int64),
        "tied_relevant": np.zeros(n, dtype=np.float64),
        "tied_gain": np.zeros(n, dtype=np.float64),
        "tied_gain_exp": np.zeros(n, dtype=np.float64),
        "ideal": np.zeros((n, K if want_ideal else 0), dtype=np.float64),
    }


# -- dense relevance ----------------------------------------------------------

def rank_dense(const floating[:, ::1] scores, const relevance[:, ::1] y_true,
               Py_ssize_t K, const long long[::1] row_k, bint ties,
               double threshold, bint want_ideal, bint exponential, int n_threads):
    """Rank every row of ``scores`` and read the relevance of ``y_true``.

    Returns
    -------
    ``row_k[r]`` (at most ``K``) ranks are produced for row ``r``; its ranks
    beyond are marked not retrieved (score -inf), each its own group.

    dict of arrays: cols, values (score at each rank), gstart, gsize, grade
    (y_true at each rank), n_relevant, tied_relevant, tied_gain and
    tied_gain_exp (sums over the relevant items of the last tie group's whole
    row; the exponential one only if requested), ideal (the K largest
    relevant grades, padded with 0; empty unless requested).
    """
    cdef Py_ssize_t n = scores.shape[0], m = scores.shape[1]
    _check_k(K, m, np.asarray(row_k), n)
    if y_true.shape[0] != n or y_true.shape[1] != m:
        raise ValueError("scores and y_true must have the same shape.")
    out = _outputs(n, K, want_ideal)
    cdef Py_ssize_t[:, ::1] cols = out["cols"]
    cdef double[:, ::1] vals = out["values"]
    cdef long long[:, ::1] gstart = out["gstart"]
    cdef long long[:, ::1] gsize = out["gsize"]
    cdef double[:, ::1] grade = out["grade"]
    cdef long long[::1] nrel = out["n_relevant"]
    cdef double[::1] trel = out["tied_relevant"]
    cdef double[::1] tgain = out["tied_gain"]
    cdef double[::1] texp = out["tied_gain_exp"]
    cdef double[:, ::1] ideal = out["ideal"]
    # Integer grades are compared with an integer threshold of their own
    # type (y > t  <=>  y > floor(t)), a comparison gcc vectorises. It gives
    # the float comparison double(y) > t exactly while |t| < 2**53 - 1
    # (beyond, 64-bit grades round); other thresholds compare as floats.
    cdef int every = FLOAT_COMPARE
    cdef relevance ithreshold = 0
    if relevance is not float and relevance is not double:
        info = np.iinfo(np.asarray(y_true).dtype)
        floor_t = math.floor(threshold) if math.isfinite(threshold) else None
        if floor_t is not None and abs(floor_t) < 2**53 - 1:
            if floor_t < info.min:
                every = ALL_RELEVANT
            elif floor_t >= info.max:
                every = NONE_RELEVANT
            else:
                every = INT_COMPARE
                ithreshold = <relevance> floor_t
    cdef Py_ssize_t r, j, p, outside, isize, kr
    cdef long long count
    cdef double kth, y, tr, tg, te
    cdef double* hv
    cdef Py_ssize_t* hj
    cdef keyed* work
    cdef double* iv
    cdef bint ok
    cdef int[::1] failed = np.zeros(1, dtype=np.intc)
    with nogil, parallel(num_threads=n_threads):
        hv = <double*> malloc(K * sizeof(double))
        hj = <Py_ssize_t*> malloc(K * sizeof(Py_ssize_t))
        work = <keyed*> malloc(m * sizeof(keyed)) if K * 8 >= m else NULL
        iv = <double*> malloc(K * sizeof(double))
        ok = hv != NULL and hj != NULL and iv != NULL and (work != NULL or K * 8 < m)
        for r in prange(n, schedule="static"):
            if not ok:
                failed[0] = 1
                continue
            kr = row_k[r]
            outside = _select_row(scores[r], kr, hv, hj, work, &vals[r, 0], &cols[r, 0])
            kth = vals[r, kr - 1]
            count = _count_relevant(y_true[r], threshold, ithreshold, every)
            isize = 0
            if want_ideal and count > 0:
                _ideal_of_row(y_true[r], threshold, ithreshold, every, count,
                              iv, &isize, K)
            nrel[r] = count
            for p in range(kr):
                grade[r, p] = y_true[r, cols[r, p]]
            _groups(&vals[r, 0], kr, outside, ties, &gstart[r, 0], &gsize[r, 0])
            _unused_ranks(kr, K, &vals[r, 0], &cols[r, 0], &gstart[r, 0], &gsize[r, 0])
            if ties:
                tr = 0.0
                tg = 0.0
                te = 0.0
                if outside == 0:  # the last tie group lies inside the top K
                    for p in range(gstart[r, kr - 1], kr):
                        _add_tied(grade[r, p], threshold, exponential, &tr, &tg, &te)
                else:
                    for j in range(m):
                        if scores[r, j] == kth:
                            _add_tied(y_true[r, j], threshold, exponential, &tr, &tg, &te)
                trel[r] = tr
                tgain[r] = tg
                texp[r] = te
            if want_ideal:
                _ideal_sorted(iv, isize, &ideal[r, 0], K)
        free(hv)
        free(hj)
        free(work)
        free(iv)
    if failed[0]:
        raise MemoryError("not enough memory for the top-k kernel's row buffers")
    return out


# -- CSR relevance ------------------------------------------------------------

def rank_csr(const floating[:, ::1] scores, const long long[::1] indptr,
             const long long[::1] indices, const relevance[::1] data,
             Py_ssize_t row_offset, Py_ssize_t K, const long long[::1] row_k,
             bint ties, double threshold,
             bint want_ideal, bint exponential, int n_threads):
    """As :func:`rank_dense`, with ``y_true`` rows ``row_offset + r`` in CSR.

    ``indices`` must be sorted within each row and ``threshold >= 0`` (the
    implicit zeros are then not relevant).
    """
    cdef Py_ssize_t n = scores.shape[0], m = scores.shape[1]
    _check_k(K, m, np.asarray(row_k), n)
    if row_offset < 0 or indptr.shape[0] < row_offset + n + 1:
        raise ValueError("indptr does not cover the rows of this block.")
    out = _outputs(n, K, want_ideal)
    cdef Py_ssize_t[:, ::1] cols = out["cols"]
    cdef double[:, ::1] vals = out["values"]
    cdef long long[:, ::1] gstart = out["gstart"]
    cdef long long[:, ::1] gsize = out["gsize"]
    cdef double[:, ::1] grade = out["grade"]
    cdef long long[::1] nrel = out["n_relevant"]
    cdef double[::1] trel = out["tied_relevant"]
    cdef double[::1] tgain = out["tied_gain"]
    cdef double[::1] texp = out["tied_gain_exp"]
    cdef double[:, ::1] ideal = out["ideal"]
    cdef Py_ssize_t r, j, p, outside, isize, a, b, lo, hi, mid, c, kr
    cdef long long count
    cdef double kth, y, tr, tg, te
    cdef double* hv
    cdef Py_ssize_t* hj
    cdef keyed* work
    cdef double* iv
    cdef bint ok
    cdef int[::1] failed = np.zeros(1, dtype=np.intc)
    with nogil, parallel(num_threads=n_threads):
        hv = <double*> malloc(K * sizeof(double))
        hj = <Py_ssize_t*> malloc(K * sizeof(Py_ssize_t))
        work = <keyed*> malloc(m * sizeof(keyed)) if K * 8 >= m else NULL
        iv = <double*> malloc(K * sizeof(double))
        ok = hv != NULL and hj != NULL and iv != NULL and (work != NULL or K * 8 < m)
        for r in prange(n, schedule="static"):
            if not ok:
                failed[0] = 1
                continue
            kr = row_k[r]
            outside = _select_row(scores[r], kr, hv, hj, work, &vals[r, 0], &cols[r, 0])
            kth = vals[r, kr - 1]
            a = indptr[row_offset + r]
            b = indptr[row_offset + r + 1]
            count = 0
            isize = 0
            for j in range(a, b):
                y = data[j]
                if y > threshold:
                    count = count + 1
                    if want_ideal:
                        _push_ideal(iv, &isize, K, y)
            nrel[r] = count
            for p in range(kr):
                c = cols[r, p]
                lo = a
                hi = b
                while lo < hi:
                    mid = (lo + hi) // 2
                    if indices[mid] < c:
                        lo = mid + 1
                    else:
                        hi = mid
                if lo < b and indices[lo] == c:
                    grade[r, p] = data[lo]
            _groups(&vals[r, 0], kr, outside, ties, &gstart[r, 0], &gsize[r, 0])
            _unused_ranks(kr, K, &vals[r, 0], &cols[r, 0], &gstart[r, 0], &gsize[r, 0])
            if ties:
                tr = 0.0
                tg = 0.0
                te = 0.0
                if outside == 0:  # the last tie group lies inside the top K
                    for p in range(gstart[r, kr - 1], kr):
                        _add_tied(grade[r, p], threshold, exponential, &tr, &tg, &te)
                else:  # only stored items can be relevant (threshold >= 0)
                    for j in range(a, b):
                        if scores[r, indices[j]] == kth:
                            _add_tied(data[j], threshold, exponential, &tr, &tg, &te)
                trel[r] = tr
                tgain[r] = tg
                texp[r] = te
            if want_ideal:
                _ideal_sorted(iv, isize, &ideal[r, 0], K)
        free(hv)
        free(hj)
        free(work)
        free(iv)
    if failed[0]:
        raise MemoryError("not enough memory for the top-k kernel's row buffers")
    return out
