#pragma once
// mbarrier: the transaction barrier in shared memory that TMA completes and that
// producer/consumer roles hand stages through. Wraps CCCL's cuda::ptx where it has
// the instruction; only the remote (cluster) arrive is written here.
//
// Rules (PTX ISA, mbarrier section): a phase completes when the pending arrival count
// and the transaction count both reach zero. Parity names a phase: waiting on parity P
// returns once the phase with that parity has completed. On a fresh barrier parity 1
// reads as complete, which is why producers start their empty-waits on parity 1.
#include "warpspec/hopper/cuda_ptx.hpp"

#include "warpspec/hopper/arch.cuh"

namespace warpspec::hopper {

// One thread initialises; make the init visible (fence_barrier_init + a CTA or cluster
// sync) before any other thread or the async proxy touches the barrier.
WARPSPEC_DEVICE void mbarrier_init(uint64_t* bar, uint32_t arrive_count) {
  cuda::ptx::mbarrier_init(bar, arrive_count);
}

// Orders earlier mbarrier.init of this thread before later cluster-scope operations:
// the release half of "init, fence, sync".
WARPSPEC_DEVICE void fence_barrier_init() {
  cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
}

WARPSPEC_DEVICE void mbarrier_arrive(uint64_t* bar) {
  (void)cuda::ptx::mbarrier_arrive(bar);
}

// Arrive once and announce `bytes` of transactions (TMA completions) for this phase.
WARPSPEC_DEVICE void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                             cuda::ptx::space_shared, bar, bytes);
}

// Announce bytes without arriving (a second TMA issuer in the same phase).
WARPSPEC_DEVICE void mbarrier_expect_tx(uint64_t* bar, uint32_t bytes) {
  cuda::ptx::mbarrier_expect_tx(cuda::ptx::sem_relaxed, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                bar, bytes);
}

// Arrive on the barrier at the same shared-memory offset in the cluster CTA of rank
// `cta_rank`. A remote barrier accepts arrivals only.
// The arrive's release is at CTA scope (the instruction's default), not `.release.cluster`:
// its one user, a consumer releasing a multicast stage, only read that stage (its wgmma
// reads completed at wait_group before the arrive), so it has nothing to make visible
// to the peer; the peer's producer then overwrites the stage through TMA. `.release.cluster`
// compiles to a MEMBAR before every arrive: on the H200 that was 41% of the 2x1 GEMM's
// stall samples and a third of its speed (bench/NOTES.md v13). CUTLASS's ClusterBarrier
// arrives the same way. A caller that wrote shared memory the peer reads must fence first.
WARPSPEC_DEVICE void mbarrier_arrive_cluster(uint64_t* bar, uint32_t cta_rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_u32(bar)), "r"(cta_rank));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}

// One probe: true once the phase with parity `parity` has completed. May suspend the
// thread for a system-dependent time first. Acquire at CTA scope.
WARPSPEC_DEVICE bool mbarrier_try_wait(uint64_t* bar, uint32_t parity) {
  return cuda::ptx::mbarrier_try_wait_parity(bar, parity);
}

// Acquire at cluster scope: for barriers whose phase is completed by arrivals from
// other CTAs (multicast consumers releasing a stage).
WARPSPEC_DEVICE bool mbarrier_try_wait_cluster(uint64_t* bar, uint32_t parity) {
  return cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, bar, parity);
}

// Block until the phase with parity `parity` has completed.
WARPSPEC_DEVICE void mbarrier_wait(uint64_t* bar, uint32_t parity) {
  WARPSPEC_HANG_COUNTER(spins);
  while (!mbarrier_try_wait(bar, parity)) {
    WARPSPEC_HANG_CHECK(spins, "mbarrier_wait");
  }
}

WARPSPEC_DEVICE void mbarrier_wait_cluster(uint64_t* bar, uint32_t parity) {
  WARPSPEC_HANG_COUNTER(spins);
  while (!mbarrier_try_wait_cluster(bar, parity)) {
    WARPSPEC_HANG_CHECK(spins, "mbarrier_wait_cluster");
  }
}

}  // namespace warpspec::hopper
