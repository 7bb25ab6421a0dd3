#pragma once
// What the fused epilogue does to each accumulator besides alpha and beta·C:
// dequantisation scales, a bias and an activation. Runtime values of the fused kernels
// (DESIGN "Growing without thickets", rule 1): which ones apply changes no registers or
// shared memory, so no kernel is instantiated per option; only fused versus plain is a
// compile-time choice (GemmConfig::epilogue). Plain kernels never read these. The device
// side is gemm/epilogue_ops.cuh.
//
// Everything is in the kernel's orientation: its rows are the user's rows of D, or the
// user's columns when a column-major D was computed as Dᵀ = BᵀAᵀ (src/gemm/gemm.cpp
// swaps the row and column vectors then).
#include <cstdint>

#include "warpspec/tensor.hpp"

namespace warpspec::gemm_impl {

// The values of warpspec::GemmActivation.
enum class Activation : int32_t { kNone = 0, kReLU = 1, kGeluTanh = 2, kGeluErf = 3, kSiLU = 4 };

// One fp32 factor per kernel row (or column): element i at data[i * stride]. stride 0
// is a tensor-wise scale (one value, read on the device, so a captured graph picks up a
// new value); data null means 1.
struct ScaleVector {
  const float* data = nullptr;
  int32_t stride = 0;
};

struct EpilogueOpParams {
  ScaleVector row_scale;  // the scale of A's rows (tensor-wise: stride 0)
  ScaleVector col_scale;  // the scale of B's columns
  // Bias: one value per kernel column (bias_per_row false) or row, contiguous, in
  // bias_dtype (bf16, fp16 or fp32); null: none.
  const void* bias = nullptr;
  DType bias_dtype = DType::kFP32;
  bool bias_per_row = false;
  Activation activation = Activation::kNone;
  // An e4m3 D only (gemm/epilogue_quant.cuh): D = e4m3(result_scale · x), x the value
  // after the activation; null: 1. amax, null or one fp32 the launch has zeroed: the
  // largest |x| over D's elements (before result_scale), by atomicMax.
  const float* result_scale = nullptr;
  float* amax = nullptr;
  // A 16-bit D written as fp16 rather than bf16: FP8 kernels with a 16-bit D write either
  // (config.hpp writes_fp16_too); the other kernels have their D type built in.
  bool d_fp16 = false;
};

}  // namespace warpspec::gemm_impl
