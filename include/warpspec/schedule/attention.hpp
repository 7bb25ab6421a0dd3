#pragma once
// AttentionScheduler: the static persistent scheduler of the attention forward kernel.
//
// A work tile is one block of kBlockM query rows of one (batch, head): (m_block, head,
// batch). The kernel launches G CTAs (one per SM, at most one per tile) and CTA c takes
// work indices c, c+G, c+2G, ... Two orders of the work indices:
//
//   kMFastest (non-causal: every tile costs the same): m_block fastest, then head, then
//     batch. The CTAs running at one time cover few (batch, head) pairs, so their K/V
//     blocks are shared through L2; query heads of one GQA group are adjacent.
//   kLongestFirst (causal: tile m_block reads ~m_block+1 key blocks): m_block from the
//     last (longest) down to 0, slowest; (head, batch) fastest, so long tiles go out
//     first and short ones fill the tail (the longest-processing-time rule) without an
//     atomic counter (no workspace). The work list is dealt in rounds of G tiles,
//     serpentine: in even rounds CTA c takes position c, in odd rounds G-1-c, so the
//     CTA that got the longest tile of one round gets the shortest of the next. A plain
//     stride (c, c+G, ...) gives CTA 0 the longest tile of every round: at hd128 8k
//     causal (64 m-blocks x 32 heads, G 132) its load is 6% above the mean, so the
//     grid idles 6% at the end; serpentine brings that under 0.5% (bench/NOTES.md,
//     Attention, "v2 — serpentine causal schedule ..."). Each round is still one
//     contiguous range of the list, so the CTAs running together share (batch, head)
//     pairs as before.
//
// L2 sections (kLongestFirst, `section` > 0): the (split, batch, head) indices are cut
// into sections of `section` consecutive ones (the last may be shorter), and the list
// runs section by section, each longest first. Without them, the tiles running together
// are one m_block of many heads, and a head's next m_block comes a whole pass over the
// heads later: past L2 when the heads' K/V outgrow it, so every m_block reads its keys
// from DRAM again (hd128 causal 512: 461 MB moved for 268 MB of tensors, 70% of DRAM
// bandwidth for 134 us; bench/NOTES.md v29). A section holds the heads whose K/V fit in
// half of L2. Sections break the serpentine's balance (a round that ends one section and
// starts the next pairs short tiles with long ones), so they are for the dynamic
// schedule (attention/tile_stream.cuh), which balances by itself.
//
// Split-KV (splits > 1): every (m_block, head, batch) tile is `splits` work tiles, each
// over its share of the tile's key blocks (split_kv.hpp); the split index is the slowest
// part of the (batch, head) coordinate, so the CTAs running together at one split are
// neighbouring heads, which share K/V blocks through L2 under GQA.
//
// Usage, kernel side:  for (auto t = s.first(blockIdx.x); t.valid; t = s.next(t)) ...
// Host side: check(args) == nullptr, then AttentionScheduler(args).
#include <cstdint>

#include "warpspec/schedule/fast_divmod.hpp"

namespace warpspec::schedule {

enum class AttentionOrder : int { kMFastest = 0, kLongestFirst = 1 };

struct AttentionSchedulerArguments {
  int tiles_m = 1;  // ceil(seqlen_q / kBlockM)
  int heads = 1;    // query heads
  int batch = 1;
  int grid_size = 1;
  int splits = 1;   // key-range splits per tile (split-KV); 1: none
  AttentionOrder order = AttentionOrder::kMFastest;
  int section = 0;  // kLongestFirst: (split, batch, head) indices per L2 section; 0: one section
};

struct AttentionWork {
  int32_t m_block = 0;
  int32_t head = 0;
  int32_t batch = 0;
  int32_t split = 0;   // which share of the tile's key blocks (0 without split-KV)
  int32_t linear = 0;  // the work index this came from (cta + k * grid)
  bool valid = false;
};

// CTAs to launch: one per SM, never more than there are tiles.
inline int attention_grid_size(int tiles_m, int heads, int batch, int sm_count, int splits = 1) {
  const int64_t tiles = int64_t{tiles_m} * heads * batch * splits;
  int64_t g = sm_count < 1 ? 1 : sm_count;
  if (g > tiles) g = tiles;
  return g < 1 ? 1 : int(g);
}

class AttentionScheduler {
 public:
  using Arguments = AttentionSchedulerArguments;

  // nullptr when `args` can be scheduled, else why not (a static string naming the
  // argument). Work indices (and index + grid) must stay below 2^31 for FastDivmod.
  static const char* check(const Arguments& a) {
    if (a.tiles_m < 1) return "tiles_m: must be >= 1";
    if (a.heads < 1) return "heads: must be >= 1";
    if (a.batch < 1) return "batch: must be >= 1";
    if (a.grid_size < 1) return "grid_size: must be >= 1";
    if (a.splits < 1) return "splits: must be >= 1";
    if (a.order != AttentionOrder::kMFastest && a.order != AttentionOrder::kLongestFirst)
      return "order: must be kMFastest or kLongestFirst";
    if (a.section < 0) return "section: must be >= 0";
    if (a.section > 0 && a.order != AttentionOrder::kLongestFirst) return "section: only with kLongestFirst";
    if (int64_t{a.tiles_m} * a.heads * a.batch * a.splits + a.grid_size > INT32_MAX)
      return "tiles_m * heads * batch * splits: too many tiles (work indices must stay below 2^31)";
    return nullptr;
  }

  AttentionScheduler() = default;

  // Precondition: check(args) == nullptr.
  WARPSPEC_HOST_DEVICE explicit AttentionScheduler(const Arguments& a)
      : tiles_m_(a.tiles_m),
        heads_div_(uint32_t(a.heads)),
        bh_div_(uint32_t(a.heads * a.batch)),
        inner_div_(uint32_t(a.order == AttentionOrder::kLongestFirst ? section_size(a) : a.tiles_m)),
        last_div_(uint32_t(a.order == AttentionOrder::kLongestFirst ? last_section_size(a) : 1)),
        section_div_(uint32_t(a.order == AttentionOrder::kLongestFirst ? section_size(a) * a.tiles_m : 1)),
        full_sections_(uint32_t(a.heads * a.batch * a.splits / section_size(a))),
        grid_div_(uint32_t(a.grid_size)),
        total_(uint32_t(a.tiles_m) * uint32_t(a.heads) * uint32_t(a.batch) * uint32_t(a.splits)),
        stride_(uint32_t(a.grid_size)),
        splits_(a.splits),
        longest_first_(a.order == AttentionOrder::kLongestFirst) {}

  WARPSPEC_HOST_DEVICE int total_tiles() const { return int(total_); }
  WARPSPEC_HOST_DEVICE int grid_size() const { return int(stride_); }
  WARPSPEC_HOST_DEVICE int splits() const { return splits_; }
  // L2 sections of the work list (1: none).
  WARPSPEC_HOST_DEVICE int sections() const {
    return longest_first_ ? int((total_ + section_div_.divisor() - 1) / section_div_.divisor()) : 1;
  }
  WARPSPEC_HOST_DEVICE AttentionOrder order() const {
    return longest_first_ ? AttentionOrder::kLongestFirst : AttentionOrder::kMFastest;
  }

  // Position in the work list of work index `linear` (index = round * G + CTA):
  // kLongestFirst reverses every odd round (serpentine). Only the last round can be
  // partial: some of its CTAs then get a position at or past the end (invalid, so they
  // stop), and every later round lies wholly past it.
  WARPSPEC_HOST_DEVICE uint32_t position(int linear) const {
    if (!longest_first_) return uint32_t(linear);
    uint32_t round, cta;
    grid_div_.divmod(uint32_t(linear), round, cta);
    return (round & 1u) ? round * stride_ + (stride_ - 1u - cta) : uint32_t(linear);
  }

  // The tile at position `pos` of the work list (past the end valid = false,
  // coordinates then meaningless but computed without a branch). A dynamic scheduler
  // hands positions out in order; the static one maps work indices through position().
  WARPSPEC_HOST_DEVICE AttentionWork at(uint32_t pos) const {
    uint32_t outer, inner, split, bh, bh_batch, bh_head;
    if (longest_first_) {
      // inner = (split, batch, head), outer = rank from the longest m_block, within the
      // section; the last section may be shorter (last_div_).
      uint32_t section, rest;
      section_div_.divmod(pos, section, rest);
      (section < full_sections_ ? inner_div_ : last_div_).divmod(rest, outer, inner);
      inner += section * inner_div_.divisor();
    } else {
      inner_div_.divmod(pos, outer, inner);  // inner = m_block, outer = (split, batch, head)
    }
    bh_div_.divmod(longest_first_ ? inner : outer, split, bh);
    heads_div_.divmod(bh, bh_batch, bh_head);
    AttentionWork w;
    w.m_block = longest_first_ ? int32_t(tiles_m_) - 1 - int32_t(outer) : int32_t(inner);
    w.head = int32_t(bh_head);
    w.batch = int32_t(bh_batch);
    w.split = int32_t(split);
    w.linear = int32_t(pos);
    w.valid = pos < total_;
    return w;
  }

  // The tile of work index `linear` (the CTA's k-th tile has index cta + k*G).
  WARPSPEC_HOST_DEVICE AttentionWork get(int linear) const {
    AttentionWork w = at(position(linear));
    w.linear = linear;
    return w;
  }

  // Work tile w's query tile (its index among the tiles of one split): where the shares
  // of one tile meet (split-KV's counters, attention/split_combine.cuh).
  WARPSPEC_HOST_DEVICE int tile_of(const AttentionWork& w) const {
    return (w.batch * int(heads_div_.divisor()) + w.head) * tiles_m_ + w.m_block;
  }

  WARPSPEC_HOST_DEVICE AttentionWork first(int cta) const { return get(cta); }
  // Call only while t.valid (check() keeps index + stride inside int32).
  WARPSPEC_HOST_DEVICE AttentionWork next(const AttentionWork& t) const { return get(t.linear + int(stride_)); }

 private:
  // (split, batch, head) indices per section: all of them without sections.
  WARPSPEC_HOST_DEVICE static int section_size(const Arguments& a) {
    const int all = a.heads * a.batch * a.splits;
    return a.section > 0 && a.section < all ? a.section : all;
  }
  WARPSPEC_HOST_DEVICE static int last_section_size(const Arguments& a) {
    const int all = a.heads * a.batch * a.splits, rest = all % section_size(a);
    return rest > 0 ? rest : section_size(a);
  }

  int32_t tiles_m_ = 1;
  FastDivmod heads_div_{1};
  FastDivmod bh_div_{1};
  FastDivmod inner_div_{1};     // kLongestFirst: the section's size; kMFastest: tiles_m
  FastDivmod last_div_{1};      // the last section's size
  FastDivmod section_div_{1};   // positions per full section
  uint32_t full_sections_ = 0;
  FastDivmod grid_div_{1};
  uint32_t total_ = 1;
  uint32_t stride_ = 1;
  int32_t splits_ = 1;
  bool longest_first_ = false;
};

}  // namespace warpspec::schedule
