#pragma once
// Which keys a query tile reads, and the element mask on the blocks that need one.
//
// Key j is visible to query i iff j < seqlen_k and, when causal, j <= i + seqlen_k -
// seqlen_q (bottom-right aligned, FlashAttention-2/3; HOPPER-FACTS §9). A query tile
// reads key blocks [0, n_block_count): every block past the last visible key of its
// last row is skipped. Blocks are processed from the last one down, so the blocks that
// need a mask (the seqlen_k tail, the causal diagonal) come first.
#include "warpspec/attention/config.hpp"
#include "warpspec/attention/params.hpp"
#include "warpspec/hopper/arch.cuh"

namespace warpspec::attention_impl {

// Key blocks query tile `m_block` reads; 0 when none of its rows sees a key.
template <int kBlockN>
WARPSPEC_DEVICE int n_block_count(const AttentionParams& p, int m_block) {
  int hi = p.seqlen_k;
  if (p.causal) hi = min(hi, (m_block + 1) * kBlockM + p.seqlen_k - p.seqlen_q);
  return hi <= 0 ? 0 : (hi + kBlockN - 1) / kBlockN;
}

// Does key block n hide any key from any row of the tile starting at row m0?
template <int kBlockN>
WARPSPEC_DEVICE bool block_needs_mask(const AttentionParams& p, int m0, int n) {
  const int end = (n + 1) * kBlockN;  // one past the block's last key
  return end > p.seqlen_k || (p.causal && end - 1 > m0 + p.seqlen_k - p.seqlen_q);
}

// Set the hidden scores of key block n to -inf. `s` is one warpgroup's m64 x kBlockN
// accumulator: this thread holds rows row0 and row0 + 8 (global query indices) and,
// for register i, column 8(i>>2) + 2(lane%4) + (i&1) of the block (HOPPER-FACTS §4).
template <int kBlockN>
WARPSPEC_DEVICE void apply_mask(const AttentionParams& p, float (&s)[kBlockN / 2], int n, int row0) {
  const int col0 = n * kBlockN + 2 * (threadIdx.x % 4);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    int limit = p.seqlen_k;  // exclusive
    if (p.causal) limit = min(limit, row0 + 8 * h + 1 + p.seqlen_k - p.seqlen_q);
    limit -= col0;  // in the thread's local column numbering 8j + e
#pragma unroll
    for (int j = 0; j < kBlockN / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        if (8 * j + e >= limit) s[4 * j + 2 * h + e] = -INFINITY;
      }
    }
  }
}

}  // namespace warpspec::attention_impl
