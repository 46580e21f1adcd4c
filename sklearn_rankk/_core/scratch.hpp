/* Every work buffer of a row, one Scratch per thread: a row allocates
 * nothing once the buffers have grown to the largest row's needs.
 */
#ifndef SKLEARN_RANKK_SCRATCH_HPP
#define SKLEARN_RANKK_SCRATCH_HPP

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "key_buckets.hpp"
#include "rows.hpp"
#include "ties.hpp"

namespace rankk {

// Interpolated precision's groups and work space (see iprec_values).
struct IprecGroup {
    int64_t a, n, r, c0;  // ranks before it, size, relevant items, relevant before
};

/* A random group's events: its support points x (decreasing) and, for
 * each, P(X_g < x) (the group's distribution just below x) for each L the
 * group serves, at cdf[e n_ls + i] for event e and L = ls[i]. */
struct IprecEvents {
    std::vector<double> x, cdf;
    std::vector<int64_t> ls;
};

// An event in a row's merged order: x, the random group j, its event e.
struct IprecMerged {
    double x;
    uint32_t j, e;
};

struct IprecWork {
    std::vector<std::pair<int64_t, int64_t>> cells;  // (c0 + k, a + q)
    std::vector<int64_t> bound;                      // per k: least position allowed
    std::vector<double> H, suffix, inv, rk;
    /* P(the L-th of r marked items at position L + v), v = 0..n - r, kept
     * by (n, r, L) (trimmed when a group starts); pmf: the group's rows,
     * one per L of its IprecEvents::ls. */
    KeptTables<std::tuple<int64_t, int64_t, int64_t>> pmf_tab;
    std::vector<const double *> pmf;
    std::vector<IprecMerged> merged;  // every random group's events, x decreasing
    std::vector<int64_t> slot, li;    // per random group, for one recall point
    std::vector<double> tree;
    // per row: the groups holding relevant items, the recall points asked
    // and their values, each point's floor D
    std::vector<IprecGroup> groups;
    std::vector<int64_t> cs;
    std::vector<double> values, D;
    // the random groups (indices into groups) and their events
    std::vector<size_t> random;
    std::vector<IprecEvents> ev;
};

// G's work space for a tie group (see g_group_whole, g_group).
struct GWork {
    std::vector<std::pair<int64_t, int64_t>> classes;  // (gain, members), gain increasing
    std::vector<int64_t> lo, hi, lo2, hi2;             // per c: q_c's support, its sums
    std::vector<size_t> off, off2;                     // per c: where q_c starts
    std::vector<double> q, q2;                         // q_c over [lo_c, hi_c], in turn
    std::vector<double> ftab;                          // 1 / log2(x) by whole x
    std::vector<double> inv;                           // 1 / i by whole i
    PmfTables pmfs;  // hypergeom_pmf(n, P, m, ., inv), by_draws: see group_pmfs
    std::vector<int64_t> base;                         // per offset: 2 + C - S0
    // fractional gains (g_group): classes, positive gains, the sums' laws
    std::vector<std::pair<double, int64_t>> fclasses;
    std::vector<double> fpos;
    std::vector<std::vector<std::pair<double, double>>> dist, next;
};

/* The whole-ranking measures' groups without a sorted row (see
 * relevant_ranks.hpp): the relevant retrieved items (score, column) in rank
 * order, the keys (their distinct scores, or the items themselves without
 * exact ties) with a column and relevant count each, items and unjudged
 * items per slot (gap or key group), and the groups as the formulas read
 * them (indexed by first rank). */
struct RelRanks {
    std::vector<std::pair<double, int64_t>> items;
    std::vector<double> item_g, item_x, item_y;  // each item's gains and grade, in the order found
    // the items in rank order: (score, column, index into items)
    struct Ranked {
        double x;
        int64_t j, at;
    };
    std::vector<Ranked> order;
    // few items in column order: their scores and ranks (column_order_ranks)
    std::vector<double> item_s;
    std::vector<int64_t> item_rank;
    std::vector<std::pair<double, int64_t>> placed;
    std::vector<int32_t> kid;            // each item's key (few_keys)
    std::vector<double> key, kr, kg, kx;  // per key: relevant items, gain sums
    std::vector<double> ky, gy;          // the keys' grades in rank order; a group's first
    std::vector<int64_t> kcol, n, bounds, kfirst, gfirst;  // a key's (group's) first in ky
    std::vector<double> wn, wp, ng, rg, gg, gx, eg, w_np, w_pool;
    KeyBuckets buckets;  // where an item falls among the keys
    double top = 0.0;    // with grades or gains: the row's largest relevant grade (0 without)
    int64_t n_ret = 0;   // the retrieved items (scores above -inf), where a key is
};

// AUC and its kin (formulas_auc.hpp): an item (score, column), and an
// item with its grade.
struct AucKey {
    double s;
    int64_t j;
};

struct PairItem {
    double s;
    int64_t j;
    double y;
};

/* AUC's and pairwise accuracy's work space: the relevant (pos) and unjudged
 * (neg) items, the keys among which every item is placed (their scores,
 * columns and relevant counts, and the bucket index), the items, unjudged
 * items and other counts per slot, a value per slot to sum; pairwise accuracy's items outside the
 * largest grade, its grades, Fenwick tree and prefix sums; a dense row
 * read as a CSR row. */
struct AucWork {
    std::vector<AucKey> pos, neg;
    std::vector<double> key, kr;
    std::vector<int64_t> kcol, n, nu, val;
    std::vector<int32_t> kid;  // each item's key (few_distinct)
    KeyBuckets buckets;
    std::vector<PairItem> items;
    std::vector<double> grades, tree, prefix, g_of;
    std::vector<int64_t> in_group;  // pairwise accuracy: a tie group's items per grade
    SparseCopy dense;  // a dense row's items not of grade 0 (dense_as_sparse)
    // partial AUC's items at the top of the row (pauc_top)
    std::vector<double> topv;
};

// The DCG family's work space (formulas_dcg.hpp): expected gains by rank,
// the ideal gains and grades; yaap's sum distributions and a group's
// position set.
struct DcgWork {
    std::vector<double> gain, ideal, grades;
    std::vector<std::pair<double, double>> dist, next, group;
    std::vector<std::pair<double, int64_t>> runs;  // the mapped ideal gains' runs
    std::vector<int64_t> q;
};

struct Scratch {
    // selection: streaming buffers, candidates, the next row's threshold
    std::vector<double> hv, tv;
    std::vector<int64_t> hj, tj, tied_out, group, cidx;
    std::vector<std::pair<double, int64_t>> cand, rest;
    std::vector<uint8_t> cand_rel;  // set_cut: whether each candidate is relevant
    std::vector<int64_t> crank;     // each candidate's rank (column_order_ranks)
    // Dense integer grades: whether the last row's ideal ranking could have
    // come from the grade pass's level counts (Aligned::levels)
    bool grade_levels = true;
    // The candidates' scores (any order: selections reorder them), which
    // set the next row's threshold, and their smallest and largest values
    // with the items at each (see prev_ends), once computed after a fill.
    std::vector<double> prev;
    double prev_lo = 0.0, prev_hi = 0.0;
    int64_t prev_at_lo = 0, prev_at_hi = 0;
    bool prev_ends_set = false;
    bool prev_sorted = false;  // sc.prev in descending order (column_order_ranks)
    // the last row's threshold (next_guess's moving average), once set
    double guess = 0.0;
    bool guess_set = false;
    // the radix sort of a whole row: keys, columns, digit counts
    std::vector<uint64_t> rkey, rkey2;
    std::vector<int64_t> rcol, rcol2, rcount;
    // the tie groups of the ranked items: the first rank of each, and the
    // end of the last (see TieGroups)
    std::vector<int64_t> bounds;
    // per rank: grade, expected relevance and gains, first-hit probability,
    // same-group pair probability, group start, group size and relevant count
    std::vector<double> grade, e, ecum, eg_lin, eg_exp, h, pair, ng, rg;
    std::vector<int64_t> gstart;
    // per rank, when judgments are read: the group's unjudged items, not
    // pooled and pooled
    std::vector<double> w_np, w_pool;
    // the ideal ranking
    std::vector<double> work_g, ideal_lin, ideal_exp;
    // discounts of DCG; gains scaled down for rows whose DCG overflows
    std::vector<double> disc, scaled;
    double disc_base = 0.0;
    IprecWork iprec;  // interpolated precision's tie-group DP
    // ERR and the intent-aware gains (survival_walk): a tie group's gains
    // and survivals (ERR: stopping probabilities and their complements), the
    // recurrence's means
    std::vector<double> err_r, err_v, err_m, err_t;
    std::vector<double> err_p, err_c;  // P_x(1) per offset; err_weights' work
    std::vector<double> err_w;         // the mixing weights of a large group
    KeptTables<std::tuple<int64_t, int64_t>> err_tab;  // of a small one, by (q, z)
    std::vector<double> whole;      // whole numbers i at [i], as doubles
    std::vector<double> err_ratio;  // the recurrence's ratios (err_ratios)
    // RBP's weight per rank for persistence rbp_p (rbp_weights)
    std::vector<double> rbp_w;
    double rbp_p = NAN;
    // fall-out: expected judged non-relevant items in ranks [0, p]
    std::vector<double> nrcum;
    // the gain measures: ideal DCG at each rank of the ideal (ndcg_rel), the
    // ideal cost prefix, a group's costs and its gains (G)
    std::vector<double> idcg_at, cost, group_cost, gains;
    // hypergeometric weights (hypergeom_pmf): inferred AP's two levels
    std::vector<double> hx, hy;
    std::vector<double> infap_t;  // infap_value's offsets and sums
    PmfTables pmf_tab;            // its weights, by group shape
    GWork g;  // G's tie groups
    // whole-ranking measures from the relevant items' ranks; which requests
    RelRanks rel_ranks;
    std::vector<uint8_t> by_rel_ranks;
    AucWork auc;  // AUC and its kin
    DcgWork dcg;  // the DCG family with gain maps, SDCG, yaap
};

}  // namespace rankk

#endif
