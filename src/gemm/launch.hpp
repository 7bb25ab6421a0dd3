#pragma once
// Between the host logic (gemm.cpp) and the kernel instantiations (gemm_<dtype>.cu):
// which kernel (a configuration from instances.hpp), with which parameters.
#include <cuda_runtime_api.h>

#include "../common/launch.hpp"
#include "warpspec/gemm/config.hpp"
#include "warpspec/gemm/params.hpp"
#include "warpspec/status.hpp"

namespace warpspec::gemm_impl {

// One per input dtype, each instantiating the kernels of kGemmInstances with that input.
Status launch_gemm_bf16(const GemmConfig& cfg, const GemmParams& p, const LaunchShape& shape, cudaStream_t stream);
Status launch_gemm_fp16(const GemmConfig& cfg, const GemmParams& p, const LaunchShape& shape, cudaStream_t stream);
Status launch_gemm_e4m3(const GemmConfig& cfg, const GemmParams& p, const LaunchShape& shape, cudaStream_t stream);
Status launch_gemm_e5m2(const GemmConfig& cfg, const GemmParams& p, const LaunchShape& shape, cudaStream_t stream);

}  // namespace warpspec::gemm_impl
