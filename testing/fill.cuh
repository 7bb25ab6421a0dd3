#pragma once
// Device fills for inputs (testing/random.hpp's hashes, so the data is reproducible from
// its seed) and the NaN poison for outputs. For tools/ (whose data lives on the device
// only) and the GPU tests.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "poison.hpp"
#include "random.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec::testbed {

enum class Distribution { kUniform, kNormalish };

namespace detail {

template <class T, Distribution kDist>
__global__ void fill_kernel(T* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = T(kDist == Distribution::kUniform ? hash_uniform(seed, i) : hash_normalish(seed, i));
}

template <Distribution kDist>
cudaError_t launch_fill(void* p, DType t, size_t n, uint64_t seed, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  // A grid-stride loop: enough blocks to fill any GPU, few enough to be cheap to launch.
  const unsigned blocks = unsigned(n / 256 + 1 < 2048 ? n / 256 + 1 : 2048);
  switch (t) {
    case DType::kBF16: fill_kernel<__nv_bfloat16, kDist><<<blocks, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(p), n, seed); break;
    case DType::kFP16: fill_kernel<__half, kDist><<<blocks, 256, 0, stream>>>(static_cast<__half*>(p), n, seed); break;
    case DType::kFP32: fill_kernel<float, kDist><<<blocks, 256, 0, stream>>>(static_cast<float*>(p), n, seed); break;
    case DType::kE4M3: fill_kernel<__nv_fp8_e4m3, kDist><<<blocks, 256, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(p), n, seed); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace detail

// n elements of dtype t at p: uniform in [-1, 1) (GEMM operands: products stay O(1)).
inline cudaError_t fill_uniform(void* p, DType t, size_t n, uint64_t seed, cudaStream_t stream = nullptr) {
  return detail::launch_fill<Distribution::kUniform>(p, t, n, seed, stream);
}

// n elements of dtype t at p: bell-shaped with unit variance (attention Q, K, V).
inline cudaError_t fill_normalish(void* p, DType t, size_t n, uint64_t seed, cudaStream_t stream = nullptr) {
  return detail::launch_fill<Distribution::kNormalish>(p, t, n, seed, stream);
}

}  // namespace warpspec::testbed
