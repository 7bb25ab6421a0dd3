#pragma once
// Kernel parameters of the attention forward, built on the host
// (src/attention/attention.cpp) and passed by value as a __grid_constant__ parameter
// (the tensor maps must live in parameter, constant or global memory for TMA).
#include <cuda.h>

#include <cstdint>

#include "warpspec/attention/combine_params.hpp"
#include "warpspec/schedule/attention.hpp"

namespace warpspec::attention_impl {

// The "unbounded" window edge: no key is 2^30 or more positions from a query (lengths
// stay below 2^30), and row + (seqlen_k - seqlen_q) ± 2^30 stays inside int32.
inline constexpr int32_t kUnboundedWindow = int32_t(1) << 30;

// One FP8 descale tensor: fp32 (batch, heads_kv), element (b, h) at b·stride_b +
// h·stride_h; data nullptr means 1 (attention/descale.cuh).
struct DescaleView {
  const float* data;
  int64_t stride_b, stride_h;
};

struct AttentionParams {
  // K and V: rank-4 maps over (head_dim, seqlen, heads, batch), innermost first, SW128,
  // boxes of 64 columns (128 bytes) x {block_n} rows. Q and O: rank-5 maps over
  // (head_dim, head in group, seqlen, work head, batch) with boxes {64, g, 128 / g}
  // (Q) and {64, g, 64 / g} (O: one consumer warpgroup's rows), g = 2^pack_shift: a box
  // is g heads x 128/g (64/g) positions, rows position-major (pack_gqa.cuh); without
  // pack-GQA g = 1 and the work head is the query head. A packed (varlen) tensor is one
  // batch of total_q (total_k) rows: its sequences start at cu_seqlens rows.
  CUtensorMap map_q, map_k, map_v, map_o;
  schedule::AttentionScheduler sched;
  int32_t seqlen_q, seqlen_k;  // dense: every sequence's; packed: the total rows
  int32_t head_dim;            // the user's (96 for a padded 96)
  int32_t group;               // work heads per KV head: heads_q / heads_kv, 1 with pack-GQA
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
  // Split-KV (sched.splits() > 1; combine.o_partial null with one split): each work
  // tile writes its fp32 partial O (normalised by its own sums) and partial LSE to
  // combine.o_partial / lse_partial instead of O and LSE (epilogue_partial.cuh), and the
  // splits are merged with `combine` (combine.cuh): in this kernel by the tile's last
  // share when split_counters is non-null (split_combine.cuh: one counter per query tile
  // and consumer warpgroup, zero before the launch and left zero), else by the combine
  // kernel after it.
  int32_t* split_counters;
  CombineParams combine;
  // KV cache (flash_attn_with_kvcache), all read on the device, nullptr when not given:
  // kv_batch_idx (batch,): the cache's batch entry of batch b (cache_batch_idx);
  // leftpad_k (batch,): sequence b's keys start at that cache row (cache_leftpad), its
  // length is seqused_k[b] - leftpad_k[b].
  const int32_t* kv_batch_idx;
  const int32_t* leftpad_k;
  // 1 where none of cu_seqlens_q/k, seqused_q/k, kv_batch_idx and leftpad_k is given:
  // every sequence is the whole dense extent, and SeqInfo::get reads nothing.
  int32_t plain_seqs;
  // Paged KV (kv_source.cuh): K and V are (num_pages, page_size, heads_kv, d) and the
  // key at position j of sequence b is row j % page_size of page
  // page_table[b * page_table_stride + j / page_size]. map_k / map_v then have boxes of
  // page_box_rows rows (a divisor of both block_n and page_size, a multiple of 16):
  // a key block is block_n / page_box_rows boxes, each inside one page.
  const int32_t* page_table;
  int64_t page_table_stride;
  int32_t page_size, page_box_rows, pages_per_seq, num_pages;
  // Pack-GQA (pack_gqa.cuh): the 2^pack_shift query heads of one KV head share a tile;
  // tile row r is query position r >> pack_shift of head (work head << pack_shift) +
  // (r & (2^pack_shift - 1)). 0: off (a work tile is one query head).
  int32_t pack_shift;
  // FP8 (e4m3) kernels only: Q, K and V hold x / descale; the kernel multiplies the
  // score scale by q·k descales per tile and O's row scale by the v descale
  // (design note §4). Indexed by (batch, KV head) also for Q, as FlashAttention-3.
  DescaleView q_descale, k_descale, v_descale;
};

}  // namespace warpspec::attention_impl
