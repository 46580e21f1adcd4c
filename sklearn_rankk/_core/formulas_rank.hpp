/* The formulas on the per-rank expectations: the set measures' values
 * (F-beta, unranked AP, relative precision), DCG's discounts and AP's value
 * at a cut-off. Precision, recall, hit, reciprocal rank, DCG and nDCG are
 * sums over the ranks that the driver's switch writes out.
 */
#ifndef SKLEARN_RANKK_FORMULAS_RANK_HPP
#define SKLEARN_RANKK_FORMULAS_RANK_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "request.hpp"
#include "scratch.hpp"
#include "ties.hpp"

namespace rankk {

// F1 and F-beta from the expected relevant count in the top k:
// (1 + b^2) cum / (b^2 |R| + k); F1 is b = 1.
inline double f_beta(const Request &r, double cum, double k, int64_t n_rel) {
    const double b2 = r.formula == F1 ? 1.0 : r.beta * r.beta;
    const double den = b2 * (double)n_rel + k;
    return den > 0 ? (1.0 + b2) * cum / den : 0.0;
}

// Unranked AP (trec_eval's set_map): cum^2 / (k |R|), 0 if either is 0.
inline double set_ap(double cum, double k, int64_t n_rel) {
    const double den = k * (double)n_rel;
    return den > 0 ? cum * cum / den : 0.0;
}

// Relative precision: cum / min(k, |R|) (0 without relevant items).
inline double relative(double cum, double k, int64_t n_rel) {
    const double den = std::min(k, (double)n_rel);
    return den > 0 ? cum / den : 0.0;
}

inline double discount(int64_t p, double log_base) {
    return std::log(log_base) / std::log((double)(p + 2));
}

// 1 / log_base(rank + 1) for ranks 1..n, computed once per thread and base.
inline const double *discounts(Scratch &sc, double log_base, int64_t n) {
    if (sc.disc_base != log_base || (int64_t)sc.disc.size() < n) {
        if (sc.disc_base != log_base) sc.disc.clear();
        for (int64_t p = (int64_t)sc.disc.size(); p < n; ++p)
            sc.disc.push_back(discount(p, log_base));
        sc.disc_base = log_base;
    }
    return sc.disc.data();
}

/* AP's value at cut-off `cut` (ranks < cut counted) from the running sums of
 * its numerator: num (ranks < cut), cum_e (expected relevant in ranks < cut),
 * and, for the group holding rank cut - 1, its start a with the sums before
 * it (c0 = relevant before, n0 = numerator before). */
inline double ap_value(int32_t denominator, double num, double cum_e, int64_t k_nominal,
                       int64_t cut, const RowView &v, int64_t a, double c0, double n0) {
    const int64_t n_rel = v.n_rel;
    if (denominator == DEN_RELEVANT) return n_rel > 0 ? num / (double)n_rel : 0.0;
    if (denominator == DEN_MIN) {
        int64_t d = std::min(k_nominal, n_rel);
        return d > 0 ? num / (double)d : 0.0;
    }
    // "retrieved": divide by the relevant items in the top cut, random only
    // through the tie group straddling the cut-off. Condition on h, the
    // number of its relevant items that land inside the cut
    // (hypergeometric); given h they are uniformly spread over its ranks.
    double value = cum_e > 0.0 ? num / cum_e : 0.0;
    int64_t last = cut - 1;
    if (cut <= 0 || last >= v.K_eff) return value;
    double n = v.ng[last], r = v.rg[last];
    if (!((double)a + n > (double)cut) || !(r > 0.0)) return value;
    double mm = (double)(cut - a);
    double s1 = 0.0, s2 = 0.0;
    for (int64_t p = a; p < cut; ++p) {
        s1 += 1.0 / (double)(p + 1);
        s2 += (double)(p - a) / (double)(p + 1);
    }
    double lo = std::max(0.0, mm - (n - r)), hi = std::min(mm, r);
    double total = 0.0;
    for (double hh = lo; hh <= hi; hh += 1.0) {
        double pmf = hypergeom(n, r, mm, hh);
        double nm = n0 + hh / mm * (1.0 + c0) * s1 +
                    (mm > 1.0 ? hh * (hh - 1.0) / (mm * (mm - 1.0)) : 0.0) * s2;
        double den = c0 + hh;
        if (den > 0.0) total += pmf * nm / den;
    }
    return total;
}

}  // namespace rankk

#endif
