#pragma once
// Appending new keys and values to a KV cache in place (flash_attn_with_kvcache's k, v),
// with rotary embeddings on the new keys and on q. A small separate kernel ahead of the
// attention: one warp per (batch, token, head) row of k_new, v_new or q.
//
// Token t of batch entry b goes to cache row cache_seqlens[b] + t (counted from row 0,
// the left pad included) of cache entry cache_batch_idx[b] (b without it), or, paged, to
// row r % page_size of page page_table[b][r / page_size]. Rows that fall outside the
// cache (a bad length, index or page) are dropped, never written elsewhere.
// Rotary position of new key t: its row, cache_seqlens[b] + t (a left pad counted, as
// FlashAttention-3); of query t: the same when `q_per_token` (causal or local
// attention), else the first new position for every query token (FlashAttention's
// convention). The host asks for tables as long as the cache; a hostile length on the
// device is clamped to the table's last row, never read past it. Interleaved rotary rotates pairs (2i, 2i+1),
// the GPT-NeoX form pairs (i, i + rotary_dim/2); columns from rotary_dim on are copied.
// Every lane loads its elements and their partners before any lane writes, so q may be
// rotated in place.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "warpspec/attention/kv_append_params.hpp"
#include "warpspec/hopper/arch.cuh"

namespace warpspec::attention_impl {


inline constexpr int kAppendWarps = 4;
inline constexpr int kAppendMaxPerLane = 8;  // head_dim <= 256

template <class T>
__device__ __forceinline__ float to_f(T x) {
  if constexpr (sizeof(T) == 2 && std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(x);
  else return __half2float(x);
}
template <class T>
__device__ __forceinline__ T from_f(float x) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(x);
  else return __float2half_rn(x);
}

// One row: dst[j] = rotary(src)[j] at table row `pos` (no rotary: a copy).
template <class T>
__device__ __forceinline__ void rotate_row(const KvAppendParams& p, const T* src, T* dst, int pos, bool rotary) {
  const int lane = int(threadIdx.x) % 32;
  float x[kAppendMaxPerLane], partner[kAppendMaxPerLane], c[kAppendMaxPerLane], s[kAppendMaxPerLane];
  const int half = p.rotary_dim / 2;
  const T* cs = static_cast<const T*>(p.cos) + int64_t(pos) * p.cos_stride;
  const T* sn = static_cast<const T*>(p.sin) + int64_t(pos) * p.sin_stride;
#pragma unroll
  for (int i = 0; i < kAppendMaxPerLane; ++i) {
    const int j = lane + 32 * i;
    x[i] = partner[i] = 0.f;
    c[i] = 1.f;
    s[i] = 0.f;
    if (j < p.head_dim) {
      x[i] = to_f(src[j]);
      if (rotary && j < p.rotary_dim) {
        int pj, f;
        float sign;
        if (p.interleaved) {
          pj = j ^ 1;
          f = j / 2;
          sign = (j & 1) ? 1.f : -1.f;
        } else {
          pj = j < half ? j + half : j - half;
          f = j < half ? j : j - half;
          sign = j < half ? -1.f : 1.f;
        }
        partner[i] = to_f(src[pj]);
        c[i] = to_f(cs[f]);
        s[i] = sign * to_f(sn[f]);
      }
    }
  }
  __syncwarp();  // every read of src is done (src may be dst)
#pragma unroll
  for (int i = 0; i < kAppendMaxPerLane; ++i) {
    const int j = lane + 32 * i;
    if (j < p.head_dim) dst[j] = from_f<T>(fmaf(x[i], c[i], partner[i] * s[i]));
  }
}

template <class T>
__global__ void __launch_bounds__(32 * kAppendWarps) kv_append_kernel(const __grid_constant__ KvAppendParams p) {
  const int64_t item = int64_t(blockIdx.x) * kAppendWarps + int(threadIdx.x) / 32;
  const int64_t kv_rows = int64_t(p.batch) * p.seqlen_new * p.heads_kv;
  const bool rotary = p.cos != nullptr;
  if (item < 2 * kv_rows) {  // a row of k_new (first half) or v_new
    const bool is_v = item >= kv_rows;
    const int64_t i = is_v ? item - kv_rows : item;
    const int h = int(i % p.heads_kv);
    const int t = int((i / p.heads_kv) % p.seqlen_new);
    const int b = int(i / (int64_t(p.heads_kv) * p.seqlen_new));
    const int32_t len = __ldg(p.cache_seqlens + b);
    const int64_t row = int64_t(len) + t;
    int64_t entry, r;
    if (p.page_table != nullptr) {
      const int64_t logical = row / p.cache_rows;
      if (row < 0 || logical >= p.pages_per_seq) return;
      entry = __ldg(p.page_table + b * p.page_table_stride + logical);
      r = row - logical * p.cache_rows;
    } else {
      entry = p.cache_batch_idx != nullptr ? __ldg(p.cache_batch_idx + b) : b;
      r = row;
    }
    if (entry < 0 || entry >= p.cache_batch || r < 0 || r >= p.cache_rows) return;  // outside the cache: dropped
    if (is_v) {
      const T* src = static_cast<const T*>(p.v_new) + b * p.vn_stride_b + t * p.vn_stride_s + h * p.vn_stride_h;
      T* dst = static_cast<T*>(p.v_cache) + entry * p.vc_stride_b + r * p.vc_stride_s + h * p.vc_stride_h;
      rotate_row<T>(p, src, dst, 0, false);
    } else {
      const int pos = rotary ? min(max(len + t, 0), p.seqlen_ro - 1) : 0;
      const T* src = static_cast<const T*>(p.k_new) + b * p.kn_stride_b + t * p.kn_stride_s + h * p.kn_stride_h;
      T* dst = static_cast<T*>(p.k_cache) + entry * p.kc_stride_b + r * p.kc_stride_s + h * p.kc_stride_h;
      rotate_row<T>(p, src, dst, pos, rotary);
    }
    return;
  }
  if (p.q == nullptr || !rotary) return;
  const int64_t i = item - 2 * kv_rows;
  if (i >= int64_t(p.batch) * p.seqlen_q * p.heads_q) return;
  const int h = int(i % p.heads_q);
  const int t = int((i / p.heads_q) % p.seqlen_q);
  const int b = int(i / (int64_t(p.heads_q) * p.seqlen_q));
  const int pos = min(max(__ldg(p.cache_seqlens + b) + (p.q_per_token ? t : 0), 0), p.seqlen_ro - 1);
  const T* src = static_cast<const T*>(p.q) + b * p.q_stride_b + t * p.q_stride_s + h * p.q_stride_h;
  T* dst = static_cast<T*>(p.q_out) + b * p.qo_stride_b + t * p.qo_stride_s + h * p.qo_stride_h;
  rotate_row<T>(p, src, dst, pos, true);
}

}  // namespace warpspec::attention_impl
