#pragma once
// The warp-specialized persistent attention forward kernel: roles only.
//
//   warpgroup 0 (producer, 24 registers): one thread loads, per tile, Q once and the
//     tile's K and V blocks (last block first) through two TMA pipelines.
//   warpgroups 1, 2 (consumers, 240 registers): query rows 0-63 and 64-127 of the
//     same tile against the same K/V blocks; online softmax, ping-pong on the tensor
//     cores, then the epilogue of their rows.
// All roles walk the same persistent tile sequence and skip the same tiles (those
// that see no key: consumers write zeros), so stages pair up.
#include "warpspec/attention/config.hpp"
#include "warpspec/attention/epilogue.cuh"
#include "warpspec/attention/mainloop.cuh"
#include "warpspec/attention/params.hpp"
#include "warpspec/hopper/mbarrier.cuh"
#include "warpspec/hopper/warp.cuh"

namespace warpspec::attention_impl {

template <int kHeadDim, class T>
struct AttentionKernel {
  using MainloopT = Mainloop<kHeadDim, T>;
  using EpilogueT = Epilogue<kHeadDim, T>;
  static constexpr int kBlockN = MainloopT::kBlockN;
  static constexpr int kStages = MainloopT::kStages;

  struct SharedStorage {
    typename MainloopT::Storage tiles;
    PipelineStorage<kStages> k_barriers;
    PipelineStorage<kStages> v_barriers;
    uint64_t q_full;   // Q landed (TMA, one expect_tx per tile)
    uint64_t q_empty;  // Q's buffer free again: both warpgroups' O stores have read it
  };
  static constexpr int kSmemBytes = int(sizeof(SharedStorage)) + 1024;  // + alignment slack
  static_assert(kSmemBytes <= kMaxSmemPerBlock, "attention shared storage exceeds 227 KB");

  __device__ __forceinline__ static void run(const AttentionParams& p, uint8_t* smem_raw) {
    // TMA and wgmma swizzle on absolute address bits: align the base to 1024 B.
    auto& s = *reinterpret_cast<SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
    Pipeline<kStages> kpipe(s.k_barriers), vpipe(s.v_barriers);
    const int wg = hopper::warpgroup_index();
    const int warp = hopper::warp_index();

    if (threadIdx.x == 0) {
      // 1 expect_tx arrival per stage; released by one lane of each consumer warp.
      kpipe.init(1, 4 * kConsumerWarpgroups);
      vpipe.init(1, 4 * kConsumerWarpgroups);
      hopper::mbarrier_init(&s.q_full, 1);
      hopper::mbarrier_init(&s.q_empty, kConsumerWarpgroups);
      hopper::fence_barrier_init();
    }
    if (warp == 0 && hopper::elect_one()) {
      hopper::tma_prefetch_descriptor(&p.map_q);
      hopper::tma_prefetch_descriptor(&p.map_k);
      hopper::tma_prefetch_descriptor(&p.map_v);
      hopper::tma_prefetch_descriptor(&p.map_o);
    }
    __syncthreads();

    if (wg == 0) {
      hopper::setmaxnreg_dec<kProducerRegs>();
      if (warp == 0 && hopper::elect_one()) {
        PipelineState<kStages> kst, vst;
        uint32_t q_iter = 0;
        for (auto w = p.sched.first(blockIdx.x); w.valid; w = p.sched.next(w)) {
          const int n_blocks = n_block_count<kBlockN>(p, w.m_block);
          if (n_blocks == 0) continue;
          MainloopT::load(p, kpipe, vpipe, kst, vst, s.tiles, &s.q_full, &s.q_empty, q_iter, w, n_blocks);
          ++q_iter;
        }
      }
    } else {
      hopper::setmaxnreg_inc<kConsumerRegs>();
      const int consumer = wg - 1;
      // The first turn on the tensor cores is consumer 0's: consumer 1 hands it over.
      if (consumer == 1) hopper::named_barrier_arrive(kPingPong0, 2 * hopper::kWarpgroupSize);
      PipelineState<kStages> kst, vst;
      uint32_t q_iter = 0;
      float o[kHeadDim / 2];
      for (auto w = p.sched.first(blockIdx.x); w.valid; w = p.sched.next(w)) {
        const int n_blocks = n_block_count<kBlockN>(p, w.m_block);
        if (n_blocks == 0) {
          EpilogueT::store_zero(p, consumer, w);
          continue;
        }
        OnlineSoftmax<kBlockN> sm(p.scale_log2);
        hopper::mbarrier_wait(&s.q_full, q_iter & 1u);
        MainloopT::mma(p, kpipe, vpipe, kst, vst, s.tiles, consumer, w, n_blocks, o, sm);
        EpilogueT::store(p, s.tiles, &s.q_empty, consumer, w, o, sm);
        ++q_iter;
      }
    }
  }
};

template <class Kernel>
__global__ void __launch_bounds__(kThreads, 1) attention_kernel(const __grid_constant__ AttentionParams p) {
  extern __shared__ uint8_t smem[];
  Kernel::run(p, smem);
}

}  // namespace warpspec::attention_impl
