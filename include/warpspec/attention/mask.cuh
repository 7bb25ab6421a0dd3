#pragma once
// Which keys a query tile reads, and the element mask on the blocks that need one.
//
// Within one sequence, key j is visible to query i iff j < seqlen_k and
//   i + diag - window_left <= j <= i + diag + window_right,   diag = seqlen_k - seqlen_q
// (FlashAttention's sliding window, aligned to the bottom-right corner; causal is
// window_right = 0, an unbounded edge is kUnboundedWindow), and with chunked attention
// j lies in i's chunk: [c, c + chunk), c = floor((i + diag) / chunk) · chunk. A query tile reads the key
// blocks [lo, hi) that hold a key visible to any of its rows; blocks wholly outside
// the window are never loaded. Blocks are processed from the last one down, so the
// blocks that need a mask at the right edge (the seqlen_k tail, the causal diagonal)
// come first and those at the left window edge last.
//
// int32 is enough: lengths < 2^30 and 0 <= window <= 2^30 keep every sum inside it
// (written so that no intermediate passes seqlen_k + window).
//
// Rows are tile rows; with pack-GQA several rows share a query position (pack_gqa.cuh),
// so every comparison with keys goes through PackGqa::position first.
#include "warpspec/attention/config.hpp"
#include "warpspec/attention/pack_gqa.cuh"
#include "warpspec/attention/params.hpp"
#include "warpspec/attention/seqlen.cuh"
#include "warpspec/schedule/split_kv.hpp"
#include "warpspec/hopper/arch.cuh"

namespace warpspec::attention_impl {

// The first key of the chunk holding diagonal position a >= 0 (a multiply and a shift:
// FastDivmod). A row whose position is negative (left of the corner) sees no key at all
// under chunking: its chunk ends at or before key 0. Callers handle that case.
WARPSPEC_DEVICE int chunk_start(const AttentionParams& p, int a) {
  return int(__umulhi(uint32_t(max(a, 0)), p.chunk_mul) >> p.chunk_shift) * p.chunk;
}

struct KeyBlocks {
  int lo = 0, hi = 0;  // key blocks [lo, hi); empty when none of the tile's rows sees a key
  WARPSPEC_DEVICE int count() const { return hi > lo ? hi - lo : 0; }
};

// Split-KV: the share of work tile w (split w.split of sched.splits()) of the tile's
// blocks (schedule/split_kv.hpp). Every role narrows the same way, so the stages pair up.
WARPSPEC_DEVICE KeyBlocks split_share(KeyBlocks kb, const AttentionParams& p, const schedule::AttentionWork& w) {
  const schedule::BlockRange r = schedule::split_blocks(kb.lo, kb.hi, w.split, p.sched.splits());
  return {r.lo, r.hi};
}

// The templates below take the kernel's MaskFeatures (config.hpp: mask_features): pack-GQA's
// row → position mapping, left out where the registers are not there or the configuration
// is lean (the host never packs there); the chunk edges likewise.
// The exclusive end of the keys that the tile rows up to `r_last` see (rows < rows of
// the sequence): the last row's right edge (seqlen_k, the causal diagonal or right
// window edge, its chunk's end). Positions grow with rows, so the last row's is the
// largest; a row past the left corner under chunking sees no key (0).
template <MaskFeatures kF>
WARPSPEC_DEVICE int key_end_of_row(const AttentionParams& p, const SeqInfo& s, int r_last) {
  const int m_last = PackGqa::position<kF.pack_gqa>(p, r_last);
  const int diag = s.seqlen_k - s.seqlen_q;
  // min(seqlen_k, m_last + diag + right + 1) without the sum overflowing: seqlen_k is
  // m_last + diag + (seqlen_q - m_last).
  int key_end = m_last + diag + min(s.seqlen_q - m_last, p.window_right + 1);
  if (kF.chunk && p.chunk > 0) key_end = min(key_end, m_last + diag < 0 ? 0 : chunk_start(p, m_last + diag) + p.chunk);
  return key_end;
}

template <int kBlockM, int kBlockN, MaskFeatures kF>
WARPSPEC_DEVICE KeyBlocks key_blocks(const AttentionParams& p, const SeqInfo& s, int m_block) {
  constexpr bool kPack = kF.pack_gqa;
  const int r0 = m_block * kBlockM;
  const int rows = PackGqa::rows<kPack>(p, s.seqlen_q);
  if (r0 >= rows) return {};
  // The first query position of the tile's rows; the last row's key end.
  const int m0 = PackGqa::position<kPack>(p, r0);
  const int diag = s.seqlen_k - s.seqlen_q;
  const int key_end = key_end_of_row<kF>(p, s, min(r0 + kBlockM, rows) - 1);  // exclusive
  int key_begin = max(0, m0 + diag - p.window_left);
  if (kF.chunk && p.chunk > 0) key_begin = max(key_begin, chunk_start(p, m0 + diag));  // the first row's chunk
  if (key_end <= key_begin) return {};
  return {key_begin / kBlockN, (key_end + kBlockN - 1) / kBlockN};
}

// Chunked attention needs a few more registers in the consumers' loop than the head
// dim 256 kernel has left (it spilled 12-16 bytes however the pass was written), so
// that kernel leaves it out (kF.chunk) and the host refuses attention_chunk there.

// Does key block n hide any key from any row of the tile starting at tile row r0?
template <int kBlockM, int kBlockN, MaskFeatures kF>
WARPSPEC_DEVICE bool block_needs_mask(const AttentionParams& p, const SeqInfo& s, int r0, int n) {
  const int first = n * kBlockN, last = first + kBlockN - 1;
  const int diag = s.seqlen_k - s.seqlen_q;
  // The tile's first and last positions (rows past the sequence only ever widen the
  // test: they are never stored).
  constexpr bool kPack = kF.pack_gqa;
  const int m0 = PackGqa::position<kPack>(p, r0), m_end = PackGqa::position<kPack>(p, r0 + kBlockM - 1);
  if (last >= s.seqlen_k || last > m0 + diag + p.window_right || first < m_end + diag - p.window_left)
    return true;
  // A chunk edge inside the block for some row: the last row's chunk starts after the
  // block's first key, or the first row's chunk ends before its last key.
  return kF.chunk && p.chunk > 0 && (m0 + diag < 0 || first < chunk_start(p, m_end + diag) ||
                         last >= chunk_start(p, m0 + diag) + p.chunk);
}

WARPSPEC_DEVICE int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }  // b > 0
WARPSPEC_DEVICE int ceil_div(int a, int b) { return -floor_div(-a, b); }

// The key blocks of one tile that need the element mask: exactly those block_needs_mask
// names, i.e. n < below (the left window edge, a chunk start) or n >= from (the seqlen_k
// tail, the causal diagonal or right window edge, a chunk end), computed once per tile:
// per block two compares, not the positions and edges again between S's wait and the
// softmax. The head dim 256 consumer has no two registers to hold them across its loop
// (28 bytes of spills), so there it asks block_needs_mask per block, as before.
template <int kBlockM, int kBlockN, MaskFeatures kF, bool kOnce = kF.once>
struct MaskedBlocks {
  int below = 0, from = 0;
  WARPSPEC_DEVICE MaskedBlocks(const AttentionParams& p, const SeqInfo& s, int r0) {
    const int diag = s.seqlen_k - s.seqlen_q;
    constexpr bool kPack = kF.pack_gqa;
    const int m0 = PackGqa::position<kPack>(p, r0), m_end = PackGqa::position<kPack>(p, r0 + kBlockM - 1);
    // last >= seqlen_k or last > m0 + diag + right  <=>  last >= min(seqlen_k, m0 + diag
    // + right + 1) = m0 + diag + min(seqlen_q - m0, right + 1) (no sum passes 2^31), and
    // with last = n kBlockN + kBlockN - 1 that is n >= floor(edge / kBlockN).
    from = floor_div(m0 + diag + min(s.seqlen_q - m0, p.window_right + 1), kBlockN);
    // first < m_end + diag - left  <=>  n < ceil((m_end + diag - left) / kBlockN).
    below = ceil_div(m_end + diag - p.window_left, kBlockN);
    if (kF.chunk && p.chunk > 0) {
      if (m0 + diag < 0) {
        from = 0;  // every block
      } else {
        below = max(below, ceil_div(chunk_start(p, m_end + diag), kBlockN));
        from = min(from, floor_div(chunk_start(p, m0 + diag) + p.chunk, kBlockN));
      }
    }
  }
  WARPSPEC_DEVICE bool needs(int n) const { return n < below || n >= from; }
};

template <int kBlockM, int kBlockN, MaskFeatures kF>
struct MaskedBlocks<kBlockM, kBlockN, kF, false> {
  const AttentionParams& p;
  const SeqInfo& s;
  int r0;
  WARPSPEC_DEVICE MaskedBlocks(const AttentionParams& params, const SeqInfo& seq, int row) : p(params), s(seq), r0(row) {}
  WARPSPEC_DEVICE bool needs(int n) const { return block_needs_mask<kBlockM, kBlockN, kF>(p, s, r0, n); }
};

// Set the hidden scores of key block n to -inf. `s` is one warpgroup's m64 x kBlockN
// accumulator: this thread holds tile rows row0 and row0 + 8 (counted from the
// sequence's first tile; their query positions through PackGqa) and, for register i, column 8(i>>2) + 2(lane%4) + (i&1) of the block
// (HOPPER-FACTS §4).
//
// Row 8 below sees 8 more keys where the diagonal is its right edge for both rows, so
// column c + 8 of the lower row is visible exactly when column c of the upper one is:
// where that holds for the whole warp and no left edge falls in the block (the causal
// diagonal away from a sequence's last rows), one compare serves two scores (17 x 2
// compares for 64 scores at 128 keys, not 2 x 64); elsewhere each score is compared with
// both edges of its own row.
template <int kBlockN, MaskFeatures kF>
WARPSPEC_DEVICE void apply_mask(const AttentionParams& p, const SeqInfo& sq, float (&s)[kBlockN / 2], int n, int row0) {
  const int col0 = n * kBlockN + 2 * (threadIdx.x % 4);
  const int diag = sq.seqlen_k - sq.seqlen_q;
  // Visible local columns [begin, end) of each row in the thread's numbering 8j + e.
  int begin[2], end[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int row = PackGqa::position<kF.pack_gqa>(p, row0 + 8 * h);
    end[h] = row + diag + min(sq.seqlen_q - row, p.window_right + 1) - col0;  // as in key_blocks
    begin[h] = row + diag - p.window_left - col0;
  }
  if (__all_sync(0xffffffffu, end[1] == end[0] + 8 && max(begin[0], begin[1]) <= 0)) {
#pragma unroll
    for (int j = -1; j < kBlockN / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const bool hidden = 8 * j + e >= end[0];  // column 8j + e of row0, 8(j + 1) + e of row0 + 8
        if (j >= 0 && hidden) s[4 * j + e] = -INFINITY;
        if (j + 1 < kBlockN / 8 && hidden) s[4 * (j + 1) + 2 + e] = -INFINITY;
      }
    }
  } else {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
#pragma unroll
      for (int j = 0; j < kBlockN / 8; ++j) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int c = 8 * j + e;
          if (c >= end[h] || c < begin[h]) s[4 * j + 2 * h + e] = -INFINITY;
        }
      }
    }
  }
  if (kF.chunk && p.chunk > 0) {
    // A second pass of its own, so its temporaries never add to the window pass's (the
    // consumers of the large head dims have no registers to spare here).
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      int row = row0 + 8 * h;
      // Opaque to the optimiser: the row's chunk is the same for every block of the tile,
      // and hoisting it out of the consumer's loop would hold it in registers.
      asm volatile("" : "+r"(row));
      const int a = PackGqa::position<kF.pack_gqa>(p, row) + diag;
      const int begin = chunk_start(p, a) - col0;
      const int end = a < 0 ? begin : begin + p.chunk;
#pragma unroll
      for (int j = 0; j < kBlockN / 8; ++j) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int c = 8 * j + e;
          if (c >= end || c < begin) s[4 * j + 2 * h + e] = -INFINITY;
        }
      }
    }
  }
}

}  // namespace warpspec::attention_impl
