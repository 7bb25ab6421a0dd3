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
// SMs idle (fewer than 80% of them busy with `tiles` (m_block, head, batch) tiles). Then
// pick the count with the least modelled time, the smallest on a tie: a work tile of s
// splits reads ceil(key_blocks / s) blocks (split_blocks deals whole blocks), a wave of
// the grid costs its longest tile plus about one block for the prologue and the partial
// epilogue, and the combine launch about one more. Evenness matters as much as filling
// the SMs: at 64 key blocks over 8 tiles, 14 splits (112 CTAs) read 5 blocks each where
// 16 (128 CTAs) read 4. Each split keeps at least two blocks (so the pipeline has something
// to overlap); never more than kMaxKvSplits.
inline int split_heuristic(int64_t tiles, int sm_count, int key_blocks) {
  if (tiles <= 0 || sm_count <= 0 || key_blocks < 4) return 1;
  if (tiles * 10 >= int64_t(sm_count) * 8) return 1;  // 80% of the SMs busy: splitting costs more than it gains
  int most = key_blocks / 2;
  if (most > kMaxKvSplits) most = kMaxKvSplits;
  auto cost = [&](int s) {
    const int64_t waves = (tiles * s + sm_count - 1) / sm_count;
    return waves * ((key_blocks + s - 1) / s + 1) + (s > 1 ? 1 : 0);
  };
  int best = 1;
  for (int s = 2; s <= most; ++s)
    if (cost(s) < cost(best)) best = s;
  return best;
}

}  // namespace warpspec::schedule
