/* Selection: the best K items of a row in rank order (select_top, with its
 * streaming fallback stream_top), the members of the tie group straddling
 * the cut left out of it, and the candidates it keeps, from which
 * set_cut.hpp answers set cut-offs deeper than the K ranks.
 */
#ifndef SKLEARN_RANKK_SELECT_HPP
#define SKLEARN_RANKK_SELECT_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "_simd.h"
#include "scan.hpp"
#include "scratch.hpp"

namespace rankk {

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
                for (int64_t i = j; i < m; ++i)
                    mask |= (uint64_t)!((double)s[i] < worst) << (i - j);
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
        return worse<LATER>(b.first, b.second, a.first, a.second);
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

// The smallest and the largest of x[0..n) (n >= 1, no NaN), in four chains
// each: GCC does not vectorise a floating-point min/max reduction (the
// sign of a zero does not matter here: the result is only compared).
RANKK_CLONES inline void min_max(const double *x, int64_t n, double &lo, double &hi) {
    double a[4] = {x[0], x[0], x[0], x[0]}, b[4] = {x[0], x[0], x[0], x[0]};
    int64_t i = 1;
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; ++l) {
            a[l] = x[i + l] < a[l] ? x[i + l] : a[l];
            b[l] = x[i + l] > b[l] ? x[i + l] : b[l];
        }
    for (; i < n; ++i) {
        a[0] = x[i] < a[0] ? x[i] : a[0];
        b[0] = x[i] > b[0] ? x[i] : b[0];
    }
    lo = std::min(std::min(a[0], a[1]), std::min(a[2], a[3]));
    hi = std::max(std::max(b[0], b[1]), std::max(b[2], b[3]));
}

// How many of x[0..n) equal u, and v.
RANKK_CLONES inline void count_equal2(const double *x, int64_t n, double u, double v,
                                      int64_t &eu, int64_t &ev) {
    int64_t a = 0, b = 0;
    for (int64_t i = 0; i < n; ++i) {
        a += x[i] == u;
        b += x[i] == v;
    }
    eu = a;
    ev = b;
}

/* sc.prev: the candidates' scores, filled by fill_prev in the candidates'
 * order (column_order_ranks reads that order), then reordered by the
 * selections on it. Its smallest and largest values and the items at each
 * (two vectorised passes) depend on the scores only, not their order:
 * computed once after each fill (prev_ends), they serve the row's three
 * questions to kth_at_an_end (the top K, a set cut-off, the next row's
 * threshold). Every fill goes through fill_prev; the rest only reorders it. */
template <class Cand>
inline void fill_prev(Scratch &sc, const Cand &cand) {
    sc.prev.resize(cand.size());
    sc.prev_ends_set = sc.prev_sorted = false;
    double *pv = sc.prev.data();
    const auto *cd = cand.data();
    for (size_t c = 0, e = cand.size(); c < e; ++c) pv[c] = cd[c].first;
}

inline void prev_ends(Scratch &sc) {  // (sc.prev not empty)
    if (sc.prev_ends_set) return;
    const int64_t n = (int64_t)sc.prev.size();
    min_max(sc.prev.data(), n, sc.prev_lo, sc.prev_hi);
    count_equal2(sc.prev.data(), n, sc.prev_hi, sc.prev_lo, sc.prev_at_hi, sc.prev_at_lo);
    sc.prev_ends_set = true;
}

/* Whether the k-th largest of sc.prev (1 <= k <= its size, no NaN) is its
 * largest or its smallest value, and that value (at), with the items above
 * it and those equal to it. Rows of few distinct scores (W4) often have it
 * there. */
inline bool kth_at_an_end(Scratch &sc, int64_t k, double &at, int64_t &above, int64_t &tied) {
    const int64_t n = (int64_t)sc.prev.size();
    prev_ends(sc);
    if (sc.prev_at_hi >= k) {  // (hi == lo: every item, at_hi = n)
        at = sc.prev_hi;
        above = 0;
        tied = sc.prev_at_hi;
        return true;
    }
    at = sc.prev_lo;
    above = n - sc.prev_at_lo;
    tied = sc.prev_at_lo;
    return sc.prev_at_lo > n - k;  // (fewer than k above lo)
}

// The k-th largest of sc.prev (1 <= k <= its size, no NaN), reordering it.
inline double kth_largest(Scratch &sc, int64_t k) {
    if (sc.prev_sorted) return sc.prev[k - 1];
    double at;
    int64_t above, tied;
    if (kth_at_an_end(sc, k, at, above, tied)) return at;
    std::vector<double> &x = sc.prev;
    std::nth_element(x.begin(), x.begin() + (k - 1), x.end(), std::greater<double>());
    return x[k - 1];
}

/* A threshold that about `want` items of the next row should reach, if it
 * is like the rows before: an estimate of the previous row's want-th best
 * score (that score when it kept that many candidates, else their lowest
 * lowered by their mean gap for each item missing), averaged with the
 * earlier rows' (a moving average, 1/4 to the newest); -inf for the first
 * row. The candidates kept: K + K/2 + 8 for the K ranks selected; c + c/8 +
 * 8 when they must also reach a deeper set cut-off c (c + c/4 + 16 before
 * the average: W1's R-precision 24.8 -> 21.6 ms, its report -6%; every
 * candidate of such a row is ranked by counting, O(n^2)). A row reached by
 * fewer than it needs (K, or c) is read again below the threshold
 * (collect_between: the row is in cache by then).
 *
 * Before (up to the twenty-first session): the previous row's (3K + 8)-th
 * score, else its lowest kept one, with no average. Its count drifted down
 * from row to row (the lowest kept score of a row short of 3K + 8 keeps
 * about as many), to a shortfall, served by streaming the row again, after
 * which the next row took every item as a candidate: on W1 at K = 10, 431
 * streamed rows and 866 compactions a call, 25 candidates a row on average,
 * ranked by counting (O(n^2)). Now about 23 a row, the count held there by
 * the average, and a shortfall costs a read of the row in cache: W1's
 * precision@10 from 16.7 to about 11 ms, nDCG@10 from 19.5 to 15 ms (with
 * the scan of list_reaching_avx2; F = 9.5 ms; docs/benchmarks.md). */
inline int64_t guess_rank(int64_t K) { return K + K / 2 + 8; }
inline int64_t set_rank(int64_t c) { return c + c / 8 + 8; }

inline double next_guess(Scratch &sc, int64_t want) {
    const int64_t n = (int64_t)sc.prev.size();
    if (n == 0) return sc.guess_set ? sc.guess : -INFINITY;  // (a row streamed)
    double e;
    if (n >= want) {
        e = kth_largest(sc, want);
    } else {
        prev_ends(sc);
        e = sc.prev_lo;
        if (n >= 2 && sc.prev_hi > sc.prev_lo)
            e -= (sc.prev_hi - sc.prev_lo) / (double)(n - 1) * (double)(want - n);
    }
    if (e != e) e = -INFINITY;  // (not expected: a guard)
    if (sc.guess_set && std::isfinite(e) && std::isfinite(sc.guess))
        e = sc.guess + (e - sc.guess) * 0.25;
    sc.guess = e;
    sc.guess_set = true;
    return e;
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
    // The group straddling D in rank order beyond D too (by column): its
    // gains are summed in that order, whichever path selected it.
    std::sort(c + D, mid, better);
    std::partition(mid, c + K, [last](const Cand &x) { return x.first != last; });
}

/* A whole row's columns in rank order into sc.rcol: an LSD radix
 * sort on the scores' bits, 8 bits a pass, a pass skipped where every key
 * shares its digit. Rank order is a total order (score descending, then the
 * column: lower first, or with LATER later first), so any sort gives the
 * same ranking; this one reads the row a few times instead of O(m log m)
 * comparisons. NaN scores rank as -inf (and set nan); -0.0 ties with 0.0. */
constexpr int64_t RADIX_MIN = 256;

// Unsigned order of the keys = descending order of the scores.
inline uint64_t descending_key(double v) {
    v += 0.0;  // -0.0 -> 0.0
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    b = (b >> 63) ? ~b : (b | 0x8000000000000000ull);  // ascending
    return ~b;
}

template <class S, bool LATER>
void radix_rank(const S *s, int64_t m, Scratch &sc, bool &nan) {
    auto &key = sc.rkey, &key2 = sc.rkey2;
    auto &col = sc.rcol, &col2 = sc.rcol2;
    key.resize(m);
    key2.resize(m);
    col.resize(m);
    col2.resize(m);
    auto &count = sc.rcount;
    count.assign(8 * 256, 0);
    int bad = 0;
    // Columns in tie order: a stable sort keeps it among equal keys.
    for (int64_t i = 0; i < m; ++i) {
        const int64_t j = LATER ? m - 1 - i : i;
        double v = (double)s[j];
        bad |= v != v;
        const uint64_t k = v != v ? descending_key(-INFINITY) : descending_key(v);
        key[i] = k;
        col[i] = j;
        for (int d = 0; d < 8; ++d) ++count[d * 256 + ((k >> (8 * d)) & 255)];
    }
    if (bad) nan = true;
    for (int d = 0; d < 8; ++d) {
        int64_t *c = &count[d * 256];
        if (c[(key[0] >> (8 * d)) & 255] == m) continue;  // one digit: nothing to do
        int64_t at = 0;
        for (int b = 0; b < 256; ++b) {
            const int64_t n = c[b];
            c[b] = at;
            at += n;
        }
        for (int64_t i = 0; i < m; ++i) {
            const int64_t to = c[(key[i] >> (8 * d)) & 255]++;
            key2[to] = key[i];
            col2[to] = col[i];
        }
        key.swap(key2);
        col.swap(col2);
    }
}

constexpr int64_t RANK_ALL_MAX = 64;  // the most candidates column_order_ranks ranks

/* Each candidate's rank, for n candidates in column order with scores
 * x[0..n): the items above it, and those tied with it of an earlier column
 * (LATER: a later one), in one vectorised count over the others each. */
template <bool LATER>
RANKK_CLONES void column_order_ranks(const double *x, int64_t n, int64_t *rank) {
    for (int64_t i = 0; i < n; ++i) {
        const double v = x[i];
        int64_t a = 0;
        for (int64_t j = 0; j < n; ++j) {
            const bool before = LATER ? j > i : j < i;
            a += (int64_t)((x[j] > v) | ((x[j] == v) & before));
        }
        rank[i] = a;
    }
}

// What top_in_column_order did: nothing; the best K first; the best K
// first and in rank order.
enum TopBy { TOP_NONE, TOP_FIRST, TOP_RANKED };

/* Move the best K candidates to cand[0..K), the others after them in column
 * order, when cand is in column order: the same K items that nth_element
 * with Better puts there (every item above the K-th score, and of the items
 * at it the lowest columns, or with LATER the highest). sc.prev: cand's
 * scores, in cand's order (as filled).
 * - The K-th score is the candidates' largest or smallest (kth_at_an_end):
 *   one pass over a span of them splits them (see below). On W4 (eleven
 *   distinct scores a row) this and kth_largest took R-precision from 56
 *   to 46 ms and the report from 75 to 65 ms (10,000 rows, the fastest of
 *   60 runs each, the two builds alternated).
 * - Else, with few candidates (W1: about 23 for a cut-off of 10), each
 *   one's rank is counted (column_order_ranks) and the best K are placed
 *   by rank, which also sorts them: nth_element over the (score, column)
 *   pairs branched on every comparison, at random.
 * - Else nothing is moved. */
template <bool LATER>
TopBy top_in_column_order(std::vector<std::pair<double, int64_t>> &cand, int64_t K,
                          Scratch &sc) {
    const int64_t n = (int64_t)cand.size();
    std::vector<std::pair<double, int64_t>> &rest = sc.rest;
    std::pair<double, int64_t> *cd = cand.data();
    double at;
    int64_t above, tied;
    if (!kth_at_an_end(sc, K, at, above, tied)) {
        if (n > RANK_ALL_MAX) return TOP_NONE;
        std::vector<int64_t> &rank = sc.crank;
        if ((int64_t)rank.size() < n) rank.resize((size_t)n);
        column_order_ranks<LATER>(sc.prev.data(), n, rank.data());  // (as filled: cand's order)
        // The best K by rank into rest[0..K) (the others write slot K), the
        // others after it; branch-free, as below.
        if ((int64_t)rest.size() < n + 2) rest.resize((size_t)n + 2);  // (rd[n - K]: the last)
        std::pair<double, int64_t> *top = rest.data(), *rd = top + K + 1;
        // sc.prev (read) gets the scores by rank: any k-th largest of them
        // at once (a set cut-off, the next row's threshold).
        const int64_t *rk = rank.data();
        double *pv = sc.prev.data();
        int64_t q = 0;
        for (int64_t c = 0; c < n; ++c) {
            const int64_t r = rk[c], keep = r < K;
            top[keep ? r : K] = cd[c];
            rd[q] = cd[c];
            pv[r] = cd[c].first;
            q += 1 - keep;
        }
        for (int64_t i = 0; i < K; ++i) cd[i] = top[i];
        for (int64_t i = 0; i < q; ++i) cd[K + i] = rd[i];
        sc.prev_sorted = true;
        return TOP_RANKED;
    }
    // Of the `tied` items at the K-th score (in column order), those from
    // the first to the (K - above)-th are kept, or with LATER the last
    // K - above: tied ranks [lo, hi). Branch-free: each item is written to
    // both places, and one of the two ends moves.
    const int64_t lo = LATER ? tied - (K - above) : 0, hi = lo + (K - above);
    // Only the span [b, e) of cand that holds the kept items is split: with
    // none above the K-th score (it is the largest, as on W4, where the top
    // tie group holds about 50 of 150 candidates), from the first item to
    // the K-th at it (LATER: from the K-th last to the end); else all.
    int64_t b = 0, e = n;
    if (above == 0) {  // (tied >= K items equal `at`, as counted over sc.prev: the scans stop)
        int64_t found = 0;
        if (LATER) {
            for (b = n; found < K;) found += cd[--b].first == at;
        } else {
            for (e = 0; found < K; ++e) found += cd[e].first == at;
        }
    }
    if ((int64_t)rest.size() < n) rest.resize((size_t)n);  // (grown only: no zeroing a row)
    int64_t p = b, q = 0, eq = LATER && above == 0 ? lo : 0;  // (the lo at items before b)
    std::pair<double, int64_t> *rd = rest.data();  // (in registers)
    for (int64_t c = b; c < e; ++c) {
        const std::pair<double, int64_t> x = cd[c];
        const int64_t is_eq = x.first == at;
        const int64_t keep =
            (int64_t)(x.first > at) | (is_eq & (int64_t)(eq >= lo) & (int64_t)(eq < hi));
        eq += is_eq;
        cd[p] = x;  // p <= c: nothing unread is overwritten
        rd[q] = x;
        p += keep;
        q += 1 - keep;
    }
    for (int64_t i = 0; i < q; ++i) cd[p + i] = rd[i];  // (raw pointers: no re-reads)
    if (b > 0) {  // the kept [b, b + K) to the front, the items before b after them
        for (int64_t i = 0; i < K; ++i) rd[i] = cd[b + i];
        std::copy_backward(cd, cd + b, cd + b + K);
        for (int64_t i = 0; i < K; ++i) cd[i] = rd[i];
    }
    return TOP_FIRST;
}

/* The best K items of the row s[0..m) into ov/oj, ranks [0, D) in rank
 * order (the rest as order_top leaves them; D >= K: all) (score
 * descending; among equal scores the lower column first, or with LATER the
 * later column first). Sets nan when a score is NaN. In exact mode, returns
 * the number of items left out whose score equals the K-th (the straddling
 * tie group's members beyond the cut) and, when `listed` is set, their
 * columns are in sc.tied_out, in column order (whichever way they were
 * found: a group's gains are summed in that order, so that a row's value
 * does not depend on the path that served it; order_top does the same for
 * the group straddling D).
 *
 * Method: every item reaching a threshold is appended to a candidate buffer
 * (a SIMD mask finds them: list_reaching), and the buffer is cut back to
 * the best `keep` (K + K/2 + 8, or more for a deep set cut-off: below)
 * whenever it fills, raising the threshold. The threshold starts at an
 * estimate of that many items' lowest score from the rows before
 * (next_guess; rows of one matrix tend to be alike), so a row usually
 * costs one read and about `keep` appends (tie groups at the threshold add
 * their size); if the guess was too high (fewer than `need` candidates),
 * the row is read again below it (collect_between), down to where the
 * candidates' spread puts rank `keep`, then, if still too few, to -inf; a
 * row with fewer than K items that are not NaN is then
 * streamed through a sorted buffer or heap (stream_top). Selection over
 * the whole row when K is a large fraction of it.
 *
 * need >= K: the depth the candidates must also reach, for set cut-offs
 * deeper than K (set_cut; need * 8 >= m: the caller passes K = need). The
 * buffer then keeps max(K + K/2 + 8, set_rank(need) = need + need/8 + 8).
 * At the end of the candidate path the buffer holds every item whose score
 * reaches the final
 * threshold (appends take those reaching it; a cut keeps all tied with its
 * last), so the first `need` ranks, with every tie group they touch, are
 * among them; sc.prev holds their scores. */
template <class S, bool LATER>
int64_t select_top(const S *s, int64_t m, int64_t K, int64_t need, double *ov, int64_t *oj,
                   Scratch &sc, bool &nan, bool &listed, int64_t D) {
    auto &cand = sc.cand;
    const Better<LATER> better{};
    sc.tied_out.clear();
    listed = true;
    if (need * 8 < m) {
        const bool deep = need > K;
        const int64_t keep = deep ? std::max(guess_rank(K), set_rank(need)) : guess_rank(K);
        // (A score of type S, so that the SIMD comparison, in S, and the
        // scalar one agree.)
        double t = next_guess(sc, keep);
        if (t > -INFINITY)
            t = t >= (double)std::numeric_limits<S>::lowest() ? (double)(S)t : -INFINITY;
        cand.clear();
        size_t cap = (size_t)std::max<int64_t>(128, 3 * keep);
        uint64_t nanbits = 0;
        bool in_column_order = true;  // cand: appended by column, none cut
        /* The chunks' hits are listed by column in ix, then appended to cand
         * at once (flush): an append per hit, with its capacity check and the
         * call it compiled to, cost about a fifth of this function on W4
         * (about 150 candidates a row). The same candidates, in the same
         * order, compacted at the same points. */
        auto &idx = sc.cidx;
        if (idx.size() < cap + 32) idx.resize(cap + 32);
        int64_t *ix = idx.data();
        size_t n_idx = 0;
        auto flush = [&]() {  // NaN: flagged, never a candidate
            const size_t base = cand.size();
            cand.resize(base + n_idx);
            std::pair<double, int64_t> *cd = cand.data() + base;
            size_t w = 0;
            for (size_t q = 0; q < n_idx; ++q) {
                const int64_t i = ix[q];
                const double v = (double)s[i];
                cd[w] = {v, i};
                w += v == v;
                nanbits |= v != v;
            }
            cand.resize(base + w);
            n_idx = 0;
        };
#ifdef RANKK_SCAN_AVX2
        const bool avx2 = scan_avx2();
#endif
        int64_t j = 0;
        while (j + 32 <= m) {
            // (cand holds fewer than cap here: a compaction that leaves over
            // half of it doubles cap)
            const size_t room = cap - std::min(cand.size(), cap - 1);
#ifdef RANKK_SCAN_AVX2
            if (avx2) j = list_reaching_avx2(s, m, j, t, ix, n_idx, room);
            else
#endif
                j = list_reaching(s, m, j, t, ix, n_idx, room);
            if (cand.size() + n_idx >= cap) {
                flush();  // (ix then holds at most cap + 32 hits: NaN ones too)
                if (cand.size() >= cap) {
                    t = compact<LATER>(cand, keep);
                    in_column_order = false;
                    if (cand.size() * 2 >= cap) {  // ties: keep room
                        cap *= 2;
                        if (idx.size() < cap + 32) idx.resize(cap + 32);
                        ix = idx.data();
                    }
                }
            }
        }
        flush();
        for (; j < m; ++j) {
            double v = (double)s[j];
            if (v != v) nanbits = 1;
            else if (v >= t) cand.emplace_back(v, j);
        }
        if (nanbits) nan = true;
        if ((int64_t)cand.size() < need && t > -INFINITY) {  // (at -inf: every item is in)
            /* Too few for the K ranks or the set cut-off (need >= K): read
             * the row again (in cache by now) for the items
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
            in_column_order = false;
            t = collect_between<S, LATER>(s, m, lo, t, cand, keep, cap);
            if ((int64_t)cand.size() < need)
                t = collect_between<S, LATER>(s, m, -INFINITY, t, cand, keep, cap);
        }
        // Remember this row's best scores: they set the next row's threshold.
        fill_prev(sc, cand);
        if ((int64_t)cand.size() < K) {  // fewer than K scores not NaN
            sc.prev.clear();  // (prev_ends_set: false since the fill)
            listed = false;
            return stream_top<S, LATER>(s, m, K, ov, oj, sc, nan);
        }
        const TopBy top_by =
            in_column_order ? top_in_column_order<LATER>(cand, K, sc) : TOP_NONE;
        const bool by_column = top_by != TOP_NONE;  // the others in column order
        if (!by_column) std::nth_element(cand.begin(), cand.begin() + (K - 1), cand.end(), better);
        if (top_by != TOP_RANKED) order_top(cand.data(), K, D, better);
        for (int64_t p = 0; p < K; ++p) {
            ov[p] = cand[p].first;
            oj[p] = cand[p].second;
        }
        if (LATER) return 0;
        // The candidates tied with the K-th, branch-free: W4's are two tie
        // groups interleaved by column, which a branch mispredicts at about
        // every other item.
        auto &tied = sc.tied_out;
        const double kth = ov[K - 1];
        tied.resize(cand.size() - (size_t)K);
        size_t n_tied = 0;
        const std::pair<double, int64_t> *cd = cand.data();
        int64_t *td = tied.data();
        for (size_t c = K, e = cand.size(); c < e; ++c) {
            td[n_tied] = cd[c].second;
            n_tied += cd[c].first == kth;
        }
        tied.resize(n_tied);
        if (!by_column) std::sort(tied.begin(), tied.end());
        return (int64_t)n_tied;
    }
    // Every rank read in order (D >= K) on a long row: a radix sort of the
    // whole row, of which the first K are kept.
    if (D >= K && m >= RADIX_MIN) {
        radix_rank<S, LATER>(s, m, sc, nan);
        const int64_t *order = sc.rcol.data();
        for (int64_t p = 0; p < K; ++p) {
            const double v = (double)s[order[p]];
            ov[p] = v != v ? -INFINITY : v;
            oj[p] = order[p];
        }
        if (LATER) return 0;
        for (int64_t p = K; p < m; ++p) {  // the tied items left out follow
            const double v = (double)s[order[p]];
            if ((v != v ? -INFINITY : v) != ov[K - 1]) break;
            sc.tied_out.push_back(order[p]);
        }
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
    std::sort(sc.tied_out.begin(), sc.tied_out.end());
    return (int64_t)sc.tied_out.size();
}

// Scan a row for NaN scores only (rows that need no ranking).
template <class S>
bool has_nan(const S *s, int64_t m) {
    int bad = 0;
    for (int64_t j = 0; j < m; ++j) bad |= s[j] != s[j];
    return bad != 0;
}

}  // namespace rankk

#endif
