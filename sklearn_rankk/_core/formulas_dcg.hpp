/* The DCG family with a gain map or a discount table, the ideal DCG and the
 * scaled DCG (SDCG), exactly under ties. The driver's switch calls
 * dcg_family() for IDEAL_DCG and SDCG, and for DCG and nDCG when a request
 * carries a gain map (Request.n_gain > 0) or a discount table
 * (Request.disc); without either, DCG and nDCG keep the driver's own loop.
 * Over the whole ranking with a gain map (and no table), relevant_ranks.hpp
 * calls it on the relevant items' ranks.
 *
 * DCG is linear in the gain at each rank: under exact ties the expected gain
 * at a rank of a tie group of n items is the mean gain of its members (the
 * members beyond the cut-off included), whatever the gain map. The ideal
 * ranking holds the row's positive gains, decreasing, over every item
 * (retrieved or not): with a gain map that is not increasing in the grade,
 * the ideal order is the order of the gains, not of the grades.
 */
#ifndef SKLEARN_RANKK_FORMULAS_DCG_HPP
#define SKLEARN_RANKK_FORMULAS_DCG_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "formulas_rank.hpp"
#include "request.hpp"
#include "scratch.hpp"
#include "ties.hpp"

namespace rankk {

/* The gain of grade y for request r: a relevant (y > t), judged (y >= 0)
 * grade listed in the gain map (r.gain_grades, increasing) has its mapped
 * gain, which may be 0 or negative (trec_eval's ``ndcg.1=3.5,2=9``); any
 * other relevant positive grade its default gain (y, or 2**y - 1); the rest
 * none. */
inline double mapped_gain(const Request &r, double y, double t) {
    if (!(y > t) || y < 0.0) return 0.0;
    if (r.n_gain > 0) {
        const double *end = r.gain_grades + r.n_gain;
        const double *lo = std::lower_bound(r.gain_grades, end, y);
        if (lo != end && *lo == y) return r.gain_values[lo - r.gain_grades];
    }
    if (!(y > 0.0)) return 0.0;
    return r.exponential ? std::exp2(y) - 1.0 : y;
}

/* One request of the family on one row: writes o[0] (o[0..c_end) for a
 * curve) and returns whether the row is empty for it. k_nominal: the
 * request's cut-off (SDCG's normaliser reads k ranks even past the row's
 * end); rel: the row's relevance (its ideal grades); members(a, b,
 * straddles, fn) and straddling(b) as in the driver. */
template <class Rel, class Members, class Straddling>
bool dcg_family(const Request &r, const RowView &v, Scratch &sc, const Rel &rel, double t,
                bool curve, int64_t c_end, int64_t k_nominal, double *o, Members &&members,
                Straddling &&straddling) {
    const int64_t K_eff = v.K_eff;
    const bool table = r.n_gain > 0;
    // The discounts of ranks 1..n: the request's table, or 1 / log_b(rank + 1).
    const int64_t n_disc = std::max(c_end, r.formula == SDCG ? k_nominal : 0);
    const double *disc = r.disc ? r.disc : discounts(sc, r.log_base, n_disc);
    const int64_t d_end = r.disc ? std::min<int64_t>(n_disc, r.n_disc) : n_disc;
    auto disc_at = [&](int64_t c) { return c < d_end ? disc[c] : 0.0; };

    // The expected gain at each retrieved rank: the mean gain of its group.
    // A DCG or nDCG value (not a curve, not SDCG) adds each group's terms as
    // the group is read, in rank order, with no per-rank array: the same
    // terms in the same order as the loop below. With the log discount
    // (positive, finite), a group of mean gain +0 or -0 (an underflowing
    // negative mean) adds a zero to a sum that, rounding to nearest, is
    // never -0.0, so it is skipped (a gap between relevant ranks, or a
    // group without gain, costs nothing).
    std::vector<double> &gain = sc.dcg.gain, &ideal = sc.dcg.ideal, &grades = sc.dcg.grades;
    const int64_t n_ranks = std::min(K_eff, c_end);
    const bool by_groups = !curve && (r.formula == DCG || r.formula == NDCG);
    double dcg = 0.0;
    gain.assign(by_groups ? 0 : (size_t)n_ranks, 0.0);
    if (r.formula != IDEAL_DCG) {
        // Each group whole (not cut at the request's last rank: another
        // request may have ranked past it), its mean gain at its ranks here.
        v.groups.each(INT64_MAX, [&](int64_t a, int64_t b) {
            if (a >= n_ranks) return;
            double sum = 0.0;
            members(a, b, straddling(b), [&](double y) { sum += mapped_gain(r, y, t); });
            const double mean = sum / v.ng[a];
            const int64_t e = std::min(b, n_ranks);
            if (!by_groups) {
                for (int64_t p = a; p < e; ++p) gain[p] = mean;
            } else if (mean != 0.0 || r.disc) {
                for (int64_t p = a; p < e; ++p) dcg += mean * disc_at(p);
            }
        });
    }
    // The ideal ranking's positive gains, decreasing (nDCG, ideal DCG, and
    // SDCG's largest gain when max_rel is None).
    ideal.clear();
    const bool want_ideal = r.formula == NDCG || r.formula == IDEAL_DCG ||
                            (r.formula == SDCG && r.max_grade != r.max_grade);
    if (want_ideal && v.n_rel > 0) {
        // With a gain map every relevant grade is read (the map may reorder
        // them); else the largest c_end suffice.
        const int64_t want =
            table ? v.n_rel : std::min<int64_t>(v.n_rel, std::max<int64_t>(c_end, 1));
        rel.ideal(grades, v.n_rel, want);
        for (double y : grades) {
            const double g = mapped_gain(r, y, t);
            if (g > 0.0) ideal.push_back(g);
        }
        if (table) {
            // The grades decrease and a grade has one gain, so the gains come
            // in runs of equal values, a run a grade: the runs sorted, then
            // laid out again (the same sequence as sorting the gains, at the
            // cost of sorting a few runs).
            auto &runs = sc.dcg.runs;
            runs.clear();
            for (double g : ideal) {
                if (!runs.empty() && runs.back().first == g) ++runs.back().second;
                else runs.push_back({g, 1});
            }
            std::stable_sort(runs.begin(), runs.end(),
                             [](const auto &u, const auto &w) { return u.first > w.first; });
            size_t at = 0;
            for (const auto &u : runs)
                for (int64_t i = 0; i < u.second; ++i) ideal[at++] = u.first;
        }
    }
    const int64_t n_ideal = (int64_t)ideal.size();

    if (r.formula == SDCG) {
        // DCG@k over the DCG of k items of the largest gain: max_rel's gain,
        // or (max_rel=None) the row's largest (Moffat et al. 2015).
        const double top = r.max_grade == r.max_grade ? mapped_gain(r, r.max_grade, -INFINITY)
                                                      : (n_ideal > 0 ? ideal[0] : 0.0);
        double norm = 0.0;  // dcg: 0 here (SDCG fills gain[])
        for (int64_t c = 0; c < c_end; ++c) {
            if (c < (int64_t)gain.size()) dcg += gain[c] * disc_at(c);
            norm += top * disc_at(c);
            if (curve) o[c] = norm > 0.0 ? dcg / norm : 0.0;
        }
        if (!curve) {
            for (int64_t c = c_end; c < k_nominal; ++c) norm += top * disc_at(c);
            o[0] = norm > 0.0 ? dcg / norm : 0.0;
        }
        return v.n_rel == 0;
    }
    // Past the last expected gain and the last ideal one every term is 0:
    // a value (not a curve) stops there (the ideal DCG over a whole row of
    // m items read m discounts).
    const int64_t c_stop =
        curve ? c_end : std::min<int64_t>(c_end, std::max<int64_t>((int64_t)gain.size(), n_ideal));
    double idcg = 0.0;
    for (int64_t c = 0; c < c_stop; ++c) {
        const double d = disc_at(c);
        if (c < (int64_t)gain.size()) dcg += gain[c] * d;
        if (c < n_ideal) idcg += ideal[c] * d;
        if (curve)
            o[c] = r.formula == DCG         ? dcg
                   : r.formula == IDEAL_DCG ? idcg
                                            : (idcg > 0.0 ? dcg / idcg : 0.0);
    }
    if (!curve)
        o[0] = r.formula == DCG         ? dcg
               : r.formula == IDEAL_DCG ? idcg
                                        : (idcg > 0.0 ? dcg / idcg : 0.0);
    if (r.formula == NDCG) return !(idcg > 0.0);
    return v.n_rel == 0;
}

/* yaap (Robertson, ECIR 2012; trec_eval's yaap): log((1 + S) / (1 + |R| - S)),
 * S = sum over the retrieved relevant items of (relevant items up to it) /
 * its rank, AP's numerator. Not linear in S: its exact expectation under
 * ties needs S's distribution. The groups are independent and a group whose
 * members are all relevant or all not adds a fixed amount; a mixed group of
 * n items, r relevant, at ranks a+1..a+n after c0 relevant items adds
 * sum_j (c0 + j) / (a + q_j) over the positions q_1 < ... < q_r of its
 * relevant members, each of the C(n, r) position sets equally likely.
 * S's distribution is the convolution of the mixed groups' ones (equal
 * sums merged); past max_support points the row is flagged
 * (FLAG_TIES_TOO_MANY) and its value left 0: the caller names
 * ignore_ties=True. Returns whether the row is empty for it (never: yaap is
 * log(1) = 0 without relevant items, as in trec_eval). */
inline bool yaap_value(const RowView &v, int64_t end, DcgWork &w, double *o, uint8_t &flags,
                       int64_t max_support = (int64_t)1 << 20) {
    std::vector<std::pair<double, double>> &dist = w.dist, &next = w.next, &group = w.group;
    dist.assign(1, {0.0, 1.0});
    double fixed = 0.0, c0 = 0.0;
    const double R = (double)v.n_rel;
    bool too_many = false;
    v.groups.each(std::min(end, v.K_eff), [&](int64_t a, int64_t b) {
        const int64_t n = b - a;
        const int64_t r = (int64_t)v.rg[a];
        if (too_many) return;
        if (r == 0) return;
        if (r == n || n == 1) {  // fixed: every member relevant
            for (int64_t p = a; p < b; ++p) fixed += (c0 + (double)(p - a + 1)) / (double)(p + 1);
            c0 += (double)r;
            return;
        }
        const double support = std::exp(lchoose((double)n, (double)r));
        if (support * (double)dist.size() > (double)max_support) {
            too_many = true;
            return;
        }
        // Every set of r positions among the n, by a running odometer.
        group.clear();
        std::vector<int64_t> &q = w.q;
        q.resize((size_t)r);
        for (int64_t j = 0; j < r; ++j) q[j] = j;
        const double prob = 1.0 / support;
        while (true) {
            double sg = 0.0;
            for (int64_t j = 0; j < r; ++j) sg += (c0 + (double)(j + 1)) / (double)(a + q[j] + 1);
            group.push_back({sg, prob});
            int64_t j = r - 1;
            while (j >= 0 && q[j] == n - r + j) --j;
            if (j < 0) break;
            ++q[j];
            for (int64_t i = j + 1; i < r; ++i) q[i] = q[i - 1] + 1;
        }
        next.clear();
        for (const auto &x : dist)
            for (const auto &y : group) next.push_back({x.first + y.first, x.second * y.second});
        std::sort(next.begin(), next.end());
        dist.clear();
        for (const auto &x : next) {
            if (!dist.empty() && dist.back().first == x.first) dist.back().second += x.second;
            else dist.push_back(x);
        }
        c0 += (double)r;
    });
    if (too_many) {
        flags |= FLAG_TIES_TOO_MANY;
        o[0] = 0.0;
        return false;
    }
    double value = 0.0;
    for (const auto &x : dist) {
        const double S = fixed + x.first;
        value += x.second * std::log((1.0 + S) / (1.0 + R - S));
    }
    o[0] = value;
    return false;
}

}  // namespace rankk

#endif
