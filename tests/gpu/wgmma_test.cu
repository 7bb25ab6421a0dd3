// wgmma on the GPU: one warpgroup computes D(64 x N) = A(64 x K) * B(K x N) [+ C] with
// K = 4 instruction k-steps, operands written to shared memory by plain threads in the
// canonical layout (WgmmaOperandLayout), A from shared memory (SS) or from registers
// (RS), the accumulator written out through the documented fragment layout, and every
// element compared with a CPU reference. Inputs are small multiples of a power of two,
// so products and sums are exact in fp32 and a layout mistake cannot hide in rounding.
// One kernel template covers every case; the cases are a representative set (dtypes x
// N x majors x swizzles x SS/RS), not the cross product, to keep nvcc time down.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "common/gpu_test.hpp"
#include "warpspec/hopper/tma.cuh"
#include "warpspec/hopper/wgmma.cuh"

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
constexpr int kThreads = 128;
constexpr int kSteps = 4;    // k-steps per case: 128 B of K, one full SW128 span

template <class T_, int N_, bool kRs_, Major kMajorA_, Major kMajorB_, WgmmaSwizzle kSwA_, WgmmaSwizzle kSwB_,
          class TB_ = T_>
struct Case {
  using T = T_;
  using TB = TB_;  // B's type: A's, or the other 8-bit format (mixed e4m3 x e5m2, SS)
  static constexpr int N = N_;
  static constexpr bool kRs = kRs_;
  static constexpr Major kMajorA = kMajorA_, kMajorB = kMajorB_;
  static constexpr int kK = kSteps * hw::WgmmaInput<T>::kK;
  static constexpr WgmmaOperandLayout kLayoutA{kMajorA, kSwA_, sizeof(T), kM, kK};
  static constexpr WgmmaOperandLayout kLayoutB{kMajorB, kSwB_, sizeof(TB), N, kK};
  static_assert(sizeof(TB) == sizeof(T) && (std::is_same_v<T, TB> || !kRs_), "mixed types: 8-bit, SS");
  static constexpr uint32_t kOffsetB = kRs ? 0 : (kLayoutA.bytes() + 1023u) / 1024u * 1024u;
  static constexpr uint32_t kSmemBytes = kOffsetB + kLayoutB.bytes() + 1024u;  // + re-alignment slack
  static_assert(kSmemBytes <= 48u * 1024u, "stay under the default dynamic shared-memory limit");
  static_assert(!kRs || kMajorA == Major::kK, "an RS A fragment has no major-ness");
};

// Thread `tid`'s accumulator register i holds (row, col) (PTX Fig. "WGMMA .m64nNk16
// register fragment layout for accumulator matrix D"; HOPPER-FACTS §4).
__device__ __forceinline__ int acc_row(int tid, int i) { return 16 * (tid / 32) + (tid % 32) / 4 + 8 * ((i >> 1) & 1); }
__device__ __forceinline__ int acc_col(int tid, int i) { return 8 * (i >> 2) + 2 * (tid % 4) + (i & 1); }

// Write a row-major rows x k matrix (element (r, k) at src[r * kK + k]) into a tile.
template <class T>
__device__ __forceinline__ void fill_tile(uint8_t* tile, const WgmmaOperandLayout& l, const T* src, int rows, int k_extent) {
  for (int i = threadIdx.x; i < rows * k_extent; i += kThreads)
    *reinterpret_cast<T*>(tile + l.offset(i / k_extent, i % k_extent)) = src[i];
}

// a: 64 x K row-major; b: N x K row-major (b[n][k] = B(k, n)); c: 64 x N; out: 64 x N.
template <class C>
__global__ void __launch_bounds__(kThreads, 1)
    wgmma_case_kernel(const typename C::T* a, const typename C::TB* b, const float* c, float* out, int accumulate) {
  using T = typename C::T;
  constexpr int N = C::N;
  // Local copies: device code reads the layouts as values, never the host statics.
  constexpr WgmmaOperandLayout layout_a = C::kLayoutA, layout_b = C::kLayoutB;
  extern __shared__ uint8_t smem_raw[];
  // Swizzle patterns are anchored to absolute address bits: start the tiles on 1024 B.
  uint8_t* smem = smem_raw + ((1024u - (hw::smem_u32(smem_raw) & 1023u)) & 1023u);
  uint8_t* smem_a = smem;
  uint8_t* smem_b = smem + C::kOffsetB;
  const int tid = threadIdx.x;

  if constexpr (!C::kRs) fill_tile(smem_a, layout_a, a, kM, C::kK);
  fill_tile(smem_b, layout_b, b, N, C::kK);
  // Generic-proxy stores, async-proxy reader: each writer fences, then the barrier.
  hw::fence_proxy_async_smem();
  __syncthreads();

  // RS: the A fragment of k-step j, straight from global. Register r holds row
  // 16w + g + 8(r&1) and the 4 bytes of K starting at byte 32j + 16(r>>1) + 4q (two
  // 16-bit or four 8-bit elements, lowest k in the low bits).
  uint32_t a_frag[kSteps][4];
  if constexpr (C::kRs) {
    const int row0 = 16 * (tid / 32) + (tid % 32) / 4, q = tid % 4;
#pragma unroll
    for (int j = 0; j < kSteps; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int row = row0 + 8 * (r & 1);
        const int kbyte = 32 * j + 16 * (r >> 1) + 4 * q;
        a_frag[j][r] = *reinterpret_cast<const uint32_t*>(reinterpret_cast<const uint8_t*>(a + row * C::kK) + kbyte);
      }
  }

  // Overwrite mode starts from NaN: a scale-d = false wgmma must not read D at all.
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = accumulate ? c[acc_row(tid, i) * N + acc_col(tid, i)] : __int_as_float(0x7fc00000);

  const uint32_t addr_a = hw::smem_u32(smem_a), addr_b = hw::smem_u32(smem_b);
  hw::wgmma_fence_operands(d);
  if constexpr (C::kRs) {
#pragma unroll
    for (int j = 0; j < kSteps; ++j) hw::wgmma_fence_operands(a_frag[j]);
  }
  hw::wgmma_fence();
#pragma unroll
  for (int j = 0; j < kSteps; ++j) {
    const bool acc = accumulate != 0 || j > 0;  // runtime scale-d
    if constexpr (C::kRs) {
      hw::mma_async<N, T, C::kMajorB>(d, a_frag[j], layout_b.desc(addr_b, j), acc);
    } else {
      hw::mma_async<N, T, C::kMajorA, C::kMajorB, typename C::TB>(d, layout_a.desc(addr_a, j), layout_b.desc(addr_b, j), acc);
    }
  }
  hw::wgmma_commit_group();
  hw::wgmma_wait_group<0>();
  hw::wgmma_fence_operands(d);

#pragma unroll
  for (int i = 0; i < N / 2; ++i) out[acc_row(tid, i) * N + acc_col(tid, i)] = d[i];
}

// FA3's P*V: S = A * B1 (SS, 64 x 64), P = T(S) packed from the accumulator into A
// fragments (accum_to_a_fragment), O = P * V (RS) with V N-major in SW128, as FA3 keeps
// bf16 V. a: 64 x 64; b1: 64 x 64 (b1[n][k]); v: 64 x N2 row-major (v[k][n]).
template <class T, int N2>
__global__ void __launch_bounds__(kThreads, 1) pv_kernel(const T* a, const T* b1, const T* v, float* out) {
  constexpr int N1 = 64, K1 = 4 * 16;
  constexpr WgmmaOperandLayout la{Major::kK, WgmmaSwizzle::k128B, sizeof(T), kM, K1};
  constexpr WgmmaOperandLayout lb{Major::kK, WgmmaSwizzle::k128B, sizeof(T), N1, K1};
  constexpr WgmmaOperandLayout lv{Major::kMN, WgmmaSwizzle::k128B, sizeof(T), N2, N1};
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = smem_raw + ((1024u - (hw::smem_u32(smem_raw) & 1023u)) & 1023u);
  uint8_t* sa = smem;
  uint8_t* sb = sa + la.bytes();
  uint8_t* sv = sb + lb.bytes();
  fill_tile(sa, la, a, kM, K1);
  fill_tile(sb, lb, b1, N1, K1);
  // V arrives k-major in memory (v[k][n]); its tile is indexed (n, k).
  for (int i = threadIdx.x; i < N1 * N2; i += kThreads) *reinterpret_cast<T*>(sv + lv.offset(i % N2, i / N2)) = v[i];
  hw::fence_proxy_async_smem();
  __syncthreads();

  float s[N1 / 2];
  float o[N2 / 2];
  const uint32_t addr_a = hw::smem_u32(sa), addr_b = hw::smem_u32(sb), addr_v = hw::smem_u32(sv);
  hw::wgmma_fence_operands(s);
  hw::wgmma_fence();
#pragma unroll
  for (int j = 0; j < 4; ++j) hw::mma_async<N1, T>(s, la.desc(addr_a, j), lb.desc(addr_b, j), j > 0);
  hw::wgmma_commit_group();
  hw::wgmma_wait_group<0>();
  hw::wgmma_fence_operands(s);

  uint32_t p[4][4];
#pragma unroll
  for (int j = 0; j < 4; ++j) hw::accum_to_a_fragment<T>(s, j, p[j]);
#pragma unroll
  for (int i = 0; i < N2 / 2; ++i) o[i] = 0.0f;
  hw::wgmma_fence_operands(o);
#pragma unroll
  for (int j = 0; j < 4; ++j) hw::wgmma_fence_operands(p[j]);
  hw::wgmma_fence();  // P and O were written by ordinary instructions
#pragma unroll
  for (int j = 0; j < 4; ++j) hw::mma_async<N2, T, Major::kMN>(o, p[j], lv.desc(addr_v, j), j > 0);
  hw::wgmma_commit_group();
  hw::wgmma_wait_group<0>();
  hw::wgmma_fence_operands(o);
  const int tid = threadIdx.x;
#pragma unroll
  for (int i = 0; i < N2 / 2; ++i) out[acc_row(tid, i) * N2 + acc_col(tid, i)] = o[i];
}

// ------------------------------------------------------------------ host side

template <class T>
constexpr bool kIs8Bit = sizeof(T) == 1;

// Random values exactly representable in T. 16-bit: +-k/8, k = 1..16 (products are
// multiples of 1/64, |sum| <= 256: exact in fp32). 8-bit: +-{0.5, 1, 1.5, 2} (3 bits of
// mantissa at most, in e5m2 too; products are multiples of 1/4 and |sum| <= 512, exact
// even with the reduced-precision accumulation Hopper FP8 wgmma is known for).
template <class T>
std::vector<T> random_matrix(std::mt19937_64& rng, size_t count, std::vector<float>* as_float) {
  std::uniform_int_distribution<int> mag(1, kIs8Bit<T> ? 4 : 16), sign(0, 1);
  std::vector<T> out(count);
  as_float->resize(count);
  for (size_t i = 0; i < count; ++i) {
    const float v = (sign(rng) ? -1.0f : 1.0f) * mag(rng) / (kIs8Bit<T> ? 2.0f : 8.0f);
    out[i] = T(v);
    (*as_float)[i] = float(out[i]);
    EXPECT_EQ((*as_float)[i], v) << "input value not representable";
  }
  return out;
}

// Relative tolerance on sum(|c| + |a*b|). The data are exact, so any real error is a
// whole product (>= 1/64 for 16-bit, 1/4 for 8-bit) while this stays far below that:
// 2^-18 * 256 = 2^-10; 8-bit 2^-12 * 520 < 0.13. It only forgives accumulation-order
// rounding, which the exact data should not even produce.
template <class T>
constexpr double kRelTol = kIs8Bit<T> ? 1.0 / 4096 : 1.0 / 262144;

template <class C>
void run_case(bool accumulate) {
  using T = typename C::T;
  constexpr int N = C::N, K = C::kK;
  const uint64_t seed = warpspec::test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed << (accumulate ? " accumulate" : " overwrite"));
  std::mt19937_64 rng(seed);
  std::vector<float> af, bf, cf(size_t(kM) * N);
  const std::vector<T> a = random_matrix<T>(rng, size_t(kM) * K, &af);
  const std::vector<typename C::TB> b = random_matrix<typename C::TB>(rng, size_t(N) * K, &bf);
  std::uniform_int_distribution<int> cdist(-256, 256);
  for (float& x : cf) x = cdist(rng) / 64.0f;

  auto da = warpspec::test::to_device(a);
  auto db = warpspec::test::to_device(b);
  auto dc = warpspec::test::to_device(cf);
  warpspec::test::DeviceBuffer dout(size_t(kM) * N * sizeof(float));
  ASSERT_NE(da.get(), nullptr);
  ASSERT_NE(db.get(), nullptr);
  ASSERT_NE(dout.get(), nullptr);
  CUDA_ASSERT(warpspec::test::poison(dout));
  CUDA_ASSERT(cudaFuncSetAttribute(wgmma_case_kernel<C>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(C::kSmemBytes)));
  wgmma_case_kernel<C><<<1, kThreads, C::kSmemBytes>>>(da.template as<T>(), db.template as<typename C::TB>(), dc.template as<float>(),
                                                        dout.template as<float>(), accumulate ? 1 : 0);
  CUDA_ASSERT(cudaGetLastError());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<float> got = warpspec::test::to_host<float>(dout, size_t(kM) * N);

  int bad = 0;
  for (int m = 0; m < kM; ++m)
    for (int n = 0; n < N; ++n) {
      double ref = accumulate ? cf[m * N + n] : 0.0, mag = accumulate ? std::fabs(cf[m * N + n]) : 0.0;
      for (int k = 0; k < K; ++k) {
        const double p = double(af[m * K + k]) * double(bf[n * K + k]);
        ref += p;
        mag += std::fabs(p);
      }
      const float g = got[m * N + n];
      if (!(std::fabs(g - ref) <= kRelTol<T> * mag) && ++bad <= 8)
        ADD_FAILURE() << "D(" << m << ", " << n << ") = " << g << ", expected " << ref;
    }
  EXPECT_EQ(bad, 0) << "of " << kM * N << " outputs";
}

template <class C>
void run_both() {
  run_case<C>(false);
  run_case<C>(true);
}

constexpr Major K_ = Major::kK, MN = Major::kMN;
constexpr WgmmaSwizzle S128 = WgmmaSwizzle::k128B, S64 = WgmmaSwizzle::k64B, S32 = WgmmaSwizzle::k32B,
                       SNO = WgmmaSwizzle::kNone;

// Name, then Case<T, N, RS?, major A, major B, swizzle A, swizzle B>. RS cases ignore
// A's major and swizzle (A comes from registers).
#define WGMMA_CASE(name, ...)              \
  TEST(Wgmma, name) {                      \
    WARPSPEC_REQUIRE_HOPPER();             \
    run_both<Case<__VA_ARGS__>>();         \
  }

WGMMA_CASE(Bf16_N64_SS_KK_Sw128, bf16, 64, false, K_, K_, S128, S128)
WGMMA_CASE(Bf16_N256_SS_KK_Sw128, bf16, 256, false, K_, K_, S128, S128)
WGMMA_CASE(Bf16_N136_SS_KK_NoSwizzle, bf16, 136, false, K_, K_, SNO, SNO)
WGMMA_CASE(Bf16_N64_SS_KK_Sw64Sw32, bf16, 64, false, K_, K_, S64, S32)
WGMMA_CASE(Bf16_N8_SS_MnMn_Sw128, bf16, 8, false, MN, MN, S128, S128)
WGMMA_CASE(Bf16_N64_SS_MnMn_NoSwizzle, bf16, 64, false, MN, MN, SNO, SNO)
WGMMA_CASE(Bf16_N64_SS_MnMn_Sw32Sw64, bf16, 64, false, MN, MN, S32, S64)
WGMMA_CASE(Bf16_N128_RS_Mn_Sw128, bf16, 128, true, K_, MN, S128, S128)
WGMMA_CASE(Fp16_N64_SS_KMn_Sw128, fp16, 64, false, K_, MN, S128, S128)
WGMMA_CASE(Fp16_N136_SS_MnK_Sw64Sw128, fp16, 136, false, MN, K_, S64, S128)
WGMMA_CASE(Fp16_N256_RS_K_Sw128, fp16, 256, true, K_, K_, S128, S128)
WGMMA_CASE(Fp16_N8_RS_Mn_NoSwizzle, fp16, 8, true, K_, MN, SNO, SNO)
WGMMA_CASE(E4m3_N64_SS_KK_Sw128, e4m3, 64, false, K_, K_, S128, S128)
WGMMA_CASE(E4m3_N136_RS_K_Sw128, e4m3, 136, true, K_, K_, S128, S128)
WGMMA_CASE(E4m3_N256_SS_KK_NoSwizzleSw64, e4m3, 256, false, K_, K_, SNO, S64)
WGMMA_CASE(E5m2_N8_SS_KK_Sw128Sw32, e5m2, 8, false, K_, K_, S128, S32)
WGMMA_CASE(E5m2_N64_RS_K_NoSwizzle, e5m2, 64, true, K_, K_, SNO, SNO)
WGMMA_CASE(E4m3E5m2_N128_SS_KK_Sw128, e4m3, 128, false, K_, K_, S128, S128, e5m2)
WGMMA_CASE(E5m2E4m3_N64_SS_KK_Sw128Sw64, e5m2, 64, false, K_, K_, S128, S64, e4m3)

#undef WGMMA_CASE

template <class T, int N2>
void run_pv() {
  constexpr int N1 = 64, K1 = 64;
  const uint64_t seed = warpspec::test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<float> af, bf, vf;
  const std::vector<T> a = random_matrix<T>(rng, size_t(kM) * K1, &af);
  const std::vector<T> b = random_matrix<T>(rng, size_t(N1) * K1, &bf);
  const std::vector<T> v = random_matrix<T>(rng, size_t(N1) * N2, &vf);
  // P = T(S), rounded to nearest-even on the host as cvt.rn does on the device. S is an
  // exact sum with up to 14 significant bits, so the rounding really happens.
  std::vector<float> p(size_t(kM) * N1);
  for (int m = 0; m < kM; ++m)
    for (int n = 0; n < N1; ++n) {
      float s = 0.0f;
      for (int k = 0; k < K1; ++k) s += af[m * K1 + k] * bf[n * K1 + k];
      p[m * N1 + n] = float(T(s));
    }
  auto da = warpspec::test::to_device(a);
  auto db = warpspec::test::to_device(b);
  auto dv = warpspec::test::to_device(v);
  warpspec::test::DeviceBuffer dout(size_t(kM) * N2 * sizeof(float));
  ASSERT_NE(dout.get(), nullptr);
  CUDA_ASSERT(warpspec::test::poison(dout));
  constexpr uint32_t smem = 8192 + 8192 + (N2 * 2 + 127) / 128 * 64 * 128 + 1024;
  static_assert(smem <= 48 * 1024, "default dynamic shared-memory limit");
  CUDA_ASSERT(cudaFuncSetAttribute(pv_kernel<T, N2>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  pv_kernel<T, N2><<<1, kThreads, smem>>>(da.template as<T>(), db.template as<T>(), dv.template as<T>(),
                                           dout.template as<float>());
  CUDA_ASSERT(cudaGetLastError());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<float> got = warpspec::test::to_host<float>(dout, size_t(kM) * N2);
  int bad = 0;
  for (int m = 0; m < kM; ++m)
    for (int n = 0; n < N2; ++n) {
      double ref = 0.0, mag = 0.0;
      for (int k = 0; k < N1; ++k) {
        const double t = double(p[m * N1 + k]) * double(vf[k * N2 + n]);
        ref += t;
        mag += std::fabs(t);
      }
      // P has 8 (bf16) or 11 (fp16) bits and V 5, so products are exact but the sum of
      // 64 of them may need more than fp32's 24 bits: allow fp32 accumulation rounding.
      const float g = got[m * N2 + n];
      if (!(std::fabs(g - ref) <= 1e-5 * mag + 1e-6) && ++bad <= 8)
        ADD_FAILURE() << "O(" << m << ", " << n << ") = " << g << ", expected " << ref;
    }
  EXPECT_EQ(bad, 0) << "of " << kM * N2 << " outputs";
}

TEST(Wgmma, AccumToAFragmentPV_Bf16_N128) {
  WARPSPEC_REQUIRE_HOPPER();
  run_pv<bf16, 128>();
}

TEST(Wgmma, AccumToAFragmentPV_Fp16_N64) {
  WARPSPEC_REQUIRE_HOPPER();
  run_pv<fp16, 64>();
}

}  // namespace wgmma_test
