/* Tie mathematics: the row's tie groups (one walk, every measure), the
 * per-rank quantities the formulas read (RowView), and the hypergeometric
 * and lattice-path toolkit.
 *
 * Notation of the tie-aware formulas, for one row: the item at rank p lies in
 * a tie group of n_g items (whole row, members beyond the cut-off included),
 * r_g of them relevant, starting at rank a_g; o = p - a_g.
 *   e[p] = r_g / n_g                 expected relevance at p (P, R, F1, DCG)
 *   h[p] = r_g / (n_g - o)           P(p relevant | no earlier rank of its
 *                                    group is): hit and reciprocal rank
 *   pair_g = r_g (r_g-1)/(n_g (n_g-1))  E[rel_i rel_j], i != j in one group (AP)
 * Under exact ties the groups are independent: the items before a group and
 * the group's first rank are fixed, only the order inside the group is
 * random. For an item at offset o of a group of n, the o items before it are
 * a uniformly random o-subset of the group's n - 1 others (multivariate
 * hypergeometric). With ties="later_first" every group is one item.
 */
#ifndef SKLEARN_RANKK_TIES_HPP
#define SKLEARN_RANKK_TIES_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rankk {

/* The tie groups of a row's ranked items: group i holds ranks
 * [start[i], start[i + 1]), start[n] the end of the ranks. Built once per row
 * (tie_groups); every formula that reads groups walks them with each(). */
struct TieGroups {
    const int64_t *start = nullptr;
    int64_t n = 0;  // groups

    // f(a, b) for each group starting before `end`: ranks [a, b), b clipped
    // to end (b - a < n_g when the group straddles end).
    template <class F>
    void each(int64_t end, F &&f) const {
        for (int64_t i = 0; i < n && start[i] < end; ++i) f(start[i], std::min(start[i + 1], end));
    }
};

/* The tie groups of the ranks [0, K) whose scores are tv[0..K): runs of
 * equal scores (exact ties), else one group per rank; their starts into
 * bounds. Ranks past the sorted ones (see order_top) hold equal scores in
 * runs only where the formulas read them as groups. */
inline TieGroups tie_groups(const double *tv, int64_t K, bool exact, std::vector<int64_t> &bounds) {
    bounds.clear();
    for (int64_t a = 0; a < K;) {
        bounds.push_back(a);
        int64_t b = a + 1;
        if (exact)
            while (b < K && tv[b] == tv[a]) ++b;
        a = b;
    }
    bounds.push_back(K);
    return {bounds.data(), (int64_t)bounds.size() - 1};
}

// The ranks of one row, as the formulas read them (per rank, see above;
// w_np and w_pool: the group's unjudged items, not pooled and pooled, when
// judgments are read).
struct RowView {
    int64_t K;        // ranks selected
    int64_t K_eff;    // of which retrieved (score above -inf)
    int64_t m;        // items in the row
    int64_t n_rel;    // relevant items, retrieved or not
    const double *grade, *e, *eg, *ex, *h, *pair, *ng, *rg, *w_np, *w_pool;
    const int64_t *gstart;
    TieGroups groups;
};

// ---- hypergeometric and lattice-path probabilities ----------------------------

/* std::lgamma(x), for whole x in [1, 2**16] from a per-thread table grown
 * on demand (filled by std::lgamma itself: the same values, without a call
 * each; ERR's and G's hypergeometric weights take several per rank of a
 * tie group). Bounded so that one call on a huge group does not fill a
 * large table: at most 512 KiB a thread. */
inline double lgamma_of(double x) {
    constexpr double TABLE = 65536.0;
    if (!(x >= 1.0 && x <= TABLE && x == std::floor(x))) return std::lgamma(x);
    thread_local std::vector<double> table{INFINITY};  // (lgamma(0): never read)
    const size_t i = (size_t)x;
    while (table.size() <= i) table.push_back(std::lgamma((double)table.size()));
    return table[i];
}

// log C(a, b) from lgamma.
inline double lchoose(double a, double b) {
    return lgamma_of(a + 1.0) - lgamma_of(b + 1.0) - lgamma_of(a - b + 1.0);
}

// log(n!) for whole n >= 0, from a per-thread table grown on demand; and
// log C(a, b) from it (the recurrences over tie groups call it O(n r) times).
inline double log_factorial(int64_t n) {
    thread_local std::vector<double> table{0.0};
    while ((int64_t)table.size() <= n)
        table.push_back(table.back() + std::log((double)table.size()));
    return table[(size_t)n];
}
inline double lchoose_int(double a, double b) {
    return log_factorial((int64_t)a) - log_factorial((int64_t)b) -
           log_factorial((int64_t)(a - b));
}

/* P(x of `draws` items drawn without replacement from N are among its K
 * marked ones): C(K, x) C(N - K, draws - x) / C(N, draws); 0 outside the
 * support. LC: the log-choose function (lchoose, or lchoose_int in the
 * recurrences). */
template <double (*LC)(double, double) = lchoose>
inline double hypergeom(double N, double K, double draws, double x) {
    if (x < 0.0 || x > K || draws - x > N - K || x > draws) return 0.0;
    return std::exp(LC(K, x) + LC(N - K, draws - x) - LC(N, draws));
}

/* The hypergeometric distribution of x (marked items among `draws` drawn
 * without replacement from N, K of them marked) over its whole support
 * [lo, hi], into out[0..hi - lo]; returns lo. Ratios of consecutive terms
 * from the mode (1 there), normalised by their sum: a few ulp where the mass
 * is, no lgamma (whose error grows with log(N!)); terms below 1e-300 of the
 * mode's are 0. O(hi - lo). inv: 1 / i for i = 1..N (no division per term),
 * or null. */
inline int64_t hypergeom_pmf(int64_t N, int64_t K, int64_t draws, std::vector<double> &out,
                             const double *inv = nullptr) {
    const int64_t lo = std::max<int64_t>(0, draws - (N - K)), hi = std::min(K, draws);
    out.assign((size_t)(hi - lo + 1), 0.0);
    int64_t mode = (int64_t)(((double)(draws + 1) * (double)(K + 1)) / (double)(N + 2));
    mode = std::min(std::max(mode, lo), hi);
    double *p = out.data() - lo;
    p[mode] = 1.0;
    double sum = 1.0;
    // P(x + 1) / P(x) = (K - x)(draws - x) / ((x + 1)(N - K - draws + x + 1))
    if (inv) {
        for (int64_t x = mode; x < hi && p[x] > 1e-300; ++x)
            sum += p[x + 1] = p[x] * (double)(K - x) * (double)(draws - x) * inv[x + 1] *
                              inv[N - K - draws + x + 1];
        for (int64_t x = mode; x > lo && p[x] > 1e-300; --x)
            sum += p[x - 1] = p[x] * (double)x * (double)(N - K - draws + x) * inv[K - x + 1] *
                              inv[draws - x + 1];
    } else {
        for (int64_t x = mode; x < hi && p[x] > 1e-300; ++x)
            sum += p[x + 1] = p[x] * ((double)(K - x) * (double)(draws - x)) /
                              ((double)(x + 1) * (double)(N - K - draws + x + 1));
        for (int64_t x = mode; x > lo && p[x] > 1e-300; --x)
            sum += p[x - 1] = p[x] * ((double)x * (double)(N - K - draws + x)) /
                              ((double)(K - x + 1) * (double)(draws - x + 1));
    }
    const double scale = 1.0 / sum;
    for (int64_t x = lo; x <= hi; ++x) p[x] *= scale;
    return lo;
}

/* A hash of a tuple of whole numbers (KeptTables' keys). */
struct WholeTupleHash {
    template <class... T>
    size_t operator()(const std::tuple<T...> &t) const {
        uint64_t h = 0;
        std::apply([&](auto... x) { ((h = (h ^ (uint64_t)x) * 0x9E3779B97F4A7C15ull), ...); }, t);
        return (size_t)(h ^ (h >> 29));
    }
};

/* Tables of doubles kept by key across groups and rows (tie groups of one
 * shape recur): get(key, size, fill) returns the key's table, a new one
 * (size doubles of 0) filled by fill(t) first. trim() empties them all past
 * 2**22 weights (32 MiB; a table counts 16 more for its own bytes): call it
 * before fetching tables, which stay in place until the next trim(). Key:
 * a tuple of whole numbers, hashed (a lookup per tie group: one hash, not
 * a walk down a tree; an unordered_map's elements stay in place). */
template <class Key>
struct KeptTables {
    std::unordered_map<Key, std::vector<double>, WholeTupleHash> tab;
    size_t weights = 0;
    void trim() {
        if (weights > ((size_t)1 << 22)) {
            tab.clear();
            weights = 0;
        }
    }
    template <class Fill>
    const double *get(const Key &key, size_t size, Fill &&fill) {
        std::vector<double> &t = tab[key];
        if (t.empty()) {
            t.assign(size, 0.0);
            fill(t.data());
            weights += t.size() + 16;  // (+ the entry's own bytes, about 128)
        }
        return t.data();
    }
};

/* hypergeom_pmf(N, K, d, .) for every d = 0..N, by (N, K), kept (see
 * KeptTables; a caller that fetches two tables of up to 2**20 weights
 * between trims keeps it under 48 MiB): the same values as the calls one at
 * a time, 0 outside each d's support. Two layouts, each its own table:
 *   by_marked(N, K, h)       t[x (N + 1) + d]: for each x, over the draws
 *                            (infAP sums over offsets d);
 *   by_draws(N, K, h, inv)   t[d W + x - lo_d]: for each d, its support
 *                            lo_d = max(0, d - (N - K)) .. min(K, d), at most
 *                            W = min(K, N - K) + 1 wide (G sums over x);
 *                            from hypergeom_pmf with inv (1 / i for i =
 *                            1..N: other values in the last ulp).
 * h: a work buffer. */
struct PmfTables : KeptTables<std::tuple<int64_t, int64_t, bool>> {
    const double *by_marked(int64_t N, int64_t K, std::vector<double> &h) {
        return fetch(N, K, h, nullptr, false);
    }
    const double *by_draws(int64_t N, int64_t K, std::vector<double> &h, const double *inv) {
        return fetch(N, K, h, inv, true);
    }

   private:
    const double *fetch(int64_t N, int64_t K, std::vector<double> &h, const double *inv,
                        bool by_draws) {
        const int64_t W = std::min(K, N - K) + 1;
        const size_t size = (size_t)((by_draws ? W : K + 1) * (N + 1));
        return get({N, K, by_draws}, size, [&](double *t) {
            for (int64_t d = 0; d <= N; ++d) {
                const int64_t lo = hypergeom_pmf(N, K, d, h, inv);
                for (size_t i = 0; i < h.size(); ++i) {
                    const int64_t x = lo + (int64_t)i;
                    t[(size_t)(by_draws ? d * W + (int64_t)i : x * (N + 1) + d)] = h[i];
                }
            }
        });
    }
};

/* Lattice paths: n items in random order, r of them marked; P(the L-th
 * marked item is at position q, 1-based) = C(q - 1, L - 1) C(n - q, r - L) /
 * C(n, r). */
inline double nth_marked_at(double n, double r, double L, double q) {
    return std::exp(lchoose(q - 1.0, L - 1.0) + lchoose(n - q, r - L) - lchoose(n, r));
}

}  // namespace rankk

#endif
