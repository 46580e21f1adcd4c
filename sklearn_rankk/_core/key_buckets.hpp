/* Where an item ranks among a row's sorted keys (the relevant items' scores),
 * in constant time on average: the measures that count items between the
 * keys (relevant_ranks.hpp: AP, bpref, infAP, interpolated precision, binG,
 * yaap over the whole ranking; formulas_auc.hpp: AUC, partial AUC) place
 * every item of the row, so this is their inner loop.
 *
 * The keys' range [lo, hi] is cut into B equal buckets, cell(x) =
 * trunc(clamp((x - lo) * B / (hi - lo), -1, B)) + 1, a non-decreasing
 * function of x in floating point (a subtraction and a product by a
 * positive constant round monotonically), with a cell below the range and
 * one above it. So a key in a higher cell than x is above x, one in a lower
 * cell below it, and only the keys of x's own cell (none for most items:
 * B is 32 times the number of keys, up to 32,768) are compared with x. The slots are the same as a binary search over the keys gives: exact
 * integers, so every value read from them is the same bit for bit.
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

#include <cmath>
#include <cstdint>
#include <vector>

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

struct KeyBuckets {
    const double *key = nullptr;
    const int64_t *kcol = nullptr;
    int64_t D = 0, B = 0;
    double lo = 0.0, hi = 0.0, scale = 0.0;
    bool direct = false;  // buckets in use (else the binary search)
    /* g[c]: the keys in cells >= c, so that cell c holds keys
     * [g[c + 1], g[c]) (keys descending, higher cells first). */
    std::vector<int64_t> g;

    /* The cell of x, in [0, B + 1]: trunc((x - lo) B / (hi - lo)) + 1 held
     * to [-1, B] first, so -inf and the scores below lo by more than a
     * bucket sit at 0, +inf and the scores above hi (and hi itself) at
     * B + 1, NaN at B + 1 (the caller flags it). Non-decreasing in x, so
     * only the keys of x's own cell are compared with it. No branch. */
    int64_t cell(double x) const {
        double f = (x - lo) * scale;
        f = f < (double)B ? f : (double)B;  // NaN: B
        f = f > -1.0 ? f : -1.0;
        return (int64_t)f + 1;
    }

    /* Index the D keys (descending, with the sentinel at key[D]). */
    void build(const double *k, const int64_t *c, int64_t n_keys) {
        key = k;
        kcol = c;
        D = n_keys;
        direct = false;
        if (D <= 0) return;
        lo = key[D - 1];
        hi = key[0];
        const double span = hi - lo;
        if (!(span < INFINITY) || !(span >= 0.0)) return;
        B = 32;
        while (B < 32 * D && B < ((int64_t)1 << 15)) B <<= 1;
        // (one distinct key: any positive scale keeps -inf and +inf apart)
        scale = span > 0.0 ? (double)B / span : 1.0;
        if (!(scale < INFINITY)) return;  // a subnormal span
        g.assign((size_t)B + 3, 0);
        for (int64_t i = 0; i < D; ++i) ++g[(size_t)cell(key[i])];
        // suffix sums: g[c] = keys in cells >= c (g[0] = D, g[B + 2] = 0)
        for (int64_t c = B + 1; c >= 0; --c) g[(size_t)c] += g[(size_t)c + 1];
        direct = true;
    }

    /* Slot of an item (x, j), x not NaN, buckets in use. */
    template <bool LATER>
    int64_t inside(double x, int64_t j) const {
        const int64_t c = cell(x);
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
        } else {
            while (i < e && above(i)) ++i;
        }
        // key[i] (possibly the next bucket's first key, or the sentinel)
        const bool at = LATER ? kcol[i] == j : key[i] == x;
        return 2 * i + (at ? 1 : 0);
    }

    /* Slot of any item (x, j), x not NaN. */
    template <bool LATER>
    int64_t slot(double x, int64_t j) const {
        if (!direct) return rank_slot<LATER>(key, kcol, D, x, j);
        return inside<LATER>(x, j);
    }
};

/* Every item of a row placed among the keys of kb: the items of each slot
 * into cnt[0..2D] (zeroed by the caller; slot 2D, the last gap below every
 * key, counts only the finite items placed by the buckets: never read). Returns the count of items scored -inf;
 * nan: whether a score is NaN (placed nowhere). */
template <class S, bool LATER>
int64_t count_slots(const S *s, int64_t m, const KeyBuckets &kb, int64_t *cnt, bool &nan) {
    int64_t n_inf = 0;
    bool bad = false;
    if (kb.direct) {
        // Every item through the buckets, those outside [lo, hi] included
        // (below: the last gap, slot 2D, not read), without a branch but for
        // the rare bucket that holds a key.
        for (int64_t j = 0; j < m; ++j) {
            const double x = (double)s[j];
            n_inf += x == -INFINITY;
            bad |= x != x;
            ++cnt[kb.inside<LATER>(x, j)];
        }
    } else {
        for (int64_t j = 0; j < m; ++j) {
            const double x = (double)s[j];
            if (x > -INFINITY) {
                ++cnt[rank_slot<LATER>(kb.key, kb.kcol, kb.D, x, j)];
            } else {
                n_inf += x == -INFINITY;
                bad |= x != x;
            }
        }
    }
    nan = nan || bad;
    return n_inf;
}

}  // namespace rankk

#endif
