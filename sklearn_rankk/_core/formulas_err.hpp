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

/* The weights of survival_walk's mixing of the q members with a gain into
 * a group of n = q + z (z >= 1): T[x] = sum_j P_x(j) Gq[j - 1] at offset
 * x, P_x(j) = C(q, j) C(z, x + 1 - j) / C(n, x + 1), the hypergeometric
 * probability that the x + 1 first members hold j of the q. Into
 * W[(j - 1) w + x - x0] for the offsets x in [x0, x0 + w) and j = 1..q,
 * 0 outside x's support, so that T[x] sums them all in the order of j (an
 * added 0 leaves a sum's bits alone). P_x(1) from P1 (x <= z), the next
 * from P_x(j + 1) = P_x(j) (q - j) / (j + 1) (x + 1 - j) / (z - x + j);
 * offsets x > z, whose support starts at j = x + 1 - z > 1, from
 * hypergeom. The offsets of [q - 1, z), which read every j, side by side
 * (the loop over x inside, vectorised: its divisions 4 at a time with
 * AVX2); each with the same operations in the same order as one at a
 * time, so the same values bit for bit. */
RANKK_CLONES inline void err_weights(int64_t q, int64_t z, int64_t x0, int64_t w,
                                     const double *P1, double *W, std::vector<double> &c) {
    const int64_t n = q + z, x1 = x0 + w;
    std::fill(W, W + q * w, 0.0);
    // the offsets that read every j: [blo, bhi)
    const int64_t blo = std::max(x0, q - 1), bhi = std::max(blo, std::min(x1, z)), nb = bhi - blo;
    // x + 1 and z - x of each, as doubles: x + 1 - j and z - x + j are then
    // exact sums of whole numbers (the same doubles as converted from
    // integers), and the loop has no integer conversion
    c.resize(2 * (size_t)nb);
    double *up = c.data(), *dn = up + nb;
    for (int64_t i = 0; i < nb; ++i) {
        up[i] = (double)(blo + i + 1);
        dn[i] = (double)(z - blo - i);
    }
    if (nb > 0) {
        double *row = W + blo - x0;  // row j - 1 of the offsets blo..bhi
        for (int64_t i = 0; i < nb; ++i) row[i] = P1[blo + i];
        for (int64_t j = 1; j < q; ++j, row += w) {
            const double cj = (double)(q - j) / (double)(j + 1), jd = (double)j;
            double *next = row + w;
            for (int64_t i = 0; i < nb; ++i)
                next[i] = row[i] * (cj * (up[i] - jd) / (dn[i] + jd));
        }
    }
    for (int64_t x = x0; x < x1; ++x) {
        if (x >= blo && x < bhi) continue;  // (done above)
        int64_t j = std::max<int64_t>(1, x + 1 - z);
        const int64_t hi = std::min<int64_t>(q, x + 1);
        double p = j == 1 ? P1[x] : hypergeom((double)n, (double)q, (double)(x + 1), (double)j);
        for (; j <= hi; ++j) {
            W[(j - 1) * w + x - x0] = p;
            p *= (double)(q - j) / (double)(j + 1) * (double)(x + 1 - j) / (double)(z - x + j);
        }
    }
}

/* T[i] = sum over j = 1..q of W[(j - 1) stride + i] Gq[j - 1], in the
 * order of j, for i < w (err_weights' layout): vectorised over i. Offset
 * x's weights are 0 past j = x + 1: the caller passes q = min(q, x + 1)
 * of the last x, and Gq need hold only that many. */
RANKK_CLONES inline void err_mix(int64_t q, int64_t stride, int64_t w, const double *W,
                                 const double *Gq, double *T) {
    for (int64_t i = 0; i < w; ++i) T[i] = 0.0;
    for (int64_t j = 1; j <= q; ++j) {
        const double gj = Gq[j - 1];
        const double *row = W + (j - 1) * stride;
        for (int64_t i = 0; i < w; ++i) T[i] += row[i] * gj;
    }
}

/* ERR's terms of a tie group at offsets x < lim, place(survive T[x] /
 * (x + 1), a + x) with place(y, p) = y / (p + 1): t[x] = survive T[x] /
 * w1[x] / wa[x], w1[x] = x + 1 and wa[x] = a + x + 1 as doubles (whole
 * numbers: the same doubles as converted from integers), so the loop has
 * no integer conversion and vectorises (its divisions 4 at a time with
 * AVX2): the same operations as one at a time, the same bits. */
RANKK_CLONES inline void err_places(const double *T, int64_t lim, double survive,
                                    const double *w1, const double *wa, double *t) {
    for (int64_t x = 0; x < lim; ++x) t[x] = survive * T[x] / w1[x] / wa[x];
}

/* The ratios of survival_walk's recurrence for member j at x = 0..top:
 * (j - x - 1) / j, (x + 1) / j, (j - x) / j and x / j at [4 x .. 4 x + 3],
 * each one division, as the recurrence spells them. Kept for j <=
 * ERR_RATIO_ROWS (row j, x = 0..j, at 4 ((j - 1) (j + 2) / 2), made once
 * and in order), else made into buf. */
constexpr int64_t ERR_RATIO_ROWS = 128;
inline const double *err_ratios(std::vector<double> &kept, std::vector<double> &buf, int64_t j,
                                int64_t top) {
    auto fill = [](double *c, int64_t j, int64_t top) {
        const double dj = (double)j;
        for (int64_t x = 0; x <= top; ++x) {
            const double xd = (double)x;
            c[4 * x] = (dj - xd - 1.0) / dj;
            c[4 * x + 1] = (xd + 1.0) / dj;
            c[4 * x + 2] = (dj - xd) / dj;
            c[4 * x + 3] = xd / dj;
        }
    };
    if (j > ERR_RATIO_ROWS) {
        buf.resize(4 * (size_t)(top + 1));
        fill(buf.data(), j, top);
        return buf.data();
    }
    // row i (x = 0..i) starts at 4 ((i - 1) (i + 2) / 2)
    auto start = [](int64_t i) { return 4 * (size_t)((i - 1) * (i + 2) / 2); };
    if (kept.size() <= start(j))  // the rows up to j not kept yet, in order
        for (int64_t i = 1; i <= j; ++i) {
            if (start(i) < kept.size()) continue;
            kept.resize(start(i) + 4 * (size_t)(i + 1));
            fill(kept.data() + start(i), i, i);
        }
    return kept.data() + start(j);
}

// survival_walk's mixing weights: kept per group shape up to ERR_KEPT
// weights, else made ERR_CHUNK at a time
constexpr int64_t ERR_KEPT = (int64_t)1 << 16, ERR_CHUNK = (int64_t)1 << 14;

/* The walk behind ERR and the intent-aware gains (formulas_diversity.hpp):
 * the sum over ranks p of place(N_p prod_{before p} V, p), each relevant
 * item carrying a gain N and a survival V (ERR: N = R, V = 1 - R), the
 * others N = 0 and V = 1. weigh(y, N, V) sets them for grade y and says
 * whether the item is relevant; place(x, p) discounts x at 0-based rank p;
 * places(T, lim, survive, a, t) sets t[x] = place(survive T[x] / (x + 1),
 * a + x) for the offsets x < lim of a tie group at rank a (the same bits).
 * The recurrence above holds with R_j read as N_j and v_j as V_j. Into o[0]
 * (o[0..c_end) for a curve); members(a, b, straddles, fn): fn(grade) for each
 * member of the tie group at ranks [a, b), those beyond the cut included. */
template <class Weigh, class Place, class Places, class Members>
void survival_walk(const RowView &v, Scratch &sc, bool curve, int64_t c_end, double *o,
                   Weigh &&weigh, Place &&place, Places &&places, Members &&members) {
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
                const double rj = j <= q ? R[j - 1] : 0.0, vj = j <= q ? V[j - 1] : 1.0;
                const int64_t top = std::min(j, width - 1);
                const double *c = err_ratios(sc.err_ratio, sc.err_c, j, top);
                for (int64_t x = top; x >= 0; --x) {
                    if (x <= j - 1)
                        G[x] = c[4 * x] * G[x] +
                               c[4 * x + 1] * (rj * M[x] + (x > 0 ? vj * G[x - 1] : 0.0));
                    if (x >= 1) M[x] = c[4 * x + 2] * M[x] + c[4 * x + 3] * vj * M[x - 1];
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
            M.resize(lim);  // M now holds G of the whole group
            // P_x(1) for x = 0..min(upto, z)
            auto &P1 = sc.err_p;
            auto first = [&](int64_t upto) {
                const int64_t last = std::min(upto, z);
                P1.resize((size_t)last + 1);
                double p1 = (double)q / (double)n;
                for (int64_t x = 0; x <= last; ++x) {
                    P1[x] = p1;
                    if (x < last)
                        p1 *= (double)(z - x) / (double)(x + 1) * (double)(x + 2) /
                              (double)(n - x - 1);
                }
            };
            // The weights of every offset, kept by (q, z) while few (the
            // groups of a row of few distinct scores repeat their shapes),
            // else, and for a group the cut-off reads in part (lim < n: a
            // kept table would cost O(q n) for O(q lim) weights), made
            // ERR_CHUNK weights at a time for the offsets read.
            if (q * n <= ERR_KEPT && lim == n) {
                sc.err_tab.trim();
                const double *W = sc.err_tab.get({q, z}, (size_t)(q * n), [&](double *t) {
                    first(n - 1);
                    err_weights(q, z, 0, n, P1.data(), t, sc.err_c);
                });
                err_mix(std::min(q, lim), n, lim, W, G.data(), M.data());
            } else {
                first(lim - 1);
                const int64_t step = std::max<int64_t>(1, ERR_CHUNK / q);
                auto &W = sc.err_w;
                for (int64_t x0 = 0; x0 < lim; x0 += step) {
                    const int64_t w = std::min(step, lim - x0);
                    W.resize((size_t)(q * w));
                    err_weights(q, z, x0, w, P1.data(), W.data(), sc.err_c);
                    err_mix(std::min(q, x0 + w), w, w, W.data(), G.data(), M.data() + x0);
                }
            }
            T = M.data();
        }
        if (T) {  // the terms first (vectorised), then their sum in order
            auto &t = sc.err_c;
            t.resize((size_t)lim);
            places(T, lim, survive, a, t.data());
            for (int64_t x = 0; x < lim; ++x) {
                err += t[x];
                if (curve) o[a + x] = err;
            }
        } else {
            for (int64_t x = 0; x < lim; ++x) o[a + x] = err;  // (a curve)
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
    auto &whole = sc.whole;
    for (int64_t i = (int64_t)whole.size(); i <= v.K; ++i) whole.push_back((double)i);
    auto places = [&](const double *T, int64_t lim, double survive, int64_t a, double *t) {
        err_places(T, lim, survive, whole.data() + 1, whole.data() + a + 1, t);
    };
    survival_walk(v, sc, curve, c_end, o, weigh, place, places, members);
}

}  // namespace rankk

#endif
