/* The row driver (process_row: a row's relevance, its selection, its tie
 * groups and per-rank expectations, then every request's formula), the loop
 * over all rows (OpenMP), and the dispatch on the score and grade types.
 */
#ifndef SKLEARN_RANKK_DRIVER_HPP
#define SKLEARN_RANKK_DRIVER_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <new>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "formulas_auc.hpp"
#include "formulas_pairwise.hpp"
#include "formulas_dcg.hpp"
#include "formulas_diversity.hpp"
#include "formulas_err.hpp"
#include "formulas_gain.hpp"
#include "formulas_iprec.hpp"
#include "formulas_judged.hpp"
#include "formulas_rank.hpp"
#include "kernel.hpp"
#include "relevant_ranks.hpp"
#include "request.hpp"
#include "rows.hpp"
#include "scratch.hpp"
#include "select.hpp"
#include "set_cut.hpp"
#include "ties.hpp"

namespace rankk {

// ---- one row -----------------------------------------------------------------

/* Without a cut-off that reads the order, a row is ranked this deep at most:
 * deeper set cut-offs come from the selection's candidates (set_cut), which
 * costs less than selecting and walking that many ranks (R-precision alone,
 * |R| about 30 on W1 and 80 on W4). At 10 and less the ranks are as cheap
 * or cheaper (precision@10 on W4, whose top tie group of about 50 items
 * would be read twice). */
constexpr int64_t SET_RANKS = 10;

template <class S, class Rel>
void process_row(const S *s, int64_t m, const Rel &rel, const Plan &plan, Scratch &sc,
                 double *out, uint8_t *empty, uint8_t &flags) {
    const int32_t n_req = plan.n_req;
    const bool exact = plan.ties == TIES_EXACT;
    const double t = plan.threshold;
    // Requests that all read the row themselves (formulas_auc.hpp) need
    // neither the driver's counts nor its ranks: one read of the grades
    // fewer (or two), where that count checks nothing (count_checks_nothing).
    bool self_reading = count_checks_nothing<Rel>::value;
    for (int32_t q = 0; q < n_req; ++q)
        self_reading = self_reading && auc_reads_row_itself(plan.req[q]);
    for (int32_t q = 0; q < n_req && self_reading; ++q) {
        const Request &r = plan.req[q];
        empty[q] = auc_family_row(r, s, m, rel, t, exact, sc.auc, out + r.col, flags);
    }
    if (self_reading) return;
    // Whole grades, every request from the relevant ranks: a row mostly of
    // grade 0 is read once, as the CSR row of its other items (its count is theirs).
    bool sparse_tried = false;
    if constexpr (dense_whole_grades<Rel>::value) {
        sparse_tried = all_from_relevant_ranks(plan, m);
        Sparse sv;
        if (sparse_tried && dense_as_sparse(rel, m, sc.auc.dense, sv, s, m * sizeof(S))) {
            sv.t = t;
            return process_row(s, m, sv, plan, sc, out, empty, flags);
        }
    }
    const int64_t n_rel = rel.count(flags);
    const bool judged = plan.want_judged != 0;
    // Judged non-relevant items of the whole row, retrieved or not (bpref's
    // and fall-out's denominators): 0 <= y <= t, so none if t < 0; else every
    // item neither relevant nor negative (a negative grade is never relevant
    // then), the implicit zeros of a sparse row included.
    bool want_nr = false;
    for (int32_t q = 0; q < n_req; ++q)
        want_nr = want_nr || plan.req[q].formula == FALL_OUT || plan.req[q].formula == BPREF ||
                  plan.req[q].formula == AUC;
    const int64_t n_nonrel = want_nr && t >= 0.0 ? m - n_rel - rel.count_negative() : 0;
    // Retrieved items (scores above -inf; NaN counts, and is flagged), for
    // the set measures: counted below, unless read from the relevant ranks.
    int64_t n_ret = 0;
    bool have_nret = false;
    // A request's depth: its k, the whole row, |R| (times r.level, as
    // trec_eval's Rprec_mult: (long)(level |R| + 0.9), |R| at level 1) or the
    // retrieved items.
    auto depth = [&](const Request &r) -> int64_t {
        if (r.k == K_NREL)
            return r.level == 1.0 ? n_rel : (int64_t)(r.level * (double)n_rel + 0.9);
        return r.k > 0 ? r.k : (r.k == K_WHOLE ? m : n_ret);
    };
    // Whole-ranking AP, bpref, infAP, interpolated precision, binG, yaap,
    // nDCG, DCG, MRR, ERR, RBP, Rndcg, ndcg_rel and G: from the relevant
    // items' ranks, without sorting the row; rbp_resid and fall-out from
    // counts (relevant_ranks.hpp). The rest of the driver skips them.
    std::vector<uint8_t> &by_rr = sc.by_rel_ranks;
    by_rr.assign((size_t)n_req, 0);
    int32_t n_rr = 0;
    for (int32_t q = 0; q < n_req && t >= 0.0; ++q)
        if (reads_relevant_ranks(plan.req[q], m)) {
            by_rr[q] = 1;
            ++n_rr;
        }
    if (n_rr > 0)
        n_rr = answer_from_relevant_ranks(s, m, rel, plan, by_rr.data(), n_rel, n_nonrel, sc, out,
                                          empty, flags, !sparse_tried);
    if (n_rr == n_req) return;
    for (int32_t q = 0; q < n_req; ++q)
        if (plan.req[q].k == K_NRET && !by_rr[q]) {
            for (int64_t j = 0; j < m; ++j) n_ret += !((double)s[j] == -INFINITY);
            have_nret = true;
            break;
        }
    // How deep this row is ranked, and how deep its ideal ranking is read.
    // Set cut-offs (a sum over the first c ranks: precision, recall, F,
    // hit, R-precision, ...) deeper than every other cut-off are answered
    // from the selection's candidates (set_cut) instead of ranks: K is the
    // deepest other cut-off (without any, the shallowest set one), and the
    // candidates reach K_all, the deepest of all. Rows short enough to be
    // selected whole: K = K_all.
    int64_t K_all = 1, K_ord = 0, K_set = 0, K_ideal = 0;
    auto is_set = [](const Request &r) {
        return !r.curve && (formula_reads(r.formula) & SET_SUM) != 0;
    };
    // A set measure (or utility) cut at the retrieved items reads only the
    // relevant items among them: every retrieved item is within that cut
    // and no tie group straddles it (the rest are at -inf, at no rank). It
    // sets no depth: it is answered from a count (retrieved_relevant)
    // wherever the ranks do not reach it.
    auto at_nret = [&](const Request &r) {
        return r.k == K_NRET && !r.curve && (is_set(r) || r.formula == UTILITY);
    };
    for (int32_t q = 0; q < n_req; ++q) {
        const Request &r = plan.req[q];
        if (at_nret(r) || auc_reads_row_itself(r) || by_rr[q] || r.formula == IDEAL_DCG) continue;
        int64_t want = std::min(depth(r), m);
        K_all = std::max(K_all, want);
        if (!is_set(r)) K_ord = std::max(K_ord, want);
        else if (want > 0 && (K_set == 0 || want < K_set)) K_set = want;
        if (r.formula == NDCG) K_ideal = std::max(K_ideal, want);
        K_ideal = std::max(K_ideal, gain_ideal_depth(r.formula, n_rel));
        if (r.formula == ERR && r.max_grade != r.max_grade)  // max_grade=None: the top grade
            K_ideal = std::max<int64_t>(K_ideal, 1);
    }
    K_all = std::min(K_all, m);
    int64_t K = K_ord > 0 ? K_ord : std::max<int64_t>(std::min<int64_t>(K_set, SET_RANKS), 1);
    K = K_all * 8 < m ? std::min(K, K_all) : K_all;
    // Requests that read the row by themselves (formulas_auc.hpp) rank
    // nothing, nor does the ideal DCG (it reads the grades only; the scores
    // are still checked for NaN).
    bool self_only = true, any_ideal = false;
    for (int32_t q = 0; q < n_req; ++q) {
        const bool ideal = plan.req[q].formula == IDEAL_DCG;
        any_ideal = any_ideal || ideal;
        self_only = self_only && (auc_reads_row_itself(plan.req[q]) || by_rr[q] || ideal);
    }
    if (self_only) {
        K = 0;
        if (any_ideal) {
            if (any_nan(s, m)) flags |= FLAG_NAN_SCORE;
        }
    }
    // Ranks [0, D) must be in order: the cut-offs of the formulas that read
    // the order (MRR, AP, DCG, nDCG, every curve) and every cut-off short of
    // K. Beyond D only sums at cut K are read (precision, recall, F1, hit,
    // R-precision): no need to sort there (see order_top).
    int64_t D = 0;
    for (int32_t q = 0; q < n_req && D < K; ++q) {
        const Request &r = plan.req[q];
        if (by_rr[q]) continue;
        const int64_t cut = std::min(depth(r), K);
        const bool ordered = r.curve || (formula_reads(r.formula) & READS_ORDER) != 0;
        if (ordered || cut < K) D = std::max(D, cut);
    }
    // Beyond D the set-based formulas read only e, and hit its h.
    int64_t D_h = D;
    for (int32_t q = 0; q < n_req; ++q)
        if (plan.req[q].formula == HIT)
            D_h = std::max(D_h, std::min(plan.req[q].k > 0 ? plan.req[q].k : m, K));
    int64_t outside = 0, K_eff = 0;
    bool listed = false;
    if (K > 0) {
        sc.tv.resize(K);
        sc.tj.resize(K);
        if (K > SMALL_K) {
            sc.hv.resize(K);
            sc.hj.resize(K);
        }
        bool nan = false;
        outside = exact ? select_top<S, false>(s, m, K, K_all, sc.tv.data(), sc.tj.data(), sc,
                                               nan, listed, D)
                        : select_top<S, true>(s, m, K, K_all, sc.tv.data(), sc.tj.data(), sc,
                                              nan, listed, D);
        if (nan) flags |= FLAG_NAN_SCORE;
        K_eff = K;
        while (K_eff > 0 && !(sc.tv[K_eff - 1] > -INFINITY)) --K_eff;
    }
    const double *tv = sc.tv.data();
    const int64_t *tj = sc.tj.data();

    // Per-rank quantities over the retrieved ranks.
    const bool any_exp = plan.any_exponential != 0;
    // (Every rank below K_eff is written by the group loop: no zeroing.)
    for (auto *vec :
         {&sc.grade, &sc.e, &sc.ecum, &sc.eg_lin, &sc.eg_exp, &sc.h, &sc.pair, &sc.ng, &sc.rg})
        vec->resize(K_eff);
    sc.gstart.resize(K_eff);
    if (judged) {
        sc.w_np.resize(K_eff);
        sc.w_pool.resize(K_eff);
    }
    double *e = sc.e.data(), *eg = sc.eg_lin.data(), *ex = sc.eg_exp.data(), *h = sc.h.data();
    double *pair = sc.pair.data(), *ng = sc.ng.data(), *rg = sc.rg.data();
    int64_t *gstart = sc.gstart.data();
    for (int64_t p = 0; p < K_eff; ++p) sc.grade[p] = rel.grade(tj[p]);
    // The tie groups of the ranks: one walk, read by every formula. The
    // group ending at K straddles the cut when tied items were left out.
    const TieGroups groups = tie_groups(tv, K_eff, exact, sc.bounds);
    auto straddling = [&](int64_t b) { return exact && b == K && outside > 0; };
    // fn(grade) for each member of the tie group at ranks [a, b), its members
    // beyond the cut included when it straddles it (listed by the selection,
    // or found by a pass over the row).
    auto members = [&](int64_t a, int64_t b, bool straddles, auto &&fn) {
        if (straddles && !listed) {
            rel.visit_tied(s, tv[a], fn);
            return;
        }
        for (int64_t p = a; p < b; ++p) fn(sc.grade[p]);
        if (straddles)
            for (int64_t col : sc.tied_out) fn(rel.grade(col));
    };
    // Relevant items and gains of a tie group (see members).
    auto group_sums = [&](int64_t a, int64_t b, bool straddles, bool exponential, int E,
                          double &r_g, double &g_lin, double &g_exp) {
        r_g = g_lin = g_exp = 0.0;
        members(a, b, straddles,
                [&](double y) { add_gain(y, t, exponential, r_g, g_lin, g_exp, E); });
    };
    // ecum[p]: expected relevant items in ranks [0, p], as a whole number of
    // items before the group plus this group's share, so that it does not
    // depend on the order of the groups before (ranks beyond D are not
    // sorted) and is exact at every group's end.
    double *ecum = sc.ecum.data();
    /* Fall-out counts the judged non-relevant items, 0 <= y <= t (a negative
     * grade is not judged): per group their expected number at each rank, as
     * ecum; n_nonrel for the whole row. */
    bool want_fo = false;
    for (int32_t q = 0; q < n_req; ++q) want_fo = want_fo || plan.req[q].formula == FALL_OUT;
    auto judged_rel = [t](double y) { return y < 0.0 || y > t; };  // not non-relevant
    double nr_before = 0.0;
    if (want_fo) sc.nrcum.resize(K_eff);
    double rel_before = 0.0;
    groups.each(K_eff, [&](int64_t a, int64_t b) {
        double r_g, g_lin, g_exp;
        const bool straddles = straddling(b);
        const double n_g = (double)(b - a + (straddles ? outside : 0));
        group_sums(a, b, straddles, any_exp, 0, r_g, g_lin, g_exp);
        double ev = r_g / n_g, egv = g_lin / n_g, exv = g_exp / n_g;
        for (int64_t p = a; p < b; ++p) ecum[p] = rel_before + (double)(p - a + 1) * ev;
        rel_before += r_g;
        if (!straddles) ecum[b - 1] = rel_before;  // whole group: exactly r_g more
        if (want_fo) {
            int64_t other = 0;  // members that are relevant or not judged
            members(a, b, straddles, [&](double y) { other += judged_rel(y); });
            const double nr_g = n_g - (double)other;
            for (int64_t p = a; p < b; ++p)
                sc.nrcum[p] = nr_before + (double)(p - a + 1) * (nr_g / n_g);
            nr_before += nr_g;
            if (!straddles) sc.nrcum[b - 1] = nr_before;
        }
        if (a >= D) {  // set-based ranks: e (and h for hit) only
            for (int64_t p = a; p < b; ++p) e[p] = ev;
            for (int64_t p = a; p < std::min(b, D_h); ++p) {
                double hv = r_g / (n_g - (double)(p - a));
                h[p] = hv > 1.0 ? 1.0 : (hv < 0.0 ? 0.0 : hv);
            }
            return;
        }
        double pr = n_g > 1.0 ? r_g * (r_g - 1.0) / (n_g * (n_g - 1.0)) : 0.0;
        if (judged) {  // the group's unjudged items, its members beyond the cut too
            Unjudged u;
            members(a, b, straddles, [&](double y) { u.add(y, t); });
            for (int64_t p = a; p < b; ++p) {
                sc.w_np[p] = u.nonpool;
                sc.w_pool[p] = u.pooled;
            }
        }
        for (int64_t p = a; p < b; ++p) {
            e[p] = ev;
            eg[p] = egv;
            ex[p] = exv;
            double hv = r_g / (n_g - (double)(p - a));
            h[p] = hv > 1.0 ? 1.0 : (hv < 0.0 ? 0.0 : hv);
            pair[p] = pr;
            ng[p] = n_g;
            rg[p] = r_g;
            gstart[p] = a;
        }
    });
    // The ideal ranking: the K_ideal largest relevant grades, decreasing.
    if (K_ideal > 0) ideal_gains(rel, n_rel, K_ideal, any_exp, sc, flags);
    const RowView view{K,    K_eff, m,  n_rel, sc.grade.data(), e,           eg,
                       ex,   h,     pair, ng, rg,  sc.w_np.data(),  sc.w_pool.data(),
                       gstart, groups};

    /* nDCG of a row whose DCG or ideal DCG overflows float64 (huge grades):
     * the same ratio with every gain scaled by 2**-E, E taken from the largest
     * relevant grade. Writes the values, returns the scaled ideal DCG. */
    auto scaled_ndcg = [&](const Request &r, bool curve, int64_t c_end, double *o) {
        const bool exponential = r.exponential != 0;
        const double top = sc.work_g.empty() ? 0.0 : sc.work_g[0];
        const int E = exponential ? (int)std::ceil(top) - 1 : std::ilogb(top) + 1;
        std::vector<double> &gains = sc.scaled;
        gains.assign(K_eff, 0.0);
        groups.each(K_eff, [&](int64_t a, int64_t b) {
            double r_g, g_lin, g_exp;
            group_sums(a, b, straddling(b), exponential, E, r_g, g_lin, g_exp);
            for (int64_t p = a; p < b; ++p) gains[p] = (exponential ? g_exp : g_lin) / ng[p];
        });
        const double *disc = discounts(sc, r.log_base, c_end);
        double dcg = 0.0, idcg = 0.0;
        for (int64_t c = 0; c < c_end; ++c) {
            if (c < K_eff) dcg += gains[c] * disc[c];
            if (c < K_ideal && c < (int64_t)sc.work_g.size() && sc.work_g[c] > 0.0)
                idcg += (exponential ? gain_exp(sc.work_g[c], E) : gain_lin(sc.work_g[c], E)) *
                        disc[c];
            if (curve) o[c] = idcg > 0.0 ? dcg / idcg : 0.0;
        }
        if (!curve) o[0] = idcg > 0.0 ? dcg / idcg : 0.0;
        return idcg;
    };

    // Interpolated precision: every recall point the requests need, in one
    // pass over the row's tie groups (see iprec_values).
    std::vector<int64_t> &iprec_cs = sc.iprec.cs;
    std::vector<double> &iprec_out = sc.iprec.values;
    iprec_cs.clear();
    for (int32_t q = 0; q < n_req; ++q) {
        const Request &r = plan.req[q];
        if (by_rr[q]) continue;
        if (r.formula == IPREC) iprec_cs.push_back(recall_point(r.level, n_rel));
        if (r.formula == ELEVEN_PT)
            for (int64_t i = 0; i < r.n_levels; ++i)
                iprec_cs.push_back(recall_point(r.levels[i], n_rel));
    }
    if (!iprec_cs.empty()) {
        std::sort(iprec_cs.begin(), iprec_cs.end());
        iprec_cs.erase(std::unique(iprec_cs.begin(), iprec_cs.end()), iprec_cs.end());
        std::vector<IprecGroup> &with_rel = sc.iprec.groups;
        with_rel.clear();
        int64_t rel_ret = 0;
        groups.each(K_eff, [&](int64_t ga, int64_t gb) {
            int64_t r_g = 0;
            for (int64_t p = ga; p < gb; ++p) r_g += sc.grade[p] > t;
            if (r_g > 0) with_rel.push_back({ga, gb - ga, r_g, rel_ret});
            rel_ret += r_g;
        });
        iprec_values(with_rel, rel_ret, iprec_cs, iprec_out, sc.iprec);
    }
    auto iprec_at = [&](double level) {
        const int64_t c = recall_point(level, n_rel);
        return iprec_out[std::lower_bound(iprec_cs.begin(), iprec_cs.end(), c) -
                         iprec_cs.begin()];
    };

    // The row's largest relevant grade (ERR, max_grade=None): the ideal
    // ranking's first, which K_ideal >= 1 then reads.
    const double row_top = K_ideal > 0 && !sc.work_g.empty() ? sc.work_g[0] : 0.0;

    // Set cut-offs beyond K, from the candidates (the last one remembered).
    int64_t deep_c = -1;
    double deep_cum = 0.0, deep_survive = 1.0;
    // The relevant items among the retrieved ones: all of them but those at -inf.
    double ret_rel = -1.0;
    auto retrieved_relevant = [&]() {
        if (ret_rel < 0.0) {
            double r_inf, g_unused, ge_unused;
            rel.tied_sums(s, -INFINITY, r_inf, g_unused, ge_unused, false);
            ret_rel = (double)n_rel - r_inf;
        }
        return ret_rel;
    };
    auto deep = [&](int64_t c, double &cum, double &survive) {
        // A row with a NaN score is rejected whatever its values, and its
        // candidates may fall short of the cut (NaN is never a candidate).
        if (flags & FLAG_NAN_SCORE) {
            cum = 0.0;
            survive = 1.0;
            return;
        }
        if (have_nret && c == n_ret) {  // the cut is the retrieved items
            cum = retrieved_relevant();
            survive = cum > 0.0 ? 0.0 : 1.0;
            return;
        }
        if (c != deep_c) {
            if (exact)
                set_cut<false>(sc, c, rel, t, deep_cum, deep_survive);
            else
                set_cut<true>(sc, c, rel, t, deep_cum, deep_survive);
            deep_c = c;
        }
        cum = deep_cum;
        survive = deep_survive;
    };
    for (int32_t q = 0; q < n_req; ++q) {
        if (by_rr[q]) continue;
        const Request &r = plan.req[q];
        double *o = out + r.col;
        const bool curve = r.curve != 0;
        // A request counts the ranks < cut; k_nominal is its nominal cut-off
        // (precision divides by it even past the row's end).
        const int64_t k_nominal = depth(r);
        const int64_t cut = std::min(k_nominal, m);
        const int64_t width = curve ? r.k : 1;
        const int64_t c_end = curve ? width : cut;
        bool is_empty = n_rel == 0;
        switch (r.formula) {
        case PRECISION:
        case RECALL:
        case F1:
        case FBETA:
        case RELATIVE_PRECISION:
        case SET_AVERAGE_PRECISION: {
            double cum = 0.0;
            const bool from_candidates = !curve && cut > K;
            double unused;
            if (from_candidates) deep(cut, cum, unused);
            for (int64_t c = 0; !from_candidates && c < c_end; ++c) {
                if (c < K_eff) cum = ecum[c];
                if (curve) {
                    double kk = (double)(c + 1);
                    if (r.formula == PRECISION) o[c] = cum / kk;
                    else if (r.formula == RECALL) o[c] = n_rel > 0 ? cum / (double)n_rel : 0.0;
                    else if (r.formula == RELATIVE_PRECISION) o[c] = relative(cum, kk, n_rel);
                    else if (r.formula == SET_AVERAGE_PRECISION) o[c] = set_ap(cum, kk, n_rel);
                    else o[c] = f_beta(r, cum, kk, n_rel);
                }
            }
            if (!curve) {
                double kk = (double)k_nominal;
                if (r.formula == PRECISION) o[0] = kk > 0 ? cum / kk : 0.0;
                else if (r.formula == RECALL) o[0] = n_rel > 0 ? cum / (double)n_rel : 0.0;
                else if (r.formula == RELATIVE_PRECISION) o[0] = relative(cum, kk, n_rel);
                else if (r.formula == SET_AVERAGE_PRECISION) o[0] = set_ap(cum, kk, n_rel);
                else o[0] = f_beta(r, cum, kk, n_rel);
            }
            break;
        }
        case HIT:
        case RECIPROCAL_RANK: {
            double survive = 1.0, rr = 0.0;
            if (r.formula == HIT && !curve && cut > K) {
                double unused;
                deep(cut, unused, survive);
                o[0] = 1.0 - survive;
                break;
            }
            for (int64_t c = 0; c < c_end; ++c) {
                if (c < K_eff) {
                    rr += survive * h[c] / (double)(c + 1);
                    survive *= 1.0 - h[c];
                }
                if (curve) o[c] = r.formula == HIT ? 1.0 - survive : rr;
            }
            if (!curve) o[0] = r.formula == HIT ? 1.0 - survive : rr;
            break;
        }
        case DCG:
        case NDCG: {
            if (r.n_gain > 0 || r.disc) {  // a gain map or a discount table
                is_empty = dcg_family(r, view, sc, rel, t, curve, c_end, k_nominal, o, members,
                                      straddling);
                break;
            }
            const double *gains = r.exponential ? ex : eg;
            const double *ideal = r.exponential ? sc.ideal_exp.data() : sc.ideal_lin.data();
            double dcg = 0.0, idcg = 0.0;
            const double *disc = discounts(sc, r.log_base, c_end);
            for (int64_t c = 0; c < c_end; ++c) {
                double d = disc[c];
                if (c < K_eff) dcg += gains[c] * d;
                if (r.formula == NDCG && c < K_ideal) idcg += ideal[c] * d;
                if (curve) o[c] = r.formula == DCG ? dcg : (idcg > 0.0 ? dcg / idcg : 0.0);
            }
            if (!curve) o[0] = r.formula == DCG ? dcg : (idcg > 0.0 ? dcg / idcg : 0.0);
            if (r.formula == NDCG && !(std::isfinite(dcg) && std::isfinite(idcg)))
                idcg = scaled_ndcg(r, curve, c_end, o);  // huge grades
            // Undefined when the ideal DCG is 0 (no relevant item of positive gain).
            if (r.formula == NDCG) is_empty = !(idcg > 0.0);
            break;
        }
        case BPREF:
        case INFERRED_AP: {
            const int64_t end = std::min(c_end, K_eff);
            o[0] = r.formula == BPREF ? bpref_value(view, end, (double)n_rel, (double)n_nonrel)
                                      : infap_value(view, end, (double)n_rel, sc.hx, sc.hy,
                                                    sc.infap_t, sc.pmf_tab);
            break;
        }
        case RBP_RESIDUAL: {
            /* The most RBP could still rise (trec_eval's rbp_resid): the
             * weight of the unjudged ranks, (1 - p) sum p**i over them, plus
             * p**n of the ranks past the retrieved ones; 0 when no
             * retrieved item is unjudged. Linear in each rank's expected
             * unjudged indicator. */
            const int64_t end = std::min(c_end, K_eff);
            double resid = 0.0, unj = 0.0, w = 1.0;
            for (int64_t c = 0; c < end; ++c) {
                const double u = (sc.w_np[c] + sc.w_pool[c]) / ng[c];
                resid += u * w;
                unj += u;
                w *= r.p;
            }
            o[0] = unj > 0.5 ? w + (1.0 - r.p) * resid : 0.0;
            is_empty = false;  // defined whatever the relevant items
            break;
        }
        case UNJUDGED: {  // expected unjudged items in the top k, over k
            double cum = 0.0;
            for (int64_t c = 0; c < c_end; ++c) {
                if (c < K_eff) cum += (sc.w_np[c] + sc.w_pool[c]) / ng[c];
                if (curve) o[c] = cum / (double)(c + 1);
            }
            if (!curve) o[0] = k_nominal > 0 ? cum / (double)k_nominal : 0.0;
            is_empty = false;  // defined whatever the relevant items
            break;
        }
        case AVERAGE_PRECISION: {
            double cum_e = 0.0, num = 0.0, c0 = 0.0, n0 = 0.0;
            int64_t ga = -1;
            for (int64_t c = 0; c < c_end; ++c) {
                if (c < K_eff) {
                    if (gstart[c] != ga) {  // a new group: the sums before it
                        ga = gstart[c];
                        c0 = cum_e;
                        n0 = num;
                    }
                    num += (e[c] * (1.0 + c0) + (double)(c - ga) * pair[c]) / (double)(c + 1);
                    cum_e += e[c];
                }
                if (curve)
                    o[c] = ap_value(r.denominator, num, cum_e, c + 1, std::min(c + 1, m), view,
                                    ga, c0, n0);
            }
            if (!curve)
                o[0] = ap_value(r.denominator, num, cum_e, k_nominal, cut, view, ga, c0, n0);
            break;
        }
        case IPREC:
            o[0] = iprec_at(r.level);
            break;
        case ELEVEN_PT: {
            double total = 0.0;  // in trec_eval's order: the last level first
            for (int64_t i = r.n_levels - 1; i >= 0; --i) total += iprec_at(r.levels[i]);
            o[0] = r.n_levels > 0 ? total / (double)r.n_levels : 0.0;
            break;
        }
        case ERR:
            err_value(r, view, sc, row_top, t, curve, c_end, o, members);
            break;
        case FALL_OUT: {
            // Judged non-relevant items in the top k over those of the row.
            double cum = 0.0;
            const double den = (double)n_nonrel;
            for (int64_t c = 0; c < c_end; ++c) {
                if (c < K_eff) cum = sc.nrcum[c];
                if (curve) o[c] = den > 0 ? cum / den : 0.0;
            }
            if (!curve) o[0] = den > 0 ? cum / den : 0.0;
            is_empty = n_nonrel == 0;
            break;
        }
        case RBP:
        case RNDCG:
        case BING:
        case UTILITY:
        case NDCG_REL:
        case G_GAIN: {
            // Utility's relevant retrieved items: from the ranks when they
            // reach every retrieved item, else counted.
            const double ret_rel_q = r.formula != UTILITY ? 0.0
                                     : n_ret > K_eff       ? retrieved_relevant()
                                     : K_eff > 0           ? ecum[K_eff - 1]
                                                           : 0.0;
            is_empty = gain_measure(r, view, sc, K_ideal, n_ret, ret_rel_q, t, curve, c_end, o,
                                    members);
            break;
        }
        case AUC:
        case PAIRWISE_ACCURACY:
        case COUNT_ROW: {
            if (auc_reads_row_itself(r)) {
                is_empty = auc_family_row(r, s, m, rel, t, exact, sc.auc, o, flags);
            } else {
                o[0] = auc_top(view, std::min(c_end, K_eff));
                is_empty = n_rel == 0 || n_nonrel == 0;
            }
            break;
        }
        case IDEAL_DCG:
        case SDCG:
            is_empty = dcg_family(r, view, sc, rel, t, curve, c_end, k_nominal, o, members,
                                  straddling);
            break;
        case YAAP:
            is_empty = yaap_value(view, c_end, sc.dcg, o, flags);
            break;
        case ALPHA_GAIN:
            alpha_gain_value(r, view, sc, t, curve, c_end, o, members);
            break;
        case INTENT_PRECISION:
        case INTENT_HIT:
        case INTENT_ALPHA:
            is_empty = intent_values(r, view, sc, rel, s, tv, tj, listed, t, c_end, o);
            break;
        case ITEM_WEIGHTS:  // the pass's relevant items (weighted.hpp)
            o[0] = (double)n_rel;
            is_empty = false;
            break;
        default:
            for (int64_t c = 0; c < width; ++c) o[c] = 0.0;
        }
        empty[q] = is_empty ? 1 : 0;
    }
}


// ---- all rows ---------------------------------------------------------------

template <class F>
void for_rows(int64_t n, int32_t n_threads, int64_t chunk, uint8_t *flags, F &&body) {
#ifndef _OPENMP
    (void)n_threads;  // serial build: one thread whatever was asked
#endif
#ifdef _OPENMP
#pragma omp parallel num_threads(n_threads > 0 ? n_threads : 1) if (n_threads > 1)
#endif
    {
        Scratch sc;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
        for (int64_t c = 0; c < (n + chunk - 1) / chunk; ++c) {
            int64_t end = std::min(n, (c + 1) * chunk);
            for (int64_t r = c * chunk; r < end; ++r) {
                try {
                    body(r, sc);
                } catch (const std::bad_alloc &) {
                    flags[r] |= FLAG_NO_MEMORY;
                }
            }
        }
    }
}

inline int64_t rows_per_chunk(int64_t n_rows, int64_t cells) {
    // About 16k scores per scheduling unit: cheap to hand out, fine enough
    // to balance threads when one core is busy with something else.
    int64_t per_row = n_rows > 0 ? std::max<int64_t>(1, cells / n_rows) : 1;
    return std::max<int64_t>(1, 16384 / per_row);
}

/* Rows whose relevance is aligned with the scores: a dense matrix
 * (offsets == nullptr: row r starts at r * stride, has m items) or segments
 * of flat arrays (row r is [offsets[r], offsets[r + 1])). */
template <class S, class R>
void evaluate_aligned(const S *scores, const R *y, const int64_t *offsets, int64_t score_stride,
                      int64_t rel_stride, int64_t m, int64_t n_rows, const Plan &plan,
                      double *out, uint8_t *empty, uint8_t *flags) {
    const Threshold<R> th(plan.threshold);
    int64_t cells = offsets ? (n_rows ? offsets[n_rows] - offsets[0] : 0) : n_rows * m;
    for_rows(n_rows, plan.n_threads, rows_per_chunk(n_rows, cells), flags,
             [&](int64_t r, Scratch &sc) {
                 const S *s;
                 const R *yr;
                 int64_t len;
                 if (offsets) {
                     s = scores + offsets[r];
                     yr = y + offsets[r];
                     len = offsets[r + 1] - offsets[r];
                 } else {
                     s = scores + r * score_stride;
                     yr = y + r * rel_stride;
                     len = m;
                 }
                 Aligned<R> rel{yr, len, &th, plan.want_ideal != 0};
                 rel.levels = sc.grade_levels;
                 process_row(s, len, rel, plan, sc, out + r * plan.out_stride,
                             empty + r * plan.n_req, flags[r]);
                 sc.grade_levels = rel.levels_would_serve();
             });
}

/* Dense score rows with relevance in CSR form: row r of the block is CSR row
 * row_offset + r. */
template <class S>
void evaluate_csr(const S *scores, int64_t score_stride, int64_t m, int64_t n_rows,
                  const int64_t *indptr, const int64_t *indices, const double *data,
                  int64_t row_offset, const Plan &plan, double *out, uint8_t *empty,
                  uint8_t *flags) {
    for_rows(n_rows, plan.n_threads, rows_per_chunk(n_rows, n_rows * m), flags,
             [&](int64_t r, Scratch &sc) {
                 Sparse rel{indices, data, indptr[row_offset + r], indptr[row_offset + r + 1],
                            plan.threshold};
                 process_row(scores + r * score_stride, m, rel, plan, sc,
                             out + r * plan.out_stride, empty + r * plan.n_req, flags[r]);
             });
}

/* The top K of every row of a dense matrix, for the tests: values and
 * columns in rank order, and the tied items left out of each row. */
template <class S>
void top_k(const S *scores, int64_t n_rows, int64_t m, int64_t K, bool later_first,
           double *values, int64_t *cols, int64_t *outside, uint8_t *nan) {
    Scratch sc;
    sc.hv.resize(K);
    sc.hj.resize(K);
    for (int64_t r = 0; r < n_rows; ++r) {
        bool bad = false, listed = false;
        outside[r] = later_first ? select_top<S, true>(scores + r * m, m, K, K, values + r * K,
                                                       cols + r * K, sc, bad, listed, K)
                                 : select_top<S, false>(scores + r * m, m, K, K, values + r * K,
                                                        cols + r * K, sc, bad, listed, K);
        nan[r] = bad;
    }
}

// ---- the row passes of kernel.hpp's entry points, per score type ------------

template <class S>
void ScoreRows<S>::aligned(int32_t rel_type, const S *scores, const void *y,
                           const int64_t *offsets, int64_t m, int64_t n_rows, const Plan &plan,
                           double *out, uint8_t *empty, uint8_t *flags) {
#define RANKK_CASE(CODE, T)                                                                 \
    case CODE:                                                                              \
        evaluate_aligned<S, T>(scores, (const T *)y, offsets, m, m, m, n_rows, plan, out,  \
                               empty, flags);                                               \
        break;
    switch (rel_type) {
        RANKK_CASE(REL_U8, uint8_t)
        RANKK_CASE(REL_I8, int8_t)
        RANKK_CASE(REL_I16, int16_t)
        RANKK_CASE(REL_I32, int32_t)
        RANKK_CASE(REL_I64, int64_t)
        RANKK_CASE(REL_U16, uint16_t)
        RANKK_CASE(REL_U32, uint32_t)
        RANKK_CASE(REL_U64, uint64_t)
        RANKK_CASE(REL_F32, float)
        RANKK_CASE(REL_F64, double)
    }
#undef RANKK_CASE
}

template <class S>
void ScoreRows<S>::csr(const S *scores, int64_t m, int64_t n_rows, const int64_t *indptr,
                       const int64_t *indices, const double *data, int64_t row_offset,
                       const Plan &plan, double *out, uint8_t *empty, uint8_t *flags) {
    evaluate_csr<S>(scores, m, m, n_rows, indptr, indices, data, row_offset, plan, out, empty,
                    flags);
}

template <class S>
void ScoreRows<S>::top(const S *scores, int64_t n_rows, int64_t m, int64_t K, bool later_first,
                       double *values, int64_t *cols, int64_t *outside, uint8_t *nan) {
    top_k<S>(scores, n_rows, m, K, later_first, values, cols, outside, nan);
}

}  // namespace rankk

#endif

