#pragma once
// cuBLAS as the GEMM reference (and the benchmark peer): the row-major product
// D = alpha * A·B + beta * D with A, B in either layout. cuBLAS is column-major, and a
// row-major M x N matrix is a column-major N x M one, so it computes D^T = B^T A^T.
#include <cublas_v2.h>

#include <cstdint>

#include "warpspec/tensor.hpp"

namespace warpspec::testbed {

// One operand: a batch of matrices, `row_major` (its columns contiguous) or not, `ld`
// elements between rows (row-major) or columns, `batch_stride` between matrices (0
// broadcasts one over the batch).
struct CublasOperand {
  const void* data = nullptr;
  bool row_major = true;
  int64_t ld = 0;
  int64_t batch_stride = 0;
};

inline cudaDataType cublas_type(DType t) {
  return t == DType::kBF16 ? CUDA_R_16BF : t == DType::kFP16 ? CUDA_R_16F : CUDA_R_32F;
}

// D: contiguous row-major M x N per batch, `out` dtype, read when beta != 0 (in place).
// fp32 compute, the default algorithm.
inline cublasStatus_t cublas_gemm_row_major(cublasHandle_t h, DType in, DType out, int64_t m, int64_t n, int64_t k,
                                            int64_t batch, const CublasOperand& a, const CublasOperand& b, void* d,
                                            float alpha, float beta, cudaStream_t stream = nullptr) {
  cublasStatus_t s = cublasSetStream(h, stream);
  if (s != CUBLAS_STATUS_SUCCESS) return s;
  return cublasGemmStridedBatchedEx(h, b.row_major ? CUBLAS_OP_N : CUBLAS_OP_T, a.row_major ? CUBLAS_OP_N : CUBLAS_OP_T,
                                    int(n), int(m), int(k), &alpha, b.data, cublas_type(in), int(b.ld), b.batch_stride,
                                    a.data, cublas_type(in), int(a.ld), a.batch_stride, &beta, d, cublas_type(out),
                                    int(n), m * n, int(batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

}  // namespace warpspec::testbed
