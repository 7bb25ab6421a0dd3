#pragma once
// Parameters of the KV-cache append kernel (kv_append.cuh), built by kvcache_append.
#include <cstdint>

namespace warpspec::attention_impl {

struct KvAppendParams {
  void* k_cache;
  void* v_cache;
  int64_t kc_stride_b, kc_stride_s, kc_stride_h;  // elements; b: cache entry or page
  int64_t vc_stride_b, vc_stride_s, vc_stride_h;
  int32_t cache_batch, cache_rows;  // entries (pages) and rows per entry (page_size)
  const void* k_new;
  const void* v_new;
  int64_t kn_stride_b, kn_stride_s, kn_stride_h;
  int64_t vn_stride_b, vn_stride_s, vn_stride_h;
  int32_t seqlen_new, heads_kv;
  const void* q;  // nullptr: q not rotated
  void* q_out;
  int64_t q_stride_b, q_stride_s, q_stride_h;
  int64_t qo_stride_b, qo_stride_s, qo_stride_h;
  int32_t seqlen_q, heads_q;
  const int32_t* cache_seqlens;
  const int32_t* cache_batch_idx;  // nullptr: b
  const int32_t* page_table;       // nullptr: dense
  int64_t page_table_stride;
  int32_t pages_per_seq;
  const void* cos;  // (seqlen_ro, rotary_dim / 2), same dtype; nullptr: no rotary
  const void* sin;
  int64_t cos_stride, sin_stride;
  int32_t seqlen_ro, rotary_dim;
  bool interleaved, q_per_token;
  int32_t batch, head_dim;
};

}  // namespace warpspec::attention_impl
