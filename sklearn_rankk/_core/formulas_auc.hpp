/* AUC and its kin (formula codes 80-89): the ROC AUC of each row over its
 * relevant (y > t) against its judged non-relevant items (0 <= y <= t;
 * negative grades are not judged and left out), partial AUC up to max_fpr
 * (McClish-standardized, as scikit-learn's roc_auc_score), AUC of the top k
 * (torchmetrics' RetrievalAUROC(top_k)), and the row readers, keys and
 * slot sums that pairwise ordered accuracy and the per-row counts of the
 * weighted averages (formulas_pairwise.hpp) share with them.
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
 * (Mann-Whitney U). The relevant items' scores are sorted (the keys) and
 * every item of the row is placed among them: the AUC is, over the items,
 * the relevant items above each and half those tied with it, a whole
 * number per slot among the keys, summed without counting the slots
 * (auc_slot_sum: comparisons with each key when there are at most 16,
 * few_keys.hpp, else key_buckets.hpp's table lookup, O(m) a row); the keys
 * of exact ties are found without a sort where there are at most 16
 * (few_distinct). Partial AUC reads the
 * non-relevant items in rank order from the counts of each slot (those
 * between two relevant scores share their height), in a long row only
 * those of the items at its top, as deep as it reads (pauc_top, one
 * vectorised pass to find them); pairwise accuracy sums
 * its own value per slot over the items of its largest grade. A dense row
 * that is mostly grade 0 is read once for its other items and then as a
 * CSR row of them (dense_as_sparse, rows.hpp). AUC@k reads the driver's ranks and tie
 * groups (RowView).
 */
#ifndef SKLEARN_RANKK_FORMULAS_AUC_HPP
#define SKLEARN_RANKK_FORMULAS_AUC_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "_portable.h"
#include "key_buckets.hpp"
#include "request.hpp"
#include "rows.hpp"
#include "scratch.hpp"
#include "select.hpp"
#include "ties.hpp"

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
// Any other dense row view (the Intents and Weighted views of
// formulas_diversity.hpp and weighted.hpp) reads its grades through
// grade(j). No AUC request reads such a view today; these keep process_row
// whole for every row view.
template <class S, class Rel, class F>
inline void auc_items(const S *s, int64_t m, const Rel &rel, F &&fn) {
    for (int64_t j = 0; j < m; ++j) fn(j, (double)s[j], rel.grade(j));
}

// fn(column, score, grade) for the items of the row that carry their grade:
// every item of a dense row view (Aligned, and the Intents and Weighted
// views of other headers, through their auc_items), a CSR row's stored
// items; auc_implicit: how many items it skips (a CSR row's unstored items,
// of grade 0).
template <class S, class Rel, class F>
inline void auc_stored(const S *s, int64_t m, const Rel &rel, F &&fn) {
    auc_items(s, m, rel, fn);
}
template <class S, class F>
inline void auc_stored(const S *s, int64_t, const Sparse &rel, F &&fn) {
    for (int64_t p = rel.a; p < rel.b; ++p)
        fn(rel.indices[p], (double)s[rel.indices[p]], rel.data[p]);
}
template <class Rel>
inline int64_t auc_implicit(int64_t, const Rel &) {
    return 0;
}
inline int64_t auc_implicit(int64_t m, const Sparse &rel) { return m - (rel.b - rel.a); }

// Class of an item: 1 relevant, 0 judged non-relevant, -1 not judged.
inline int auc_class(double y, double t) { return y > t ? 1 : (y >= 0.0 ? 0 : -1); }

/* The row's relevant items into pos and its unjudged ones into unj; whether
 * a score is NaN. A CSR row reads its stored items only (the others are
 * grade 0: judged non-relevant, as t >= 0), and not the other scores: the
 * caller checks them for NaN (false here). */
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
bool auc_classes(const S *s, int64_t, const Sparse &rel, double t, std::vector<AucKey> &pos,
                 std::vector<AucKey> &unj) {
    for (int64_t p = rel.a; p < rel.b; ++p) {
        const double y = rel.data[p], v = (double)s[rel.indices[p]];
        if (y > t) pos.push_back({v, rel.indices[p]});
        else if (y < 0.0) unj.push_back({v, rel.indices[p]});
    }
    return false;  // the scores are checked for NaN where they are read whole
}
template <class S, class Rel>
bool auc_classes(const S *s, int64_t m, const Rel &rel, double t, std::vector<AucKey> &pos,
                 std::vector<AucKey> &unj) {
    bool nan = false;
    for (int64_t j = 0; j < m; ++j) {
        const double y = rel.grade(j), v = (double)s[j];
        nan = nan || v != v;
        if (y > t) pos.push_back({v, j});
        else if (y < 0.0) unj.push_back({v, j});
    }
    return nan;
}


/* Scores of s[0..n) below v and equal to v: a plain loop that the compiler
 * vectorises (an AVX2 clone where the CPU has it, RANKK_CLONES). */
template <class T>
RANKK_CLONES void count_lt_eq(const T *s, int64_t n, T v, int64_t &lt, int64_t &eq) {
    int64_t a = 0, b = 0;
    for (int64_t j = 0; j < n; ++j) {
        a += s[j] < v;
        b += s[j] == v;
    }
    lt = a;
    eq = b;
}

/* count_lt_eq, with the count of NaN scores (a CSR row's scores, which
 * the scan of its first relevant score checks). */
template <class T>
RANKK_CLONES void count_lt_eq_nan(const T *s, int64_t n, T v, int64_t &lt, int64_t &eq,
                                  int64_t &n_nan) {
    int64_t a = 0, b = 0, c = 0;
    for (int64_t j = 0; j < n; ++j) {
        a += s[j] < v;
        b += s[j] == v;
        c += s[j] != s[j];
    }
    lt = a;
    eq = b;
    n_nan = c;
}

// Up to this many relevant items in a row of up to AUC_SCAN_ROW items (in
// cache), the whole row's AUC counts by one vectorised scan of the row per
// relevant item: cheaper there than the buckets' pass (about 0.16 ns an item
// a relevant item against 2-3 ns an item for the buckets, measured on rows
// of 1,000 float64 scores: the buckets win from about 15 relevant items).
constexpr int64_t AUC_SCAN_MAX = 12, AUC_SCAN_ROW = 8192;

/* Every item of the row placed among the keys w.key[0..D) (descending, the
 * sentinel at D, w.buckets built): the items of each slot above the last
 * gap into w.n[0..2D); returns the count of items scored -inf; nan: set
 * when a score is NaN (the counts are then meaningless). */
template <class S, bool LATER>
int64_t auc_slot_counts(const S *s, int64_t m, AucWork &w, int64_t D, bool &nan) {
    w.n.assign(2 * (size_t)D + 2, 0);
    return count_slots<S, LATER>(s, m, w.buckets, w.n.data(), nan);
}

/* Items of (sv, jv)[0..n) ranked before the item (v, j): a higher score,
 * or an equal one and the lower column first (LATER: the later first). */
template <bool LATER>
RANKK_CLONES int64_t ranked_before(const double *sv, const int64_t *jv, int64_t n, double v,
                                   int64_t j) {
    int64_t r = 0;
    for (int64_t i = 0; i < n; ++i)
        r += (sv[i] > v) | ((sv[i] == v) & (LATER ? jv[i] > j : jv[i] < j));
    return r;
}

/* The items of c (each with a score s and a column j, columns distinct)
 * in rank order: score descending, then the lower column first (LATER:
 * the later first). Up to SORT_BY_RANK items, each item's rank is counted
 * (ranked_before: vectorised, no branch to mispredict, cheaper than a
 * comparison sort there) and the item put there; more items, or a NaN
 * score, by std::sort. */
constexpr int64_t SORT_BY_RANK = 64;
template <bool LATER, class Item>
void sort_ranked(std::vector<Item> &c) {
    const int64_t n = (int64_t)c.size();
    double sv[SORT_BY_RANK];
    int64_t jv[SORT_BY_RANK];
    bool nan = false;
    if (n <= SORT_BY_RANK) {
        for (int64_t i = 0; i < n; ++i) {
            sv[i] = c[(size_t)i].s;
            jv[i] = c[(size_t)i].j;
            nan = nan || sv[i] != sv[i];
        }
    }
    if (n > SORT_BY_RANK || nan) {
        std::sort(c.begin(), c.end(), [](const Item &a, const Item &b) {
            return worse<LATER>(b.s, b.j, a.s, a.j);  // a before b
        });
        return;
    }
    Item tmp[SORT_BY_RANK];
    for (int64_t i = 0; i < n; ++i)
        tmp[ranked_before<LATER>(sv, jv, n, sv[i], jv[i])] = c[(size_t)i];
    std::copy(tmp, tmp + n, c.begin());
}

/* The keys of the finite items in c (an item and a weight each; any order):
 * sorted in rank order, merged by score with exact ties (a key per item
 * with LATER), each key's summed weight in w.kr; the buckets built (with
 * `buckets`, and more than FEW_KEYS keys or LATER: else count_slots
 * compares). Returns
 * D, the number of keys. in_order: c is left in rank order. With exact
 * ties and few distinct scores found in column order (few_distinct), c is
 * put in rank order by a counting sort (in_order), or the keys and sums
 * come straight from few_distinct (c unsorted): the same keys and sums. */
template <class S, bool LATER, class Item, class Weight>
int64_t auc_keys(std::vector<Item> &c, AucWork &w, int64_t m, Weight &&weight,
                 bool buckets = true, bool in_order = true) {
    w.key.clear();
    w.kcol.clear();
    w.kr.clear();
    int64_t n_dist = -1;
    double dk[FEW_KEYS];
    if (!LATER && c.size() < (size_t)INT32_MAX) {  // (kid: int32 places)
        w.kid.resize(c.size());
        n_dist = few_distinct(
            (int64_t)c.size(), [&](int64_t i) { return c[(size_t)i].s; },
            [&](int64_t i) { return c[(size_t)i].j; }, dk, w.kid.data());
    }
    if (n_dist >= 0 && !in_order) {
        // (-inf, the lowest score where it is one, is no key)
        const int64_t nk = n_dist > 0 && dk[n_dist - 1] == -INFINITY ? n_dist - 1 : n_dist;
        w.key.assign(dk, dk + nk);
        w.kcol.assign((size_t)nk, -1);
        w.kr.assign((size_t)nk, 0.0);
        for (size_t i = 0; i < c.size(); ++i) {
            const int32_t r = w.kid[i];
            if (r >= nk) continue;
            if (w.kcol[r] < 0) {  // (the first in column order: the lowest)
                w.kcol[r] = c[i].j;
                w.kr[r] = weight(c[i]);
            } else {
                w.kr[r] += weight(c[i]);
            }
        }
    } else {
        if (n_dist >= 0) {
            // c in rank order without a comparison sort: each item moved to
            // its key's next place (the keys' items in column order: stable),
            // the permutation applied in place by its cycles.
            int64_t at[FEW_KEYS] = {0};
            for (size_t i = 0; i < c.size(); ++i)
                if (w.kid[i] + 1 < n_dist) ++at[w.kid[i] + 1];
            for (int64_t r = 1; r < n_dist; ++r) at[r] += at[r - 1];
            for (size_t i = 0; i < c.size(); ++i) w.kid[i] = (int32_t)at[w.kid[i]]++;
            for (size_t i = 0; i < c.size(); ++i)
                while ((size_t)w.kid[i] != i) {
                    const size_t d = (size_t)w.kid[i];
                    std::swap(c[i], c[d]);
                    std::swap(w.kid[i], w.kid[d]);
                }
        } else {
            sort_ranked<LATER>(c);
        }
        for (const Item &p : c) {
            if (!(p.s > -INFINITY)) break;
            if (!LATER && !w.key.empty() && w.key.back() == p.s) {
                w.kr.back() += weight(p);
                continue;
            }
            w.key.push_back(p.s);
            w.kcol.push_back(p.j);
            w.kr.push_back(weight(p));
        }
    }
    const int64_t D = (int64_t)w.key.size();
    w.key.push_back(-INFINITY);
    w.kcol.push_back(-1);
    if (!LATER && D <= FEW_KEYS)  // (count_slots compares: no buckets to build)
        w.buckets.search_only(w.key.data(), w.kcol.data(), D);
    else if (buckets)
        w.buckets.build(w.key.data(), w.kcol.data(), D, m, std::is_same<S, float>::value);
    return D;
}

/* Over every item of the row, the sum of a whole number per slot among the
 * keys w.key[0..D) (val[0..2D], as sum_slot_values reads it) into total;
 * returns the count of items scored -inf; nan: set when a score is NaN.
 * With exact ties and few keys, the slots counted by comparisons
 * (count_few_keys); else by sum_slot_values' table where it can be used;
 * else the buckets are built and the items of each slot counted (the last
 * gap: the rest). The same whole number every way. */
template <class S, bool LATER>
int64_t auc_slot_sum(const S *s, int64_t m, AucWork &w, int64_t D, const int64_t *val,
                     int64_t &total, bool &nan) {
    int64_t n_inf = 0;
    if (!LATER && D <= FEW_KEYS) {
        // Few distinct key scores (heavy ties: most items would share a
        // cell with a key): the comparisons of count_few_keys.
        w.n.assign(2 * (size_t)D + 2, 0);
        n_inf = count_few_keys<S>(s, m, w.key.data(), D, w.n.data(), nan);
    } else if (sum_slot_values<S, LATER>(s, m, w.buckets, w.key.data(), w.kcol.data(), D, val,
                                         total, n_inf, nan)) {
        return n_inf;
    } else {
        w.buckets.build(w.key.data(), w.kcol.data(), D, m, std::is_same<S, float>::value);
        n_inf = auc_slot_counts<S, LATER>(s, m, w, D, nan);
    }
    int64_t rest = m;
    total = 0;
    for (int64_t q = 0; q < 2 * D; ++q) {
        total += w.n[(size_t)q] * val[q];
        rest -= w.n[(size_t)q];
    }
    total += rest * val[2 * D];
    return n_inf;
}

/* The unjudged items of unj per slot into w.nu[0..2D] (slot 2D: finite,
 * below every key); returns those scored -inf. With `from`, only those
 * scoring at least from (the items of partial AUC's top, pauc_top). */
template <bool LATER>
int64_t auc_unjudged_slots(const std::vector<AucKey> &unj, AucWork &w, int64_t D,
                           double from = -INFINITY) {
    w.nu.assign(2 * (size_t)D + 2, 0);
    int64_t n_inf = 0;
    for (const AucKey &q : unj) {
        if (!(q.s >= from)) continue;
        if (q.s > -INFINITY) ++w.nu[(size_t)w.buckets.slot<LATER>(q.s, q.j)];
        else ++n_inf;
    }
    return n_inf;
}

/* Partial AUC reads the judged non-relevant items in rank order down to
 * the c-th only, c = ceil(f N) (the later ones span false positive rates
 * beyond f). pauc_top finds a score t that at least c of them reach: the
 * r-th largest of a sample of the row (PAUC_SAMPLE scores evenly spaced;
 * r: the share of the row that c, the relevant and the unjudged items
 * make, plus three standard deviations of that count in the sample, plus
 * 2), then reads the row once for the scores that reach t (w.topv),
 * places them among the keys (w.n: the items of each slot; w.buckets
 * built) and counts the judged non-relevant ones among them. Every item of a slot above t's is
 * counted, and those of t's own slot in rank order first, which is all
 * partial AUC reads. Exact ties only (with the later column first, the
 * slots also read columns). False where the whole row is counted instead:
 * a row shorter than PAUC_ROW, c and the others more than a quarter of it,
 * or too few reaching t (a sample unlike the row). nan: set when a score
 * is NaN (the pass reads them all; true then). */
constexpr int64_t PAUC_SAMPLE = 128, PAUC_ROW = 512;
template <class S>
bool pauc_top(const S *s, int64_t m, double fN, const std::vector<AucKey> &pos,
              const std::vector<AucKey> &unj, AucWork &w, int64_t D, double &t, bool &nan) {
    const int64_t c = (int64_t)std::ceil(fN);
    const int64_t want = c + (int64_t)(pos.size() + unj.size());
    if (m < PAUC_ROW || want * 4 > m) return false;
    const double p = (double)want / (double)m, ns = (double)PAUC_SAMPLE;
    const int64_t r = std::min<int64_t>(
        PAUC_SAMPLE, (int64_t)(ns * p + 3.0 * std::sqrt(ns * p * (1.0 - p))) + 2);
    double smp[PAUC_SAMPLE];
    const int64_t stride = m / PAUC_SAMPLE;
    for (int64_t i = 0; i < PAUC_SAMPLE; ++i) {
        const double v = (double)s[i * stride];
        smp[i] = v == v ? v : -INFINITY;
    }
    std::nth_element(smp, smp + (r - 1), smp + PAUC_SAMPLE, std::greater<double>());
    t = smp[r - 1];  // a score of the row: the same comparison in S and double
    if (!(t > -INFINITY)) return false;
    std::vector<double> &top = w.topv;
    top.clear();
    bool bad = false;
    int64_t j = 0;
    for (; j + 32 <= m; j += 32) {
        // (the scores 512 ahead, fetched: the branches below leave the
        // hardware's own prefetch behind, about a third of the pass's time)
        if (j + 512 + 32 <= m) prefetch_items(s + j + 512, 32);
        uint64_t mask = reach32(s + j, t);  // (NaN too)
        while (mask) {
            const double v = (double)s[j + rankk_ctz64(mask)];
            mask &= mask - 1;
            bad = bad || v != v;
            top.push_back(v);
        }
    }
    for (; j < m; ++j) {
        const double v = (double)s[j];
        bad = bad || v != v;
        if (v >= t) top.push_back(v);
    }
    if (bad) {
        nan = true;
        return true;
    }
    int64_t other = 0;  // relevant and unjudged items among them
    for (const AucKey &q : pos) other += q.s >= t;
    for (const AucKey &q : unj) other += q.s >= t;
    if ((int64_t)top.size() - other < c) return false;
    // Their slots (count_slots: the cells' histograms, no chain of
    // increments of one slot); none is -inf (t > -inf).
    w.n.assign(2 * (size_t)D + 2, 0);
    count_slots<double, false>(top.data(), (int64_t)top.size(), w.buckets, w.n.data(), bad);
    return true;
}

/* Whole-row AUC, or partial AUC up to max_fpr = f < 1 (McClish-standardized).
 * Returns whether the row is empty (no relevant or no judged non-relevant
 * item).
 *
 * The finite relevant items are the keys; every item of the row is placed
 * among them (auc_slot_counts: O(m) on average) and each unjudged item too.
 * The AUC is then, over the relevant items p, the items below p plus half
 * those tied with p, less the relevant and the unjudged ones among them:
 * a sum of whole and half numbers, exact in any order. The partial AUC
 * reads the judged non-relevant items in rank order: those of one slot
 * share their height (relevant items above, and tied), so no sort. */
template <class S, class Rel, bool LATER>
bool auc_whole_row_t(const S *s, int64_t m, const Rel &rel, double t, double f, AucWork &w,
                     double &value, uint8_t &flags) {
    std::vector<AucKey> &pos = w.pos, &unj = w.neg;
    pos.clear();
    unj.clear();
    bool nan = auc_classes(s, m, rel, t, pos, unj);
    const int64_t n_pos = (int64_t)pos.size(), n_unj = (int64_t)unj.size();
    const int64_t n_neg = m - n_pos - n_unj;
    // Up to AUC_SCAN_MAX relevant items, a scan of the row each (exact
    // ties: once per run of equal scores in neighbouring columns); more,
    // even of few distinct scores, are the keys (auc_keys: few_distinct,
    // then count_few_keys' comparisons).
    bool nan_pos = false;
    for (const AucKey &p : pos) nan_pos = nan_pos || p.s != p.s;
    const bool scan = f >= 1.0 && n_pos <= AUC_SCAN_MAX && m <= AUC_SCAN_ROW;
    nan = nan || nan_pos;
    // A CSR row's scores are checked here where the buckets do not read
    // them (the buckets' pass checks them itself, the scan with its first
    // relevant score, exact ties).
    constexpr bool sparse = std::is_same<Rel, Sparse>::value;
    if (sparse && (n_pos == 0 || n_neg == 0 || (scan && LATER)))
        nan = any_nan(s, m);
    value = 0.0;
    if (nan) {
        flags |= FLAG_NAN_SCORE;
        return f < 1.0 && (n_pos == 0 || n_neg == 0);
    }
    if (n_pos == 0 || n_neg == 0) return true;
    const double P = (double)n_pos, N = (double)n_neg;
    if (scan) {
        // Over the relevant items p: items below p and half those tied with
        // it (itself excluded; -inf ties in both modes), less the unjudged
        // ones, and each pair of relevant items 1.
        // (Whole and half numbers: exact in any grouping.)
        double u = 0.0;
        bool first = true;
        for (size_t a = 0; a < pos.size();) {
            const AucKey &p = pos[a];
            size_t b = a + 1;  // exact ties: the run of p's score counts once
            if (!LATER)
                while (b < pos.size() && pos[b].s == p.s) ++b;
            const double mult = (double)(b - a);
            a = b;
            const S v = (S)p.s;  // exact: one of the row's scores
            int64_t lt, eq;
            if (sparse && !LATER && first) {  // the first scan: NaN too
                first = false;
                int64_t n_nan;
                count_lt_eq_nan<S>(s, m, v, lt, eq, n_nan);
                if (n_nan > 0) {
                    flags |= FLAG_NAN_SCORE;
                    return false;
                }
                u += mult * ((double)lt + 0.5 * (double)(eq - 1));
            } else if (!LATER || p.s == -INFINITY) {
                count_lt_eq<S>(s, m, v, lt, eq);
                u += mult * ((double)lt + 0.5 * (double)(eq - 1));
            } else {  // the later column first: equal scores before p are below
                int64_t lt2, eq2;
                count_lt_eq<S>(s, p.j, v, lt, eq);
                count_lt_eq<S>(s + p.j + 1, m - p.j - 1, v, lt2, eq2);
                u += (double)(lt + eq + lt2);
            }
            for (const AucKey &q : unj) {
                if (q.s < p.s) u -= mult;
                else if (q.s == p.s)
                    u -= (!LATER || q.s == -INFINITY) ? 0.5 * mult : (q.j < p.j ? 1.0 : 0.0);
            }
        }
        u -= 0.5 * P * (P - 1.0);
        value = u / (P * N);
        return false;
    }
    const int64_t D =
        auc_keys<S, LATER>(pos, w, m, [](const AucKey &) { return 1.0; }, f < 1.0, false);
    bool bad = false;
    if (f >= 1.0) {
        // Over the relevant items: items below and half those tied (itself
        // excluded), among every item of the row: over the items x, the
        // relevant items above x and half those tied with x, V(x) / 2 with
        // V = 2 (keys above) + (tied) a whole number per slot.
        std::vector<int64_t> &val = w.val;
        val.resize(2 * (size_t)D + 1);
        int64_t above = 0;
        for (int64_t i = 0; i < D; ++i) {
            const int64_t r = (int64_t)w.kr[(size_t)i];
            val[2 * (size_t)i] = 2 * above;
            val[2 * (size_t)i + 1] = 2 * above + r;
            above += r;
        }
        val[2 * (size_t)D] = 2 * above;
        int64_t total = 0;
        const int64_t n_inf = auc_slot_sum<S, LATER>(s, m, w, D, val.data(), total, bad);
        if (bad) {
            flags |= FLAG_NAN_SCORE;
            return false;
        }
        const int64_t u_inf = auc_unjudged_slots<LATER>(unj, w, D);
        const double p_fin = (double)above, p_inf = P - p_fin;
        double u = 0.5 * (double)total - 0.5 * p_fin;
        u += p_inf * 0.5 * (double)(n_inf - 1);
        // Each pair of relevant items adds 1 (one below the other, or 1/2 +
        // 1/2 when tied); each unjudged item the relevant items above it and
        // half those tied with it.
        u -= 0.5 * P * (P - 1.0);
        const int64_t *nu = w.nu.data();
        int64_t vu = 0;  // the unjudged items' V
        for (int64_t q = 0; q <= 2 * D; ++q) vu += nu[q] * val[(size_t)q];
        u -= 0.5 * (double)vu + (double)u_inf * (p_fin + 0.5 * p_inf);
        value = u / (P * N);
        return false;
    }
    const double fN = f * N;
    double from = -INFINITY;  // the items counted: those scoring at least from
    int64_t n_inf = 0;
    if (!LATER && pauc_top<S>(s, m, fN, pos, unj, w, D, from, bad)) {
        // (no item scored -inf among them: from > -inf)
    } else {
        from = -INFINITY;
        n_inf = auc_slot_counts<S, LATER>(s, m, w, D, bad);
    }
    if (bad) {
        flags |= FLAG_NAN_SCORE;
        return false;
    }
    const int64_t u_inf = auc_unjudged_slots<LATER>(unj, w, D, from);
    double p_fin = 0.0;  // relevant items scored above -inf
    for (int64_t i = 0; i < D; ++i) p_fin += w.kr[(size_t)i];
    const double p_inf = P - p_fin;
    const int64_t *n = w.n.data(), *nu = w.nu.data();
    const double *kr = w.kr.data();
    // Partial AUC: the non-relevant items in rank order, each spanning
    // [(i-1)/N, i/N] of the false positive rate at height (relevant items
    // above it)/P; the area up to f, then McClish's standardization. The u
    // non-relevant items of a tie group take the next u places in any
    // order; the i-th of them has i r / (u + 1) of the group's r relevant
    // items above it on average. From pauc_top's items (from > -inf), the
    // slots below from's are not counted: the walk ends before them, once
    // i0 reaches fN (a group then returns at once).
    double area = 0.0;  // in units of (1/N) x (relevant items)
    int64_t i0 = 0;     // non-relevant items before the group
    auto group = [&](int64_t u_g, double above, double tied) {
        if (u_g == 0 || !(i0 < n_neg && (double)i0 < fN)) return;
        const double u = (double)u_g;
        for (int64_t i = 1; i <= u_g; ++i) {
            const double start = (double)(i0 + i - 1);
            const double wt = std::min(1.0, std::max(0.0, fN - start));
            if (wt <= 0.0) break;
            area += wt * (above + (double)i * tied / (u + 1.0));
        }
        i0 += u_g;
    };
    double above = 0.0;
    int64_t neg_keys = 0;  // non-relevant items in the slots above the last gap
    for (int64_t i = 0; i < D; ++i) {
        const int64_t gap = n[2 * i] - nu[2 * i];
        const int64_t at = n[2 * i + 1] - (int64_t)kr[i] - nu[2 * i + 1];
        group(gap, above, 0.0);
        group(at, above, kr[i]);
        neg_keys += gap + at;
        above += kr[i];
    }
    const int64_t neg_inf = n_inf - (int64_t)p_inf - u_inf;
    group(n_neg - neg_keys - neg_inf, p_fin, 0.0);
    group(neg_inf, p_fin, p_inf);
    const double pauc = area / (P * N);
    value = 0.5 * (1.0 + (pauc - 0.5 * f * f) / (f - 0.5 * f * f));
    return false;
}

template <class S, class Rel>
bool auc_whole_row(const S *s, int64_t m, const Rel &rel, double t, bool exact, double f,
                   AucWork &w, double &value, uint8_t &flags) {
    Sparse v;
    if (dense_as_sparse(rel, m, w.dense, v, s, (size_t)m * sizeof(S)))
        return exact ? auc_whole_row_t<S, Sparse, false>(s, m, v, t, f, w, value, flags)
                     : auc_whole_row_t<S, Sparse, true>(s, m, v, t, f, w, value, flags);
    return exact ? auc_whole_row_t<S, Rel, false>(s, m, rel, t, f, w, value, flags)
                 : auc_whole_row_t<S, Rel, true>(s, m, rel, t, f, w, value, flags);
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

}  // namespace rankk

#endif
