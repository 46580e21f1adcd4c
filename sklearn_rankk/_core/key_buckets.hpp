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
#include <type_traits>
#include <vector>

#include "_portable.h"

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
     * [g[c + 1], g[c]) (keys descending, higher cells first). */
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
        lo = key[D - 1];
        hi = key[0];
        const double span = hi - lo;
        if (!(span < INFINITY) || !(span >= 0.0)) return;
        B = std::min<int64_t>(32 * D, (int64_t)1 << 15);
        if (m > 0) B = std::min(B, std::max<int64_t>(64, m / 2));
        top = (double)(B + 1);
        // One distinct key: any positive scale keeps -inf and +inf apart;
        // one that puts the scores within 2**-20 of the key (relative) in
        // its cell leaves the others outside, where they are not compared.
        const double a = std::fabs(lo);
        scale = span > 0.0 ? (double)B / span : a > 0.0 ? (double)B / (a * 0x1p-20) : 0x1p100;
        if (!(scale < INFINITY)) return;  // a subnormal span
        fscale = (float)scale;
        if (f32 && !(fscale < INFINITY && span < 3e38)) return;
        g.assign((size_t)B + 4, 0);
        has_key.assign((size_t)B + 3, 0);
        key_cells.clear();
        for (int64_t i = 0; i < D; ++i) {  // (keys descending: cells decreasing)
            const int64_t c = cell(key[i]);
            ++g[(size_t)c];
            if (!has_key[(size_t)c]) key_cells.push_back((int32_t)c);
            has_key[(size_t)c] = 1;
        }
        // suffix sums: g[c] = keys in cells >= c (g[0] = D, g[B + 3] = 0)
        for (int64_t c = B + 2; c >= 0; --c) g[(size_t)c] += g[(size_t)c + 1];
        direct = true;
    }

    /* Slot of an item (x, j) of cell c (that of x). */
    template <bool LATER>
    int64_t in_cell(int64_t c, double x, int64_t j) const {
        int64_t i = g[(size_t)c + 1];
        const int64_t e = g[(size_t)c];
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

    /* Slot of an item (x, j), x not NaN, buckets in use. */
    template <bool LATER>
    int64_t inside(double x, int64_t j) const {
        return in_cell<LATER>(cell(x), x, j);
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

/* Every item of a row placed among the keys of kb: the items of each slot
 * into cnt[0..2D] (zeroed by the caller; slot 2D, the last gap below every
 * key, is never read: what it holds is left unspecified). Returns the count
 * of items scored -inf; nan: whether a score is NaN (placed anywhere).
 *
 * With the buckets, in chunks: the chunk's cells (bucket_cells, vectorised),
 * then each item counted in its cell, and those of a cell with a key kept
 * aside (branch-free) and placed one by one; the cells without a key add
 * their counts to their gap at the end. Every count is a whole number: the
 * same slots, bit for bit, as a binary search per item. */
template <class S, bool LATER>
int64_t count_slots(const S *s, int64_t m, KeyBuckets &kb, int64_t *cnt, bool &nan) {
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
            int64_t b = NC;  // the cells [c + 1, b) hold no key
            for (const int32_t c : kb.key_cells) {
                int64_t sum = 0;
                for (int64_t q = c + 1; q < b; ++q) sum += (int64_t)h0[q] + (int64_t)h1[q];
                cnt[2 * g[c + 1]] += sum;
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

}  // namespace rankk

#endif
