// dequant.hpp's kernel: each element of an e4m3 operand times its scale, in fp32.
#include "dequant.hpp"

#include <cuda_fp8.h>

#include "fill.hpp"  // fill_blocks

namespace warpspec::testbed {

namespace {

__global__ void dequantize_kernel(const __nv_fp8_e4m3* x, E4m3Matrix m, ScaleMap s, bool absolute, float* out) {
  const int64_t n = m.batch * m.rows * m.cols;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t b = i / (m.rows * m.cols), r = i / m.cols % m.rows, c = i % m.cols;
    const float v = float(x[b * m.stride_b + r * m.stride_r + c * m.stride_c]) *
                    s.s[(r / s.block_r) * s.stride_r + (c / s.block_c) * s.stride_c];
    out[i] = absolute ? fabsf(v) : v;
  }
}

}  // namespace

cudaError_t dequantize_e4m3(const E4m3Matrix& m, const ScaleMap& s, bool absolute, float* out, cudaStream_t stream) {
  const int64_t n = m.batch * m.rows * m.cols;
  if (n == 0) return cudaSuccess;
  dequantize_kernel<<<fill_blocks(size_t(n)), 256, 0, stream>>>(static_cast<const __nv_fp8_e4m3*>(m.data), m, s,
                                                                 absolute, out);
  return cudaGetLastError();
}

}  // namespace warpspec::testbed
