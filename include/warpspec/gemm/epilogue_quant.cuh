#pragma once
// Output quantisation: the fused epilogue's last step before a chunk's values are rounded
// to D's type (gemm/epilogue_ops.cuh, FusedOp). A type per D type, so a kernel carries
// only its own D's code:
//
//   bf16, fp16, fp32 D  nothing (OutputQuant's primary template is empty);
//   e4m3 D              cuBLASLt's FP8 output, torch._scaled_mm's out_dtype e4m3 with
//                       scale_result: D = e4m3(result_scale · x), rounded to nearest and
//                       saturated to ±448 (NaN stays NaN), where x is the value after the
//                       activation; and amax = max |x| over D's elements, before the
//                       scale (what a delayed-scaling recipe derives the next scale from).
//
// amax: each thread keeps the largest |x| of its in-bounds elements (the tile's padding
// rows and columns are computed but are no part of D) as fp32 bits: for non-negative
// floats the unsigned order is the numeric one, and a NaN (exponent all ones, mantissa
// non-zero) orders above +inf, so one NaN in D makes amax NaN. Once per tile the warp
// reduces (redux.sync) and one lane does atomicMax on the bits; the launch zeroed amax
// before the kernel (src/gemm/gemm.cpp).
#include <cuda_fp8.h>

#include <cstdint>

#include "warpspec/gemm/epilogue_params.hpp"
#include "warpspec/gemm/params.hpp"
#include "warpspec/hopper/arch.cuh"

namespace warpspec::gemm_impl {

template <class TOut>
struct OutputQuant {
  WARPSPEC_DEVICE OutputQuant(const GemmParams&, int64_t /*row0*/) {}
  // v: the chunk's 2·kPairs values (pair k: column pair k/2, row half k&1; two values
  // each); col_ok(k, e): whether column e of pair k is inside D.
  template <int kN, class ColOk>
  WARPSPEC_DEVICE void apply(float (&)[kN], ColOk&&) {}
  WARPSPEC_DEVICE void finish() const {}
};

template <>
struct OutputQuant<__nv_fp8_e4m3> {
  float scale;
  float* amax;
  uint32_t amax_bits = 0;  // the thread's largest |x| so far, as fp32 bits
  bool row_ok[2];          // the thread's rows row0 and row0 + 8 are inside D

  WARPSPEC_DEVICE OutputQuant(const GemmParams& p, int64_t row0)
      : scale(p.epilogue.result_scale != nullptr ? __ldg(p.epilogue.result_scale) : 1.0f), amax(p.epilogue.amax) {
    row_ok[0] = row0 < p.m;
    row_ok[1] = row0 + 8 < p.m;
  }

  template <int kN, class ColOk>
  WARPSPEC_DEVICE void apply(float (&v)[kN], ColOk&& col_ok) {
    // Columns grow with the pair index: the call's last column inside D puts them all inside.
    if (row_ok[0] && row_ok[1] && col_ok(kN / 2 - 1, 1)) {  // every element of D (a tile's interior)
#pragma unroll
      for (int x = 0; x < kN; ++x) {
        amax_bits = max(amax_bits, __float_as_uint(v[x]) & 0x7fffffffu);  // |x|
        v[x] *= scale;
      }
    } else {
#pragma unroll
      for (int x = 0; x < kN; ++x) {
        const int k = x >> 1, e = x & 1;
        if (row_ok[k & 1] && col_ok(k, e)) amax_bits = max(amax_bits, __float_as_uint(v[x]) & 0x7fffffffu);
        v[x] *= scale;
      }
    }
  }

  // Every thread of the warpgroup calls it, once per tile.
  WARPSPEC_DEVICE void finish() const {
    if (amax == nullptr) return;
    const uint32_t warp_max = __reduce_max_sync(0xffffffffu, amax_bits);
    if (threadIdx.x % 32 == 0 && warp_max != 0) atomicMax(reinterpret_cast<unsigned int*>(amax), warp_max);
  }
};

}  // namespace warpspec::gemm_impl
