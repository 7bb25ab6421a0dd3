#pragma once
// The split-KV combine (FlashAttention-3's flash_attn_combine): merge `splits` partial
// outputs, each normalised by its own softmax sum, by their log-sum-exps:
//   LSE = log Σ_s exp(LSE_s)   (with a sink: + exp(sink))
//   O   = Σ_s exp(LSE_s − LSE) · O_s
// One warp per output row (batch, row, head). Lanes read the splits' LSEs, the warp
// reduces their max and sum with a fixed shuffle tree, and each lane then sums its
// float4 columns over the splits in ascending order: the bits depend on the split count
// and the partials only, never on timing.
//
// Rows the attention wrote no partial for are skipped: past a packed or seqused
// sequence's end (SeqInfo::span, the same clamping as the attention kernel).
// A split with LSE = −inf saw no key: its O is not read (weight zero). A NaN LSE makes
// the row's LSE and O NaN (as OnlineSoftmax::finalize: NaN is never "no key"); every
// split −inf and no sink gives O = 0 and LSE = −inf.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

#include "warpspec/attention/combine_params.hpp"
#include "warpspec/attention/seqlen.cuh"
#include "warpspec/hopper/arch.cuh"
#include "warpspec/hopper/cluster.cuh"
#include "warpspec/hopper/convert.cuh"
#include "warpspec/schedule/split_kv.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec::attention_impl {


inline constexpr int kCombineWarps = 4;

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ void store4(void* out, DType dtype, int64_t index, float4 v) {
  if (dtype == DType::kFP32) {
    *reinterpret_cast<float4*>(static_cast<float*>(out) + index) = v;
  } else if (dtype == DType::kBF16) {
    *reinterpret_cast<uint2*>(static_cast<__nv_bfloat16*>(out) + index) =
        make_uint2(hopper::pack2<__nv_bfloat16>(v.x, v.y), hopper::pack2<__nv_bfloat16>(v.z, v.w));
  } else {
    *reinterpret_cast<uint2*>(static_cast<__half*>(out) + index) =
        make_uint2(hopper::pack2<__half>(v.x, v.y), hopper::pack2<__half>(v.z, v.w));
  }
}

__global__ void __launch_bounds__(32 * kCombineWarps) attention_combine_kernel(const __grid_constant__ CombineParams p) {
  __shared__ float weight[kCombineWarps][schedule::kMaxKvSplits];
  // Launched as a programmatic dependent of the split attention: wait until it has
  // completed and its partials are visible (at once without that launch attribute).
  hopper::griddep_wait();
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int64_t item = int64_t(blockIdx.x) * kCombineWarps + warp;  // (batch, row, head), head fastest
  if (item >= int64_t(p.batch) * p.rows * p.heads) return;
  const int h = int(item % p.heads);
  const int r = int((item / p.heads) % p.rows);
  const int b = int(item / (int64_t(p.heads) * p.rows));
  int32_t offset, length, batch;
  SeqInfo::span(p.cu_seqlens_q, p.seqused_q, p.total_rows, b, offset, length, batch);
  if (r >= length) return;
  const int64_t row = int64_t(offset) + r;

  const float* lp = p.lse_partial + batch * p.lp_stride_b + row * p.lp_stride_s + h * p.lp_stride_h;
  float mx = -INFINITY;
  bool nan = false;
  for (int s = lane; s < p.splits; s += 32) {
    const float l = lp[s * p.lp_stride_split];
    weight[warp][s] = l;
    nan = nan || l != l;
    mx = fmaxf(mx, l);
  }
  const float sink = p.sink != nullptr ? __ldg(p.sink + h) : -INFINITY;
  mx = fmaxf(warp_max(mx), sink);
  nan = __any_sync(0xffffffffu, nan);
  __syncwarp();
  float sum = 0.0f;
  for (int s = lane; s < p.splits; s += 32) sum += mx == -INFINITY ? 0.0f : expf(weight[warp][s] - mx);
  sum = warp_sum(sum);
  float lse;
  if (nan) {
    lse = NAN;
  } else if (mx == -INFINITY) {
    lse = -INFINITY;  // no split saw a key and there is no sink
  } else {
    if (sink != -INFINITY) sum += expf(sink - mx);
    lse = mx + logf(sum);
  }
  __syncwarp();
  for (int s = lane; s < p.splits; s += 32) {
    const float l = weight[warp][s];
    // −inf: no key in that split, skipped (its O is not read); a NaN LSE gives NaN.
    weight[warp][s] = l == -INFINITY && !nan ? 0.0f : (mx == -INFINITY ? 0.0f : expf(l - lse));
  }
  __syncwarp();
  if (p.lse != nullptr && lane == 0) p.lse[batch * p.lse_stride_b + h * p.lse_stride_h + row * p.lse_stride_s] = lse;

  const float* op = p.o_partial + batch * p.op_stride_b + row * p.op_stride_s + h * p.op_stride_h;
  const int64_t out_index = batch * p.o_stride_b + row * p.o_stride_s + h * p.o_stride_h;
  for (int col = 4 * lane; col < p.head_dim; col += 128) {
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int s = 0; s < p.splits; ++s) {
      const float w = weight[warp][s];
      if (w == 0.0f) continue;  // no key (or a vanishing weight): nothing to add
      const float4 v = *reinterpret_cast<const float4*>(op + s * p.op_stride_split + col);
      acc.x = fmaf(w, v.x, acc.x);
      acc.y = fmaf(w, v.y, acc.y);
      acc.z = fmaf(w, v.z, acc.z);
      acc.w = fmaf(w, v.w, acc.w);
    }
    if (nan) acc = make_float4(NAN, NAN, NAN, NAN);
    store4(p.out, p.out_dtype, out_index + col, acc);
  }
}

}  // namespace warpspec::attention_impl
