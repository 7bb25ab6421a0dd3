#pragma once
// The FP8 GEMM reference's inputs: an e4m3 operand times its scales, in fp32, on the device,
// so an fp32 GEMM of the dequantised operands (cuBLAS) is the reference of a scaled FP8 GEMM
// (`warpspec gemm --dtype e4m3 --check`). With `absolute`, |value|: the GEMM of those gives
// Σ|s·a·b| per element, the size the FP8 tolerance scales with (testing/gemm_check.hpp).
// Each dequantised element is rounded to fp32 once (2^-24 of itself): far below that tolerance.
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "fill.cuh"  // fill_blocks

namespace warpspec::testbed {

// Where an operand's scales are: element (r, c) of a matrix has the scale at
// s[(r / block_r) * stride_r + (c / block_c) * stride_c] (tools/gemm_scales.hpp's ScaleLayout).
struct ScaleMap {
  const float* s = nullptr;
  int64_t block_r = 1, block_c = 1, stride_r = 0, stride_c = 0;
};

// An operand: `batch` matrices of rows x cols e4m3, element (b, r, c) at
// b * stride_b + r * stride_r + c * stride_c.
struct E4m3Matrix {
  const void* data = nullptr;
  int64_t batch = 1, rows = 0, cols = 0, stride_b = 0, stride_r = 0, stride_c = 0;
};

namespace detail {

// T is __nv_fp8_e4m3 (a template: this header is included by several translation units).
template <class T>
__global__ void dequantize_kernel(const T* x, E4m3Matrix m, ScaleMap s, bool absolute, float* out) {
  const int64_t n = m.batch * m.rows * m.cols;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t b = i / (m.rows * m.cols), r = i / m.cols % m.rows, c = i % m.cols;
    const float v = float(x[b * m.stride_b + r * m.stride_r + c * m.stride_c]) *
                    s.s[(r / s.block_r) * s.stride_r + (c / s.block_c) * s.stride_c];
    out[i] = absolute ? fabsf(v) : v;
  }
}

}  // namespace detail

// `out`: batch x rows x cols fp32, contiguous (row-major per batch entry).
inline cudaError_t dequantize_e4m3(const E4m3Matrix& m, const ScaleMap& s, bool absolute, float* out,
                                   cudaStream_t stream = nullptr) {
  const int64_t n = m.batch * m.rows * m.cols;
  if (n == 0) return cudaSuccess;
  detail::dequantize_kernel<<<detail::fill_blocks(size_t(n)), 256, 0, stream>>>(
      static_cast<const __nv_fp8_e4m3*>(m.data), m, s, absolute, out);
  return cudaGetLastError();
}

}  // namespace warpspec::testbed
