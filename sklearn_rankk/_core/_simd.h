/* Bit masks over 32 consecutive scores: which reach a threshold (or are
 * NaN), which equal a value.
 *
 * Bit i is set when !(s[i] < worst), that is s[i] >= worst or s[i] is NaN,
 * or when s[i] == value. gcc does not vectorise these comparison
 * reductions without -ffast-math, so SSE2 (part of every x86-64 CPU) is used
 * directly; other CPUs take the scalar loops. gcc and clang define __SSE2__
 * on x86-64; MSVC never does, so x64 (not ARM64EC, which also defines
 * _M_X64) and 32-bit x86 built with /arch:SSE2 or above are named here.
 */
#ifndef SKLEARN_RANKK_SIMD_H
#define SKLEARN_RANKK_SIMD_H

#include <stdint.h>

#include "_portable.h"

#if defined(__SSE2__) || (defined(_M_X64) && !defined(_M_ARM64EC)) || \
    (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>

/* Items reaching `worst` or NaN (not less than it: the comparison is false
 * for NaN, so a NaN sets its bit). Most chunks hold none once the threshold
 * has settled: one OR of the 16 comparisons answers those with a single
 * movemask. */
static inline uint64_t rankk_reach32_f64(const double *s, double worst) {
    const __m128d w = _mm_set1_pd(worst);
    __m128d c[16];
    __m128d any = _mm_setzero_pd();
    for (int i = 0; i < 16; ++i) {
        c[i] = _mm_cmpnlt_pd(_mm_loadu_pd(s + 2 * i), w);
        any = _mm_or_pd(any, c[i]);
    }
    if (!_mm_movemask_pd(any)) return 0;
    uint64_t mask = 0;
    for (int i = 0; i < 16; ++i) mask |= (uint64_t)_mm_movemask_pd(c[i]) << (2 * i);
    return mask;
}

static inline uint64_t rankk_reach32_f32(const float *s, double worst) {
    /* worst is a kept score, so it is exactly a float. */
    const __m128 w = _mm_set1_ps((float)worst);
    __m128 c[8];
    __m128 any = _mm_setzero_ps();
    for (int i = 0; i < 8; ++i) {
        c[i] = _mm_cmpnlt_ps(_mm_loadu_ps(s + 4 * i), w);
        any = _mm_or_ps(any, c[i]);
    }
    if (!_mm_movemask_ps(any)) return 0;
    uint64_t mask = 0;
    for (int i = 0; i < 8; ++i) mask |= (uint64_t)_mm_movemask_ps(c[i]) << (4 * i);
    return mask;
}

static inline uint64_t rankk_eq32_f64(const double *s, double value) {
    const __m128d w = _mm_set1_pd(value);
    uint64_t mask = 0;
    for (int i = 0; i < 32; i += 2)
        mask |= (uint64_t)_mm_movemask_pd(_mm_cmpeq_pd(_mm_loadu_pd(s + i), w)) << i;
    return mask;
}

static inline uint64_t rankk_eq32_f32(const float *s, double value) {
    const __m128 w = _mm_set1_ps((float)value);
    uint64_t mask = 0;
    for (int i = 0; i < 32; i += 4)
        mask |= (uint64_t)_mm_movemask_ps(_mm_cmpeq_ps(_mm_loadu_ps(s + i), w)) << i;
    return mask;
}

#else

static inline uint64_t rankk_reach32_f64(const double *s, double worst) {
    uint64_t mask = 0;
    for (int i = 0; i < 32; i++) mask |= (uint64_t)!(s[i] < worst) << i;
    return mask;
}

static inline uint64_t rankk_reach32_f32(const float *s, double worst) {
    uint64_t mask = 0;
    for (int i = 0; i < 32; i++) mask |= (uint64_t)!(s[i] < worst) << i;
    return mask;
}

static inline uint64_t rankk_eq32_f64(const double *s, double value) {
    uint64_t mask = 0;
    for (int i = 0; i < 32; i++) mask |= (uint64_t)(s[i] == value) << i;
    return mask;
}

static inline uint64_t rankk_eq32_f32(const float *s, double value) {
    uint64_t mask = 0;
    for (int i = 0; i < 32; i++) mask |= (uint64_t)(s[i] == value) << i;
    return mask;
}

#endif

#endif
