#pragma once
// The MMA consumer of 64-row tiles: both consumer warpgroups multiply the same 64 rows,
// taking the unit's stages in turn (warpgroup w the k-iterations kt with kt % 2 == w),
// and warpgroup 1 hands its partial sum to warpgroup 0 through shared memory at the end
// (combine). Warpgroup 0 then owns the tile: fixup and epilogue; warpgroup 1 goes on to
// the next unit's stages.
//
// Why: a skinny problem (the narrow tiles, config.hpp) streams the weight, and its time
// is the bytes per SM. With 64-row tiles a problem has twice the tiles of the 128-row
// ones, so the SMs fill with half the K splitting, and fewer units end in a fixup (the
// partial-tile chain through L2 at the end of a split unit: write, flag, wait, read).
// The two warpgroups still overlap: each keeps one wgmma group in flight on its own
// stage while the other waits for the next.
//
// Pipeline protocol: each stage is read by one warpgroup, so its empty barrier expects
// that warpgroup's four warps (kWarpgroupsPerStage = 1); each warpgroup releases its own
// previous stage once its next wgmma group's wait shows the reads done, as in the
// 16-bit mainloop. Every warpgroup walks every stage's pipeline state, its own or not,
// so the two stay in step with the producer.
//
// The sum is acc0 + acc1 in that order, element by element: bitwise repeatable.
#include "warpspec/gemm/config.hpp"
#include "warpspec/gemm/mainloop.cuh"
#include "warpspec/gemm/params.hpp"
#include "warpspec/hopper/smem.cuh"
#include "warpspec/hopper/warp.cuh"
#include "warpspec/hopper/wgmma.cuh"
#include "warpspec/pipeline.cuh"

namespace warpspec::gemm_impl {

template <GemmConfig kCfg>
struct MmaKInterleaved {
  using Loads = Mainloop<kCfg>;
  using TIn = typename Loads::TIn;
  static constexpr int kBlockN = kCfg.tile.block_n;
  static constexpr int kAcc = kBlockN / 2;
  static constexpr int kWarpgroupsPerStage = 1;
  static_assert(kCfg.tile.block_m == 64 && kConsumerWarpgroups == 2, "two warpgroups on one 64-row tile");
  static_assert(sizeof(TIn) == 2, "16-bit inputs");
  static_assert(kCfg.tile.epi_stages == 0, "the chunked epilogue pairs both warpgroups' 64-row halves; 64-row tiles store from registers");
  static_assert(kAcc % 4 == 0, "the hand-over moves 16-byte vectors");
  using Pipe = typename Loads::Pipe;
  using State = typename Loads::State;
  using Storage = typename Loads::Storage;

  // Warpgroup 1's accumulators on their way to warpgroup 0: vector j of thread t at
  // (j·128 + t)·16 bytes, so each vector access of the warpgroup is 2 KB contiguous.
  struct ConsumerStorage {
    alignas(16) float partial[kAcc * 128];
  };

  // Consumer warpgroup `wg`: its half of unit t's k-iterations into acc (zero when it has none).
  __device__ __forceinline__ static void mma(const GemmParams&, Pipe& pipe, State& st, Storage& s, int wg,
                                             const schedule::KWorkUnit& t, float (&acc)[kAcc], ConsumerStorage&) {
    const int k_count = t.k_end - t.k_begin;
    constexpr hopper::WgmmaOperandLayout la = Loads::layout_a(), lb = Loads::layout_b();
    const typename Loads::Cast cast;
    const bool releaser = cast.releaser();
    if (k_count <= wg) {  // no stage of this unit is ours (K = 0, or a single k-iteration)
#pragma unroll
      for (int i = 0; i < kAcc; ++i) acc[i] = 0.0f;
    }
    State prev = st;
    bool first = true;
#pragma unroll 1
    for (int kt = 0; kt < k_count; ++kt) {
      if (kt % 2 == wg) {
        pipe.consumer_wait(st);
        const uint32_t a_base = hopper::smem_u32(s.a[st.index]);
        const uint32_t b_base = hopper::smem_u32(s.b[st.index]);
        hopper::wgmma_fence();
#pragma unroll
        for (int j = 0; j < Loads::kKSteps; ++j)
          hopper::mma_async<kBlockN, TIn>(acc, la.desc(a_base, j), lb.desc(b_base, j), !first || j > 0);
        hopper::wgmma_commit_group();
        hopper::wgmma_wait_group<1>();
        if (!first && releaser) cast.release(pipe, prev);
        prev = st;
        first = false;
      }
      st.advance();
    }
    hopper::wgmma_wait_group<0>();
    if (!first && releaser) cast.release(pipe, prev);
  }

  // After mma: warpgroup 1 stores its sum, warpgroup 0 adds it; false for warpgroup 1
  // (the unit is not its to finish), true for 0. Two named barriers of both warpgroups,
  // each one instruction that both execute (bar.sync is .aligned: synccheck reports a
  // barrier reached from two sites as divergent): full (1's stores before 0's loads) and
  // empty (0's loads before 1's next stores). Both are syncs: racecheck does not always
  // see a bar.arrive order the arriving threads' stores before the waiting threads' loads
  // (it reported 1's stores against 0's loads with an arrive for full, H100, stop 66); the
  // sync costs warpgroup 1 nothing it did not wait for at the empty barrier anyway.
  __device__ __forceinline__ static bool combine(int wg, float (&acc)[kAcc], ConsumerStorage& s) {
    const int tid = threadIdx.x % 128;
    const uint32_t base = hopper::smem_u32(s.partial) + uint32_t(tid) * 16u;
    if (wg == 1) {
#pragma unroll
      for (int j = 0; j < kAcc / 4; ++j)
        hopper::st_shared_v4_f32(base + uint32_t(j) * 2048u, acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]);
    }
    hopper::named_barrier_sync(kHandOverFull, 256);
    if (wg == 0) {
#pragma unroll
      for (int j = 0; j < kAcc / 4; ++j) {
        const float4 v = hopper::ld_shared_v4_f32(base + uint32_t(j) * 2048u);
        acc[4 * j] += v.x;
        acc[4 * j + 1] += v.y;
        acc[4 * j + 2] += v.z;
        acc[4 * j + 3] += v.w;
      }
    }
    hopper::named_barrier_sync(kHandOverEmpty, 256);
    return wg == 0;
  }
};

}  // namespace warpspec::gemm_impl
