#pragma once
// Runtime -> template dispatch for one kernel head dim: the dtype. Included by exactly
// one .cu per head dim, so the instantiations build in parallel.
#include <cuda_bf16.h>
#include <cuda_fp16.h>


#include "../launch_kernel.cuh"
#include "launch.hpp"
#include "warpspec/attention/kernel.cuh"

namespace warpspec::attention_impl {

template <class Kernel>
Status launch_kernel(const AttentionParams& p, int grid, cudaStream_t stream) {
  return warpspec::launch_kernel<attention_kernel<Kernel>>(p, grid, kThreads, Kernel::kSmemBytes, stream, "attention");
}

template <int kHeadDim>
Status launch_for_head_dim(DType dtype, const AttentionParams& p, int grid, cudaStream_t stream) {
  if (dtype == DType::kBF16) return launch_kernel<AttentionKernel<kHeadDim, __nv_bfloat16>>(p, grid, stream);
  return launch_kernel<AttentionKernel<kHeadDim, __half>>(p, grid, stream);
}

}  // namespace warpspec::attention_impl
