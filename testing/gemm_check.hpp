#pragma once
// The acceptance rule for GEMM output, shared by the GPU tests and `warpspec gemm --check`
// / the demo. Inputs are uniform in [-1, 1), so an exact dot product over K has standard
// deviation sqrt(K) / 3.
#include <cmath>
#include <cstdint>

#include "warpspec/tensor.hpp"

namespace warpspec::testbed {

// Rounding of one output element relative to its size: the unit roundoff of bf16 and
// fp16; for fp32 output, 2^-20 (fp32 accumulation over K dominates the last bits).
constexpr double gemm_output_eps(DType out) {
  return out == DType::kBF16 ? 1.0 / 256 : out == DType::kFP16 ? 1.0 / 2048 : 1.0 / (1 << 20);
}

// One element whose exact value is `expect`: two units of output rounding, plus fp32
// accumulation over K in another order than the reference's, scaled by the size of the
// terms (alpha times a sum of size sqrt(K)/3, beta times C in [-1, 1)).
inline double gemm_element_tolerance(DType out, int64_t k, double alpha, double beta, double expect) {
  const double scale = std::sqrt(double(k)) / 3.0 * std::fabs(alpha) + std::fabs(beta);
  return 2 * gemm_output_eps(out) * std::fabs(expect) + scale / 4096 + 1e-6;
}

// The relative Frobenius error, a summary printed next to the per-element count (alone
// it cannot gate: one wrong row of a large D hardly moves it).
constexpr double gemm_frobenius_tolerance(DType out) {
  return out == DType::kFP32 ? 1e-4 : out == DType::kFP16 ? 2e-3 : 1e-2;
}

}  // namespace warpspec::testbed
