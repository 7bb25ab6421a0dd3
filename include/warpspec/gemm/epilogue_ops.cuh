#pragma once
// Epilogue ops: what the epilogue does to the accumulators of one chunk before they are
// rounded to the output type. gemm/epilogue.cuh moves data (chunk buffers, barriers, TMA
// stores) and calls the op of its configuration (GemmConfig::epilogue, a compile-time
// choice because it changes registers and instructions):
//
//   LinearOp  D = alpha · acc + beta · C. The plain kernels: exactly the code they had
//             before fused epilogues existed, no scale, bias or activation work.
//   FusedOp   D = act(alpha · s_row[r] · s_col[c] · acc + bias + beta · C), as cuBLASLt
//             orders its epilogue (bias and beta·C before the activation). s_row and
//             s_col are the dequantisation scales of A's rows and B's columns
//             (tensor-wise: one value each, folded into the row factor). Which scales,
//             bias and activation apply are runtime values (EpilogueOpParams), read on
//             the device, so a captured graph sees their current values; a NaN or Inf
//             in a scale reaches the output as in torch._scaled_mm (0·Inf = NaN too).
//
// An op is constructed once per tile by each consumer thread, then per chunk j:
//   cv = op.chunk_values(j)   — what the chunk needs from global memory, loaded before
//                               the epilogue waits for its buffer, so the loads overlap it;
//   op.write(cv, j, buf, acc, beta, load_c) — the chunk's pairs into the buffer;
// and op.finish() once the tile's chunks are written (FP8 D: the tile's amax).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "warpspec/gemm/config.hpp"
#include "warpspec/gemm/epilogue_params.hpp"
#include "warpspec/gemm/epilogue_quant.cuh"
#include "warpspec/gemm/params.hpp"
#include "warpspec/hopper/arch.cuh"
#include "warpspec/hopper/convert.cuh"
#include "warpspec/hopper/fragment.cuh"
#include "warpspec/hopper/mufu.cuh"
#include "warpspec/hopper/smem.cuh"

namespace warpspec::gemm_impl {

// The shared-memory side of a chunk (what an op is handed): kCols output columns of TOut
// per 128-byte row. A thread holds, per chunk, kColPairs column pairs (tile columns
// 8·c + 2q, +1) of two rows (row0 and row0 + 8: h = 0, 1). kFp16Too (TOut bf16, the FP8
// kernels: config.hpp writes_fp16_too): C and D are bf16 or fp16, EpilogueOpParams::d_fp16
// says which at run time; with_d_type picks the element type once per chunk, so each pass
// over a chunk's pairs converts with one instruction, as a kernel built for that type does.
template <class TOut_, int kCols_, bool kFp16Too = false>
struct EpilogueChunkIo {
  using TOut = TOut_;
  static_assert(!kFp16Too || std::is_same_v<TOut, __nv_bfloat16>, "a 16-bit D of either type is listed as bf16");
  static constexpr int kCols = kCols_;
  static constexpr int kColPairs = kCols / 8;
  static constexpr int kPairs = 2 * kColPairs;  // accumulator pairs per thread per chunk

  // visit(i, addr): pair i of the accumulators (registers i, i+1) of chunk j and its
  // shared address in the chunk buffer at buf_addr.
  template <class Visit>
  WARPSPEC_DEVICE static void for_each_pair(int j, uint32_t buf_addr, Visit&& visit) {
    hopper::for_each_accum_pair_sw128<int(sizeof(TOut)), kCols>(j * kCols, 0,
                                                                [&](int i, uint32_t off) { visit(i, buf_addr + off); });
  }
  // f(T{}) with T the type C and D have (d_fp16: fp16 rather than TOut, where kFp16Too).
  template <class F>
  WARPSPEC_DEVICE static void with_d_type(bool d_fp16, F&& f) {
    if constexpr (kFp16Too) {
      if (d_fp16) {
        f(__half{});
        return;
      }
    }
    f(TOut{});
  }
  // beta·C added to the pair at `addr` (C was TMA-loaded there, in type T).
  template <class T = TOut>
  WARPSPEC_DEVICE static void add_c(uint32_t addr, float beta, float& v0, float& v1) {
    const float2 c = hopper::ld_shared_pair<T>(addr);
    v0 = fmaf(beta, c.x, v0);
    v1 = fmaf(beta, c.y, v1);
  }
  // The pair, rounded to type T, at `addr`.
  template <class T = TOut>
  WARPSPEC_DEVICE static void put(uint32_t addr, float v0, float v1) {
    hopper::st_shared_pair<T>(addr, v0, v1);
  }
};

// ---------------------------------------------------------------------------------------
// D = alpha · acc + beta · C.
template <class Io>
struct LinearOp {
  struct ChunkValues {};
  float alpha;

  WARPSPEC_DEVICE LinearOp(const GemmParams& p, int64_t /*row0*/, int64_t /*col0*/) : alpha(p.alpha) {}
  WARPSPEC_DEVICE ChunkValues chunk_values(int) const { return {}; }

  // Two unrolled walks, so the per-element code has no branch on beta.
  template <int kAcc>
  WARPSPEC_DEVICE void write(ChunkValues, int j, uint32_t buf_addr, const float (&acc)[kAcc], float beta,
                             bool load_c) const {
    if (load_c) {
      Io::for_each_pair(j, buf_addr, [&](int i, uint32_t addr) {
        float v0 = alpha * acc[i], v1 = alpha * acc[i + 1];
        Io::add_c(addr, beta, v0, v1);
        Io::put(addr, v0, v1);
      });
    } else {
      Io::for_each_pair(j, buf_addr, [&](int i, uint32_t addr) { Io::put(addr, alpha * acc[i], alpha * acc[i + 1]); });
    }
  }
  WARPSPEC_DEVICE void finish() const {}
};

// ---------------------------------------------------------------------------------------
// Activations, act(x) = x · gate(x) (ReLU aside). Each is its own functor, so a chunk runs
// only its activation's instructions (one uniform switch per chunk picks it).
//   SiLU, GELU tanh: gate = 1 / (1 + e^-z), z = x · (c1 + c3 · x²), using
//     0.5·(1 + tanh(u)) = sigmoid(2u) for GELU tanh. −log2(e) is folded into c1 and c3, so
//     e^-z is one MUFU ex2 of x · (c1' + c3'·x²) and the gate one MUFU rcp (hopper/mufu.cuh):
//     GELU tanh is FMUL, FFMA, FMUL, ex2, FADD, rcp, FMUL; SiLU FMUL, ex2, FADD, rcp, FMUL.
//     Large |z|: e = 0 gives x, e = +inf gives x · 0 (−0 for finite x; NaN for x = −inf, as
//     torch's formulas give);
//   GELU erf: gate = Φ(x) = 0.5·(1 + erf(x/√2)), erf by Abramowitz & Stegun 7.1.26
//     (absolute error below 1.5e-7, a few fp32 ulps of the output);
//   ReLU: 0 for x < 0, else x (NaN stays NaN, as torch.relu).
// (tanh.approx for the gates would be one MUFU op fewer, but its 2^-11 error is relative
// to tanh, not to 1 + tanh: GELU(−3) = −0.0036 would be off by ~20%.)
inline constexpr double kLog2e = 1.4426950408889634;
struct ActRelu {
  WARPSPEC_DEVICE float operator()(float x) const { return x < 0.0f ? 0.0f : x; }
};
template <int kGeluTanh>
struct ActSigmoidGate {
  WARPSPEC_DEVICE float operator()(float x) const {
    constexpr float c1 = float(-(kGeluTanh ? 1.5957691216057308 : 1.0) * kLog2e);
    constexpr float c3 = float(-0.07135481627159772 * kLog2e);
    const float w = kGeluTanh ? x * fmaf(c3, x * x, c1) : x * c1;
    return x * hopper::rcp_approx(1.0f + hopper::exp2_approx(w));
  }
};
struct ActGeluErf {
  WARPSPEC_DEVICE float operator()(float x) const {
    const float ax = fabsf(x) * 0.70710678118654752f;
    const float e = hopper::exp2_approx(x * x * float(-0.5 * kLog2e));  // e^(-ax²)
    const float r = hopper::rcp_approx(fmaf(0.3275911f, ax, 1.0f));
    const float poly =
        r * fmaf(r, fmaf(r, fmaf(r, fmaf(r, 1.061405429f, -1.453152027f), 1.421413741f), -0.284496736f), 0.254829592f);
    return x * (0.5f + copysignf(0.5f - 0.5f * poly * e, x));
  }
};

// ---------------------------------------------------------------------------------------
// D = act(alpha · s_row · s_col · acc + bias + beta · C), then D's quantisation
// (gemm/epilogue_quant.cuh: nothing, or an e4m3 D's scale and amax).
//
// Per element the linear part is one FFMA (acc · (alpha·s_row) + column bias) where there
// is no column scale and no row bias (16-bit calls, tensor-wise FP8: a uniform branch picks
// it per chunk), else one FMUL, one FADD and one FFMA (acc · (alpha·s_row) · s_col + (row
// bias + column bias)); then beta·C, then the activation's own instructions. The column
// values of a chunk (scale and bias, kColPairs pairs) are loaded once per chunk, not per
// element: the thread's two rows share them. Absent vectors read as 1 and 0; indices are
// clamped into the vector (columns past N are computed but never stored).
//
// NOTES (cost). The first version of this op cost 18% over the plain GEMM for bias +
// GELU(tanh) at 4096x14336x4096: per element it re-read the bias from global memory and
// ran one activation formula for all four activations. On the cooperative schedule the
// epilogue runs with the tensor pipe idle, and fewer instructions did not move it (v50:
// a rolled chunk loop, one FFMA for the linear part). On the ping-pong schedule it runs
// beside the other warpgroup's mainloop, whose wgmma issue its instructions delay: there
// each instruction counts. MUFU ex2/rcp without range fix-ups and the one-FFMA linear part
// (11544 -> 9816 SASS instructions in the bf16 fused kernel) took bias + GELU(tanh) from
// 1.048-1.053 to 1.024-1.025 of the plain GEMM at 4096x14336x4096, 1.024-1.028 to
// 1.011-1.014 at 8192³ (bench/NOTES.md v57); FP8 (cooperative) stays at 1.10 / 1.18.
template <class Io>
struct FusedOp {
  static constexpr int kColPairs = Io::kColPairs;
  struct ChunkValues {
    float2 scale[kColPairs];  // column scale (1 without one)
    float2 bias[kColPairs];   // column bias (0 without one)
  };

  float row_mul[2];   // alpha · row scale (· the tensor-wise column scale)
  float row_bias[2];  // per-row bias, else 0
  const float* col_scale;  // per-column scale, or null
  const void* col_bias;    // per-column bias, or null
  DType bias_dtype;
  Activation act;
  uint32_t col_base;  // kernel column of the tile's column 0, plus 2q (the thread's first)
  uint32_t last_col;  // n - 1: indices are clamped to it
  bool lean_linear;   // no column scale and no row bias: acc · row_mul + column bias
  bool d_fp16;        // C and D fp16 (Io's kFp16Too kernels)
  OutputQuant<typename Io::TOut> quant;

  WARPSPEC_DEVICE FusedOp(const GemmParams& p, int64_t row0, int64_t col0)
      : bias_dtype(p.epilogue.bias_dtype), act(p.epilogue.activation), d_fp16(p.epilogue.d_fp16),
        col_base(uint32_t(col0) + 2 * (threadIdx.x % 4)), last_col(p.n > 0 ? uint32_t(p.n - 1) : 0), quant(p, row0) {
    const EpilogueOpParams& e = p.epilogue;
    float mul = p.alpha;
    if (e.col_scale.data != nullptr && e.col_scale.stride == 0) mul *= e.col_scale.data[0];
    col_scale = e.col_scale.data != nullptr && e.col_scale.stride != 0 ? e.col_scale.data : nullptr;
    col_bias = e.bias != nullptr && !e.bias_per_row ? e.bias : nullptr;
    lean_linear = col_scale == nullptr && !(e.bias != nullptr && e.bias_per_row);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t r = row0 + 8 * h;
      const int64_t rc = r < p.m ? r : (p.m > 0 ? p.m - 1 : 0);
      row_mul[h] = e.row_scale.data != nullptr ? mul * e.row_scale.data[rc * e.row_scale.stride] : mul;
      row_bias[h] = e.bias != nullptr && e.bias_per_row ? bias_at(e.bias, rc) : 0.0f;
    }
  }

  template <class T>
  WARPSPEC_DEVICE void load_col_bias(ChunkValues& cv, int j) const {
#pragma unroll
    for (int c = 0; c < kColPairs; ++c)
      cv.bias[c] = make_float2(hopper::ldg_as_float<T>(col_bias, col_index(j, c, 0)),
                               hopper::ldg_as_float<T>(col_bias, col_index(j, c, 1)));
  }

  WARPSPEC_DEVICE float bias_at(const void* b, int64_t i) const {
    if (bias_dtype == DType::kFP32) return __ldg(static_cast<const float*>(b) + i);
    const unsigned short u = __ldg(static_cast<const unsigned short*>(b) + i);
    return bias_dtype == DType::kBF16 ? hopper::bits_to_float<__nv_bfloat16>(u) : hopper::bits_to_float<__half>(u);
  }

  // The clamped vector index of the thread's column 2·x (+1) of chunk j's pair c.
  WARPSPEC_DEVICE uint32_t col_index(int j, int c, int plus) const {
    const uint32_t col = col_base + uint32_t(j * Io::kCols + 8 * c + plus);
    return col < last_col ? col : last_col;
  }

  // Loaded before the chunk's buffer wait: the latency overlaps the barrier.
  WARPSPEC_DEVICE ChunkValues chunk_values(int j) const {
    ChunkValues cv;
#pragma unroll
    for (int c = 0; c < kColPairs; ++c) cv.scale[c] = cv.bias[c] = make_float2(0.0f, 0.0f);
    if (col_scale != nullptr) {
#pragma unroll
      for (int c = 0; c < kColPairs; ++c)
        cv.scale[c] = make_float2(__ldg(col_scale + col_index(j, c, 0)), __ldg(col_scale + col_index(j, c, 1)));
    } else {
#pragma unroll
      for (int c = 0; c < kColPairs; ++c) cv.scale[c] = make_float2(1.0f, 1.0f);
    }
    if (col_bias != nullptr) {  // one uniform switch: each dtype's loads unrolled on their own
      switch (bias_dtype) {
        case DType::kFP32: load_col_bias<float>(cv, j); break;
        case DType::kBF16: load_col_bias<__nv_bfloat16>(cv, j); break;
        default: load_col_bias<__half>(cv, j); break;
      }
    }
    return cv;
  }

  template <int kAcc>
  WARPSPEC_DEVICE void write(const ChunkValues& cv, int j, uint32_t buf_addr, const float (&acc)[kAcc], float beta,
                             bool load_c) {
    // The chunk's pairs in registers: the linear part, beta·C, the activation, the
    // stores; each an unrolled pass under at most one uniform branch.
    float v[2 * Io::kPairs];
    uint32_t addr[Io::kPairs];
    if (lean_linear) {  // no column scale, no row bias: one FFMA an element
      Io::for_each_pair(j, buf_addr, [&](int i, uint32_t a) {
        const int k = (i >> 1) - j * Io::kPairs;
        const int c = k >> 1, h = k & 1;
        addr[k] = a;
        v[2 * k] = fmaf(acc[i], row_mul[h], cv.bias[c].x);
        v[2 * k + 1] = fmaf(acc[i + 1], row_mul[h], cv.bias[c].y);
      });
    } else {
      Io::for_each_pair(j, buf_addr, [&](int i, uint32_t a) {
        const int k = (i >> 1) - j * Io::kPairs;  // pair index within the chunk: column pair k/2, row half k&1
        const int c = k >> 1, h = k & 1;
        addr[k] = a;
        v[2 * k] = fmaf(acc[i] * row_mul[h], cv.scale[c].x, row_bias[h] + cv.bias[c].x);
        v[2 * k + 1] = fmaf(acc[i + 1] * row_mul[h], cv.scale[c].y, row_bias[h] + cv.bias[c].y);
      });
    }
    if (load_c) {
      Io::with_d_type(d_fp16, [&](auto t) {
#pragma unroll
        for (int k = 0; k < Io::kPairs; ++k) Io::template add_c<decltype(t)>(addr[k], beta, v[2 * k], v[2 * k + 1]);
      });
    }
    switch (act) {
      case Activation::kReLU: apply(ActRelu{}, v); break;
      case Activation::kGeluTanh: apply(ActSigmoidGate<1>{}, v); break;
      case Activation::kGeluErf: apply(ActGeluErf{}, v); break;
      case Activation::kSiLU: apply(ActSigmoidGate<0>{}, v); break;
      default: break;
    }
    quant.apply(v, [&](int k, int e) { return col_base + uint32_t(j * Io::kCols + 8 * (k >> 1) + e) <= last_col; });
    Io::with_d_type(d_fp16, [&](auto t) {
#pragma unroll
      for (int k = 0; k < Io::kPairs; ++k) Io::template put<decltype(t)>(addr[k], v[2 * k], v[2 * k + 1]);
    });
  }

  WARPSPEC_DEVICE void finish() const { quant.finish(); }

  template <class Act>
  WARPSPEC_DEVICE static void apply(Act f, float (&v)[2 * Io::kPairs]) {
#pragma unroll
    for (int x = 0; x < 2 * Io::kPairs; ++x) v[x] = f(v[x]);
  }
};

// The op of a configuration.
template <EpilogueKind kKind, class Io>
using EpilogueOpOf = std::conditional_t<kKind == EpilogueKind::kFused, FusedOp<Io>, LinearOp<Io>>;

}  // namespace warpspec::gemm_impl
