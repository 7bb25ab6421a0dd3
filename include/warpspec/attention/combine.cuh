#pragma once
// The split-KV combine (FlashAttention-3's flash_attn_combine): merge `splits` partial
// outputs, each normalised by its own softmax sum, by their log-sum-exps:
//   LSE = log Σ_s exp(LSE_s)   (with a sink: + exp(sink))
//   O   = Σ_s exp(LSE_s − LSE) · O_s
// One warp per output row (batch, row, head): combine_row. Lanes read the splits' LSEs,
// the warp reduces their max and sum with a fixed shuffle tree, and each lane then sums
// its float4 columns over the splits in ascending order: the bits depend on the split
// count and the partials only, never on timing or on which kernel merges.
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
// Splits whose partial O a lane loads at once in combine_row.
inline constexpr int kCombineBatch = 8;

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

// One output row's merge, by one whole warp (`lane`: its lane): row `row` of layout batch
// `batch` (0 when packed: rows are the tensor's) and head `h`. Lane i holds the LSEs of
// splits i, i + 32, ... in registers and hands each split's weight round by a shuffle.
// Called by the combine kernel (a warp per row) and by split-KV's last share of a tile
// (split_combine.cuh): the same function, the same bits. The partials are read from L2
// (ld.global.cg): the last share reads what other CTAs wrote.
__device__ __forceinline__ void combine_row(const CombineParams& p, int64_t batch, int64_t row, int h, int lane) {
  constexpr int kPerLane = schedule::kMaxKvSplits / 32;
  const float* lp = p.lse_partial + batch * p.lp_stride_b + row * p.lp_stride_s + h * p.lp_stride_h;
  float l[kPerLane];
  float mx = -INFINITY;
  bool nan = false;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const int s = lane + 32 * i;
    l[i] = s < p.splits ? __ldcg(lp + s * p.lp_stride_split) : -INFINITY;
    nan = nan || l[i] != l[i];
    mx = fmaxf(mx, l[i]);
  }
  const float sink = p.sink != nullptr ? __ldg(p.sink + h) : -INFINITY;
  mx = fmaxf(warp_max(mx), sink);
  nan = __any_sync(0xffffffffu, nan);
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i)
    if (lane + 32 * i < p.splits) sum += mx == -INFINITY ? 0.0f : expf(l[i] - mx);
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
  float weight[kPerLane];
#pragma unroll
  for (int i = 0; i < kPerLane; ++i)  // −inf: no key in that split, skipped (its O is not read); NaN gives NaN
    weight[i] = l[i] == -INFINITY && !nan ? 0.0f : (mx == -INFINITY ? 0.0f : expf(l[i] - lse));
  if (p.lse != nullptr && lane == 0) p.lse[batch * p.lse_stride_b + h * p.lse_stride_h + row * p.lse_stride_s] = lse;

  const float* op = p.o_partial + batch * p.op_stride_b + row * p.op_stride_s + h * p.op_stride_h;
  const int64_t out_index = batch * p.o_stride_b + row * p.o_stride_s + h * p.o_stride_h;
  for (int c0 = 0; c0 < p.head_dim; c0 += 128) {  // every lane runs every pass: the shuffles need them
    const int col = c0 + 4 * lane;
    const bool mine = col < p.head_dim;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    // Splits s = 32 i + j in ascending order (the bits depend on the split count only);
    // split s's weight is lane j's weight[i], i a constant after unrolling. The loads of
    // kCombineBatch splits are issued before any of them is added: one L2 round trip per
    // batch, not per split (the merge is on the decode step's critical path).
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      if (32 * i >= p.splits) break;
      const int n = min(32, p.splits - 32 * i);
#pragma unroll 1
      for (int j0 = 0; j0 < n; j0 += kCombineBatch) {
        float w[kCombineBatch];
        float4 v[kCombineBatch];
#pragma unroll
        for (int k = 0; k < kCombineBatch; ++k) {
          const float wk = __shfl_sync(0xffffffffu, weight[i], (j0 + k) & 31);
          w[k] = j0 + k < n ? wk : 0.0f;
          v[k] = make_float4(0.f, 0.f, 0.f, 0.f);
          // w == 0: no key in that split (or a vanishing weight): its O is not read.
          if (w[k] != 0.0f && mine)
            v[k] = __ldcg(reinterpret_cast<const float4*>(op + (32 * i + j0 + k) * p.op_stride_split + col));
        }
#pragma unroll
        for (int k = 0; k < kCombineBatch; ++k) {
          if (w[k] == 0.0f) continue;
          acc.x = fmaf(w[k], v[k].x, acc.x);
          acc.y = fmaf(w[k], v[k].y, acc.y);
          acc.z = fmaf(w[k], v[k].z, acc.z);
          acc.w = fmaf(w[k], v[k].w, acc.w);
        }
      }
    }
    if (nan) acc = make_float4(NAN, NAN, NAN, NAN);
    if (mine) store4(p.out, p.out_dtype, out_index + col, acc);
  }
}

}  // namespace warpspec::attention_impl
