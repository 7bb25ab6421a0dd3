#pragma once
// Kernel parameters of the attention forward, built on the host
// (src/attention/attention.cpp) and passed by value as a __grid_constant__ parameter
// (the tensor maps must live in parameter, constant or global memory for TMA).
#include <cuda.h>

#include <cstdint>

#include "warpspec/schedule/attention.hpp"

namespace warpspec::attention_impl {

struct AttentionParams {
  // Rank-4 maps over (head_dim, seqlen, heads, batch), innermost first, SW128, boxes
  // of 64 columns (128 bytes) x rows: Q {64, 128}, K and V {64, block_n}, O {64, 64}
  // (one consumer warpgroup's rows).
  CUtensorMap map_q, map_k, map_v, map_o;
  schedule::AttentionScheduler sched;
  int32_t seqlen_q, seqlen_k;
  int32_t head_dim;    // the user's (96 for a padded 96)
  int32_t group;       // heads_q / heads_kv
  int32_t causal;      // 0 / 1
  float scale_log2;    // softmax_scale * log2(e)
  // Plain views for what TMA does not write: tiles that see no key (zeros) and LSE.
  void* o;
  int64_t o_stride_b, o_stride_s, o_stride_h;  // elements
  float* lse;                                  // nullptr: not requested
  int64_t lse_stride_b, lse_stride_h, lse_stride_s;
};

}  // namespace warpspec::attention_impl
