/* The relevance of one row, as the driver reads it: the threshold test, the
 * gains of a grade, the judgments, and the two row views, Aligned (grades
 * aligned with the scores: a dense row, or a segment of flat arrays) and
 * Sparse (a CSR row of a dense score matrix). Both answer the same calls:
 * count (|R| and the checks on the values), ideal (the largest grades),
 * grade (of a column), count_negative, visit_tied and tied_sums (the items
 * of a given score, for a tie group that straddles the selection).
 */
#ifndef SKLEARN_RANKK_ROWS_HPP
#define SKLEARN_RANKK_ROWS_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#include "_simd.h"
#include "request.hpp"
#include "scan.hpp"

namespace rankk {

// How an integer grade is compared with the threshold: y > t exactly when
// y > floor(t) in the grade's own type (vectorisable), while |t| < 2**53 - 1.
enum Compare : int32_t { CMP_FLOAT = 0, CMP_INT = 1, CMP_ALL = 2, CMP_NONE = 3 };

/* The `take` largest of g[0..n) in decreasing order into g[0..take) (the
 * rest left unspecified): the ideal ranking's grades. Whole grades 1..63
 * (graded relevance, as 0-4) are counted, O(n + 64); any other value (a
 * fraction, 0, -0.0, a large or negative grade, NaN) sends the row to a
 * partial sort. Both give the same doubles in the same order: a decreasing
 * sequence is fixed by its values once -0.0 and NaN are left out. */
inline void largest_first(double *g, int64_t n, int64_t take) {
    if (take <= 0) return;
    int64_t cnt[64] = {0};
    int64_t i = 0;
    for (; i < n; ++i) {
        const double x = g[i];
        if (!(x >= 1.0 && x < 64.0)) break;
        const int32_t v = (int32_t)x;
        if ((double)v != x) break;
        ++cnt[v];
    }
    if (i < n) {
        std::nth_element(g, g + take - 1, g + n, std::greater<double>());
        std::sort(g, g + take, std::greater<double>());
        return;
    }
    int64_t at = 0;
    for (int32_t v = 63; v >= 1 && at < take; --v) {
        const int64_t c = std::min(cnt[v], take - at);
        std::fill(g + at, g + at + c, (double)v);
        at += c;
    }
}

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

/* count_above_max, and the items above it + 1 .. it + IDEAL_LEVELS - 1 too
 * (above[0..IDEAL_LEVELS), above[0] the items above it), in the same read:
 * where every relevant grade lies within IDEAL_LEVELS - 1 levels of the
 * threshold (grades 1-4: W3, W4), the counts per grade give the ideal
 * ranking without reading the row again (Aligned::ideal). The extra
 * comparisons run while the row streams in from memory. it + IDEAL_LEVELS
 * - 1 must not overflow R. */
constexpr int IDEAL_LEVELS = 5;
template <class R>
RANKK_CLONES void count_levels_max(const R *y, int64_t m, R it, R &top, int64_t *above) {
    int64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0;
    const R t1 = (R)(it + 1), t2 = (R)(it + 2), t3 = (R)(it + 3), t4 = (R)(it + 4);
    R mx = y[0];
    for (int64_t j = 0; j < m; ++j) {
        const R v = y[j];
        c0 += v > it;
        c1 += v > t1;
        c2 += v > t2;
        c3 += v > t3;
        c4 += v > t4;
        mx = v > mx ? v : mx;
    }
    top = mx;
    above[0] = c0;
    above[1] = c1;
    above[2] = c2;
    above[3] = c3;
    above[4] = c4;
}
static_assert(IDEAL_LEVELS == 5, "count_levels_max counts five levels");

// Whether it + IDEAL_LEVELS - 1, count_levels_max's last level, fits in R.
template <class R>
inline bool levels_fit(R it) {
    return it <= std::numeric_limits<R>::max() - (R)(IDEAL_LEVELS - 1);
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
    // With want_top: count the grades' levels too (count_levels_max), where
    // the caller expects them to serve (the previous row's did: binary
    // relevance pays the extra comparisons for nothing, about 7% of W1's
    // nDCG@10).
    bool levels = false;
    mutable bool has_top = false;  // grade in the counting pass
    mutable R top{};
    // With has_levels, the items above it + d (d < IDEAL_LEVELS), counted
    // in the same pass (count_levels_max).
    mutable bool has_levels = false;
    mutable int64_t above[IDEAL_LEVELS] = {};

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
                has_levels = false;
                if (want_top && levels && m > 0 && levels_fit(T.it)) {
                    count_levels_max(y, m, T.it, top, above);
                    c = above[0];
                    has_top = has_levels = true;
                } else if (want_top && m > 0) {
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
     * sorts them (largest_first). Every relevant grade wanted (a gain map,
     * the whole ideal ranking): gathered at once, one read of the row. */
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
            // Every relevant grade within the levels counted: grade by grade
            // from the top, as the passes below would find them.
            if (has_levels && T.mode == CMP_INT && above[IDEAL_LEVELS - 1] == 0) {
                for (int d = IDEAL_LEVELS - 2; d >= 0 && (int64_t)out.size() < want; --d) {
                    const int64_t n = above[d] - above[d + 1];  // grade it + d + 1
                    out.insert(out.end(), (size_t)std::min(n, want - (int64_t)out.size()),
                               (double)(R)(T.it + d + 1));
                }
                return;
            }
        }
        // (every grade wanted: no level taken, none above `level`)
        constexpr R no_cap = std::numeric_limits<R>::has_infinity
                                 ? std::numeric_limits<R>::infinity()
                                 : std::numeric_limits<R>::max();
        R level = want == count ? no_cap : has_top ? top : max_of(y, m);
        for (int pass = 0; pass < (want == count ? 0 : 4); ++pass) {
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
        largest_first(g, n, take);
        out.resize(have + take);
    }

    inline double grade(int64_t j) const { return (double)y[j]; }

    // Whether the level counts would have given this row's ideal ranking
    // (integer grades, a top grade above the least relevant one and within
    // the counted levels): the next row's `levels`. (levels_fit first, as
    // in count: it + 4 must not overflow R.)
    bool levels_would_serve() const {
        if constexpr (std::is_integral<R>::value) {
            return has_top && th->mode == CMP_INT && levels_fit(th->it) &&
                   top > th->it + 1 && top <= th->it + (R)(IDEAL_LEVELS - 1);
        }
        return false;
    }

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

    // fn(column, grade) for every item of nonzero grade, in column order.
    template <class F>
    void each_stored(F &&fn) const {
        for (int64_t j = 0; j < m; ++j)
            if (y[j] != 0) fn(j, (double)y[j]);
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
        const int64_t take = std::min<int64_t>((int64_t)out.size(), want);
        largest_first(out.data(), (int64_t)out.size(), take);
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
    // fn(column, grade) for every stored item (the others are 0).
    template <class F>
    void each_stored(F &&fn) const {
        for (int64_t j = a; j < b; ++j) fn(indices[j], data[j]);
    }
    // fn(grade) for the stored items of score kth (the others are 0).
    template <class S, class F>
    void visit_tied(const S *s, double kth, F &&fn) const {
        for (int64_t j = a; j < b; ++j)
            if ((double)s[indices[j]] == kth) fn(data[j]);
    }
};

// A dense row's items not of grade 0, as a CSR row (dense_as_sparse), and
// its flags.
struct SparseCopy {
    std::vector<int64_t> idx;
    std::vector<double> dat;
    std::vector<uint8_t> flag;
};

/* Whether y[j] is not 0 (NaN: not 0), for j in [0, n): a vectorised loop. */
template <class R>
RANKK_CLONES void nonzero_flags(const R *y, int64_t n, uint8_t *fl) {
    for (int64_t j = 0; j < n; ++j) fl[j] = y[j] != (R)0;
}

#ifdef RANKK_SCAN_AVX2

// The relevance types list_nonzero_avx2 reads (2-byte ones take the flags).
template <class R>
constexpr bool nonzero_avx2_type = sizeof(R) == 8 || sizeof(R) == 4 || sizeof(R) == 1;

// Bit i: y[i] is not 0 (NaN: not 0; -0.0 is 0), for i < 64.
template <class R>
__attribute__((target("avx2"))) inline uint64_t nonzero_mask64(const R *y) {
    uint64_t bits = 0;
    if constexpr (std::is_same<R, double>::value) {
        for (int i = 0; i < 16; ++i) {
            const __m256d c =
                _mm256_cmp_pd(_mm256_loadu_pd(y + 4 * i), _mm256_setzero_pd(), _CMP_NEQ_UQ);
            bits |= (uint64_t)_mm256_movemask_pd(c) << (4 * i);
        }
        return bits;
    } else if constexpr (std::is_same<R, float>::value) {
        for (int i = 0; i < 8; ++i) {
            const __m256 c =
                _mm256_cmp_ps(_mm256_loadu_ps(y + 8 * i), _mm256_setzero_ps(), _CMP_NEQ_UQ);
            bits |= (uint64_t)_mm256_movemask_ps(c) << (8 * i);
        }
        return bits;
    } else {  // integers: the bits of the items equal to 0, inverted
        const __m256i z = _mm256_setzero_si256();
        for (int i = 0; i < (int)sizeof(R) * 2; ++i) {
            const __m256i v = _mm256_loadu_si256((const __m256i *)(y + i * (32 / sizeof(R))));
            if constexpr (sizeof(R) == 8) {
                const __m256i e = _mm256_cmpeq_epi64(v, z);
                bits |= (uint64_t)_mm256_movemask_pd(_mm256_castsi256_pd(e)) << (4 * i);
            } else if constexpr (sizeof(R) == 4) {
                const __m256i e = _mm256_cmpeq_epi32(v, z);
                bits |= (uint64_t)_mm256_movemask_ps(_mm256_castsi256_ps(e)) << (8 * i);
            } else {
                const __m256i e = _mm256_cmpeq_epi8(v, z);
                bits |= (uint64_t)(uint32_t)_mm256_movemask_epi8(e) << (32 * i);
            }
        }
        return ~bits;
    }
}

/* The columns of y[0..n) not 0 into idx, in order: their number, or a number
 * over `most` as soon as it passes it (idx holds most + 64). 64 items a
 * mask, whose columns are written four at a time whatever their number
 * (tzcnt of 0 is 64; the writes past them are overwritten or never read),
 * then the rest: no branch per item or per mask. With pf, the scores of
 * each 64 items (bytes per_item an item, of `bytes`) are fetched alongside. */
template <class R>
__attribute__((target("avx2,bmi,popcnt"))) int64_t list_nonzero_avx2(
    const R *y, int64_t n, int64_t *idx, int64_t most, const char *pf, size_t per_item,
    size_t bytes) {
    int64_t q = 0, j = 0;
    for (; j + 64 <= n; j += 64) {
        if (pf)
            for (size_t o = (size_t)j * per_item; o < std::min(bytes, (size_t)(j + 64) * per_item);
                 o += 64)
                rankk_prefetch(pf + o);
        q += list_bits_avx2(nonzero_mask64(y + j), j, idx + q);
        if (q > most) return q;
    }
    for (; j < n; ++j) {
        idx[q] = j;
        q += y[j] != (R)0;
    }
    return q;
}
#endif

/* A dense row read as a CSR row of its items not of grade 0 (the AUC
 * family, the whole-ranking measures of relevant_ranks.hpp: they read a
 * CSR row's stored items only; its other items have grade 0, judged, and
 * relevant only when the threshold is below 0, which they read from the
 * count). Such a row, mostly grade 0, is read once for its other items (a
 * vectorised pass of flags, then the flagged items, 64 at a time by the
 * bits of their flags: no branch per item) and then as a CSR row of them
 * (w.idx, w.dat; out.t is 0, set by the caller where read): the same
 * classes and grades, so the same values, without reading the grades
 * again. False (out unset) for a row view that
 * is not dense, or one with more than a quarter of its items not 0 (read
 * as it is). With `prefetch` (the row's scores, of `bytes` bytes), the
 * scores are fetched into cache alongside: the stored items' scores are
 * read next, at scattered columns. */
template <class Rel>
bool dense_as_sparse(const Rel &, int64_t, SparseCopy &, Sparse &, const void * = nullptr,
                   size_t = 0) {
    return false;
}
template <class R>
bool dense_as_sparse(const Aligned<R> &rel, int64_t m, SparseCopy &w, Sparse &out,
                   const void *prefetch = nullptr, size_t bytes = 0) {
    constexpr int64_t CHUNK = 4096;
    const int64_t most = m / 4;
    w.idx.resize((size_t)most + 64);
    w.dat.resize((size_t)most + 64);
    w.flag.resize(CHUNK + 64);
    uint8_t *fl = w.flag.data();
    int64_t *idx = w.idx.data();
    double *dat = w.dat.data();
    const char *pf = static_cast<const char *>(prefetch);
    const size_t per_item = bytes / (size_t)std::max<int64_t>(m, 1);
    int64_t n_out = 0;
#ifdef RANKK_SCAN_AVX2
    if constexpr (nonzero_avx2_type<R>) {
        if (scan_avx2()) {
            n_out = list_nonzero_avx2<R>(rel.y, m, idx, most, pf, per_item, bytes);
            if (n_out > most) return false;
            for (int64_t i = 0; i < n_out; ++i) dat[i] = (double)rel.y[idx[i]];
            out.indices = idx;
            out.data = dat;
            out.a = 0;
            out.b = n_out;
            out.t = 0.0;
            return true;
        }
    }
#endif
    for (int64_t a = 0; a < m; a += CHUNK) {
        const int64_t n = std::min(CHUNK, m - a);
        nonzero_flags<R>(rel.y + a, n, fl);
        std::memset(fl + n, 0, 64);
        for (int64_t q = 0; q < n; q += 64) {
            if (pf)
                for (size_t o = (size_t)(a + q) * per_item;
                     o < std::min(bytes, (size_t)(a + q + 64) * per_item); o += 64)
                    rankk_prefetch(pf + o);
            uint64_t bits = 0;  // bit i: item q + i is flagged
            for (int b = 0; b < 8; ++b) {
                uint64_t word;  // eight flags of 0 or 1: their bits gathered
                std::memcpy(&word, fl + q + 8 * b, 8);
                bits |= ((word * 0x0102040810204080ULL) >> 56) << (8 * b);
            }
            while (bits) {
                const int64_t j = a + q + rankk_ctz64(bits);
                bits &= bits - 1;
                idx[n_out] = j;
                dat[n_out] = (double)rel.y[j];
                ++n_out;
            }
            if (n_out > most) return false;  // (room for 64 more: most + 64)
        }
    }
    out.indices = idx;
    out.data = dat;
    out.a = 0;
    out.b = n_out;
    out.t = 0.0;  // (not read here: the threshold is t)
    return true;
}

/* Whether a row view's count (rel.count) checks nothing: a CSR row, a dense
 * row of integer grades (a float row's count flags NaN and infinite
 * grades). process_row skips the count for such a row when no request
 * reads it. */
template <class Rel>
struct count_checks_nothing : std::false_type {};
template <class R>
struct count_checks_nothing<Aligned<R>>
    : std::integral_constant<bool, !std::is_floating_point<R>::value> {};
template <>
struct count_checks_nothing<Sparse> : std::true_type {};

// A dense row of whole grades (what the count reads, a CSR copy of its
// graded items holds: process_row reads such a row once, as that copy,
// where every request reads only its stored items).
template <class Rel>
struct dense_whole_grades : std::false_type {};
template <class R>
struct dense_whole_grades<Aligned<R>>
    : std::integral_constant<bool, !std::is_floating_point<R>::value> {};

}  // namespace rankk

#endif
