/* Relevance seen through item weights (the propensity-scored measures): an
 * item relevant at the pass's relevance threshold has its column's weight
 * as grade, the others 0, read on the fly from the row and the weights (no
 * weighted copy of y_true). The pass asks for it with an ITEM_WEIGHTS
 * request: levels, the n_levels (= m) weights, each > 0; level, the
 * relevance threshold; its value, the row's relevant items. Every other
 * request of the pass reads the weights as grades, at threshold 0.
 */
#ifndef SKLEARN_RANKK_WEIGHTED_HPP
#define SKLEARN_RANKK_WEIGHTED_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

#include "_simd.h"
#include "request.hpp"
#include "rows.hpp"
#include "formulas_diversity.hpp"
#include "scratch.hpp"

namespace rankk {

template <class R>
struct Weighted {
    const R *y;
    int64_t m;
    const Threshold<R> *th;  // the relevance threshold (ITEM_WEIGHTS' level)
    const double *w;         // one weight per column

    inline bool relevant(int64_t j) const { return th->relevant(y[j]); }
    inline double grade(int64_t j) const { return relevant(j) ? w[j] : 0.0; }

    std::vector<int64_t> *items;  // count() lists the relevant columns here

    int64_t count(uint8_t &flags) const {
        const Threshold<R> &T = *th;
        std::vector<int64_t> &out = *items;
        out.clear();
        auto add = [&](int64_t j) { out.push_back(j); };
        if constexpr (std::is_floating_point<R>::value) {
            int bad = 0;
            for (int64_t j = 0; j < m; ++j) {
                const R v = y[j];
                bad |= (v - v) != (v - v);  // NaN or infinite
            }
            if (bad)
                for (int64_t j = 0; j < m; ++j) {
                    if (y[j] != y[j]) flags |= FLAG_NAN_REL;
                    else if (std::isinf((double)y[j])) flags |= FLAG_INF_REL;
                }
        } else {
            if (T.mode == CMP_INT) {
                const R it = T.it;
                each_above(y, m, [it](R v) { return v > it; }, add);
                return (int64_t)out.size();
            }
            if (T.mode == CMP_ALL) {
                for (int64_t j = 0; j < m; ++j) out.push_back(j);
                return m;
            }
            if (T.mode == CMP_NONE) return 0;
        }
        const double t = T.t;
        each_above(y, m, [t](R v) { return (double)v > t; }, add);
        return (int64_t)out.size();
    }
    // The `want` largest weights of the relevant items, decreasing.
    void ideal(std::vector<double> &out, int64_t, int64_t want) const {
        out.clear();
        for (int64_t j : *items) out.push_back(w[j]);
        const int64_t n = (int64_t)out.size();
        const int64_t take = std::min(n, std::max<int64_t>(want, 0));
        double *g = out.data();
        if (take > 0 && take < n) std::nth_element(g, g + take - 1, g + n, std::greater<double>());
        std::sort(g, g + take, std::greater<double>());
        out.resize((size_t)take);
    }
    template <class S>
    void tied_sums(const S *s, double kth, double &r, double &g, double &ge, bool exponential,
                   int E = 0) const {
        r = g = ge = 0.0;
        visit_tied(s, kth, [&](double x) { add_gain(x, 0.0, exponential, r, g, ge, E); });
    }
    int64_t count_negative() const { return 0; }  // weights are positive
    template <class S, class F>
    void visit_tied(const S *s, double kth, F &&fn) const {
        int64_t j = 0;
        for (; j + 32 <= m; j += 32) {
            uint64_t mask = Aligned<R>::eq32(s + j, kth);
            while (mask) {
                fn(grade(j + rankk_ctz64(mask)));
                mask &= mask - 1;
            }
        }
        for (; j < m; ++j)
            if ((double)s[j] == kth) fn(grade(j));
    }
    template <class F>
    void each_stored(F &&fn) const {
        for (int64_t j : *items) fn(j, w[j]);
    }
};

// The ITEM_WEIGHTS request of a plan, or nullptr.
inline const Request *item_weights_of(const Plan &plan) {
    for (int32_t q = 0; q < plan.n_req; ++q)
        if (plan.req[q].formula == ITEM_WEIGHTS) return &plan.req[q];
    return nullptr;
}

}  // namespace rankk

#endif
