#pragma once
// Launch one kernel built on the warp-specialized skeleton (ws_kernel.cuh): the
// template half of the launch path (launch.hpp), one opt-in cache per kernel.
#include "launch.hpp"
#include "warpspec/ws_kernel.cuh"

namespace warpspec {

template <class Kernel>
Status launch(const typename Kernel::Params& params, const LaunchShape& shape, cudaStream_t stream, const char* what) {
  static SmemOptIns opted{};
  using Skeleton = WsSkeleton<Kernel>;
  auto* param = const_cast<typename Kernel::Params*>(&params);
  return launch_ws_kernel(reinterpret_cast<const void*>(&ws_kernel<Kernel>), param, shape, Skeleton::kThreads,
                          Skeleton::kSmemBytes, opted, stream, what);
}

}  // namespace warpspec
