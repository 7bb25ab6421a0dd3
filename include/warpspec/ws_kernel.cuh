#pragma once
// The one warp-specialized kernel skeleton: everything a persistent producer/consumer
// kernel does before and after its roles, written once for every family.
//
//   1. shared storage at a 1024-byte-aligned base (TMA and wgmma swizzle on absolute
//      address bits);
//   2. one thread initialises the kernel's mbarriers and fences the init; one elected
//      lane prefetches the TMA descriptors;
//   3. CTA sync, or cluster sync when the kernel runs in clusters (no CTA may arrive
//      on a peer's barrier before the peer has initialised it);
//   4. the register split: warpgroup 0 drops to kProducerRegs, the consumer
//      warpgroups rise to kConsumerRegs (setmaxnreg);
//   5. programmatic dependent launch: every role waits for the previous grid in the
//      stream before its first global access (griddepcontrol.wait returns at once
//      when the launch did not ask for PDL). Consumers wait too: they write outputs
//      (tiles that load nothing, the previous kernel may still be reading them) and
//      would otherwise only be ordered through the producer's loads;
//   6. the roles: Kernel::producer(ctx, warp) on warpgroup 0, Kernel::consumer(ctx,
//      index) on the others. The mainloop producer calls allow_dependents() once it
//      has issued its last tile's loads (the next kernel may then be scheduled; it
//      still waits for this grid to finish). Not in the consumers: an instruction
//      between the last mainloop and the epilogue costs the register-tight consumers
//      a spill (ptxas: 64 bytes at head dim 256);
//   7. cluster sync at exit, so no CTA leaves while a peer may still signal it.
//
// A kernel plugs in as a type deriving from WsRoles (its warpgroups, register split and
// cluster size) with: Params (passed as __grid_constant__), SharedStorage, Context
// (constructed from (const Params&, SharedStorage&): the one value the roles
// receive), static init_barriers(SharedStorage&), static prefetch(const Params&),
// static producer(Context&, int warp), static consumer(Context&, int consumer).
#include <cstdint>

#include "warpspec/hopper/cluster.cuh"
#include "warpspec/hopper/limits.hpp"
#include "warpspec/hopper/mbarrier.cuh"
#include "warpspec/hopper/warp.cuh"

namespace warpspec {

// The shape of a kernel's roles: one producer warpgroup, `kConsumers` consumer
// warpgroups, the registers each keeps after setmaxnreg, CTAs per cluster.
template <int kConsumers, int kProducerRegisters, int kConsumerRegisters, int kCluster = 1>
struct WsRoles {
  static constexpr int kConsumerWarpgroups = kConsumers;
  static constexpr int kProducerRegs = kProducerRegisters;
  static constexpr int kConsumerRegs = kConsumerRegisters;
  static constexpr int kClusterSize = kCluster;
};

template <class Kernel>
struct WsSkeleton {
  static constexpr int kThreads = hopper::kWarpgroupThreads * (1 + Kernel::kConsumerWarpgroups);
  // + 1024: the worst-case slack to align the dynamic shared memory base.
  static constexpr int kSmemBytes = int(sizeof(typename Kernel::SharedStorage)) + 1024;
  static_assert(kSmemBytes <= hopper::kMaxSmemPerBlock, "shared storage exceeds the 227 KB a block can opt in to");
  static_assert(hopper::register_split_fits(1, Kernel::kProducerRegs, Kernel::kConsumerWarpgroups,
                                            Kernel::kConsumerRegs),
                "setmaxnreg split exceeds the registers the CTA starts with: the consumers' inc would block forever");
  static_assert(Kernel::kClusterSize >= 1 && Kernel::kClusterSize <= 8, "portable cluster sizes are 1..8");

  __device__ __forceinline__ static void run(const typename Kernel::Params& p, uint8_t* smem_raw) {
    auto& s = *reinterpret_cast<typename Kernel::SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                                                 ~uintptr_t(1023));
    const int wg = hopper::warpgroup_index();
    if (threadIdx.x == 0) {
      Kernel::init_barriers(s);
      hopper::fence_barrier_init();
    }
    if (hopper::warp_index() == 0 && hopper::elect_one()) Kernel::prefetch(p);
    if constexpr (Kernel::kClusterSize > 1) {
      hopper::cluster_arrive_relaxed();
      hopper::cluster_wait();
    } else {
      __syncthreads();
    }
    typename Kernel::Context ctx(p, s);
    if (wg == 0) {
      hopper::setmaxnreg_dec<Kernel::kProducerRegs>();
      hopper::griddep_wait();
      Kernel::producer(ctx, hopper::warp_index());
    } else {
      hopper::setmaxnreg_inc<Kernel::kConsumerRegs>();
      hopper::griddep_wait();
      Kernel::consumer(ctx, wg - 1);
    }
    if constexpr (Kernel::kClusterSize > 1) hopper::cluster_sync();
  }
};

// PDL: the next kernel in the stream may be scheduled. Called by the mainloop producer
// once its last loads are issued; repeats are harmless, and a CTA that never calls it
// counts as calling it when it exits.
WARPSPEC_DEVICE void allow_dependents() { hopper::griddep_launch_dependents(); }

template <class Kernel>
__global__ void __launch_bounds__(WsSkeleton<Kernel>::kThreads, 1)
    ws_kernel(const __grid_constant__ typename Kernel::Params p) {
  extern __shared__ uint8_t smem[];
  WsSkeleton<Kernel>::run(p, smem);
}

}  // namespace warpspec
