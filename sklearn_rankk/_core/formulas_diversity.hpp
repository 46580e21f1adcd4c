/* The intent-aware measures' per-intent gain (alpha-nDCG, ERR-IA), exact
 * under ties.
 */
#ifndef SKLEARN_RANKK_FORMULAS_DIVERSITY_HPP
#define SKLEARN_RANKK_FORMULAS_DIVERSITY_HPP

#include <cmath>
#include <cstdint>

#include "formulas_err.hpp"
#include "request.hpp"
#include "scratch.hpp"

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
    survival_walk(v, sc, curve, c_end, o, weigh, place, members);
}

}  // namespace rankk

#endif
