/* Bit masks over 32 consecutive scores: which reach a threshold, which are
 * NaN, which equal a value.
 *
 * Bit i is set when s[i] >= worst (false for NaN, as in C), when s[i] is
 * NaN, or when s[i] == value. gcc does not vectorise these comparison
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

/* Items reaching `worst`; NaN items are OR-ed into *nan. */
static inline uint64_t rankk_mask32_f64(const double *s, double worst, uint64_t *nan) {
    const __m128d w = _mm_set1_pd(worst);
    uint64_t mask = 0, bad = 0;
    for (int i = 0; i < 32; i += 2) {
        __m128d v = _mm_loadu_pd(s + i);
        mask |= (uint64_t)_mm_movemask_pd(_mm_cmpge_pd(v, w)) << i;
        bad |= (uint64_t)_mm_movemask_pd(_mm_cmpunord_pd(v, v));
    }
    *nan |= bad;
    return mask;
}

static inline uint64_t rankk_mask32_f32(const float *s, double worst, uint64_t *nan) {
    /* worst is a kept score, so it is exactly a float. */
    const __m128 w = _mm_set1_ps((float)worst);
    uint64_t mask = 0, bad = 0;
    for (int i = 0; i < 32; i += 4) {
        __m128 v = _mm_loadu_ps(s + i);
        mask |= (uint64_t)_mm_movemask_ps(_mm_cmpge_ps(v, w)) << i;
        bad |= (uint64_t)_mm_movemask_ps(_mm_cmpunord_ps(v, v));
    }
    *nan |= bad;
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

static inline uint64_t rankk_mask32_f64(const double *s, double worst, uint64_t *nan) {
    uint64_t mask = 0, bad = 0;
    for (int i = 0; i < 32; i++) {
        mask |= (uint64_t)(s[i] >= worst) << i;
        bad |= (uint64_t)(s[i] != s[i]);
    }
    *nan |= bad;
    return mask;
}

static inline uint64_t rankk_mask32_f32(const float *s, double worst, uint64_t *nan) {
    uint64_t mask = 0, bad = 0;
    for (int i = 0; i < 32; i++) {
        mask |= (uint64_t)(s[i] >= worst) << i;
        bad |= (uint64_t)(s[i] != s[i]);
    }
    *nan |= bad;
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
