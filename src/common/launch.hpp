#pragma once
// The one launch path of every warp-specialized kernel (host side): grid, optional
// thread-block cluster and programmatic dependent launch, through cudaLaunchKernelEx.
#include <cuda_runtime_api.h>

#include <array>
#include <atomic>

#include "warpspec/status.hpp"

namespace warpspec {

struct LaunchShape {
  int grid = 0;                      // CTAs, a multiple of the cluster size
  int cluster_x = 1, cluster_y = 1;  // thread-block cluster (1 x 1: none)
  // Programmatic stream serialization: the kernel may be scheduled before the previous
  // kernel in the stream has finished; its roles wait (griddepcontrol.wait) before
  // touching global memory, so results are the same.
  bool pdl = false;
};

// Per kernel: whether its dynamic shared memory opt-in has been set, per device.
using SmemOptIns = std::array<std::atomic<bool>, 64>;

// Launches `kernel` (a __global__ function taking one parameter, *param). Sets the
// shared-memory opt-in the first time per device; if a launch fails while the cache
// said "set" (a reset device or a new context forgets attributes), sets it again and
// retries once. `what` names the kernel in errors.
Status launch_ws_kernel(const void* kernel, void* param, const LaunchShape& shape, int threads, int smem_bytes,
                        SmemOptIns& opted, cudaStream_t stream, const char* what);

}  // namespace warpspec
