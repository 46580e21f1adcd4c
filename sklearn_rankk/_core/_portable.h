/* Portability shims of the top-k kernel: the same source builds with gcc,
 * clang (Apple's included) and MSVC, with or without OpenMP.
 *
 * rankk_ctz64(x)         index of the lowest set bit of x (x != 0).
 * rankk_prefetch(p)      a hint to fetch the cache line of p (nothing where
 *                        the compiler has no such builtin).
 * rankk_max_threads()    OpenMP's thread limit; 1 in a build without OpenMP.
 * rankk_openmp_enabled() 1 when the kernel was compiled with OpenMP.
 * rankk_compiler()       the compiler that built the kernel, from its
 *                        predefined macros.
 */
#ifndef SKLEARN_RANKK_PORTABLE_H
#define SKLEARN_RANKK_PORTABLE_H

#if defined(_OPENMP)
#include <omp.h>
#endif

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#endif

#define RANKK_STR_(x) #x
#define RANKK_STR(x) RANKK_STR_(x)

/* Lowest set bit, without compiler support: a de Bruijn multiplication. */
static inline int rankk_ctz64_generic(unsigned long long x) {
    static const unsigned char index64[64] = {
        0,  1,  48, 2,  57, 49, 28, 3,  61, 58, 50, 42, 38, 29, 17, 4,
        62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
        63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
        46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9,  13, 8,  7,  6};
    const unsigned long long debruijn64 = 0x03f79d71b4cb0a89ULL;
    return index64[((x & (0ULL - x)) * debruijn64) >> 58];
}

static inline int rankk_ctz64(unsigned long long x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_ARM64))
    unsigned long index;
    _BitScanForward64(&index, x);
    return (int)index;
#elif defined(_MSC_VER)
    unsigned long index;
    if (_BitScanForward(&index, (unsigned long)x)) return (int)index;
    _BitScanForward(&index, (unsigned long)(x >> 32));
    return (int)index + 32;
#else
    return rankk_ctz64_generic(x);
#endif
}

#if defined(__GNUC__) || defined(__clang__)
#define rankk_prefetch(p) __builtin_prefetch(p)
#else
#define rankk_prefetch(p) ((void)(p))
#endif

/* Hot loops compiled twice, for AVX2 and for the baseline, the better one
 * chosen when the module loads (gcc's function multi-versioning, ELF on
 * x86-64 only); elsewhere, the baseline alone.  Not clang: it rejects
 * target_clones on the function templates this is used on. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && \
    !defined(__clang__) && __GNUC__ >= 8
#define RANKK_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define RANKK_CLONES
#endif

/* A small helper that must be inlined into its caller (a target_clones
 * function gets the helper's code compiled for each of its targets; GCC at
 * -O2 would otherwise call one baseline copy). */
#if defined(__GNUC__)
#define RANKK_ALWAYS_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define RANKK_ALWAYS_INLINE __forceinline
#else
#define RANKK_ALWAYS_INLINE inline
#endif

static inline int rankk_max_threads(void) {
#if defined(_OPENMP)
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static inline int rankk_openmp_enabled(void) {
#if defined(_OPENMP)
    return 1;
#else
    return 0;
#endif
}

static inline const char *rankk_compiler(void) {
#if defined(__clang__) && defined(__apple_build_version__)
    return "Apple clang " __clang_version__;
#elif defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#elif defined(_MSC_VER)
    return "MSVC " RANKK_STR(_MSC_FULL_VER);
#else
    return "unknown";
#endif
}

#endif
