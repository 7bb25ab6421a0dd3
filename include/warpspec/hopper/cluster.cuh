#pragma once
// Thread-block clusters: rank, size, the cluster barrier; and programmatic dependent
// launch (griddepcontrol), which also synchronises grids rather than threads.
#include "warpspec/hopper/cuda_ptx.hpp"

#include "warpspec/hopper/arch.cuh"

namespace warpspec::hopper {

WARPSPEC_DEVICE uint32_t cluster_cta_rank() { return cuda::ptx::get_sreg_cluster_ctarank(); }
WARPSPEC_DEVICE uint32_t cluster_size() { return cuda::ptx::get_sreg_cluster_nctarank(); }
// Position of this CTA inside its cluster, per dimension.
WARPSPEC_DEVICE uint32_t cluster_cta_id_x() { return cuda::ptx::get_sreg_cluster_ctaid_x(); }
WARPSPEC_DEVICE uint32_t cluster_cta_id_y() { return cuda::ptx::get_sreg_cluster_ctaid_y(); }

// Cluster barrier, split so work can sit between arrive and wait. Every non-exited
// thread of the cluster arrives once per phase. The relaxed arrive gives no memory
// ordering: use it after fence_barrier_init() for barrier setup.
WARPSPEC_DEVICE void cluster_arrive_relaxed() {
  cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed);
}
WARPSPEC_DEVICE void cluster_arrive() { cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release); }
WARPSPEC_DEVICE void cluster_wait() { cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire); }
WARPSPEC_DEVICE void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

// Programmatic dependent launch. wait: block until the grids this one depends on have
// completed and their writes are visible (call before reading their outputs or
// overwriting their inputs). launch_dependents: allow the next grid to start early.
WARPSPEC_DEVICE void griddep_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
// launch_dependents orders no memory (the dependent's wait covers this grid's writes),
// so it takes no "memory" clobber: one would pin every value the compiler keeps in
// memory around it, and in a register-tight consumer that spills.
WARPSPEC_DEVICE void griddep_launch_dependents() { asm volatile("griddepcontrol.launch_dependents;"); }

}  // namespace warpspec::hopper
