#pragma once
// The cooperative warp-specialized persistent GEMM kernel: roles only.
//
//   warpgroup 0 (producer, 40 registers):
//     warp 0 — mainloop loads: A and B tiles by TMA into the staged ring;
//     warp 1 — epilogue loads: C chunks by TMA, only when beta != 0, starting after
//              warp 0 has issued its first tile (the loads the math waits on first).
//   warpgroups 1, 2 (consumers, 232 registers): wgmma over rows 0-63 and 64-127 of the
//     same tile, then the epilogue of their rows.
// All roles walk the same persistent tile sequence, so stages and chunks pair up.
#include "warpspec/gemm/config.hpp"
#include "warpspec/gemm/epilogue.cuh"
#include "warpspec/gemm/mainloop.cuh"
#include "warpspec/gemm/params.hpp"
#include "warpspec/hopper/cluster.cuh"
#include "warpspec/hopper/mbarrier.cuh"
#include "warpspec/hopper/warp.cuh"

namespace warpspec::gemm_impl {

template <int kBlockM, int kBlockN, int kBlockK, int kStages, int kEpiStages, class TIn, class TOut, bool kAKMajor,
          bool kBKMajor>
struct GemmKernel {
  using MainloopT = Mainloop<kBlockM, kBlockN, kBlockK, kStages, TIn, kAKMajor, kBKMajor>;
  using EpilogueT = Epilogue<kBlockM, kBlockN, kEpiStages, TOut>;

  struct SharedStorage {
    typename MainloopT::Storage mainloop;
    typename EpilogueT::Storage epilogue;
    PipelineStorage<kStages> mainloop_barriers;
    PipelineStorage<kEpiStages> epilogue_barriers;
    uint64_t load_order;  // mainloop warp -> epilogue load warp, once
  };
  static constexpr int kSmemBytes = int(sizeof(SharedStorage)) + 1024;  // + alignment slack
  static_assert(kSmemBytes <= kMaxSmemPerBlock, "GEMM shared storage exceeds 227 KB");

  __device__ __forceinline__ static void run(const GemmParams& p, uint8_t* smem_raw) {
    // TMA and wgmma swizzle on absolute address bits: align the base to 1024 B.
    auto& s = *reinterpret_cast<SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
    Pipeline<kStages> mainloop_pipe(s.mainloop_barriers);
    Pipeline<kEpiStages> epilogue_pipe(s.epilogue_barriers);
    const int wg = hopper::warpgroup_index();
    const int warp = hopper::warp_index();

    if (threadIdx.x == 0) {
      // Mainloop: 1 expect_tx arrival per stage; released by one lane of each of the
      // 8 consumer warps. Epilogue: 1 expect_tx; released by each warpgroup's storer.
      mainloop_pipe.init(1, 4 * kConsumerWarpgroups);
      epilogue_pipe.init(1, kConsumerWarpgroups);
      hopper::mbarrier_init(&s.load_order, 1);
      hopper::fence_barrier_init();
    }
    if (warp == 0 && hopper::elect_one()) {
      hopper::tma_prefetch_descriptor(&p.map_a);
      hopper::tma_prefetch_descriptor(&p.map_b);
      hopper::tma_prefetch_descriptor(&p.map_d);
      if (p.beta != 0.0f) hopper::tma_prefetch_descriptor(&p.map_c);
    }
    __syncthreads();

    if (wg == 0) {
      hopper::setmaxnreg_dec<kProducerRegs>();
      if (warp == 0) {
        if (hopper::elect_one()) {
          // Wait for a previous kernel's writes (programmatic dependent launch).
          hopper::griddep_wait();
          PipelineState<kStages> st;
          bool first = true;
          for (auto t = p.sched.first(blockIdx.x); t.valid; t = p.sched.next(t)) {
            MainloopT::load(p, mainloop_pipe, st, s.mainloop, t.m_block, t.n_block, t.l);
            if (first) {
              hopper::mbarrier_arrive(&s.load_order);
              first = false;
            }
          }
        }
      } else if (warp == 1 && p.beta != 0.0f) {
        if (hopper::elect_one()) {
          hopper::griddep_wait();
          hopper::mbarrier_wait(&s.load_order, 0);
          PipelineState<kEpiStages> st;
          for (auto t = p.sched.first(blockIdx.x); t.valid; t = p.sched.next(t)) {
            if (t.in_bounds) EpilogueT::load(p, epilogue_pipe, st, s.epilogue, t.m_block, t.n_block, t.l);
          }
        }
      }
    } else {
      hopper::setmaxnreg_inc<kConsumerRegs>();
      const int consumer = wg - 1;
      PipelineState<kStages> st;
      PipelineState<kEpiStages> epi_st;
      float acc[kBlockN / 2];
      for (auto t = p.sched.first(blockIdx.x); t.valid; t = p.sched.next(t)) {
        MainloopT::mma(p, mainloop_pipe, st, s.mainloop, consumer, acc);
        if (t.in_bounds) EpilogueT::store(p, epilogue_pipe, epi_st, s.epilogue, consumer, t.m_block, t.n_block, t.l, acc);
      }
      EpilogueT::store_tail();
    }
  }
};

template <class Kernel>
__global__ void __launch_bounds__(kThreads, 1) gemm_kernel(const __grid_constant__ GemmParams p) {
  extern __shared__ uint8_t smem[];
  Kernel::run(p, smem);
}

}  // namespace warpspec::gemm_impl
