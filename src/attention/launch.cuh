#pragma once
// Runtime -> template dispatch for one kernel head dim: the dtype. Included by exactly
// one .cu per head dim, so the instantiations build in parallel.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <array>
#include <atomic>

#include "launch.hpp"
#include "warpspec/attention/kernel.cuh"

namespace warpspec::attention_impl {

template <class Kernel>
Status launch_kernel(const AttentionParams& p, int grid, cudaStream_t stream) {
  // Opt in to > 48 KB of dynamic shared memory, once per device.
  static std::array<std::atomic<bool>, 64> opted{};
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return cuda_error("cudaGetDevice", err);
  if (device >= 64 || !opted[device].load(std::memory_order_acquire)) {
    err = cudaFuncSetAttribute(attention_kernel<Kernel>, cudaFuncAttributeMaxDynamicSharedMemorySize, Kernel::kSmemBytes);
    if (err != cudaSuccess) return cuda_error("cudaFuncSetAttribute(attention smem)", err);
    if (device < 64) opted[device].store(true, std::memory_order_release);
  }
  attention_kernel<Kernel><<<grid, kThreads, Kernel::kSmemBytes, stream>>>(p);
  err = cudaGetLastError();
  if (err != cudaSuccess) return cuda_error("attention kernel launch", err);
  return Status::Ok();
}

template <int kHeadDim>
Status launch_for_head_dim(DType dtype, const AttentionParams& p, int grid, cudaStream_t stream) {
  if (dtype == DType::kBF16) return launch_kernel<AttentionKernel<kHeadDim, __nv_bfloat16>>(p, grid, stream);
  return launch_kernel<AttentionKernel<kHeadDim, __half>>(p, grid, stream);
}

}  // namespace warpspec::attention_impl
