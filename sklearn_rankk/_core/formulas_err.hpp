/* Expected reciprocal rank, exact under ties.
 */
#ifndef SKLEARN_RANKK_FORMULAS_ERR_HPP
#define SKLEARN_RANKK_FORMULAS_ERR_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "_portable.h"
#include "request.hpp"
#include "scratch.hpp"
#include "ties.hpp"

namespace rankk {

/* ERR (Chapelle, Metzler, Zhang and Grinspan, CIKM 2009): the sum over
 * ranks p of R_p / (p + 1) times the product of (1 - R) over the ranks
 * before, R = (2**g - 1) / 2**g_max for a relevant grade g > 0, else 0.
 * Exact under ties: a group of n items starting at rank a puts at offset
 * o a uniformly random member x after a uniformly random o-subset B of
 * the others, so its term is T(o) / (a + o + 1) times the product over
 * the groups before, T(o) = E[R_x prod_B (1 - R)]. One member at a time
 * (v = 1 - R), on means over subsets (convex combinations: no binomial
 * coefficients, no overflow):
 *   M_j(o): mean over o-subsets of the first j members of prod v
 *   G_j(o): mean over (o+1)-subsets B of sum_{x in B} R_x prod_{B - x} v
 *   M_j(o) = (j-o)/j M_{j-1}(o) + o/j v_j M_{j-1}(o-1)
 *   G_j(o) = (j-o-1)/j G_{j-1}(o) + (o+1)/j (R_j M_{j-1}(o) + v_j G_{j-1}(o-1))
 * and T(o) = G_n(o) / (o + 1): O(n min(n, k - a)) per group, or, with
 * many members of R = 0, over the others only (see below). */

/* survival_walk's mixing of the q members with a gain into a group of
 * q + z, at offsets x in [lo, hi) where every j = 1..q is read (q - 1 <= x
 * < z): T[x] = sum_j P_x(j) Gq[j - 1], P_x(1) = p1[x], P_x(j + 1) = P_x(j)
 * (q - j) / (j + 1) (x + 1 - j) / (z - x + j). The offsets side by side
 * (the loop over x inside, vectorised: its divisions 4 at a time with
 * AVX2), each with the same operations in the same order as one at a
 * time, so the same values bit for bit. c: work space. */
RANKK_CLONES inline void err_mix(int64_t q, int64_t z, int64_t lo, int64_t hi,
                                 const double *Gq, const double *p1, double *T,
                                 std::vector<double> &c) {
    const int64_t w = hi - lo;
    c.resize(4 * (size_t)w);
    // x + 1 and z - x of each offset, as doubles: x + 1 - j and z - x + j
    // are then exact sums of whole numbers (the same doubles as converted
    // from integers), and the loop has no integer conversion.
    double *p = c.data(), *g = p + w, *up = g + w, *dn = up + w;
    for (int64_t i = 0; i < w; ++i) {
        p[i] = p1[lo + i];
        g[i] = 0.0;
        up[i] = (double)(lo + i + 1);
        dn[i] = (double)(z - lo - i);
    }
    for (int64_t j = 1; j <= q; ++j) {
        const double gj = Gq[j - 1], cj = (double)(q - j) / (double)(j + 1), jd = (double)j;
        for (int64_t i = 0; i < w; ++i) {
            g[i] += p[i] * gj;
            p[i] *= cj * (up[i] - jd) / (dn[i] + jd);
        }
    }
    for (int64_t i = 0; i < w; ++i) T[lo + i] = g[i];
}

/* The walk behind ERR and the intent-aware gains (formulas_diversity.hpp):
 * the sum over ranks p of place(N_p prod_{before p} V, p), each relevant
 * item carrying a gain N and a survival V (ERR: N = R, V = 1 - R), the
 * others N = 0 and V = 1. weigh(y, N, V) sets them for grade y and says
 * whether the item is relevant; place(x, p) discounts x at 0-based rank p.
 * The recurrence above holds with R_j read as N_j and v_j as V_j. Into o[0]
 * (o[0..c_end) for a curve); members(a, b, straddles, fn): fn(grade) for each
 * member of the tie group at ranks [a, b), those beyond the cut included. */
template <class Weigh, class Place, class Members>
void survival_walk(const RowView &v, Scratch &sc, bool curve, int64_t c_end, double *o,
                   Weigh &&weigh, Place &&place, Members &&members) {
    const int64_t end = std::min(c_end, v.K_eff);
    double survive = 1.0, err = 0.0;
    auto &R = sc.err_r, &V = sc.err_v, &M = sc.err_m, &G = sc.err_t;
    v.groups.each(end, [&](int64_t a, int64_t) {
        const int64_t n = (int64_t)v.ng[a];
        const int64_t b = std::min(a + n, v.K);  // the group's end
        if (n == 1) {
            double rv = 0.0, vv = 1.0;
            weigh(v.grade[a], rv, vv);
            err += place(survive * rv, a);
            survive *= vv;
            if (curve) o[a] = err;
            return;
        }
        R.clear();
        V.clear();
        auto take = [&](double y) {
            double rv = 0.0, vv = 1.0;
            if (weigh(y, rv, vv)) {
                R.push_back(rv);
                V.push_back(vv);
            }
        };
        members(a, b, n > b - a, take);
        const int64_t q = (int64_t)R.size(), z = n - q;
        if (q == 0 && !curve) return;  // no term, the survival unchanged
        const int64_t lim = std::min(n, end - a);  // offsets read
        // M and G over the members R, then count - q members of R = 0,
        // at offsets < width.
        auto recur = [&](int64_t count, int64_t width) {
            M.assign(width, 0.0);
            G.assign(width, 0.0);
            M[0] = 1.0;
            for (int64_t j = 1; j <= count; ++j) {
                const double rj = j <= q ? R[j - 1] : 0.0, vj = j <= q ? V[j - 1] : 1.0,
                             dj = (double)j;
                for (int64_t x = std::min(j, width - 1); x >= 0; --x) {
                    const double xd = (double)x;
                    if (x <= j - 1)
                        G[x] = (dj - xd - 1.0) / dj * G[x] +
                               (xd + 1.0) / dj * (rj * M[x] + (x > 0 ? vj * G[x - 1] : 0.0));
                    if (x >= 1) M[x] = (dj - xd) / dj * M[x] + xd / dj * vj * M[x - 1];
                }
            }
        };
        const double *T = nullptr;  // T[x] (x + 1): G of the whole group
        if (q > 0 && z < 32) {
            recur(n, lim);
            T = G.data();
        } else if (q > 0) {
            /* Many members of R = 0 (a constant ranker's row): the
             * recurrence over the q others only, then each (x+1)-subset
             * of the group mixed over the number j of those q it holds,
             * hypergeometric P_x(j) = C(q, j) C(z, x+1-j) / C(n, x+1):
             * O(q min(q, k - a) + q (k - a)) instead of O(n (k - a)). */
            recur(q, std::min(q, lim));
            M.assign(lim, 0.0);  // M now holds G of the whole group
            double p1 = (double)q / (double)n;  // P_x(1) while x < z
            // Offsets q - 1 <= x < z read j = 1..q: all of them at once
            // (err_mix), from P_x(1) of each; the others one by one.
            const int64_t bulk_lo = q - 1, bulk_hi = std::min(lim, z);
            auto &P1 = sc.err_p;
            P1.resize((size_t)std::max<int64_t>(bulk_hi, 0));
            for (int64_t x = 0; x < bulk_hi; ++x) {
                P1[x] = p1;
                p1 *= (double)(z - x) / (double)(x + 1) * (double)(x + 2) / (double)(n - x - 1);
            }
            if (bulk_lo < bulk_hi)
                err_mix(q, z, bulk_lo, bulk_hi, G.data(), P1.data(), M.data(), sc.err_c);
            for (int64_t x = 0; x < lim; ++x) {
                if (x >= bulk_lo && x < bulk_hi) continue;  // (done above)
                int64_t j = std::max<int64_t>(1, x + 1 - z);
                const int64_t hi = std::min<int64_t>(q, x + 1);
                // P_x(1): past bulk_hi only x = z reads it, p1 by then
                const double px1 = x < bulk_hi ? P1[x] : p1;
                double p = j == 1 ? px1
                                  : hypergeom((double)n, (double)q, (double)(x + 1), (double)j);
                double g = 0.0;
                for (; j <= hi; ++j) {
                    g += p * G[j - 1];
                    p *= (double)(q - j) / (double)(j + 1) * (double)(x + 1 - j) /
                         (double)(z - x + j);
                }
                M[x] = g;
            }
            T = M.data();
        }
        for (int64_t x = 0; x < lim; ++x) {
            if (T) err += place(survive * T[x] / (double)(x + 1), a + x);
            if (curve) o[a + x] = err;
        }
        for (double vv : V) survive *= vv;
    });
    if (curve)
        for (int64_t c = end; c < c_end; ++c) o[c] = err;
    else
        o[0] = err;
}

/* ERR of one row into o[0] (o[0..c_end) for a curve). row_top: the row's
 * largest relevant grade (for max_grade=None); t: the relevance threshold. */
template <class Members>
void err_value(const Request &r, const RowView &v, Scratch &sc, double row_top, double t,
               bool curve, int64_t c_end, double *o, Members &&members) {
    const double gmax = r.max_grade == r.max_grade ? r.max_grade : row_top;
    const double low = std::exp2(-gmax);
    auto weigh = [&](double y, double &rv, double &vv) {
        rv = (y > t && y > 0.0) ? std::exp2(y - gmax) - low : 0.0;
        vv = 1.0 - rv;
        return rv > 0.0;
    };
    auto place = [](double x, int64_t p) { return x / (double)(p + 1); };
    survival_walk(v, sc, curve, c_end, o, weigh, place, members);
}

}  // namespace rankk

#endif
