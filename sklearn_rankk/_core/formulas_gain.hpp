/* trec_eval's gain measures (rbp, Rndcg, binG, ndcg_rel, G) and its set
 * measure utility, exactly under ties. The driver's switch calls
 * gain_measure() for their formulas.
 *
 * Gains: an item's gain is its grade when it is relevant (y > threshold) and
 * positive, else 0, as for DCG. The ideal ranking (sc.ideal_lin) holds the
 * row's relevant grades, decreasing, over every item (retrieved or not).
 *
 * Every formula but rbp reads the whole retrieved ranking (k = K_NRET): no
 * tie group straddles the cut there, so a group's members are ranks [a, b).
 */
#ifndef SKLEARN_RANKK_FORMULAS_GAIN_HPP
#define SKLEARN_RANKK_FORMULAS_GAIN_HPP

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "_simd.h"
#include "formulas_rank.hpp"
#include "request.hpp"
#include "rows.hpp"
#include "scratch.hpp"
#include "ties.hpp"

namespace rankk {

// How deep a formula reads the ideal ranking (n_rel: all of it).
inline int64_t gain_ideal_depth(int32_t formula, int64_t n_rel) {
    if (formula == RBP) return 1;  // its largest grade scales the gains
    if (formula == RNDCG || formula == NDCG_REL || formula == G_GAIN) return n_rel;
    return 0;
}

inline double gain_of(double y, double t) { return (y > t && y > 0.0) ? y : 0.0; }

/* The ideal ranking: the K_ideal largest relevant grades, decreasing, into
 * sc.work_g, and their gains into sc.ideal_lin (and sc.ideal_exp with
 * exponential gains; a negative grade has none); flags an exponential gain
 * that overflows (a grade >= 1024). */
template <class Rel>
void ideal_gains(const Rel &rel, int64_t n_rel, int64_t K_ideal, bool exponential, Scratch &sc,
                 uint8_t &flags) {
    auto &g = sc.work_g;
    rel.ideal(g, n_rel, K_ideal);
    const int64_t take = (int64_t)g.size();
    sc.ideal_lin.assign(K_ideal, 0.0);
    if (exponential) sc.ideal_exp.assign(K_ideal, 0.0);  // read by exponential gains only
    for (int64_t p = 0; p < take && g[p] > 0.0; ++p) {
        sc.ideal_lin[p] = g[p];
        if (exponential) sc.ideal_exp[p] = gain_exp(g[p], 0);
    }
    if (exponential && take > 0 && g[0] >= 1024.0) flags |= FLAG_EXP_OVERFLOW;
}

/* RBP's weight of each rank c < n, (1 - p) p**c, as the products
 * w_0 = 1 - p, w_c = w_(c-1) p (kept in sc.rbp_w across rows for one p, and
 * grown from its last product: the same values at every length). */
inline const double *rbp_weights(Scratch &sc, double p, int64_t n) {
    auto &w = sc.rbp_w;
    if (!(sc.rbp_p == p)) {  // (NaN at first: never equal)
        w.clear();
        sc.rbp_p = p;
    }
    if (w.empty() && n > 0) w.push_back(1.0 - p);
    while ((int64_t)w.size() < n) w.push_back(w.back() * p);
    return w.data();
}

// Positive ideal gains: their number and sum.
inline int64_t positive_ideal(const Scratch &sc, int64_t K_ideal, double &sum) {
    int64_t n = 0;
    sum = 0.0;
    while (n < K_ideal && sc.ideal_lin[n] > 0.0) sum += sc.ideal_lin[n++];
    return n;
}

/* G's expected terms for one tie group at ranks [a, a + n) (cost: the ideal
 * cost prefix from rank a on): the sum over its
 * positive-gain members j of E[g_j / log2(2 + C(rank_j) - S0 - g_j - T_j)],
 * where C is the ideal cost prefix, S0 the gains before the group and T_j the
 * gains of the group members ranked above j: a uniformly random o-subset of
 * the others, o uniform on 0..n-1.
 *
 * Exact recurrence: for each distinct gain v of the group, the distribution
 * of the sum of a random subset of c of the other positive members (given c)
 * is built one gain class at a time (hypergeometric split of c between the
 * classes, equal sums merged); then c given o is hypergeometric (positive
 * vs zero-gain others). Cost per group: O(L n P U), L distinct positive
 * gains, n members, P positive ones, U distinct partial sums (at most 1 + the
 * group's gain total for integer grades). */
inline double g_group(const std::vector<double> &gains, const double *cost, double S0,
                      GWork &work) {
    const int64_t n = (int64_t)gains.size();
    auto &classes = work.fclasses;  // (gain, multiplicity)
    auto &pos = work.fpos;
    classes.clear();
    pos.clear();
    for (double g : gains)
        if (g > 0.0) pos.push_back(g);
    std::sort(pos.begin(), pos.end());
    for (double g : pos) {
        if (!classes.empty() && classes.back().first == g) ++classes.back().second;
        else classes.push_back({g, 1});
    }
    const int64_t P = (int64_t)pos.size(), z = n - P;
    double total = 0.0;
    // [c] -> (sum, prob), the first have + 1 entries read
    auto &dist = work.dist, &next = work.next;
    for (size_t l = 0; l < classes.size(); ++l) {
        const double v = classes[l].first;
        // The sums of c of the other positive members, class by class.
        if (dist.empty()) dist.resize(1);
        dist[0].assign(1, {0.0, 1.0});
        int64_t have = 0;
        for (size_t q = 0; q < classes.size(); ++q) {
            const int64_t cnt = classes[q].second - (q == l ? 1 : 0);
            if (cnt == 0) continue;
            const double w = classes[q].first;
            const size_t n_next = (size_t)(have + cnt + 1);
            if (next.size() < n_next) next.resize(n_next);
            for (size_t c = 0; c < n_next; ++c) next[c].clear();
            for (int64_t c_old = 0; c_old <= have; ++c_old)
                for (int64_t k = 0; k <= cnt; ++k) {
                    const int64_t c = c_old + k;
                    const double split = hypergeom((double)(have + cnt), (double)have,
                                                   (double)c, (double)c_old);
                    for (const auto &sp : dist[c_old])
                        next[c].push_back({sp.first + (double)k * w, sp.second * split});
                }
            for (size_t c = 0; c < n_next; ++c) {  // merge equal sums
                auto &vec = next[c];
                std::sort(vec.begin(), vec.end());
                size_t out = 0;
                for (size_t i = 0; i < vec.size(); ++i) {
                    if (out > 0 && vec[out - 1].first == vec[i].first)
                        vec[out - 1].second += vec[i].second;
                    else vec[out++] = vec[i];
                }
                vec.resize(out);
            }
            dist.swap(next);
            have += cnt;
        }
        // have == P - 1 positive others, z zero-gain others.
        double acc = 0.0;
        for (int64_t o = 0; o < n; ++o) {
            const double Co = cost[o];
            for (int64_t c = std::max<int64_t>(0, o - z); c <= std::min(o, have); ++c) {
                const double hc = hypergeom((double)(n - 1), (double)have, (double)o, (double)c);
                if (hc == 0.0) continue;
                double inner = 0.0;
                for (const auto &sp : dist[c])
                    inner += sp.second / std::log2(2.0 + Co - S0 - v - sp.first);
                acc += hc * inner;
            }
        }
        total += (double)classes[l].second * v * acc / (double)n;
    }
    (void)P;
    return total;
}

// A whole number small enough for exact sums.
inline bool whole_gain(double x) { return x == std::floor(x) && std::fabs(x) < 1e15; }

/* 1 / log2(x) for the whole numbers x <= top at f[x] (0 below 2, and f[-4]
 * .. f[-1] are 0 too), from a table kept across groups and rows (w.ftab):
 * the values of 1.0 / std::log2((double)x), without the log. */
inline const double *inv_log2_table(GWork &w, int64_t top) {
    constexpr int64_t PAD = 4;
    auto &ftab = w.ftab;
    if (ftab.empty()) ftab.assign(PAD, 0.0);
    for (int64_t x = (int64_t)ftab.size() - PAD; x <= top; ++x)
        ftab.push_back(x >= 2 ? 1.0 / std::log2((double)x) : 0.0);
    return ftab.data() + PAD;
}

// sum x[i] y[i], i < n, in eight running sums (they pipeline; SSE2, part of
// every x86-64 CPU, where the compiler has it: see _simd.h).
inline double dot8(const double *x, const double *y, int64_t n) {
    int64_t i = 0;
    double s = 0.0;
#if defined(__SSE2__) || (defined(_M_X64) && !defined(_M_ARM64EC)) || \
    (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
    __m128d a0 = _mm_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
    for (; i + 8 <= n; i += 8) {
        a0 = _mm_add_pd(a0, _mm_mul_pd(_mm_loadu_pd(x + i), _mm_loadu_pd(y + i)));
        a1 = _mm_add_pd(a1, _mm_mul_pd(_mm_loadu_pd(x + i + 2), _mm_loadu_pd(y + i + 2)));
        a2 = _mm_add_pd(a2, _mm_mul_pd(_mm_loadu_pd(x + i + 4), _mm_loadu_pd(y + i + 4)));
        a3 = _mm_add_pd(a3, _mm_mul_pd(_mm_loadu_pd(x + i + 6), _mm_loadu_pd(y + i + 6)));
    }
    double t[2];
    _mm_storeu_pd(t, _mm_add_pd(_mm_add_pd(a0, a1), _mm_add_pd(a2, a3)));
    s = t[0] + t[1];
#else
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (; i + 4 <= n; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    s = (s0 + s1) + (s2 + s3);
#endif
    for (; i < n; ++i) s += x[i] * y[i];
    return s;
}

// out[j] = sum x[t] y[t + j], t < n, for the four windows j = 0..3 of y:
// four dot products for the loads of one (SSE2 where the compiler has it).
inline void dot8_4(const double *x, const double *y, int64_t n, double *out) {
    int64_t t = 0;
    double s[4] = {0.0, 0.0, 0.0, 0.0};
#if defined(__SSE2__) || (defined(_M_X64) && !defined(_M_ARM64EC)) || \
    (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
    __m128d a[4] = {_mm_setzero_pd(), _mm_setzero_pd(), _mm_setzero_pd(), _mm_setzero_pd()};
    for (; t + 2 <= n; t += 2) {
        const __m128d xv = _mm_loadu_pd(x + t);
        a[0] = _mm_add_pd(a[0], _mm_mul_pd(xv, _mm_loadu_pd(y + t)));
        a[1] = _mm_add_pd(a[1], _mm_mul_pd(xv, _mm_loadu_pd(y + t + 1)));
        a[2] = _mm_add_pd(a[2], _mm_mul_pd(xv, _mm_loadu_pd(y + t + 2)));
        a[3] = _mm_add_pd(a[3], _mm_mul_pd(xv, _mm_loadu_pd(y + t + 3)));
    }
    for (int j = 0; j < 4; ++j) {
        double u[2];
        _mm_storeu_pd(u, a[j]);
        s[j] = u[0] + u[1];
    }
#endif
    for (; t < n; ++t)
        for (int j = 0; j < 4; ++j) s[j] += x[t] * y[t + j];
    for (int j = 0; j < 4; ++j) out[j] = s[j];
}

/* The laws of c, the positive members among the first m of a group of n
 * with P positive (hypergeom_pmf with w.inv, grown to n by the caller), for
 * m = 0..n: row m at t + m W, W = min(P, n - P) + 1, over c's support
 * [max(0, m - (n - P)), min(P, m)], computed once per (n, P) and kept
 * (G's own PmfTables, ties.hpp: the kind of cache infAP keeps, in another
 * layout). */
inline const double *group_pmfs(GWork &w, int64_t n, int64_t P, std::vector<double> &h) {
    w.pmfs.trim();
    return w.pmfs.by_draws(n, P, h, w.inv.data());
}

/* G's expected terms for one tie group at ranks [a, a + n) (cost: the ideal
 * cost prefix from rank a on), when its gains and every 2 + C(rank) - S0 of
 * its ranks are whole numbers (else returns false, having done nothing
 * visible). The same value as g_group, in O(n B) rather than O(L n P U):
 *
 * the member at offset o is uniform among the first m = o + 1 (exchange-
 * ability), so with W_m the gains of those m members,
 *   E[g_o / log2(2 + C(a + o) - S0 - W_m)] = E[W_m / log2(...)] / m.
 * The m members are a uniform m-subset of the group: c of them positive
 * (hypergeometric, P positive among n), and given c their total is that of a
 * uniform c-subset of the positive gains, q_c, built class by class (a
 * hypergeometric split of c between the classes so far and the next). Every
 * weight comes from hypergeom_pmf; 1 / log2 of whole arguments from a table
 * kept across groups and rows. B = sum over c of q_c's support width (at
 * most 3 min(c, P - c) + 1 for grades 1-4). */
inline bool g_group_whole(const std::vector<double> &gains, const double *cost, double S0,
                          GWork &w, std::vector<double> &h, double &out) {
    const int64_t n = (int64_t)gains.size();
    auto &base = w.base;
    base.resize((size_t)n);
    int64_t top = 0;
    for (int64_t o = 0; o < n; ++o) {
        const double d = 2.0 + cost[o] - S0;
        if (!whole_gain(d) || d < 2.0) return false;
        base[o] = (int64_t)d;
        top = std::max(top, base[o]);
    }
    // The positive gains, by class.
    auto &sorted = w.lo2;
    sorted.clear();
    for (double g : gains) {
        if (g > 0.0) {
            if (!whole_gain(g)) return false;
            sorted.push_back((int64_t)g);
        }
    }
    std::sort(sorted.begin(), sorted.end());
    auto &classes = w.classes;
    classes.clear();
    for (int64_t g : sorted) {
        if (!classes.empty() && classes.back().first == g) ++classes.back().second;
        else classes.push_back({g, 1});
    }
    const int64_t P = (int64_t)sorted.size();
    // q_c, class by class: c of the first `have` positive gains.
    auto &lo = w.lo, &hi = w.hi, &lo2 = w.lo2, &hi2 = w.hi2;
    auto &off = w.off, &off2 = w.off2;
    auto &q = w.q, &q2 = w.q2;
    lo.assign(1, 0);
    hi.assign(1, 0);
    off.assign(1, 0);
    q.assign(1, 1.0);
    int64_t have = 0;
    for (const auto &cl : classes) {
        const int64_t g = cl.first, cnt = cl.second, H = have + cnt;
        lo2.resize((size_t)H + 1);
        hi2.resize((size_t)H + 1);
        off2.resize((size_t)H + 1);
        size_t size = 0;
        for (int64_t c = 0; c <= H; ++c) {
            int64_t l = INT64_MAX, u = INT64_MIN;
            for (int64_t k = std::max<int64_t>(0, c - have); k <= std::min(cnt, c); ++k) {
                l = std::min(l, lo[c - k] + k * g);
                u = std::max(u, hi[c - k] + k * g);
            }
            lo2[c] = l;
            hi2[c] = u;
            off2[c] = size;
            size += (size_t)(u - l + 1);
        }
        q2.assign(size, 0.0);
        for (int64_t c = 0; c <= H; ++c) {
            const int64_t klo = hypergeom_pmf(H, cnt, c, h);  // k of the class among c
            for (size_t i = 0; i < h.size(); ++i) {
                const int64_t k = klo + (int64_t)i, c0 = c - k;
                if (h[i] == 0.0) continue;
                const double *src = &q[off[c0]];
                double *dst = &q2[off2[c] + (size_t)(lo[c0] + k * g - lo2[c])];
                const int64_t len = hi[c0] - lo[c0] + 1;
                for (int64_t j = 0; j < len; ++j) dst[j] += h[i] * src[j];
            }
        }
        lo.swap(lo2);
        hi.swap(hi2);
        off.swap(off2);
        q.swap(q2);
        have = H;
    }
    // w q_c(w) in decreasing w, so that the table is read forwards.
    q2.resize(q.size());
    for (int64_t c = 0; c <= P; ++c) {
        const int64_t len = hi[c] - lo[c] + 1;
        for (int64_t t = 0; t < len; ++t)
            q2[off[c] + t] = (double)(hi[c] - t) * q[off[c] + len - 1 - t];
    }
    // f(x) = 1 / log2(x), 0 below 2 (never weighed)
    const double *f = inv_log2_table(w, top);
    auto &inv = w.inv;
    for (int64_t i = std::max<int64_t>((int64_t)inv.size(), 1); i <= n; ++i) {
        if (inv.empty()) inv.push_back(0.0);
        inv.push_back(1.0 / (double)i);
    }
    // c positive among the first m: hypergeometric. b_m - hi[c] >= 2 where
    // it weighs: the c largest gains and m - c zeros fit in the first m
    // ranks, so C(a + m - 1) >= S0 + hi[c].
    const double *pm = group_pmfs(w, n, P, h);
    // c's support for the first m: [clo_of(m), chi_of(m)], at row(m)[c - clo_of(m)]
    auto clo_of = [&](int64_t m) { return std::max<int64_t>(0, m - (n - P)); };
    auto chi_of = [&](int64_t m) { return std::min(P, m); };
    auto row = [&](int64_t m) { return pm + m * (std::min(P, n - P) + 1); };
    double total = 0.0;
    for (int64_t m = 1; m <= n;) {
        const int64_t bm = base[m - 1];
        if (m + 3 <= n && base[m] == bm + 1 && base[m + 1] == bm + 2 && base[m + 2] == bm + 3) {
            // Four ranks whose arguments step by 1 (past the ideal's
            // gains > 1): one pass over q_c serves them all.
            int64_t clo[4], chi[4], cmin = INT64_MAX, cmax = 0;
            const double *hm[4];
            for (int j = 0; j < 4; ++j) {
                clo[j] = clo_of(m + j);
                hm[j] = row(m + j);
                chi[j] = chi_of(m + j);
                cmin = std::min(cmin, clo[j]);
                cmax = std::max(cmax, chi[j]);
            }
            double acc[4] = {0.0, 0.0, 0.0, 0.0}, d[4];
            for (int64_t c = std::max<int64_t>(cmin, 1); c <= cmax; ++c) {
                const int64_t first = bm - hi[c];
                if (first < -3) return false;  // (c weighs for one of the four)
                dot8_4(&q2[off[c]], f + first, hi[c] - lo[c] + 1, d);
                for (int j = 0; j < 4; ++j)
                    if (c >= clo[j] && c <= chi[j]) acc[j] += hm[j][c - clo[j]] * d[j];
            }
            for (int j = 0; j < 4; ++j) total += acc[j] / (double)(m + j);
            m += 4;
            continue;
        }
        const double *hc = row(m);
        const int64_t c0 = clo_of(m);
        double acc = 0.0;
        for (int64_t c = c0; c <= chi_of(m); ++c) {
            if (c == 0 || hc[c - c0] == 0.0) continue;
            const int64_t first = bm - hi[c];
            if (first < 0) return false;
            acc += hc[c - c0] * dot8(&q2[off[c]], f + first, hi[c] - lo[c] + 1);
        }
        total += acc / (double)m;
        ++m;
    }
    out = total;
    return true;
}

/* One request of a gain measure on one row: writes o[0] (o[0..c_end) for an
 * rbp curve) and returns whether the row is empty for it. n_ret: the
 * retrieved items (utility's set, Rndcg's ranking length). Rndcg, ndcg_rel
 * and G read a group's expected gain at its first rank (v.eg[a]: the same at
 * every rank of the group) and its members' grades from members(a, b,
 * straddles, fn), fn(grade) for each (those of grade <= t or <= 0, without a
 * gain, may be left out), so that they also run on the relevant items' ranks
 * (relevant_ranks.hpp), where a group without a relevant item adds nothing
 * and is skipped: every term of such a group is 0. */
template <class Members>
bool gain_measure(const Request &r, const RowView &v, Scratch &sc, int64_t K_ideal, int64_t n_ret,
                  double ret_rel, double t, bool curve, int64_t c_end, double *o,
                  Members &&members) {
    const int64_t K_eff = v.K_eff;
    const double *eg = v.eg;
    double ideal_sum = 0.0;
    const int64_t n_pos = r.formula == RBP ? 0 : positive_ideal(sc, K_ideal, ideal_sum);
    switch (r.formula) {
    case RBP: {
        // (1 - p) sum_i E[gain_i] p**(i-1), gains over the row's largest grade
        // when it exceeds 1 (trec_eval rescales the query's gain table).
        const double top = K_ideal > 0 ? sc.ideal_lin[0] : 0.0;
        const double scale = top > 1.0 ? 1.0 / top : 1.0;
        const double *w = rbp_weights(sc, r.p, std::min(K_eff, c_end));
        double sum = 0.0;
        for (int64_t c = 0; c < c_end; ++c) {
            if (c < K_eff) sum += eg[c] * w[c];
            if (curve) o[c] = sum * scale;
        }
        if (!curve) o[0] = sum * scale;
        return v.n_rel == 0;
    }
    case UTILITY: {
        // tp a + fp b + fn c + tn d over the retrieved set (the row's items
        // being the collection); ret_rel: its relevant items.
        const double a = ret_rel;
        const double ret = (double)n_ret, rel = (double)v.n_rel;
        o[0] = r.u_tp * a + r.u_fp * (ret - a) + r.u_fn * (rel - a) +
               r.u_tn * ((double)v.m + a - ret - rel);
        return false;  // defined on every row
    }
    case BING: {
        // sum over relevant items of 1 / log2(2 + non-relevant items above),
        // over |R|. In a group of n with r relevant, X non-relevant members
        // above a relevant one are uniform on 0..n-r. Every argument is a
        // whole number of at most 2 + K_eff: 1 / log2 from a table.
        const double *f = inv_log2_table(sc.g, K_eff + 2);
        double total = 0.0;
        int64_t nonrel = 0;
        v.groups.each(K_eff, [&](int64_t a, int64_t) {
            const double n = v.ng[a], rg = v.rg[a];
            const int64_t others = (int64_t)(n - rg);
            if (rg > 0.0) {
                double s = 0.0;
                for (int64_t x = 0; x <= others; ++x) s += f[2 + nonrel + x];
                total += rg * s / (n - rg + 1.0);
            }
            nonrel += others;
        });
        o[0] = v.n_rel > 0 ? total / (double)v.n_rel : 0.0;
        return v.n_rel == 0;
    }
    default:
        break;
    }
    // nDCG-based and G: undefined without a positive ideal gain.
    if (n_pos == 0) {
        o[0] = 0.0;
        return true;
    }
    const int64_t depth = std::max(K_eff, n_pos);
    const double *disc = discounts(sc, 2.0, depth);
    const double *ideal = sc.ideal_lin.data();
    if (r.formula == RNDCG) {
        // Mean of nDCG@b over the ends b of the ideal ranking's gain levels,
        // and at the end of the ranking when it is at least 2 longer than
        // the positive ideal (trec_eval's loop). Linear in E[gain] per rank:
        // the DCG adds rank c's term before the ideal rank c is read, the
        // ranks in order (those of a group without a gain add 0).
        double dcg = 0.0, idcg = 0.0, total = 0.0, count = 0.0;
        int64_t c_ideal = 0;
        auto ideal_to = [&](int64_t end) {  // the ideal ranks before `end`
            for (end = std::min(end, n_pos); c_ideal < end; ++c_ideal) {
                idcg += ideal[c_ideal] * disc[c_ideal];
                if (c_ideal + 1 == n_pos || ideal[c_ideal + 1] != ideal[c_ideal]) {
                    total += dcg / idcg;
                    count += 1.0;
                }
            }
        };
        v.groups.each(K_eff, [&](int64_t a, int64_t b) {
            const double ega = eg[a];
            if (!(ega != 0.0)) return;
            for (int64_t c = a; c < b; ++c) {
                ideal_to(c);
                dcg += ega * disc[c];
            }
        });
        ideal_to(n_pos);
        if (n_ret >= n_pos + 2) {
            total += dcg / idcg;
            count += 1.0;
        }
        o[0] = total / count;
        return false;
    }
    if (r.formula == NDCG_REL) {
        // sum over positive-gain items of DCG(its rank) / IDCG(its rank)
        // (IDCG stops at the positive ideal), the unretrieved ones at the
        // final DCG / IDCG, over the positive-gain items. Under ties
        // E[pos_i g_j] is E[g_i] for j = i, (P/n) E[g_j] for j in an earlier
        // group and S (P - 1) / (n (n - 1)) in the same group.
        // IDCG(rank c): a table over the ideal's ranks, the whole IDCG below.
        double dcg_before = 0.0, total = 0.0, idcg = 0.0, pos_ret = 0.0;
        std::vector<double> &idcg_at = sc.idcg_at;
        idcg_at.resize((size_t)n_pos);
        for (int64_t c = 0; c < n_pos; ++c) {
            idcg += ideal[c] * disc[c];
            idcg_at[c] = idcg;
        }
        v.groups.each(K_eff, [&](int64_t a, int64_t b) {
            const double n = (double)(b - a);
            double P = 0.0, S = 0.0;
            members(a, b, false, [&](double y) {
                const double g = gain_of(y, t);
                if (g > 0.0) {
                    P += 1.0;
                    S += g;
                }
            });
            if (P == 0.0) return;  // every term 0
            const double same = n > 1.0 ? S * (P - 1.0) / (n * (n - 1.0)) : 0.0;
            const double ega = eg[a];
            double disc_in = 0.0, dcg_group = 0.0;
            for (int64_t p = a; p < b; ++p) {
                const double term = ega * disc[p] + P / n * dcg_before + same * disc_in;
                total += term / (p < n_pos ? idcg_at[p] : idcg);
                disc_in += disc[p];
                dcg_group += ega * disc[p];
            }
            dcg_before += dcg_group;
            pos_ret += P;
        });
        total += ((double)n_pos - pos_ret) * dcg_before / idcg;
        o[0] = total > 0.0 ? total / (double)n_pos : 0.0;
        return false;
    }
    // G: sum over items of gain g != 0 of g / log2(2 + C(i) - S(i)), C(i) the
    // sum over ranks <= i of max(ideal gain, 1), S(i) the gains of ranks
    // <= i; over the ideal gains' total.
    // C(i) past the ideal's positive gains grows by 1 a rank: from C(n_pos -
    // 1) on in closed form where that is a whole number (every sum then
    // exact, as the running sum), else a table over every rank.
    std::vector<double> &cost = sc.cost;
    int64_t table = std::min(K_eff, n_pos);
    auto fill = [&](int64_t from, int64_t to) {
        double cum = from > 0 ? cost[from - 1] : 0.0;
        for (int64_t c = from; c < to; ++c) {
            cum += std::max(c < n_pos ? ideal[c] : 0.0, 1.0);
            cost[c] = cum;
        }
    };
    cost.resize((size_t)std::max<int64_t>(K_eff, 1));
    fill(0, table);
    const double C_ideal = table > 0 ? cost[table - 1] : 0.0;
    if (K_eff > table && !(whole_gain(C_ideal) && C_ideal + (double)K_eff < 0x1p52)) {
        fill(table, K_eff);
        table = K_eff;
    }
    // A group's costs, ranks [a, b).
    std::vector<double> &group_cost = sc.group_cost;
    auto costs_of = [&](int64_t a, int64_t b) -> const double * {
        if (b <= table) return cost.data() + a;
        group_cost.resize((size_t)(b - a));
        for (int64_t c = a; c < b; ++c)
            group_cost[c - a] = c < table ? cost[c] : C_ideal + (double)(c + 1 - n_pos);
        return group_cost.data();
    };
    double total = 0.0, S0 = 0.0;
    std::vector<double> &gains = sc.gains;
    v.groups.each(K_eff, [&](int64_t a, int64_t b) {
        gains.clear();
        double sum = 0.0;
        members(a, b, false, [&](double y) {
            gains.push_back(gain_of(y, t));
            sum += gains.back();
        });
        int64_t n_positive = 0;
        for (double g : gains) n_positive += g > 0.0;
        if (n_positive == 0) {  // every term 0 (a gap between relevant ranks, say)
            S0 += sum;
            return;
        }
        gains.resize((size_t)(b - a), 0.0);  // the members left out: no gain
        if (n_positive == 1) {  // one positive member (or no tie): no other gain above it
            const double *cg = costs_of(a, b);
            double mean = 0.0;
            for (int64_t o = 0; o < b - a; ++o) mean += 1.0 / std::log2(2.0 + cg[o] - S0 - sum);
            total += sum * mean / (double)(b - a);
        } else if (n_positive > 1) {
            const double *cg = costs_of(a, b);
            double whole = 0.0;
            if (g_group_whole(gains, cg, S0, sc.g, sc.hx, whole)) total += whole;
            else total += g_group(gains, cg, S0, sc.g);
        }
        S0 += sum;
    });
    o[0] = total / ideal_sum;
    return false;
}

}  // namespace rankk

#endif
