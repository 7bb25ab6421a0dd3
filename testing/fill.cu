// The fills of fill.hpp: grid-stride kernels over testing/random.hpp's hashes.
#include "fill.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "random.hpp"

namespace warpspec::testbed {

enum class Distribution { kUniform, kNormalish };

namespace {

template <class T, Distribution kDist>
__global__ void fill_kernel(T* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = T(kDist == Distribution::kUniform ? hash_uniform(seed, i) : hash_normalish(seed, i));
}

template <Distribution kDist>
cudaError_t launch_fill(void* p, DType t, size_t n, uint64_t seed, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const unsigned blocks = fill_blocks(n);
  switch (t) {
    case DType::kBF16: fill_kernel<__nv_bfloat16, kDist><<<blocks, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(p), n, seed); break;
    case DType::kFP16: fill_kernel<__half, kDist><<<blocks, 256, 0, stream>>>(static_cast<__half*>(p), n, seed); break;
    case DType::kFP32: fill_kernel<float, kDist><<<blocks, 256, 0, stream>>>(static_cast<float*>(p), n, seed); break;
    case DType::kE4M3: fill_kernel<__nv_fp8_e4m3, kDist><<<blocks, 256, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(p), n, seed); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

// Scale (r, c) of a rows x cols fp32 tensor, stored at r * stride_r + c * stride_c: a value
// drawn from the logical index r * cols + c, so two layouts filled from one seed hold the same
// scales (padding between columns is not written).
__global__ void fill_scales_kernel(float* p, int64_t rows, int64_t cols, int64_t stride_r, int64_t stride_c,
                                   uint64_t seed) {
  const int64_t n = rows * cols;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    p[(i / cols) * stride_r + (i % cols) * stride_c] = exp2f(2.0f * hash_uniform(seed, uint64_t(i)));
}

}  // namespace

cudaError_t fill_uniform(void* p, DType t, size_t n, uint64_t seed, cudaStream_t stream) {
  return launch_fill<Distribution::kUniform>(p, t, n, seed, stream);
}

cudaError_t fill_normalish(void* p, DType t, size_t n, uint64_t seed, cudaStream_t stream) {
  return launch_fill<Distribution::kNormalish>(p, t, n, seed, stream);
}

cudaError_t fill_scales(float* p, int64_t rows, int64_t cols, int64_t stride_r, int64_t stride_c, uint64_t seed,
                        cudaStream_t stream) {
  if (rows * cols == 0) return cudaSuccess;
  fill_scales_kernel<<<fill_blocks(size_t(rows * cols)), 256, 0, stream>>>(p, rows, cols, stride_r, stride_c, seed);
  return cudaGetLastError();
}

}  // namespace warpspec::testbed
