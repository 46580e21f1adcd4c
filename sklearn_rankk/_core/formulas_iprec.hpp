/* Interpolated precision (trec_eval's iprec_at_recall, 11pt_avg), exact
 * under ties.
 */
#ifndef SKLEARN_RANKK_FORMULAS_IPREC_HPP
#define SKLEARN_RANKK_FORMULAS_IPREC_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "_portable.h"
#include "scratch.hpp"
#include "ties.hpp"

namespace rankk {

/* The interpolated precision at recall point c (c relevant items) of a
 * ranking: the largest i / rank_i over its relevant items i >= max(c, 1)
 * (i counts the relevant items down to rank_i), 0 if fewer than c relevant
 * items are retrieved. trec_eval 10.0's recall point of level x is
 * lround(x |R|).
 *
 * Exact ties. The tie groups are independent: group g (ranks a+1..a+n, r
 * relevant, c0 relevant items before it) puts its relevant items at a
 * uniformly random r-subset of its n ranks, so its k-th relevant item
 * (i = c0 + k) at local position q has precision (c0 + k) / (a + q). The
 * value is max_g X_g, X_g the largest precision of the counted items of g
 * (k >= L = max(1, c - c0)), and
 *   E[max_g X_g] = D + integral over [D, 1] of (1 - prod_g P(X_g < x)) dx,
 * D the largest value some group always reaches ((c0 + r) / (a + n), its
 * last relevant item at its last rank; a group with n = 1 or r = n is
 * constant). P(X_g < x) is the probability that the group's lattice path
 * keeps every counted item below the line N = x rho: a backward DP over the
 * (position, relevant count) band of the group, H[k][w] (w = non-relevant
 * items so far), O(r (n - r)). It is evaluated only at the group's own
 * support points (c0 + k) / (a + q) where the group can attain its maximum,
 * in decreasing order, and consecutive points share work: lowering x raises
 * the bounds of some items only, and only the DP rows below the highest
 * changed item are computed again. One pass gives every needed L (every
 * recall level) at once. Worst case O(r^2 (n - r)^2) time and
 * O(n min(r, n - r)) memory per tie group of n items, r of them relevant;
 * O(n) for a ranking without ties. */

// trec_eval 10.0's recall point of level x: lround(x |R|) relevant items.
inline int64_t recall_point(double x, int64_t n_rel) {
    return (int64_t)std::lround(x * (double)n_rel);
}

/* One anti-diagonal of iprec_sweep: the cells of rows klo..khi, those up to
 * kmid with two terms, g the diagonal, g1 the next. With Short (at most 8
 * cells: most diagonals of a group with few relevant items), plain scalar
 * loops: the empty asm statement keeps the compiler from vectorising them,
 * whose set-up costs more than such a diagonal. The same operations on the
 * same operands either way, so the same bits. */
#if defined(__GNUC__)
#define RANKK_SCALAR_LOOP() __asm__("")
#else
#define RANKK_SCALAR_LOOP() ((void)0)
#endif
template <bool Short>
RANKK_ALWAYS_INLINE void iprec_diagonal(double *__restrict g, const double *__restrict g1,
                                        bool by_v, const double *rk, double iv, int64_t d,
                                        int64_t klo, int64_t kmid, int64_t khi) {
    if (!by_v) {  // H[k][v] at g[k]: H[k + 1][v] at g1[k + 1], H[k][v + 1] at g1[k]
        int64_t k = klo;
        for (; k <= kmid; ++k) {
            if constexpr (Short) RANKK_SCALAR_LOOP();
            const double p = rk[k] * iv;
            g[k] = p * g1[k + 1] + (1.0 - p) * g1[k];
        }
        for (; k <= khi; ++k) {
            if constexpr (Short) RANKK_SCALAR_LOOP();
            const double p = rk[k] * iv;
            g[k] = (1.0 - p) * g1[k];
        }
    } else {  // H[k][v] at g[v]: H[k + 1][v] at g1[v], H[k][v + 1] at g1[v + 1]
        // k = d - v: first k = khi down to past kmid, then the rest
        const int64_t vmid = d - std::max(kmid, klo - 1);
        int64_t v = d - khi;
        for (; v < vmid; ++v) {
            if constexpr (Short) RANKK_SCALAR_LOOP();
            const double p = rk[d - v] * iv;
            g[v] = (1.0 - p) * g1[v + 1];
        }
        for (; v <= d - klo; ++v) {
            if constexpr (Short) RANKK_SCALAR_LOOP();
            const double p = rk[d - v] * iv;
            g[v] = p * g1[v] + (1.0 - p) * g1[v + 1];
        }
    }
}

/* The DP cells of items k = lmin..kt (rows) and v <= wmax (non-relevant
 * items so far) that a lowered line changes (see iprec_group_events), by
 * anti-diagonal d = k + v from the last: cell (k, v) at H[d RW + k], or at
 * H[d RW + v] with by_v (the shorter of the two: RW = r + 1 or n - r + 2),
 * rk[k] = r - k, inv[i] = 1 / i. Row k is read only from its own bound on
 * (v >= bound[k] - k: an item k placed below it never counts), so its cells
 * below are left alone; the bounds grow with k, so on diagonal d the rows
 * read are k in [max(lmin, d - wmax), K] (K the last with max(k, bound[k])
 * <= d), and those k <= kr (the last with bound[k + 1] <= d + 1) may place
 * their next relevant item at d + 1. Each cell is
 *   H[k][v] = p H[k + 1][v] + (1 - p) H[k][v + 1],  p = (r - k) / (n - d),
 * with H[k + 1][v] read as 0 past kr ((1 - p) H[k][v + 1] alone: the same
 * bits, every term >= +0). */
RANKK_CLONES inline void iprec_sweep(double *H, int64_t RW, bool by_v, const double *rk,
                                     const double *inv, int64_t n, const int64_t *bound,
                                     int64_t lmin, int64_t kt, int64_t wmax) {
    if (kt < lmin) return;
    int64_t K = kt, kr = kt;
    const int64_t dlo = std::max(lmin, bound[lmin]);
    for (int64_t d = kt + wmax; d >= dlo; --d) {
        while (K >= lmin && std::max(K, bound[K]) > d) --K;
        while (kr >= lmin && bound[kr + 1] > d + 1) --kr;
        const int64_t klo = std::max(lmin, d - wmax), khi = std::min(kt, K);
        if (klo > khi) continue;
        double *g = H + d * RW;
        const double *g1 = H + (d + 1) * RW;
        const int64_t kmid = std::min(kr, khi);
        if (khi - klo < 8)  // at most 8 cells
            iprec_diagonal<true>(g, g1, by_v, rk, inv[n - d], d, klo, kmid, khi);
        else
            iprec_diagonal<false>(g, g1, by_v, rk, inv[n - d], d, klo, kmid, khi);
    }
}

/* The events of one random group (1 < n, 0 < r < n) for each L of out.ls
 * (sorted, 1 <= L <= r), at its support points x > floor: P(X_g < x) with
 * the items k >= L counted, into out.x and out.cdf.
 *
 * Lowering x past a support point forbids item k the positions below its
 * new bound. That changes H[j][v] only for rows j < k and columns v (non-
 * relevant items so far) that can still reach the forbidden positions,
 * v <= bound - 1 - k, and row j is read only from its own bound on; every
 * other entry, and the suffix sums of each P(X_g < x) beyond those
 * columns, are kept. */
inline void iprec_group_events(const IprecGroup &g, double floor, IprecWork &w,
                               IprecEvents &out) {
    const int64_t a = g.a, n = g.n, r = g.r, c0 = g.c0, nw = n - r + 1;
    const std::vector<int64_t> &ls = out.ls;
    const int64_t lmin = ls.front();
    const size_t n_ls = ls.size();
    out.x.clear();
    out.cdf.clear();
    // Support points where the group can attain its maximum: item k at
    // position q (k <= q <= n - r + k) with every later item able to stay
    // at or below the line through the origin and (a + q, c0 + k), above
    // the floor.
    auto &cells = w.cells;
    cells.clear();
    for (int64_t k = lmin; k <= r; ++k)
        for (int64_t q = k; q <= n - r + k; ++q)
            if ((r - k) * (a + q) <= (n - q) * (c0 + k) &&
                (double)(c0 + k) > floor * (double)(a + q))
                cells.push_back({c0 + k, a + q});
    std::sort(cells.begin(), cells.end(), [](const auto &u, const auto &v) {
        return u.first * v.second > v.first * u.second;  // by ratio, decreasing
    });
    // P(the L-th relevant item at position L + v), v = 0..n - r.
    w.pmf_tab.trim();
    w.pmf.resize(n_ls);
    for (size_t i = 0; i < n_ls; ++i) {
        const int64_t L = ls[i];
        w.pmf[i] = w.pmf_tab.get({n, r, L}, (size_t)nw, [&](double *t) {
            for (int64_t v = 0; v < nw; ++v)
                t[v] = nth_marked_at((double)n, (double)r, (double)L, (double)(L + v));
        });
    }
    // H[k][v]: P(every later item stays below the line), after position
    // d = k + v holding k relevant items, stored by anti-diagonal d (at
    // d RW + k, or d RW + v where n - r < r: the shorter): the recurrence
    // reads only diagonal d + 1, so the items of one diagonal are
    // independent. suffix[i][v]: sum over v' >= v of the terms of
    // P(X_g < x) for L = ls[i].
    auto &H = w.H;  // v = nw: 0 (no position left); d < k: never read
    const bool by_v = nw < r;
    const int64_t RW = by_v ? nw + 1 : r + 1;
    H.assign((size_t)((n + 2) * RW), 1.0);
    for (int64_t k = 0; k <= r; ++k) H[(k + nw) * RW + (by_v ? nw : k)] = 0.0;
    w.rk.resize((size_t)r + 1);
    for (int64_t k = 0; k <= r; ++k) w.rk[k] = (double)(r - k);
    w.inv.resize(n + 1);
    for (int64_t i = 1; i <= n; ++i) w.inv[i] = 1.0 / (double)i;
    auto &suffix = w.suffix;
    suffix.assign(n_ls * (nw + 1), 0.0);
    for (size_t i = 0; i < n_ls; ++i)
        for (int64_t v = nw - 1; v >= 0; --v)
            suffix[i * (nw + 1) + v] = w.pmf[i][v] + suffix[i * (nw + 1) + v + 1];
    auto &bound = w.bound;
    bound.assign(r + 2, 0);
    for (size_t s = 0; s < cells.size();) {
        const int64_t num = cells[s].first, den = cells[s].second;
        size_t e = s + 1;
        while (e < cells.size() && cells[e].first * den == num * cells[e].second) ++e;
        // Item k below the line x = num / den: (c0 + k) den < num (a + q),
        // at q >= bound[k] = floor((c0 + k) den / num) + 1 - a. The bounds
        // only grow as x falls; one below 1 allows every position, as 0
        // does, so a bound moves (one division) only once it passes 0.
        int64_t hi = 0, wmax = -1;
        for (int64_t k = lmin; k <= r; ++k) {
            if ((c0 + k) * den >= num * (bound[k] + a)) {
                const int64_t u = (c0 + k) * den / num + 1 - a;
                bound[k] = u;
                hi = k;
                wmax = std::max(wmax, u - 1 - k);
            }
        }
        wmax = std::min(wmax, nw - 1);
        if (wmax >= 0)
            iprec_sweep(H.data(), RW, by_v, w.rk.data(), w.inv.data(), n, bound.data(), lmin,
                        std::min(hi - 1, r - 1), wmax);
        out.x.push_back((double)num / (double)den);
        for (size_t i = 0; i < n_ls; ++i) {
            const int64_t L = ls[i];
            // H[L][v] at row[v step]
            const double *row = &H[L * RW + (by_v ? 0 : L)];
            const int64_t step = by_v ? RW + 1 : RW;
            double *suf = &suffix[i * (nw + 1)];
            // P(X_g < x) = the terms from item L's bound on: suf[lo].
            const int64_t lo = std::min(std::max<int64_t>(0, bound[L] - L), nw);
            for (int64_t v = wmax; v >= lo; --v) suf[v] = w.pmf[i][v] * row[v * step] + suf[v + 1];
            out.cdf.push_back(suf[lo]);
        }
        s = e;
    }
}

/* The interpolated precision of a row at each recall point of cs (sorted,
 * distinct), into out. groups: the tie groups holding relevant retrieved
 * items, in rank order (one per rank without exact ties); n_rel_ret:
 * relevant retrieved items. */
inline void iprec_values(const std::vector<IprecGroup> &groups, int64_t n_rel_ret,
                         const std::vector<int64_t> &cs, std::vector<double> &out,
                         IprecWork &w) {
    out.assign(cs.size(), 0.0);
    if (n_rel_ret == 0) return;
    // D of each recall point: the largest value some counted group always
    // reaches, (c0 + r) / (a + n) (its last relevant item at its last rank).
    auto &D = w.D;
    D.assign(cs.size(), 0.0);
    for (size_t ci = 0; ci < cs.size(); ++ci) {
        const int64_t cc = std::max<int64_t>(cs[ci], 1);
        for (const IprecGroup &g : groups)
            if (g.c0 + g.r >= cc)
                D[ci] = std::max(D[ci], (double)(g.c0 + g.r) / (double)(g.a + g.n));
    }
    // Each random group's events, for every L the recall points need.
    auto &random = w.random;
    auto &ev = w.ev;
    random.clear();
    for (size_t gi = 0; gi < groups.size(); ++gi) {
        const IprecGroup &g = groups[gi];
        if (!(g.n > 1 && g.r < g.n)) continue;
        if (ev.size() <= random.size()) ev.resize(random.size() + 1);
        auto &ls = ev[random.size()].ls;
        ls.clear();
        double floor = 1.0;
        for (size_t ci = 0; ci < cs.size(); ++ci) {
            const int64_t L = std::max<int64_t>(1, std::max<int64_t>(cs[ci], 1) - g.c0);
            if (cs[ci] <= n_rel_ret && L <= g.r) {
                ls.push_back(L);
                floor = std::min(floor, D[ci]);
            }
        }
        if (ls.empty()) continue;
        std::sort(ls.begin(), ls.end());
        ls.erase(std::unique(ls.begin(), ls.end()), ls.end());
        iprec_group_events(g, floor, w, ev[random.size()]);
        random.push_back(gi);
    }
    // Every random group's events in one order: x decreasing, then by group
    // (a group's own x are distinct; its events' order breaks any tie
    // left). Each recall point reads the prefix above its D, so it sees its
    // groups' events in the order a stable sort of them by x would give.
    auto &merged = w.merged;
    merged.clear();
    for (size_t j = 0; j < random.size(); ++j)
        for (size_t e = 0; e < ev[j].x.size(); ++e)
            merged.push_back({ev[j].x[e], (uint32_t)j, (uint32_t)e});
    std::sort(merged.begin(), merged.end(), [](const IprecMerged &u, const IprecMerged &v) {
        return u.x > v.x || (u.x == v.x && (u.j < v.j || (u.j == v.j && u.e < v.e)));
    });
    auto &slot = w.slot;
    auto &li = w.li;
    slot.resize(random.size());
    li.resize(random.size());
    for (size_t ci = 0; ci < cs.size(); ++ci) {
        const int64_t c = cs[ci];
        if (c > n_rel_ret) continue;
        const int64_t cc = std::max<int64_t>(c, 1);
        // The random groups that count c: a slot each, in group order, and
        // the index of their L.
        int64_t n_slots = 0;
        for (size_t j = 0; j < random.size(); ++j) {
            const IprecGroup &g = groups[random[j]];
            const int64_t L = std::max<int64_t>(1, cc - g.c0);
            slot[j] = -1;
            if (L > g.r) continue;
            const auto &ls = ev[j].ls;
            li[j] = std::lower_bound(ls.begin(), ls.end(), L) - ls.begin();
            slot[j] = n_slots++;
        }
        double value = D[ci];
        // prod_g P(X_g < x) in a product tree over the slots, read at the
        // events above D in decreasing x
        size_t size = 1;
        while (size < (size_t)n_slots) size <<= 1;
        auto &tree = w.tree;
        bool any = false;
        double x = 1.0, area = 0.0;
        for (const IprecMerged &m : merged) {
            if (!(m.x > D[ci])) break;
            if (slot[m.j] < 0) continue;
            if (!any) {
                tree.assign(2 * size, 1.0);
                any = true;
            }
            area += (x - m.x) * (1.0 - tree[1]);
            x = m.x;
            size_t i = size + (size_t)slot[m.j];
            tree[i] = ev[m.j].cdf[m.e * ev[m.j].ls.size() + li[m.j]];
            for (i >>= 1; i >= 1; i >>= 1) tree[i] = tree[2 * i] * tree[2 * i + 1];
        }
        if (any) {
            area += (x - D[ci]) * (1.0 - tree[1]);
            value = D[ci] + area;
        }
        out[ci] = value;
    }
}

}  // namespace rankk

#endif
