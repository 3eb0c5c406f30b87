// The vector width a translation unit is compiled for (from -march, IRIS_CPU_ARCH): one answer
// shared by the fused CPU loop and the Peak/cpu-fma rows that measure its limit, so the peak
// is always taken on the vectors the loop uses. Macro-based: include it only from files built
// with the same -march (CMakeLists.txt sets it for both).
#pragma once

namespace common {

#if defined(__AVX512F__)
inline constexpr int kVectorBytes = 64;
inline constexpr const char* kVectorIsa = "avx512";
#elif defined(__AVX2__)
inline constexpr int kVectorBytes = 32;
inline constexpr const char* kVectorIsa = "avx2";
#elif defined(__AVX__)
inline constexpr int kVectorBytes = 32;
inline constexpr const char* kVectorIsa = "avx";
#elif defined(__ARM_NEON)
inline constexpr int kVectorBytes = 16;
inline constexpr const char* kVectorIsa = "neon";
#else
inline constexpr int kVectorBytes = 16;
inline constexpr const char* kVectorIsa = "sse2";
#endif

// Whether a*b+c is one fused instruction on these vectors (AVX-512 and NEON always have it).
#if defined(__FMA__) || defined(__AVX512F__) || defined(__ARM_NEON)
inline constexpr bool kVectorFma = true;
#else
inline constexpr bool kVectorFma = false;
#endif

}  // namespace common
