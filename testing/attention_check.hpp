#pragma once
// The acceptance rule for attention output, shared by the GPU tests and
// `warpspec attention --check` / the demo: FlashAttention-3's oracle, bounded.
//
// FlashAttention-3 accepts a kernel whose max error against the float32 reference is
// within 2x the error of the same computation done plainly in the input precision
// (testing/attention_reference.hpp, plain_lowp). That yardstick calibrates itself, and
// nothing bounds it: the plain computation rounds the scores to 16 bits, so its error
// grows with the scores' size (scale 1.0 at head dim 128 gives scores near 45, where a
// bf16 ulp is 0.25 and probabilities move by 10% or more), and 2x of it would then pass a
// kernel that is wrong by as much. So the tolerance is also capped by what the kernel's
// own arithmetic can cost, whatever the yardstick says:
//   the kernel rounds each probability P (in [0, 1] after the running max) to 16 bits,
//   relative error <= u, and O to 16 bits, relative error <= u; every other step is fp32.
//   O is a convex combination of V's rows, so |error| <= u * max|V| + u * |O| <= 2u max|V|.
//   fp16 holds P below 2^-14 as a subnormal, absolute error <= 2^-25 each, at most
//   sk * 2^-25 * max|V| in all. The cap is twice that bound.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "convert.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec::testbed {

// Unit roundoff of a 16-bit input dtype: bf16 has 8 significant bits, fp16 11.
constexpr double unit_roundoff(DType t) { return t == DType::kBF16 ? 1.0 / 256 : 1.0 / 2048; }

// The largest error allowed in O: FlashAttention-3's 2x the plain error plus a floor (a
// twentieth of an output ulp at the output's scale), capped by the kernel's own bound.
// FP8 (e4m3 inputs, bf16 O): Q·K of e4m3 values is exact in fp32; P is rounded to e4m3
// (relative 2^-4) and O to bf16 (2^-9) once each; O is a convex combination of V's rows.
// So |O - O_ref| <= (2^-4 + 2^-9) max|v|, plus 2^-10 max|v| for fp32 summation order
// (tests/python/test_attention_fp8.py derives the same bound).
inline double attention_o_tolerance_fp8(double max_v) { return (0.0625 + 1.0 / 512 + 1.0 / 1024) * max_v + 1e-6; }

inline double attention_o_tolerance(DType t, double err_plain, double max_ref, double max_v, int64_t sk) {
  const double u = unit_roundoff(t);
  const double floor = (u / 2) * std::max(1e-2, max_ref) * 0.05 + 1e-6;
  const double subnormal = t == DType::kFP16 ? double(sk) * std::ldexp(1.0, -25) : 0.0;
  const double cap = 2 * (2 * u + subnormal) * max_v + 1e-6;
  return std::min(2 * err_plain + floor, cap);
}

// LSE is fp32 throughout: a relative 1e-3 (plus 1e-3 absolute). A row with no visible key
// has LSE = -inf in both, exactly.
inline bool lse_matches(float got, float want) {
  if (std::isinf(want)) return got == want;
  return std::fabs(double(got) - want) <= 1e-3 * (1.0 + std::fabs(double(want)));
}

struct AttentionErrors {
  double o = 0;        // max |O - ref| over the finite elements of O
  // max |plain - ref|, never below u * max |ref| (u the unit roundoff of O's dtype): the
  // yardstick is never below what rounding the exact answer to O's dtype can cost. On a
  // handful of outputs the plain computation, and the rounding itself, can land nearer by
  // chance (a fuzz case of 8 outputs); tests/python/test_attention.py has the same rule.
  double o_plain = 0;
  double max_ref = 0;  // max |ref|
  int64_t nan = 0;     // elements of O that are NaN (unwritten or computed)
  int64_t first_nan = -1;  // the first one's index in the reference's (b, sq, h, d) order
};

// O (a host image of dtype t, element strides sb, ss, sh for (batch, seqlen, head), head
// dim contiguous) against the fp32 reference and the plain low-precision one, both
// contiguous (b, sq, h, d) floats. `covered`, when given (one byte per element of O's
// image), gets 1 at every element O's view holds, so the caller can check the rest kept
// its poison.
inline AttentionErrors compare_attention_o(DType t, const void* o, int64_t sb, int64_t ss, int64_t sh, int b, int sq,
                                           int h, int d, const float* ref, const float* plain,
                                           uint8_t* covered = nullptr) {
  AttentionErrors e;
  for (int bb = 0; bb < b; ++bb)
    for (int i = 0; i < sq; ++i)
      for (int hh = 0; hh < h; ++hh)
        for (int x = 0; x < d; ++x) {
          const int64_t at = bb * sb + int64_t(i) * ss + hh * sh + x;
          if (covered) covered[at] = 1;
          const size_t r = ((size_t(bb) * sq + i) * h + hh) * d + x;
          const float got = load_float(t, o, size_t(at));
          if (std::isnan(got)) {
            if (e.nan++ == 0) e.first_nan = int64_t(r);
            continue;
          }
          e.o = std::max(e.o, double(std::fabs(got - ref[r])));
          e.o_plain = std::max(e.o_plain, double(std::fabs(plain[r] - ref[r])));
          if (t == DType::kBF16 || t == DType::kFP16)  // rounding's bound, not what it cost here
            e.o_plain = std::max(e.o_plain, unit_roundoff(t) * double(std::fabs(ref[r])));
          e.max_ref = std::max(e.max_ref, double(std::fabs(ref[r])));
        }
  return e;
}

// Largest |x| over n elements of a host image of dtype t (NaN counts as infinite).
inline double max_abs(DType t, const void* data, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) {
    const double x = std::fabs(double(load_float(t, data, i)));
    m = std::isnan(x) ? INFINITY : std::max(m, x);
  }
  return m;
}

}  // namespace warpspec::testbed
