/* Portability shims: OpenMP when the compiler has it, a serial build when
 * not, and compiler builtins with portable fallbacks. */
#ifndef SKLEARN_RANKK_PORTABLE_H
#define SKLEARN_RANKK_PORTABLE_H

#include <stdint.h>

#ifdef _OPENMP
#include <omp.h>
static inline int rankk_max_threads(void) { return omp_get_max_threads(); }
static inline int rankk_openmp_enabled(void) { return 1; }
#else
static inline int rankk_max_threads(void) { return 1; }
static inline int rankk_openmp_enabled(void) { return 0; }
#endif

/* Index of the lowest set bit of a non-zero mask. */
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
static inline int rankk_ctz64(uint64_t x) {
    unsigned long i;
    _BitScanForward64(&i, x);
    return (int)i;
}
#elif defined(__GNUC__) || defined(__clang__)
static inline int rankk_ctz64(uint64_t x) { return __builtin_ctzll(x); }
#else
static inline int rankk_ctz64(uint64_t x) {
    int i = 0;
    while (!(x & 1)) {
        x >>= 1;
        ++i;
    }
    return i;
}
#endif

#endif
