/* Measures that read judgments: bpref and inferred AP, exact under ties
 * (rbp_resid and the unjudged share are linear in each rank's expected
 * unjudged indicator: the driver sums them).
 */
#ifndef SKLEARN_RANKK_FORMULAS_JUDGED_HPP
#define SKLEARN_RANKK_FORMULAS_JUDGED_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "_portable.h"
#include "ties.hpp"

namespace rankk {

/* f(a, b, n, r, u, wn, wp) for each tie group of ranks [0, end): ranks
 * [a, b) (b - a < n when it straddles end), n items, r relevant, u judged
 * non-relevant, wn unjudged not pooled, wp unjudged pooled. */
template <class F>
void each_judged_group(const RowView &v, int64_t end, F &&f) {
    v.groups.each(end, [&](int64_t a, int64_t b) {
        const double n = v.ng[a], r = v.rg[a], wn = v.w_np[a], wp = v.w_pool[a];
        f(a, b, n, r, n - r - wn - wp, wn, wp);
    });
}

// bpref's term of a relevant item with nb judged non-relevant items above.
inline double bpref_term(double nb, double n_rel, double den) {
    return den > 0.0 ? 1.0 - std::min(nb, n_rel) / den : 1.0;
}

/* bpref (Buckley & Voorhees 2004, trec_eval's m_bpref.c): over the
 * retrieved relevant items, 1 - min(nb, R) / min(N, R), nb the judged
 * non-relevant items ranked above, N those of the row; divided by R. Exact
 * under ties: inside a group with u judged non-relevant items, the number of
 * them above one relevant item is uniform on 0..u (its order among them is
 * uniform), and groups are independent. */
inline double bpref_value(const RowView &v, int64_t end, double n_rel, double n_nonrel) {
    const double den = std::min(n_nonrel, n_rel);
    double total = 0.0, nb0 = 0.0;
    each_judged_group(v, end, [&](int64_t a, int64_t b, double n, double r, double u, double,
                                  double) {
        if (r > 0.0) {
            if ((double)(b - a) == n) {  // the whole group is ranked
                double sum = 0.0;
                for (double x = 0.0; x <= u; x += 1.0) sum += bpref_term(nb0 + x, n_rel, den);
                total += r * sum / (u + 1.0);
            } else {  // offsets [0, b - a) of the group: condition on the offset
                for (int64_t o = 0; o < b - a; ++o) {
                    const double oo = (double)o;
                    for (double y = std::max(0.0, oo - (n - 1.0 - u)); y <= std::min(oo, u);
                         y += 1.0)
                        total += r / n * hypergeom<lchoose_int>(n - 1.0, u, oo, y) *
                                 bpref_term(nb0 + y, n_rel, den);
                }
            }
        }
        nb0 += u;
    });
    return n_rel > 0.0 ? total / n_rel : 0.0;
}

constexpr double INFAP_EPSILON = 0.00001;

// infAP's term of a relevant item at 0-based rank j with rb relevant, nb
// judged non-relevant and ub pooled-unjudged items above (m_infap.c):
// 1/(j+1) + (j/(j+1)) ((rb+nb+ub)/j) ((rb+eps)/(rb+nb+2eps)).
inline double infap_term(double j, double rb, double nb, double ub) {
    return (1.0 + (rb + nb + ub) * (rb + INFAP_EPSILON) / (rb + nb + 2.0 * INFAP_EPSILON)) /
           (j + 1.0);
}

/* infAP's terms of the offsets [0, w) of a mixed group of n side by side:
 * into s[o], sum over x of hx_o(x) sum over y of hy_{o-x}(y) infap_term(a
 * + o, r0 + x, n0 + y, u0 + (o - x - y) wp / wu), the relevant (x) and
 * judged non-relevant (y) items above, as infap_value reads them; with wu
 * = 0, y = o - x and the unjudged term is u0. HX[x n + o] and HY[y D + d]
 * (d = o - x < D) hold the weights, 0 outside their supports (PmfTables:
 * for y, d in [y, y + wi], wi the unjudged others);
 * UB[y D + d] the unjudged term, u0 + (d - y) wp / wu (o - x - y is d - y:
 * whole numbers, exact in doubles).
 * The loop over o is inside (vectorised: 4 divisions at a time with AVX2);
 * each offset sums the same terms in the same order as one at a time,
 * plus zero-weight terms (finite, so they add +0 or -0: no change), so the
 * sums are the same bit for bit (with the project's flags: no contraction
 * into FMA, which the AVX2 clone does not enable). O(r min(w, D) min(u +
 * 1, wi + 1)), as one offset at a time. od[o] = o, jd[o] = a + o (as
 * doubles: no integer conversion in the loop); in: work space of w. */
RANKK_CLONES inline void infap_lanes(int64_t w, int64_t n, int64_t r, int64_t u, int64_t D,
                                     bool unjudged, double r0, double n0, double u0,
                                     const double *HX, const double *HY, const double *UB,
                                     const double *od, const double *jd, double *in,
                                     double *s) {
    for (int64_t o = 0; o < w; ++o) s[o] = 0.0;
    for (int64_t x = 0; x < r; ++x) {
        // the offsets where x is in the support: x <= o < x + D
        const int64_t lo = x, hi = std::min(w, x + D);
        if (lo >= hi) break;
        const double xd = (double)x, rb = r0 + xd;
        const double *hx = HX + x * n;
        if (!unjudged) {  // y = o - x: every other item above is judged
            for (int64_t o = lo; o < hi; ++o)
                s[o] += hx[o] * infap_term(jd[o], rb, n0 + (od[o] - xd), u0);
            continue;
        }
        for (int64_t o = lo; o < hi; ++o) in[o] = 0.0;
        for (int64_t y = 0; y <= u; ++y) {
            const double yd = (double)y, nb = n0 + yd;
            // hy[d], ub[d]: the weight of y and the unjudged term at d = o - x,
            // the weight 0 unless y <= d <= y + wi (wi = D - 1 - u: the
            // unjudged others): only those offsets are read
            const double *hy = HY + y * D, *ub = UB + y * D;
            const int64_t olo = std::max(lo, x + y), ohi = std::min(hi, x + y + D - u);
            if (olo >= hi) break;  // (and for every larger y)
            for (int64_t o = olo; o < ohi; ++o)
                in[o] += hy[o - x] * infap_term(jd[o], rb, nb, ub[o - x]);
        }
        for (int64_t o = lo; o < hi; ++o) s[o] += hx[o] * in[o];
    }
}

/* Inferred AP (Yilmaz & Aslam 2006, trec_eval's m_infap.c); divided by R.
 * Exact under ties: for a relevant item at offset o of its group, sum over
 * the relevant (x) and judged non-relevant (y) items among the o before it:
 * x is hypergeometric (r - 1 relevant among the n - 1 others), and given x,
 * y is (u judged non-relevant among the u + wu non-relevant others, o - x of
 * them above); the term is linear in the pooled-unjudged count, which enters
 * through its conditional mean. The weights come from hypergeom_pmf (ratio
 * chains, no lgamma): one chain per offset for x and one per o - x for y,
 * kept as tables (PmfTables pt: tie groups of one shape recur) for
 * infap_lanes. O(n r min(u, wu)) a group either way; groups whose tables
 * would pass 2**20 weights, or with one or two unjudged items, take the
 * offsets one at a time (the same sums). hx, hy, t: work buffers. */
inline double infap_value(const RowView &v, int64_t end, double n_rel, std::vector<double> &hx,
                          std::vector<double> &hy, std::vector<double> &t, PmfTables &pt) {
    double total = 0.0, r0 = 0.0, n0 = 0.0, u0 = 0.0;
    each_judged_group(v, end, [&](int64_t a, int64_t b, double n, double r, double u, double wn,
                                  double wp) {
        if (r > 0.0) {
            if (n == 1.0) {
                total += infap_term((double)a, r0, n0, u0);
            } else {
                const double wu = wn + wp;  // unjudged among the others
                const int64_t ni = (int64_t)n, ri = (int64_t)r, ui = (int64_t)u, wi = (int64_t)wu;
                const int64_t w = b - a, D = ni - ri + 1;  // offsets; o - x in [0, D)
                const int64_t ny = wi > 0 ? ui + 1 : 0;
                // The tables, unless they would be large, or but one or two
                // unjudged others leave each y a run of one or two offsets
                // (then the loop's overhead outweighs its terms: a group of
                // 1,600 with 600 relevant and one unjudged item took 26 ms
                // by the tables, 16 ms one offset at a time).
                if (ri * ni <= ((int64_t)1 << 20) && ny * D <= ((int64_t)1 << 20) &&
                    (wi == 0 || wi > 2)) {
                    pt.trim();
                    const double *HX = pt.by_marked(ni - 1, ri - 1, hx);
                    const double *HY = wi > 0 ? pt.by_marked(ui + wi, ui, hy) : nullptr;
                    t.resize(4 * (size_t)w + (size_t)(ny * D));
                    double *od = t.data(), *jd = od + w, *in = jd + w, *s = in + w, *UB = s + w;
                    for (int64_t o = 0; o < w; ++o) {
                        od[o] = (double)o;
                        jd[o] = (double)(a + o);
                    }
                    for (int64_t y = 0; y < ny; ++y)  // (d in [y, y + wi]: those read)
                        for (int64_t d = y; d < std::min(D, y + wi + 1); ++d)
                            UB[y * D + d] = u0 + ((double)d - (double)y) * wp / wu;
                    infap_lanes(w, ni, ri, ui, D, wi > 0, r0, n0, u0, HX, HY, UB, od, jd, in, s);
                    for (int64_t o = 0; o < w; ++o) total += r / n * s[o];
                } else {
                    for (int64_t o = 0; o < w; ++o) {
                        const double oo = (double)o;
                        const int64_t xlo = hypergeom_pmf(ni - 1, ri - 1, o, hx);
                        double sum = 0.0;
                        for (size_t i = 0; i < hx.size(); ++i) {
                            const int64_t x = xlo + (int64_t)i;
                            if (hx[i] == 0.0) continue;
                            if (wi == 0) {  // the others above are the rest: y = o - x
                                sum += hx[i] * infap_term((double)(a + o), r0 + (double)x,
                                                          n0 + (oo - (double)x), u0);
                                continue;
                            }
                            const int64_t ylo = hypergeom_pmf(ui + wi, ui, o - x, hy);
                            double inner = 0.0;
                            for (size_t j = 0; j < hy.size(); ++j) {
                                const double y = (double)(ylo + (int64_t)j);
                                const double z = oo - (double)x - y;
                                inner += hy[j] * infap_term((double)(a + o), r0 + (double)x,
                                                            n0 + y, u0 + z * wp / wu);
                            }
                            sum += hx[i] * inner;
                        }
                        total += r / n * sum;
                    }
                }
            }
        }
        r0 += r;
        n0 += u;
        u0 += wp;
    });
    return n_rel > 0.0 ? total / n_rel : 0.0;
}

}  // namespace rankk

#endif
