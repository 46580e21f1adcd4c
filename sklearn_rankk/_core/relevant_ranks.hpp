/* Whole-ranking measures from the relevant items' ranks alone, without
 * sorting the row.
 *
 * Average precision, bpref, inferred AP, interpolated precision, binG,
 * yaap, ERR, (n)DCG, MRR, RBP, Rndcg, ndcg_rel and G over the whole ranking read
 * nothing of a tie group without a relevant item but how many items it
 * holds (and, for bpref and infAP, how many of them are judged non-relevant
 * or not judged): every per-rank term there is 0, and the counts before a
 * relevant group enter only as sums of whole numbers, exact in any order.
 * So the row is never sorted: the relevant retrieved items' scores are
 * sorted (the keys, O(|R| log |R|); with exact ties and at most 16 distinct
 * scores found by a hash, O(|R|), few_keys.hpp) and every item is counted
 * into the gap between two keys or the tie group of a key (key_buckets.hpp:
 * a bucket index over the keys' range, O(1) an item on average; a binary
 * search where the keys' range is infinite; comparisons with each of at
 * most 16 keys, few_keys.hpp).
 * The gaps become one group each, so the formulas read the same RowView and
 * walk (TieGroups::each) as on sorted ranks, and give the same values bit
 * for bit. (rbp_resid reads the unjudged items' ranks instead: it is 0
 * without an unjudged retrieved item, and left to the sorted path
 * otherwise. Fall-out over the whole ranking reads no rank: it counts the
 * judged non-relevant items at -inf.)
 *
 * Exact ties: a key is a distinct relevant score; its group holds every item
 * of that score. ignore_ties (later column first): a key is a relevant item
 * (score, column), its group is itself, and an item ranks above it when its
 * score is larger or equal with a larger column.
 */
#ifndef SKLEARN_RANKK_RELEVANT_RANKS_HPP
#define SKLEARN_RANKK_RELEVANT_RANKS_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "formulas_dcg.hpp"
#include "formulas_err.hpp"
#include "formulas_gain.hpp"
#include "formulas_iprec.hpp"
#include "formulas_judged.hpp"
#include "formulas_rank.hpp"
#include "key_buckets.hpp"
#include "request.hpp"
#include "rows.hpp"
#include "scratch.hpp"
#include "select.hpp"
#include "ties.hpp"

namespace rankk {

// A request answered here: these formulas over the whole ranking, or the
// retrieved items (the same ranks: the rest are at -inf, at no rank), of a
// row of m items (the caller checks threshold >= 0, so that only stored
// grades can be relevant or unjudged). AP's "min" denominator reads its
// nominal cut-off: the whole ranking only.
inline bool reads_relevant_ranks(const Request &r, int64_t m) {
    if (r.curve) return false;
    const bool whole = r.k == K_WHOLE || r.k >= m;
    switch (r.formula) {
    case AVERAGE_PRECISION:
    case YAAP:
    case ERR:
        return whole;
    case DCG:
    case NDCG:  // log discounts (no table): linear or exponential gains, or a map
        return whole && !r.disc;
    case RECIPROCAL_RANK:
        return whole;
    case BPREF:
    case INFERRED_AP:
    case IPREC:
    case ELEVEN_PT:
    case BING:
    case RNDCG:
    case NDCG_REL:
    case G_GAIN:
    case RBP:
    case RBP_RESIDUAL:
    case FALL_OUT:
        return whole || r.k == K_NRET;
    default:
        return false;
    }
}

/* The keys of relevant_rank_view with exact ties, straight from its items
 * (the first n of rr.items, with their gains and grades: found in column
 * order), where they hold at most FEW_KEYS distinct scores (few_distinct):
 * each key's count, first column and gain sums added in column order, and
 * with `grades` the grades placed in rank order (a counting sort, stable).
 * Sorting the items by score, then column, gives the same keys, sums (the
 * same additions in the same order) and grade order, bit for bit; a row's
 * handful of keys (W3, W4: 11 scores) costs O(|R|) here. False (nothing
 * set) where few_distinct declines. */
inline bool few_keys(RelRanks &rr, size_t n, bool gains, bool grades) {
    const auto &items = rr.items;
    auto &kid = rr.kid;
    kid.resize(n);
    double dk[FEW_KEYS];
    const int64_t n_dist = few_distinct(
        (int64_t)n, [&](int64_t i) { return items[(size_t)i].first; },
        [&](int64_t i) { return items[(size_t)i].second; }, dk, kid.data());
    if (n_dist < 0) return false;
    auto &key = rr.key, &kr = rr.kr, &kg = rr.kg, &kx = rr.kx, &ky = rr.ky;
    auto &kcol = rr.kcol, &kfirst = rr.kfirst;
    key.assign(dk, dk + n_dist);
    kcol.assign(n_dist, -1);
    kr.assign(n_dist, 0.0);
    kg.clear();
    kx.clear();
    if (gains) {
        kg.assign(n_dist, 0.0);
        kx.assign(n_dist, 0.0);
    }
    for (size_t i = 0; i < n; ++i) {
        const int32_t r = kid[i];
        if (kcol[r] < 0) kcol[r] = items[i].second;  // (the lowest column)
        kr[r] += 1.0;
        if (gains) {
            kg[r] += rr.item_g[i];
            kx[r] += rr.item_x[i];
        }
    }
    ky.clear();
    kfirst.clear();
    if (grades) {
        int64_t at[FEW_KEYS];
        int64_t a = 0;
        for (int64_t r = 0; r < n_dist; ++r) {
            kfirst.push_back(a);
            at[r] = a;
            a += (int64_t)kr[r];
        }
        ky.resize(n);
        for (size_t i = 0; i < n; ++i) ky[(size_t)at[kid[i]]++] = rr.item_y[i];
    }
    return true;
}

/* Whether the plan's every request is answered from the relevant ranks. */
inline bool all_from_relevant_ranks(const Plan &plan, int64_t m) {
    bool all = plan.threshold >= 0.0;
    for (int32_t q = 0; q < plan.n_req && all; ++q) all = reads_relevant_ranks(plan.req[q], m);
    return all;
}

/* The groups of the ranks down to the last relevant retrieved item: each
 * key's group and, before it, the gap since the previous key as one group,
 * into rr (see RelRanks); returns the view (K = K_eff = ranks covered).
 * first_key (MRR alone): down to the first relevant group only. */
template <class S, bool LATER, class Rel>
RowView relevant_rank_view(const S *s, int64_t m, const Rel &rel, double t, bool judged,
                           int64_t n_rel, RelRanks &rr, uint8_t &flags, bool gains = false,
                           bool exponential = false, bool grades = false,
                           bool first_key = false) {
    // The keys: the relevant retrieved items in rank order; with `gains`,
    // each key's sums of linear (and exponential) gains too, added in rank
    // order as the sorted path adds its tie group's (add_gain: a relevant
    // item's gain is its grade when positive).
    // (written in place, the first n_found of vectors kept across rows and
    // grown by doubling: no call per item)
    auto &items = rr.items;
    // With `grades`, each key's grades too (ky, in rank order, from kfirst).
    auto &ig = rr.item_g, &ix = rr.item_x, &iy = rr.item_y;
    auto fit = [&](size_t size) {
        if (items.size() < size) items.resize(size);
        for (auto *v : {&ig, &ix, &iy})
            if ((v == &iy ? grades : gains) && v->size() < size) v->resize(size);
    };
    fit(items.size());
    double top = 0.0;  // the largest relevant grade, retrieved or not
    size_t n_found = 0;
    int64_t last_j = -1;
    // The items found in column order (validation gives the kernel CSR rows
    // in canonical form: always, unless the kernel is called otherwise)
    bool by_column = true;
    rel.each_stored([&](int64_t j, double y) {
        const double x = (double)s[j];
        if ((grades || gains) && y > t && y > top) top = y;
        if (y > t && x > -INFINITY) {
            if (n_found == items.size()) fit(std::max<size_t>(64, 2 * n_found));
            by_column &= j > last_j;
            last_j = j;
            items[n_found] = {x, j};
            if (gains) {
                ig[n_found] = y > 0.0 ? gain_lin(y, 0) : 0.0;
                ix[n_found] = exponential && y > 0.0 ? gain_exp(y, 0) : 0.0;
            }
            if (grades) iy[n_found] = y;
            ++n_found;
        }
    });
    const auto i0 = items.begin(), i1 = items.begin() + (std::ptrdiff_t)n_found;
    auto &key = rr.key, &kr = rr.kr, &kg = rr.kg, &kx = rr.kx, &ky = rr.ky;
    auto &kcol = rr.kcol, &kfirst = rr.kfirst;
    // Exact ties and few distinct relevant scores: the keys without
    // sorting the items (few_keys); else the items sorted.
    if (LATER || first_key || !few_keys(rr, n_found, gains, grades)) {
        const Better<LATER> better{};
        auto &order = rr.order;
        // With first_key (no gains, no grades): the first key alone, its tied
        // relevant items (exact ties) gathered after it; the rest unsorted.
        size_t n_items = n_found;
        if (first_key && !gains && !grades && n_found > 0) {
            std::iter_swap(i0, std::min_element(i0, i1, better));
            n_items = 1;
            for (size_t i = 1; i < n_found && !LATER; ++i)
                if (items[i].first == items[0].first) std::swap(items[n_items++], items[i]);
        } else if (by_column && n_found <= (size_t)RANK_ALL_MAX) {
            /* Few items in column order: each one's rank counted
             * (column_order_ranks: branch-free, where a comparison sort
             * mispredicts at random; W1's 30 a row took a tenth of AP's
             * time over the whole ranking sorted), the same total order. */
            auto &xs = rr.item_s;
            auto &rank = rr.item_rank;
            xs.resize(n_found);
            rank.resize(n_found);
            for (size_t i = 0; i < n_found; ++i) xs[i] = items[i].first;
            column_order_ranks<LATER>(xs.data(), (int64_t)n_found, rank.data());
            if (!gains && !grades) {
                auto &placed = rr.placed;
                placed.resize(n_found);
                for (size_t i = 0; i < n_found; ++i) placed[(size_t)rank[i]] = items[i];
                std::copy(placed.begin(), placed.end(), i0);
            } else {
                order.resize(n_found);
                for (size_t i = 0; i < n_found; ++i)
                    order[(size_t)rank[i]] = {items[i].first, items[i].second, (int64_t)i};
            }
        } else if (!gains && !grades) {
            std::sort(i0, i1, better);
        } else {  // the gains follow their items: the items sorted with
                  // their indices (a copy compared directly, not indices
                  // compared through items)
            order.resize(n_found);
            for (size_t i = 0; i < n_found; ++i)
                order[i] = {items[i].first, items[i].second, (int64_t)i};
            std::sort(order.begin(), order.end(), [](const auto &a, const auto &b) {
                return worse<LATER>(b.x, b.j, a.x, a.j);  // a before b
            });
        }
        key.clear();
        kcol.clear();
        kr.clear();
        kg.clear();
        kx.clear();
        ky.clear();
        kfirst.clear();
        for (size_t i = 0; i < n_items; ++i) {
            const size_t at = gains || grades ? (size_t)order[i].at : i;
            const auto &p = items[at];
            if (grades) ky.push_back(iy[at]);
            if (!LATER && !key.empty() && key.back() == p.first) {
                kr.back() += 1.0;
                if (gains) {
                    kg.back() += ig[at];
                    kx.back() += ix[at];
                }
                continue;
            }
            key.push_back(p.first);
            kcol.push_back(p.second);
            kr.push_back(1.0);
            if (grades) kfirst.push_back((int64_t)i);
            if (gains) {
                kg.push_back(0.0 + ig[at]);
                kx.push_back(0.0 + ix[at]);
            }
        }
    }
    rr.top = top;
    const int64_t D = (int64_t)key.size();
    key.push_back(-INFINITY);
    kcol.push_back(-1);
    // Items per slot (the last gap, below every key, is never read).
    auto &n = rr.n;
    n.assign(2 * D + 2, 0);
    KeyBuckets &kb = rr.buckets;
    if (!LATER && D <= FEW_KEYS)  // (count_slots compares: no buckets to build)
        kb.search_only(key.data(), kcol.data(), D);
    else
        kb.build(key.data(), kcol.data(), D, m, std::is_same<S, float>::value);
    bool bad = false;
    rr.n_ret = -1;  // not counted
    if (D == 0) {  // no relevant item retrieved: no group is read
        bad = any_nan(s, m);
    } else {
        rr.n_ret = m - count_slots<S, LATER>(s, m, kb, n.data(), bad);
    }
    if (bad) flags |= FLAG_NAN_SCORE;
    // Unjudged items per slot (infAP tells the two kinds apart).
    auto &wn = rr.wn;
    auto &wp = rr.wp;
    wn.assign(2 * D + 2, 0.0);
    wp.assign(2 * D + 2, 0.0);
    if (judged && rel.count_negative() > 0)
        rel.each_stored([&](int64_t j, double y) {
            const double x = (double)s[j];
            if (y < 0.0 && x > -INFINITY) {
                Unjudged u;
                u.add(y, t);
                const int64_t k = kb.slot<LATER>(x, j);
                wn[k] += u.nonpool;
                wp[k] += u.pooled;
            }
        });
    // The groups, indexed by their first rank as on sorted ranks.
    int64_t covered = 0;
    for (int64_t k = 0; k < 2 * D; ++k) covered += n[k];
    for (auto *v : {&rr.ng, &rr.rg, &rr.w_np, &rr.w_pool})
        if ((int64_t)v->size() < covered) v->resize(covered);
    if (gains)
        for (auto *v : {&rr.gg, &rr.gx, &rr.eg})
            if ((int64_t)v->size() < covered) v->resize(covered);
    if (grades) {
        if ((int64_t)rr.gy.size() < covered) rr.gy.resize(covered);
        if ((int64_t)rr.gfirst.size() < covered) rr.gfirst.resize(covered);
    }
    auto &bounds = rr.bounds;
    bounds.clear();
    int64_t a = 0;
    for (int64_t k = 0; k < 2 * D; ++k) {
        if (n[k] == 0) continue;
        bounds.push_back(a);
        rr.ng[a] = (double)n[k];
        rr.rg[a] = (k & 1) ? kr[k >> 1] : 0.0;
        if (gains) {  // and the expected gain at each rank, as the driver's
            rr.gg[a] = (k & 1) ? kg[k >> 1] : 0.0;
            rr.gx[a] = (k & 1) ? kx[k >> 1] : 0.0;
            rr.eg[a] = (k & 1) ? rr.gg[a] / rr.ng[a] : 0.0;  // (a gap: +0 / n = +0)
        }
        if (grades) {  // a group's first grade (a gap's: 0, not relevant)
            rr.gfirst[a] = (k & 1) ? kfirst[k >> 1] : 0;
            rr.gy[a] = (k & 1) ? ky[kfirst[k >> 1]] : 0.0;
        }
        rr.w_np[a] = wn[k];
        rr.w_pool[a] = wp[k];
        a += n[k];
    }
    bounds.push_back(a);
    const TieGroups groups{bounds.data(), (int64_t)bounds.size() - 1};
    // grade and eg: at a group's first rank only
    const double *grade = grades ? rr.gy.data() : nullptr;
    const double *eg = gains ? rr.eg.data() : nullptr;
    return RowView{a,       a,       m,       n_rel,          grade,             nullptr,
                   eg,      nullptr, nullptr, nullptr,        rr.ng.data(),      rr.rg.data(),
                   rr.w_np.data(), rr.w_pool.data(), nullptr, groups};
}

/* Every request q with answer[q] set (reads_relevant_ranks, whole ranking):
 * its value into out and its empty flag, from the relevant items' ranks. A
 * DCG or nDCG that overflows float64 (huge grades) is left to the sorted
 * path, which scales it: its answer[q] is cleared. Returns the requests
 * answered. */
template <class S, class Rel>
int32_t answer_from_relevant_ranks(const S *s, int64_t m, const Rel &rel, const Plan &plan,
                                   uint8_t *answer, int64_t n_rel, int64_t n_nonrel,
                                   Scratch &sc, double *out, uint8_t *empty, uint8_t &flags,
                                   bool try_sparse = true) {
    const double t = plan.threshold;
    // A dense row, mostly grade 0: read as a CSR row of its other items
    // (the same grades in the same order: the same values). try_sparse:
    // false where the caller found it is not such a row.
    Sparse sv;
    if (try_sparse && dense_as_sparse(rel, m, sc.auc.dense, sv, s, (size_t)m * sizeof(S))) {
        sv.t = t;
        return answer_from_relevant_ranks(s, m, sv, plan, answer, n_rel, n_nonrel, sc, out, empty,
                                          flags);
    }
    /* Requests that read no rank. rbp_resid: 0 without an unjudged
     * retrieved item; else the unjudged items' ranks are read on sorted
     * ranks (its answer[q] is cleared). Fall-out: the judged non-relevant
     * retrieved items (those not at -inf) over the row's, the whole numbers
     * the sorted path's count reaches at the end of the ranking. */
    bool only_rankless = true, want_resid = false, want_fo = false;
    for (int32_t q = 0; q < plan.n_req; ++q) {
        if (!answer[q]) continue;
        const int32_t f = plan.req[q].formula;
        want_resid = want_resid || f == RBP_RESIDUAL;
        want_fo = want_fo || f == FALL_OUT;
        only_rankless = only_rankless && (f == RBP_RESIDUAL || f == FALL_OUT);
    }
    if (want_resid || want_fo) {
        bool unjudged = false, nan = false;
        if (want_resid && rel.count_negative() > 0)
            rel.each_stored([&](int64_t j, double y) {
                unjudged = unjudged || (y < 0.0 && (double)s[j] > -INFINITY);
            });
        // The judged non-relevant items at -inf: every item there but the
        // relevant and the unjudged ones (stored: the others are grade 0).
        int64_t nonrel_out = 0;
        if (want_fo) {
            nonrel_out = count_minus_inf(s, m, nan);
            if (nonrel_out > 0)
                rel.each_stored([&](int64_t j, double y) {
                    nonrel_out -= (y < 0.0 || y > t) && (double)s[j] == -INFINITY;
                });
        }
        int32_t answered = 0;
        for (int32_t q = 0; q < plan.n_req; ++q) {
            if (!answer[q]) continue;
            const int32_t f = plan.req[q].formula;
            double *o = out + plan.req[q].col;
            if (f == RBP_RESIDUAL && unjudged) {
                answer[q] = 0;
            } else if (f == RBP_RESIDUAL) {
                o[0] = 0.0;
                empty[q] = 0;  // defined whatever the relevant items
                ++answered;
            } else if (f == FALL_OUT) {
                const double den = (double)n_nonrel;
                o[0] = den > 0 ? (double)(n_nonrel - nonrel_out) / den : 0.0;
                empty[q] = n_nonrel == 0;
                ++answered;
            }
        }
        if (only_rankless) {  // no rank read: the scores are checked for NaN
            if (nan || (!want_fo && any_nan(s, m))) flags |= FLAG_NAN_SCORE;
            return answered;
        }
    }
    const bool judged = plan.want_judged != 0;
    bool gains = false, exponential = false, grades = false;
    bool gain_ideal = false;  // Rndcg, ndcg_rel and G read sc.ideal_lin
    // MRR alone reads the ranks down to the first relevant group only.
    bool first_key = true;
    for (int32_t q = 0; q < plan.n_req; ++q) {
        const Request &r = plan.req[q];
        if (!answer[q]) continue;
        const int32_t f = r.formula;
        const bool gain_m = f == RNDCG || f == NDCG_REL || f == G_GAIN;
        const bool mapped = (f == DCG || f == NDCG) && r.n_gain > 0;  // (reads grades)
        if (((f == DCG || f == NDCG) && !mapped) || f == RBP || gain_m) {
            gains = true;
            exponential = exponential || (r.exponential && !gain_m);
        }
        gain_ideal = gain_ideal || gain_m;
        grades = grades || f == ERR || f == NDCG_REL || f == G_GAIN || mapped;
        first_key = first_key && f == RECIPROCAL_RANK;
    }
    RelRanks &rr = sc.rel_ranks;
    const RowView v = plan.ties == TIES_EXACT
                          ? relevant_rank_view<S, false>(s, m, rel, t, judged, n_rel, rr, flags,
                                                         gains, exponential, grades, first_key)
                          : relevant_rank_view<S, true>(s, m, rel, t, judged, n_rel, rr, flags,
                                                        gains, exponential, grades, first_key);
    // Interpolated precision: every recall point asked, in one pass.
    std::vector<int64_t> &cs = sc.iprec.cs;
    std::vector<double> &values = sc.iprec.values;
    cs.clear();
    for (int32_t q = 0; q < plan.n_req; ++q) {
        const Request &r = plan.req[q];
        if (!answer[q]) continue;
        if (r.formula == IPREC) cs.push_back(recall_point(r.level, n_rel));
        if (r.formula == ELEVEN_PT)
            for (int64_t i = 0; i < r.n_levels; ++i) cs.push_back(recall_point(r.levels[i], n_rel));
    }
    if (!cs.empty()) {
        std::sort(cs.begin(), cs.end());
        cs.erase(std::unique(cs.begin(), cs.end()), cs.end());
        std::vector<IprecGroup> &with_rel = sc.iprec.groups;
        with_rel.clear();
        int64_t rel_ret = 0;
        v.groups.each(v.K_eff, [&](int64_t a, int64_t b) {
            const int64_t r_g = (int64_t)v.rg[a];
            if (r_g > 0) with_rel.push_back({a, b - a, r_g, rel_ret});
            rel_ret += r_g;
        });
        iprec_values(with_rel, rel_ret, cs, values, sc.iprec);
    }
    auto iprec_at = [&](double level) {
        const int64_t c = recall_point(level, n_rel);
        return values[std::lower_bound(cs.begin(), cs.end(), c) - cs.begin()];
    };
    // The ideal ranking's grades (nDCG), decreasing, once for the row; the
    // gain measures' positive ones (sc.ideal_lin, as the driver sets it).
    std::vector<double> &ideal = sc.work_g;
    bool have_ideal = false;
    if (gain_ideal) {  // as the driver sets it (into sc.work_g: ideal)
        ideal_gains(rel, n_rel, n_rel, plan.any_exponential != 0, sc, flags);
        have_ideal = true;
    }
    // A key group's relevant grades, in rank order (ERR, ndcg_rel, G: the
    // rest of the group has none; a gap, none).
    auto members = [&](int64_t a, int64_t, bool, auto &&fn) {
        const int64_t first = rr.gfirst[a], count = (int64_t)v.rg[a];
        for (int64_t i = first; i < first + count; ++i) fn(rr.ky[i]);
    };
    int32_t answered = 0;
    for (int32_t q = 0; q < plan.n_req; ++q) {
        if (!answer[q]) continue;
        ++answered;
        const Request &r = plan.req[q];
        double *o = out + r.col;
        switch (r.formula) {
        case DCG:
        case NDCG: {
            if (r.n_gain > 0) {
                /* A gain map: the sorted path's dcg_family over these
                 * groups. A key's group sums its relevant members' mapped
                 * gains in rank order (its other members add +0 there); a
                 * gap's mean gain is 0, as there, and so is every term past
                 * the last group. The same values, bit for bit. */
                auto whole_groups = [](int64_t) { return false; };
                empty[q] = dcg_family(r, v, sc, rel, t, false, m, r.k > 0 ? r.k : m, o, members,
                                      whole_groups);
                if (r.formula == NDCG && plan.any_exponential && rr.top >= 1024.0)
                    flags |= FLAG_EXP_OVERFLOW;  // as the sorted path flags it
                continue;
            }
            /* The sorted path's sum over ranks, over the groups with a
             * relevant item (elsewhere every expected gain is 0): the same
             * terms, each group's gain sum over its size times each of its
             * ranks' discount, in the same order; likewise the ideal DCG. */
            const bool expo = r.exponential != 0;
            const double *gsum = expo ? rr.gx.data() : rr.gg.data();
            const double *disc = discounts(sc, r.log_base, std::max(v.K_eff, n_rel));
            double dcg = 0.0;
            v.groups.each(v.K_eff, [&](int64_t a, int64_t b) {
                if (!(v.rg[a] > 0.0)) return;
                const double egv = gsum[a] / v.ng[a];
                for (int64_t c = a; c < b; ++c) dcg += egv * disc[c];
            });
            double idcg = 0.0;
            if (r.formula == NDCG) {
                if (!have_ideal) {
                    rel.ideal(ideal, n_rel, n_rel);
                    have_ideal = true;
                }
                for (size_t c = 0; c < ideal.size() && ideal[c] > 0.0; ++c)
                    idcg += (expo ? gain_exp(ideal[c], 0) : ideal[c]) * disc[c];
                if (plan.any_exponential && !ideal.empty() && ideal[0] >= 1024.0)
                    flags |= FLAG_EXP_OVERFLOW;  // as the sorted path flags it
            }
            if (!(std::isfinite(dcg) && std::isfinite(idcg))) {  // the sorted path scales it
                answer[q] = 0;
                --answered;
                continue;
            }
            o[0] = r.formula == DCG ? dcg : (idcg > 0.0 ? dcg / idcg : 0.0);
            // Undefined when the ideal DCG is 0 (no relevant item of positive gain).
            empty[q] = r.formula == NDCG ? !(idcg > 0.0) : n_rel == 0;
            continue;
        }
        case RECIPROCAL_RANK: {
            /* The sorted path's sum over ranks, over the groups with a
             * relevant item: elsewhere the hazard is 0 (a term of 0, a
             * survival times 1), and none is read past the first such group
             * (its last rank's hazard is 1). The same terms in the same
             * order. */
            double survive = 1.0, rr_value = 0.0;
            v.groups.each(v.K_eff, [&](int64_t a, int64_t b) {
                const double r_g = v.rg[a], n_g = v.ng[a];
                if (!(r_g > 0.0) || survive == 0.0) return;
                for (int64_t c = a; c < b; ++c) {
                    double hv = r_g / (n_g - (double)(c - a));
                    hv = hv > 1.0 ? 1.0 : (hv < 0.0 ? 0.0 : hv);
                    rr_value += survive * hv / (double)(c + 1);
                    survive *= 1.0 - hv;
                }
            });
            o[0] = rr_value;
            break;
        }
        case AVERAGE_PRECISION: {
            // The driver's sum over ranks, over the groups with a relevant
            // item (elsewhere every term is 0).
            double cum_e = 0.0, num = 0.0;
            v.groups.each(v.K_eff, [&](int64_t a, int64_t b) {
                const double r_g = v.rg[a], n_g = v.ng[a];
                if (!(r_g > 0.0)) return;
                const double ev = r_g / n_g;
                const double pr = n_g > 1.0 ? r_g * (r_g - 1.0) / (n_g * (n_g - 1.0)) : 0.0;
                const double c0 = cum_e;
                for (int64_t c = a; c < b; ++c) {
                    num += (ev * (1.0 + c0) + (double)(c - a) * pr) / (double)(c + 1);
                    cum_e += ev;
                }
            });
            // The whole ranking: no group straddles the cut (the view's
            // K_eff of 0 says so to ap_value).
            RowView whole = v;
            whole.K_eff = 0;
            o[0] = ap_value(r.denominator, num, cum_e, m, m, whole, 0, 0.0, 0.0);
            break;
        }
        case BPREF:
            o[0] = bpref_value(v, v.K_eff, (double)n_rel, (double)n_nonrel);
            break;
        case INFERRED_AP:
            o[0] = infap_value(v, v.K_eff, (double)n_rel, sc.hx, sc.hy, sc.infap_t, sc.pmf_tab);
            break;
        case BING:  // reads the groups' sizes and relevant counts only
            gain_measure(r, v, sc, 0, v.K_eff, 0.0, t, false, 0, o, members);
            break;
        case RNDCG:  // the ranking's length: the retrieved items
        case NDCG_REL:
        case G_GAIN:
            empty[q] = gain_measure(r, v, sc, n_rel, rr.n_ret, 0.0, t, false, 0, o, members);
            continue;
        case RBP: {
            /* The sorted path's sum over ranks, over the groups with a
             * relevant item (elsewhere every expected gain is 0): the same
             * terms, weights and scale (the largest relevant grade). */
            const double *w = rbp_weights(sc, r.p, v.K_eff);
            double sum = 0.0;
            v.groups.each(v.K_eff, [&](int64_t a, int64_t b) {
                if (!(v.rg[a] > 0.0)) return;
                for (int64_t c = a; c < b; ++c) sum += v.eg[a] * w[c];
            });
            o[0] = sum * (rr.top > 1.0 ? 1.0 / rr.top : 1.0);
            break;
        }
        case RBP_RESIDUAL:  // answered above
        case FALL_OUT:
            continue;
        case IPREC:
            o[0] = iprec_at(r.level);
            break;
        case ELEVEN_PT: {
            double total = 0.0;  // in trec_eval's order: the last level first
            for (int64_t i = r.n_levels - 1; i >= 0; --i) total += iprec_at(r.levels[i]);
            o[0] = r.n_levels > 0 ? total / (double)r.n_levels : 0.0;
            break;
        }
        case ERR: {
            /* The sorted path's walk over the groups: a gap adds nothing and
             * keeps the survival (every member's R is 0), a key's group
             * reads its relevant members' grades in rank order (the sorted
             * path's order within a tie group: by column), the rest R = 0.
             * max_grade=None: the row's largest relevant grade (rr.top). */
            err_value(r, v, sc, rr.top, t, false, v.K_eff, o, members);
            break;
        }
        case YAAP:  // never empty: 0 without a relevant item
            yaap_value(v, v.K_eff, sc.dcg, o, flags);
            empty[q] = 0;
            continue;
        default:
            break;
        }
        empty[q] = n_rel == 0 ? 1 : 0;
    }
    return answered;
}

}  // namespace rankk

#endif
