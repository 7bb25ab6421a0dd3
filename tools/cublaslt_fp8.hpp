#pragma once
// cuBLASLt's FP8 matmul: the peer of `gemm --peer` and `bench gemm` with --dtype e4m3, on
// ours' buffers in the same process. cuBLAS is column-major and takes 8-bit operands only
// "TN" (both K-major), so our row-major D = A·B (A row-major, B column-major: both K-major)
// is its Dᵀ = Bᵀ·Aᵀ: its A is our B and its B our A, and so are the scales.
//   tensor: A_SCALE_POINTER / B_SCALE_POINTER (SCALAR_32F);
//   row:    OUTER_VEC_32F for both (its A's vector has our N elements, its B's our M);
//   block:  BLK128x128_32F for its A (our B), VEC128_32F for its B (our A), in the layouts of
//           tools/gemm_scales.hpp (scale_a_layout, peer_scale_b_layout).
// --fast-accum sets CUBLASLT_MATMUL_DESC_FAST_ACCUM. Where this cuBLASLt has no algorithm for
// the combination (its heuristic says so, or it refuses an attribute), the peer is
// unavailable and the commands print "n/a" with the reason, never a number. Where it has one
// but reads the scales otherwise than meant (Transformer Engine pads M and N to multiples of
// 8 for the block modes, an "observed" rule), `gemm --check --peer` shows it: the peer's D is
// checked against the same reference as ours.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

#include "gemm_scales.hpp"
#include "warpspec/warpspec.hpp"

namespace warpspec::tools {

struct LtFp8Problem {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  DType out = DType::kBF16;
  float alpha = 1.0f, beta = 0.0f;
  ScaleMode scale = ScaleMode::kTensor;
  bool fast_accum = false;
  const float* scale_a = nullptr;  // our A's scales (scale_a_layout)
  const float* scale_b = nullptr;  // our B's, as cuBLASLt reads them (peer_scale_b_layout)
  // An e4m3 D: D_SCALE_POINTER and AMAX_D_POINTER (cuBLASLt then takes a bf16 C layout).
  const float* scale_d = nullptr;
  float* amax = nullptr;
};

class CublasLtFp8 {
 public:
  // Creates the handle, descriptors and a workspace, and asks the heuristic for an algorithm.
  explicit CublasLtFp8(const LtFp8Problem& p);
  ~CublasLtFp8();
  CublasLtFp8(const CublasLtFp8&) = delete;
  CublasLtFp8& operator=(const CublasLtFp8&) = delete;

  // An error while setting up (a failed allocation or handle), not "no algorithm".
  const Status& status() const;
  // Empty when cuBLASLt runs the problem, else why not (for "n/a").
  const std::string& unavailable() const;
  // D = alpha · s_a · s_b · A·B + beta · D, in place (D holds C when beta != 0): A a batch of
  // M x K row-major, B of K x N column-major, D of M x N row-major, each contiguous.
  Status run(const void* a, const void* b, void* d, cudaStream_t stream) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpspec::tools
