// FP8 P·V on the GPU (design note docs/design/fp8-attention.md §7.4.2(b)): one
// warpgroup packs a synthetic fp32 S accumulator into e4m3 A fragments with
// accum_to_a_fragment (keys σ-permuted), multiplies by B = Vᵀ with one RS wgmma
// m64nNk32 per 32 keys, and stores each accumulator register at its output column
// (fp8_o_column, which undoes δ). Vᵀ reaches shared memory two ways: as a CPU-computed
// image of the transposed, permuted layout, or transposed on the device from a plain
// swizzled V tile by transpose_v_unit (ldmatrix.trans -> prmt -> stmatrix).
//
// Values are in {0, ±0.5, ±1, ±2}: exact in e4m3, products are multiples of 1/4 and
// |sums| <= 512, so fp32 (and FP8 wgmma's reduced accumulation) is exact and the output
// is compared bit for bit with a CPU P·V. The test can fail: if accum_to_a_fragment's
// σ, the cvt byte order, the Vᵀ key order or the column map were wrong, P(m, key)
// would meet V(key') for key' != key, or land in the wrong column, and the sums change.
// Fp8PV.DrawnDataCatchesLayoutBugs shows on the CPU that data drawn this way tells
// each such mistake apart from the right answer.
// The kernel is in fp8_pv_test.cu.
#include <cuda_fp8.h>

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "common/gpu_test.hpp"
#include "gpu/fp8_pv_test_kernels.hpp"
#include "testing/fp8_v_transpose_model.hpp"
#include "warpspec/attention/fp8_layout.hpp"

namespace fp8_pv_test {  // named: the file is compiled with others in one translation unit

namespace ai = warpspec::attention_impl;
using e4m3 = __nv_fp8_e4m3;

struct Data {
  std::vector<float> p;       // 64 x block_n
  std::vector<uint8_t> v;     // block_n x d, e4m3 bytes
  std::vector<float> v_float; // the same values
};

// Values from {0, ±0.5, ±1, ±2}, all exact in e4m3.
Data draw(uint64_t seed, int block_n, int d) {
  static constexpr float kValues[] = {0.0f, 0.5f, -0.5f, 1.0f, -1.0f, 2.0f, -2.0f};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(0, 6);
  Data x;
  x.p.resize(size_t(kM) * block_n);
  for (float& f : x.p) f = kValues[pick(rng)];
  x.v.resize(size_t(block_n) * d);
  x.v_float.resize(x.v.size());
  for (size_t i = 0; i < x.v.size(); ++i) {
    const e4m3 e(kValues[pick(rng)]);
    x.v[i] = e.__x;
    x.v_float[i] = float(e);
  }
  return x;
}

// What a P·V kernel would output if A's K position k held key key_a(k), Vᵀ's held key
// key_b(k), Vᵀ row n held V's column fp8_vt_column(n), and the epilogue stored
// accumulator column n at store_col(n). The right kernel: key_a = key_b = fp8_vt_key,
// store_col = fp8_vt_column, which is plain P·V.
std::vector<double> pv_as_laid_out(const Data& x, int block_n, int d, const std::function<int(int)>& key_a,
                                   const std::function<int(int)>& key_b, const std::function<int(int)>& store_col) {
  std::vector<double> out(size_t(kM) * d, 0.0);
  for (int m = 0; m < kM; ++m)
    for (int n = 0; n < d; ++n) {
      double acc = 0.0;
      for (int k = 0; k < block_n; ++k)
        acc += double(x.p[m * block_n + key_a(k)]) * double(x.v_float[key_b(k) * d + ai::fp8_vt_column(n)]);
      out[m * d + store_col(n)] = acc;
    }
  return out;
}

std::vector<double> plain_pv(const Data& x, int block_n, int d) {
  std::vector<double> out(size_t(kM) * d, 0.0);
  for (int m = 0; m < kM; ++m)
    for (int c = 0; c < d; ++c)
      for (int key = 0; key < block_n; ++key)
        out[m * d + c] += double(x.p[m * block_n + key]) * double(x.v_float[key * d + c]);
  return out;
}

int mismatches(const std::vector<double>& a, const std::vector<double>& b) {
  int n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return n;
}

// CPU only: the data this file draws tells the layout mistakes apart from P·V.
TEST(Fp8PV, DrawnDataCatchesLayoutBugs) {
  constexpr int kN = 128, kD = 128;
  const uint64_t seed = warpspec::test::fresh_seed();
  SCOPED_TRACE(warpspec::test::seed_note(seed));
  const Data x = draw(seed, kN, kD);
  const std::vector<double> ref = plain_pv(x, kN, kD);
  const auto sigma = [](int k) { return ai::fp8_vt_key(k); };
  const auto delta = [](int n) { return ai::fp8_vt_column(n); };
  EXPECT_EQ(mismatches(pv_as_laid_out(x, kN, kD, sigma, sigma, delta), ref), 0) << "the right layout is P·V";
  const int total = kM * kD;
  // cvt operands swapped: keys 2q and 2q+1 trade places in A only.
  EXPECT_GT(mismatches(pv_as_laid_out(x, kN, kD, [](int k) { return ai::fp8_vt_key(k ^ 1); }, sigma, delta), ref),
            total / 2);
  // A packed without σ against the σ-ordered Vᵀ.
  EXPECT_GT(mismatches(pv_as_laid_out(x, kN, kD, [](int k) { return k; }, sigma, delta), ref), total / 2);
  // Epilogue storing accumulator columns as they are (δ not undone).
  EXPECT_GT(mismatches(pv_as_laid_out(x, kN, kD, sigma, sigma, [](int n) { return n; }), ref), total / 2);
}

template <int kBlockN, int kD, bool kDeviceTranspose>
void run_case() {
  const uint64_t seed = warpspec::test::fresh_seed();
  SCOPED_TRACE(warpspec::test::seed_note(seed));
  const Data x = draw(seed, kBlockN, kD);
  const std::vector<uint8_t> src =
      kDeviceTranspose ? x.v : warpspec::testbed::vt_tile_image(x.v, kBlockN, kD);
  auto dp = warpspec::test::to_device(x.p);
  auto dsrc = warpspec::test::to_device(src);
  warpspec::test::DeviceBuffer dout(size_t(kM) * kD * sizeof(float));
  ASSERT_NE(dp.get(), nullptr);
  ASSERT_NE(dsrc.get(), nullptr);
  ASSERT_NE(dout.get(), nullptr);
  CUDA_ASSERT(warpspec::test::poison(dout));
  static_assert(smem_bytes<kBlockN, kD>() <= 48u * 1024u, "stay under the default dynamic shared-memory limit");
  CUDA_ASSERT((launch_pv<kBlockN, kD, kDeviceTranspose>(dp.as<float>(), dsrc.as<uint8_t>(), dout.as<float>())));
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<float> got = warpspec::test::to_host<float>(dout, size_t(kM) * kD);
  const std::vector<double> ref = plain_pv(x, kBlockN, kD);
  int bad = 0;
  for (int m = 0; m < kM; ++m)
    for (int c = 0; c < kD; ++c)
      if (!(got[m * kD + c] == float(ref[m * kD + c])) && ++bad <= 8)
        ADD_FAILURE() << "O(" << m << ", " << c << ") = " << got[m * kD + c] << ", P·V = " << ref[m * kD + c];
  EXPECT_EQ(bad, 0) << "of " << kM * kD << " outputs";
}

// The cases: FP8_PV_CASES (fp8_pv_test_kernels.hpp).
#define FP8_PV_CASE(name, block_n, d, device)      \
  TEST(Fp8PV, name) {                              \
    WARPSPEC_REQUIRE_HOPPER();                     \
    run_case<block_n, d, device>();                \
  }

FP8_PV_CASES(FP8_PV_CASE)

#undef FP8_PV_CASE

}  // namespace fp8_pv_test
