/* AUC and its kin (formula codes 80-89): the ROC AUC of each row over its
 * relevant (y > t) against its judged non-relevant items (0 <= y <= t;
 * negative grades are not judged and left out), partial AUC up to max_fpr
 * (McClish-standardized, as scikit-learn's roc_auc_score), AUC of the top k
 * (torchmetrics' RetrievalAUROC(top_k)), pairwise ordered accuracy of graded
 * relevance, and the per-row counts that GAUC and micro averages weigh by.
 *
 * Ties. A pair of a relevant and a non-relevant item with equal scores
 * counts 1/2: the exact expectation over the orderings of tied items (the
 * probability that the relevant one comes first). Items scored -inf are not
 * retrieved: they sit below every finite score and tie among themselves in
 * both tie modes (they have no rank to break a tie by). With
 * ties="later_first" every other pair is ordered by score, then the later
 * column first.
 *
 * The whole-row values do not rank the row: an AUC is a rank sum
 * (Mann-Whitney U), counted by binary search of each item of one class
 * against the sorted scores of the smaller class, O(m log min(P, N)).
 * Partial AUC reads the non-relevant items in rank order (a sort of them).
 * AUC@k reads the driver's ranks and tie groups (RowView).
 */
#ifndef SKLEARN_RANKK_FORMULAS_AUC_HPP
#define SKLEARN_RANKK_FORMULAS_AUC_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "_portable.h"
#include "request.hpp"
#include "rows.hpp"
#include "ties.hpp"

#if defined(__SSE2__) || (defined(_M_X64) && !defined(_M_ARM64EC)) || \
    (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define RANKK_AUC_SSE2 1
#endif

namespace rankk {

// The codes of this family, and the requests it answers without the
// driver's selection (the whole row: k = K_WHOLE).
constexpr bool is_auc_family(int32_t f) { return f >= 80 && f <= 89; }
inline bool auc_reads_row_itself(const Request &r) {
    return is_auc_family(r.formula) && (r.formula != AUC || r.k == K_WHOLE);
}

// fn(column, score, grade) for every item of the row: Aligned rows read
// their grades, a CSR row's unstored items have grade 0.
template <class S, class R, class F>
inline void auc_items(const S *s, int64_t m, const Aligned<R> &rel, F &&fn) {
    for (int64_t j = 0; j < m; ++j) fn(j, (double)s[j], (double)rel.y[j]);
}
template <class S, class F>
inline void auc_items(const S *s, int64_t m, const Sparse &rel, F &&fn) {
    int64_t p = rel.a;
    for (int64_t j = 0; j < m; ++j) {
        double y = 0.0;
        if (p < rel.b && rel.indices[p] == j) y = rel.data[p++];
        fn(j, (double)s[j], y);
    }
}

// Class of an item: 1 relevant, 0 judged non-relevant, -1 not judged.
inline int auc_class(double y, double t) { return y > t ? 1 : (y >= 0.0 ? 0 : -1); }

/* Scores of s[0..n) below v and equal to v (v not NaN): with AVX2 where the
 * CPU has it (gcc's multi-versioning, as RANKK_CLONES: the plain loop,
 * which gcc vectorises for AVX2), else two or four at a time with SSE2
 * (the baseline gcc leaves the float64 loop scalar); the scalar loop
 * elsewhere. */
template <class T>
RANKK_CLONES void count_lt_eq_plain(const T *s, int64_t n, T v, int64_t &lt, int64_t &eq) {
    int64_t a = 0, b = 0;
    for (int64_t j = 0; j < n; ++j) {
        a += s[j] < v;
        b += s[j] == v;
    }
    lt = a;
    eq = b;
}

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && \
    __GNUC__ >= 8
#define RANKK_AUC_AVX2 1
inline bool auc_have_avx2() {
    static const bool yes = __builtin_cpu_supports("avx2");
    return yes;
}
#endif

inline void count_lt_eq(const double *s, int64_t n, double v, int64_t &lt, int64_t &eq) {
#ifdef RANKK_AUC_AVX2
    if (auc_have_avx2()) {
        count_lt_eq_plain<double>(s, n, v, lt, eq);
        return;
    }
#endif
    int64_t j = 0, a = 0, b = 0;
#ifdef RANKK_AUC_SSE2
    const __m128d w = _mm_set1_pd(v);
    __m128i l0 = _mm_setzero_si128(), l1 = l0, e0 = l0, e1 = l0;
    for (; j + 4 <= n; j += 4) {
        const __m128d x0 = _mm_loadu_pd(s + j), x1 = _mm_loadu_pd(s + j + 2);
        l0 = _mm_sub_epi64(l0, _mm_castpd_si128(_mm_cmplt_pd(x0, w)));
        l1 = _mm_sub_epi64(l1, _mm_castpd_si128(_mm_cmplt_pd(x1, w)));
        e0 = _mm_sub_epi64(e0, _mm_castpd_si128(_mm_cmpeq_pd(x0, w)));
        e1 = _mm_sub_epi64(e1, _mm_castpd_si128(_mm_cmpeq_pd(x1, w)));
    }
    int64_t t[2];
    _mm_storeu_si128((__m128i *)t, _mm_add_epi64(l0, l1));
    a = t[0] + t[1];
    _mm_storeu_si128((__m128i *)t, _mm_add_epi64(e0, e1));
    b = t[0] + t[1];
#endif
    for (; j < n; ++j) {
        a += s[j] < v;
        b += s[j] == v;
    }
    lt = a;
    eq = b;
}

inline void count_lt_eq(const float *s, int64_t n, double vd, int64_t &lt, int64_t &eq) {
    const float v = (float)vd;  // exact: v is one of the row's scores
#ifdef RANKK_AUC_AVX2
    if (auc_have_avx2()) {
        count_lt_eq_plain<float>(s, n, v, lt, eq);
        return;
    }
#endif
    int64_t j = 0, a = 0, b = 0;
#ifdef RANKK_AUC_SSE2
    const __m128 w = _mm_set1_ps(v);
    // int32 lanes, emptied every 2**28 blocks of 4
    while (j + 4 <= n) {
        __m128i l = _mm_setzero_si128(), e = l;
        const int64_t end = std::min<int64_t>(n - (n - j) % 4, j + ((int64_t)1 << 30));
        for (; j < end; j += 4) {
            const __m128 x = _mm_loadu_ps(s + j);
            l = _mm_sub_epi32(l, _mm_castps_si128(_mm_cmplt_ps(x, w)));
            e = _mm_sub_epi32(e, _mm_castps_si128(_mm_cmpeq_ps(x, w)));
        }
        int32_t t[4];
        _mm_storeu_si128((__m128i *)t, l);
        a += (int64_t)t[0] + t[1] + t[2] + t[3];
        _mm_storeu_si128((__m128i *)t, e);
        b += (int64_t)t[0] + t[1] + t[2] + t[3];
    }
#endif
    for (; j < n; ++j) {
        a += s[j] < v;
        b += s[j] == v;
    }
    lt = a;
    eq = b;
}

/* The row's relevant (P) and unjudged items into pos and unj, and the counts
 * of each class; whether a score is NaN. A CSR row reads its stored items
 * only (the others are grade 0: judged non-relevant, as t >= 0). */
struct AucKey;
template <class S, class R>
bool auc_classes(const S *s, int64_t m, const Aligned<R> &rel, double t,
                 std::vector<AucKey> &pos, std::vector<AucKey> &unj);
template <class S>
bool auc_classes(const S *s, int64_t m, const Sparse &rel, double t, std::vector<AucKey> &pos,
                 std::vector<AucKey> &unj);

struct AucKey {
    double s;
    int64_t j;
};

// Up to this many relevant items, the whole row's AUC counts by scans of
// the row (O(P m), vectorised); beyond, by a sort of the smaller class and
// binary searches (O(m log min(P, N))).
constexpr int64_t AUC_SCAN_MAX = 48;

/* Number of keys of the sorted (ascending by score, then column) array
 * `keys` ranked above the item (v, j), and of those tied with it: with exact
 * ties, or for v = -inf, above = score > v and tied = score == v; else above
 * = (score, column) > (v, j), none tied. */
inline void auc_count(const std::vector<AucKey> &keys, double v, int64_t j, bool exact,
                      double &above, double &tied) {
    const int64_t n = (int64_t)keys.size();
    auto upper = std::upper_bound(keys.begin(), keys.end(), v,
                                  [](double x, const AucKey &a) { return x < a.s; });
    auto lower = upper;  // searched only when a key equals v
    if (upper != keys.begin() && (upper - 1)->s == v)
        lower = std::lower_bound(keys.begin(), upper, v,
                                 [](const AucKey &a, double x) { return a.s < x; });
    if (exact || v == -INFINITY) {
        above = (double)(keys.end() - upper);
        tied = (double)(upper - lower);
        return;
    }
    // among the equal scores [lower, upper), sorted by column: those after j
    auto after = std::upper_bound(lower, upper, j, [](int64_t x, const AucKey &a) { return x < a.j; });
    above = (double)(n - (after - keys.begin()));
    tied = 0.0;
}

inline bool auc_key_less(const AucKey &a, const AucKey &b) {
    return a.s < b.s || (a.s == b.s && a.j < b.j);
}

template <class S, class R>
bool auc_classes(const S *s, int64_t m, const Aligned<R> &rel, double t,
                 std::vector<AucKey> &pos, std::vector<AucKey> &unj) {
    bool nan = false;
    for (int64_t j = 0; j < m; ++j) {
        const double y = (double)rel.y[j], v = (double)s[j];
        nan = nan || v != v;
        if (y > t) pos.push_back({v, j});
        else if (y < 0.0) unj.push_back({v, j});
    }
    return nan;
}
template <class S>
bool auc_classes(const S *s, int64_t m, const Sparse &rel, double t, std::vector<AucKey> &pos,
                 std::vector<AucKey> &unj) {
    bool nan = false;
    for (int64_t j = 0; j < m; ++j) nan = nan || s[j] != s[j];
    for (int64_t p = rel.a; p < rel.b; ++p) {
        const double y = rel.data[p], v = (double)s[rel.indices[p]];
        if (y > t) pos.push_back({v, rel.indices[p]});
        else if (y < 0.0) unj.push_back({v, rel.indices[p]});
    }
    return nan;
}

/* Items of the row ranked below the item (v, j) and tied with it (itself
 * excluded), by a vectorised count over the row: with exact ties, or for
 * v = -inf, below = score < v and tied = score == v; else (the later column
 * first) below also takes the equal scores of earlier columns. */
template <class S>
void auc_below(const S *s, int64_t m, double v, int64_t j, bool exact, double &below,
               double &tied) {
    int64_t lt, eq;
    if (exact || v == -INFINITY) {
        count_lt_eq(s, m, v, lt, eq);
        below = (double)lt;
        tied = (double)(eq - 1);
        return;
    }
    int64_t lt2, eq2;
    count_lt_eq(s, j, v, lt, eq);               // columns before j: equal is below
    count_lt_eq(s + j + 1, m - j - 1, v, lt2, eq2);  // after j: equal is above
    below = (double)(lt + eq + lt2);
    tied = 0.0;
}

struct PairItem {
    double s;
    int64_t j;
    double y;
};

/* This family's work buffers, one set per thread (kept here rather than in
 * Scratch so that the family stays in its own header). */
struct AucWork {
    std::vector<AucKey> pos, neg;
    std::vector<PairItem> items;
    std::vector<double> grades, tree, prefix, g_of, dist;
    std::vector<int64_t> cum;
};
inline AucWork &auc_work() {
    thread_local AucWork w;
    return w;
}

/* With exact ties: the sum over every item x of the row of (items of the
 * class C above x) + (those tied with x)/2, x itself included when in C;
 * C's scores sorted in c (ascending). One pass over the row, each item
 * placed among C's distinct scores by a branchless binary search (the same
 * steps for every item: no mispredicted branch). Twice the sum, exact. */
template <class S>
int64_t auc_class_sum2(const S *s, int64_t m, const std::vector<AucKey> &c,
                       std::vector<double> &d, std::vector<int64_t> &cum) {
    // d[1..D]: C's distinct scores; cum[i]: C's items with score <= d[i];
    // d[0] = NaN, a sentinel that equals nothing.
    d.assign(1, std::nan(""));
    cum.assign(1, 0);
    for (size_t i = 0; i < c.size(); ++i) {
        if (i == 0 || c[i].s != c[i - 1].s) {
            d.push_back(c[i].s);
            cum.push_back(cum.back());
        }
        ++cum.back();
    }
    const int64_t D = (int64_t)d.size() - 1, n_c = (int64_t)c.size();
    const double *first = d.data() + 1;
    int64_t sum2 = 0;
    for (int64_t j = 0; j < m; ++j) {
        const double v = (double)s[j];
        // i = C's distinct scores <= v
        const double *base = first;
        int64_t n = D;
        while (n > 1) {
            const int64_t half = n / 2;
            base = base[half - 1] <= v ? base + half : base;
            n -= half;
        }
        const int64_t i = (base - first) + (*base <= v);
        const int64_t tied = d[(size_t)i] == v ? cum[(size_t)i] - cum[(size_t)i - (i > 0)] : 0;
        sum2 += 2 * (n_c - cum[(size_t)i]) + tied;
    }
    return sum2;
}

// Whether item a ranks below item b (ties: exact, or both at -inf) and
// whether they tie.
inline double auc_pair_below(const AucKey &a, const AucKey &b, bool exact) {
    if (a.s < b.s) return 1.0;
    if (a.s > b.s) return 0.0;
    if (exact || a.s == -INFINITY) return 0.5;
    return a.j < b.j ? 1.0 : 0.0;
}

/* Whole-row AUC, or partial AUC up to max_fpr = f < 1 (McClish-standardized).
 * Returns whether the row is empty (no relevant or no judged non-relevant
 * item). pos/neg: work buffers. */
template <class S, class Rel>
bool auc_whole_row(const S *s, int64_t m, const Rel &rel, double t, bool exact, double f,
                   std::vector<AucKey> &pos, std::vector<AucKey> &neg, double &value,
                   uint8_t &flags) {
    pos.clear();
    neg.clear();
    if (f >= 1.0) {
        /* Few relevant items (the usual case): for each, the items below it
         * by a vectorised count over the row's scores, less the relevant and
         * unjudged ones below it, O(P m) in streaming reads. More, but not
         * more than the non-relevant ones, with exact ties: one pass over
         * the row, each item placed among the relevant items' distinct
         * scores, O(m log P). Else: the smaller class sorted and searched,
         * O(m log min(P, N)). */
        const bool nan = auc_classes(s, m, rel, t, pos, neg);  // neg: the unjudged here
        if (nan) {
            flags |= FLAG_NAN_SCORE;
            value = 0.0;
            return false;
        }
        const int64_t n_pos = (int64_t)pos.size(), n_unj = (int64_t)neg.size();
        const int64_t n_neg = m - n_pos - n_unj;
        value = 0.0;
        if (n_pos == 0 || n_neg == 0) return true;
        if (n_pos <= AUC_SCAN_MAX) {
            double u = 0.0;
            for (const AucKey &p : pos) {
                double below, tied;
                auc_below(s, m, p.s, p.j, exact, below, tied);
                u += below + 0.5 * tied;
                for (const AucKey &q : neg) u -= auc_pair_below(q, p, exact);
            }
            // Each pair of relevant items adds 1 (one below the other, or
            // 1/2 + 1/2 when tied).
            u -= 0.5 * (double)n_pos * (double)(n_pos - 1);
            value = u / ((double)n_pos * (double)n_neg);
            return false;
        }
        if (exact && n_pos <= n_neg) {
            /* Every item's relevant items above it (ties 1/2), summed over
             * the row: the non-relevant items' sum is U; the relevant
             * items' is |P|**2 / 2 (each pair 1, each item 1/2 for itself);
             * the unjudged items' is subtracted one by one. */
            AucWork &w = auc_work();
            std::sort(pos.begin(), pos.end(), auc_key_less);
            double u = 0.5 * (double)auc_class_sum2(s, m, pos, w.dist, w.cum);
            u -= 0.5 * (double)n_pos * (double)n_pos;
            for (const AucKey &q : neg)
                for (const AucKey &p : pos) u -= auc_pair_below(q, p, true);
            value = u / ((double)n_pos * (double)n_neg);
            return false;
        }
        pos.clear();
        neg.clear();
    }
    int64_t n_pos = 0, n_neg = 0;
    bool nan = false;
    auc_items(s, m, rel, [&](int64_t, double v, double y) {
        const int c = auc_class(y, t);
        n_pos += c == 1;
        n_neg += c == 0;
        nan = nan || v != v;
    });
    value = 0.0;
    if (nan) {
        flags |= FLAG_NAN_SCORE;
        return n_pos == 0 || n_neg == 0;
    }
    if (n_pos == 0 || n_neg == 0) return true;
    const double P = (double)n_pos, N = (double)n_neg;
    if (f >= 1.0) {
        // The smaller class sorted; each item of the other counted against it.
        const int small = n_pos <= n_neg ? 1 : 0;
        auc_items(s, m, rel, [&](int64_t j, double v, double y) {
            if (auc_class(y, t) == small) pos.push_back({v, j});
        });
        std::sort(pos.begin(), pos.end(), auc_key_less);
        double u = 0.0;  // (relevant, non-relevant) pairs in order, ties 1/2
        auc_items(s, m, rel, [&](int64_t j, double v, double y) {
            const int c = auc_class(y, t);
            if (c != 1 - small) return;
            double above, tied;
            auc_count(pos, v, j, exact, above, tied);
            // small = relevant: relevant items above this non-relevant one;
            // small = non-relevant: those below this relevant one.
            const double below = (double)pos.size() - above - tied;
            u += (small == 1 ? above : below) + 0.5 * tied;
        });
        value = u / (P * N);
        return false;
    }
    // Partial AUC: the non-relevant items in rank order, each spanning
    // [(i-1)/N, i/N] of the false positive rate at height (relevant items
    // above it)/P; the area up to f, then McClish's standardization.
    auc_items(s, m, rel, [&](int64_t j, double v, double y) {
        const int c = auc_class(y, t);
        if (c == 1) pos.push_back({v, j});
        else if (c == 0) neg.push_back({v, j});
    });
    std::sort(pos.begin(), pos.end(), auc_key_less);
    std::sort(neg.begin(), neg.end(), [](const AucKey &a, const AucKey &b) { return auc_key_less(b, a); });
    const double fN = f * N;
    double area = 0.0;  // in units of (1/N) x (relevant items)
    int64_t i0 = 0;     // non-relevant items before the group
    while (i0 < n_neg && (double)i0 < fN) {
        const double v = neg[i0].s;
        int64_t i1 = i0 + 1;
        if (exact || v == -INFINITY)
            while (i1 < n_neg && neg[i1].s == v) ++i1;
        double above, tied;
        auc_count(pos, v, neg[i0].j, exact, above, tied);
        // The u non-relevant items of a tie group take the next u places in
        // any order; the i-th of them has i r / (u + 1) of the group's r
        // relevant items above it on average.
        const double u = (double)(i1 - i0);
        for (int64_t i = 1; i <= i1 - i0; ++i) {
            const double start = (double)(i0 + i - 1);
            const double w = std::min(1.0, std::max(0.0, fN - start));
            if (w <= 0.0) break;
            area += w * (above + (double)i * tied / (u + 1.0));
        }
        i0 = i1;
    }
    const double pauc = area / (P * N);
    value = 0.5 * (1.0 + (pauc - 0.5 * f * f) / (f - 0.5 * f * f));
    return false;
}

/* AUC of the top `end` ranks (torchmetrics' retrieval AUROC with top_k):
 * the relevant against the judged non-relevant items among them, 0 when the
 * top k lacks either. A tie group straddling the cut contributes a random
 * subset of its members: the exact expectation over its composition
 * (multivariate hypergeometric). Judgments must be read (w_np, w_pool). */
inline double auc_top(const RowView &v, int64_t end) {
    double U = 0.0, P0 = 0.0, N0 = 0.0;
    double value = 0.0;
    bool done = false;
    v.groups.each(end, [&](int64_t a, int64_t b) {
        const double n = v.ng[a], r = v.rg[a], u = n - r - v.w_np[a] - v.w_pool[a];
        const double s = (double)(b - a);
        if (s < n) {  // straddles the cut: s of its n members are in the top k
            const double w = n - r - u;
            double total = 0.0;
            for (double x = std::max(0.0, s - u - w); x <= std::min(r, s); x += 1.0)
                for (double y = std::max(0.0, s - x - w); y <= std::min(u, s - x); y += 1.0) {
                    const double p = std::exp(lchoose_int(r, x) + lchoose_int(u, y) +
                                              lchoose_int(w, s - x - y) - lchoose_int(n, s));
                    const double pp = P0 + x, nn = N0 + y;
                    if (pp > 0.0 && nn > 0.0)
                        total += p * (U + P0 * y + 0.5 * x * y) / (pp * nn);
                }
            value = total;
            done = true;
            return;
        }
        U += P0 * u + 0.5 * r * u;
        P0 += r;
        N0 += u;
    });
    if (done) return value;
    return P0 > 0.0 && N0 > 0.0 ? U / (P0 * N0) : 0.0;
}

/* Pairwise ordered accuracy of one row: over the pairs of judged items
 * (grade >= 0) of different grades, the share ranked in order (the higher
 * grade first), a tie counting 1/2. Returns whether the row has no such
 * pair. The largest grade class L (the non-relevant items, typically) is not
 * sorted: the other judged items are (S of them), each item of L finds its
 * place among them by binary search and reads a prefix sum of +1 (a higher
 * grade: in order when above) and -1 (a lower grade: in order when below);
 * the pairs among the S items are counted over their sorted order with a
 * Fenwick tree over the grades. O(m log S + S log S). */

template <class S, class Rel>
bool pairwise_accuracy_row(const S *s, int64_t m, const Rel &rel, bool exact, AucWork &w,
                           double &value, double &n_pairs, uint8_t &flags) {
    std::vector<PairItem> &items = w.items;
    std::vector<double> &grades = w.grades, &tree = w.tree, &prefix = w.prefix, &g_of = w.g_of;
    items.clear();
    grades.clear();
    bool nan = false;
    int64_t J = 0;
    auc_items(s, m, rel, [&](int64_t, double v, double y) {
        nan = nan || v != v;
        if (y >= 0.0) {
            ++J;
            if (grades.size() < 64 && std::find(grades.begin(), grades.end(), y) == grades.end())
                grades.push_back(y);
        }
    });
    value = 0.0;
    n_pairs = 0.0;
    if (nan) flags |= FLAG_NAN_SCORE;
    if (grades.size() >= 64) {  // many distinct grades: collect them all
        grades.clear();
        auc_items(s, m, rel, [&](int64_t, double, double y) {
            if (y >= 0.0) grades.push_back(y);
        });
    }
    std::sort(grades.begin(), grades.end());
    grades.erase(std::unique(grades.begin(), grades.end()), grades.end());
    const int64_t G = (int64_t)grades.size();
    if (G < 2 || nan) return true;
    auto idx = [&](double y) {
        return (int64_t)(std::lower_bound(grades.begin(), grades.end(), y) - grades.begin());
    };
    // Items per grade; L the largest class.
    tree.assign((size_t)G, 0.0);
    auc_items(s, m, rel, [&](int64_t, double, double y) {
        if (y >= 0.0) tree[(size_t)idx(y)] += 1.0;
    });
    const int64_t L = (int64_t)(std::max_element(tree.begin(), tree.end()) - tree.begin());
    const double yL = grades[(size_t)L], n_L = tree[(size_t)L];
    double same = 0.0, lower_than_L = 0.0;
    for (int64_t g = 0; g < G; ++g) {
        same += tree[(size_t)g] * (tree[(size_t)g] - 1.0) / 2.0;
        if (g < L) lower_than_L += tree[(size_t)g];
    }
    n_pairs = (double)J * ((double)J - 1.0) / 2.0 - same;
    // The other judged items, ascending by (score, column).
    auc_items(s, m, rel, [&](int64_t j, double v, double y) {
        if (y >= 0.0 && y != yL) items.push_back({v, j, y});
    });
    std::sort(items.begin(), items.end(), [](const PairItem &a, const PairItem &b) {
        return a.s < b.s || (a.s == b.s && a.j < b.j);
    });
    const int64_t n_o = (int64_t)items.size();
    g_of.resize((size_t)n_o);
    for (int64_t p = 0; p < n_o; ++p) g_of[(size_t)p] = (double)idx(items[(size_t)p].y);
    double conc = 0.0;
    if (n_o <= AUC_SCAN_MAX) {
        /* Few items outside L: the items of L below and tied with each, by
         * a vectorised count over the row less the other judged and the
         * unjudged items among them. O(S m). */
        std::vector<AucKey> &unj = w.neg;
        unj.clear();
        auc_items(s, m, rel, [&](int64_t j, double v, double y) {
            if (y < 0.0) unj.push_back({v, j});
        });
        for (int64_t p = 0; p < n_o; ++p) {
            const PairItem &o = items[(size_t)p];
            const AucKey ok{o.s, o.j};
            double below, tied;
            auc_below(s, m, o.s, o.j, exact, below, tied);
            for (int64_t q = 0; q < n_o; ++q) {
                if (q == p) continue;
                const double b = auc_pair_below({items[(size_t)q].s, items[(size_t)q].j}, ok, exact);
                below -= b == 1.0 ? 1.0 : 0.0;
                tied -= b == 0.5 ? 1.0 : 0.0;
            }
            for (const AucKey &u : unj) {
                const double b = auc_pair_below(u, ok, exact);
                below -= b == 1.0 ? 1.0 : 0.0;
                tied -= b == 0.5 ? 1.0 : 0.0;
            }
            // In order: an item of L below a higher grade, above a lower one.
            conc += (o.y > yL ? below : n_L - below - tied) + 0.5 * tied;
        }
    } else {
        // Pairs of an item of L with the others: prefix sums of +-1.
        prefix.assign((size_t)n_o + 1, 0.0);
        for (int64_t p = 0; p < n_o; ++p)
            prefix[(size_t)p + 1] = prefix[(size_t)p] + (items[(size_t)p].y > yL ? 1.0 : -1.0);
        auc_items(s, m, rel, [&](int64_t j, double v, double y) {
            if (y != yL) return;  // (a negative grade is never yL)
            auto upper = std::upper_bound(items.begin(), items.end(), v,
                                          [](double x, const PairItem &a) { return x < a.s; });
            auto lower = upper;
            if (upper != items.begin() && (upper - 1)->s == v)
                lower = std::lower_bound(items.begin(), upper, v,
                                         [](const PairItem &a, double x) { return a.s < x; });
            if (!(exact || v == -INFINITY))  // later column first: no tie
                lower = upper = std::upper_bound(lower, upper, j, [](int64_t x, const PairItem &a) {
                    return x < a.j;
                });
            const int64_t hi = upper - items.begin(), lo = lower - items.begin();
            const double above = prefix[(size_t)n_o] - prefix[(size_t)hi];
            const double tied = prefix[(size_t)hi] - prefix[(size_t)lo];
            conc += lower_than_L + above + 0.5 * tied;
        });
    }
    // Pairs among the others: down their order, with a Fenwick tree of the
    // grades above.
    tree.assign((size_t)G + 1, 0.0);
    auto add = [&](int64_t i) {
        for (++i; i <= G; i += i & -i) tree[(size_t)i] += 1.0;
    };
    auto upto = [&](int64_t i) {  // inserted items of grade index < i
        double c = 0.0;
        for (; i > 0; i -= i & -i) c += tree[(size_t)i];
        return c;
    };
    double inserted = 0.0;
    for (int64_t b = n_o; b > 0;) {
        int64_t a = b - 1;
        const double v = items[(size_t)a].s;
        if (exact || v == -INFINITY)
            while (a > 0 && items[(size_t)a - 1].s == v) --a;
        // An item above of a higher grade: in order.
        for (int64_t p = a; p < b; ++p) conc += inserted - upto((int64_t)g_of[(size_t)p] + 1);
        // Pairs inside a tie group, of different grades: 1/2 each.
        if (b - a > 1) {
            std::sort(g_of.begin() + a, g_of.begin() + b);
            double eq = 0.0;
            for (int64_t p = a; p < b;) {
                int64_t q = p + 1;
                while (q < b && g_of[(size_t)q] == g_of[(size_t)p]) ++q;
                eq += (double)(q - p) * (double)(q - p - 1) / 2.0;
                p = q;
            }
            const double nb = (double)(b - a);
            conc += 0.5 * (nb * (nb - 1.0) / 2.0 - eq);
        }
        for (int64_t p = a; p < b; ++p) add((int64_t)g_of[(size_t)p]);
        inserted += (double)(b - a);
        b = a;
    }
    value = conc / n_pairs;
    return false;
}

/* The per-row counts that the weighted averages read (COUNT_ROW). */
template <class S, class Rel>
double auc_row_count(const S *s, int64_t m, const Rel &rel, double t, int32_t which,
                     AucWork &w, uint8_t &flags) {
    if (which == COUNT_GRADED_PAIRS) {
        double value, n_pairs;
        pairwise_accuracy_row(s, m, rel, true, w, value, n_pairs, flags);
        return n_pairs;
    }
    int64_t n_pos = 0, n_neg = 0;
    auc_items(s, m, rel, [&](int64_t, double, double y) {
        const int c = auc_class(y, t);
        n_pos += c == 1;
        n_neg += c == 0;
    });
    if (which == COUNT_RELEVANT) return (double)n_pos;
    if (which == COUNT_JUDGED) return (double)(n_pos + n_neg);
    return (double)n_pos * (double)n_neg;
}

}  // namespace rankk

#endif
