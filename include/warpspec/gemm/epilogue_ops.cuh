#pragma once
// Epilogue ops: what the epilogue does to the accumulators before they are rounded to
// the output type (gemm/epilogue.cuh calls them; the store code holds no option flags):
//
//   D = act(alpha · s_row[r] · s_col[c] · acc + bias + beta · C)
//
// as cuBLASLt orders its epilogue (bias and beta·C before the activation). s_row and
// s_col are the dequantisation scales of A's rows and B's columns (tensor-wise: one
// value each, folded into the row factor). Scales and biases are read on the device,
// so a captured graph sees their current values, and a NaN or Inf in a scale reaches
// the output as it does in torch._scaled_mm (0·Inf = NaN included).
//
// Build cost is the constraint here: this code is unrolled over every accumulator of
// every GEMM kernel (128 per thread for a 128 x 256 tile), so it is branch-free per
// element. Absent per-column vectors read a constant (stride 0 onto 1 or 0), indices are
// clamped into the vector (columns past N are computed but never stored), the bias dtype
// is a select between three conversions, and every activation is one formula with
// runtime coefficients: x · gate(x), applied under one uniform branch per chunk.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "warpspec/gemm/epilogue_params.hpp"
#include "warpspec/hopper/arch.cuh"

namespace warpspec::gemm_impl {

// What absent vectors point at (stride 0): a scale of 1 and a bias of 0 (as two 16-bit
// halves of an fp32 zero). Internal linkage: one copy per translation unit.
namespace {
__device__ const float kEpilogueOne = 1.0f;
__device__ const uint16_t kEpilogueZero[2] = {0, 0};
}  // namespace

// The gate of activation `act`: act(x) = x · gate(x).
//   sigmoid family (SiLU, GELU tanh): gate = 1 / (1 + e^-z), z = x · (c1 + c3 · x²),
//     using 0.5·(1 + tanh(u)) = sigmoid(2u) for GELU tanh;
//   GELU erf: gate = Φ(x) = 0.5·(1 + erf(x/√2)), erf by Abramowitz & Stegun 7.1.26
//     (absolute error below 1.5e-7, a few fp32 ulps of the output);
//   ReLU: gate = 1 for x >= 0, else the output is 0 (NaN stays NaN, as torch.relu).
struct ActivationCoeffs {
  float c1 = 0, c3 = 0;
  bool erf = false, relu = false;
  WARPSPEC_DEVICE explicit ActivationCoeffs(Activation act)
      : c1(act == Activation::kSiLU ? 1.0f : act == Activation::kGeluTanh ? 1.5957691216057308f : 0.0f),
        c3(act == Activation::kGeluTanh ? 0.07135481627159772f : 0.0f),
        erf(act == Activation::kGeluErf),
        relu(act == Activation::kReLU) {}

  // One ex2 and one reciprocal serve both families: the exponent is -z (sigmoid) or
  // -(x/√2)² (erf), the reciprocal 1/(1 + e^-z) or A&S's t = 1/(1 + p·|x|/√2).
  WARPSPEC_DEVICE float operator()(float x) const {
    const float ax = fabsf(x) * 0.70710678118654752f;
    const float e = __expf(erf ? -ax * ax : -x * fmaf(c3, x * x, c1));
    const float r = __fdividef(1.0f, erf ? fmaf(0.3275911f, ax, 1.0f) : 1.0f + e);
    const float poly =
        r * fmaf(r, fmaf(r, fmaf(r, fmaf(r, 1.061405429f, -1.453152027f), 1.421413741f), -0.284496736f), 0.254829592f);
    const float phi = 0.5f + copysignf(0.5f - 0.5f * poly * e, x);
    const float y = x * (erf ? phi : r);
    return relu ? (x < 0.0f ? 0.0f : x) : y;
  }
};

// One consumer thread's epilogue op for one tile. The thread holds rows row0 and row0 + 8
// (h = 0, 1) of the tile; columns are passed per pair (the tile column, even).
struct EpilogueOp {
  float row_mul[2];   // alpha · row scale (· the tensor-wise column scale)
  float row_bias[2];  // per-row bias, else 0
  const float* col_scale;  // per-column scale (stride 1), or kEpilogueOne (stride 0)
  int64_t col_scale_stride;
  const uint16_t* col_bias;  // per-column bias as 16-bit halves, or kEpilogueZero
  int64_t bias_stride;       // halves per element: 2 (fp32), 1 (16-bit), 0 (none)
  int64_t bias_hi;           // 1 for fp32 (the upper half), 0 for 16-bit
  DType bias_dtype;
  Activation act;
  int64_t col_base;  // kernel column of the tile's column 0
  int64_t last_col;  // n - 1: indices are clamped to it

  WARPSPEC_DEVICE EpilogueOp(const EpilogueOpParams& e, float alpha, int64_t row0, int64_t m, int64_t col0,
                             int64_t n)
      : bias_dtype(e.bias != nullptr ? e.bias_dtype : DType::kFP32), act(e.activation), col_base(col0),
        last_col(n > 0 ? n - 1 : 0) {
    float mul = alpha;
    if (e.col_scale.data != nullptr && e.col_scale.stride == 0) mul *= e.col_scale.data[0];
    const bool col_scaled = e.col_scale.data != nullptr && e.col_scale.stride != 0;
    col_scale = col_scaled ? e.col_scale.data : &kEpilogueOne;
    col_scale_stride = col_scaled ? 1 : 0;
    const bool col_biased = e.bias != nullptr && !e.bias_per_row;
    const int64_t halves = dtype_size(bias_dtype) / 2;
    col_bias = col_biased ? static_cast<const uint16_t*>(e.bias) : kEpilogueZero;
    bias_stride = col_biased ? halves : 0;
    bias_hi = halves - 1;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t r = row0 + 8 * h;
      const int64_t rc = r < m ? r : (m > 0 ? m - 1 : 0);
      float s = mul;
      if (e.row_scale.data != nullptr) s *= e.row_scale.data[rc * e.row_scale.stride];
      row_mul[h] = s;
      row_bias[h] = 0.0f;
      if (e.bias != nullptr && e.bias_per_row)
        row_bias[h] = bias_value(static_cast<const uint16_t*>(e.bias), rc * halves, halves - 1);
    }
  }

  // Bias element at 16-bit index i (its upper half, for fp32, at i + hi) as fp32.
  WARPSPEC_DEVICE float bias_value(const uint16_t* b, int64_t i, int64_t hi) const {
    const uint32_t lo = b[i], up = b[i + hi];
    const float f32 = __uint_as_float((up << 16) | lo);
    const float bf16 = __uint_as_float(lo << 16);
    const float f16 = __half2float(__ushort_as_half(static_cast<unsigned short>(lo)));
    return bias_dtype == DType::kFP32 ? f32 : bias_dtype == DType::kBF16 ? bf16 : f16;
  }

  // The clamped vector index of tile column `col` (columns past N read element N-1).
  WARPSPEC_DEVICE uint32_t col_index(int col) const {
    const uint32_t c = uint32_t(col_base) + uint32_t(col);
    return c < uint32_t(last_col) ? c : uint32_t(last_col);
  }

  // alpha·(row scale)·acc for the pair of row half h.
  WARPSPEC_DEVICE float2 linear(int h, float a0, float a1) const { return make_float2(a0 * row_mul[h], a1 * row_mul[h]); }
  // The column scale of the pair at tile column `col` (even), in its own pass under a
  // uniform branch (has_col_scale), as is the column bias.
  WARPSPEC_DEVICE bool has_col_scale() const { return col_scale_stride != 0; }
  WARPSPEC_DEVICE void scale_cols(int col, float2& v) const {
    v.x *= col_scale[col_index(col)];
    v.y *= col_scale[col_index(col + 1)];
  }
  // The row bias (0 without one): always added, two FADDs.
  WARPSPEC_DEVICE void add_row_bias(int h, float2& v) const {
    v.x += row_bias[h];
    v.y += row_bias[h];
  }
  WARPSPEC_DEVICE bool has_col_bias() const { return bias_stride != 0; }
  WARPSPEC_DEVICE void add_col_bias(int col, float2& v) const {
    v.x += bias_value(col_bias, int64_t(col_index(col)) * bias_stride, bias_hi);
    v.y += bias_value(col_bias, int64_t(col_index(col + 1)) * bias_stride, bias_hi);
  }

  WARPSPEC_DEVICE bool has_activation() const { return act != Activation::kNone; }
  WARPSPEC_DEVICE ActivationCoeffs activation() const { return ActivationCoeffs(act); }
};

}  // namespace warpspec::gemm_impl
