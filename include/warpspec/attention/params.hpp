#pragma once
// Kernel parameters of the attention forward, built on the host
// (src/attention/attention.cpp) and passed by value as a __grid_constant__ parameter
// (the tensor maps must live in parameter, constant or global memory for TMA).
#include <cuda.h>

#include <cstdint>

#include "warpspec/schedule/attention.hpp"

namespace warpspec::attention_impl {

// The "unbounded" window edge: no key is 2^30 or more positions from a query (lengths
// stay below 2^30), and row + (seqlen_k - seqlen_q) ± 2^30 stays inside int32.
inline constexpr int32_t kUnboundedWindow = int32_t(1) << 30;

struct AttentionParams {
  // Rank-4 maps over (head_dim, seqlen, heads, batch), innermost first, SW128, boxes
  // of 64 columns (128 bytes) x rows: Q {64, 128}, K and V {64, block_n}, O {64, 64}
  // (one consumer warpgroup's rows). A packed (varlen) tensor is one batch of
  // total_q (total_k) rows: its sequences start at cu_seqlens rows.
  CUtensorMap map_q, map_k, map_v, map_o;
  schedule::AttentionScheduler sched;
  int32_t seqlen_q, seqlen_k;  // dense: every sequence's; packed: the total rows
  int32_t head_dim;            // the user's (96 for a padded 96)
  int32_t group;               // heads_q / heads_kv
  // Key j is visible to query i (both within their sequence) iff j < seqlen_k and
  // i + diag - window_left <= j <= i + diag + window_right, diag = seqlen_k - seqlen_q
  // of that sequence. Causal is window_right = 0; an unbounded edge is
  // kUnboundedWindow.
  int32_t window_left, window_right;
  // Chunked attention (FlashAttention-3's attention_chunk; 0: off): query i also sees
  // only keys of its own chunk, [c, c + chunk) with c = floor((i + diag) / chunk) · chunk.
  int32_t chunk;        // >= 2 (the host turns a chunk of 1 into the window (0, 0))
  uint32_t chunk_mul;   // floor(a / chunk) = umulhi(a, chunk_mul) >> chunk_shift (FastDivmod)
  uint32_t chunk_shift;
  float scale_log2;        // log2(e) · softmax_scale, or log2(e) · softcap with a softcap
  float softcap_prescale;  // softmax_scale / softcap; 0: no softcap
  // Variable length (nullptr: dense). cu_seqlens_*: (batch + 1) row offsets into the
  // packed tensor; seqused_*: (batch) lengths used from each sequence's start.
  const int32_t* cu_seqlens_q;
  const int32_t* cu_seqlens_k;
  const int32_t* seqused_q;
  const int32_t* seqused_k;
  const float* sink;  // (heads_q) learnable sink logits, natural-log units; nullptr: none
  // {next, done}: the dynamic tile scheduler's counters (tile_stream.cuh), zero at
  // launch; nullptr: the static schedule.
  int32_t* tile_counter;
  // Plain views for what TMA does not write: tiles that see no key (zeros), the rows of
  // a packed tile past its sequence, and LSE.
  void* o;
  int64_t o_stride_b, o_stride_s, o_stride_h;  // elements
  float* lse;                                  // nullptr: not requested
  int64_t lse_stride_b, lse_stride_h, lse_stride_s;
};

}  // namespace warpspec::attention_impl
