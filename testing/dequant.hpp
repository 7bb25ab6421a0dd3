#pragma once
// The FP8 GEMM reference's inputs: an e4m3 operand times its scales, in fp32, on the device,
// so an fp32 GEMM of the dequantised operands (cuBLAS) is the reference of a scaled FP8 GEMM
// (`warpspec gemm --dtype e4m3 --check`). With `absolute`, |value|: the GEMM of those gives
// Σ|s·a·b| per element, the size the FP8 tolerance scales with (testing/gemm_check.hpp).
// Each dequantised element is rounded to fp32 once (2^-24 of itself): far below that tolerance.
// The kernel is in dequant.cu (the warpspec_testbed library).
#include <cuda_runtime.h>

#include <cstdint>

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

// `out`: batch x rows x cols fp32, contiguous (row-major per batch entry).
cudaError_t dequantize_e4m3(const E4m3Matrix& m, const ScaleMap& s, bool absolute, float* out,
                            cudaStream_t stream = nullptr);

}  // namespace warpspec::testbed
