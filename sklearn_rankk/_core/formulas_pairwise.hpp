/* Pairwise ordered accuracy of graded relevance (formula code
 * PAIRWISE_ACCURACY) and the per-row counts that GAUC and the micro
 * averages weigh by (COUNT_ROW): the AUC family's row readers, keys and
 * slot sums (formulas_auc.hpp) over the items outside the largest grade.
 */
#ifndef SKLEARN_RANKK_FORMULAS_PAIRWISE_HPP
#define SKLEARN_RANKK_FORMULAS_PAIRWISE_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "formulas_auc.hpp"
#include "request.hpp"
#include "rows.hpp"
#include "scratch.hpp"

namespace rankk {

/* Pairwise ordered accuracy of one row: over the pairs of judged items
 * (grade >= 0) of different grades, the share ranked in order (the higher
 * grade first), a tie counting 1/2. Returns whether the row has no such
 * pair. The largest grade class L (the non-relevant items, typically) is not
 * sorted: the other judged items are (S of them), and are the keys among
 * which every item is placed (auc_slot_sum); an item of L in a slot has
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
    const double yL = grades[(size_t)L];
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
                           [&](const PairItem &p) { return p.y > yL ? 1.0 : -1.0; }, false);
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
    // An item of L in a slot has in order the items of a lower grade (all
    // of them but the others below it) and of a higher grade above it, and
    // half the others tied with it: the doubled count, a whole number per
    // slot (pm: +1 a higher grade, -1 a lower one, summed per key).
    const double *pm = w.kr.data();
    std::vector<int64_t> &val = w.val;
    val.resize(2 * (size_t)D + 1);
    int64_t above = 0;
    for (int64_t i = 0; i < D; ++i) {
        val[2 * (size_t)i] = 2 * ((int64_t)lower_than_L + above);
        val[2 * (size_t)i + 1] = val[2 * (size_t)i] + (int64_t)pm[i];
        above += (int64_t)pm[i];
    }
    val[2 * (size_t)D] = 2 * ((int64_t)lower_than_L + above);
    bool bad = false;  // (a CSR row's scores: checked here)
    int64_t total = 0;  // over every item of the row
    const int64_t n_inf = auc_slot_sum<S, LATER>(s, m, w, D, val.data(), total, bad);
    if (bad) {
        flags |= FLAG_NAN_SCORE;
        n_pairs = 0.0;
        return true;
    }
    const int64_t u_inf = auc_unjudged_slots<LATER>(unj, w, D);
    // Less the items that are not of L: the others (at their key's tie
    // group, or -inf) and the unjudged ones.
    const int64_t *nu = w.nu.data();
    double o_fin = 0.0, pm_inf = 0.0;  // the others finite; -inf: their pm
    for (int64_t i = 0; i < D; ++i) {
        total -= (int64_t)kn[(size_t)i] * val[2 * (size_t)i + 1];
        o_fin += kn[(size_t)i];
    }
    for (int64_t q = 0; q <= 2 * D; ++q) total -= nu[q] * val[(size_t)q];
    for (int64_t p = 0; p < n_o; ++p)
        if (!(items[(size_t)p].s > -INFINITY)) pm_inf += items[(size_t)p].y > yL ? 1.0 : -1.0;
    const double o_inf = (double)n_o - o_fin;
    total -= (int64_t)(o_inf + (double)u_inf) * val[2 * (size_t)D];
    // The items of L scored -inf tie with the others scored -inf.
    const double l_inf = (double)(n_inf - u_inf) - o_inf;
    double conc = 0.5 * (double)total + l_inf * 0.5 * pm_inf;
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
    // A tie group's items per grade (zero between groups).
    std::vector<int64_t> &in_group = w.in_group;
    in_group.assign((size_t)G, 0);
    double inserted = 0.0;
    for (int64_t a = 0; a < n_o;) {
        int64_t b = a + 1;
        const double v = items[(size_t)a].s;
        if (!LATER || v == -INFINITY)
            while (b < n_o && items[(size_t)b].s == v) ++b;
        // An item above of a higher grade: in order.
        for (int64_t p = a; p < b; ++p) conc += inserted - upto((int64_t)g_of[(size_t)p] + 1);
        // Pairs inside a tie group, of different grades: 1/2 each. The
        // pairs of one grade, counted as each item meets the earlier ones
        // of its grade: the same whole number as the sum over the grades of
        // c (c - 1) / 2, in any order.
        if (b - a > 1) {
            int64_t eq = 0;
            for (int64_t p = a; p < b; ++p) eq += in_group[(size_t)g_of[(size_t)p]]++;
            for (int64_t p = a; p < b; ++p) in_group[(size_t)g_of[(size_t)p]] = 0;
            const double nb = (double)(b - a);
            conc += 0.5 * (nb * (nb - 1.0) / 2.0 - (double)eq);
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
    Sparse v;
    if (dense_as_sparse(rel, m, w.dense, v, s, (size_t)m * sizeof(S)))
        return exact ? pairwise_accuracy_t<S, Sparse, false>(s, m, v, w, value, n_pairs, flags)
                     : pairwise_accuracy_t<S, Sparse, true>(s, m, v, w, value, n_pairs, flags);
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
    Sparse v;
    if (dense_as_sparse(rel, m, w.dense, v)) auc_class_counts(m, v, t, n_pos, n_neg);
    else auc_class_counts(m, rel, t, n_pos, n_neg);
    if (which == COUNT_RELEVANT) return (double)n_pos;
    if (which == COUNT_JUDGED) return (double)(n_pos + n_neg);
    return (double)n_pos * (double)n_neg;
}

/* A request that reads the row itself (auc_reads_row_itself: whole-row AUC
 * and partial AUC, pairwise accuracy, the weighted averages' row counts)
 * into o[0]; returns whether the row is empty for it. */
template <class S, class Rel>
bool auc_family_row(const Request &r, const S *s, int64_t m, const Rel &rel, double t,
                    bool exact, AucWork &w, double *o, uint8_t &flags) {
    if (r.formula == AUC) return auc_whole_row(s, m, rel, t, exact, r.level, w, o[0], flags);
    if (r.formula == PAIRWISE_ACCURACY) {
        double n_pairs;
        return pairwise_accuracy_row(s, m, rel, exact, w, o[0], n_pairs, flags);
    }
    o[0] = auc_row_count(s, m, rel, t, (int32_t)r.level, w, flags);  // COUNT_ROW
    return false;
}

}  // namespace rankk

#endif
