/* The compiled kernel: rows in, metric values out.
 *
 * For every row (a segment of a flat score array, or a row of a dense
 * matrix), one call
 *
 *   1. reads the row's relevance once: |R| (relevant items, y > threshold),
 *      the checks on the values (NaN, infinite, negative grades), and, when a
 *      graded metric needs it, the ideal ranking's grades;
 *   2. reads the row's scores once: the best K items in rank order (K: the
 *      deepest cut-off any request needs for this row) and NaN detection;
 *   3. with the top items in cache, computes every requested metric at every
 *      requested cut-off (or every cut-off 1..k of a curve), exactly under
 *      ties: the value is the expectation over all orderings of tied items
 *      (McSherry & Najork, ECIR 2008), in closed form.
 *
 * Tie modes: TIES_EXACT (the expectation); TIES_LATER_FIRST (one ranking:
 * among equal scores the later column first, scikit-learn's reversed stable
 * argsort, as in top_k_accuracy_score).
 *
 * Notation of the tie-aware formulas, for one row: the item at rank p lies in
 * a tie group of n_g items (whole row, members beyond the cut-off included),
 * r_g of them relevant, starting at rank a_g; o = p - a_g.
 *   e[p] = r_g / n_g                 expected relevance at p (P, R, F1, DCG)
 *   h[p] = r_g / (n_g - o)           P(p relevant | no earlier rank of its
 *                                    group is): hit and reciprocal rank
 *   pair_g = r_g (r_g-1)/(n_g (n_g-1))  E[rel_i rel_j], i != j in one group (AP)
 *
 * Rows are spread over OpenMP threads (dynamic schedule: a busy core does not
 * hold the others back). Nothing here calls Python; the caller releases the
 * GIL.
 */
#ifndef SKLEARN_RANKK_KERNEL_HPP
#define SKLEARN_RANKK_KERNEL_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "_simd.h"

namespace rankk {

// ---- request description (kept in sync with _kernel.pyx) -------------------

enum Formula : int32_t {
    PRECISION = 0,
    RECALL = 1,
    F1 = 2,
    HIT = 3,
    RECIPROCAL_RANK = 4,
    AVERAGE_PRECISION = 5,
    DCG = 6,
    NDCG = 7,
    FBETA = 8,
    RELATIVE_PRECISION = 9,
    SET_AVERAGE_PRECISION = 10,
    // Interpolated precision (iprec_values)
    IPREC = 30,       // at recall level Request.level
    ELEVEN_PT = 31,   // its mean over Request.levels[0 .. n_levels)
    // Measures that read judgments (negative grades: not judged).
    BPREF = 60,
    INFERRED_AP = 61,
    UNJUDGED = 62,
    RBP_RESIDUAL = 63,
    // trec_eval's gain measures and utility (gain_measures.hpp)
    RBP = 40,
    RNDCG = 41,
    BING = 42,
    UTILITY = 43,
    NDCG_REL = 44,
    G_GAIN = 45,
    // Peers' measures (ERR, fall-out): numbered apart from trec_eval's.
    ERR = 20,
    FALL_OUT = 21,
};

enum Denominator : int32_t { DEN_RELEVANT = 0, DEN_MIN = 1, DEN_RETRIEVED = 2 };

// Request.k: > 0 a cut-off; K_WHOLE the whole row; K_NREL each row's |R|;
// K_NRET each row's number of retrieved items (scores above -inf).
constexpr int64_t K_WHOLE = 0;
constexpr int64_t K_NREL = -1;
constexpr int64_t K_NRET = -2;

enum Ties : int32_t { TIES_EXACT = 0, TIES_LATER_FIRST = 1 };

enum RowFlag : uint8_t {
    FLAG_NAN_SCORE = 1,
    FLAG_NAN_REL = 2,
    FLAG_INF_REL = 4,
    FLAG_EXP_OVERFLOW = 16,  // a relevant grade >= 1024 with exponential gain
    FLAG_NO_MEMORY = 128,
};

struct Request {
    int32_t formula;
    int32_t denominator;
    int32_t exponential;
    int32_t curve;  // 1: the values at every cut-off 1..k, in k columns
    int64_t k;
    int64_t col;  // first output column
    double log_base;
    double beta;  // FBETA
    // A real parameter: the multiple of |R| of a K_NREL cut (R-precision's
    // trec_eval Rprec_mult, 1 for R-precision itself); IPREC's recall level.
    double level;
    const double *levels;  // ELEVEN_PT: its recall levels
    int64_t n_levels;
    double p;     // RBP: persistence
    double u_tp, u_fp, u_fn, u_tn;  // UTILITY: coefficients
    double max_grade;  // ERR: g_max of R = (2**g - 1) / 2**g_max; NaN: the row's largest grade
};

struct Plan {
    const Request *req;
    int32_t n_req;
    int32_t ties;
    double threshold;
    int32_t want_ideal;
    int32_t any_exponential;
    int32_t want_judged;  // a measure reads which items were judged
    int32_t n_threads;
    int64_t out_stride;  // output columns per row
};

// ---- relevance of a row ----------------------------------------------------

// How an integer grade is compared with the threshold: y > t exactly when
// y > floor(t) in the grade's own type (vectorisable), while |t| < 2**53 - 1.
enum Compare : int32_t { CMP_FLOAT = 0, CMP_INT = 1, CMP_ALL = 2, CMP_NONE = 3 };

template <class R>
struct Threshold {
    double t;
    int32_t mode;
    R it;
    explicit Threshold(double t_) : t(t_), mode(CMP_FLOAT), it(0) {
        if constexpr (std::is_integral<R>::value) {
            if (std::isfinite(t) && std::fabs(std::floor(t)) < 9007199254740991.0) {
                double f = std::floor(t);
                if (f < (double)std::numeric_limits<R>::min()) {
                    mode = CMP_ALL;
                } else if (f >= (double)std::numeric_limits<R>::max()) {
                    mode = CMP_NONE;
                } else {
                    mode = CMP_INT;
                    it = (R)f;
                }
            }
        }
    }
    inline bool relevant(R y) const {
        if constexpr (std::is_integral<R>::value) {
            if (mode == CMP_INT) return y > it;
            if (mode == CMP_ALL) return true;
            if (mode == CMP_NONE) return false;
        }
        return (double)y > t;
    }
};

// The gains of grade y (> 0): y and 2**y - 1, times 2**-E (E = 0 but for
// rows whose DCG overflows float64, computed again at a smaller scale).
inline double gain_lin(double y, int E) { return E ? std::ldexp(y, -E) : y; }
inline double gain_exp(double y, int E) {
    return E ? std::exp2(y - E) - std::ldexp(1.0, -E) : std::exp2(y) - 1.0;
}

/* Judgments. An item is relevant when y > t; otherwise it is judged
 * non-relevant when y >= 0 and not judged when y < 0: "not pooled" (never
 * shown to an assessor, trec_eval's RELVALUE_NONPOOL, canonically -1) when
 * y > -2, "pooled but not judged" (trec_eval's RELVALUE_UNJUDGED, canonically
 * -2) when y <= -2. Only infAP tells the two unjudged kinds apart. */
struct Unjudged {
    double nonpool = 0.0, pooled = 0.0;
    inline void add(double y, double t) {
        if (!(y > t) && y < 0.0) {
            if (y > -2.0) nonpool += 1.0;
            else pooled += 1.0;
        }
    }
    inline double total() const { return nonpool + pooled; }
};

// A relevant item (y > t) adds 1 to the relevant count and its gain; a
// negative grade has no gain (as in trec_eval).
inline void add_gain(double y, double t, bool exponential, double &r, double &g, double &ge,
                     int E = 0) {
    if (y > t) {
        r += 1.0;
        if (y > 0.0) {
            g += gain_lin(y, E);
            if (exponential) ge += gain_exp(y, E);
        }
    }
}

/* Items of y[0..m) above the integer threshold it; the largest item; items
 * equal to a value. Plain loops the compiler vectorises (AVX2 where the CPU
 * has it: 64-bit comparisons have no SSE2 instruction). */
template <class R>
RANKK_CLONES int64_t count_above(const R *y, int64_t m, R it) {
    int64_t c = 0;
    for (int64_t j = 0; j < m; ++j) c += y[j] > it;
    return c;
}

// count_above and max_of in one read (rows whose ideal ranking is wanted).
template <class R>
RANKK_CLONES int64_t count_above_max(const R *y, int64_t m, R it, R &top) {
    int64_t c = 0;
    R mx = y[0];
    for (int64_t j = 0; j < m; ++j) {
        c += y[j] > it;
        mx = y[j] > mx ? y[j] : mx;
    }
    top = mx;
    return c;
}

template <class R>
RANKK_CLONES R max_of(const R *y, int64_t m) {
    R mx = y[0];
    for (int64_t j = 1; j < m; ++j) mx = y[j] > mx ? y[j] : mx;
    return mx;
}

// The largest item of y[0..m) below b (the type's lowest if none). Integers
// are masked with bit operations, which the compiler vectorises (it does not
// vectorise a conditional inside a max reduction).
template <class R>
RANKK_CLONES R max_below(const R *y, int64_t m, R b) {
    const R lowest = std::numeric_limits<R>::lowest();
    R mx = lowest;
    if constexpr (std::is_integral<R>::value) {
        using U = typename std::make_unsigned<R>::type;
        for (int64_t j = 0; j < m; ++j) {
            const R v = y[j];
            const U drop = (U)0 - (U)(v >= b);
            const R c = (R)(((U)v & ~drop) | ((U)lowest & drop));
            mx = c > mx ? c : mx;
        }
    } else {
        for (int64_t j = 0; j < m; ++j)
            if (y[j] < b && y[j] > mx) mx = y[j];
    }
    return mx;
}

template <class R>
RANKK_CLONES int64_t count_below_zero(const R *y, int64_t m) {
    int64_t c = 0;
    for (int64_t j = 0; j < m; ++j) c += y[j] < (R)0;
    return c;
}

template <class R>
RANKK_CLONES int64_t count_equal(const R *y, int64_t m, R v) {
    int64_t c = 0;
    for (int64_t j = 0; j < m; ++j) c += y[j] == v;
    return c;
}

// Relevance aligned with the scores (dense rows, or segments of flat arrays).
template <class R>
struct Aligned {
    const R *y;
    int64_t m;
    const Threshold<R> *th;
    bool want_top = false;      // the ideal ranking will be read: find the top
    mutable bool has_top = false;  // grade in the counting pass
    mutable R top{};

    int64_t count(uint8_t &flags) const {
        int64_t c = 0;
        const Threshold<R> &T = *th;
        if constexpr (std::is_floating_point<R>::value) {
            int bad = 0;
            for (int64_t j = 0; j < m; ++j) {
                R v = y[j];
                c += (double)v > T.t;
                bad |= (v - v) != (v - v);  // NaN or infinite
            }
            if (bad) {
                for (int64_t j = 0; j < m; ++j) {
                    if (y[j] != y[j]) flags |= FLAG_NAN_REL;
                    else if (std::isinf((double)y[j])) flags |= FLAG_INF_REL;
                }
            }
        } else {
            if (T.mode == CMP_INT) {
                if (want_top && m > 0) {
                    c = count_above_max(y, m, T.it, top);
                    has_top = true;
                } else {
                    c = count_above(y, m, T.it);
                }
            } else if (T.mode == CMP_ALL) {
                c = m;
            } else if (T.mode == CMP_NONE) {
                c = 0;
            } else {
                for (int64_t j = 0; j < m; ++j) c += (double)y[j] > T.t;
            }
        }
        return c;
    }

    /* The `want` largest grades of the row's `count` relevant items,
     * decreasing, into out (fewer if there are fewer). Grade by grade from
     * the largest, each level two vectorised reads of the row in cache (one
     * level for binary relevance); a row of many distinct grades then gathers
     * the relevant ones below the levels taken (branch-free) and partially
     * sorts them. */
    void ideal(std::vector<double> &out, int64_t count, int64_t want) const {
        out.clear();
        want = std::min(want, count);
        if (want <= 0) return;
        const Threshold<R> &T = *th;
        if constexpr (std::is_integral<R>::value) {
            // Integer grades whose top is the least relevant grade (binary
            // relevance): every relevant item has it.
            if (has_top && T.mode == CMP_INT && top == T.it + 1) {
                out.assign((size_t)want, (double)top);
                return;
            }
        }
        R level = has_top ? top : max_of(y, m);
        for (int pass = 0; pass < 4; ++pass) {
            const int64_t n = count_equal(y, m, level);
            out.insert(out.end(), (size_t)std::min(n, want - (int64_t)out.size()), (double)level);
            if ((int64_t)out.size() == want) return;
            level = max_below(y, m, level);
        }
        // The relevant grades at or below `level`, largest first.
        const int64_t have = (int64_t)out.size();
        out.resize(have + m);
        double *g = out.data() + have;
        int64_t n = 0;
        if (T.mode == CMP_INT) {
            for (int64_t j = 0; j < m; ++j) {
                g[n] = (double)y[j];
                n += (y[j] <= level) & (y[j] > T.it);
            }
        } else {
            for (int64_t j = 0; j < m; ++j) {
                g[n] = (double)y[j];
                n += (y[j] <= level) & T.relevant(y[j]);
            }
        }
        const int64_t take = std::min(n, want - have);
        std::nth_element(g, g + take - 1, g + n, std::greater<double>());
        std::sort(g, g + take, std::greater<double>());
        out.resize(have + take);
    }

    inline double grade(int64_t j) const { return (double)y[j]; }

    // Relevant items, and their gains, over the whole row's items of score kth.
    template <class S>
    void tied_sums(const S *s, double kth, double &r, double &g, double &ge, bool exponential,
                   int E = 0) const {
        r = g = ge = 0.0;
        visit_tied(s, kth, [&](double y) { add_gain(y, th->t, exponential, r, g, ge, E); });
    }

    // Items of the row with a negative grade (not judged): 0 for unsigned
    // grades, else one vectorised read.
    int64_t count_negative() const {
        if constexpr (std::is_unsigned<R>::value) return 0;
        else return count_below_zero(y, m);
    }

    // fn(grade) for every item of the whole row whose score is kth, in
    // column order (32 scores compared at a time).
    template <class S, class F>
    void visit_tied(const S *s, double kth, F &&fn) const {
        int64_t j = 0;
        for (; j + 32 <= m; j += 32) {
            uint64_t mask = eq32(s + j, kth);
            while (mask) {
                int64_t i = j + rankk_ctz64(mask);
                mask &= mask - 1;
                fn(grade(i));
            }
        }
        for (; j < m; ++j)
            if ((double)s[j] == kth) fn(grade(j));
    }

    static inline uint64_t eq32(const double *s, double v) { return rankk_eq32_f64(s, v); }
    static inline uint64_t eq32(const float *s, double v) { return rankk_eq32_f32(s, v); }
};

// Relevance of a dense score row in CSR form (sorted indices, threshold >= 0:
// implicit zeros are not relevant).
struct Sparse {
    const int64_t *indices;
    const double *data;
    int64_t a, b;
    double t;

    int64_t count(uint8_t &) const {
        int64_t c = 0;
        for (int64_t j = a; j < b; ++j) c += data[j] > t;
        return c;
    }
    void ideal(std::vector<double> &out, int64_t count, int64_t want) const {
        out.clear();
        for (int64_t j = a; j < b && (int64_t)out.size() < count; ++j)
            if (data[j] > t) out.push_back(data[j]);
        int64_t take = std::min<int64_t>((int64_t)out.size(), want);
        if (take < (int64_t)out.size())
            std::nth_element(out.begin(), out.begin() + take, out.end(), std::greater<double>());
        std::sort(out.begin(), out.begin() + take, std::greater<double>());
        out.resize(take);
    }
    inline double grade(int64_t col) const {
        const int64_t *lo = std::lower_bound(indices + a, indices + b, col);
        return (lo != indices + b && *lo == col) ? data[lo - indices] : 0.0;
    }
    template <class S>
    void tied_sums(const S *s, double kth, double &r, double &g, double &ge, bool exponential,
                   int E = 0) const {
        r = g = ge = 0.0;
        visit_tied(s, kth, [&](double y) { add_gain(y, t, exponential, r, g, ge, E); });
    }
    // Stored items with a negative grade (the others are 0).
    int64_t count_negative() const {
        int64_t c = 0;
        for (int64_t j = a; j < b; ++j) c += data[j] < 0.0;
        return c;
    }
    // fn(grade) for the stored items of score kth (the others are 0).
    template <class S, class F>
    void visit_tied(const S *s, double kth, F &&fn) const {
        for (int64_t j = a; j < b; ++j)
            if ((double)s[indices[j]] == kth) fn(data[j]);
    }
};

// ---- the best K items of a row ----------------------------------------------

// Interpolated precision's groups and work space (see iprec_values).
struct IprecGroup {
    int64_t a, n, r, c0;  // ranks before it, size, relevant items, relevant before
};

struct IprecEvent {
    double x;    // a support point, decreasing
    double cdf;  // P(X_g < x): the group's distribution just below x
};

struct IprecWork {
    std::vector<std::pair<int64_t, int64_t>> cells;  // (c0 + k, a + q)
    std::vector<int64_t> bound;                      // per k: least position allowed
    std::vector<double> H, pmf, suffix, inv;
    std::vector<int64_t> ls;
    std::vector<std::vector<IprecEvent>> events;     // per needed L
    std::vector<std::pair<double, std::pair<int64_t, double>>> merged;
    std::vector<double> tree;
};

struct Scratch {
    // selection: streaming buffers, candidates, the next row's threshold
    std::vector<double> hv, tv;
    std::vector<int64_t> hj, tj, tied_out, group;
    std::vector<std::pair<double, int64_t>> cand;
    std::vector<double> prev;
    // per rank: grade, expected relevance and gains, first-hit probability,
    // same-group pair probability, group start, group size and relevant count
    std::vector<double> grade, e, ecum, eg_lin, eg_exp, h, pair, ng, rg;
    std::vector<int64_t> gstart;
    // per rank, when judgments are read: the group's unjudged items, not
    // pooled and pooled
    std::vector<double> w_np, w_pool;
    // the ideal ranking
    std::vector<double> work_g, ideal_lin, ideal_exp;
    // discounts of DCG; gains scaled down for rows whose DCG overflows
    std::vector<double> disc, scaled;
    double disc_base = 0.0;
    IprecWork iprec;  // interpolated precision's tie-group DP
    // ERR: a tie group's stopping probabilities, the recurrence's means, the
    // row's largest relevant grade
    std::vector<double> err_r, err_m, err_t;
    // fall-out: expected judged non-relevant items in ranks [0, p]
    std::vector<double> nrcum;
};

inline bool worse_exact(double v1, int64_t j1, double v2, int64_t j2) {
    return v1 < v2 || (v1 == v2 && j1 > j2);
}
inline bool worse_later(double v1, int64_t j1, double v2, int64_t j2) {
    return v1 < v2 || (v1 == v2 && j1 < j2);
}

template <bool LATER>
inline bool worse(double v1, int64_t j1, double v2, int64_t j2) {
    return LATER ? worse_later(v1, j1, v2, j2) : worse_exact(v1, j1, v2, j2);
}

template <bool LATER>
inline void sift_down(double *hv, int64_t *hj, int64_t size, int64_t i) {
    for (;;) {
        int64_t w = i, c = 2 * i + 1;
        if (c < size && worse<LATER>(hv[c], hj[c], hv[w], hj[w])) w = c;
        ++c;
        if (c < size && worse<LATER>(hv[c], hj[c], hv[w], hj[w])) w = c;
        if (w == i) return;
        std::swap(hv[i], hv[w]);
        std::swap(hj[i], hj[w]);
        i = w;
    }
}

template <bool LATER>
inline void sift_up(double *hv, int64_t *hj, int64_t i) {
    while (i > 0) {
        int64_t p = (i - 1) / 2;
        if (!worse<LATER>(hv[i], hj[i], hv[p], hj[p])) return;
        std::swap(hv[i], hv[p]);
        std::swap(hj[i], hj[p]);
        i = p;
    }
}

// Items of s[0..32) reaching `worst`, or NaN (bit i for s[i]).
inline uint64_t reach32(const double *s, double worst) { return rankk_reach32_f64(s, worst); }
inline uint64_t reach32(const float *s, double worst) { return rankk_reach32_f32(s, worst); }

constexpr int64_t SMALL_K = 64;  // sorted buffer up to here, a heap above

/* Streaming selection (the fallback of select_top): the best K items of the
 * row s[0..m) into ov/oj, in rank order (score
 * descending; among equal scores the lower column first, or with LATER the
 * later column first). Sets nan when a score is NaN. Returns, in exact mode,
 * the number of items left out whose score equals the K-th (the straddling
 * tie group's members beyond the cut). */
template <class S, bool LATER>
int64_t stream_top(const S *s, int64_t m, int64_t K, double *ov, int64_t *oj, Scratch &sc,
                   bool &nan) {
    int64_t eq_count = 0;
    double eq_value = INFINITY;
    if (K * 8 < m) {
        const bool small = K <= SMALL_K;
        double *bv = small ? ov : sc.hv.data();
        int64_t *bj = small ? oj : sc.hj.data();
        bool bad = false;
        for (int64_t j = 0; j < K; ++j) {
            double v = (double)s[j];
            if (v != v) { bad = true; v = -INFINITY; }
            if (small) {
                int64_t p = j;
                // Later columns first among equals: an equal value moves up.
                while (p > 0 && (LATER ? v >= bv[p - 1] : v > bv[p - 1])) {
                    bv[p] = bv[p - 1];
                    bj[p] = bj[p - 1];
                    --p;
                }
                bv[p] = v;
                bj[p] = j;
            } else {
                bv[j] = v;
                bj[j] = j;
                sift_up<LATER>(bv, bj, j);
            }
        }
        double worst = small ? bv[K - 1] : bv[0];
        uint64_t nanbits = 0;
        int64_t j = K;
        while (j < m) {
            uint64_t mask;
            if (j + 32 <= m) {
                mask = reach32(s + j, worst);
            } else {
                mask = 0;
                for (int64_t i = j; i < m; ++i) mask |= (uint64_t)!((double)s[i] < worst) << (i - j);
            }
            while (mask) {
                int64_t i = j + rankk_ctz64(mask);
                mask &= mask - 1;
                double v = (double)s[i];
                if (v != v) {
                    nanbits = 1;
                } else if (v > worst || (LATER && v == worst)) {
                    if (!LATER) {  // the evicted item is left out at `worst`
                        if (worst == eq_value) ++eq_count;
                        else { eq_value = worst; eq_count = 1; }
                    }
                    if (small) {
                        int64_t p = K - 1;
                        while (p > 0 && (LATER ? v >= bv[p - 1] : v > bv[p - 1])) {
                            bv[p] = bv[p - 1];
                            bj[p] = bj[p - 1];
                            --p;
                        }
                        bv[p] = v;
                        bj[p] = i;
                        worst = bv[K - 1];
                    } else {
                        bv[0] = v;
                        bj[0] = i;
                        sift_down<LATER>(bv, bj, K, 0);
                        worst = bv[0];
                    }
                } else if (!LATER && v == worst) {  // turned away, tied
                    if (worst == eq_value) ++eq_count;
                    else { eq_value = worst; eq_count = 1; }
                }
            }
            j += 32;
        }
        if (nanbits || bad) nan = true;
        if (!small) {
            int64_t size = K;
            for (int64_t p = K - 1; p >= 0; --p) {
                ov[p] = bv[0];
                oj[p] = bj[0];
                --size;
                bv[0] = bv[size];
                bj[0] = bj[size];
                sift_down<LATER>(bv, bj, size, 0);
            }
        }
        return (!LATER && eq_value == ov[K - 1]) ? eq_count : 0;
    }
    return 0;  // not reached: the caller streams only when K * 8 < m
}

// Candidates (score, column) ranked: score descending, then the lower column
// first, or with LATER the later column first.
template <bool LATER>
struct Better {
    bool operator()(const std::pair<double, int64_t> &a,
                    const std::pair<double, int64_t> &b) const {
        return a.first > b.first ||
               (a.first == b.first && (LATER ? a.second > b.second : a.second < b.second));
    }
};

/* Keep the candidates that can still reach the top K: the best `keep` and
 * every candidate tied with the last of them. Returns the new threshold. */
template <bool LATER>
double compact(std::vector<std::pair<double, int64_t>> &cand, int64_t keep) {
    std::nth_element(cand.begin(), cand.begin() + (keep - 1), cand.end(), Better<LATER>());
    double t = cand[keep - 1].first;
    auto end = std::partition(cand.begin() + keep, cand.end(),
                              [t](const std::pair<double, int64_t> &c) { return c.first >= t; });
    cand.erase(end, cand.end());
    return t;
}

/* A threshold that about `want` items of the next row should reach, if it
 * is like the previous one: the previous row's want-th best score when it
 * kept that many, else its lowest kept score when at least `need` items of
 * it reached that, else -inf. The candidates kept: 3K + 8 for the K ranks
 * selected; c + c/4 + 16 when they must also reach a deeper set cut-off c
 * (on W1, c = |R| ~ 30, margins from 8 to c + 8 measured within 1% of one
 * another; select_top reads the row again when too few reach the guess, so
 * the margin grows with c, as the spread of the count does). */
inline int64_t guess_rank(int64_t K) { return 3 * K + 8; }
inline int64_t set_rank(int64_t c) { return c + c / 4 + 16; }

inline double next_guess(Scratch &sc, int64_t want, int64_t need) {
    auto &prev = sc.prev;
    if ((int64_t)prev.size() >= want) {
        std::nth_element(prev.begin(), prev.begin() + (want - 1), prev.end(),
                         std::greater<double>());
        return prev[want - 1];
    }
    if ((int64_t)prev.size() >= need) return *std::min_element(prev.begin(), prev.end());
    return -INFINITY;
}

/* Append to cand the items of s[0..m) whose score is in [lo, hi) (NaN
 * never), cutting the buffer back to the best `keep` when it reaches `cap`
 * (which raises lo). Returns the final lo: cand then holds every item of the
 * row whose score reaches it, when it held every item reaching hi before. */
template <class S, bool LATER>
double collect_between(const S *s, int64_t m, double lo, double hi,
                       std::vector<std::pair<double, int64_t>> &cand, int64_t keep,
                       size_t &cap) {
    int64_t j = 0;
    for (; j + 32 <= m; j += 32) {
        uint64_t mask = reach32(s + j, lo);
        while (mask) {
            int64_t i = j + rankk_ctz64(mask);
            mask &= mask - 1;
            const double v = (double)s[i];
            if (v < hi) cand.emplace_back(v, i);  // NaN: no
        }
        if (cand.size() >= cap) {
            lo = compact<LATER>(cand, keep);
            if (cand.size() * 2 >= cap) cap *= 2;
        }
    }
    for (; j < m; ++j) {
        const double v = (double)s[j];
        if (v >= lo && v < hi) cand.emplace_back(v, j);
    }
    return lo;
}

/* Put the top K candidates c[0..K) in the order the formulas read: ranks
 * [0, D) sorted; ranks [D, K) unsorted but for the items tied with rank D's
 * score, which come first, and those tied with the K-th score, which come
 * last. Every tie group the formulas look at is then contiguous: the one
 * straddling D, the one straddling K. The others in [D, K) are only summed
 * over (set-based metrics at cut K), where their order does not matter.
 * D >= K: all sorted. */
template <class Cand, class Cmp>
void order_top(Cand *c, int64_t K, int64_t D, const Cmp &better) {
    if (D >= K) {
        std::sort(c, c + K, better);
        return;
    }
    // The K-th (worst kept) score; not always at K - 1: the whole-row path
    // skips nth_element when K = m.
    const double last = std::max_element(c, c + K, better)->first;
    if (D > 0) {
        std::nth_element(c, c + (D - 1), c + K, better);
        std::sort(c, c + D, better);
    }
    const double at_d = D > 0 ? c[D - 1].first : INFINITY;
    auto *mid = std::partition(c + D, c + K, [at_d](const Cand &x) { return x.first == at_d; });
    std::partition(mid, c + K, [last](const Cand &x) { return x.first != last; });
}

/* The best K items of the row s[0..m) into ov/oj, ranks [0, D) in rank
 * order (the rest as order_top leaves them; D >= K: all) (score
 * descending; among equal scores the lower column first, or with LATER the
 * later column first). Sets nan when a score is NaN. In exact mode, returns
 * the number of items left out whose score equals the K-th (the straddling
 * tie group's members beyond the cut) and, when `listed` is set, their
 * columns are in sc.tied_out.
 *
 * Method: every item reaching a threshold is appended to a candidate buffer
 * (a SIMD mask finds them; most 32-item chunks hold none), and the buffer is
 * cut back to the best 3K + 8 whenever it fills, raising the threshold. The
 * threshold starts at the previous row's (3K + 8)-th score (rows of one
 * matrix tend to be alike), so a row usually costs one read and about 3K
 * appends (3K + 8 measured fewest instructions per row on W1 and W3 among
 * 2K to 4K + 16; tie groups at the threshold add their size);
 * if the guess was too high (fewer than K candidates), the row is streamed
 * through a sorted buffer or heap instead. Selection over the whole row when
 * K is a large fraction of it.
 *
 * need >= K: the depth the candidates must also reach, for set cut-offs
 * deeper than K (set_cut; need * 8 >= m: the caller passes K = need). The
 * buffer then keeps max(3K + 8, set_rank(need)), and when the guess leaves
 * fewer than `need` candidates, the row is read again for the items below
 * the threshold (collect_between), down to where the candidates' spread
 * puts that many, then, if still too few, to -inf. At the end of the
 * candidate path the buffer holds every item whose score reaches the final
 * threshold (appends take those reaching it; a cut keeps all tied with its
 * last), so the first `need` ranks, with every tie group they touch, are
 * among them; sc.prev holds their scores. */
template <class S, bool LATER>
int64_t select_top(const S *s, int64_t m, int64_t K, int64_t need, double *ov, int64_t *oj,
                   Scratch &sc, bool &nan, bool &listed, int64_t D) {
    auto &cand = sc.cand;
    const Better<LATER> better;
    sc.tied_out.clear();
    listed = true;
    if (need * 8 < m) {
        const bool deep = need > K;
        const int64_t keep = deep ? std::max(guess_rank(K), set_rank(need)) : guess_rank(K);
        // (A set cut-off takes any previous candidates' guess: a shortfall
        // costs a second read, not the streaming fallback.)
        double t = next_guess(sc, keep, deep ? 1 : K);
        cand.clear();
        size_t cap = (size_t)std::max<int64_t>(128, 3 * keep);
        uint64_t nanbits = 0;
        int64_t j = 0;
        for (; j + 32 <= m; j += 32) {
            uint64_t mask = reach32(s + j, t);
            while (mask) {
                int64_t i = j + rankk_ctz64(mask);
                mask &= mask - 1;
                const double v = (double)s[i];
                if (v != v) nanbits = 1;
                else cand.emplace_back(v, i);
            }
            if (cand.size() >= cap) {
                t = compact<LATER>(cand, keep);
                if (cand.size() * 2 >= cap) cap *= 2;  // ties: keep room
            }
        }
        for (; j < m; ++j) {
            double v = (double)s[j];
            if (v != v) nanbits = 1;
            else if (v >= t) cand.emplace_back(v, j);
        }
        if (nanbits) nan = true;
        if (deep && (int64_t)cand.size() < need) {
            /* Too few for the set cut-off: read the row again for the items
             * below the threshold, down to where the candidates' spread
             * (their mean gap) puts rank `keep`, then, if still too few, to
             * -inf. A threshold is a score of type S, so that the SIMD
             * comparison (in S) and the scalar one agree. */
            double lo = -INFINITY;
            const int64_t n = (int64_t)cand.size();
            if (n >= 2) {
                double top = cand[0].first, low = cand[0].first;
                for (const auto &c : cand) {
                    top = std::max(top, c.first);
                    low = std::min(low, c.first);
                }
                const double g = t - (top - low) / (double)(n - 1) * (double)(keep - n);
                if (g < t && g >= (double)std::numeric_limits<S>::lowest())  // NaN: -inf
                    lo = (double)(S)g;
            }
            t = collect_between<S, LATER>(s, m, lo, t, cand, keep, cap);
            if ((int64_t)cand.size() < need)
                t = collect_between<S, LATER>(s, m, -INFINITY, t, cand, keep, cap);
        }
        // Remember this row's best scores: they set the next row's threshold.
        sc.prev.resize(cand.size());
        for (size_t c = 0; c < cand.size(); ++c) sc.prev[c] = cand[c].first;
        if ((int64_t)cand.size() < K) {  // the guess was too high
            sc.prev.clear();
            listed = false;
            return stream_top<S, LATER>(s, m, K, ov, oj, sc, nan);
        }
        std::nth_element(cand.begin(), cand.begin() + (K - 1), cand.end(), better);
        order_top(cand.data(), K, D, better);
        for (int64_t p = 0; p < K; ++p) {
            ov[p] = cand[p].first;
            oj[p] = cand[p].second;
        }
        if (LATER) return 0;
        for (size_t c = K; c < cand.size(); ++c)
            if (cand[c].first == ov[K - 1]) sc.tied_out.push_back(cand[c].second);
        return (int64_t)sc.tied_out.size();
    }
    // K is a large fraction of the row: select, then sort the first K.
    cand.resize(m);
    for (int64_t j = 0; j < m; ++j) {
        double v = (double)s[j];
        if (v != v) { nan = true; v = -INFINITY; }
        cand[j] = {v, j};
    }
    if (K < m) std::nth_element(cand.begin(), cand.begin() + (K - 1), cand.end(), better);
    order_top(cand.data(), K, D, better);
    for (int64_t p = 0; p < K; ++p) {
        ov[p] = cand[p].first;
        oj[p] = cand[p].second;
    }
    if (LATER) return 0;
    for (int64_t j = K; j < m; ++j)
        if (cand[j].first == ov[K - 1]) sc.tied_out.push_back(cand[j].second);
    return (int64_t)sc.tied_out.size();
}

// Scan a row for NaN scores only (rows that need no ranking).
template <class S>
bool has_nan(const S *s, int64_t m) {
    int bad = 0;
    for (int64_t j = 0; j < m; ++j) bad |= s[j] != s[j];
    return bad != 0;
}

// Scores of x[0..n) above v, and equal to v (vectorised).
RANKK_CLONES inline void count_above_equal(const double *x, int64_t n, double v, int64_t &above,
                                           int64_t &equal) {
    int64_t a = 0, e = 0;
    for (int64_t i = 0; i < n; ++i) {
        a += x[i] > v;
        e += x[i] == v;
    }
    above = a;
    equal = e;
}

/* A set cut-off c deeper than the K ranks select_top put in order, from its
 * candidates (every item whose score reaches their lowest, at least c of
 * them, cand[0..K) the top K; `scores` their scores, in any order): the
 * expected relevant items in the first c
 * ranks (cum) and the probability that none of them is relevant (survive,
 * for hit), exact under ties. An item whose tie group lies within the first
 * c ranks counts 1; the group straddling rank c (all its members are
 * candidates) counts its relevant items times the share of its ranks
 * within the cut, and hit multiplies, rank by rank of that group, the
 * chance that the rank is not relevant given that the earlier ones are not.
 * LATER: one ranking, the later column first among equal scores. Items at
 * -inf are at no rank. The same floating-point operations as process_row's
 * group loop for a cut within its ranks, so that a row gets the same value
 * whichever way it is served.
 *
 * With few relevant candidates, each one's place is counted (items above
 * it, items tied with it: branch-free passes); else the c-th score is
 * selected and the candidates are split at it. */
template <bool LATER, class Rel>
void set_cut(std::vector<std::pair<double, int64_t>> &cand, const std::vector<double> &scores,
             int64_t K, int64_t c, const Rel &rel, double t, std::vector<int64_t> &work,
             double &cum, double &survive) {
    const int64_t n = (int64_t)cand.size();
    // r_in: relevant items whose group is within the cut; the straddling
    // group: n_g items, r_g relevant, in_group of its ranks within the cut.
    int64_t r_in = 0, n_g = 0, r_g = 0, in_group = 0;
    work.clear();
    work.resize((size_t)n);
    int64_t n_relevant = 0;  // the relevant candidates' positions
    for (int64_t i = 0; i < n; ++i) {
        work[n_relevant] = i;
        const int64_t relevant = rel.grade(cand[i].second) > t;
        n_relevant += relevant & (int64_t)(cand[i].first > -INFINITY);
    }
    if (n_relevant <= 8) {
        for (int64_t q = 0; q < n_relevant; ++q) {
            const double v = cand[work[q]].first;
            const int64_t col = cand[work[q]].second;
            int64_t above, tied;
            count_above_equal(scores.data(), n, v, above, tied);
            if (LATER && tied > 1) {  // the tied items of later columns
                tied = 0;
                for (int64_t i = 0; i < n; ++i)
                    tied += (int64_t)(cand[i].first == v) & (int64_t)(cand[i].second > col);
            } else if (LATER) {
                tied = 0;
            }
            if (LATER) {
                r_in += above + tied < c;  // its rank
            } else if (above + tied <= c) {
                ++r_in;
            } else if (above < c) {
                ++r_g;
                n_g = tied;
                in_group = c - above;
            }
        }
    } else {
        // cand[0..K) are the top K: the c-th score is the (c - K)-th of the rest.
        std::nth_element(cand.begin() + K, cand.begin() + (c - 1), cand.end(),
                         [](const std::pair<double, int64_t> &a,
                            const std::pair<double, int64_t> &b) { return a.first > b.first; });
        const double at = cand[c - 1].first;
        int64_t above = 0, r_above = 0, r_at = 0, n_at = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double v = cand[i].first;
            if (v >= at) {
                const int64_t r = rel.grade(cand[i].second) > t;
                if (v > at) {
                    ++above;
                    r_above += r;
                } else {
                    ++n_at;
                    r_at += r;
                }
            }
        }
        r_in = r_above;
        if (at == -INFINITY) {  // not retrieved: at no rank
        } else if (LATER) {  // the group's later columns first
            const int64_t want = c - above;
            if (want == n_at) {
                r_in += r_at;
            } else {
                std::vector<int64_t> &cols = work;
                cols.clear();
                for (const auto &x : cand)
                    if (x.first == at) cols.push_back(x.second);
                std::nth_element(cols.begin(), cols.begin() + (want - 1), cols.end(),
                                 std::greater<int64_t>());
                for (int64_t i = 0; i < want; ++i) r_in += rel.grade(cols[i]) > t;
            }
        } else if (above + n_at == c) {
            r_in += r_at;
        } else if (r_at > 0) {
            r_g = r_at;
            n_g = n_at;
            in_group = c - above;
        }
    }
    cum = (double)r_in;
    survive = r_in > 0 ? 0.0 : 1.0;
    if (r_g == 0) return;
    const double rg = (double)r_g, ng = (double)n_g;
    cum += (double)in_group * (rg / ng);
    if (r_in == 0)
        for (int64_t o = 0; o < in_group; ++o) {
            double hv = rg / (ng - (double)o);
            hv = hv > 1.0 ? 1.0 : (hv < 0.0 ? 0.0 : hv);
            survive *= 1.0 - hv;
        }
}

// ---- hypergeometric probabilities --------------------------------------------

inline double lchoose(double a, double b) {
    return std::lgamma(a + 1.0) - std::lgamma(b + 1.0) - std::lgamma(a - b + 1.0);
}

// log(n!) for whole n >= 0, from a per-thread table grown on demand; and
// log C(a, b) from it (the recurrences over tie groups call it O(n r) times).
inline double log_factorial(int64_t n) {
    thread_local std::vector<double> table{0.0};
    while ((int64_t)table.size() <= n)
        table.push_back(table.back() + std::log((double)table.size()));
    return table[(size_t)n];
}
inline double lchoose_int(double a, double b) {
    return log_factorial((int64_t)a) - log_factorial((int64_t)b) -
           log_factorial((int64_t)(a - b));
}



/* Measures that read judgments, walking the tie groups of ranks [0, end).
 * Under exact ties the groups are independent: the items before a group
 * (their relevant, judged non-relevant and unjudged counts) and the group's
 * first rank are fixed, only the order inside the group is random. For an
 * item at offset o of a group of n, the o items before it are a uniformly
 * random o-subset of the group's n - 1 others (multivariate
 * hypergeometric). With ignore_ties every group is one item. */
struct GroupWalk {
    const double *ng, *rg, *w_np, *w_pool;
    const int64_t *gstart;
    int64_t end;
    // f(a, b, n, r, u, wn, wp) for each group: ranks [a, b) (b - a < n when
    // it straddles `end`), n items, r relevant, u judged non-relevant, wn
    // unjudged not pooled, wp unjudged pooled.
    template <class F>
    void each(F &&f) const {
        for (int64_t a = 0; a < end;) {
            int64_t b = a + 1;
            while (b < end && gstart[b] == a) ++b;
            const double n = ng[a], r = rg[a], wn = w_np[a], wp = w_pool[a];
            f(a, b, n, r, n - r - wn - wp, wn, wp);
            a = b;
        }
    }
};

// bpref's term of a relevant item with nb judged non-relevant items above.
inline double bpref_term(double nb, double n_rel, double den) {
    return den > 0.0 ? 1.0 - std::min(nb, n_rel) / den : 1.0;
}

/* bpref (Buckley & Voorhees 2004, trec_eval's m_bpref.c): over the
 * retrieved relevant items, 1 - min(nb, R) / min(N, R), nb the judged
 * non-relevant items ranked above, N those of the row; divided by R. Exact
 * under ties: inside a group with u judged non-relevant items, the number of
 * them above one relevant item is uniform on 0..u (its order among them is
 * uniform), and groups are independent. */
inline double bpref_value(const GroupWalk &w, double n_rel, double n_nonrel) {
    const double den = std::min(n_nonrel, n_rel);
    double total = 0.0, nb0 = 0.0;
    w.each([&](int64_t a, int64_t b, double n, double r, double u, double, double) {
        if (r > 0.0) {
            if ((double)(b - a) == n) {  // the whole group is ranked
                double sum = 0.0;
                for (double x = 0.0; x <= u; x += 1.0) sum += bpref_term(nb0 + x, n_rel, den);
                total += r * sum / (u + 1.0);
            } else {  // offsets [0, b - a) of the group: condition on the offset
                for (int64_t o = 0; o < b - a; ++o) {
                    const double oo = (double)o, lnorm = lchoose_int(n - 1.0, oo);
                    for (double y = std::max(0.0, oo - (n - 1.0 - u)); y <= std::min(oo, u); y += 1.0)
                        total += r / n * std::exp(lchoose_int(u, y) + lchoose_int(n - 1.0 - u, oo - y) - lnorm) *
                                 bpref_term(nb0 + y, n_rel, den);
                }
            }
        }
        nb0 += u;
    });
    return n_rel > 0.0 ? total / n_rel : 0.0;
}

constexpr double INFAP_EPSILON = 0.00001;

// infAP's term of a relevant item at 0-based rank j with rb relevant, nb
// judged non-relevant and ub pooled-unjudged items above (m_infap.c):
// 1/(j+1) + (j/(j+1)) ((rb+nb+ub)/j) ((rb+eps)/(rb+nb+2eps)).
inline double infap_term(double j, double rb, double nb, double ub) {
    return (1.0 + (rb + nb + ub) * (rb + INFAP_EPSILON) / (rb + nb + 2.0 * INFAP_EPSILON)) /
           (j + 1.0);
}

/* Inferred AP (Yilmaz & Aslam 2006, trec_eval's m_infap.c); divided by R.
 * Exact under ties: for a relevant item at offset o of its group, sum over
 * the relevant (x) and judged non-relevant (y) items among the o before it
 * (multivariate hypergeometric); the term is linear in the pooled-unjudged
 * count, which enters through its conditional mean. O(n r u) a group. */
inline double infap_value(const GroupWalk &w, double n_rel) {
    double total = 0.0, r0 = 0.0, n0 = 0.0, u0 = 0.0;
    w.each([&](int64_t a, int64_t b, double n, double r, double u, double wn, double wp) {
        if (r > 0.0) {
            if (n == 1.0) {
                total += infap_term((double)a, r0, n0, u0);
            } else {
                const double wu = wn + wp;  // unjudged among the others
                for (int64_t o = 0; o < b - a; ++o) {
                    const double oo = (double)o, lnorm = lchoose_int(n - 1.0, oo);
                    double sum = 0.0;
                    for (double x = std::max(0.0, oo - (u + wu)); x <= std::min(oo, r - 1.0); x += 1.0) {
                        const double lx = lchoose_int(r - 1.0, x);
                        // Without unjudged items the judged non-relevant
                        // ones above are the rest: y = o - x, O(n r) a group.
                        const double y_lo = wu > 0.0 ? std::max(0.0, oo - x - wu) : oo - x;
                        for (double y = y_lo; y <= std::min(oo - x, u); y += 1.0) {
                            const double z = oo - x - y;
                            const double pmf = std::exp(lx + lchoose_int(u, y) + lchoose_int(wu, z) - lnorm);
                            const double zp = wu > 0.0 ? z * wp / wu : 0.0;
                            sum += pmf * infap_term((double)(a + o), r0 + x, n0 + y, u0 + zp);
                        }
                    }
                    total += r / n * sum;
                }
            }
        }
        r0 += r;
        n0 += u;
        u0 += wp;
    });
    return n_rel > 0.0 ? total / n_rel : 0.0;
}

// ---- one row ---------------------------------------------------------------

// F1 and F-beta from the expected relevant count in the top k:
// (1 + b^2) cum / (b^2 |R| + k); F1 is b = 1.
inline double f_beta(const Request &r, double cum, double k, int64_t n_rel) {
    const double b2 = r.formula == F1 ? 1.0 : r.beta * r.beta;
    const double den = b2 * (double)n_rel + k;
    return den > 0 ? (1.0 + b2) * cum / den : 0.0;
}

// Unranked AP (trec_eval's set_map): cum^2 / (k |R|), 0 if either is 0.
inline double set_ap(double cum, double k, int64_t n_rel) {
    const double den = k * (double)n_rel;
    return den > 0 ? cum * cum / den : 0.0;
}

// Relative precision: cum / min(k, |R|) (0 without relevant items).
inline double relative(double cum, double k, int64_t n_rel) {
    const double den = std::min(k, (double)n_rel);
    return den > 0 ? cum / den : 0.0;
}

inline double discount(int64_t p, double log_base) {
    return std::log(log_base) / std::log((double)(p + 2));
}

// 1 / log_base(rank + 1) for ranks 1..n, computed once per thread and base.
inline const double *discounts(Scratch &sc, double log_base, int64_t n) {
    if (sc.disc_base != log_base || (int64_t)sc.disc.size() < n) {
        if (sc.disc_base != log_base) sc.disc.clear();
        for (int64_t p = (int64_t)sc.disc.size(); p < n; ++p) sc.disc.push_back(discount(p, log_base));
        sc.disc_base = log_base;
    }
    return sc.disc.data();
}

// The ranks of one row, as the formulas read them.
struct RowView {
    int64_t K;        // ranks selected
    int64_t K_eff;    // of which retrieved (score above -inf)
    int64_t m;        // items in the row
    int64_t n_rel;    // relevant items, retrieved or not
    const double *e, *eg, *ex, *h, *pair, *ng, *rg;
    const int64_t *gstart;
};

/* AP's value at cut-off `cut` (ranks < cut counted) from the running sums of
 * its numerator: num (ranks < cut), cum_e (expected relevant in ranks < cut),
 * and, for the group holding rank cut - 1, its start a with the sums before
 * it (c0 = relevant before, n0 = numerator before). */
inline double ap_value(int32_t denominator, double num, double cum_e, int64_t k_nominal,
                       int64_t cut, const RowView &v, int64_t a, double c0, double n0) {
    const int64_t n_rel = v.n_rel;
    if (denominator == DEN_RELEVANT) return n_rel > 0 ? num / (double)n_rel : 0.0;
    if (denominator == DEN_MIN) {
        int64_t d = std::min(k_nominal, n_rel);
        return d > 0 ? num / (double)d : 0.0;
    }
    // "retrieved": divide by the relevant items in the top cut, random only
    // through the tie group straddling the cut-off. Condition on h, the
    // number of its relevant items that land inside the cut
    // (hypergeometric); given h they are uniformly spread over its ranks.
    double value = cum_e > 0.0 ? num / cum_e : 0.0;
    int64_t last = cut - 1;
    if (cut <= 0 || last >= v.K_eff) return value;
    double n = v.ng[last], r = v.rg[last];
    if (!((double)a + n > (double)cut) || !(r > 0.0)) return value;
    double mm = (double)(cut - a);
    double s1 = 0.0, s2 = 0.0;
    for (int64_t p = a; p < cut; ++p) {
        s1 += 1.0 / (double)(p + 1);
        s2 += (double)(p - a) / (double)(p + 1);
    }
    double lo = std::max(0.0, mm - (n - r)), hi = std::min(mm, r);
    double lnorm = lchoose(n, mm), total = 0.0;
    for (double hh = lo; hh <= hi; hh += 1.0) {
        double pmf = std::exp(lchoose(r, hh) + lchoose(n - r, mm - hh) - lnorm);
        double nm = n0 + hh / mm * (1.0 + c0) * s1 +
                    (mm > 1.0 ? hh * (hh - 1.0) / (mm * (mm - 1.0)) : 0.0) * s2;
        double den = c0 + hh;
        if (den > 0.0) total += pmf * nm / den;
    }
    return total;
}

// ---- interpolated precision (trec_eval's iprec_at_recall, 11pt_avg) ----------

/* The interpolated precision at recall point c (c relevant items) of a
 * ranking: the largest i / rank_i over its relevant items i >= max(c, 1)
 * (i counts the relevant items down to rank_i), 0 if fewer than c relevant
 * items are retrieved. trec_eval 10.0's recall point of level x is
 * lround(x |R|).
 *
 * Exact ties. The tie groups are independent: group g (ranks a+1..a+n, r
 * relevant, c0 relevant items before it) puts its relevant items at a
 * uniformly random r-subset of its n ranks, so its k-th relevant item
 * (i = c0 + k) at local position q has precision (c0 + k) / (a + q). The
 * value is max_g X_g, X_g the largest precision of the counted items of g
 * (k >= L = max(1, c - c0)), and
 *   E[max_g X_g] = D + integral over [D, 1] of (1 - prod_g P(X_g < x)) dx,
 * D the largest value some group always reaches ((c0 + r) / (a + n), its
 * last relevant item at its last rank; a group with n = 1 or r = n is
 * constant). P(X_g < x) is the probability that the group's lattice path
 * keeps every counted item below the line N = x rho: a backward DP over the
 * (position, relevant count) band of the group, H[k][w] (w = non-relevant
 * items so far), O(r (n - r)). It is evaluated only at the group's own
 * support points (c0 + k) / (a + q) where the group can attain its maximum,
 * in decreasing order, and consecutive points share work: lowering x raises
 * the bounds of some items only, and only the DP rows below the highest
 * changed item are computed again. One pass gives every needed L (every
 * recall level) at once. Worst case O(r^2 (n - r)^2) time and O(r (n - r))
 * memory per tie group of n items, r of them relevant; O(n) for a ranking
 * without ties. */

// trec_eval 10.0's recall point of level x: lround(x |R|) relevant items.
inline int64_t recall_point(double x, int64_t n_rel) {
    return (int64_t)std::lround(x * (double)n_rel);
}

/* The events of one random group (1 < n, 0 < r < n) for each L of w.ls
 * (sorted, 1 <= L <= r), at its support points x > floor: P(X_g < x) with
 * the items k >= L counted.
 *
 * Lowering x past a support point forbids item k the positions below its
 * new bound. That changes H[j][v] only for rows j < k and columns v (non-
 * relevant items so far) that can still reach the forbidden positions,
 * v <= bound - 1 - k, and row j is read only from its own bound on; every
 * other entry, and the suffix sums of each P(X_g < x) beyond those
 * columns, are kept. */
inline void iprec_group_events(const IprecGroup &g, double floor, IprecWork &w) {
    const int64_t a = g.a, n = g.n, r = g.r, c0 = g.c0, nw = n - r + 1;
    const int64_t lmin = w.ls.front();
    const size_t n_ls = w.ls.size();
    w.events.assign(n_ls, {});
    // Support points where the group can attain its maximum: item k at
    // position q (k <= q <= n - r + k) with every later item able to stay
    // at or below the line through the origin and (a + q, c0 + k), above
    // the floor.
    auto &cells = w.cells;
    cells.clear();
    for (int64_t k = lmin; k <= r; ++k)
        for (int64_t q = k; q <= n - r + k; ++q)
            if ((r - k) * (a + q) <= (n - q) * (c0 + k) &&
                (double)(c0 + k) > floor * (double)(a + q))
                cells.push_back({c0 + k, a + q});
    std::sort(cells.begin(), cells.end(), [](const auto &u, const auto &v) {
        return u.first * v.second > v.first * u.second;  // by ratio, decreasing
    });
    // P(the L-th relevant item at position L + v), v = 0..n - r.
    w.pmf.assign(n_ls * nw, 0.0);
    const double lnorm = lchoose((double)n, (double)r);
    for (size_t i = 0; i < n_ls; ++i) {
        const int64_t L = w.ls[i];
        for (int64_t v = 0; v < nw; ++v) {
            const int64_t q = L + v;
            w.pmf[i * nw + v] = std::exp(lchoose((double)(q - 1), (double)(L - 1)) +
                                         lchoose((double)(n - q), (double)(r - L)) - lnorm);
        }
    }
    // H[k][v]: P(every later item stays below the line), after position
    // k + v holding k relevant items; suffix[i][v]: sum over v' >= v of the
    // terms of P(X_g < x) for L = ls[i].
    auto &H = w.H;  // rows of nw1 = nw + 1: a last column of 0 (no position left)
    const int64_t nw1 = nw + 1;
    H.assign((r + 1) * nw1, 1.0);
    for (int64_t k = 0; k <= r; ++k) H[k * nw1 + nw] = 0.0;
    w.inv.resize(n + 1);
    for (int64_t i = 1; i <= n; ++i) w.inv[i] = 1.0 / (double)i;
    auto &suffix = w.suffix;
    suffix.assign(n_ls * (nw + 1), 0.0);
    for (size_t i = 0; i < n_ls; ++i)
        for (int64_t v = nw - 1; v >= 0; --v)
            suffix[i * (nw + 1) + v] = w.pmf[i * nw + v] + suffix[i * (nw + 1) + v + 1];
    auto &bound = w.bound;
    bound.assign(r + 2, 0);
    for (size_t s = 0; s < cells.size();) {
        const int64_t num = cells[s].first, den = cells[s].second;
        size_t e = s + 1;
        while (e < cells.size() && cells[e].first * den == num * cells[e].second) ++e;
        // Item k below the line x = num / den: (c0 + k) den < num (a + q).
        int64_t hi = 0, wmax = -1;
        for (int64_t k = lmin; k <= r; ++k) {
            const int64_t u = (c0 + k) * den / num + 1 - a;
            if (u != bound[k]) {
                bound[k] = u;
                hi = k;
                wmax = std::max(wmax, u - 1 - k);
            }
        }
        wmax = std::min(wmax, nw - 1);
        // Rows hi - 1 .. lmin, columns wmax .. 0, in blocks of B rows swept
        // as a skewed wavefront (row k0 - j runs j columns behind row k0), so
        // that the B rows' recurrences are independent at each step.
        constexpr int64_t B = 8;
        for (int64_t k0 = std::min(hi - 1, r - 1); k0 >= lmin && wmax >= 0; k0 -= B) {
            const int64_t nb = std::min(B, k0 - lmin + 1);
            // Per row of the block: its start, the row above, the first
            // column whose next relevant item is allowed, r - k.
            double *rows[B];
            const double *ups[B];
            int64_t vmin[B];
            double rk[B];
            for (int64_t j = 0; j < nb; ++j) {
                const int64_t k = k0 - j;
                rows[j] = &H[k * nw1];
                ups[j] = &H[(k + 1) * nw1];
                vmin[j] = bound[k + 1] - k - 1;
                rk[j] = (double)(r - k);
            }
            auto cell = [&](int64_t j, int64_t v, double inv) {
                const double p = rk[j] * inv;
                const double rel = v >= vmin[j] ? ups[j][v] : 0.0;
                rows[j][v] = p * rel + (1.0 - p) * rows[j][v + 1];
            };
            // Row k is read only from its own bound on (columns v with
            // k + v >= bound[k]: an item k placed below it never counts), and
            // the bounds grow with k: the block's lowest row needs the most.
            const int64_t low = k0 - nb + 1;
            const int64_t vlo = std::max<int64_t>(0, bound[low] - low);
            if (vlo > wmax) continue;
            for (int64_t t = 0; t <= wmax - vlo + nb - 1; ++t) {
                // Every cell of step t is at k + v = k0 + wmax - t.
                const double inv = w.inv[n - (k0 + wmax - t)];
                if (nb == B && t >= B - 1 && t <= wmax - vlo) {
                    for (int64_t j = 0; j < B; ++j) cell(j, wmax - t + j, inv);
                } else {
                    for (int64_t j = 0; j < nb; ++j) {
                        const int64_t v = wmax - t + j;
                        if (v >= vlo && v <= wmax) cell(j, v, inv);
                    }
                }
            }
        }
        const double x = (double)num / (double)den;
        for (size_t i = 0; i < n_ls; ++i) {
            const int64_t L = w.ls[i];
            const double *row = &H[L * nw1];
            double *suf = &suffix[i * (nw + 1)];
            // P(X_g < x) = the terms from item L's bound on: suf[lo].
            const int64_t lo = std::min(std::max<int64_t>(0, bound[L] - L), nw);
            for (int64_t v = wmax; v >= lo; --v) suf[v] = w.pmf[i * nw + v] * row[v] + suf[v + 1];
            w.events[i].push_back({x, suf[lo]});
        }
        s = e;
    }
}

/* The interpolated precision of a row at each recall point of cs (sorted,
 * distinct), into out. groups: the tie groups holding relevant retrieved
 * items, in rank order (one per rank without exact ties); n_rel_ret:
 * relevant retrieved items. */
inline void iprec_values(const std::vector<IprecGroup> &groups, int64_t n_rel_ret,
                         const std::vector<int64_t> &cs, std::vector<double> &out,
                         IprecWork &w) {
    out.assign(cs.size(), 0.0);
    if (n_rel_ret == 0) return;
    // D of each recall point: the largest value some counted group always
    // reaches, (c0 + r) / (a + n) (its last relevant item at its last rank).
    std::vector<double> D(cs.size(), 0.0);
    for (size_t ci = 0; ci < cs.size(); ++ci) {
        const int64_t cc = std::max<int64_t>(cs[ci], 1);
        for (const IprecGroup &g : groups)
            if (g.c0 + g.r >= cc) D[ci] = std::max(D[ci], (double)(g.c0 + g.r) / (double)(g.a + g.n));
    }
    // Each random group's events, for every L the recall points need.
    std::vector<size_t> random;
    std::vector<std::vector<std::vector<IprecEvent>>> ev(groups.size());
    std::vector<std::vector<int64_t>> ls_of(groups.size());
    for (size_t gi = 0; gi < groups.size(); ++gi) {
        const IprecGroup &g = groups[gi];
        if (!(g.n > 1 && g.r < g.n)) continue;
        auto &ls = w.ls;
        ls.clear();
        double floor = 1.0;
        for (size_t ci = 0; ci < cs.size(); ++ci) {
            const int64_t L = std::max<int64_t>(1, std::max<int64_t>(cs[ci], 1) - g.c0);
            if (cs[ci] <= n_rel_ret && L <= g.r) {
                ls.push_back(L);
                floor = std::min(floor, D[ci]);
            }
        }
        if (ls.empty()) continue;
        std::sort(ls.begin(), ls.end());
        ls.erase(std::unique(ls.begin(), ls.end()), ls.end());
        iprec_group_events(g, floor, w);
        ev[gi] = std::move(w.events);
        ls_of[gi] = ls;
        random.push_back(gi);
    }
    for (size_t ci = 0; ci < cs.size(); ++ci) {
        const int64_t c = cs[ci];
        if (c > n_rel_ret) continue;
        const int64_t cc = std::max<int64_t>(c, 1);
        // The random groups' events above D, merged in decreasing x.
        auto &merged = w.merged;
        merged.clear();
        size_t n_slots = 0;
        for (size_t gi : random) {
            const IprecGroup &g = groups[gi];
            const int64_t L = std::max<int64_t>(1, cc - g.c0);
            if (L > g.r) continue;
            const auto &ls = ls_of[gi];
            const size_t li = std::lower_bound(ls.begin(), ls.end(), L) - ls.begin();
            for (const IprecEvent &e : ev[gi][li])
                if (e.x > D[ci]) merged.push_back({e.x, {(int64_t)n_slots, e.cdf}});
            ++n_slots;
        }
        double value = D[ci];
        if (!merged.empty()) {
            std::stable_sort(merged.begin(), merged.end(),
                             [](const auto &u, const auto &v) { return u.first > v.first; });
            // prod_g P(X_g < x) in a product tree over the groups.
            size_t size = 1;
            while (size < n_slots) size <<= 1;
            auto &tree = w.tree;
            tree.assign(2 * size, 1.0);
            double x = 1.0, area = 0.0;
            for (const auto &m : merged) {
                area += (x - m.first) * (1.0 - tree[1]);
                x = m.first;
                size_t i = size + (size_t)m.second.first;
                tree[i] = m.second.second;
                for (i >>= 1; i >= 1; i >>= 1) tree[i] = tree[2 * i] * tree[2 * i + 1];
            }
            area += (x - D[ci]) * (1.0 - tree[1]);
            value = D[ci] + area;
        }
        out[ci] = value;
    }
}

#include "gain_measures.hpp"

template <class S, class Rel>
void process_row(const S *s, int64_t m, const Rel &rel, const Plan &plan, Scratch &sc,
                 double *out, uint8_t *empty, uint8_t &flags) {
    const int32_t n_req = plan.n_req;
    const bool exact = plan.ties == TIES_EXACT;
    const double t = plan.threshold;
    const int64_t n_rel = rel.count(flags);
    const bool judged = plan.want_judged != 0;
    // Judged non-relevant items of the whole row, retrieved or not (bpref's
    // and fall-out's denominators): 0 <= y <= t, so none if t < 0; else every
    // item neither relevant nor negative (a negative grade is never relevant
    // then), the implicit zeros of a sparse row included.
    bool want_nr = false;
    for (int32_t q = 0; q < n_req; ++q)
        want_nr = want_nr || plan.req[q].formula == FALL_OUT || plan.req[q].formula == BPREF;
    const int64_t n_nonrel = want_nr && t >= 0.0 ? m - n_rel - rel.count_negative() : 0;
    // Retrieved items (scores above -inf; NaN counts, and is flagged), for
    // the set measures.
    int64_t n_ret = 0;
    bool have_nret = false;
    for (int32_t q = 0; q < n_req; ++q)
        if (plan.req[q].k == K_NRET) {
            for (int64_t j = 0; j < m; ++j) n_ret += !((double)s[j] == -INFINITY);
            have_nret = true;
            break;
        }
    // A request's depth: its k, the whole row, |R| (times r.level, as
    // trec_eval's Rprec_mult: (long)(level |R| + 0.9), |R| at level 1) or the
    // retrieved items.
    auto depth = [&](const Request &r) -> int64_t {
        if (r.k == K_NREL)
            return r.level == 1.0 ? n_rel : (int64_t)(r.level * (double)n_rel + 0.9);
        return r.k > 0 ? r.k : (r.k == K_WHOLE ? m : n_ret);
    };
    // How deep this row is ranked, and how deep its ideal ranking is read.
    // Set cut-offs (a sum over the first c ranks: precision, recall, F,
    // hit, R-precision, ...) deeper than every other cut-off are answered
    // from the selection's candidates (set_cut) instead of ranks: K is the
    // deepest other cut-off (without any, the shallowest set one), and the
    // candidates reach K_all, the deepest of all. Rows short enough to be
    // selected whole: K = K_all.
    int64_t K_all = 1, K_ord = 0, K_set = 0, K_ideal = 0;
    constexpr uint32_t SET_FORMULAS = 1u << PRECISION | 1u << RECALL | 1u << F1 | 1u << FBETA |
                                      1u << HIT | 1u << RELATIVE_PRECISION |
                                      1u << SET_AVERAGE_PRECISION;
    auto is_set = [](const Request &r) {
        return !r.curve && r.formula >= 0 && r.formula < 32 && (SET_FORMULAS >> r.formula & 1u);
    };
    // A set measure (or utility) cut at the retrieved items reads only the
    // relevant items among them: every retrieved item is within that cut
    // and no tie group straddles it (the rest are at -inf, at no rank). It
    // sets no depth: it is answered from a count (retrieved_relevant)
    // wherever the ranks do not reach it.
    auto at_nret = [&](const Request &r) {
        return r.k == K_NRET && !r.curve && (is_set(r) || r.formula == UTILITY);
    };
    for (int32_t q = 0; q < n_req; ++q) {
        const Request &r = plan.req[q];
        if (at_nret(r)) continue;
        int64_t want = std::min(depth(r), m);
        K_all = std::max(K_all, want);
        if (!is_set(r)) K_ord = std::max(K_ord, want);
        else if (want > 0 && (K_set == 0 || want < K_set)) K_set = want;
        if (r.formula == NDCG) K_ideal = std::max(K_ideal, want);
        K_ideal = std::max(K_ideal, gain_ideal_depth(r.formula, n_rel));
        if (r.formula == ERR && r.max_grade != r.max_grade)  // max_grade=None: the top grade
            K_ideal = std::max<int64_t>(K_ideal, 1);
    }
    K_all = std::min(K_all, m);
    int64_t K = K_ord > 0 ? K_ord : std::max<int64_t>(K_set, 1);
    K = K_all * 8 < m ? std::min(K, K_all) : K_all;
    // Ranks [0, D) must be in order: the cut-offs of the formulas that read
    // the order (MRR, AP, DCG, nDCG, every curve) and every cut-off short of
    // K. Beyond D only sums at cut K are read (precision, recall, F1, hit,
    // R-precision): no need to sort there (see order_top).
    int64_t D = 0;
    for (int32_t q = 0; q < n_req && D < K; ++q) {
        const Request &r = plan.req[q];
        const int64_t cut = std::min(depth(r), K);
        const bool ordered = r.curve || r.formula == RECIPROCAL_RANK ||
                             r.formula == AVERAGE_PRECISION || r.formula == DCG ||
                             r.formula == NDCG || r.formula == BPREF ||
                             r.formula == INFERRED_AP || r.formula == UNJUDGED ||
                             r.formula == RBP_RESIDUAL || r.formula == IPREC ||
                             r.formula == ELEVEN_PT || gain_reads_order(r.formula) ||
                             r.formula == ERR;
        if (ordered || cut < K) D = std::max(D, cut);
    }
    // Beyond D the set-based formulas read only e, and hit its h.
    int64_t D_h = D;
    for (int32_t q = 0; q < n_req; ++q)
        if (plan.req[q].formula == HIT)
            D_h = std::max(D_h, std::min(plan.req[q].k > 0 ? plan.req[q].k : m, K));
    int64_t outside = 0, K_eff = 0;
    bool listed = false;
    if (K > 0) {
        sc.tv.resize(K);
        sc.tj.resize(K);
        if (K > SMALL_K) {
            sc.hv.resize(K);
            sc.hj.resize(K);
        }
        bool nan = false;
        outside = exact ? select_top<S, false>(s, m, K, K_all, sc.tv.data(), sc.tj.data(), sc,
                                               nan, listed, D)
                        : select_top<S, true>(s, m, K, K_all, sc.tv.data(), sc.tj.data(), sc,
                                              nan, listed, D);
        if (nan) flags |= FLAG_NAN_SCORE;
        K_eff = K;
        while (K_eff > 0 && !(sc.tv[K_eff - 1] > -INFINITY)) --K_eff;
    }
    const double *tv = sc.tv.data();
    const int64_t *tj = sc.tj.data();

    // Per-rank quantities over the retrieved ranks.
    const bool any_exp = plan.any_exponential != 0;
    // (Every rank below K_eff is written by the group loop: no zeroing.)
    for (auto *vec :
         {&sc.grade, &sc.e, &sc.ecum, &sc.eg_lin, &sc.eg_exp, &sc.h, &sc.pair, &sc.ng, &sc.rg})
        vec->resize(K_eff);
    sc.gstart.resize(K_eff);
    if (judged) {
        sc.w_np.resize(K_eff);
        sc.w_pool.resize(K_eff);
    }
    double *e = sc.e.data(), *eg = sc.eg_lin.data(), *ex = sc.eg_exp.data(), *h = sc.h.data();
    double *pair = sc.pair.data(), *ng = sc.ng.data(), *rg = sc.rg.data();
    int64_t *gstart = sc.gstart.data();
    for (int64_t p = 0; p < K_eff; ++p) sc.grade[p] = rel.grade(tj[p]);
    // Relevant items and gains of the tie group at ranks [a, b), its members
    // beyond the cut included when it straddles it (listed by the selection,
    // or found by a pass over the row).
    auto group_sums = [&](int64_t a, int64_t b, bool straddles, bool exponential, int E,
                          double &r_g, double &g_lin, double &g_exp) {
        r_g = g_lin = g_exp = 0.0;
        if (straddles && !listed) {
            rel.tied_sums(s, tv[a], r_g, g_lin, g_exp, exponential, E);
            return;
        }
        for (int64_t p = a; p < b; ++p) add_gain(sc.grade[p], t, exponential, r_g, g_lin, g_exp, E);
        if (straddles)
            for (int64_t col : sc.tied_out)
                add_gain(rel.grade(col), t, exponential, r_g, g_lin, g_exp, E);
    };
    // ecum[p]: expected relevant items in ranks [0, p], as a whole number of
    // items before the group plus this group's share, so that it does not
    // depend on the order of the groups before (ranks beyond D are not
    // sorted) and is exact at every group's end.
    double *ecum = sc.ecum.data();
    /* Fall-out counts the judged non-relevant items, 0 <= y <= t (a negative
     * grade is not judged): per group their expected number at each rank, as
     * ecum; n_nonrel for the whole row. */
    bool want_fo = false;
    for (int32_t q = 0; q < n_req; ++q) want_fo = want_fo || plan.req[q].formula == FALL_OUT;
    auto judged_rel = [t](double y) { return y < 0.0 || y > t; };  // not non-relevant
    double nr_before = 0.0;
    if (want_fo) sc.nrcum.resize(K_eff);
    double rel_before = 0.0;
    int64_t a = 0;
    while (a < K_eff) {
        int64_t b = a + 1;
        if (exact)
            while (b < K_eff && tv[b] == tv[a]) ++b;
        double r_g, g_lin, g_exp;
        const bool straddles = exact && b == K && outside > 0;
        const double n_g = (double)(b - a + (straddles ? outside : 0));
        group_sums(a, b, straddles, any_exp, 0, r_g, g_lin, g_exp);
        double ev = r_g / n_g, egv = g_lin / n_g, exv = g_exp / n_g;
        for (int64_t p = a; p < b; ++p) ecum[p] = rel_before + (double)(p - a + 1) * ev;
        rel_before += r_g;
        if (!straddles) ecum[b - 1] = rel_before;  // whole group: exactly r_g more
        if (want_fo) {
            int64_t other = 0;  // members that are relevant or not judged
            if (straddles && !listed) {
                rel.visit_tied(s, tv[a], [&](double y) { other += judged_rel(y); });
            } else {
                for (int64_t p = a; p < b; ++p) other += judged_rel(sc.grade[p]);
                if (straddles)
                    for (int64_t col : sc.tied_out) other += judged_rel(rel.grade(col));
            }
            const double nr_g = n_g - (double)other;
            for (int64_t p = a; p < b; ++p)
                sc.nrcum[p] = nr_before + (double)(p - a + 1) * (nr_g / n_g);
            nr_before += nr_g;
            if (!straddles) sc.nrcum[b - 1] = nr_before;
        }
        if (a >= D) {  // set-based ranks: e (and h for hit) only
            for (int64_t p = a; p < b; ++p) e[p] = ev;
            for (int64_t p = a; p < std::min(b, D_h); ++p) {
                double hv = r_g / (n_g - (double)(p - a));
                h[p] = hv > 1.0 ? 1.0 : (hv < 0.0 ? 0.0 : hv);
            }
            a = b;
            continue;
        }
        double pr = n_g > 1.0 ? r_g * (r_g - 1.0) / (n_g * (n_g - 1.0)) : 0.0;
        if (judged) {  // the group's unjudged items, its members beyond the cut too
            Unjudged u;
            if (straddles && !listed) {
                rel.visit_tied(s, tv[a], [&](double y) { u.add(y, t); });
            } else {
                for (int64_t p = a; p < b; ++p) u.add(sc.grade[p], t);
                if (straddles)
                    for (int64_t col : sc.tied_out) u.add(rel.grade(col), t);
            }
            for (int64_t p = a; p < b; ++p) {
                sc.w_np[p] = u.nonpool;
                sc.w_pool[p] = u.pooled;
            }
        }
        for (int64_t p = a; p < b; ++p) {
            e[p] = ev;
            eg[p] = egv;
            ex[p] = exv;
            double hv = r_g / (n_g - (double)(p - a));
            h[p] = hv > 1.0 ? 1.0 : (hv < 0.0 ? 0.0 : hv);
            pair[p] = pr;
            ng[p] = n_g;
            rg[p] = r_g;
            gstart[p] = a;
        }
        a = b;
    }
    // The ideal ranking: the K_ideal largest relevant grades, decreasing.
    if (K_ideal > 0) {
        auto &g = sc.work_g;
        rel.ideal(g, n_rel, K_ideal);
        int64_t take = (int64_t)g.size();
        sc.ideal_lin.assign(K_ideal, 0.0);
        if (any_exp) sc.ideal_exp.assign(K_ideal, 0.0);  // read by exponential gains only
        for (int64_t p = 0; p < take && g[p] > 0.0; ++p) {  // negative: no gain
            sc.ideal_lin[p] = g[p];
            if (any_exp) sc.ideal_exp[p] = gain_exp(g[p], 0);
        }
        if (any_exp && take > 0 && g[0] >= 1024.0) flags |= FLAG_EXP_OVERFLOW;
    }
    const RowView view{K, K_eff, m, n_rel, e, eg, ex, h, pair, ng, rg, gstart};

    /* nDCG of a row whose DCG or ideal DCG overflows float64 (huge grades):
     * the same ratio with every gain scaled by 2**-E, E taken from the largest
     * relevant grade. Writes the values, returns the scaled ideal DCG. */
    auto scaled_ndcg = [&](const Request &r, bool curve, int64_t c_end, double *o) {
        const bool exponential = r.exponential != 0;
        const double top = sc.work_g.empty() ? 0.0 : sc.work_g[0];
        const int E = exponential ? (int)std::ceil(top) - 1 : std::ilogb(top) + 1;
        std::vector<double> &gains = sc.scaled;
        gains.assign(K_eff, 0.0);
        for (int64_t a = 0; a < K_eff;) {
            int64_t b = a + 1;
            if (exact)
                while (b < K_eff && tv[b] == tv[a]) ++b;
            const bool straddles = exact && b == K && outside > 0;
            double r_g, g_lin, g_exp;
            group_sums(a, b, straddles, exponential, E, r_g, g_lin, g_exp);
            for (int64_t p = a; p < b; ++p) gains[p] = (exponential ? g_exp : g_lin) / ng[p];
            a = b;
        }
        const double *disc = discounts(sc, r.log_base, c_end);
        double dcg = 0.0, idcg = 0.0;
        for (int64_t c = 0; c < c_end; ++c) {
            if (c < K_eff) dcg += gains[c] * disc[c];
            if (c < K_ideal && c < (int64_t)sc.work_g.size() && sc.work_g[c] > 0.0)
                idcg += (exponential ? gain_exp(sc.work_g[c], E) : gain_lin(sc.work_g[c], E)) *
                        disc[c];
            if (curve) o[c] = idcg > 0.0 ? dcg / idcg : 0.0;
        }
        if (!curve) o[0] = idcg > 0.0 ? dcg / idcg : 0.0;
        return idcg;
    };

    // Interpolated precision: every recall point the requests need, in one
    // pass over the row's tie groups (see iprec_values).
    std::vector<int64_t> iprec_cs;
    std::vector<double> iprec_out;
    for (int32_t q = 0; q < n_req; ++q) {
        const Request &r = plan.req[q];
        if (r.formula == IPREC) iprec_cs.push_back(recall_point(r.level, n_rel));
        if (r.formula == ELEVEN_PT)
            for (int64_t i = 0; i < r.n_levels; ++i)
                iprec_cs.push_back(recall_point(r.levels[i], n_rel));
    }
    if (!iprec_cs.empty()) {
        std::sort(iprec_cs.begin(), iprec_cs.end());
        iprec_cs.erase(std::unique(iprec_cs.begin(), iprec_cs.end()), iprec_cs.end());
        std::vector<IprecGroup> groups;
        int64_t rel_ret = 0;
        for (int64_t ga = 0; ga < K_eff;) {
            int64_t gb = ga + 1;
            if (exact)
                while (gb < K_eff && tv[gb] == tv[ga]) ++gb;
            int64_t r_g = 0;
            for (int64_t p = ga; p < gb; ++p) r_g += sc.grade[p] > t;
            if (r_g > 0) groups.push_back({ga, gb - ga, r_g, rel_ret});
            rel_ret += r_g;
            ga = gb;
        }
        iprec_values(groups, rel_ret, iprec_cs, iprec_out, sc.iprec);
    }
    auto iprec_at = [&](double level) {
        const int64_t c = recall_point(level, n_rel);
        return iprec_out[std::lower_bound(iprec_cs.begin(), iprec_cs.end(), c) -
                         iprec_cs.begin()];
    };

    /* ERR (Chapelle, Metzler, Zhang and Grinspan, CIKM 2009): the sum over
     * ranks p of R_p / (p + 1) times the product of (1 - R) over the ranks
     * before, R = (2**g - 1) / 2**g_max for a relevant grade g > 0, else 0.
     * Exact under ties: a group of n items starting at rank a puts at offset
     * o a uniformly random member x after a uniformly random o-subset B of
     * the others, so its term is T(o) / (a + o + 1) times the product over
     * the groups before, T(o) = E[R_x prod_B (1 - R)]. One member at a time
     * (v = 1 - R), on means over subsets (convex combinations: no binomial
     * coefficients, no overflow):
     *   M_j(o): mean over o-subsets of the first j members of prod v
     *   G_j(o): mean over (o+1)-subsets B of sum_{x in B} R_x prod_{B - x} v
     *   M_j(o) = (j-o)/j M_{j-1}(o) + o/j v_j M_{j-1}(o-1)
     *   G_j(o) = (j-o-1)/j G_{j-1}(o) + (o+1)/j (R_j M_{j-1}(o) + v_j G_{j-1}(o-1))
     * and T(o) = G_n(o) / (o + 1): O(n min(n, k - a)) per group, or, with
     * many members of R = 0, over the others only (see below). */
    // The row's largest relevant grade (ERR, max_grade=None): the ideal
    // ranking's first, which K_ideal >= 1 then reads.
    const double row_top = K_ideal > 0 && !sc.work_g.empty() ? sc.work_g[0] : 0.0;
    auto err_row = [&](const Request &r, bool curve, int64_t c_end, double *o) {
        const double gmax = r.max_grade == r.max_grade ? r.max_grade : row_top;
        const double low = std::exp2(-gmax);
        auto stop = [&](double y) { return (y > t && y > 0.0) ? std::exp2(y - gmax) - low : 0.0; };
        const int64_t end = std::min(c_end, K_eff);
        double survive = 1.0, err = 0.0;
        auto &R = sc.err_r, &M = sc.err_m, &G = sc.err_t;
        for (int64_t a = 0; a < end;) {
            const int64_t n = (int64_t)ng[a];
            const int64_t b = std::min(a + n, K);
            if (n == 1) {
                const double rv = stop(sc.grade[a]);
                err += survive * rv / (double)(a + 1);
                survive *= 1.0 - rv;
                if (curve) o[a] = err;
                a = b;
                continue;
            }
            R.clear();
            auto take = [&](double y) {
                const double rv = stop(y);
                if (rv > 0.0) R.push_back(rv);
            };
            const bool straddles = n > b - a;
            if (straddles && !listed) {
                rel.visit_tied(s, tv[a], take);
            } else {
                for (int64_t p = a; p < b; ++p) take(sc.grade[p]);
                if (straddles)
                    for (int64_t col : sc.tied_out) take(rel.grade(col));
            }
            const int64_t lim = std::min(n, end - a);  // offsets read
            const int64_t q = (int64_t)R.size(), z = n - q;
            // M and G over the members R, then count - q members of R = 0,
            // at offsets < width.
            auto recur = [&](int64_t count, int64_t width) {
                M.assign(width, 0.0);
                G.assign(width, 0.0);
                M[0] = 1.0;
                for (int64_t j = 1; j <= count; ++j) {
                    const double rj = j <= q ? R[j - 1] : 0.0, vj = 1.0 - rj, dj = (double)j;
                    for (int64_t x = std::min(j, width - 1); x >= 0; --x) {
                        const double xd = (double)x;
                        if (x <= j - 1)
                            G[x] = (dj - xd - 1.0) / dj * G[x] +
                                   (xd + 1.0) / dj * (rj * M[x] + (x > 0 ? vj * G[x - 1] : 0.0));
                        if (x >= 1) M[x] = (dj - xd) / dj * M[x] + xd / dj * vj * M[x - 1];
                    }
                }
            };
            const double *T = nullptr;  // T[x] (x + 1): G of the whole group
            if (q > 0 && z < 32) {
                recur(n, lim);
                T = G.data();
            } else if (q > 0) {
                /* Many members of R = 0 (a constant ranker's row): the
                 * recurrence over the q others only, then each (x+1)-subset
                 * of the group mixed over the number j of those q it holds,
                 * hypergeometric P_x(j) = C(q, j) C(z, x+1-j) / C(n, x+1):
                 * O(q min(q, k - a) + q (k - a)) instead of O(n (k - a)). */
                recur(q, std::min(q, lim));
                M.assign(lim, 0.0);  // M now holds G of the whole group
                double p1 = (double)q / (double)n;  // P_x(1) while x < z
                for (int64_t x = 0; x < lim; ++x) {
                    int64_t j = std::max<int64_t>(1, x + 1 - z);
                    const int64_t hi = std::min<int64_t>(q, x + 1);
                    double p = j == 1 ? p1
                                      : std::exp(lchoose((double)q, (double)j) +
                                                 lchoose((double)z, (double)(x + 1 - j)) -
                                                 lchoose((double)n, (double)(x + 1)));
                    double g = 0.0;
                    for (; j <= hi; ++j) {
                        g += p * G[j - 1];
                        p *= (double)(q - j) / (double)(j + 1) * (double)(x + 1 - j) /
                             (double)(z - x + j);
                    }
                    M[x] = g;
                    if (x < z) p1 *= (double)(z - x) / (double)(x + 1) * (double)(x + 2) /
                                     (double)(n - x - 1);
                }
                T = M.data();
            }
            for (int64_t x = 0; x < lim; ++x) {
                if (T) err += survive * T[x] / (double)(x + 1) / (double)(a + x + 1);
                if (curve) o[a + x] = err;
            }
            for (double rv : R) survive *= 1.0 - rv;
            a = b;
        }
        if (curve)
            for (int64_t c = end; c < c_end; ++c) o[c] = err;
        else
            o[0] = err;
    };

    // Set cut-offs beyond K, from the candidates (the last one remembered).
    int64_t deep_c = -1;
    double deep_cum = 0.0, deep_survive = 1.0;
    // The relevant items among the retrieved ones: all of them but those at -inf.
    double ret_rel = -1.0;
    auto retrieved_relevant = [&]() {
        if (ret_rel < 0.0) {
            double r_inf, g_unused, ge_unused;
            rel.tied_sums(s, -INFINITY, r_inf, g_unused, ge_unused, false);
            ret_rel = (double)n_rel - r_inf;
        }
        return ret_rel;
    };
    auto deep = [&](int64_t c, double &cum, double &survive) {
        // A row with a NaN score is rejected whatever its values, and its
        // candidates may fall short of the cut (NaN is never a candidate).
        if (flags & FLAG_NAN_SCORE) {
            cum = 0.0;
            survive = 1.0;
            return;
        }
        if (have_nret && c == n_ret) {  // the cut is the retrieved items
            cum = retrieved_relevant();
            survive = cum > 0.0 ? 0.0 : 1.0;
            return;
        }
        if (c != deep_c) {
            if (exact)
                set_cut<false>(sc.cand, sc.prev, K, c, rel, t, sc.group, deep_cum, deep_survive);
            else
                set_cut<true>(sc.cand, sc.prev, K, c, rel, t, sc.group, deep_cum, deep_survive);
            deep_c = c;
        }
        cum = deep_cum;
        survive = deep_survive;
    };
    for (int32_t q = 0; q < n_req; ++q) {
        const Request &r = plan.req[q];
        double *o = out + r.col;
        const bool curve = r.curve != 0;
        // A request counts the ranks < cut; k_nominal is its nominal cut-off
        // (precision divides by it even past the row's end).
        const int64_t k_nominal = depth(r);
        const int64_t cut = std::min(k_nominal, m);
        const int64_t width = curve ? r.k : 1;
        const int64_t c_end = curve ? width : cut;
        bool is_empty = n_rel == 0;
        switch (r.formula) {
        case PRECISION:
        case RECALL:
        case F1:
        case FBETA:
        case RELATIVE_PRECISION:
        case SET_AVERAGE_PRECISION: {
            double cum = 0.0;
            const bool from_candidates = !curve && cut > K;
            double unused;
            if (from_candidates) deep(cut, cum, unused);
            for (int64_t c = 0; !from_candidates && c < c_end; ++c) {
                if (c < K_eff) cum = ecum[c];
                if (curve) {
                    double kk = (double)(c + 1);
                    if (r.formula == PRECISION) o[c] = cum / kk;
                    else if (r.formula == RECALL) o[c] = n_rel > 0 ? cum / (double)n_rel : 0.0;
                    else if (r.formula == RELATIVE_PRECISION) o[c] = relative(cum, kk, n_rel);
                    else if (r.formula == SET_AVERAGE_PRECISION) o[c] = set_ap(cum, kk, n_rel);
                    else o[c] = f_beta(r, cum, kk, n_rel);
                }
            }
            if (!curve) {
                double kk = (double)k_nominal;
                if (r.formula == PRECISION) o[0] = kk > 0 ? cum / kk : 0.0;
                else if (r.formula == RECALL) o[0] = n_rel > 0 ? cum / (double)n_rel : 0.0;
                else if (r.formula == RELATIVE_PRECISION) o[0] = relative(cum, kk, n_rel);
                else if (r.formula == SET_AVERAGE_PRECISION) o[0] = set_ap(cum, kk, n_rel);
                else o[0] = f_beta(r, cum, kk, n_rel);
            }
            break;
        }
        case HIT:
        case RECIPROCAL_RANK: {
            double survive = 1.0, rr = 0.0;
            if (r.formula == HIT && !curve && cut > K) {
                double unused;
                deep(cut, unused, survive);
                o[0] = 1.0 - survive;
                break;
            }
            for (int64_t c = 0; c < c_end; ++c) {
                if (c < K_eff) {
                    rr += survive * h[c] / (double)(c + 1);
                    survive *= 1.0 - h[c];
                }
                if (curve) o[c] = r.formula == HIT ? 1.0 - survive : rr;
            }
            if (!curve) o[0] = r.formula == HIT ? 1.0 - survive : rr;
            break;
        }
        case DCG:
        case NDCG: {
            const double *gains = r.exponential ? ex : eg;
            const double *ideal = r.exponential ? sc.ideal_exp.data() : sc.ideal_lin.data();
            double dcg = 0.0, idcg = 0.0;
            const double *disc = discounts(sc, r.log_base, c_end);
            for (int64_t c = 0; c < c_end; ++c) {
                double d = disc[c];
                if (c < K_eff) dcg += gains[c] * d;
                if (r.formula == NDCG && c < K_ideal) idcg += ideal[c] * d;
                if (curve) o[c] = r.formula == DCG ? dcg : (idcg > 0.0 ? dcg / idcg : 0.0);
            }
            if (!curve) o[0] = r.formula == DCG ? dcg : (idcg > 0.0 ? dcg / idcg : 0.0);
            if (r.formula == NDCG && !(std::isfinite(dcg) && std::isfinite(idcg)))
                idcg = scaled_ndcg(r, curve, c_end, o);  // huge grades
            // Undefined when the ideal DCG is 0 (no relevant item of positive gain).
            if (r.formula == NDCG) is_empty = !(idcg > 0.0);
            break;
        }
        case BPREF:
        case INFERRED_AP: {
            const GroupWalk w{ng, rg, sc.w_np.data(), sc.w_pool.data(), gstart,
                              std::min(c_end, K_eff)};
            o[0] = r.formula == BPREF ? bpref_value(w, (double)n_rel, (double)n_nonrel)
                                      : infap_value(w, (double)n_rel);
            break;
        }
        case RBP_RESIDUAL: {
            /* The most RBP could still rise (trec_eval's rbp_resid): the
             * weight of the unjudged ranks, (1 - p) sum p**i over them, plus
             * p**n of the ranks past the retrieved ones; 0 when no
             * retrieved item is unjudged. Linear in each rank's expected
             * unjudged indicator. */
            const int64_t end = std::min(c_end, K_eff);
            double resid = 0.0, unj = 0.0, w = 1.0;
            for (int64_t c = 0; c < end; ++c) {
                const double u = (sc.w_np[c] + sc.w_pool[c]) / ng[c];
                resid += u * w;
                unj += u;
                w *= r.p;
            }
            o[0] = unj > 0.5 ? w + (1.0 - r.p) * resid : 0.0;
            is_empty = false;  // defined whatever the relevant items
            break;
        }
        case UNJUDGED: {  // expected unjudged items in the top k, over k
            double cum = 0.0;
            for (int64_t c = 0; c < c_end; ++c) {
                if (c < K_eff) cum += (sc.w_np[c] + sc.w_pool[c]) / ng[c];
                if (curve) o[c] = cum / (double)(c + 1);
            }
            if (!curve) o[0] = k_nominal > 0 ? cum / (double)k_nominal : 0.0;
            is_empty = false;  // defined whatever the relevant items
            break;
        }
        case AVERAGE_PRECISION: {
            double cum_e = 0.0, num = 0.0, c0 = 0.0, n0 = 0.0;
            int64_t ga = -1;
            for (int64_t c = 0; c < c_end; ++c) {
                if (c < K_eff) {
                    if (gstart[c] != ga) {  // a new group: the sums before it
                        ga = gstart[c];
                        c0 = cum_e;
                        n0 = num;
                    }
                    num += (e[c] * (1.0 + c0) + (double)(c - ga) * pair[c]) / (double)(c + 1);
                    cum_e += e[c];
                }
                if (curve)
                    o[c] = ap_value(r.denominator, num, cum_e, c + 1, std::min(c + 1, m), view,
                                    ga, c0, n0);
            }
            if (!curve) o[0] = ap_value(r.denominator, num, cum_e, k_nominal, cut, view, ga, c0, n0);
            break;
        }
        case IPREC:
            o[0] = iprec_at(r.level);
            break;
        case ELEVEN_PT: {
            double total = 0.0;  // in trec_eval's order: the last level first
            for (int64_t i = r.n_levels - 1; i >= 0; --i) total += iprec_at(r.levels[i]);
            o[0] = r.n_levels > 0 ? total / (double)r.n_levels : 0.0;
            break;
        }
        case ERR:
            err_row(r, curve, c_end, o);
            break;
        case FALL_OUT: {
            // Judged non-relevant items in the top k over those of the row.
            double cum = 0.0;
            const double den = (double)n_nonrel;
            for (int64_t c = 0; c < c_end; ++c) {
                if (c < K_eff) cum = sc.nrcum[c];
                if (curve) o[c] = den > 0 ? cum / den : 0.0;
            }
            if (!curve) o[0] = den > 0 ? cum / den : 0.0;
            is_empty = n_nonrel == 0;
            break;
        }
        case RBP:
        case RNDCG:
        case BING:
        case UTILITY:
        case NDCG_REL:
        case G_GAIN: {
            // Utility's relevant retrieved items: from the ranks when they
            // reach every retrieved item, else counted.
            const double ret_rel_q = r.formula != UTILITY ? 0.0
                                     : n_ret > K_eff       ? retrieved_relevant()
                                     : K_eff > 0           ? ecum[K_eff - 1]
                                                           : 0.0;
            is_empty = gain_measure(r, view, sc, K_ideal, n_ret, ret_rel_q, t, curve, c_end, o);
            break;
        }
        default:
            for (int64_t c = 0; c < width; ++c) o[c] = 0.0;
        }
        empty[q] = is_empty ? 1 : 0;
    }
}

// ---- all rows --------------------------------------------------------------

template <class F>
void for_rows(int64_t n, int32_t n_threads, int64_t chunk, uint8_t *flags, F &&body) {
#ifndef _OPENMP
    (void)n_threads;  // serial build: one thread whatever was asked
#endif
#ifdef _OPENMP
#pragma omp parallel num_threads(n_threads > 0 ? n_threads : 1) if (n_threads > 1)
#endif
    {
        Scratch sc;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
        for (int64_t c = 0; c < (n + chunk - 1) / chunk; ++c) {
            int64_t end = std::min(n, (c + 1) * chunk);
            for (int64_t r = c * chunk; r < end; ++r) {
                try {
                    body(r, sc);
                } catch (const std::bad_alloc &) {
                    flags[r] |= FLAG_NO_MEMORY;
                }
            }
        }
    }
}

inline int64_t rows_per_chunk(int64_t n_rows, int64_t cells) {
    // About 16k scores per scheduling unit: cheap to hand out, fine enough
    // to balance threads when one core is busy with something else.
    int64_t per_row = n_rows > 0 ? std::max<int64_t>(1, cells / n_rows) : 1;
    return std::max<int64_t>(1, 16384 / per_row);
}

/* Rows whose relevance is aligned with the scores: a dense matrix
 * (offsets == nullptr: row r starts at r * stride, has m items) or segments
 * of flat arrays (row r is [offsets[r], offsets[r + 1])). */
template <class S, class R>
void evaluate_aligned(const S *scores, const R *y, const int64_t *offsets, int64_t score_stride,
                      int64_t rel_stride, int64_t m, int64_t n_rows, const Plan &plan,
                      double *out, uint8_t *empty, uint8_t *flags) {
    const Threshold<R> th(plan.threshold);
    int64_t cells = offsets ? (n_rows ? offsets[n_rows] - offsets[0] : 0) : n_rows * m;
    for_rows(n_rows, plan.n_threads, rows_per_chunk(n_rows, cells), flags,
             [&](int64_t r, Scratch &sc) {
                 const S *s;
                 const R *yr;
                 int64_t len;
                 if (offsets) {
                     s = scores + offsets[r];
                     yr = y + offsets[r];
                     len = offsets[r + 1] - offsets[r];
                 } else {
                     s = scores + r * score_stride;
                     yr = y + r * rel_stride;
                     len = m;
                 }
                 Aligned<R> rel{yr, len, &th, plan.want_ideal != 0};
                 process_row(s, len, rel, plan, sc, out + r * plan.out_stride,
                             empty + r * plan.n_req, flags[r]);
             });
}

/* Dense score rows with relevance in CSR form: row r of the block is CSR row
 * row_offset + r. */
template <class S>
void evaluate_csr(const S *scores, int64_t score_stride, int64_t m, int64_t n_rows,
                  const int64_t *indptr, const int64_t *indices, const double *data,
                  int64_t row_offset, const Plan &plan, double *out, uint8_t *empty,
                  uint8_t *flags) {
    for_rows(n_rows, plan.n_threads, rows_per_chunk(n_rows, n_rows * m), flags,
             [&](int64_t r, Scratch &sc) {
                 Sparse rel{indices, data, indptr[row_offset + r], indptr[row_offset + r + 1],
                            plan.threshold};
                 process_row(scores + r * score_stride, m, rel, plan, sc,
                             out + r * plan.out_stride, empty + r * plan.n_req, flags[r]);
             });
}

/* The top K of every row of a dense matrix, for the tests: values and
 * columns in rank order, and the tied items left out of each row. */
template <class S>
void top_k(const S *scores, int64_t n_rows, int64_t m, int64_t K, bool later_first,
           double *values, int64_t *cols, int64_t *outside, uint8_t *nan) {
    Scratch sc;
    sc.hv.resize(K);
    sc.hj.resize(K);
    for (int64_t r = 0; r < n_rows; ++r) {
        bool bad = false, listed = false;
        outside[r] = later_first ? select_top<S, true>(scores + r * m, m, K, K, values + r * K,
                                                       cols + r * K, sc, bad, listed, K)
                                 : select_top<S, false>(scores + r * m, m, K, K, values + r * K,
                                                        cols + r * K, sc, bad, listed, K);
        nan[r] = bad;
    }
}

// ---- type dispatch (Cython cannot instantiate templates with fused types) ------

enum ScoreType : int32_t { SCORE_F32 = 0, SCORE_F64 = 1 };
enum RelType : int32_t {
    REL_U8 = 0, REL_I8, REL_I16, REL_I32, REL_I64, REL_U16, REL_U32, REL_U64, REL_F32, REL_F64,
};

template <class S>
void aligned_by_rel(int32_t rel_type, const S *scores, const void *y, const int64_t *offsets,
                    int64_t m, int64_t n_rows, const Plan &plan, double *out, uint8_t *empty,
                    uint8_t *flags) {
#define RANKK_CASE(CODE, T)                                                                 \
    case CODE:                                                                              \
        evaluate_aligned<S, T>(scores, (const T *)y, offsets, m, m, m, n_rows, plan, out,  \
                               empty, flags);                                               \
        break;
    switch (rel_type) {
        RANKK_CASE(REL_U8, uint8_t)
        RANKK_CASE(REL_I8, int8_t)
        RANKK_CASE(REL_I16, int16_t)
        RANKK_CASE(REL_I32, int32_t)
        RANKK_CASE(REL_I64, int64_t)
        RANKK_CASE(REL_U16, uint16_t)
        RANKK_CASE(REL_U32, uint32_t)
        RANKK_CASE(REL_U64, uint64_t)
        RANKK_CASE(REL_F32, float)
        RANKK_CASE(REL_F64, double)
    }
#undef RANKK_CASE
}

inline void evaluate_aligned_any(int32_t score_type, int32_t rel_type, const void *scores,
                                 const void *y, const int64_t *offsets, int64_t m,
                                 int64_t n_rows, const Plan &plan, double *out, uint8_t *empty,
                                 uint8_t *flags) {
    if (score_type == SCORE_F32)
        aligned_by_rel<float>(rel_type, (const float *)scores, y, offsets, m, n_rows, plan, out,
                              empty, flags);
    else
        aligned_by_rel<double>(rel_type, (const double *)scores, y, offsets, m, n_rows, plan,
                               out, empty, flags);
}

inline void evaluate_csr_any(int32_t score_type, const void *scores, int64_t m, int64_t n_rows,
                             const int64_t *indptr, const int64_t *indices, const double *data,
                             int64_t row_offset, const Plan &plan, double *out, uint8_t *empty,
                             uint8_t *flags) {
    if (score_type == SCORE_F32)
        evaluate_csr<float>((const float *)scores, m, m, n_rows, indptr, indices, data,
                            row_offset, plan, out, empty, flags);
    else
        evaluate_csr<double>((const double *)scores, m, m, n_rows, indptr, indices, data,
                             row_offset, plan, out, empty, flags);
}

inline void top_k_any(int32_t score_type, const void *scores, int64_t n_rows, int64_t m,
                      int64_t K, bool later_first, double *values, int64_t *cols,
                      int64_t *outside, uint8_t *nan) {
    if (score_type == SCORE_F32)
        top_k<float>((const float *)scores, n_rows, m, K, later_first, values, cols, outside, nan);
    else
        top_k<double>((const double *)scores, n_rows, m, K, later_first, values, cols, outside,
                      nan);
}

}  // namespace rankk

#endif
