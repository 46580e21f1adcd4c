/* Passes whose rows are read through another row view than the relevance as
 * given, by the same row driver as every other pass: the intent-aware
 * requests' y_true of shape (n_rows, m, n_intents) (Intents,
 * formulas_diversity.hpp), and relevance seen through item weights
 * (Weighted, weighted.hpp; an ITEM_WEIGHTS request asks for it).
 */
#ifndef SKLEARN_RANKK_PASSES_HPP
#define SKLEARN_RANKK_PASSES_HPP

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "driver.hpp"
#include "formulas_diversity.hpp"
#include "weighted.hpp"

namespace rankk {

template <class S, class R>
void evaluate_intents(const S *scores, const R *y, int64_t n_int, int64_t m, int64_t n_rows,
                      const Plan &plan, double *out, uint8_t *empty, uint8_t *flags) {
    const Threshold<R> th(plan.threshold);
    for_rows(n_rows, plan.n_threads, rows_per_chunk(n_rows, n_rows * m), flags,
             [&](int64_t r, Scratch &sc) {
                 thread_local std::vector<int64_t> items;  // Intents::count's list
                 Intents<R> rel{y + r * m * n_int, m, n_int, r, &th, &items};
                 process_row(scores + r * m, m, rel, plan, sc, out + r * plan.out_stride,
                             empty + r * plan.n_req, flags[r]);
             });
}

template <class S, class R>
void evaluate_weighted(const S *scores, const R *y, const Request &weights, int64_t m,
                       int64_t n_rows, const Plan &plan, double *out, uint8_t *empty,
                       uint8_t *flags) {
    const Threshold<R> th(weights.level);
    for_rows(n_rows, plan.n_threads, rows_per_chunk(n_rows, n_rows * m), flags,
             [&](int64_t r, Scratch &sc) {
                 thread_local std::vector<int64_t> items;  // Weighted::count's list
                 Weighted<R> rel{y + r * m, m, &th, weights.levels, &items};
                 process_row(scores + r * m, m, rel, plan, sc, out + r * plan.out_stride,
                             empty + r * plan.n_req, flags[r]);
             });
}

/* The relevance dtypes these passes take (the caller converts the others:
 * ranking.py's OTHER_VIEW_RELEVANCE), scores float64 only: each is a whole
 * instance of process_row, and so of every formula. */
inline void other_view_pass_f64(int32_t rel_type, const double *scores, const void *y,
                                int64_t m, int64_t n_rows, const Plan &plan, double *out,
                                uint8_t *empty, uint8_t *flags) {
    const int64_t n_int = intents_of(plan);
    const Request *weights = item_weights_of(plan);
#define RANKK_CASE(CODE, T)                                                                 \
    case CODE:                                                                              \
        if (n_int > 0)                                                                      \
            evaluate_intents<double, T>(scores, (const T *)y, n_int, m, n_rows, plan, out, \
                                        empty, flags);                                      \
        else                                                                                \
            evaluate_weighted<double, T>(scores, (const T *)y, *weights, m, n_rows, plan,  \
                                         out, empty, flags);                                \
        return;
    switch (rel_type) {
        RANKK_CASE(REL_U8, uint8_t)
        RANKK_CASE(REL_I8, int8_t)
        RANKK_CASE(REL_I64, int64_t)
        RANKK_CASE(REL_F64, double)
    }
#undef RANKK_CASE
    throw std::invalid_argument("relevance dtype not read by an intent or weighted pass");
}

}  // namespace rankk

#endif
