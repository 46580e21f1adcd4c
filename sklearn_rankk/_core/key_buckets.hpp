/* Where an item ranks among a row's sorted keys (the relevant items' scores),
 * in constant time on average: the measures that count items between the
 * keys (relevant_ranks.hpp: AP, bpref, infAP, interpolated precision, binG,
 * yaap over the whole ranking; formulas_auc.hpp: AUC, partial AUC) place
 * every item of the row, so this is their inner loop.
 *
 * The keys' range [lo, hi] is cut into B equal buckets, cell(x) =
 * trunc(clamp((x - lo) * B / (hi - lo), -1, B + 1)) + 1, a non-decreasing
 * function of x in floating point (a subtraction and a product by a
 * positive constant round monotonically, in float as in double), with a
 * cell below the range and one above it that hold no key. So a key in a
 * higher cell than x is above x, one in a lower cell below it, and only the
 * keys of x's own cell are compared with x. The slots are the same as a
 * binary search over the keys gives: exact integers, so every value read
 * from them is the same bit for bit.
 *
 * The pass (count_slots), measured on W2's rows (50,000 float32 scores, 20
 * keys): the old loop placed each item in turn (cell, bucket bounds, slot,
 * increment: about 4.5 ns an item, 7x a numpy read of the row); now the
 * cells of a chunk are computed in one vectorised loop (float32 scores in
 * float arithmetic, 8 to a vector with AVX2), each item only increments
 * its cell's count (two interleaved copies) and is set aside if its cell
 * holds a key; the cells' counts go to their gaps at the end (about 1.6 ns
 * an item). B is 32 buckets a key, at most 32,768 and at most half the row
 * (64 at least): a short row's set-up (O(B)) stays below its pass.
 *
 * Keys: descending (key[0] the highest), finite or +inf, each with a column
 * (kcol) for ties broken by column (LATER: the later column first), and a
 * sentinel key[D] = -inf, kcol[D] = -1. A slot is 2 i for the gap just above
 * key i (i keys rank above the item) and 2 i + 1 for key i's tie group (the
 * item equals key i: same score with exact ties, the key item itself with
 * LATER). Keys whose span is not a finite positive number (an infinite
 * score among them, or an overflowing difference) fall back to the binary
 * search (rank_slot).
 */
#ifndef SKLEARN_RANKK_KEY_BUCKETS_HPP
#define SKLEARN_RANKK_KEY_BUCKETS_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "_portable.h"

#include "few_keys.hpp"

namespace rankk {

/* Slot of the item (x, j) by a binary search over the D keys, whose trip
 * count depends on D only (the compiler turns its choice into a conditional
 * move: no branch to mispredict on random scores). */
template <bool LATER>
inline int64_t rank_slot(const double *key, const int64_t *kcol, int64_t D, double x,
                         int64_t j) {
    auto above = [&](int64_t i) {  // key i ranks above the item
        return LATER ? (key[i] > x || (key[i] == x && kcol[i] > j)) : key[i] > x;
    };
    int64_t base = 0, n = D;  // the count of keys above lies in [base, base + n]
    while (n > 1) {
        const int64_t half = n >> 1;
        base = above(base + half) ? base + half : base;
        n -= half;
    }
    const int64_t lo = base + ((n > 0 && above(base)) ? 1 : 0);
    const bool at = LATER ? kcol[lo] == j : key[lo] == x;
    return 2 * lo + (at ? 1 : 0);
}

/* A score's cell: trunc((x - lo) scale) + 1, (x - lo) scale held to
 * [-1, top] first (NaN: top), in T's arithmetic. */
template <class T>
inline int32_t bucket_cell(T x, T lo, T scale, T top) {
    T f = (x - lo) * scale;
    f = f < top ? f : top;
    f = f > (T)-1 ? f : (T)-1;
    return (int32_t)f + 1;
}

struct KeyBuckets {
    const double *key = nullptr;
    const int64_t *kcol = nullptr;
    int64_t D = 0, B = 0;
    double lo = 0.0, hi = 0.0, scale = 0.0, top = 0.0;  // top = B + 1
    float fscale = 0.0f;
    bool f32 = false;     // cells in float arithmetic (float32 scores)
    bool direct = false;  // buckets in use (else the binary search)
    /* g[c]: the keys in cells >= c, so that cell c holds keys
     * [g[c + 1], g[c]) (keys descending, higher cells first); set only for
     * the cells with a key and the cells just above them (the others are
     * not read: an item of a cell without a key is placed by rank_slot). */
    std::vector<int64_t> g;
    /* count_slots' work space: items per cell (two interleaved copies, so
     * that two neighbouring items of one cell do not wait on each other's
     * increment), whether a cell holds a key, a chunk's cells and the
     * items of a chunk that fall in a cell with a key. */
    std::vector<uint32_t> h;
    std::vector<uint8_t> has_key;
    std::vector<int32_t> key_cells;  // the cells with a key, decreasing
    std::vector<int32_t> cells;
    std::vector<int32_t> pend;
    // sum_slot_values' table (build_table): a value per cell, and the
    // first key of each cell with a key
    std::vector<uint32_t> tab;
    std::vector<int64_t> first;

    /* The cell of x, in [0, B + 2]: trunc((x - lo) B / (hi - lo)) + 1 held
     * to [-1, B + 1] first, so -inf and the scores below lo by more than a
     * bucket sit at 0, +inf and the scores above hi by more than a bucket
     * at B + 2 (hi itself at B + 1 at most: no key is in cell 0 or B + 2),
     * NaN at B + 2 (the caller flags it). Non-decreasing in x, so only the
     * keys of x's own cell are compared with it. No branch. The same
     * operations as bucket_cells, which count_slots uses. */
    int64_t cell(double x) const {
        if (f32) return bucket_cell<float>((float)x, (float)lo, fscale, (float)top);
        return bucket_cell<double>(x, lo, scale, top);
    }

    /* The keys' range cut into `cells` buckets: lo, hi, scale and top;
     * false where the keys' span is not a finite positive number (an
     * infinite key, an overflowing difference, a subnormal span). */
    bool grid(int64_t cells) {
        lo = key[D - 1];
        hi = key[0];
        const double span = hi - lo;
        if (!(span < INFINITY) || !(span >= 0.0)) return false;
        B = cells;
        top = (double)(B + 1);
        // One distinct key: any positive scale keeps -inf and +inf apart;
        // one that puts the scores within 2**-20 of the key (relative) in
        // its cell leaves the others outside, where they are not compared.
        const double a = std::fabs(lo);
        scale = span > 0.0 ? (double)B / span : a > 0.0 ? (double)B / (a * 0x1p-20) : 0x1p100;
        if (!(scale < INFINITY)) return false;  // a subnormal span
        fscale = (float)scale;
        return !f32 || (fscale < INFINITY && span < 3e38);
    }

    /* Index the D keys (descending, with the sentinel at key[D]) of a row of
     * m items (0: unknown): B buckets, up to 32 a key and up to m / 2 (at
     * least 64), so that a short row's set-up stays below its pass. */
    void build(const double *k, const int64_t *c, int64_t n_keys, int64_t m = 0,
               bool in_f32 = false) {
        key = k;
        f32 = in_f32;
        kcol = c;
        D = n_keys;
        direct = false;
        if (D <= 0) return;
        int64_t cells = std::min<int64_t>(32 * D, (int64_t)1 << 15);
        if (m > 0) cells = std::min(cells, std::max<int64_t>(64, m / 2));
        if (!grid(cells)) return;
        // No pass over the B cells but has_key's clearing: a suffix sum over
        // every cell was a chain of B dependent additions through memory
        // (W1's rows, 1,000 items and 30 keys: 2% of dcg k=None's perf
        // samples, about 0.3 µs a row).
        g.resize((size_t)B + 4);
        has_key.assign((size_t)B + 3, 0);
        key_cells.clear();
        for (int64_t i = 0; i < D; ++i) {  // (keys descending: cells decreasing)
            const int64_t c = cell(key[i]);
            if (!has_key[(size_t)c]) {  // its first key: i keys in higher cells
                key_cells.push_back((int32_t)c);
                g[(size_t)c + 1] = i;
            }
            has_key[(size_t)c] = 1;
            g[(size_t)c] = i + 1;
        }
        direct = true;
    }

    /* Slot of an item (x, j) of cell c (that of x), a cell with a key. */
    template <bool LATER>
    int64_t in_cell(int64_t c, double x, int64_t j) const {
        return in_keys<LATER>(g[(size_t)c + 1], g[(size_t)c], x, j);
    }

    /* Slot of an item (x, j) whose cell holds the keys [i, e). */
    template <bool LATER>
    int64_t in_keys(int64_t i, int64_t e, double x, int64_t j) const {
        if (i == e) return 2 * i;  // no key in x's bucket
        auto above = [&](int64_t q) {
            return LATER ? (key[q] > x || (key[q] == x && kcol[q] > j)) : key[q] > x;
        };
        if (e - i > 8) {  // a crowded bucket: binary search in it
            int64_t n = e - i;
            while (n > 0) {
                const int64_t half = n >> 1;
                if (above(i + half)) {
                    i += half + 1;
                    n -= half + 1;
                } else {
                    n = half;
                }
            }
        } else {  // the keys above x lead the cell's: count them, branch-free
            int64_t k = i;
            for (int64_t q = i; q < e; ++q) k += above(q) ? 1 : 0;
            i = k;
        }
        // key[i] (possibly the next bucket's first key, or the sentinel)
        const bool at = LATER ? kcol[i] == j : key[i] == x;
        return 2 * i + (at ? 1 : 0);
    }

    /* The keys (as build) placed by the binary search alone (slot). */
    void search_only(const double *k, const int64_t *c, int64_t n_keys) {
        key = k;
        kcol = c;
        D = n_keys;
        direct = false;
    }

    /* For sum_slot_values: the keys (as build) on a grid of `cells`
     * buckets, and a value per cell in tab: for a cell without a key, twice
     * val at its slot (the gap below the keys of the higher cells), even;
     * for the q-th cell with a key (from the top), 2 q + 1, its keys being
     * [first[q], first[q + 1]). The cells between two cells with a key are
     * filled as one run: O(D) and a fill of the table. False (nothing
     * built) where the grid cannot be used. */
    bool build_table(const double *k, const int64_t *c, int64_t n_keys, bool in_f32,
                     int64_t cells, const int64_t *val) {
        key = k;
        kcol = c;
        D = n_keys;
        f32 = in_f32;
        direct = false;
        if (D <= 0 || !grid(cells)) return false;
        const int64_t NC = B + 3;
        tab.resize((size_t)NC);
        first.clear();
        uint32_t *t = tab.data();
        int64_t b = NC;  // cells [b, NC) are filled
        for (int64_t i = 0; i < D; ++i) {  // keys descending: cells decreasing
            const int64_t ci = cell(key[i]);
            if (ci == b) continue;  // (another key of the same cell)
            std::fill(t + ci + 1, t + b, (uint32_t)(2 * val[2 * i]));
            t[ci] = (uint32_t)(2 * first.size() + 1);
            first.push_back(i);
            b = ci;
        }
        std::fill(t, t + b, (uint32_t)(2 * val[2 * D]));
        first.push_back(D);
        return true;
    }

    /* Slot of an item (x, j) whose cell's table entry u is odd (a cell
     * with a key, build_table): most such cells hold one key. */
    template <bool LATER>
    int64_t table_slot(uint32_t u, double x, int64_t j) const {
        const int64_t *f = first.data() + (u >> 1);
        if (!LATER && f[1] - f[0] == 1) {
            const double k = key[f[0]];
            return 2 * f[0] + (x < k ? 2 : x == k ? 1 : 0);
        }
        return in_keys<LATER>(f[0], f[1], x, j);
    }

    /* Slot of an item (x, j), x not NaN, buckets in use. */
    template <bool LATER>
    int64_t inside(double x, int64_t j) const {
        const int64_t c = cell(x);  // (a cell without a key: g is not set there)
        return has_key[(size_t)c] ? in_cell<LATER>(c, x, j) : rank_slot<LATER>(key, kcol, D, x, j);
    }

    /* Slot of any item (x, j), x not NaN. */
    template <bool LATER>
    int64_t slot(double x, int64_t j) const {
        if (!direct) return rank_slot<LATER>(key, kcol, D, x, j);
        return inside<LATER>(x, j);
    }
};

/* The cells of s[0..n) into c (KeyBuckets::cell's operations, in a loop the
 * compiler vectorises: an AVX2 clone where the CPU has it, RANKK_CLONES),
 * with the count of scores -inf and of NaN scores. */
template <class S, class T>
RANKK_CLONES void bucket_cells(const S *s, int64_t n, T lo, T scale, T top, int32_t *c,
                               int64_t &n_inf, int64_t &n_nan) {
    int32_t a = 0, b = 0;
    for (int64_t j = 0; j < n; ++j) {
        const T x = (T)s[j];
        T f = (x - lo) * scale;
        f = f < top ? f : top;
        f = f > (T)-1 ? f : (T)-1;
        c[j] = (int32_t)f + 1;
        a += x == -(T)INFINITY;
        b += x != x;
    }
    n_inf += a;
    n_nan += b;
}

/* bucket_cells' cells of s[0..n) looked up in tab (a value per cell):
 * returns the sum of the even values (wrapping uint32 arithmetic) and calls
 * on_odd(j, value) for each item whose value is odd (a cell with a key: placed
 * apart), with the count of scores -inf and of NaN scores. The baseline
 * loop; bucket_lookup_avx2 below does the same 8 items at a time. */
template <class S, class T, class F>
uint32_t bucket_lookup(const S *s, int64_t n, T lo, T scale, T top, const uint32_t *tab,
                       F &&on_odd, int64_t &n_inf, int64_t &n_nan) {
    uint32_t acc = 0;
    int64_t a = 0, b = 0;
    for (int64_t j = 0; j < n; ++j) {
        const T x = (T)s[j];
        const uint32_t v = tab[bucket_cell<T>(x, lo, scale, top)];
        if (v & 1u) on_odd(j, v);
        else acc += v;
        a += x == -(T)INFINITY;
        b += x != x;
    }
    n_inf += a;
    n_nan += b;
    return acc;
}

#ifdef RANKK_LOOKUP_AVX2
/* The cells of 8 scores (float32 in float arithmetic, float64 in double):
 * bucket_cell's operations (min and max keep its NaN: top), the count of
 * -inf and NaN among them into ninf and nnan (lanes of -1). */
__attribute__((target("avx2"))) inline __m256i lookup_cells8(const float *s, float lo,
                                                            float scale, float top,
                                                            __m256i &ninf, __m256i &nnan) {
    const __m256 x = _mm256_loadu_ps(s);
    __m256 f = _mm256_mul_ps(_mm256_sub_ps(x, _mm256_set1_ps(lo)), _mm256_set1_ps(scale));
    f = _mm256_min_ps(f, _mm256_set1_ps(top));  // f < top ? f : top
    f = _mm256_max_ps(f, _mm256_set1_ps(-1.0f));  // f > -1 ? f : -1
    ninf = _mm256_add_epi32(
        ninf, _mm256_castps_si256(_mm256_cmp_ps(x, _mm256_set1_ps(-INFINITY), _CMP_EQ_OQ)));
    nnan = _mm256_add_epi32(nnan, _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)));
    return _mm256_add_epi32(_mm256_cvttps_epi32(f), _mm256_set1_epi32(1));
}
__attribute__((target("avx2"))) inline __m128i lookup_cells4(const double *s, double lo,
                                                            double scale, double top,
                                                            __m128i &ninf, __m128i &nnan) {
    const __m256d x = _mm256_loadu_pd(s);
    __m256d f = _mm256_mul_pd(_mm256_sub_pd(x, _mm256_set1_pd(lo)), _mm256_set1_pd(scale));
    f = _mm256_min_pd(f, _mm256_set1_pd(top));
    f = _mm256_max_pd(f, _mm256_set1_pd(-1.0));
    // The 64-bit lane masks to 32-bit ones (their low halves): -1 each.
    const __m256i pick = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    const __m256i inf = _mm256_permutevar8x32_epi32(
        _mm256_castpd_si256(_mm256_cmp_pd(x, _mm256_set1_pd(-INFINITY), _CMP_EQ_OQ)), pick);
    const __m256i nan = _mm256_permutevar8x32_epi32(
        _mm256_castpd_si256(_mm256_cmp_pd(x, x, _CMP_UNORD_Q)), pick);
    ninf = _mm_add_epi32(ninf, _mm256_castsi256_si128(inf));
    nnan = _mm_add_epi32(nnan, _mm256_castsi256_si128(nan));
    return _mm_add_epi32(_mm256_cvttpd_epi32(f), _mm_set1_epi32(1));
}
/* The table values of the cells of s[0..8) (a gathered lookup). */
template <class S>
__attribute__((target("avx2"))) inline __m256i lookup8(const S *s, S lo, S scale, S top,
                                                      const uint32_t *tab, __m256i &ninf,
                                                      __m256i &nnan) {
    __m256i c;
    if constexpr (std::is_same<S, float>::value) {
        c = lookup_cells8(s, lo, scale, top, ninf, nnan);
    } else {
        __m128i i0 = _mm_setzero_si128(), n0 = _mm_setzero_si128();
        const __m128i c0 = lookup_cells4(s, lo, scale, top, i0, n0);
        const __m128i c1 = lookup_cells4(s + 4, lo, scale, top, i0, n0);
        c = _mm256_inserti128_si256(_mm256_castsi128_si256(c0), c1, 1);
        ninf = _mm256_add_epi32(ninf, _mm256_castsi128_si256(i0));
        nnan = _mm256_add_epi32(nnan, _mm256_castsi128_si256(n0));
    }
    return _mm256_i32gather_epi32((const int *)tab, c, 4);
}

/* The lanes' counts of -inf and NaN scores (-1 each) into n_inf, n_nan. */
__attribute__((target("avx2"))) inline void lookup_counts(__m256i ninf, __m256i nnan,
                                                         int64_t &n_inf, int64_t &n_nan) {
    alignas(32) int32_t ci[8], cn[8];
    _mm256_store_si256((__m256i *)ci, ninf);
    _mm256_store_si256((__m256i *)cn, nnan);
    for (int q = 0; q < 8; ++q) {
        n_inf -= ci[q];
        n_nan -= cn[q];
    }
}

template <class S, class F>
__attribute__((target("avx2"))) uint32_t bucket_lookup_avx2(const S *s, int64_t n, S lo,
                                                           S scale, S top,
                                                           const uint32_t *tab, F &&on_odd,
                                                           int64_t &n_inf, int64_t &n_nan) {
    __m256i acc = _mm256_setzero_si256();
    __m256i ninf = _mm256_setzero_si256(), nnan = _mm256_setzero_si256();
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        const __m256i v = lookup8<S>(s + j, lo, scale, top, tab, ninf, nnan);
        const __m256i odd = _mm256_slli_epi32(v, 31);  // the low bit to the sign
        int mask = _mm256_movemask_ps(_mm256_castsi256_ps(odd));
        // the even values only (an odd one: all of its lane cleared)
        acc = _mm256_add_epi32(acc, _mm256_andnot_si256(_mm256_srai_epi32(odd, 31), v));
        if (mask) {
            alignas(32) uint32_t lanes[8];
            _mm256_store_si256((__m256i *)lanes, v);
            do {
                const int lane = __builtin_ctz((unsigned)mask);
                mask &= mask - 1;
                on_odd(j + lane, lanes[lane]);
            } while (mask);
        }
    }
    alignas(32) uint32_t lanes[8];
    _mm256_store_si256((__m256i *)lanes, acc);
    uint32_t sum = 0;
    for (int q = 0; q < 8; ++q) sum += lanes[q];
    lookup_counts(ninf, nnan, n_inf, n_nan);
    // the last items, one by one
    auto rest = [&](int64_t i, uint32_t v) { on_odd(j + i, v); };
    return sum + bucket_lookup<S, S>(s + j, n - j, lo, scale, top, tab, rest, n_inf, n_nan);
}
#endif

/* Whether a score of s[0..n) is NaN (vectorised, as bucket_cells). */
template <class T>
RANKK_CLONES bool any_nan(const T *s, int64_t n) {
    for (int64_t a = 0; a < n; a += 4096) {  // 32-bit counts: the vectors' width
        const int64_t b = std::min<int64_t>(n, a + 4096);
        int32_t c = 0;
        for (int64_t j = a; j < b; ++j) c += s[j] != s[j];
        if (c > 0) return true;
    }
    return false;
}

/* A hint to fetch s[0..n) into cache: the next chunk of a row, while the
 * chunk before is counted (the loop between two chunks' reads is long enough
 * for the hardware's own prefetch to fall behind: on W2's rows of 50,000
 * float32 scores, count_slots took 30% less time with it). */
template <class S>
inline void prefetch_items(const S *s, int64_t n) {
    const char *p = reinterpret_cast<const char *>(s);
    for (size_t o = 0; o < (size_t)std::max<int64_t>(n, 0) * sizeof(S); o += 64)
        rankk_prefetch(p + o);
}

/* The scores of s[0..n) that are -inf; nan: set when one is NaN
 * (vectorised, as any_nan). */
template <class T>
RANKK_CLONES int64_t count_minus_inf(const T *s, int64_t n, bool &nan) {
    int64_t n_inf = 0, n_nan = 0;
    for (int64_t a = 0; a < n; a += 4096) {  // 32-bit counts: the vectors' width
        const int64_t b = std::min<int64_t>(n, a + 4096);
        int32_t c = 0, d = 0;
        for (int64_t j = a; j < b; ++j) {
            c += s[j] == -(T)INFINITY;
            d += s[j] != s[j];
        }
        n_inf += c;
        n_nan += d;
    }
    nan = nan || n_nan > 0;
    return n_inf;
}

/* count_slots for one key k (column kc): the items above it (with LATER,
 * the tied items of a later column too) into cnt[0], its tie group into
 * cnt[1] (LATER: the key item alone); returns the items scored -inf. One
 * vectorised pass of comparisons, in 32-bit counts per block. A NaN score
 * is in no slot (nan is set: the row's values are then not read). */
template <class S, bool LATER>
RANKK_CLONES int64_t count_one_key(const S *s, int64_t m, double k, int64_t kc, int64_t *cnt,
                                   bool &nan) {
    int64_t above = 0, at = 0, n_inf = 0, n_nan = 0;
    const S key = (S)k;  // exact: k is one of the scores
    for (int64_t a = 0; a < m; a += 4096) {
        const int64_t b = std::min<int64_t>(m, a + 4096);
        int32_t u = 0, e = 0, f = 0, d = 0;
        for (int64_t j = a; j < b; ++j) {
            const S x = s[j];
            u += x > key;
            e += LATER ? (x == key && j > kc) : x == key;
            f += x == -(S)INFINITY;
            d += x != x;
        }
        above += u;
        at += e;
        n_inf += f;
        n_nan += d;
    }
    cnt[0] += LATER ? above + at : above;
    cnt[1] += LATER ? 1 : at;
    nan = nan || n_nan > 0;
    return n_inf;
}

/* Every item of a row placed among the keys of kb: the items of each slot
 * into cnt[0..2D] (zeroed by the caller; slot 2D, the last gap below every
 * key, is never read: what it holds is left unspecified). Returns the count
 * of items scored -inf; nan: whether a score is NaN (placed anywhere).
 *
 * With exact ties and at most FEW_KEYS keys (distinct: their callers merge
 * equal scores), by comparisons (count_few_keys, few_keys.hpp). Else with
 * the buckets, in chunks: the chunk's cells (bucket_cells, vectorised),
 * then each item counted in its cell, and those of a cell with a key kept
 * aside (branch-free) and placed one by one; the cells without a key add
 * their counts to their gap at the end. Every count is a whole number: the
 * same slots, bit for bit, as a binary search per item. */
template <class S, bool LATER>
int64_t count_slots(const S *s, int64_t m, KeyBuckets &kb, int64_t *cnt, bool &nan) {
    if (kb.D == 1) return count_one_key<S, LATER>(s, m, kb.key[0], kb.kcol[0], cnt, nan);
    if (!LATER && kb.D <= FEW_KEYS) return count_few_keys<S>(s, m, kb.key, kb.D, cnt, nan);
    int64_t n_inf = 0;
    if (kb.direct) {
        constexpr int64_t CHUNK = 512, SPAN = (int64_t)1 << 30;  // uint32 counts
        const int64_t NC = kb.B + 3;
        kb.h.resize(2 * (size_t)NC);
        kb.cells.resize(CHUNK);
        kb.pend.resize(CHUNK);
        uint32_t *h0 = kb.h.data(), *h1 = h0 + NC;
        const uint8_t *has_key = kb.has_key.data();
        const int64_t *g = kb.g.data();
        int32_t *cb = kb.cells.data(), *pend = kb.pend.data();
        int64_t n_nan = 0;
        for (int64_t a0 = 0; a0 < m; a0 += SPAN) {
            std::fill(kb.h.begin(), kb.h.end(), 0u);
            const int64_t a1 = std::min(m, a0 + SPAN);
            for (int64_t a = a0; a < a1; a += CHUNK) {
                const int64_t n = std::min(CHUNK, a1 - a);
                // The next chunk's scores, fetched while this one is counted.
                prefetch_items(s + a + n, std::min(CHUNK, a1 - a - n));
                if (kb.f32)
                    bucket_cells<S, float>(s + a, n, (float)kb.lo, kb.fscale, (float)kb.top, cb,
                                           n_inf, n_nan);
                else
                    bucket_cells<S, double>(s + a, n, kb.lo, kb.scale, kb.top, cb, n_inf, n_nan);
                int64_t np = 0, i = 0;
                for (; i + 1 < n; i += 2) {
                    const int32_t c0 = cb[i], c1 = cb[i + 1];
                    ++h0[c0];
                    ++h1[c1];
                    pend[np] = (int32_t)i;
                    np += has_key[c0];
                    pend[np] = (int32_t)i + 1;
                    np += has_key[c1];
                }
                if (i < n) {
                    ++h0[cb[i]];
                    pend[np] = (int32_t)i;
                    np += has_key[cb[i]];
                }
                for (int64_t p = 0; p < np; ++p) {
                    const int64_t j = a + pend[p];
                    ++cnt[kb.in_cell<LATER>(cb[pend[p]], (double)s[j], j)];
                }
            }
            // The cells between two cells with a key, into the gap between
            // those keys: the keys of cells >= a are above them (the cells
            // below the lowest key's are the last gap: not read).
            // (uint32 sums: at most SPAN items, no widening in the loop)
            int64_t b = NC;  // the cells [c + 1, b) hold no key
            for (const int32_t c : kb.key_cells) {
                uint32_t sum = 0;
                for (int64_t q = c + 1; q < b; ++q) sum += h0[q] + h1[q];
                cnt[2 * g[c + 1]] += (int64_t)sum;
                b = c;
            }
        }
        nan = nan || n_nan > 0;
    } else {
        bool bad = false;
        for (int64_t j = 0; j < m; ++j) {
            const double x = (double)s[j];
            if (x > -INFINITY) {
                ++cnt[rank_slot<LATER>(kb.key, kb.kcol, kb.D, x, j)];
            } else {
                n_inf += x == -INFINITY;
                bad |= x != x;
            }
        }
        nan = nan || bad;
    }
    return n_inf;
}

/* Cells of sum_slot_values' grid for a row of m items and D keys: two an
 * item, at most 256 a key and 16,384 (a table of 64 KiB), at least 64.
 * Items in a cell with a key are placed one by one (about D m / cells of
 * them, each a branch the CPU cannot foresee); a larger table waits on the
 * cache. Measured (ns an item, the best of 5 passes over rows of random
 * scores unlike one another, rows as in W2): 50,000 float32
 * scores and 20 keys, 1.0 at 4,096-8,192 cells, 1.24 at 32,768, 1.4 at
 * 1,024; 200 keys, 1.6 at 16,384, 2.2 at 32,768 and at 8,192; 1,000
 * float64 scores and 30 keys, 3.5 at 2,048, 4.0 at 4,096, 4.3 at 512;
 * 5,000 and 30 keys, 1.9 at 4,096, 2.2 at 8,192. */
inline int64_t sum_cells(int64_t m, int64_t D) {
    return std::max<int64_t>(64, std::min<int64_t>({2 * m, 256 * D, 16384}));
}

/* The sum over the items of a row of a whole number per slot, val[0..2D]
 * (val[2 i]: the gap above key i, val[2 i + 1]: key i's tie group, val[2 D]:
 * below every key, where the -inf scores are too), without counting the
 * slots: each item's cell is looked up in a table (KeyBuckets::build_table:
 * sum_cells: two cells an item, so few items share a cell with a key) that holds
 * twice the value of the cells without a key; an item of a cell with a key
 * (an odd entry) is placed among the cell's keys (in_keys) and adds twice
 * its slot's value. Exact: whole numbers, in uint32 chunks short enough not
 * to wrap. Keys as KeyBuckets::build takes them. Returns false (nothing
 * done) where the grid cannot be used or a value is too large for the
 * chunks: the caller then counts the slots (count_slots). n_inf: the items
 * scored -inf; nan: set when a score is NaN (the sum is then meaningless).
 *
 * Measured on rows of 50,000 float32 scores with 20 keys: about 0.7 ns an
 * item with AVX2 (a gathered lookup of 8 cells at a time), against about
 * 1.1 ns for count_slots. */
template <class S, bool LATER>
bool sum_slot_values(const S *s, int64_t m, KeyBuckets &kb, const double *key,
                     const int64_t *kcol, int64_t D, const int64_t *val, int64_t &total,
                     int64_t &n_inf, bool &nan) {
    int64_t vmax = 1;
    for (int64_t i = 0; i <= 2 * D; ++i) vmax = std::max(vmax, std::abs(val[i]));
    if (vmax > ((int64_t)1 << 26)) return false;
    if (!kb.build_table(key, kcol, D, std::is_same<S, float>::value, sum_cells(m, D), val))
        return false;
    // Items per chunk: CHUNK doubled values of at most 2 vmax stay within
    // int32 (the wrapping uint32 sum is then the exact one).
    const int64_t CHUNK =
        std::min<int64_t>(1024, std::max<int64_t>(1, ((int64_t)1 << 29) / vmax));
    const uint32_t *tab = kb.tab.data();
    int64_t n_nan = 0, sum = 0;
#ifdef RANKK_LOOKUP_AVX2
    const bool avx2 = __builtin_cpu_supports("avx2") &&
                      (std::is_same<S, float>::value || std::is_same<S, double>::value);
#endif
    for (int64_t a = 0; a < m; a += CHUNK) {
        const int64_t n = std::min(CHUNK, m - a);
        prefetch_items(s + a + n, std::min(CHUNK, m - a - n));  // the next chunk
        // An item of a cell with a key: its doubled value, placed.
        auto placed = [&](int64_t i, uint32_t v) {
            sum += 2 * val[kb.table_slot<LATER>(v, (double)s[a + i], a + i)];
        };
        uint32_t part;
#ifdef RANKK_LOOKUP_AVX2
        if (avx2 && std::is_same<S, float>::value && kb.f32)
            part = bucket_lookup_avx2<S>(s + a, n, (S)kb.lo, (S)kb.fscale, (S)kb.top, tab,
                                         placed, n_inf, n_nan);
        else if (avx2 && std::is_same<S, double>::value && !kb.f32)
            part = bucket_lookup_avx2<S>(s + a, n, (S)kb.lo, (S)kb.scale, (S)kb.top, tab,
                                         placed, n_inf, n_nan);
        else
#endif
        if (kb.f32)
            part = bucket_lookup<S, float>(s + a, n, (float)kb.lo, kb.fscale, (float)kb.top,
                                           tab, placed, n_inf, n_nan);
        else
            part = bucket_lookup<S, double>(s + a, n, kb.lo, kb.scale, kb.top, tab, placed,
                                            n_inf, n_nan);
        sum += (int64_t)(int32_t)part;
    }
    nan = nan || n_nan > 0;
    total = sum / 2;  // (every term doubled: even)
    return true;
}

}  // namespace rankk

#endif
