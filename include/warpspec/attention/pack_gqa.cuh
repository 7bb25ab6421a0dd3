#pragma once
// Pack-GQA: the g = 2^pack_shift query heads that share one KV head run in one tile, so
// a decode step (seqlen_q 1) fills g rows of the tile instead of one and reads each K/V
// block once per KV head instead of once per query head.
//
// A work tile is then (m_block, KV head, batch) and its block_m rows (64 per consumer
// warpgroup: 128, or 192 at head dim 64) are packed position-major: tile row r (counted
// from the sequence's first tile) is query position r >> pack_shift of query head
// (KV head << pack_shift) + (r & (g - 1)). That is the order the rank-5 Q and O maps lay
// a box down in shared memory ({64 columns, g heads, block_m/g positions}: heads inner),
// so the mainloop is unchanged: only where a row meets a position (masks, the sequence
// bounds) or a head (O, LSE, the sink) does it ask here. With pack_shift 0 every
// function is the identity of the unpacked kernel.
//
// g is a power of two that divides a warpgroup's 64 rows (the host allows 2..16), so a
// tile starts at position m_block · block_m/g and a warpgroup's rows at a whole position.
#include "warpspec/attention/params.hpp"
#include "warpspec/hopper/arch.cuh"

namespace warpspec::attention_impl {

struct PackGqa {
  // The query position (within the sequence) of tile row `row`. kOn false: the
  // unpacked identity, for a kernel that leaves pack-GQA out of its consumer loop
  // (config.hpp: kPackGqaHeadDim; the host never packs there).
  template <bool kOn = true>
  WARPSPEC_DEVICE static int position(const AttentionParams& p, int row) {
    return kOn ? row >> p.pack_shift : row;
  }
  // The query head of tile row `row` of a tile over work head `head`.
  template <bool kOn = true>
  WARPSPEC_DEVICE static int head(const AttentionParams& p, int head, int row) {
    return kOn ? (head << p.pack_shift) + (row & ((1 << p.pack_shift) - 1)) : head;
  }
  // Tile rows of a sequence of `seqlen_q` positions (the host keeps seqlen_q · g below
  // 2^30).
  template <bool kOn = true>
  WARPSPEC_DEVICE static int rows(const AttentionParams& p, int seqlen_q) {
    return kOn ? seqlen_q << p.pack_shift : seqlen_q;
  }
};

}  // namespace warpspec::attention_impl
