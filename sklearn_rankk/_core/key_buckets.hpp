/* Where an item ranks among a row's sorted keys (the relevant items' scores),
 * in constant time on average: the measures that count items between the
 * keys (relevant_ranks.hpp: AP, bpref, infAP, interpolated precision, binG,
 * yaap over the whole ranking; formulas_auc.hpp: AUC, partial AUC) place
 * every item of the row, so this is their inner loop.
 *
 * The keys' range [lo, hi] is cut into B equal buckets, bucket(x) =
 * min(trunc((x - lo) * B / (hi - lo)), B - 1), a non-decreasing function of
 * x in floating point (a subtraction and a product by a positive constant
 * round monotonically). So a key in a higher bucket than x is above x, one
 * in a lower bucket below it, and only the keys of x's own bucket (none for
 * most items when B is several times the number of keys) are compared with
 * x. The slots are the same as a binary search over the keys gives: exact
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
    // first[b]: keys in buckets >= b; bucket b holds keys [first[b + 1], first[b])
    std::vector<int64_t> first;

    int64_t bucket(double x) const {
        const int64_t b = (int64_t)((x - lo) * scale);
        return b < B - 1 ? b : B - 1;
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
        B = 16;
        while (B < 16 * D && B < ((int64_t)1 << 16)) B <<= 1;
        scale = span > 0.0 ? (double)B / span : 0.0;
        if (!(scale < INFINITY)) return;  // a subnormal span
        first.assign((size_t)B + 1, 0);
        for (int64_t i = 0; i < D; ++i) ++first[(size_t)bucket(key[i])];
        for (int64_t b = B - 1; b >= 0; --b) first[(size_t)b] += first[(size_t)b + 1];
        direct = true;
    }

    /* Slot of an item (x, j) with lo <= x <= hi (x not NaN), buckets in use. */
    template <bool LATER>
    int64_t inside(double x, int64_t j) const {
        const int64_t b = bucket(x);
        int64_t i = first[(size_t)b + 1];
        const int64_t e = first[(size_t)b];
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
        if (x < lo) return 2 * D;
        if (x > hi) return 0;
        return inside<LATER>(x, j);
    }
};

/* Every item of a row placed among the keys of kb: the items of each slot
 * above the last gap into cnt[0..2D) (zeroed by the caller; the last gap,
 * below every key, is not counted). Returns the count of items scored -inf;
 * nan: whether a score is NaN (placed nowhere). */
template <class S, bool LATER>
int64_t count_slots(const S *s, int64_t m, const KeyBuckets &kb, int64_t *cnt, bool &nan) {
    int64_t n_inf = 0;
    bool bad = false;
    if (kb.direct) {
        const double lo = kb.lo, hi = kb.hi;
        for (int64_t j = 0; j < m; ++j) {
            const double x = (double)s[j];
            if (!(x >= lo)) {  // below every key, -inf or NaN
                n_inf += x == -INFINITY;
                bad |= x != x;
                continue;
            }
            if (x > hi) {
                ++cnt[0];
                continue;
            }
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
