/* The row scan: which items of a row reach a threshold (or are NaN), 32 at
 * a time (select_top's candidates), and the columns of a mask's set bits
 * written out without a branch per bit (list_bits_avx2, also used by
 * rows.hpp's dense_as_sparse).
 */
#ifndef SKLEARN_RANKK_SCAN_HPP
#define SKLEARN_RANKK_SCAN_HPP

#include <cstddef>
#include <cstdint>

#include "_simd.h"

// The AVX2 copies (list_reaching_avx2, list_bits_avx2), gcc on x86-64; not
// with RANKK_NO_AVX2_SCAN (CI's serial kernel, so that the portable loops
// are tested too, as on a CPU without AVX2).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8 && \
    !defined(RANKK_NO_AVX2_SCAN)
#include <immintrin.h>
#define RANKK_SCAN_AVX2 1
#endif

namespace rankk {

#ifdef RANKK_SCAN_AVX2
// Whether the CPU (and its OS) runs the AVX2 copies: AVX2, BMI1 and POPCNT
// (every AVX2 CPU has the other two; a virtual machine may hide them).
// Asked once.
inline bool scan_avx2() {
    static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
                           __builtin_cpu_supports("popcnt");
    return ok;
}

/* The columns base + i of the set bits i of `bits`, in order, into o; their
 * number. Four are written whatever their number (tzcnt of 0 is 64; the
 * writes past the set bits are overwritten or never read: o needs room
 * for max(4, their number)), then the rest: no branch on how many there
 * are, when most masks hold a few. */
__attribute__((target("avx2,bmi,popcnt"))) inline int64_t list_bits_avx2(uint64_t bits,
                                                                         int64_t base,
                                                                         int64_t *o) {
    const int64_t hits = (int64_t)_mm_popcnt_u64(bits);
    for (int u = 0; u < 4; ++u) {
        o[u] = base + (int64_t)_tzcnt_u64(bits);
        bits = _blsr_u64(bits);
    }
    for (o += 4; bits; bits = _blsr_u64(bits)) *o++ = base + (int64_t)_tzcnt_u64(bits);
    return hits;
}
#endif

// Items of s[0..32) reaching `worst`, or NaN (bit i for s[i]).
inline uint64_t reach32(const double *s, double worst) { return rankk_reach32_f64(s, worst); }
inline uint64_t reach32(const float *s, double worst) { return rankk_reach32_f32(s, worst); }

/* select_top's scan: the columns of the items of s reaching t (or NaN),
 * 32 at a time from column j, appended to ix[n..), while j + 32 <= m and
 * fewer than `room` are listed (checked after each chunk); returns the next
 * j. The AVX2 copy compares 4 doubles or 8 floats a vector where SSE2 takes
 * 2 or 4 (gcc's AVX2 intrinsics, called where the CPU has them, as in
 * few_keys.hpp): the same bits. */
template <class S>
int64_t list_reaching(const S *s, int64_t m, int64_t j, double t, int64_t *ix, size_t &n,
                      size_t room) {
    size_t q = n;  // (in a register: ix could alias n)
    while (j + 32 <= m) {
        uint64_t mask = reach32(s + j, t);
        while (mask) {
            ix[q++] = j + rankk_ctz64(mask);
            mask &= mask - 1;
        }
        j += 32;
        if (q >= room) break;
    }
    n = q;
    return j;
}

#ifdef RANKK_SCAN_AVX2

/* The bits of the 32 comparisons, with no early exit (most chunks of a row
 * hold a candidate when about 2K of its items are). */
__attribute__((target("avx2"))) inline uint64_t reach32_avx2(const double *s, double worst) {
    const __m256d w = _mm256_set1_pd(worst);
    uint64_t mask = 0;
    for (int i = 0; i < 8; ++i) {
        const __m256d c = _mm256_cmp_pd(_mm256_loadu_pd(s + 4 * i), w, _CMP_NLT_UQ);  // NaN: set
        mask |= (uint64_t)_mm256_movemask_pd(c) << (4 * i);
    }
    return mask;
}

__attribute__((target("avx2"))) inline uint64_t reach32_avx2(const float *s, double worst) {
    const __m256 w = _mm256_set1_ps((float)worst);  // (a kept score: exactly a float)
    uint64_t mask = 0;
    for (int i = 0; i < 4; ++i) {
        const __m256 c = _mm256_cmp_ps(_mm256_loadu_ps(s + 8 * i), w, _CMP_NLT_UQ);
        mask |= (uint64_t)_mm256_movemask_ps(c) << (8 * i);
    }
    return mask;
}

/* list_reaching with AVX2 comparisons, the hits' columns written by
 * list_bits_avx2 (ix has 32 slots to spare): a chunk costs no branch on
 * its number of hits. */
template <class S>
__attribute__((target("avx2,bmi,popcnt"))) int64_t list_reaching_avx2(
    const S *s, int64_t m, int64_t j, double t, int64_t *ix, size_t &n, size_t room) {
    size_t q = n;  // (in a register: ix could alias n)
    while (j + 32 <= m) {
        q += (size_t)list_bits_avx2(reach32_avx2(s + j, t), j, ix + q);
        j += 32;
        if (q >= room) break;
    }
    n = q;
    return j;
}
#endif

}  // namespace rankk

#endif
