#pragma once
// Where one batch entry's sequences lie: dense (every sequence seqlen long, batch
// entry b at batch coordinate b) or packed (variable length: one batch of total rows,
// sequence b at rows [cu_seqlens[b], cu_seqlens[b+1])), optionally shortened by
// seqused. Q and K/V are packed or not independently. Every role of the kernel
// computes it from the tile's batch index.
//
// The device arrays are the caller's and are not trusted: offsets and lengths are
// clamped into the packed tensor, so a bad cu_seqlens gives a wrong answer for the
// caller's own rows, never an access outside the views (TMA clips at the tensor, the
// plain stores check rows against it).
#include "warpspec/attention/config.hpp"
#include "warpspec/attention/pack_gqa.cuh"
#include "warpspec/attention/params.hpp"
#include "warpspec/hopper/arch.cuh"

namespace warpspec::attention_impl {

struct SeqInfo {
  int32_t q_offset = 0, k_offset = 0;  // first row of the sequence in the tensor
  int32_t seqlen_q = 0, seqlen_k = 0;  // rows of this sequence
  int32_t q_batch = 0, k_batch = 0;    // batch coordinate (0 when packed)

  WARPSPEC_DEVICE static void span(const int32_t* cu, const int32_t* used, int32_t rows, int b, int32_t& offset,
                                   int32_t& length, int32_t& batch) {
    if (cu != nullptr) {
      const int32_t lo = min(max(__ldg(cu + b), 0), rows);
      const int32_t hi = min(max(__ldg(cu + b + 1), lo), rows);
      offset = lo;
      length = hi - lo;
      batch = 0;
    } else {
      offset = 0;
      length = rows;
      batch = b;
    }
    if (used != nullptr) length = min(length, max(__ldg(used + b), 0));
  }

  WARPSPEC_DEVICE static SeqInfo get(const AttentionParams& p, int b) {
    SeqInfo s;
    // Dense calls (the common case) on one branch: the general path's pointer tests and
    // loads are if-converted by ptxas into ~100 predicated instructions, run at every
    // tile boundary by every role (bench/NOTES.md v70).
    if (p.plain_seqs) {
      s.seqlen_q = p.seqlen_q;
      s.seqlen_k = p.seqlen_k;
      s.q_batch = b;
      s.k_batch = b;
      return s;
    }
    span(p.cu_seqlens_q, p.seqused_q, p.seqlen_q, b, s.q_offset, s.seqlen_q, s.q_batch);
    span(p.cu_seqlens_k, p.seqused_k, p.seqlen_k, b, s.k_offset, s.seqlen_k, s.k_batch);
    // KV cache: another cache entry (an index past the cache makes TMA read zeros), and
    // keys that start at a left pad (clamped into the sequence).
    if (p.kv_batch_idx != nullptr) s.k_batch = __ldg(p.kv_batch_idx + b);
    if (p.leftpad_k != nullptr) {
      const int32_t pad = min(max(__ldg(p.leftpad_k + b), 0), s.seqlen_k);
      s.k_offset += pad;
      s.seqlen_k -= pad;
    }
    return s;
  }

  // Packed Q: a tile's rows past its sequence belong to the next one, so its O must
  // not go out as a whole TMA box (dense tensors end at the sequence: TMA clips).
  // m0: the tile's first row (pack_gqa.cuh: rows, not positions).
  template <int kBlockM, bool kPack>
  WARPSPEC_DEVICE bool tile_spills(const AttentionParams& p, int m0) const {
    return p.cu_seqlens_q != nullptr && m0 + kBlockM > PackGqa::rows<kPack>(p, seqlen_q);
  }
};

}  // namespace warpspec::attention_impl
