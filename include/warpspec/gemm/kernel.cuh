#pragma once
// The cooperative warp-specialized persistent GEMM kernel: roles only (the skeleton,
// ws_kernel.cuh, does the set-up, the register split and PDL).
//
//   warpgroup 0 (producer, 40 registers):
//     warp 0 — mainloop loads: A and B tiles by TMA into the staged ring;
//     warp 1 — epilogue loads: C chunks by TMA, only when beta != 0, starting after
//              warp 0 has issued its first tile (the loads the math waits on first);
//     warp 2 idles (FP8 block scales are loaded by the consumers: gemm/block_scale.cuh).
//   warpgroups 1, 2 (consumers, 232 registers): wgmma (MmaConsumer: 16-bit, or FP8 with
//     two-level accumulation) over rows 0-63 and 64-127 of the
//     same tile, then the fixup (a unit covering part of K: publish the partial, or sum
//     the peers' partials) and the epilogue of their rows when the unit is final.
// All roles walk the same unit sequence (KSplitScheduler: data-parallel, split-K or
// stream-K, a runtime choice), so stages and chunks pair up; the C load warp loads C
// exactly for the units whose consumers store (final ones).
// Clusters (2x1, 1x2): ClusterCast (gemm/cluster_cast.cuh) says who loads and
// multicasts which part of a stage, who releases it (both CTAs' consumers), and the unit
// walk (the pair's tiles in lock-step); a tile past the problem's edge runs the
// mainloop for its peer's sake and is not stored (t.in_bounds).
#include <type_traits>

#include "warpspec/gemm/cluster_cast.cuh"
#include "warpspec/gemm/config.hpp"
#include "warpspec/gemm/epilogue_d16_or_fp32.cuh"
#include "warpspec/gemm/fixup.cuh"
#include "warpspec/gemm/mainloop.cuh"
#include "warpspec/gemm/mma_fp8.cuh"
#include "warpspec/gemm/mma_fp8_carried.cuh"
#include "warpspec/gemm/mma_k_interleaved.cuh"
#include "warpspec/gemm/params.hpp"
#include "warpspec/hopper/mbarrier.cuh"
#include "warpspec/hopper/smem.cuh"
#include "warpspec/hopper/warp.cuh"
#include "warpspec/ws_kernel.cuh"

namespace warpspec::gemm_impl {

// The MMA consumer of a configuration: FP8 with promotion, both warpgroups on one 64-row
// tile in turns, or the 16-bit mainloop's (a warpgroup per 64 rows).
template <GemmConfig kCfg>
using MmaConsumer =
    std::conditional_t<dtype_size(kCfg.in) == 1, MmaFp8Promote<kCfg>,
                       std::conditional_t<kCfg.tile.block_m == 64, MmaKInterleaved<kCfg>, Mainloop<kCfg>>>;

template <GemmConfig kCfg>
struct GemmKernel : WsRoles<kConsumerWarpgroups, kProducerRegs, kConsumerRegs, kCfg.cluster.size()> {
  using Params = GemmParams;
  using MainloopT = Mainloop<kCfg>;    // the TMA loads (every dtype)
  using MmaT = MmaConsumer<kCfg>;       // the wgmma consumer: 16-bit, or FP8 with promotion
  // Chunk buffers and TMA stores (D's type built in, or chosen at run time), or (narrow
  // tiles, no buffers) stores from registers.
  using EpilogueT = CooperativeEpilogue<kCfg>;
  using FixupT = KSplitFixup<kCfg>;
  using Cast = ClusterCast<kCfg>;       // the cluster's share of loads, releases and tiles
  // FP8 one-part tiles: the loop carried across tiles (mma_fp8_carried.cuh); 16-bit: none.
  using CarriedT = std::conditional_t<dtype_size(kCfg.in) == 1, Fp8Carried<kCfg>, NoCarriedLoop>;
  static constexpr bool kCarried = CarriedT::kBuilt;
  static constexpr int kStages = kCfg.tile.stages;
  static constexpr int kEpiStages = kCfg.tile.epi_stages > 0 ? kCfg.tile.epi_stages : 1;  // a ring of 1, unused, when 0

  struct SharedStorage {
    typename MainloopT::Storage mainloop;
    typename EpilogueT::Storage epilogue;
    PipelineStorage<kStages> mainloop_barriers;
    PipelineStorage<kEpiStages> epilogue_barriers;
    uint64_t load_order;  // mainloop warp -> epilogue load warp, once
    // What the consumer keeps beside the stages (the k-interleaved consumer's partials;
    // empty otherwise); last, where the 1 KB-aligned members leave room.
    typename MmaT::ConsumerStorage consumer;
  };

  struct Context {
    const Params& p;
    SharedStorage& s;
    Pipeline<kStages> mainloop;
    Pipeline<kEpiStages> epilogue;
    __device__ __forceinline__ Context(const Params& params, SharedStorage& storage)
        : p(params), s(storage), mainloop(storage.mainloop_barriers), epilogue(storage.epilogue_barriers) {}
  };

  __device__ __forceinline__ static void init_barriers(SharedStorage& s) {
    // Mainloop: 1 expect_tx arrival per stage; released by one lane of each of the
    // 8 consumer warps of every CTA in the cluster (each writes into all of them).
    // Epilogue: 1 expect_tx; released by each warpgroup's storer.
    Pipeline<kStages>(s.mainloop_barriers).init(1, 4 * MmaT::kWarpgroupsPerStage * Cast::kCtas);
    Pipeline<kEpiStages>(s.epilogue_barriers).init(1, kConsumerWarpgroups);
    hopper::mbarrier_init(&s.load_order, 1);
  }

  __device__ __forceinline__ static void prefetch(const Params& p) {
    hopper::tma_prefetch_descriptor(&p.map_a);
    hopper::tma_prefetch_descriptor(&p.map_b);
    hopper::tma_prefetch_descriptor(&p.map_d);
    if (p.beta != 0.0f) hopper::tma_prefetch_descriptor(&p.map_c);
  }

  __device__ __forceinline__ static void producer(Context& c, int warp) {
    const Params& p = c.p;
    if (warp == 0) {
      if (!hopper::elect_one()) return;
      PipelineState<kStages> st;
      bool first = true;
      const auto& units = Cast::units(p.sched);
      for (auto t = units.first(blockIdx.x); t.valid; t = units.next(t)) {
        MainloopT::load(p, c.mainloop, st, c.s.mainloop, t);
        if (first) {
          hopper::mbarrier_arrive(&c.s.load_order);
          first = false;
        }
      }
      // A CTA with no unit at all still releases the C load warp (which then finds none).
      if (first) hopper::mbarrier_arrive(&c.s.load_order);
      allow_dependents();  // every mainloop load of this CTA is issued
    } else if (warp == 1 && p.beta != 0.0f) {
      if (!hopper::elect_one()) return;
      hopper::mbarrier_wait(&c.s.load_order, 0);
      PipelineState<kEpiStages> st;
      const auto& units = Cast::units(p.sched);
      for (auto t = units.first(blockIdx.x); t.valid; t = units.next(t))
        if (t.in_bounds && p.sched.is_final(t)) EpilogueT::load(p, c.epilogue, st, c.s.epilogue, t);
    }
  }

  __device__ __forceinline__ static void consumer(Context& c, int consumer) {
    const Params& p = c.p;
    PipelineState<kStages> st;
    PipelineState<kEpiStages> epi_st;
    const auto& units = Cast::units(p.sched);
    if constexpr (kCarried) {
      if (CarriedT::eligible(p)) {  // FP8, data-parallel: the tensor pipe kept fed across tiles
        CarriedT::template run<EpilogueT>(p, units, consumer, c.mainloop, st, c.s.mainloop, c.epilogue, epi_st,
                                          c.s.epilogue);
        EpilogueT::store_tail();
        return;
      }
    }
    float acc[kCfg.tile.block_n / 2];
    for (auto t = units.first(blockIdx.x); t.valid; t = units.next(t)) {
      MmaT::mma(p, c.mainloop, st, c.s.mainloop, consumer, t, acc, c.s.consumer);
      if (!MmaT::combine(consumer, acc, c.s.consumer)) continue;  // the other warpgroup finishes this unit
      if (FixupT::reduce(p, consumer, t, acc) && t.in_bounds)
        EpilogueT::store(p, c.epilogue, epi_st, c.s.epilogue, consumer, t, acc);
    }
    EpilogueT::store_tail();
  }
};

}  // namespace warpspec::gemm_impl
