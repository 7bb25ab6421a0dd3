// The FP8 V pump's test kernel (fp8_v_transpose_test.cpp says what it checks), with its
// launcher. No GoogleTest here: the tests are C++.
#include <cuda.h>

#include <cstdint>
#include <type_traits>

#include "gpu/fp8_v_transpose_test_kernels.hpp"
#include "warpspec/attention/config.hpp"
#include "warpspec/attention/fp8_layout.hpp"
#include "warpspec/attention/v_direct.cuh"
#include "warpspec/attention/v_transpose.cuh"
#include "warpspec/hopper/tma.cuh"
#include "warpspec/ws_kernel.cuh"

namespace fp8_v_transpose_test {  // named: the file is compiled with others in one translation unit

namespace ai = warpspec::attention_impl;
namespace hw = warpspec::hopper;
using warpspec::Pipeline;
using warpspec::PipelineState;
using warpspec::PipelineStorage;

template <int kBlockN, int kD, int kLoadStages, int kVtStages, bool kTranspose>
struct PumpKernel : warpspec::WsRoles<2, ai::kProducerRegs, ai::consumer_regs(2)> {
  static constexpr uint32_t kBlockBytes = PumpLayout<kBlockN, kD, kTranspose>::kBlockBytes;
  using VPath = std::conditional_t<kTranspose, ai::VTransposePump<kBlockN, kD, kLoadStages, kVtStages>,
                                   ai::VDirect<kVtStages, kBlockBytes>>;
  static constexpr hw::WgmmaOperandLayout stage_layout() { return PumpLayout<kBlockN, kD, kTranspose>::stage_layout(); }
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

template <int kBlockN, int kD, int kLoadStages, int kVtStages, bool kTranspose>
cudaError_t launch_pump(const PumpParams& p, int ctas) {
  using K = PumpKernel<kBlockN, kD, kLoadStages, kVtStages, kTranspose>;
  auto* kernel = warpspec::ws_kernel<K>;
  constexpr int kSmem = warpspec::WsSkeleton<K>::kSmemBytes;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem)) return e;
  kernel<<<ctas, warpspec::WsSkeleton<K>::kThreads, kSmem>>>(p);
  return cudaGetLastError();
}

#define FP8_V_PUMP_INSTANCE(name, block_n, d, load_stages, vt_stages, transpose) \
  template cudaError_t launch_pump<block_n, d, load_stages, vt_stages, transpose>(const PumpParams&, int);
FP8_V_PUMP_CASES(FP8_V_PUMP_INSTANCE)
#undef FP8_V_PUMP_INSTANCE

}  // namespace fp8_v_transpose_test
