/* The compiled kernel: rows in, metric values out.
 *
 * For every row (a segment of a flat score array, or a row of a dense
 * matrix), one call
 *
 *   1. reads the row's relevance once: |R| (relevant items, y > threshold),
 *      the checks on the values (NaN, infinite, negative grades), and, when a
 *      graded metric needs it, the ideal ranking's grades;
 *   2. reads the row's scores once: the best K items in rank order (K: the
 *      deepest cut-off any request needs for this row) and NaN detection;
 *   3. with the top items in cache, computes every requested metric at every
 *      requested cut-off (or every cut-off 1..k of a curve), exactly under
 *      ties: the value is the expectation over all orderings of tied items
 *      (McSherry & Najork, ECIR 2008), in closed form.
 *
 * Tie modes: TIES_EXACT (the expectation); TIES_LATER_FIRST (one ranking:
 * among equal scores the later column first, scikit-learn's reversed stable
 * argsort, as in top_k_accuracy_score).
 *
 * Rows are spread over OpenMP threads (dynamic schedule: a busy core does not
 * hold the others back). Nothing here calls Python; the caller releases the
 * GIL.
 */
#ifndef SKLEARN_RANKK_KERNEL_HPP
#define SKLEARN_RANKK_KERNEL_HPP

#include <cstdint>

#include "request.hpp"

/* The pieces, each included by those that use it:
 *   request.hpp          formula codes, what each formula reads, Request, Plan
 *   rows.hpp             a row's relevance: threshold, gains, judgments, the
 *                        Aligned (dense, segments) and Sparse (CSR) views
 *   scratch.hpp          every per-thread work buffer
 *   scan.hpp             the items of a row reaching a threshold, and the
 *                        columns of a mask's bits (SSE2 and AVX2)
 *   select.hpp           the best K items of a row, and its candidates
 *   set_cut.hpp          set cut-offs past them, from the candidates
 *   ties.hpp             the tie groups (one walk), the per-rank view, the
 *                        hypergeometric and lattice-path toolkit
 *   key_buckets.hpp      where an item ranks among a row's sorted keys (the
 *                        relevant items' scores), by buckets of their range
 *   few_keys.hpp         the same among a few keys, by comparisons alone
 *   formulas_rank.hpp    set measures' values, DCG discounts, AP
 *   formulas_dcg.hpp     DCG with a gain map or discount table, ideal DCG,
 *                        SDCG
 *   formulas_judged.hpp  bpref, inferred AP
 *   formulas_iprec.hpp   interpolated precision, 11-point average
 *   formulas_gain.hpp    rbp, Rndcg, binG, ndcg_rel, G, utility
 *   formulas_err.hpp     expected reciprocal rank
 *   formulas_diversity.hpp  the intent-aware measures, every intent from one
 *                        selection (the Intents row view), greedy ideal
 *   formulas_auc.hpp     AUC, partial AUC, AUC@k, and the row readers, keys
 *                        and slot sums of the AUC family
 *   formulas_pairwise.hpp  pairwise ordered accuracy, GAUC's per-row counts
 *   exposure.hpp         item exposure of the top-k lists (the
 *                        beyond-accuracy measures)
 *   relevant_ranks.hpp   whole-ranking AP, bpref, infAP, interpolated
 *                        precision, binG from the relevant items' ranks
 *                        (no sorted row)
 *   driver.hpp           process_row, all rows, the passes per relevance dtype
 *   weighted.hpp         relevance seen through item weights (propensity)
 *   passes.hpp           passes whose rows are read through another view:
 *                        y_true per intent (n_rows, m, n_intents), weighted
 *   trec.hpp             TREC qrels and run files, parsed (no metric: the
 *                        command line's reader)
 *
 * This header only declares the entry points (what _kernel.pyx calls). Their
 * instances are compiled in translation units of their own, which a build on
 * several cores compiles in parallel (setup.py): kernel_f32.cc and
 * kernel_f64.cc (every row pass of float32, float64 scores) and
 * kernel_views.cc (the passes of passes.hpp). Cython's module (_kernel.cpp)
 * sees no template of the row driver, and instantiates none.
 */

namespace rankk {

// ---- type dispatch (Cython cannot instantiate templates with fused types) ------

enum ScoreType : int32_t { SCORE_F32 = 0, SCORE_F64 = 1 };
enum RelType : int32_t {
    REL_U8 = 0, REL_I8, REL_I16, REL_I32, REL_I64, REL_U16, REL_U32, REL_U64, REL_F32, REL_F64,
};

/* The row passes for scores of type S (driver.hpp defines them; kernel_f32.cc
 * and kernel_f64.cc instantiate them, and only they). */
template <class S>
struct ScoreRows {
    // Relevance aligned with the scores, of the dtype rel_type: a dense
    // matrix (offsets == nullptr) or segments of flat arrays.
    static void aligned(int32_t rel_type, const S *scores, const void *y,
                        const int64_t *offsets, int64_t m, int64_t n_rows, const Plan &plan,
                        double *out, uint8_t *empty, uint8_t *flags);
    // Dense score rows, relevance in CSR form.
    static void csr(const S *scores, int64_t m, int64_t n_rows, const int64_t *indptr,
                    const int64_t *indices, const double *data, int64_t row_offset,
                    const Plan &plan, double *out, uint8_t *empty, uint8_t *flags);
    // The top K of every row (the tests').
    static void top(const S *scores, int64_t n_rows, int64_t m, int64_t K, bool later_first,
                    double *values, int64_t *cols, int64_t *outside, uint8_t *nan);
};
extern template struct ScoreRows<float>;
extern template struct ScoreRows<double>;

/* A dense pass (offsets == nullptr) with intent-aware requests or an
 * ITEM_WEIGHTS request: its rows through their view; false otherwise
 * (passes.hpp; kernel_views.cc). */
bool other_view_pass(int32_t score_type, int32_t rel_type, const void *scores, const void *y,
                     const int64_t *offsets, int64_t m, int64_t n_rows, const Plan &plan,
                     double *out, uint8_t *empty, uint8_t *flags);

inline void evaluate_aligned_any(int32_t score_type, int32_t rel_type, const void *scores,
                                 const void *y, const int64_t *offsets, int64_t m,
                                 int64_t n_rows, const Plan &plan, double *out, uint8_t *empty,
                                 uint8_t *flags) {
    if (other_view_pass(score_type, rel_type, scores, y, offsets, m, n_rows, plan, out, empty,
                        flags))
        return;
    if (score_type == SCORE_F32)
        ScoreRows<float>::aligned(rel_type, (const float *)scores, y, offsets, m, n_rows, plan,
                                  out, empty, flags);
    else
        ScoreRows<double>::aligned(rel_type, (const double *)scores, y, offsets, m, n_rows,
                                   plan, out, empty, flags);
}

inline void evaluate_csr_any(int32_t score_type, const void *scores, int64_t m, int64_t n_rows,
                             const int64_t *indptr, const int64_t *indices, const double *data,
                             int64_t row_offset, const Plan &plan, double *out, uint8_t *empty,
                             uint8_t *flags) {
    if (score_type == SCORE_F32)
        ScoreRows<float>::csr((const float *)scores, m, n_rows, indptr, indices, data,
                              row_offset, plan, out, empty, flags);
    else
        ScoreRows<double>::csr((const double *)scores, m, n_rows, indptr, indices, data,
                               row_offset, plan, out, empty, flags);
}

inline void top_k_any(int32_t score_type, const void *scores, int64_t n_rows, int64_t m,
                      int64_t K, bool later_first, double *values, int64_t *cols,
                      int64_t *outside, uint8_t *nan) {
    if (score_type == SCORE_F32)
        ScoreRows<float>::top((const float *)scores, n_rows, m, K, later_first, values, cols,
                              outside, nan);
    else
        ScoreRows<double>::top((const double *)scores, n_rows, m, K, later_first, values, cols,
                               outside, nan);
}

}  // namespace rankk

#endif
