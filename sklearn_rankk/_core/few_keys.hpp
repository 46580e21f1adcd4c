/* Placing a row's items among a few keys by comparisons alone.
 *
 * With exact ties, most relevant items of a heavily tied row share their
 * scores: W3 and W4 (scores rounded to 0.1) have about 11 distinct ones a
 * row, and every item of the row ties with one of them. There the bucket
 * index (key_buckets.hpp) pays a branch and an increment for every item
 * (each falls in a cell with a key) and sorting the relevant items pays
 * O(|R| log |R|) mispredicted comparisons. Here:
 *
 * - few_distinct: the distinct scores of a row's relevant items, found in
 *   column order, by a small hash table, O(|R|); the items taken key by
 *   key in the order found are in rank order (score, then column), so sums
 *   over a key's items are added as sorting would add them.
 * - count_few_keys: every item of the row counted against at most FEW_KEYS
 *   distinct keys, by vectorised comparisons (two keys a pass), the same
 *   whole numbers per slot as the buckets.
 */
#ifndef SKLEARN_RANKK_FEW_KEYS_HPP
#define SKLEARN_RANKK_FEW_KEYS_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "_portable.h"

// gcc's AVX2 intrinsics, called where the CPU has them (__builtin_cpu_supports)
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8
#include <immintrin.h>
#define RANKK_LOOKUP_AVX2 1
#endif

namespace rankk {

/* count_slots with exact ties and at most FEW_KEYS keys (distinct scores,
 * descending): per key, the items above it and those equal to it, in one
 * vectorised pass of comparisons per block of the row (the block read
 * from L1 once a key). The gap above key d then holds the items above it
 * less those at or above key d - 1. Whole numbers: the same slots as the
 * buckets give, at about D / 8 ns an item for float64 scores, where the
 * buckets pay a branch and an increment for each item whose cell holds a
 * key (on rows whose every score is a relevant one's, as W3 and W4's:
 * most of them). -inf and NaN scores are in no slot (the count of -inf is
 * returned; nan is set). */
constexpr int64_t FEW_KEYS = 16;

/* One block's comparisons: gt[d] += the items of x[0..n) above k[d], eq[d]
 * += those equal to it, for d < K. The baseline loop; few_keys_block_avx2
 * does the same with AVX2 (gcc does not vectorise these two counts without
 * packing every mask). */
template <class S>
void few_keys_block(const S *x, int64_t n, const S *k, int64_t K, int64_t *gt, int64_t *eq) {
    for (int64_t d = 0; d < K; ++d) {
        const S kd = k[d];
        int64_t u = 0, e = 0;
        for (int64_t j = 0; j < n; ++j) {
            u += x[j] > kd;
            e += x[j] == kd;
        }
        gt[d] += u;
        eq[d] += e;
    }
}

#ifdef RANKK_LOOKUP_AVX2
/* The lanes of v added up (64-bit lanes of a double's comparisons, 32-bit
 * ones of a float's: masks of -1, so the counts are negated). */
__attribute__((target("avx2"))) inline int64_t lane_count(__m256i v, bool wide) {
    alignas(32) int64_t q[4];
    alignas(32) int32_t h[8];
    int64_t c = 0;
    if (wide) {
        _mm256_store_si256((__m256i *)q, v);
        for (int i = 0; i < 4; ++i) c -= q[i];
    } else {
        _mm256_store_si256((__m256i *)h, v);
        for (int i = 0; i < 8; ++i) c -= h[i];
    }
    return c;
}
/* The comparisons of a vector of scores at p with k0 and k1: the lanes
 * above each added to u0, u1, those equal to each to e0, e1 (masks). */
__attribute__((target("avx2"))) inline void cmp_lanes2(const double *p, __m256d k0, __m256d k1,
                                                      __m256i &u0, __m256i &e0, __m256i &u1,
                                                      __m256i &e1) {
    const __m256d a = _mm256_loadu_pd(p);
    u0 = _mm256_add_epi64(u0, _mm256_castpd_si256(_mm256_cmp_pd(a, k0, _CMP_GT_OQ)));
    e0 = _mm256_add_epi64(e0, _mm256_castpd_si256(_mm256_cmp_pd(a, k0, _CMP_EQ_OQ)));
    u1 = _mm256_add_epi64(u1, _mm256_castpd_si256(_mm256_cmp_pd(a, k1, _CMP_GT_OQ)));
    e1 = _mm256_add_epi64(e1, _mm256_castpd_si256(_mm256_cmp_pd(a, k1, _CMP_EQ_OQ)));
}
__attribute__((target("avx2"))) inline void cmp_lanes2(const float *p, __m256 k0, __m256 k1,
                                                      __m256i &u0, __m256i &e0, __m256i &u1,
                                                      __m256i &e1) {
    const __m256 a = _mm256_loadu_ps(p);
    u0 = _mm256_add_epi32(u0, _mm256_castps_si256(_mm256_cmp_ps(a, k0, _CMP_GT_OQ)));
    e0 = _mm256_add_epi32(e0, _mm256_castps_si256(_mm256_cmp_ps(a, k0, _CMP_EQ_OQ)));
    u1 = _mm256_add_epi32(u1, _mm256_castps_si256(_mm256_cmp_ps(a, k1, _CMP_GT_OQ)));
    e1 = _mm256_add_epi32(e1, _mm256_castps_si256(_mm256_cmp_ps(a, k1, _CMP_EQ_OQ)));
}
__attribute__((target("avx2"))) inline __m256d splat(double v) { return _mm256_set1_pd(v); }
__attribute__((target("avx2"))) inline __m256 splat(float v) { return _mm256_set1_ps(v); }
/* few_keys_block, two keys a pass (one load for both; a lone last key is
 * paired with itself). */
template <class S>
__attribute__((target("avx2"))) void few_keys_block_avx2(const S *x, int64_t n, const S *k,
                                                         int64_t K, int64_t *gt, int64_t *eq) {
    constexpr bool wide = sizeof(S) == 8;
    constexpr int64_t L = wide ? 4 : 8;  // scores a vector
    const int64_t nv = n - n % L;
    for (int64_t d = 0; d < K; d += 2) {
        const int64_t d1 = d + 1 < K ? d + 1 : d;
        const auto k0 = splat(k[d]), k1 = splat(k[d1]);
        __m256i u0 = _mm256_setzero_si256(), e0 = u0, u1 = u0, e1 = u0;
        for (int64_t j = 0; j < nv; j += L) cmp_lanes2(x + j, k0, k1, u0, e0, u1, e1);
        gt[d] += lane_count(u0, wide);
        eq[d] += lane_count(e0, wide);
        if (d1 != d) {
            gt[d1] += lane_count(u1, wide);
            eq[d1] += lane_count(e1, wide);
        }
    }
    few_keys_block<S>(x + nv, n - nv, k, K, gt, eq);
}

/* few_keys_block with AVX-512F where the CPU has it: twice the lanes of
 * AVX2 (8 doubles or 16 floats a vector), each comparison into a mask
 * that adds 1 to its lanes (one instruction), four keys a pass (one load
 * for four): about half the time of few_keys_block_avx2 a key. The same
 * whole counts. */
/* The lanes of v added up (64-bit lanes, or 32-bit ones; stored, as
 * gcc 12's _mm512_reduce_add_* warn of an undefined lane). */
__attribute__((target("avx512f"))) inline int64_t lane_sum512(__m512i v, bool wide) {
    alignas(64) int64_t q[8];
    alignas(64) int32_t h[16];
    int64_t c = 0;
    if (wide) {
        _mm512_store_si512((void *)q, v);
        for (int i = 0; i < 8; ++i) c += q[i];
    } else {
        _mm512_store_si512((void *)h, v);
        for (int i = 0; i < 16; ++i) c += h[i];
    }
    return c;
}
template <class S>
__attribute__((target("avx512f"))) void few_keys_block_avx512(const S *x, int64_t n, const S *k,
                                                              int64_t K, int64_t *gt,
                                                              int64_t *eq) {
    constexpr bool wide = sizeof(S) == 8;
    constexpr int64_t L = wide ? 8 : 16;  // scores a vector
    const int64_t nv = n - n % L;
    for (int64_t d = 0; d < K; d += 4) {
        const int64_t nk = std::min<int64_t>(4, K - d);
        __m512i u[4], e[4];
        for (int q = 0; q < 4; ++q) u[q] = e[q] = _mm512_setzero_si512();
        if constexpr (wide) {
            const __m512i one = _mm512_set1_epi64(1);
            __m512d kk[4];
            for (int q = 0; q < 4; ++q)
                kk[q] = _mm512_set1_pd((double)k[d + std::min<int64_t>(q, nk - 1)]);
            for (int64_t j = 0; j < nv; j += L) {
                const __m512d a = _mm512_loadu_pd((const double *)x + j);
                for (int q = 0; q < 4; ++q) {
                    u[q] = _mm512_mask_add_epi64(
                        u[q], _mm512_cmp_pd_mask(a, kk[q], _CMP_GT_OQ), u[q], one);
                    e[q] = _mm512_mask_add_epi64(
                        e[q], _mm512_cmp_pd_mask(a, kk[q], _CMP_EQ_OQ), e[q], one);
                }
            }
            for (int64_t q = 0; q < nk; ++q) {
                gt[d + q] += lane_sum512(u[q], true);
                eq[d + q] += lane_sum512(e[q], true);
            }
        } else {
            const __m512i one = _mm512_set1_epi32(1);
            __m512 kk[4];
            for (int q = 0; q < 4; ++q)
                kk[q] = _mm512_set1_ps((float)k[d + std::min<int64_t>(q, nk - 1)]);
            for (int64_t j = 0; j < nv; j += L) {
                const __m512 a = _mm512_loadu_ps((const float *)x + j);
                for (int q = 0; q < 4; ++q) {
                    u[q] = _mm512_mask_add_epi32(
                        u[q], _mm512_cmp_ps_mask(a, kk[q], _CMP_GT_OQ), u[q], one);
                    e[q] = _mm512_mask_add_epi32(
                        e[q], _mm512_cmp_ps_mask(a, kk[q], _CMP_EQ_OQ), e[q], one);
                }
            }
            for (int64_t q = 0; q < nk; ++q) {
                gt[d + q] += lane_sum512(u[q], false);
                eq[d + q] += lane_sum512(e[q], false);
            }
        }
    }
    few_keys_block<S>(x + nv, n - nv, k, K, gt, eq);
}
#endif

template <class S>
int64_t count_few_keys(const S *s, int64_t m, const double *key, int64_t D, int64_t *cnt,
                       bool &nan) {
    // The keys, then -inf: the items above it are those neither -inf nor
    // NaN, so the NaN ones are the rest.
    S k[FEW_KEYS + 1];
    int64_t gt[FEW_KEYS + 1] = {0}, eq[FEW_KEYS + 1] = {0};
    for (int64_t d = 0; d < D; ++d) k[d] = (S)key[d];  // exact: each is a score of the row
    k[D] = -(S)INFINITY;
    const int64_t K = D + 1;
#ifdef RANKK_LOOKUP_AVX2
    constexpr bool vec = std::is_same<S, float>::value || std::is_same<S, double>::value;
#ifndef RANKK_NO_AVX512  // (CI's serial kernel: the AVX2 loop tested too)
    const bool avx512 = vec && __builtin_cpu_supports("avx512f");
#else
    const bool avx512 = false;
#endif
    const bool avx2 = vec && __builtin_cpu_supports("avx2");
#endif
    constexpr int64_t BLOCK = 1024;  // 8 KiB of float64 scores
    for (int64_t a = 0; a < m; a += BLOCK) {
        const int64_t n = std::min<int64_t>(BLOCK, m - a);
#ifdef RANKK_LOOKUP_AVX2
        if (avx512) {
            few_keys_block_avx512<S>(s + a, n, k, K, gt, eq);
            continue;
        }
        if (avx2) {
            few_keys_block_avx2<S>(s + a, n, k, K, gt, eq);
            continue;
        }
#endif
        few_keys_block<S>(s + a, n, k, K, gt, eq);
    }
    for (int64_t d = 0; d < D; ++d) {
        cnt[2 * d] += gt[d] - (d > 0 ? gt[d - 1] + eq[d - 1] : 0);
        cnt[2 * d + 1] += eq[d];
    }
    nan = nan || m - gt[D] - eq[D] > 0;
    return eq[D];
}

/* The distinct scores of n items found in column order (score(i), col(i);
 * no score NaN), where they number at most FEW_KEYS and the columns
 * ascend: into key[0..D) in decreasing order, and each item's place among
 * them into kid[i]. Returns D, or -1 where there are more distinct scores,
 * a NaN score or columns that do not ascend (kid then unspecified). A
 * small hash table of the scores seen (on their bits, -0 as +0), then the
 * few distinct ones ordered by insertion: O(n), against a comparison
 * sort's O(n log n) mispredicted branches. The items taken by kid, each
 * key's in the order found, are in the order that sorting them by score,
 * then column, gives: sums over a key's items, added in that order, are
 * the same bit for bit. */
template <class Score, class Col>
int64_t few_distinct(int64_t n, Score &&score, Col &&col, double *key, int32_t *kid) {
    double dv[FEW_KEYS], hv[64];
    int8_t hid[64];
    std::fill(hid, hid + 64, (int8_t)-1);
    int32_t n_dist = 0;
    int64_t prev = -1;
    for (int64_t i = 0; i < n; ++i) {
        const double x = score(i), x0 = x == 0.0 ? 0.0 : x;
        const int64_t j = col(i);
        if (j <= prev || x != x) return -1;
        prev = j;
        uint64_t bits;
        std::memcpy(&bits, &x0, sizeof bits);
        uint32_t h = (uint32_t)((bits * 0x9E3779B97F4A7C15ull) >> 58);
        while (hid[h] >= 0 && hv[h] != x) h = (h + 1) & 63u;
        if (hid[h] < 0) {
            if (n_dist == (int32_t)FEW_KEYS) return -1;
            hv[h] = x;
            hid[h] = (int8_t)n_dist;
            dv[n_dist++] = x;
        }
        kid[i] = hid[h];
    }
    int32_t by[FEW_KEYS], rank_of[FEW_KEYS];
    for (int32_t q = 0; q < n_dist; ++q) {
        int32_t p = q;
        for (; p > 0 && dv[by[p - 1]] < dv[q]; --p) by[p] = by[p - 1];
        by[p] = q;
    }
    for (int32_t r = 0; r < n_dist; ++r) {
        rank_of[by[r]] = r;
        key[r] = dv[by[r]];
    }
    for (int64_t i = 0; i < n; ++i) kid[i] = rank_of[kid[i]];
    return n_dist;
}

}  // namespace rankk

#endif
