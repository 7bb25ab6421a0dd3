// wgmma on the GPU: one warpgroup computes D(64 x N) = A(64 x K) * B(K x N) [+ C] with
// K = 4 instruction k-steps, operands written to shared memory by plain threads in the
// canonical layout (WgmmaOperandLayout), A from shared memory (SS) or from registers
// (RS), the accumulator written out through the documented fragment layout, and every
// element compared with a CPU reference. Inputs are small multiples of a power of two,
// so products and sums are exact in fp32 and a layout mistake cannot hide in rounding.
// One kernel template covers every case; the cases are a representative set (dtypes x
// N x majors x swizzles x SS/RS), not the cross product, to keep nvcc time down.
// The kernels are in wgmma_test.cu.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "common/gpu_test.hpp"
#include "gpu/wgmma_test_kernels.hpp"

namespace wgmma_test {  // named: the file is compiled with others in one translation unit

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
  CUDA_ASSERT(launch_case<C>(da.template as<T>(), db.template as<typename C::TB>(), dc.template as<float>(),
                             dout.template as<float>(), accumulate ? 1 : 0));
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

// The cases: WGMMA_CASES (wgmma_test_kernels.hpp).
#define WGMMA_CASE(name, ...)              \
  TEST(Wgmma, name) {                      \
    WARPSPEC_REQUIRE_HOPPER();             \
    run_both<Case<__VA_ARGS__>>();         \
  }

WGMMA_CASES(WGMMA_CASE)

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
  CUDA_ASSERT((launch_pv<T, N2>(da.template as<T>(), db.template as<T>(), dv.template as<T>(),
                                dout.template as<float>())));
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
