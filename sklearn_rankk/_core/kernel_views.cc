/* The passes whose rows are read through another view (passes.hpp): a
 * translation unit of their own, compiled beside the others (kernel.hpp).
 */
#include <stdexcept>

#include "passes.hpp"

namespace rankk {

bool other_view_pass(int32_t score_type, int32_t rel_type, const void *scores, const void *y,
                     const int64_t *offsets, int64_t m, int64_t n_rows, const Plan &plan,
                     double *out, uint8_t *empty, uint8_t *flags) {
    if (offsets != nullptr || (intents_of(plan) == 0 && item_weights_of(plan) == nullptr))
        return false;
    if (score_type != SCORE_F64)
        throw std::invalid_argument("scores of an intent or weighted pass must be float64");
    other_view_pass_f64(rel_type, (const double *)scores, y, m, n_rows, plan, out, empty,
                        flags);
    return true;
}

}  // namespace rankk
