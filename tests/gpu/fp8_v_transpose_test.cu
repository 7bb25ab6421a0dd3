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
#include <cuda.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <random>
#include <type_traits>
#include <vector>

#include "common/gpu_test.hpp"
#include "warpspec/attention/config.hpp"
#include "warpspec/attention/fp8_layout.hpp"
#include "warpspec/attention/v_direct.cuh"
#include "warpspec/attention/v_transpose.cuh"
#include "warpspec/hopper/tma.cuh"
#include "warpspec/hopper/tma_map.hpp"
#include "warpspec/ws_kernel.cuh"

namespace fp8_v_transpose_test {  // named: the file is compiled with others in one translation unit

namespace ai = warpspec::attention_impl;
namespace hw = warpspec::hopper;
using warpspec::Pipeline;
using warpspec::PipelineState;
using warpspec::PipelineStorage;

struct PumpParams {
  CUtensorMap map_v;  // V: source_blocks x block_n rows of head_dim bytes
  int blocks;         // V blocks each CTA streams
  int source_blocks;  // CTA c's block i is source block (c * blocks + i) % source_blocks
  uint8_t* out;       // per CTA and block, the stage read back (row-major); null: timing
  int* pumped;        // per CTA: {fewest, most} blocks a pump warp moved (VPath::pump)
};

template <int kBlockN, int kD, int kLoadStages, int kVtStages, bool kTranspose>
struct PumpKernel : warpspec::WsRoles<2, ai::kProducerRegs, ai::consumer_regs(2)> {
  static constexpr uint32_t kBlockBytes = uint32_t(kBlockN) * kD;
  using VPath = std::conditional_t<kTranspose, ai::VTransposePump<kBlockN, kD, kLoadStages, kVtStages>,
                                   ai::VDirect<kVtStages, kBlockBytes>>;
  // What a consumer stage holds: Vᵀ (d rows x block_n keys), or V as TMA wrote it.
  static constexpr hw::WgmmaOperandLayout stage_layout() {
    return kTranspose ? ai::fp8_vt_layout(kBlockN, kD) : ai::fp8_v_layout(kBlockN, kD);
  }
  static constexpr int kSpan = int(hw::wgmma_row_bytes(ai::fp8_v_layout(kBlockN, kD).swizzle));  // TMA box columns
  using Params = PumpParams;

  struct Tiles {
    alignas(1024) uint8_t v[kVtStages][kBlockBytes];
  };
  struct SharedStorage {
    Tiles tiles;
    typename VPath::Storage vpath;
    PipelineStorage<kVtStages> v_barriers;
  };
  struct Context {
    const Params& p;
    SharedStorage& s;
    Pipeline<kVtStages> vpipe;
    __device__ __forceinline__ Context(const Params& params, SharedStorage& storage)
        : p(params), s(storage), vpipe(storage.v_barriers) {}
  };

  __device__ __forceinline__ static void init_barriers(SharedStorage& s) {
    Pipeline<kVtStages>(s.v_barriers).init(VPath::kVFullArrivals, 4 * 2);  // one lane per consumer warp
    VPath::init(s.vpath);
  }
  __device__ __forceinline__ static void prefetch(const Params& p) { hw::tma_prefetch_descriptor(&p.map_v); }

  __device__ __forceinline__ static void producer(Context& c, int warp) {
    if (warp != 0) {
      // The fewest and the most blocks any pump warp of this CTA moved. Through atomics
      // keyed by the CTA alone: keeping `warp` for an index past the pump's loop costs
      // the register that made ptxas spill at 24.
      const int moved = VPath::pump(c, warp);
      if (hw::lane_index() == 0) {
        atomicMin(&c.p.pumped[2 * blockIdx.x], moved);
        atomicMax(&c.p.pumped[2 * blockIdx.x + 1], moved);
      }
      return;
    }
    if (!hw::elect_one()) return;
    typename VPath::LoadState st;
#pragma unroll 1
    for (int i = 0; i < c.p.blocks; ++i) {
      const int row = int((blockIdx.x * c.p.blocks + i) % c.p.source_blocks) * kBlockN;
      VPath::load(c, st, [&](void* dst, uint64_t* bar) {
#pragma unroll
        for (int col = 0; col < kD / kSpan; ++col)
          hw::tma_load(static_cast<uint8_t*>(dst) + col * kBlockN * kSpan, &c.p.map_v, bar, col * kSpan, row);
      });
    }
    VPath::finish(c, st);
  }

  __device__ __forceinline__ static void consumer(Context& c, int wg) {
    constexpr hw::WgmmaOperandLayout kStage = stage_layout();
    constexpr uint32_t kHalf = kStage.mn / 2 * kStage.k;  // rows [wg * mn/2, (wg + 1) * mn/2)
    const uint32_t t = threadIdx.x % hw::kWarpgroupSize;
    PipelineState<kVtStages> st;
#pragma unroll 1
    for (int i = 0; i < c.p.blocks; ++i) {
      c.vpipe.consumer_wait(st);
      if (c.p.out != nullptr) {
        const uint8_t* stage = c.s.tiles.v[st.index];
        uint8_t* out = c.p.out + (size_t(blockIdx.x) * c.p.blocks + i) * kBlockBytes;
#pragma unroll 4
        for (uint32_t e = wg * kHalf + t; e < (wg + 1) * kHalf; e += hw::kWarpgroupSize)
          out[e] = stage[kStage.offset(e / kStage.k, e % kStage.k)];
      }
      __syncwarp();
      if (hw::lane_index() == 0) c.vpipe.consumer_release(st);
      st.advance();
    }
  }
};

template <class K>
cudaError_t launch(const PumpParams& p, int ctas) {
  auto* kernel = warpspec::ws_kernel<K>;
  constexpr int kSmem = warpspec::WsSkeleton<K>::kSmemBytes;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem)) return e;
  kernel<<<ctas, warpspec::WsSkeleton<K>::kThreads, kSmem>>>(p);
  return cudaGetLastError();
}

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
  using K = PumpKernel<kBlockN, kD, kLoadStages, kVtStages, kTranspose>;
  constexpr int kCtas = 3;
  const uint64_t seed = warpspec::test::fresh_seed();
  SCOPED_TRACE(warpspec::test::seed_note(seed));
  for (int blocks : {0, 1, 2, 3, 5, 37}) {
    SCOPED_TRACE(testing::Message() << "blocks per CTA " << blocks);
    const int source_blocks = std::max(1, kCtas * blocks);
    const Source<kBlockN, kD> src(source_blocks, seed + uint64_t(blocks));
    ASSERT_TRUE(src.made.ok()) << src.made.to_string();
    const size_t out_bytes = size_t(kCtas) * blocks * K::kBlockBytes;
    warpspec::test::DeviceBuffer out(out_bytes), pumped(2 * kCtas * sizeof(int));
    ASSERT_NE(pumped.get(), nullptr);
    if (out_bytes > 0) CUDA_ASSERT(warpspec::test::poison(out));
    const std::vector<int> unset = {INT_MAX, INT_MIN};
    for (int i = 0; i < kCtas; ++i)
      CUDA_ASSERT(cudaMemcpy(pumped.as<int>() + 2 * i, unset.data(), 2 * sizeof(int), cudaMemcpyHostToDevice));
    const PumpParams p{src.map, blocks, source_blocks, out.as<uint8_t>(), pumped.as<int>()};
    CUDA_ASSERT(launch<K>(p, kCtas));
    CUDA_ASSERT(cudaDeviceSynchronize());

    // Every pump warp moved exactly `blocks`: the end marker stopped each one there.
    const std::vector<int> moved = warpspec::test::to_host<int>(pumped, 2 * kCtas);
    for (int i = 0; i < kCtas; ++i) {
      EXPECT_EQ(moved[2 * i], kTranspose ? blocks : 0) << "CTA " << i << ": fewest blocks a pump warp moved";
      EXPECT_EQ(moved[2 * i + 1], kTranspose ? blocks : 0) << "CTA " << i << ": most blocks a pump warp moved";
    }
    const std::vector<uint8_t> got = warpspec::test::to_host<uint8_t>(out, out_bytes);
    constexpr hw::WgmmaOperandLayout kStage = K::stage_layout();
    int bad = 0;
    for (int b = 0; b < kCtas * blocks; ++b) {
      const uint8_t* v = src.host.data() + size_t(b % source_blocks) * K::kBlockBytes;
      for (uint32_t r = 0; r < kStage.mn; ++r)
        for (uint32_t k = 0; k < kStage.k; ++k) {
          const uint8_t want = kTranspose ? v[ai::fp8_vt_key(int(k)) * kD + ai::fp8_vt_column(int(r))] : v[r * kD + k];
          const uint8_t have = got[size_t(b) * K::kBlockBytes + r * kStage.k + k];
          if (have != want && ++bad <= 8)
            ADD_FAILURE() << "CTA " << b / blocks << " block " << b % blocks << (kTranspose ? " Vᵀ(" : " V(") << r
                          << ", " << k << ") = " << int(have) << ", want " << int(want);
        }
    }
    EXPECT_EQ(bad, 0) << "of " << out_bytes << " bytes";
  }
}

// Name, block_n, head dim, vload stages, Vᵀ stages, transposed (pump) or direct.
// Vᵀ swizzle: SW128 at block_n 128, SW64 at 192, SW32 at 96; V: SW64 at d 64, else
// SW128. The head dim 128 and 256 kernels' own blocks (config.hpp: 192 x 128, 128 x 128 and
// 96 x 128, 128 x 256), the other swizzles (192 x 64, 96 x 256) and one SW128 Vᵀ with a third stage. (The
// pump's speed is measured inside the kernel, by `warpspec bench attention --dtype e4m3`,
// not by a test.)
#define FP8_V_PUMP_CASE(name, block_n, d, load_stages, vt_stages, transpose) \
  TEST(Fp8VTranspose, name) {                                                \
    WARPSPEC_REQUIRE_HOPPER();                                               \
    run_check<block_n, d, load_stages, vt_stages, transpose>();              \
  }

FP8_V_PUMP_CASE(Pump_BlockN192_D64_VtSw64, 192, 64, 2, 2, true)
FP8_V_PUMP_CASE(Pump_BlockN192_D128_VtSw64, 192, 128, 2, 2, true)
FP8_V_PUMP_CASE(Pump_BlockN128_D128_VtSw128, 128, 128, 2, 2, true)
FP8_V_PUMP_CASE(Pump_BlockN128_D128_Vt3Stages, 128, 128, 2, 3, true)
FP8_V_PUMP_CASE(Pump_BlockN96_D128_VtSw32, 96, 128, 2, 2, true)
FP8_V_PUMP_CASE(Pump_BlockN96_D256_VtSw32, 96, 256, 2, 2, true)
FP8_V_PUMP_CASE(Pump_BlockN128_D256_VtSw128, 128, 256, 2, 2, true)
FP8_V_PUMP_CASE(Direct_BlockN128_D256, 128, 256, 2, 2, false)

#undef FP8_V_PUMP_CASE

}  // namespace fp8_v_transpose_test
