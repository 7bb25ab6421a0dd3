#pragma once
// The slice of kGemmInstances with input dtype kIn: included by exactly one .cu per
// input dtype, so the instantiations build in parallel.
#include "../common/dispatch.hpp"
#include "../common/launch.cuh"
#include "instances.hpp"
#include "launch.hpp"
#include "warpspec/gemm/kernel.cuh"

namespace warpspec::gemm_impl {

template <DType kIn>
struct GemmSlice {
  static constexpr const char* kFamily = "gemm";
  static constexpr bool keep(const GemmConfig& c) { return c.in == kIn; }
  template <GemmConfig kCfg>
  static Status launch(const GemmParams& p, const LaunchShape& shape, cudaStream_t stream) {
    return warpspec::launch<GemmKernel<kCfg>>(p, shape, stream, "gemm");
  }
};

template <DType kIn>
Status launch_gemm_slice(const GemmConfig& cfg, const GemmParams& p, const LaunchShape& shape, cudaStream_t stream) {
  return launch_built<kGemmInstances, GemmSlice<kIn>>(cfg, p, shape, stream);
}

}  // namespace warpspec::gemm_impl
