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

#include "request.hpp"
#include "rows.hpp"
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

// Class of an item: 1 relevant, 0 judged non-relevant, -1 not judged.
inline int auc_class(double y, double t) { return y > t ? 1 : (y >= 0.0 ? 0 : -1); }

struct AucKey {
    double s;
    int64_t j;
};

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

/* Whole-row AUC, or partial AUC up to max_fpr = f < 1 (McClish-standardized).
 * Returns whether the row is empty (no relevant or no judged non-relevant
 * item). pos/neg: work buffers. */
template <class S, class Rel>
bool auc_whole_row(const S *s, int64_t m, const Rel &rel, double t, bool exact, double f,
                   std::vector<AucKey> &pos, std::vector<AucKey> &neg, double &value,
                   uint8_t &flags) {
    pos.clear();
    neg.clear();
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
 * pair. O(J log J) for J judged items (a sort, then a Fenwick tree over the
 * distinct grades). */
struct PairItem {
    double s;
    int64_t j;
    double y;
};

template <class S, class Rel>
bool pairwise_accuracy_row(const S *s, int64_t m, const Rel &rel, bool exact,
                           std::vector<PairItem> &items, std::vector<double> &grades,
                           std::vector<double> &tree, double &value, double &n_pairs,
                           uint8_t &flags) {
    items.clear();
    grades.clear();
    bool nan = false;
    auc_items(s, m, rel, [&](int64_t j, double v, double y) {
        nan = nan || v != v;
        if (y >= 0.0) {
            items.push_back({v, j, y});
            grades.push_back(y);
        }
    });
    value = 0.0;
    n_pairs = 0.0;
    if (nan) flags |= FLAG_NAN_SCORE;
    std::sort(grades.begin(), grades.end());
    grades.erase(std::unique(grades.begin(), grades.end()), grades.end());
    const int64_t G = (int64_t)grades.size();
    if (G < 2 || nan) return true;
    std::sort(items.begin(), items.end(), [](const PairItem &a, const PairItem &b) {
        return a.s > b.s || (a.s == b.s && a.j > b.j);
    });
    tree.assign((size_t)G + 1, 0.0);
    auto idx = [&](double y) {
        return (int64_t)(std::lower_bound(grades.begin(), grades.end(), y) - grades.begin());
    };
    auto add = [&](int64_t i) {
        for (++i; i <= G; i += i & -i) tree[(size_t)i] += 1.0;
    };
    auto below = [&](int64_t i) {  // items inserted with grade index < i
        double c = 0.0;
        for (; i > 0; i -= i & -i) c += tree[(size_t)i];
        return c;
    };
    double conc = 0.0, inserted = 0.0;
    const int64_t J = (int64_t)items.size();
    for (int64_t a = 0; a < J;) {
        int64_t b = a + 1;
        const double v = items[a].s;
        if (exact || v == -INFINITY)
            while (b < J && items[b].s == v) ++b;
        // Pairs with an item above: in order when that one's grade is higher.
        for (int64_t p = a; p < b; ++p) {
            const int64_t i = idx(items[p].y);
            conc += inserted - below(i + 1);
        }
        // Pairs inside the group of different grades: 1/2 each.
        if (b - a > 1) {
            double same = 0.0;
            std::vector<double> ys;
            ys.reserve((size_t)(b - a));
            for (int64_t p = a; p < b; ++p) ys.push_back(items[p].y);
            std::sort(ys.begin(), ys.end());
            for (size_t p = 0; p < ys.size();) {
                size_t q = p + 1;
                while (q < ys.size() && ys[q] == ys[p]) ++q;
                same += (double)(q - p) * (double)(q - p - 1) / 2.0;
                p = q;
            }
            const double nb = (double)(b - a);
            conc += 0.5 * (nb * (nb - 1.0) / 2.0 - same);
        }
        for (int64_t p = a; p < b; ++p) add(idx(items[p].y));
        inserted += (double)(b - a);
        a = b;
    }
    // Pairs of different grades: all pairs less those of equal grades.
    double same = 0.0;
    for (int64_t g = 0; g < G; ++g) {
        const double c = below(g + 1) - below(g);
        same += c * (c - 1.0) / 2.0;
    }
    const double Jd = (double)J;
    n_pairs = Jd * (Jd - 1.0) / 2.0 - same;
    value = conc / n_pairs;
    return false;
}

/* This family's work buffers, one set per thread (kept here rather than in
 * Scratch so that the family stays in its own header). */
struct AucWork {
    std::vector<AucKey> pos, neg;
    std::vector<PairItem> items;
    std::vector<double> grades, tree;
};
inline AucWork &auc_work() {
    thread_local AucWork w;
    return w;
}

/* The per-row counts that the weighted averages read (COUNT_ROW). */
template <class S, class Rel>
double auc_row_count(const S *s, int64_t m, const Rel &rel, double t, int32_t which,
                     std::vector<PairItem> &items, std::vector<double> &grades,
                     std::vector<double> &tree, uint8_t &flags) {
    if (which == COUNT_GRADED_PAIRS) {
        double value, n_pairs;
        pairwise_accuracy_row(s, m, rel, true, items, grades, tree, value, n_pairs, flags);
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
