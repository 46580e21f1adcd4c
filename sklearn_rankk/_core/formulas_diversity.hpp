/* The intent-aware measures (P-IA, subtopic recall, alpha-nDCG, ERR-IA),
 * exact under ties: the per-intent gain of alpha-nDCG and ERR-IA, the
 * relevance of a row given per intent (Intents), and every intent's values
 * from one selection of the row (intent_values), with the greedy ideal.
 */
#ifndef SKLEARN_RANKK_FORMULAS_DIVERSITY_HPP
#define SKLEARN_RANKK_FORMULAS_DIVERSITY_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

#include "formulas_err.hpp"
#include "request.hpp"
#include "rows.hpp"
#include "scratch.hpp"
#include "ties.hpp"

namespace rankk {

/* ALPHA_GAIN: one intent's share of alpha-DCG (Clarke et al., SIGIR 2008)
 * and of ndeval's ERR-IA, the sum over the intent's relevant items, in rank
 * order, of (1 - alpha)^(j - 1) disc(rank), the j-th of them discounted
 * by 1 / log2(1 + rank) (r.disc == nullptr) or by r.disc[rank - 1]
 * (ndeval's ERR-IA: 1 / rank). alpha = r.p. Each relevant item has gain 1
 * and survival 1 - alpha in survival_walk (ERR's walk), whose recurrence
 * over a tie group's subsets makes the value exact under ties. */
template <class Members>
void alpha_gain_value(const Request &r, const RowView &v, Scratch &sc, double t, bool curve,
                      int64_t c_end, double *o, Members &&members) {
    const double keep = 1.0 - r.p;
    auto weigh = [&](double y, double &rv, double &vv) {
        const bool relevant = y > t && y > 0.0;
        rv = relevant ? 1.0 : 0.0;
        vv = relevant ? keep : 1.0;
        return relevant;
    };
    const double *disc = r.disc;
    const int64_t n_disc = r.n_disc;
    auto place = [&](double x, int64_t p) {
        if (disc != nullptr) return p < n_disc ? x * disc[p] : 0.0;
        return x / std::log2((double)(p + 2));
    };
    auto places = [&](const double *T, int64_t lim, double survive, int64_t a, double *t) {
        for (int64_t x = 0; x < lim; ++x) t[x] = place(survive * T[x] / (double)(x + 1), a + x);
    };
    survival_walk(v, sc, curve, c_end, o, weigh, place, places, members);
}


// ---- every intent from one selection ------------------------------------------

/* fn(i) for each i < n with above(y[i]), in order: 16 values compared at a
 * time (vectorised), the few blocks holding one read again. */
template <class R, class Above, class F>
inline void each_above(const R *y, int64_t n, Above &&above, F &&fn) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        int c = 0;
        for (int u = 0; u < 16; ++u) c += above(y[i + u]) ? 1 : 0;
        if (c)
            for (int u = 0; u < 16; ++u)
                if (above(y[i + u])) fn(i + u);
    }
    for (; i < n; ++i)
        if (above(y[i])) fn(i);
}

/* The relevance of one row given per intent: its (m, n_int) block of a
 * y_true of shape (n_rows, m, n_int), row `row`. To the driver an item's
 * grade is its largest over the intents (relevant: relevant to some
 * intent, y > t); the intent-aware formulas read each intent's grade.
 * count() also lists the items relevant to some intent, in column order,
 * into *items (one read of the block). */
template <class R>
struct Intents {
    const R *y;
    int64_t m, n_int, row;
    const Threshold<R> *th;
    std::vector<int64_t> *items;

    inline double intent_grade(int64_t j, int64_t q) const { return (double)y[j * n_int + q]; }
    inline double grade(int64_t j) const {
        const R *p = y + j * n_int;
        R mx = p[0];
        for (int64_t q = 1; q < n_int; ++q) mx = p[q] > mx ? p[q] : mx;
        return (double)mx;
    }
    int64_t count(uint8_t &flags) const {
        std::vector<int64_t> &out = *items;
        out.clear();
        const int64_t n = m * n_int;
        const Threshold<R> &T = *th;
        if constexpr (std::is_floating_point<R>::value) {
            int bad = 0;
            for (int64_t i = 0; i < n; ++i) {
                const R v = y[i];
                bad |= (v - v) != (v - v);  // NaN or infinite
            }
            if (bad)
                for (int64_t i = 0; i < n; ++i) {
                    if (y[i] != y[i]) flags |= FLAG_NAN_REL;
                    else if (std::isinf((double)y[i])) flags |= FLAG_INF_REL;
                }
        }
        const int64_t n_int_ = n_int;
        auto add = [&](int64_t i) {
            const int64_t j = i / n_int_;
            if (out.empty() || out.back() != j) out.push_back(j);
        };
        const double t = T.t;
        if constexpr (std::is_integral<R>::value) {
            if (T.mode == CMP_INT) {
                const R it = T.it;
                each_above(y, n, [it](R v) { return v > it; }, add);
                return (int64_t)out.size();
            }
            if (T.mode == CMP_ALL) {
                for (int64_t j = 0; j < m && n_int > 0; ++j) out.push_back(j);
                return (int64_t)out.size();
            }
            if (T.mode == CMP_NONE) return 0;
        }
        each_above(y, n, [t](R v) { return (double)v > t; }, add);
        return (int64_t)out.size();
    }
    void ideal(std::vector<double> &out, int64_t, int64_t want) const {
        out.clear();
        for (int64_t j : *items) out.push_back(grade(j));
        std::sort(out.begin(), out.end(), std::greater<double>());
        if ((int64_t)out.size() > want) out.resize((size_t)std::max<int64_t>(want, 0));
    }
    template <class S>
    void tied_sums(const S *s, double kth, double &r, double &g, double &ge, bool exponential,
                   int E = 0) const {
        r = g = ge = 0.0;
        visit_tied(s, kth, [&](double y) { add_gain(y, th->t, exponential, r, g, ge, E); });
    }
    int64_t count_negative() const {
        int64_t c = 0;
        for (int64_t j = 0; j < m; ++j) c += grade(j) < 0.0;
        return c;
    }
    // fn(column) for every item of the row whose score is kth, in column order.
    template <class S, class F>
    void visit_tied_cols(const S *s, double kth, F &&fn) const {
        int64_t j = 0;
        for (; j + 32 <= m; j += 32) {
            uint64_t mask = Aligned<R>::eq32(s + j, kth);
            while (mask) {
                fn(j + rankk_ctz64(mask));
                mask &= mask - 1;
            }
        }
        for (; j < m; ++j)
            if ((double)s[j] == kth) fn(j);
    }
    template <class S, class F>
    void visit_tied(const S *s, double kth, F &&fn) const {
        visit_tied_cols(s, kth, [&](int64_t j) { fn(grade(j)); });
    }
    template <class F>
    void each_stored(F &&fn) const {
        for (int64_t j = 0; j < m; ++j) {
            const double g = grade(j);
            if (g != 0.0) fn(j, g);
        }
    }
};

template <class Rel>
struct is_intents : std::false_type {};
template <class R>
struct is_intents<Intents<R>> : std::true_type {};

// The intents of a plan's intent-aware requests (y_true's last dimension),
// 0 when it has none.
inline int64_t intents_of(const Plan &plan) {
    for (int32_t q = 0; q < plan.n_req; ++q) {
        const int32_t f = plan.req[q].formula;
        if (f >= INTENT_PRECISION && f <= INTENT_ALPHA) return plan.req[q].n_levels;
    }
    return 0;
}

struct IntentWork {
    std::vector<double> g, f, w;
    std::vector<int64_t> tail, seen, left, order, n_of;
    std::vector<uint8_t> present;
    std::vector<uint64_t> bits, distinct;
};

/* ndeval's greedy ideal ranking to depth k, its value: each rank takes the
 * item of largest gain sum_q w_q (1 - alpha)^c_q over its intents q (c_q:
 * the items of intent q ranked before), discounted as alpha_gain_value.
 * Items of equal gain (up to rounding) go in the decreasing lexicographic
 * order of their relevance vectors (intent 0 the most significant), so the
 * ideal does not depend on the column order. Over the distinct vectors of
 * the row's relevant items, with their numbers of items. */
template <class Rel>
double greedy_ideal(const Request &r, const Rel &rel, double t, IntentWork &w) {
    const int64_t T = rel.n_int, W = (T + 63) / 64;
    const double keep = 1.0 - r.p;
    std::vector<uint64_t> &bits = w.bits;
    bits.clear();
    int64_t n = 0;
    for (int64_t j : *rel.items) {  // each item's vector, intent 0 the top bit
        bits.resize((size_t)((n + 1) * W), 0);
        bool any = false;
        for (int64_t q = 0; q < T; ++q) {
            const double y = rel.intent_grade(j, q);
            if (y > t && y > 0.0) {
                bits[(size_t)(n * W + q / 64)] |= uint64_t(1) << (63 - q % 64);
                any = true;
            }
        }
        if (any) ++n;
        else bits.resize((size_t)(n * W));
    }
    if (n == 0) return 0.0;
    std::vector<int64_t> &order = w.order;
    order.resize((size_t)n);
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    const uint64_t *b = bits.data();
    auto greater = [&](int64_t x, int64_t y) {
        for (int64_t u = 0; u < W; ++u)
            if (b[x * W + u] != b[y * W + u]) return b[x * W + u] > b[y * W + u];
        return false;
    };
    std::sort(order.begin(), order.end(), greater);
    // the distinct vectors, decreasing, and their numbers of items
    std::vector<uint64_t> &d = w.distinct;
    std::vector<int64_t> &left = w.left;
    d.clear();
    left.clear();
    for (int64_t i = 0; i < n; ++i) {
        if (i > 0 && !greater(order[i - 1], order[i])) {
            ++left.back();
            continue;
        }
        d.insert(d.end(), b + order[i] * W, b + order[i] * W + W);
        left.push_back(1);
    }
    const int64_t n_d = (int64_t)left.size();
    // the weights: 1 each, or the row's normalised over its intents with a
    // relevant item (w.present)
    std::vector<double> &wq = w.w, &f = w.f;
    wq.assign((size_t)T, 1.0);
    if (r.levels != nullptr) {
        const double *row = r.levels + rel.row * T;
        double total = 0.0;
        for (int64_t q = 0; q < T; ++q) {
            wq[q] = w.present[q] ? row[q] : 0.0;
            total += wq[q];
        }
        const double by = total == 0.0 ? 1.0 : total;
        for (int64_t q = 0; q < T; ++q) wq[q] = wq[q] / by;
    }
    f = wq;  // w_q (1 - alpha)^c_q
    w.seen.assign((size_t)T, 0);
    const int64_t depth = std::min<int64_t>(r.k, n);
    double ideal = 0.0;
    for (int64_t rank = 0; rank < depth; ++rank) {
        double best = -1.0;
        std::vector<double> &gain = w.g;
        gain.assign((size_t)n_d, -1.0);
        for (int64_t i = 0; i < n_d; ++i) {
            if (left[i] == 0) continue;
            double g = 0.0;
            for (int64_t q = 0; q < T; ++q)
                if (d[i * W + q / 64] >> (63 - q % 64) & 1) g += f[q];
            gain[i] = g;
            best = std::max(best, g);
        }
        if (!(best > 0.0)) break;
        int64_t pick = 0;
        while (!(gain[pick] >= best - 1e-12 * std::fabs(best))) ++pick;
        const double disc = r.disc != nullptr ? (rank < r.n_disc ? r.disc[rank] : 0.0)
                                              : 1.0 / std::log2((double)(rank + 2));
        ideal += best * disc;
        for (int64_t q = 0; q < T; ++q)
            if (d[pick * W + q / 64] >> (63 - q % 64) & 1)
                f[q] = wq[q] * std::pow(keep, (double)++w.seen[q]);
        --left[pick];
    }
    return ideal;
}

/* INTENT_PRECISION, INTENT_HIT, INTENT_ALPHA: every intent's value from the
 * row's one selection (the same ranks, tie groups and straddling group for
 * every intent; only the grades differ), each computed as the one-intent
 * formula (PRECISION, HIT, ALPHA_GAIN) computes it on that intent's grades,
 * into o[0 .. n_int); whether the row has an item relevant to each intent
 * (y > t) into o[n_int .. 2 n_int); INTENT_ALPHA's greedy ideal into
 * o[2 n_int] (where Request.level != 0; else 0). Returns whether no intent has a relevant item. */
template <class S, class Rel>
bool intent_values(const Request &r, const RowView &v, Scratch &sc, const Rel &rel, const S *s,
                   const double *tv, const int64_t *tj, bool listed, double t, int64_t c_end,
                   double *o) {
    if constexpr (!is_intents<Rel>::value) {  // not an intent pass: nothing to read
        (void)v, (void)sc, (void)rel, (void)s, (void)tv, (void)tj, (void)listed, (void)t,
            (void)c_end;
        for (int64_t c = 0; c < 2 * r.n_levels + (r.formula == INTENT_ALPHA); ++c) o[c] = 0.0;
        return true;
    } else {
        thread_local IntentWork w;
        const int64_t T = rel.n_int, K_eff = v.K_eff, end = std::min(c_end, K_eff);
        // The group that straddles the cut, if any: its members beyond the
        // cut (listed by the selection), or all of them (a pass over the row).
        std::vector<int64_t> &tail = w.tail;
        tail.clear();
        bool whole = false;
        if (K_eff > 0) {
            const int64_t la = v.gstart[K_eff - 1];
            if ((int64_t)v.ng[la] > K_eff - la) {
                if (listed) tail = sc.tied_out;
                else rel.visit_tied_cols(s, tv[la], [&](int64_t j) { tail.push_back(j); });
                whole = !listed;
            }
        }
        std::vector<double> &g = w.g;
        bool none = true;
        w.present.assign((size_t)T, 0);
        for (int64_t q = 0; q < T; ++q) {
            for (int64_t j : *rel.items) {
                if (rel.intent_grade(j, q) > t) {
                    w.present[q] = 1;
                    break;
                }
            }
            none = none && !w.present[q];
            o[T + q] = w.present[q] ? 1.0 : 0.0;
        }
        for (int64_t q = 0; q < T; ++q) {
            g.resize((size_t)K_eff);
            for (int64_t p = 0; p < K_eff; ++p) g[p] = rel.intent_grade(tj[p], q);
            auto members = [&](int64_t a, int64_t b, bool straddles, auto &&fn) {
                if (!(straddles && whole))
                    for (int64_t p = a; p < b; ++p) fn(g[p]);
                if (straddles)
                    for (int64_t j : tail) fn(rel.intent_grade(j, q));
            };
            if (r.formula == INTENT_ALPHA) {
                RowView vq = v;
                vq.grade = g.data();
                alpha_gain_value(r, vq, sc, t, false, c_end, o + q, members);
                continue;
            }
            // PRECISION's expected relevant items in the top k (ecum) and
            // HIT's probability of none (as the driver computes them)
            double rel_before = 0.0, cum = 0.0, survive = 1.0;
            v.groups.each(K_eff, [&](int64_t a, int64_t b) {
                const bool straddles = (int64_t)v.ng[a] > b - a;
                double r_g = 0.0;
                members(a, b, straddles, [&](double y) { r_g += y > t ? 1.0 : 0.0; });
                const double n_g = v.ng[a], ev = r_g / n_g;
                if (end - 1 >= a && end - 1 < b)
                    cum = end == b && !straddles ? rel_before + r_g
                                                 : rel_before + (double)(end - a) * ev;
                for (int64_t c = a; c < std::min(b, end); ++c) {
                    const double hv = r_g / (n_g - (double)(c - a));
                    survive *= 1.0 - (hv > 1.0 ? 1.0 : (hv < 0.0 ? 0.0 : hv));
                }
                rel_before += r_g;
            });
            o[q] = r.formula == INTENT_HIT ? 1.0 - survive
                                           : (r.k > 0 ? cum / (double)r.k : 0.0);
        }
        if (r.formula == INTENT_ALPHA)  // level 0: no ideal asked for (ERR-IA)
            o[2 * T] = none || r.level == 0.0 ? 0.0 : greedy_ideal(r, rel, t, w);
        return none;
    }
}

}  // namespace rankk

#endif
