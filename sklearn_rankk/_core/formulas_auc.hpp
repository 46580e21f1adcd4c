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
 * (Mann-Whitney U). The relevant items' scores are sorted and every item of
 * the row is placed among them (key_buckets.hpp: O(1) on average, O(m) a
 * row), which gives each relevant item's count of items below and tied;
 * partial AUC reads the non-relevant items in rank order from the same
 * counts (those between two relevant scores share their height), pairwise
 * accuracy places the items of its largest grade among the others. AUC@k
 * reads the driver's ranks and tie groups (RowView).
 */
#ifndef SKLEARN_RANKK_FORMULAS_AUC_HPP
#define SKLEARN_RANKK_FORMULAS_AUC_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "_portable.h"
#include "key_buckets.hpp"
#include "request.hpp"
#include "rows.hpp"
#include "scratch.hpp"
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

/* The keys of the finite items in c (an item and a weight each; any order):
 * sorted in rank order, merged by score with exact ties (a key per item
 * with LATER), each key's summed weight in w.kr; the buckets built. Returns
 * D, the number of keys. */
template <class S, bool LATER, class Item, class Weight>
int64_t auc_keys(std::vector<Item> &c, AucWork &w, int64_t m, Weight &&weight) {
    std::sort(c.begin(), c.end(), [](const Item &a, const Item &b) {
        return a.s > b.s || (a.s == b.s && (LATER ? a.j > b.j : a.j < b.j));
    });
    w.key.clear();
    w.kcol.clear();
    w.kr.clear();
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
    const int64_t D = (int64_t)w.key.size();
    w.key.push_back(-INFINITY);
    w.kcol.push_back(-1);
    w.buckets.build(w.key.data(), w.kcol.data(), D, m, std::is_same<S, float>::value);
    return D;
}

/* The unjudged items of unj per slot into w.nu[0..2D] (slot 2D: finite,
 * below every key); returns those scored -inf. */
template <bool LATER>
int64_t auc_unjudged_slots(const std::vector<AucKey> &unj, AucWork &w, int64_t D) {
    w.nu.assign(2 * (size_t)D + 2, 0);
    int64_t n_inf = 0;
    for (const AucKey &q : unj) {
        if (q.s > -INFINITY) ++w.nu[(size_t)w.buckets.slot<LATER>(q.s, q.j)];
        else ++n_inf;
    }
    return n_inf;
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
    // The scan counts once per distinct relevant score (exact ties: the
    // relevant items of one score share their counts; the later column
    // first: once per relevant item).
    int64_t n_scans = n_pos;
    bool nan_pos = false;
    for (const AucKey &p : pos) nan_pos = nan_pos || p.s != p.s;
    if (!LATER && !nan_pos && f >= 1.0 && m <= AUC_SCAN_ROW && n_pos > AUC_SCAN_MAX) {
        std::sort(pos.begin(), pos.end(), [](const AucKey &a, const AucKey &b) {
            return a.s > b.s || (a.s == b.s && a.j < b.j);
        });
        n_scans = 1;
        for (int64_t i = 1; i < n_pos; ++i) n_scans += pos[(size_t)i].s != pos[(size_t)i - 1].s;
    }
    const bool scan = f >= 1.0 && n_scans <= AUC_SCAN_MAX && m <= AUC_SCAN_ROW;
    nan = nan || nan_pos;
    // A CSR row's scores are checked here where the buckets do not read
    // them (the buckets' pass checks them itself).
    if (std::is_same<Rel, Sparse>::value && (n_pos == 0 || n_neg == 0 || scan))
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
        for (size_t a = 0; a < pos.size();) {
            const AucKey &p = pos[a];
            size_t b = a + 1;  // exact ties: the run of p's score counts once
            if (!LATER)
                while (b < pos.size() && pos[b].s == p.s) ++b;
            const double mult = (double)(b - a);
            a = b;
            const S v = (S)p.s;  // exact: one of the row's scores
            int64_t lt, eq;
            if (!LATER || p.s == -INFINITY) {
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
    const int64_t D = auc_keys<S, LATER>(pos, w, m, [](const AucKey &) { return 1.0; });
    bool bad = false;
    const int64_t n_inf = auc_slot_counts<S, LATER>(s, m, w, D, bad);
    if (bad) {
        flags |= FLAG_NAN_SCORE;
        return false;
    }
    const int64_t u_inf = auc_unjudged_slots<LATER>(unj, w, D);
    double p_fin = 0.0;  // relevant items scored above -inf
    for (int64_t i = 0; i < D; ++i) p_fin += w.kr[(size_t)i];
    const double p_inf = P - p_fin;
    const int64_t *n = w.n.data(), *nu = w.nu.data();
    const double *kr = w.kr.data();
    if (f >= 1.0) {
        // Over the relevant items: items below and half those tied (itself
        // excluded), among every item of the row.
        double u = 0.0;
        int64_t cum = 0;  // items in the slots above
        for (int64_t i = 0; i < D; ++i) {
            cum += n[2 * i];
            const int64_t g = n[2 * i + 1];
            const double below = (double)(m - cum - g);
            u += kr[i] * (below + 0.5 * (double)(g - 1));
            cum += g;
        }
        u += p_inf * 0.5 * (double)(n_inf - 1);
        // Each pair of relevant items adds 1 (one below the other, or 1/2 +
        // 1/2 when tied); each unjudged item the relevant items above it and
        // half those tied with it.
        u -= 0.5 * P * (P - 1.0);
        double above = 0.0;  // relevant items of the keys above the slot
        for (int64_t i = 0; i < D; ++i) {
            u -= (double)nu[2 * i] * above + (double)nu[2 * i + 1] * (above + 0.5 * kr[i]);
            above += kr[i];
        }
        u -= (double)nu[2 * D] * p_fin + (double)u_inf * (p_fin + 0.5 * p_inf);
        value = u / (P * N);
        return false;
    }
    // Partial AUC: the non-relevant items in rank order, each spanning
    // [(i-1)/N, i/N] of the false positive rate at height (relevant items
    // above it)/P; the area up to f, then McClish's standardization. The u
    // non-relevant items of a tie group take the next u places in any
    // order; the i-th of them has i r / (u + 1) of the group's r relevant
    // items above it on average.
    const double fN = f * N;
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

/* Pairwise ordered accuracy of one row: over the pairs of judged items
 * (grade >= 0) of different grades, the share ranked in order (the higher
 * grade first), a tie counting 1/2. Returns whether the row has no such
 * pair. The largest grade class L (the non-relevant items, typically) is not
 * sorted: the other judged items are (S of them), and are the keys among
 * which every item is placed (auc_slot_counts); an item of L in a slot has
 * in order the items of a higher grade above it and of a lower grade below
 * it, which a running sum of +1 (a higher grade) and -1 (a lower one) over
 * the keys gives. The pairs among the S items are counted over their
 * sorted order with a Fenwick tree over the grades. O(m + S log S) on
 * average. Every count is a whole or half number: exact in any order. */
template <class S, class Rel, bool LATER>
bool pairwise_accuracy_t(const S *s, int64_t m, const Rel &rel, AucWork &w, double &value,
                         double &n_pairs, uint8_t &flags) {
    std::vector<PairItem> &items = w.items;
    std::vector<double> &grades = w.grades, &tree = w.tree, &g_of = w.g_of;
    std::vector<AucKey> &unj = w.neg;
    items.clear();
    grades.clear();
    tree.clear();  // items per grade, in the order found
    unj.clear();
    bool nan = false, many = false;
    int64_t J = 0;
    // The grades and their counts: the items that carry a grade (a CSR
    // row's stored ones: its scores are checked for NaN below), then a CSR
    // row's unstored items, of grade 0, all at once.
    constexpr bool sparse = std::is_same<Rel, Sparse>::value;
    auto count_grade = [&](double y, double n) {
        J += (int64_t)n;
        if (many) return;
        const size_t g = (size_t)(std::find(grades.begin(), grades.end(), y) - grades.begin());
        if (g < grades.size()) {
            tree[g] += n;
        } else if (grades.size() < 64) {
            grades.push_back(y);
            tree.push_back(n);
        } else {
            many = true;
        }
    };
    auc_stored(s, m, rel, [&](int64_t j, double v, double y) {
        if (!sparse) nan = nan || v != v;
        if (y >= 0.0) count_grade(y, 1.0);
        else unj.push_back({v, j});
    });
    const int64_t implicit = auc_implicit(m, rel);
    if (implicit > 0) count_grade(0.0, (double)implicit);
    value = 0.0;
    n_pairs = 0.0;
    if (nan) flags |= FLAG_NAN_SCORE;
    if (many) {  // many distinct grades: collect them all
        grades.clear();
        auc_items(s, m, rel, [&](int64_t, double, double y) {
            if (y >= 0.0) grades.push_back(y);
        });
    }
    // The grades increasing, with their counts.
    {
        std::vector<double> &order = w.prefix;
        order.assign(grades.begin(), grades.end());
        std::sort(grades.begin(), grades.end());
        grades.erase(std::unique(grades.begin(), grades.end()), grades.end());
        if (!many) {
            g_of.assign(grades.size(), 0.0);
            for (size_t i = 0; i < order.size(); ++i)
                g_of[(size_t)(std::lower_bound(grades.begin(), grades.end(), order[i]) -
                              grades.begin())] = tree[i];
            tree.assign(g_of.begin(), g_of.end());
        }
    }
    const int64_t G = (int64_t)grades.size();
    if (G < 2 || nan) {
        if (sparse && !nan && any_nan(s, m)) flags |= FLAG_NAN_SCORE;
        return true;
    }
    auto idx = [&](double y) {
        return (int64_t)(std::lower_bound(grades.begin(), grades.end(), y) - grades.begin());
    };
    if (many) {  // items per grade
        tree.assign((size_t)G, 0.0);
        auc_items(s, m, rel, [&](int64_t, double, double y) {
            if (y >= 0.0) tree[(size_t)idx(y)] += 1.0;
        });
    }
    // L the largest class.
    const int64_t L = (int64_t)(std::max_element(tree.begin(), tree.end()) - tree.begin());
    const double yL = grades[(size_t)L], n_L = tree[(size_t)L];
    double same = 0.0, lower_than_L = 0.0;
    for (int64_t g = 0; g < G; ++g) {
        same += tree[(size_t)g] * (tree[(size_t)g] - 1.0) / 2.0;
        if (g < L) lower_than_L += tree[(size_t)g];
    }
    n_pairs = (double)J * ((double)J - 1.0) / 2.0 - same;
    // The other judged items, the keys: +1 a higher grade, -1 a lower one
    // (a CSR row's unstored items among them only when grade 0 is not L's).
    auto other = [&](int64_t j, double v, double y) {
        if (y >= 0.0 && y != yL) items.push_back({v, j, y});
    };
    if (implicit > 0 && yL != 0.0) auc_items(s, m, rel, other);
    else auc_stored(s, m, rel, other);
    const int64_t n_o = (int64_t)items.size();
    const int64_t D =
        auc_keys<S, LATER>(items, w, m,
                           [&](const PairItem &p) { return p.y > yL ? 1.0 : -1.0; });
    // Items per key, from the items in rank order (as auc_keys sorted them).
    std::vector<double> &kn = w.prefix;
    kn.assign((size_t)D, 0.0);
    {
        int64_t i = -1;
        for (int64_t p = 0; p < n_o && items[(size_t)p].s > -INFINITY; ++p) {
            if (i < 0 || LATER || items[(size_t)p].s != w.key[(size_t)i]) ++i;
            kn[(size_t)i] += 1.0;
        }
    }
    bool bad = false;  // (a CSR row's scores: checked here)
    const int64_t n_inf = auc_slot_counts<S, LATER>(s, m, w, D, bad);
    if (bad) {
        flags |= FLAG_NAN_SCORE;
        n_pairs = 0.0;
        return true;
    }
    const int64_t u_inf = auc_unjudged_slots<LATER>(unj, w, D);
    const int64_t *n = w.n.data(), *nu = w.nu.data();
    const double *pm = w.kr.data();
    // Pairs of an item of L with the others, slot by slot.
    double conc = 0.0, above = 0.0, l_keys = 0.0, o_fin = 0.0;
    for (int64_t i = 0; i < D; ++i) {
        const double gap = (double)(n[2 * i] - nu[2 * i]);
        const double at = (double)(n[2 * i + 1] - nu[2 * i + 1]) - kn[(size_t)i];
        conc += gap * (lower_than_L + above) + at * (lower_than_L + above + 0.5 * pm[i]);
        l_keys += gap + at;
        above += pm[i];
        o_fin += kn[(size_t)i];
    }
    double pm_inf = 0.0;  // the others scored -inf
    for (int64_t p = 0; p < n_o; ++p)
        if (!(items[(size_t)p].s > -INFINITY)) pm_inf += items[(size_t)p].y > yL ? 1.0 : -1.0;
    const double l_inf = (double)(n_inf - u_inf) - ((double)n_o - o_fin);
    conc += (n_L - l_keys - l_inf) * (lower_than_L + above) +
            l_inf * (lower_than_L + above + 0.5 * pm_inf);
    // Pairs among the others: down their order, with a Fenwick tree of the
    // grades above.
    g_of.resize((size_t)n_o);
    for (int64_t p = 0; p < n_o; ++p) g_of[(size_t)p] = (double)idx(items[(size_t)p].y);
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
    for (int64_t a = 0; a < n_o;) {
        int64_t b = a + 1;
        const double v = items[(size_t)a].s;
        if (!LATER || v == -INFINITY)
            while (b < n_o && items[(size_t)b].s == v) ++b;
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
        a = b;
    }
    value = conc / n_pairs;
    return false;
}

template <class S, class Rel>
bool pairwise_accuracy_row(const S *s, int64_t m, const Rel &rel, bool exact, AucWork &w,
                           double &value, double &n_pairs, uint8_t &flags) {
    return exact ? pairwise_accuracy_t<S, Rel, false>(s, m, rel, w, value, n_pairs, flags)
                 : pairwise_accuracy_t<S, Rel, true>(s, m, rel, w, value, n_pairs, flags);
}

/* The row's relevant and judged non-relevant items: a CSR row reads its
 * stored items, the others have grade 0. */
template <class R>
void auc_class_counts(int64_t m, const Aligned<R> &rel, double t, int64_t &n_pos,
                      int64_t &n_neg) {
    for (int64_t j = 0; j < m; ++j) {
        const double y = (double)rel.y[j];
        n_pos += y > t;
        n_neg += y <= t && y >= 0.0;
    }
}
inline void auc_class_counts(int64_t m, const Sparse &rel, double t, int64_t &n_pos,
                             int64_t &n_neg) {
    for (int64_t p = rel.a; p < rel.b; ++p) {
        const int c = auc_class(rel.data[p], t);
        n_pos += c == 1;
        n_neg += c == 0;
    }
    const int64_t rest = m - (rel.b - rel.a);  // not stored: grade 0, judged
    if (0.0 > t) n_pos += rest;
    else n_neg += rest;
}
template <class Rel>
void auc_class_counts(int64_t m, const Rel &rel, double t, int64_t &n_pos, int64_t &n_neg) {
    for (int64_t j = 0; j < m; ++j) {
        const double y = rel.grade(j);
        n_pos += y > t;
        n_neg += y <= t && y >= 0.0;
    }
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
    auc_class_counts(m, rel, t, n_pos, n_neg);
    if (which == COUNT_RELEVANT) return (double)n_pos;
    if (which == COUNT_JUDGED) return (double)(n_pos + n_neg);
    return (double)n_pos * (double)n_neg;
}

}  // namespace rankk

#endif
