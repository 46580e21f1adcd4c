/* The row passes of float32 scores (kernel.hpp's ScoreRows<float>), every
 * relevance dtype: a translation unit of their own, compiled beside the
 * others (kernel.hpp). Hand-written C++ is .cc here; .cpp is Cython's output.
 */
#include "driver.hpp"

namespace rankk {

template struct ScoreRows<float>;

}  // namespace rankk
