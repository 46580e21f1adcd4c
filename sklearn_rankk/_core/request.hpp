/* What a call asks the kernel for: the formula codes (defined here only;
 * _kernel.pyx reads them with `cdef extern`), what each formula reads, a
 * request (one metric at one cut-off) and the plan (every request of a call,
 * the tie mode, the relevance threshold).
 */
#ifndef SKLEARN_RANKK_REQUEST_HPP
#define SKLEARN_RANKK_REQUEST_HPP

#include <cstdint>

namespace rankk {

enum Formula : int32_t {
    PRECISION = 0,
    RECALL = 1,
    F1 = 2,
    HIT = 3,
    RECIPROCAL_RANK = 4,
    AVERAGE_PRECISION = 5,
    DCG = 6,
    NDCG = 7,
    FBETA = 8,
    RELATIVE_PRECISION = 9,
    SET_AVERAGE_PRECISION = 10,
    // Interpolated precision (formulas_iprec.hpp)
    IPREC = 30,       // at recall level Request.level
    ELEVEN_PT = 31,   // its mean over Request.levels[0 .. n_levels)
    // Measures that read judgments (negative grades: not judged).
    BPREF = 60,
    INFERRED_AP = 61,
    UNJUDGED = 62,
    RBP_RESIDUAL = 63,
    // trec_eval's gain measures and utility (formulas_gain.hpp)
    RBP = 40,
    RNDCG = 41,
    BING = 42,
    UTILITY = 43,
    NDCG_REL = 44,
    G_GAIN = 45,
    // Peers' measures (ERR, fall-out): numbered apart from trec_eval's.
    ERR = 20,
    FALL_OUT = 21,
    // The DCG family's ideal DCG and scaled DCG, and yaap (formulas_dcg.hpp)
    IDEAL_DCG = 70,
    SDCG = 71,
    YAAP = 72,
    // AUC and its kin (formulas_auc.hpp)
    AUC = 80,                // Request.level: max_fpr (1: the whole ROC curve)
    PAIRWISE_ACCURACY = 81,
    COUNT_ROW = 82,          // a per-row count (RowCount in Request.level)
    // Intent-aware diversity, one intent per pass (formulas_diversity.hpp)
    ALPHA_GAIN = 105,  // alpha = Request.p; discount: log2, or Request.disc
    // Intent-aware measures, every intent in one pass over y_true of shape
    // (n_rows, m, n_levels) (formulas_diversity.hpp): per intent t, its value
    // in column t and whether the row has an item relevant to it in column
    // n_levels + t; INTENT_ALPHA adds the greedy ideal in column 2 n_levels.
    INTENT_PRECISION = 110,  // precision@k of each intent
    INTENT_HIT = 111,        // hit@k of each intent
    INTENT_ALPHA = 112,      // ALPHA_GAIN of each intent; the ideal if Request.level
    // Relevance seen through item weights, for the whole pass (weighted.hpp):
    // Request.levels, one weight per column; Request.level, the relevance
    // threshold; its value, the row's relevant items.
    ITEM_WEIGHTS = 113,
};

/* What each formula reads: the one table the driver and _kernel.pyx consult.
 *   READS_ORDER   the order of the ranks up to its cut-off (they are sorted)
 *   SET_SUM       a sum over the first k ranks, whatever their order: past
 *                 the sorted ranks it is answered from the selection's
 *                 candidates (set_cut); with curve=1 it reads the order
 *   READS_IDEAL   the ideal ranking's grades
 *   READS_JUDGED  which items were judged (negative grades: not judged)
 * ERR with max_grade=None also reads the ideal ranking (its largest grade):
 * a property of the request, not of the formula. */
enum FormulaReads : uint32_t {
    READS_ORDER = 1,
    SET_SUM = 2,
    READS_IDEAL = 4,
    READS_JUDGED = 8,
};

constexpr uint32_t formula_reads(int32_t formula) {
    switch (formula) {
    case PRECISION:
    case RECALL:
    case F1:
    case FBETA:
    case HIT:
    case RELATIVE_PRECISION:
    case SET_AVERAGE_PRECISION:
        return SET_SUM;
    case RECIPROCAL_RANK:
    case AVERAGE_PRECISION:
    case DCG:
    case IPREC:
    case ELEVEN_PT:
    case BING:
    case ERR:
    case SDCG:
    case YAAP:
    case ALPHA_GAIN:
    case INTENT_PRECISION:
    case INTENT_HIT:
    case INTENT_ALPHA:
        return READS_ORDER;
    case IDEAL_DCG:
        return READS_IDEAL;
    case NDCG:
    case RBP:
    case RNDCG:
    case NDCG_REL:
    case G_GAIN:
        return READS_ORDER | READS_IDEAL;
    case BPREF:
    case INFERRED_AP:
    case UNJUDGED:
    case RBP_RESIDUAL:
    case AUC:  // AUC@k reads the ranks; the whole row's AUC counts by itself
        return READS_ORDER | READS_JUDGED;
    default:  // UTILITY, FALL_OUT: sums over the retrieved set, or at cut k
        return 0;
    }
}

enum Denominator : int32_t { DEN_RELEVANT = 0, DEN_MIN = 1, DEN_RETRIEVED = 2 };

// Request.k: > 0 a cut-off; K_WHOLE the whole row; K_NREL each row's |R|;
// K_NRET each row's number of retrieved items (scores above -inf).
enum KCode : int64_t { K_WHOLE = 0, K_NREL = -1, K_NRET = -2 };

enum Ties : int32_t { TIES_EXACT = 0, TIES_LATER_FIRST = 1 };

// COUNT_ROW's counts (in Request.level), the weights of average="relevant",
// "judged" and "pairs" (formulas_auc.hpp).
enum RowCount : int32_t {
    COUNT_RELEVANT = 0,      // |P|
    COUNT_JUDGED = 1,        // |P| + |N|, N the judged non-relevant items
    COUNT_AUC_PAIRS = 2,     // |P| |N|
    COUNT_GRADED_PAIRS = 3,  // pairs of judged items of different grades
};

enum RowFlag : uint8_t {
    FLAG_NAN_SCORE = 1,
    FLAG_NAN_REL = 2,
    FLAG_INF_REL = 4,
    FLAG_EXP_OVERFLOW = 16,  // a relevant grade >= 1024 with exponential gain
    FLAG_TIES_TOO_MANY = 32,  // yaap: too many orderings of tie groups for its exact value
    FLAG_NO_MEMORY = 128,
};

struct Request {
    int32_t formula;
    int32_t denominator;
    int32_t exponential;
    int32_t curve;  // 1: the values at every cut-off 1..k, in k columns
    int64_t k;
    int64_t col;  // first output column
    double log_base;
    double beta;  // FBETA
    // A real parameter: the multiple of |R| of a K_NREL cut (R-precision's
    // trec_eval Rprec_mult, 1 for R-precision itself); IPREC's recall level.
    double level;
    const double *levels;  // ELEVEN_PT: its recall levels
    // (INTENT_*: n_levels is the number of intents, y_true's last dimension;
    // INTENT_ALPHA's levels, the (n_rows, n_levels) weights of its greedy
    // ideal, normalised over the row's intents; nullptr: 1 each, as they are)
    int64_t n_levels;
    double p;     // RBP: persistence
    double u_tp, u_fp, u_fn, u_tn;  // UTILITY: coefficients
    double max_grade;  // ERR: g_max of R = (2**g - 1) / 2**g_max; NaN: the row's largest grade
    // The DCG family (formulas_dcg.hpp): a gain map, grades increasing
    // (n_gain = 0: none), and a discount per rank 1..n_disc (nullptr: none).
    const double *gain_grades;
    const double *gain_values;
    int64_t n_gain;
    const double *disc;
    int64_t n_disc;
};

struct Plan {
    const Request *req;
    int32_t n_req;
    int32_t ties;
    double threshold;
    int32_t want_ideal;
    int32_t any_exponential;
    int32_t want_judged;  // a measure reads which items were judged
    int32_t n_threads;
    int64_t out_stride;  // output columns per row
};

}  // namespace rankk

#endif
