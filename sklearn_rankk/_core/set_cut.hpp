/* Set cut-offs deeper than the K ranks select_top selected (R-precision,
 * precision@c, hit@c, ... for c > K), answered from the selection's
 * candidates: set_cut.
 */
#ifndef SKLEARN_RANKK_SET_CUT_HPP
#define SKLEARN_RANKK_SET_CUT_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "scratch.hpp"
#include "select.hpp"

namespace rankk {

/* A set cut-off c deeper than the ranks select_top put in order, from its
 * candidates (sc.cand: every item whose score reaches their lowest, at
 * least c of them; sc.prev their scores, in any order, which it reorders):
 * the expected relevant items in the first c ranks (cum) and the
 * probability that none of them is relevant (survive, for hit), exact
 * under ties. An item whose tie group lies within the first c ranks counts
 * 1; the group straddling rank c (all its members are candidates) counts
 * its relevant items times the share of its ranks within the cut, and hit
 * multiplies, rank by rank of that group, the chance that the rank is not
 * relevant given that the earlier ones are not.
 * LATER: one ranking, the later column first among equal scores. Items at
 * -inf are at no rank. The same floating-point operations as process_row's
 * group loop for a cut within its ranks, so that a row gets the same value
 * whichever way it is served.
 *
 * With few relevant candidates, each one's place is counted (items above
 * it, items tied with it: branch-free passes); else the c-th score is
 * selected and the candidates are split at it. */
template <bool LATER, class Rel>
void set_cut(Scratch &sc, int64_t c, const Rel &rel, double t, double &cum, double &survive) {
    std::vector<std::pair<double, int64_t>> &cand = sc.cand;
    const std::vector<double> &scores = sc.prev;
    std::vector<int64_t> &work = sc.group;
    std::vector<uint8_t> &is_rel = sc.cand_rel;
    const int64_t n = (int64_t)cand.size();
    // r_in: relevant items whose group is within the cut; the straddling
    // group: n_g items, r_g relevant, in_group of its ranks within the cut.
    int64_t r_in = 0, n_g = 0, r_g = 0, in_group = 0;
    // (Grown only: a resize after a clear would zero n entries a row.)
    if ((int64_t)work.size() < n) work.resize((size_t)n);
    if ((int64_t)is_rel.size() < n) is_rel.resize((size_t)n);
    int64_t n_relevant = 0;  // the relevant candidates' positions
    {
        // Raw pointers and a copy of rel: held in registers, where the
        // vectors' and rel's own would be read again after every store.
        const Rel r = rel;
        const std::pair<double, int64_t> *cd = cand.data();
        int64_t *wk = work.data();
        uint8_t *ir = is_rel.data();
        for (int64_t i = 0; i < n; ++i) {
            wk[n_relevant] = i;
            const uint8_t relevant = r.grade(cd[i].second) > t;  // (read once)
            ir[i] = relevant;
            n_relevant += relevant & (int64_t)(cd[i].first > -INFINITY);
        }
    }
    if (n_relevant <= 8) {
        for (int64_t q = 0; q < n_relevant; ++q) {
            const double v = cand[work[q]].first;
            const int64_t col = cand[work[q]].second;
            int64_t above, tied;
            count_above_equal(scores.data(), n, v, above, tied);
            if (LATER && tied > 1) {  // the tied items of later columns
                tied = 0;
                for (int64_t i = 0; i < n; ++i)
                    tied += (int64_t)(cand[i].first == v) & (int64_t)(cand[i].second > col);
            } else if (LATER) {
                tied = 0;
            }
            if (LATER) {
                r_in += above + tied < c;  // its rank
            } else if (above + tied <= c) {
                ++r_in;
            } else if (above < c) {
                ++r_g;
                n_g = tied;
                in_group = c - above;
            }
        }
    } else {
        // The c-th score of the candidates (scores: theirs, in any order).
        const double at = kth_largest(sc, c);
        // Branch-free: W4's candidates are two tie groups interleaved by
        // column, which branches on the score mispredict. With LATER, the
        // items at the c-th score are listed too (their positions in cand).
        int64_t above = 0, r_above = 0, r_at = 0, n_at = 0;
        {
            const std::pair<double, int64_t> *cd = cand.data();
            const uint8_t *ir = is_rel.data();
            int64_t *wk = work.data();
            for (int64_t i = 0; i < n; ++i) {
                const double v = cd[i].first;
                const int64_t r = ir[i], gt = v > at, eq = v == at;
                if (LATER) wk[n_at] = i;
                above += gt;
                r_above += r & gt;
                n_at += eq;
                r_at += r & eq;
            }
        }
        r_in = r_above;
        if (at == -INFINITY) {  // not retrieved: at no rank
        } else if (LATER) {  // the group's later columns first
            const int64_t want = c - above;
            // The items at the c-th score (listed above), of which the
            // `want` of the latest columns are within the cut: the last
            // `want` when listed by column, as the column-ordered rest
            // leaves them; else selected.
            int64_t *wk = work.data();
            bool ascending = want < n_at;
            for (int64_t q = 1; ascending && q < n_at; ++q)
                ascending = cand[wk[q]].second > cand[wk[q - 1]].second;
            if (want == n_at) {
                r_in += r_at;
            } else if (ascending) {
                for (int64_t q = n_at - want; q < n_at; ++q) r_in += is_rel[wk[q]];
            } else {
                for (int64_t q = 0; q < n_at; ++q) wk[q] = cand[wk[q]].second;  // their columns
                std::nth_element(wk, wk + (want - 1), wk + n_at, std::greater<int64_t>());
                for (int64_t q = 0; q < want; ++q) r_in += rel.grade(wk[q]) > t;
            }
        } else if (above + n_at == c) {
            r_in += r_at;
        } else if (r_at > 0) {
            r_g = r_at;
            n_g = n_at;
            in_group = c - above;
        }
    }
    cum = (double)r_in;
    survive = r_in > 0 ? 0.0 : 1.0;
    if (r_g == 0) return;
    const double rg = (double)r_g, ng = (double)n_g;
    cum += (double)in_group * (rg / ng);
    if (r_in == 0)
        for (int64_t o = 0; o < in_group; ++o) {
            double hv = rg / (ng - (double)o);
            hv = hv > 1.0 ? 1.0 : (hv < 0.0 ? 0.0 : hv);
            survive *= 1.0 - hv;
        }
}

}  // namespace rankk

#endif
