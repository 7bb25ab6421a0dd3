#pragma once
// Launch of one persistent warp-specialized kernel: opt in to its dynamic shared
// memory (> 48 KB needs cudaFuncAttributeMaxDynamicSharedMemorySize, once per device
// and kernel), launch, and turn launch errors into a Status. Shared by every family.
#include <cuda_runtime.h>

#include <array>
#include <atomic>
#include <string>

#include "warpspec/status.hpp"

namespace warpspec {

// kKernel: the __global__ function (one instantiation of this template per kernel, so
// the opt-in flags are per kernel). `what` names it in errors.
template <auto kKernel, class Params>
Status launch_kernel(const Params& p, int grid, int threads, int smem_bytes, cudaStream_t stream, const char* what) {
  static std::array<std::atomic<bool>, 64> opted{};
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return cuda_error("cudaGetDevice", err);
  if (device >= 64 || !opted[device].load(std::memory_order_acquire)) {
    err = cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
    if (err != cudaSuccess) return cuda_error(std::string("cudaFuncSetAttribute(") + what + " shared memory)", err);
    if (device < 64) opted[device].store(true, std::memory_order_release);
  }
  kKernel<<<grid, threads, smem_bytes, stream>>>(p);
  err = cudaGetLastError();
  if (err != cudaSuccess) return cuda_error(std::string(what) + " kernel launch", err);
  return Status::Ok();
}

}  // namespace warpspec
