#pragma once
// The slice of kGemmInstances with input dtype kIn: included by exactly one .cu per
// input dtype, so the instantiations build in parallel.
#include "../common/dispatch.hpp"
#include "../common/launch.cuh"
#include "instances.hpp"
#include "launch.hpp"
#include "warpspec/gemm/kernel.cuh"
#include "warpspec/gemm/kernel_pingpong.cuh"

namespace warpspec::gemm_impl {

// The kernel of kGemmInstances[I], named by its index (dispatch.hpp says why).
template <GemmConfig kCfg>
using GemmKernelOf =
    std::conditional_t<kCfg.schedule == KernelSchedule::kPingPong, GemmPingPongKernel<kCfg>, GemmKernel<kCfg>>;
template <std::size_t I>
struct GemmInstance : GemmKernelOf<kGemmInstances[I]> {};

template <DType kIn>
struct GemmSlice {
  static constexpr const char* kFamily = "gemm";
  static constexpr bool keep(const GemmConfig& c) { return c.in == kIn; }
  template <std::size_t I>
  static Status launch(const GemmParams& p, const LaunchShape& shape, cudaStream_t stream) {
    return warpspec::launch<GemmInstance<I>>(p, shape, stream, "gemm");
  }
};

template <DType kIn>
Status launch_gemm_slice(const GemmConfig& cfg, const GemmParams& p, const LaunchShape& shape, cudaStream_t stream) {
  return launch_built<kGemmInstances, GemmSlice<kIn>>(kernel_config(cfg), p, shape, stream);
}

}  // namespace warpspec::gemm_impl
