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

#include "driver.hpp"
#include "passes.hpp"

/* The pieces, each included by those that use it:
 *   request.hpp          formula codes, what each formula reads, Request, Plan
 *   rows.hpp             a row's relevance: threshold, gains, judgments, the
 *                        Aligned (dense, segments) and Sparse (CSR) views
 *   scratch.hpp          every per-thread work buffer
 *   select.hpp           the best K items of a row; set cut-offs past them
 *   ties.hpp             the tie groups (one walk), the per-rank view, the
 *                        hypergeometric and lattice-path toolkit
 *   formulas_rank.hpp    set measures' values, DCG discounts, AP
 *   formulas_judged.hpp  bpref, inferred AP
 *   formulas_iprec.hpp   interpolated precision, 11-point average
 *   formulas_gain.hpp    rbp, Rndcg, binG, ndcg_rel, G, utility
 *   formulas_err.hpp     expected reciprocal rank
 *   formulas_diversity.hpp  the intent-aware measures, every intent from one
 *                        selection (the Intents row view), greedy ideal
 *   relevant_ranks.hpp   whole-ranking AP, bpref, infAP, interpolated
 *                        precision, binG from the relevant items' ranks
 *                        (no sorted row)
 *   driver.hpp           process_row, all rows, type dispatch
 *   weighted.hpp         relevance seen through item weights (propensity)
 *   passes.hpp           passes whose rows are read through another view:
 *                        y_true per intent (n_rows, m, n_intents), weighted
 */

#endif
