/* Beyond-accuracy measures' kernel: how often each item is shown in the top
 * k lists (item exposure), exact under ties.
 *
 * A row's top k comes from the selection every metric uses (select_top):
 * the items ranked above the tie group that straddles the cut are in the
 * list; each member of that group is in it with probability
 *
 *     slots left for the group / size of the group
 *
 * (every ordering of the tied items equally likely, McSherry and Najork,
 * ECIR 2008); every other item is out. Items scored -inf sit at no rank: they
 * are never in a list, so a row's list holds min(k, finite scores) items.
 * With later_first, one ranking (the later column first among equal scores)
 * and inclusion 0 or 1.
 *
 * From these inclusion probabilities p_ri, one pass over the rows gives
 *   exposure[i]  = sum_r w_r p_ri            expected (weighted) lists holding i
 *   certain[i]   = #{r : w_r > 0, p_ri = 1}  lists certain to hold i
 *   log_miss[i]  = sum_{r : w_r > 0, 0 < p_ri < 1} log(1 - p_ri)
 *                  (1 - exp(log_miss[i]) when certain[i] = 0 is the probability
 *                  that some list holds i, tie orders independent by row)
 *   length[r]    = sum_i p_ri = min(k, finite scores of row r)
 *   sums[r, t]   = sum_i p_ri values[t, i]   per-row expectations, linear
 * Per-item sums are added per block of rows (a fixed split by thread) and the
 * blocks merged in order: the same threads give the same bits.
 */
#ifndef SKLEARN_RANKK_EXPOSURE_HPP
#define SKLEARN_RANKK_EXPOSURE_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <new>
#include <vector>

#include "_portable.h"
#include "request.hpp"
#include "scratch.hpp"
#include "select.hpp"

namespace rankk {

struct ExposureOut {
    double *exposure;  // [m]
    double *certain;   // [m]
    double *log_miss;  // [m]
    double *length;    // [n_rows]
    double *sums;      // [n_rows * n_values]
    uint8_t *flags;    // [n_rows]
};

struct ExposureAcc {
    std::vector<double> exposure, certain, log_miss;
};

/* One row: its items' inclusion probabilities, added to acc and out. */
template <class S, bool LATER>
void exposure_row(const S *s, int64_t m, int64_t K, double w, const double *values,
                  int64_t n_values, Scratch &sc, std::vector<double> &ov,
                  std::vector<int64_t> &oj, ExposureAcc &acc, double *length, double *sums,
                  uint8_t &flag) {
    bool nan = false, listed = false;
    const int64_t out = select_top<S, LATER>(s, m, K, K, ov.data(), oj.data(), sc, nan, listed, K);
    if (nan) flag |= FLAG_NAN_SCORE;
    const bool counts = w > 0;
    const double last = ov[K - 1];
    // Ranks [0, sure) are in the list for certain; the tie group of the last
    // rank, if finite and straddling the cut, shares its slots.
    int64_t sure = K, slots = 0;
    if (out > 0 && last != -INFINITY) {
        while (sure > 0 && ov[sure - 1] == last) --sure;
        slots = K - sure;
    }
    double len = 0.0;
    for (int64_t t = 0; t < n_values; ++t) sums[t] = 0.0;
    for (int64_t p = 0; p < sure; ++p) {
        if (ov[p] == -INFINITY) break;  // at no rank, nor the items below
        const int64_t j = oj[p];
        acc.exposure[j] += w;
        if (counts) acc.certain[j] += 1.0;
        for (int64_t t = 0; t < n_values; ++t) sums[t] += values[t * m + j];
        len += 1.0;
    }
    if (slots > 0) {
        const double q = (double)slots / (double)(slots + out);
        const double lm = std::log1p(-q);
        auto add = [&](int64_t j) {
            acc.exposure[j] += w * q;
            if (counts) acc.log_miss[j] += lm;
            for (int64_t t = 0; t < n_values; ++t) sums[t] += q * values[t * m + j];
        };
        if (listed) {  // the selection listed the members left out
            for (int64_t p = sure; p < K; ++p) add(oj[p]);
            for (int64_t c = 0; c < out; ++c) add(sc.tied_out[c]);
        } else {  // its streaming path counts them only: a pass over the row
            for (int64_t j = 0; j < m; ++j)
                if ((double)s[j] == last) add(j);
        }
        len += (double)slots;
    }
    *length = len;
}

template <class S>
void exposure_rows(const S *scores, int64_t n_rows, int64_t m, int64_t k, bool later_first,
                   const double *weights, const double *values, int64_t n_values,
                   int32_t n_threads, const ExposureOut &out) {
    const int64_t K = std::min(k, m);
    int32_t nt = 1;
#ifdef _OPENMP
    nt = std::max<int32_t>(1, n_threads);
#else
    (void)n_threads;
#endif
    std::vector<ExposureAcc> acc((size_t)nt);
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    {
        int32_t me = 0;
#ifdef _OPENMP
        me = (int32_t)omp_get_thread_num();
#endif
        ExposureAcc &a = acc[(size_t)me];
        Scratch sc;
        std::vector<double> ov;
        std::vector<int64_t> oj;
        bool ok = true;
        try {
            a.exposure.assign((size_t)m, 0.0);
            a.certain.assign((size_t)m, 0.0);
            a.log_miss.assign((size_t)m, 0.0);
            ov.resize((size_t)K);
            oj.resize((size_t)K);
            sc.hv.resize((size_t)K);
            sc.hj.resize((size_t)K);
        } catch (const std::bad_alloc &) {
            ok = false;
        }
        // A fixed block of rows per thread: the merge below is reproducible.
        const int64_t per = (n_rows + nt - 1) / nt;
        const int64_t lo = std::min(n_rows, (int64_t)me * per);
        const int64_t hi = std::min(n_rows, lo + per);
        for (int64_t r = lo; r < hi; ++r) {
            if (!ok) {
                out.flags[r] |= FLAG_NO_MEMORY;
                continue;
            }
            const double w = weights ? weights[r] : 1.0;
            try {
                if (later_first)
                    exposure_row<S, true>(scores + r * m, m, K, w, values, n_values, sc, ov, oj,
                                          a, out.length + r, out.sums + r * n_values,
                                          out.flags[r]);
                else
                    exposure_row<S, false>(scores + r * m, m, K, w, values, n_values, sc, ov,
                                           oj, a, out.length + r, out.sums + r * n_values,
                                           out.flags[r]);
            } catch (const std::bad_alloc &) {
                out.flags[r] |= FLAG_NO_MEMORY;
            }
        }
    }
    for (int64_t j = 0; j < m; ++j) {
        out.exposure[j] = 0.0;
        out.certain[j] = 0.0;
        out.log_miss[j] = 0.0;
    }
    for (const ExposureAcc &a : acc) {
        if (a.exposure.empty()) continue;
        for (int64_t j = 0; j < m; ++j) {
            out.exposure[j] += a.exposure[j];
            out.certain[j] += a.certain[j];
            out.log_miss[j] += a.log_miss[j];
        }
    }
}

inline void exposure_any(int32_t score_type, const void *scores, int64_t n_rows, int64_t m,
                         int64_t k, bool later_first, const double *weights,
                         const double *values, int64_t n_values, int32_t n_threads,
                         double *exposure, double *certain, double *log_miss, double *length,
                         double *sums, uint8_t *flags) {
    const ExposureOut out{exposure, certain, log_miss, length, sums, flags};
    if (score_type == 0)
        exposure_rows<float>((const float *)scores, n_rows, m, k, later_first, weights, values,
                             n_values, n_threads, out);
    else
        exposure_rows<double>((const double *)scores, n_rows, m, k, later_first, weights,
                              values, n_values, n_threads, out);
}

}  // namespace rankk

#endif
