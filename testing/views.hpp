#pragma once
// The strided views attention takes, built the one way: Q, K, V, O as (batch, seqlen,
// heads, head_dim) with head_dim contiguous, LSE as (batch, heads, seqlen) floats.
#include <cstdint>

#include "warpspec/tensor.hpp"

namespace warpspec::testbed {

inline TensorView bshd_view(const void* data, DType t, int64_t b, int64_t s, int64_t h, int64_t d, int64_t sb,
                            int64_t ss, int64_t sh) {
  TensorView v;
  v.data = const_cast<void*>(data);
  v.dtype = t;
  v.rank = 4;
  v.shape[0] = b, v.shape[1] = s, v.shape[2] = h, v.shape[3] = d;
  v.stride[0] = sb, v.stride[1] = ss, v.stride[2] = sh, v.stride[3] = 1;
  return v;
}

// Densely packed: the layout FlashAttention and PyTorch's (b, s, h, d) tensors have.
inline TensorView bshd_contiguous(const void* data, DType t, int64_t b, int64_t s, int64_t h, int64_t d) {
  return bshd_view(data, t, b, s, h, d, s * h * d, h * d, d);
}

inline TensorView lse_view(float* data, int64_t b, int64_t h, int64_t s, int64_t sb, int64_t sh, int64_t ss) {
  TensorView v;
  v.data = data;
  v.dtype = DType::kFP32;
  v.rank = 3;
  v.shape[0] = b, v.shape[1] = h, v.shape[2] = s;
  v.stride[0] = sb, v.stride[1] = sh, v.stride[2] = ss;
  return v;
}

inline TensorView lse_contiguous(float* data, int64_t b, int64_t h, int64_t s) {
  return lse_view(data, b, h, s, h * s, s, 1);
}

// A paged cache's block table: (batch, pages_per_seq) int32, row-major.
inline TensorView page_table_view(const void* data, int64_t batch, int64_t pages_per_seq) {
  TensorView v;
  v.data = const_cast<void*>(data);
  v.dtype = DType::kI32;
  v.rank = 2;
  v.shape[0] = batch, v.shape[1] = pages_per_seq;
  v.stride[0] = pages_per_seq, v.stride[1] = 1;
  return v;
}

}  // namespace warpspec::testbed
