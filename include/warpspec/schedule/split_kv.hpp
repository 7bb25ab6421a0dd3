#pragma once
// Split-KV (flash-decoding): the key blocks one query tile reads are dealt to `splits`
// work tiles, each of which writes an fp32 partial O (normalised by its own row sums)
// and its partial LSE; a combine kernel merges them in split order. Both halves are
// plain host/device value code, unit-tested on the CPU.
//
// The share of split s is a contiguous range of whole key blocks, fixed by the tile's
// block range and the split count alone, so a fixed num_splits gives the same partials
// and the same combined bits on every run. A split whose share is empty (more splits
// than blocks, or a short sequence under a cache-sized heuristic) sees no key: its
// partial is O = 0 and LSE = −inf, which the combine weighs zero.
#include <cstdint>

#include "warpspec/hopper/host_device.hpp"

namespace warpspec::schedule {

struct BlockRange {
  int lo = 0, hi = 0;  // [lo, hi); empty when hi <= lo
};

// Split s of `splits` of the blocks [lo, hi): ceil(n / splits) blocks each, the last
// ones shorter or empty.
WARPSPEC_HOST_DEVICE BlockRange split_blocks(int lo, int hi, int split, int splits) {
  if (splits <= 1) return {lo, hi};
  const int n = hi > lo ? hi - lo : 0;
  const int per = (n + splits - 1) / splits;
  const int begin = lo + split * per;
  const int end = begin + per < hi ? begin + per : hi;
  return {begin, end > begin ? end : begin};
}

// Most splits one launch takes (the combine reads every split's LSE of a row into
// registers; FlashAttention-3 caps at 128 too, 256 for head dim 64).
inline constexpr int kMaxKvSplits = 128;

// num_splits = 0: how many splits to use. Split only when the grid would otherwise leave
// SMs idle: with `tiles` (m_block, head, batch) tiles and `sm_count` SMs, pick the
// smallest split count whose waves fill the SMs within 5% of the best count, never more
// splits than key blocks (each split keeps at least two blocks, so the pipeline has
// something to overlap) and never more than kMaxKvSplits. A decode step is bound by
// reading K and V, and an idle SM is bandwidth not asked for: at batch 1, 8 KV heads
// (8 tiles) on 132 SMs, 16 splits (128 CTAs) read 1492 GB/s against 14 splits' (112
// CTAs, the old rule's "within 15%") 1437-1456 at an 8192-key cache, level (2904 against
// 2850-2886) at 131072, and more splits lose at both (24: 1252 and 2725; 33: 1277 and
// 2881; H100, bench/NOTES.md stop 60).
inline int split_heuristic(int64_t tiles, int sm_count, int key_blocks) {
  if (tiles <= 0 || sm_count <= 0 || key_blocks < 4) return 1;
  if (tiles * 10 >= int64_t(sm_count) * 8) return 1;  // 80% of the SMs busy: splitting costs more than it gains
  int most = key_blocks / 2;
  if (most > kMaxKvSplits) most = kMaxKvSplits;
  // Efficiency of s splits: the fraction of the last wave's CTAs that do work,
  // (tiles * s) / (ceil(tiles * s / sm) * sm).
  double best = 0;
  for (int s = 1; s <= most; ++s) {
    const int64_t work = tiles * s;
    const int64_t waves = (work + sm_count - 1) / sm_count;
    const double eff = double(work) / double(waves * sm_count);
    if (eff > best) best = eff;
  }
  for (int s = 1; s <= most; ++s) {
    const int64_t work = tiles * s;
    const int64_t waves = (work + sm_count - 1) / sm_count;
    if (double(work) / double(waves * sm_count) >= 0.95 * best) return s;
  }
  return 1;
}

}  // namespace warpspec::schedule
