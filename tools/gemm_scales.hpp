#pragma once
// FP8 scales in the program (`gemm` / `bench gemm --dtype e4m3 --scaling tensor|row|block`):
// where scale_a and scale_b live in memory, for ours and for the peer (cuBLASLt) where its
// layout differs. Header-only and CUDA-free, so the host tests hold the layouts against the
// library's rules.
//
//   tensor: one fp32 each.
//   row:    scale_a (M, 1), one per row of A; scale_b (1, N), one per column of B; both
//           contiguous. cuBLASLt's OUTER_VEC_32F vectors (M and N elements) are the same memory.
//   block:  scale_a (M, ceil(K/128)) M-contiguous, each column padded to a multiple of 4 floats
//           (16 bytes): DeepGEMM's TMA-aligned layout, and cuBLASLt's VEC128_32F one, whose
//           scales run along the outer dimension (PyTorch's _scaled_mm asks strides (1, M),
//           Transformer Engine pads M to 4). scale_b (ceil(K/128), ceil(N/128)) row-major for
//           ours; cuBLASLt's BLK128x128_32F wants the K blocks contiguous, each column padded to
//           a multiple of 4 (its size rule: roundup(ceil(K/128), 4) x ceil(N/128)), so the peer
//           reads its own copy of the same values (filled from the same seed, outside any timing).
#include <algorithm>
#include <cstdint>
#include <string>

#include "warpspec/tensor.hpp"

namespace warpspec::tools {

// kNone: 16-bit inputs, no scales.
enum class ScaleMode { kNone, kTensor, kRow, kBlock };

inline const char* scale_mode_name(ScaleMode s) {
  return s == ScaleMode::kTensor ? "tensor" : s == ScaleMode::kRow ? "row" : s == ScaleMode::kBlock ? "block" : "none";
}

// "tensor", "row", "block"; false if unknown.
inline bool parse_scale_mode(const std::string& s, ScaleMode* out) {
  for (ScaleMode m : {ScaleMode::kTensor, ScaleMode::kRow, ScaleMode::kBlock})
    if (s == scale_mode_name(m)) return *out = m, true;
  return false;
}

// K (and, for B, N) elements per block scale: DeepSeek-V3's 1 x 128 and 128 x 128 blocks.
inline constexpr int64_t kScaleBlock = 128;

inline int64_t ceil_div(int64_t x, int64_t y) { return (x + y - 1) / y; }
// 16 bytes of fp32: TMA's alignment of a leading dimension, and cuBLASLt's.
inline int64_t pad_to_16_bytes(int64_t floats) { return ceil_div(floats, 4) * 4; }

// A scale tensor over an operand of rows x cols (A: M x K, B: K x N): its shape and strides
// in elements, and how many operand rows and columns one of its elements covers, so operand
// element (r, c) has the scale at (r / block_r) * stride_r + (c / block_c) * stride_c.
struct ScaleLayout {
  int64_t rows = 1, cols = 1;
  int64_t stride_r = 1, stride_c = 1;
  int64_t block_r = 1, block_c = 1;

  // Floats to allocate: up to the last element (padding between columns included).
  int64_t elements() const {
    return (std::max<int64_t>(rows, 1) - 1) * stride_r + (std::max<int64_t>(cols, 1) - 1) * stride_c + 1;
  }
  TensorView view(const float* data) const {
    TensorView v;
    v.data = const_cast<float*>(data);
    v.dtype = DType::kFP32;
    v.rank = 2;
    v.shape[0] = rows, v.shape[1] = cols;
    v.stride[0] = stride_r, v.stride[1] = stride_c;
    return v;
  }
};

// scale_a over A (M x K).
inline ScaleLayout scale_a_layout(ScaleMode s, int64_t m, int64_t k) {
  ScaleLayout l;
  l.block_r = std::max<int64_t>(m, 1), l.block_c = std::max<int64_t>(k, 1);  // tensor: one covers all
  if (s == ScaleMode::kRow) l.rows = m, l.block_r = 1;
  if (s == ScaleMode::kBlock) {
    l.rows = m, l.cols = ceil_div(k, kScaleBlock);
    l.stride_r = 1, l.stride_c = pad_to_16_bytes(m);
    l.block_r = 1, l.block_c = kScaleBlock;
  }
  return l;
}

// scale_b over B (K x N), as ours reads it.
inline ScaleLayout scale_b_layout(ScaleMode s, int64_t k, int64_t n) {
  ScaleLayout l;
  l.block_r = std::max<int64_t>(k, 1), l.block_c = std::max<int64_t>(n, 1);
  if (s == ScaleMode::kRow) l.cols = n, l.stride_r = n, l.block_c = 1;
  if (s == ScaleMode::kBlock) {
    l.rows = ceil_div(k, kScaleBlock), l.cols = ceil_div(n, kScaleBlock);
    l.stride_r = l.cols, l.stride_c = 1;
    l.block_r = l.block_c = kScaleBlock;
  }
  return l;
}

// scale_b as cuBLASLt reads it: the same as ours but for block scales (K blocks contiguous).
inline ScaleLayout peer_scale_b_layout(ScaleMode s, int64_t k, int64_t n) {
  ScaleLayout l = scale_b_layout(s, k, n);
  if (s == ScaleMode::kBlock) l.stride_r = 1, l.stride_c = pad_to_16_bytes(l.rows);
  return l;
}

inline bool same_layout(const ScaleLayout& x, const ScaleLayout& y) {
  return x.rows == y.rows && x.cols == y.cols && x.stride_r == y.stride_r && x.stride_c == y.stride_c;
}

}  // namespace warpspec::tools
