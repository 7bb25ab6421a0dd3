#pragma once
// A consumer warpgroup's own key blocks within its tile. The tile reads the key blocks
// any of its rows sees (mask.cuh: key_blocks); one warpgroup's 64 rows may see fewer:
// on the causal diagonal (or a right window edge, or a chunk's end) the first warpgroup's
// last row sees up to 64 · (warpgroups − 1) keys fewer than the tile's last row, and rows
// past the end of the sequence see none. Blocks run from the last one down, so the blocks
// a warpgroup does not need are the tile's first `skip`: the warpgroup hands their K and
// V stages back unread, passes its turns on the tensor cores for them, and starts at
// block hi − skip (turns.cuh). At least one block is always computed. That way the
// softmax and epilogue state is built as before, and rows that see no key still come out
// as 0 / −inf through the mask.
//
// At 192-row tiles over 128-key blocks (head dim 64), causal 512 computes 21 warpgroup
// blocks instead of 27. With 64-key blocks under 128-row tiles (head dim 256's short
// calls), every diagonal tile saves its first warpgroup one block.
#include "warpspec/attention/mask.cuh"

namespace warpspec::attention_impl {

template <int kBlockM, int kBlockN, MaskFeatures kF>
struct WarpgroupRows {
  // Where a tile is one key block high (128 rows over 128 keys: head dim 128's short
  // calls, head dim 64's two-warpgroup tiles), the diagonal of a square call never
  // leaves a warpgroup a block to skip, and working the skip out per tile cost 0.5-1%
  // at 512-1k (bench/NOTES.md v37); those kernels leave it out (and with it the rarer
  // skips of rows past the sequence or an offset diagonal). A 64-row tile is one
  // warpgroup's: nothing to skip.
  static constexpr bool kActive = kBlockM > 64 && (kBlockN < kBlockM || kBlockM % kBlockN != 0);

  // How many of tile m_block's first key blocks (of kb, its share: kb.count() >= 1)
  // warpgroup `wg` does not read: 0 to kb.count() − 1.
  WARPSPEC_DEVICE static int skip(const AttentionParams& p, const SeqInfo& sq, const KeyBlocks& kb, int m_block,
                                  int wg) {
    if constexpr (!kActive) {
      return 0;
    } else {
      // The block after the one holding the warpgroup's last row's last visible key (0
      // where all its rows lie past the sequence); no block from there on shows any of
      // its rows a key.
      const int r0 = m_block * kBlockM + 64 * wg;
      const int rows = PackGqa::rows<kF.pack_gqa>(p, sq.seqlen_q);
      const int own_hi = r0 < rows ? (key_end_of_row<kF>(p, sq, min(r0 + 64, rows) - 1) + kBlockN - 1) / kBlockN : 0;
      return max(kb.hi - max(own_hi, kb.lo + 1), 0);
    }
  }
};

}  // namespace warpspec::attention_impl
