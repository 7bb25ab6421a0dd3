#pragma once
// The ping-pong schedule of the warp-specialized persistent GEMM: each consumer warpgroup
// owns whole tiles, taking the CTA's units in turns (warpgroup 0 the even ones, 1 the odd
// ones), so one warpgroup's epilogue runs while the other's wgmmas keep the tensor pipe
// busy (CUTLASS's KernelTmaWarpSpecializedPingpong). The cooperative kernel
// (gemm/kernel.cuh) leaves the tensor pipe idle for the whole epilogue, which is what a
// fused bias + activation costs there (bench/NOTES.md v50).
//
//   warpgroup 0 (producer): the cooperative kernel's mainloop warp, unchanged: every
//     unit's stages in the CTA's unit order, so the stages of unit i belong to warpgroup
//     i % 2; warps 1 and 3 load C (beta != 0), one warpgroup's units each;
//   warpgroups 1, 2 (consumers): a 128-row tile each (two 64-row wgmma blocks sharing B,
//     gemm/mainloop.cuh mma_rows<2>), then its epilogue, 64 rows at a time through the
//     warpgroup's own half of the chunk buffers (gemm/epilogue.cuh store_rows). A
//     warpgroup steps its pipeline state over the other's stages without waiting on them.
//
// The two take turns at the mainloop: a warpgroup starts its unit's k loop only after the
// other has waited on every stage of the unit before it (named barrier kMathTurn0 + w:
// the finisher arrives, the next one syncs). Without the turns a warpgroup that steps
// over the other's stages runs phases ahead of the ring: a stage's barrier wait is by
// parity, so one waiting on a use two phases ahead of the barrier passes on an old phase
// (the first run of this probe faulted so at 4096 x 14336 x 4096). With them, every
// earlier use of a stage has been waited on before its next is, and each epilogue falls
// under the other warpgroup's mainloop.
//
// beta·C: each warpgroup has its own ring of C chunks, its halves of the chunk buffers
// (the cooperative kernel's chunks hold both warpgroups' 64 rows of one tile; here the two
// halves belong to different tiles at different times), filled 64 rows at a time by a C
// load warp of its own (Epilogue::load_rows): one producer and one consumer per ring, so
// neither warpgroup steps over the other's phases or waits on the other's epilogue.
//
// FP8 (e4m3): the same loop, the wgmmas accumulating in acc with no promotion into a second
// fp32 fragment (fast accumulation: 128 accumulator registers a thread leave no room for
// one); scales, bias and activation in the fused epilogue, as the cooperative kernel's.
//
// Built for data-parallel units (each unit a whole tile) and no cluster; A and B K-major
// (x @ w.t(): every epilogue, FP8) or, for 16-bit inputs and the linear epilogue, one of
// them MN-major (a @ b: B N-major; A M-major), whose boxes are the cooperative kernel's
// (gemm/mainloop.cuh); the host asks for nothing else (gemm.cpp).
#include "warpspec/gemm/kernel.cuh"

namespace warpspec::gemm_impl {

template <GemmConfig kCfg>
struct GemmPingPongKernel : GemmKernel<kCfg> {
  using Base = GemmKernel<kCfg>;
  using typename Base::Context;
  using typename Base::MainloopT;
  using typename Base::EpilogueT;
  using typename Base::Cast;
  static constexpr int kStages = Base::kStages;
  static constexpr int kEpiStages = Base::kEpiStages;
  static constexpr int kBlocks = kCfg.tile.block_m / 64;  // 64-row wgmma blocks of a tile
  static_assert(kCfg.schedule == KernelSchedule::kPingPong && kCfg.cluster.size() == 1 && !kCfg.b_other_fp8 &&
                    kCfg.tile.block_m == 128 && kCfg.tile.epi_stages > 0,
                "the ping-pong kernel is built for 128-row tiles without clusters");

  struct SharedStorage : Base::SharedStorage {
    PipelineStorage<kEpiStages> c_rings[kConsumerWarpgroups];  // warpgroup w's C chunks (beta != 0)
  };

  __device__ __forceinline__ static void init_barriers(SharedStorage& s) {
    // Mainloop: 1 expect_tx arrival per stage; released by one lane of each of the 4
    // warps of the warpgroup that owns the stage's unit. C: 1 expect_tx per chunk,
    // released by the owning warpgroup's storer. (The cooperative epilogue ring: unused.)
    Pipeline<kStages>(s.mainloop_barriers).init(1, 4);
    Pipeline<kEpiStages>(s.epilogue_barriers).init(1, kConsumerWarpgroups);
    for (int w = 0; w < kConsumerWarpgroups; ++w) Pipeline<kEpiStages>(s.c_rings[w]).init(1, 1);
    hopper::mbarrier_init(&s.load_order, 1);
  }

  // The cooperative producer's mainloop warp; for C, warps 1 and 3 each feed one
  // warpgroup's ring (warp 1 warpgroup 0's units, warp 3 warpgroup 1's), 64 rows at a
  // time, after the mainloop warp's first unit is issued, so neither ring waits on the
  // other's epilogue. (Warp 2's side loads are FP8's: none here.)
  __device__ __forceinline__ static void producer(Context& c, int warp) {
    const GemmParams& p = c.p;
    if (warp != 1 && warp != 3) return Base::producer(c, warp);
    if (p.beta == 0.0f || !hopper::elect_one()) return;
    const int w = warp / 2;  // the warpgroup whose units this warp loads C for
    hopper::mbarrier_wait(&c.s.load_order, 0);
    Pipeline<kEpiStages> ring(static_cast<SharedStorage&>(c.s).c_rings[w]);
    PipelineState<kEpiStages> st;
    const auto& units = Cast::units(p.sched);
    int i = 0;
    for (auto t = units.first(blockIdx.x); t.valid; t = units.next(t), ++i) {
      if (i % kConsumerWarpgroups != w) continue;
#pragma unroll 1
      for (int b = 0; b < kBlocks; ++b) EpilogueT::load_rows(p, ring, st, c.s.epilogue, w, 64 * b, t);
    }
  }

  __device__ __forceinline__ static void consumer(Context& c, int consumer) {
    const GemmParams& p = c.p;
    PipelineState<kStages> st;
    PipelineState<kEpiStages> epi_st;
    Pipeline<kEpiStages> c_ring(static_cast<SharedStorage&>(c.s).c_rings[consumer]);
    const auto& units = Cast::units(p.sched);
    float acc[kBlocks][kCfg.tile.block_n / 2];
    const uint32_t my_turn = kMathTurn0 + consumer, their_turn = kMathTurn0 + (consumer ^ 1);
    int i = 0;
    for (auto t = units.first(blockIdx.x); t.valid; t = units.next(t), ++i) {
      if (i % kConsumerWarpgroups != consumer) {  // the other warpgroup's unit: step over its stages
#pragma unroll 1
        for (int k = t.k_begin; k < t.k_end; ++k) st.advance();
        continue;
      }
      if (i > 0) hopper::named_barrier_sync(my_turn, 2 * 128);  // the other's unit i - 1 is waited on
      MainloopT::template mma_rows<kBlocks>(p, c.mainloop, st, c.s.mainloop, 0, t, acc);
      if (units.next(t).valid) hopper::named_barrier_arrive(their_turn, 2 * 128);  // unit i + 1 may start
#pragma unroll
      for (int b = 0; b < kBlocks; ++b)
        EpilogueT::store_rows(p, c_ring, epi_st, c.s.epilogue, consumer, 64 * b, t, acc[b]);
    }
    EpilogueT::store_tail();
  }
};

}  // namespace warpspec::gemm_impl
