// The FP8 V pump on the GPU (design note docs/design/fp8-attention.md §7.4.2(a)), in
// the attention kernel's skeleton and register split (ws_kernel.cuh, 24 / 240 / 240):
// warp 0 of the producer warpgroup TMA-loads N blocks of random bytes into the vload
// ring (VTransposePump::load, then the end marker), warps 1-3 pump them into the Vᵀ
// ring, and the two consumer warpgroups read each Vᵀ stage back element by element
// through its swizzled layout (half the rows each) into global memory. Every byte is
// compared with the σ/δ model, Vᵀ(n, p) = V(fp8_vt_key(p), fp8_vt_column(n)); each
// pump warp reports how many blocks it moved, which must be N (the end marker stops it
// exactly there; a pump that missed it would wait forever on a stage nobody loads).
// Block counts 0 .. 37 against 2-3 stages walk the rings for many laps, with unequal
// vload and Vᵀ depths in one case, so the parity logic of both rings is exercised.
// The consumers read with generic loads: the proxy fence before Vᵀ-full matters for
// wgmma readers (Fp8PV.* and the attention kernel's FP8 tests), not for these.
//
// The VDirect sibling runs in the same kernel (loader straight into the V ring, no
// pump) as a check of the harness.
// The kernel is in fp8_v_transpose_test.cu.
#include <cuda.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <random>
#include <vector>

#include "common/gpu_test.hpp"
#include "gpu/fp8_v_transpose_test_kernels.hpp"
#include "warpspec/attention/fp8_layout.hpp"
#include "warpspec/hopper/tma_map.hpp"

namespace fp8_v_transpose_test {  // named: the file is compiled with others in one translation unit

namespace ai = warpspec::attention_impl;
namespace hw = warpspec::hopper;

// V (source_blocks x block_n rows of d random bytes) on the device, and its map.
template <int kBlockN, int kD>
struct Source {
  std::vector<uint8_t> host;
  warpspec::test::DeviceBuffer dev;
  CUtensorMap map;
  warpspec::Status made;

  Source(int source_blocks, uint64_t seed) : host(random_bytes(size_t(source_blocks) * kBlockN * kD, seed)),
                                             dev(warpspec::test::to_device(host)) {
    constexpr hw::WgmmaSwizzle kSw = ai::fp8_v_layout(kBlockN, kD).swizzle;
    static_assert(kSw == hw::WgmmaSwizzle::k128B || kSw == hw::WgmmaSwizzle::k64B, "V rows are 64 or 128+ bytes");
    made = hw::make_tma_map_2d(&map, warpspec::DType::kE4M3, dev.get(), uint64_t(source_blocks) * kBlockN, kD, kD,
                               kBlockN, hw::wgmma_row_bytes(kSw),
                               kSw == hw::WgmmaSwizzle::k128B ? hw::TmaSwizzle::k128B : hw::TmaSwizzle::k64B);
  }
  static std::vector<uint8_t> random_bytes(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<uint8_t> v(n);
    for (uint8_t& b : v) b = uint8_t(rng());
    return v;
  }
};

template <int kBlockN, int kD, int kLoadStages, int kVtStages, bool kTranspose>
void run_check() {
  using Layout = PumpLayout<kBlockN, kD, kTranspose>;
  constexpr int kCtas = 3;
  const uint64_t seed = warpspec::test::fresh_seed();
  SCOPED_TRACE(warpspec::test::seed_note(seed));
  for (int blocks : {0, 1, 2, 3, 5, 37}) {
    SCOPED_TRACE(testing::Message() << "blocks per CTA " << blocks);
    const int source_blocks = std::max(1, kCtas * blocks);
    const Source<kBlockN, kD> src(source_blocks, seed + uint64_t(blocks));
    ASSERT_TRUE(src.made.ok()) << src.made.to_string();
    const size_t out_bytes = size_t(kCtas) * blocks * Layout::kBlockBytes;
    warpspec::test::DeviceBuffer out(out_bytes), pumped(2 * kCtas * sizeof(int));
    ASSERT_NE(pumped.get(), nullptr);
    if (out_bytes > 0) CUDA_ASSERT(warpspec::test::poison(out));
    const std::vector<int> unset = {INT_MAX, INT_MIN};
    for (int i = 0; i < kCtas; ++i)
      CUDA_ASSERT(cudaMemcpy(pumped.as<int>() + 2 * i, unset.data(), 2 * sizeof(int), cudaMemcpyHostToDevice));
    const PumpParams p{src.map, blocks, source_blocks, out.as<uint8_t>(), pumped.as<int>()};
    CUDA_ASSERT((launch_pump<kBlockN, kD, kLoadStages, kVtStages, kTranspose>(p, kCtas)));
    CUDA_ASSERT(cudaDeviceSynchronize());

    // Every pump warp moved exactly `blocks`: the end marker stopped each one there.
    const std::vector<int> moved = warpspec::test::to_host<int>(pumped, 2 * kCtas);
    for (int i = 0; i < kCtas; ++i) {
      EXPECT_EQ(moved[2 * i], kTranspose ? blocks : 0) << "CTA " << i << ": fewest blocks a pump warp moved";
      EXPECT_EQ(moved[2 * i + 1], kTranspose ? blocks : 0) << "CTA " << i << ": most blocks a pump warp moved";
    }
    const std::vector<uint8_t> got = warpspec::test::to_host<uint8_t>(out, out_bytes);
    constexpr hw::WgmmaOperandLayout kStage = Layout::stage_layout();
    int bad = 0;
    for (int b = 0; b < kCtas * blocks; ++b) {
      const uint8_t* v = src.host.data() + size_t(b % source_blocks) * Layout::kBlockBytes;
      for (uint32_t r = 0; r < kStage.mn; ++r)
        for (uint32_t k = 0; k < kStage.k; ++k) {
          const uint8_t want = kTranspose ? v[ai::fp8_vt_key(int(k)) * kD + ai::fp8_vt_column(int(r))] : v[r * kD + k];
          const uint8_t have = got[size_t(b) * Layout::kBlockBytes + r * kStage.k + k];
          if (have != want && ++bad <= 8)
            ADD_FAILURE() << "CTA " << b / blocks << " block " << b % blocks << (kTranspose ? " Vᵀ(" : " V(") << r
                          << ", " << k << ") = " << int(have) << ", want " << int(want);
        }
    }
    EXPECT_EQ(bad, 0) << "of " << out_bytes << " bytes";
  }
}

// The cases: FP8_V_PUMP_CASES (fp8_v_transpose_test_kernels.hpp).
#define FP8_V_PUMP_CASE(name, block_n, d, load_stages, vt_stages, transpose) \
  TEST(Fp8VTranspose, name) {                                                \
    WARPSPEC_REQUIRE_HOPPER();                                               \
    run_check<block_n, d, load_stages, vt_stages, transpose>();              \
  }

FP8_V_PUMP_CASES(FP8_V_PUMP_CASE)

#undef FP8_V_PUMP_CASE

}  // namespace fp8_v_transpose_test
