#pragma once
// The acceptance rule for GEMM output, shared by the GPU tests and `warpspec gemm --check`
// / the demo. 16-bit inputs are uniform in [-1, 1), so an exact dot product over K has
// standard deviation sqrt(K) / 3; FP8 tolerances scale with each element's Σ|s·a·b|.
#include <cmath>
#include <cstdint>

#include "warpspec/gemm_api.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec::testbed {

// Rounding of one output element relative to its size: the unit roundoff of bf16, fp16 and
// e4m3 (3 mantissa bits: 2^-4; its subnormals, below 2^-6, round to steps of 2^-9: callers
// add that floor); for fp32 output, 2^-20 (fp32 accumulation over K dominates the last bits).
constexpr double gemm_output_eps(DType out) {
  return out == DType::kBF16   ? 1.0 / 256
         : out == DType::kFP16 ? 1.0 / 2048
         : out == DType::kE4M3 ? 1.0 / 16
                               : 1.0 / (1 << 20);
}

// One element whose exact value is `expect`: two units of output rounding, plus fp32
// accumulation over K in another order than the reference's, scaled by the size of the
// terms (alpha times a sum of size sqrt(K)/3, beta times C in [-1, 1)).
inline double gemm_element_tolerance(DType out, int64_t k, double alpha, double beta, double expect) {
  const double scale = std::sqrt(double(k)) / 3.0 * std::fabs(alpha) + std::fabs(beta);
  return 2 * gemm_output_eps(out) * std::fabs(expect) + scale / 4096 + 1e-6;
}

// FP8 inputs (e4m3): every product of two e4m3 values is exact in fp32 (4 x 4 significant
// bits), so the error is the accumulation's. Promoted every 128 K (the default), each 128-K
// block is summed inside the tensor core with reduced precision (DeepSeek-V3 measured ~14
// kept bits, truncated at each of the block's adds) and blocks are added in fp32. A block's
// error reached 3.0e-4 (2^-11.7) of its own Σ|s·a·b| on the H200 (bench/NOTES.md, stop 50:
// 3.1M elements, block scales where one k-block held 99% of the sum); over many comparable
// blocks the errors average out (unit scales: 9.4e-5 of the whole sum), but one block can
// carry all of an element's magnitude, so the bound is the per-block one: 2^-11 of
// Σ|s·a·b| over K. Fast accumulation keeps the tensor core's precision over all of K: 2^-9.
constexpr double fp8_accumulation_eps(bool fast_accum) { return fast_accum ? 1.0 / 512 : 1.0 / 2048; }

// One element of a scaled FP8 GEMM, D = alpha·Σ s·a·b + beta·C, whose exact value is
// `expect`, with `abs_sum` = Σ|s·a·b|: two units of output rounding, the accumulation's
// error (with 20% to spare) scaled by |alpha|, beta·C's fp32 rounding, and a floor of 1e-6.
inline double gemm_fp8_element_tolerance(DType out, bool fast_accum, double alpha, double beta_c, double expect,
                                         double abs_sum) {
  const double accumulation = 1.2 * fp8_accumulation_eps(fast_accum) * std::fabs(alpha) * abs_sum;
  return 2 * gemm_output_eps(out) * std::fabs(expect) + accumulation + std::ldexp(std::fabs(beta_c), -22) + 1e-6;
}

// The fused epilogue's activation in double, as the API defines each (torch's formulas):
// the references of the FP8 tests and of `warpspec gemm --check`.
inline double activate(GemmActivation act, double x) {
  switch (act) {
    case GemmActivation::kReLU: return x < 0 ? 0.0 : x;
    case GemmActivation::kGeluTanh: return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    case GemmActivation::kGeluErf: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case GemmActivation::kSiLU: return x / (1 + std::exp(-x));
    default: return x;
  }
}

// The relative Frobenius error, a summary printed next to the per-element count (alone
// it cannot gate: one wrong row of a large D hardly moves it).
constexpr double gemm_frobenius_tolerance(DType out) {
  return out == DType::kFP32 ? 1e-4 : out == DType::kFP16 ? 2e-3 : out == DType::kE4M3 ? 6e-2 : 1e-2;
}

}  // namespace warpspec::testbed
