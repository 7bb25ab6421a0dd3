#pragma once
// The wgmma test kernels (wgmma_test.cu) as the tests (wgmma_test.cpp) launch them, and
// the cases both sides instantiate. Plain C++: the tests compile with the C++ GPU tests.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "warpspec/hopper/wgmma_desc.hpp"

namespace wgmma_test {  // named: the file is compiled with others in one translation unit

namespace hw = warpspec::hopper;
using hw::Major;
using hw::WgmmaOperandLayout;
using hw::WgmmaSwizzle;
using bf16 = __nv_bfloat16;
using fp16 = __half;
using e4m3 = __nv_fp8_e4m3;
using e5m2 = __nv_fp8_e5m2;

constexpr int kM = 64;       // one warpgroup's wgmma M
constexpr int kSteps = 4;    // k-steps per case: 128 B of K, one full SW128 span

template <class T_, int N_, bool kRs_, Major kMajorA_, Major kMajorB_, WgmmaSwizzle kSwA_, WgmmaSwizzle kSwB_,
          class TB_ = T_>
struct Case {
  using T = T_;
  using TB = TB_;  // B's type: A's, or the other 8-bit format (mixed e4m3 x e5m2, SS)
  static constexpr int N = N_;
  static constexpr bool kRs = kRs_;
  static constexpr Major kMajorA = kMajorA_, kMajorB = kMajorB_;
  static constexpr int kK = kSteps * (32 / int(sizeof(T)));  // an instruction takes 32 bytes of K (WgmmaInput)
  static constexpr WgmmaOperandLayout kLayoutA{kMajorA, kSwA_, sizeof(T), kM, kK};
  static constexpr WgmmaOperandLayout kLayoutB{kMajorB, kSwB_, sizeof(TB), N, kK};
  static_assert(sizeof(TB) == sizeof(T) && (std::is_same_v<T, TB> || !kRs_), "mixed types: 8-bit, SS");
  static constexpr uint32_t kOffsetB = kRs ? 0 : (kLayoutA.bytes() + 1023u) / 1024u * 1024u;
  static constexpr uint32_t kSmemBytes = kOffsetB + kLayoutB.bytes() + 1024u;  // + re-alignment slack
  static_assert(kSmemBytes <= 48u * 1024u, "stay under the default dynamic shared-memory limit");
  static_assert(!kRs || kMajorA == Major::kK, "an RS A fragment has no major-ness");
};

// One warpgroup computes D = A * B [+ C] for case C, with C::kSmemBytes of dynamic
// shared memory. a: 64 x K row-major; b: N x K row-major (b[n][k] = B(k, n)); c: 64 x N;
// out: 64 x N; accumulate: 0 overwrites D (from NaN), 1 adds to C. The first error of
// the shared-memory opt-in and the launch.
template <class C>
cudaError_t launch_case(const typename C::T* a, const typename C::TB* b, const float* c, float* out, int accumulate);

// FA3's P*V (pv_kernel in wgmma_test.cu). a: 64 x 64; b1: 64 x 64 (b1[n][k]); v: 64 x N2
// row-major (v[k][n]); out: 64 x N2. The first error of the opt-in and the launch.
template <class T, int N2>
cudaError_t launch_pv(const T* a, const T* b1, const T* v, float* out);

constexpr Major K_ = Major::kK, MN = Major::kMN;
constexpr WgmmaSwizzle S128 = WgmmaSwizzle::k128B, S64 = WgmmaSwizzle::k64B, S32 = WgmmaSwizzle::k32B,
                       SNO = WgmmaSwizzle::kNone;

// Name, then Case<T, N, RS?, major A, major B, swizzle A, swizzle B>. RS cases ignore
// A's major and swizzle (A comes from registers).
#define WGMMA_CASES(X)                                                      \
  X(Bf16_N64_SS_KK_Sw128, bf16, 64, false, K_, K_, S128, S128)              \
  X(Bf16_N256_SS_KK_Sw128, bf16, 256, false, K_, K_, S128, S128)            \
  X(Bf16_N136_SS_KK_NoSwizzle, bf16, 136, false, K_, K_, SNO, SNO)          \
  X(Bf16_N64_SS_KK_Sw64Sw32, bf16, 64, false, K_, K_, S64, S32)             \
  X(Bf16_N8_SS_MnMn_Sw128, bf16, 8, false, MN, MN, S128, S128)              \
  X(Bf16_N64_SS_MnMn_NoSwizzle, bf16, 64, false, MN, MN, SNO, SNO)          \
  X(Bf16_N64_SS_MnMn_Sw32Sw64, bf16, 64, false, MN, MN, S32, S64)           \
  X(Bf16_N128_RS_Mn_Sw128, bf16, 128, true, K_, MN, S128, S128)             \
  X(Fp16_N64_SS_KMn_Sw128, fp16, 64, false, K_, MN, S128, S128)             \
  X(Fp16_N136_SS_MnK_Sw64Sw128, fp16, 136, false, MN, K_, S64, S128)        \
  X(Fp16_N256_RS_K_Sw128, fp16, 256, true, K_, K_, S128, S128)              \
  X(Fp16_N8_RS_Mn_NoSwizzle, fp16, 8, true, K_, MN, SNO, SNO)               \
  X(E4m3_N64_SS_KK_Sw128, e4m3, 64, false, K_, K_, S128, S128)              \
  X(E4m3_N136_RS_K_Sw128, e4m3, 136, true, K_, K_, S128, S128)              \
  X(E4m3_N256_SS_KK_NoSwizzleSw64, e4m3, 256, false, K_, K_, SNO, S64)      \
  X(E5m2_N8_SS_KK_Sw128Sw32, e5m2, 8, false, K_, K_, S128, S32)             \
  X(E5m2_N64_RS_K_NoSwizzle, e5m2, 64, true, K_, K_, SNO, SNO)              \
  X(E4m3E5m2_N128_SS_KK_Sw128, e4m3, 128, false, K_, K_, S128, S128, e5m2)  \
  X(E5m2E4m3_N64_SS_KK_Sw128Sw64, e5m2, 64, false, K_, K_, S128, S64, e4m3)

}  // namespace wgmma_test
