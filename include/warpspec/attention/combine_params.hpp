#pragma once
// Parameters of the split-KV combine kernel (combine.cuh), built on the host by
// attention_forward (num_splits > 1) and attention_combine.
#include <cstdint>

#include "warpspec/tensor.hpp"

namespace warpspec::attention_impl {

// Also the split attention's own: it writes the partials through o_partial / lse_partial
// and their strides (epilogue_partial.cuh), which the merge then reads.
struct CombineParams {
  float* o_partial;  // (splits, batch, rows, heads, head_dim), last dim contiguous
  int64_t op_stride_split, op_stride_b, op_stride_s, op_stride_h;
  float* lse_partial;  // (splits, batch, rows, heads)
  int64_t lp_stride_split, lp_stride_b, lp_stride_s, lp_stride_h;
  void* out;  // (batch, rows, heads, head_dim) of out_dtype, last dim contiguous
  DType out_dtype;
  int64_t o_stride_b, o_stride_s, o_stride_h;
  float* lse;  // (batch, heads, rows) natural log; nullptr: not written
  int64_t lse_stride_b, lse_stride_h, lse_stride_s;
  const float* sink;  // (heads,) natural-log sink logits; nullptr: none
  // Packed or shortened query sequences, as AttentionParams (nullptr: dense).
  const int32_t* cu_seqlens_q;
  const int32_t* seqused_q;
  int32_t total_rows;  // the tensors' row count (clamp for cu_seqlens_q)
  int32_t splits, batch, rows, heads, head_dim;  // rows: per sequence (max_seqlen_q when packed)
};

}  // namespace warpspec::attention_impl
