#pragma once
// Where a K or V block comes from: the producer thread asks KvSource for the TMA boxes
// of one block, dense or paged. The consumers never know the difference.
//
// Dense: kCols boxes of {kBoxCols columns, block_n rows} at the block's tensor row
// (kBoxCols: one swizzle span of elements, operands.hpp).
// Paged (AttentionParams::page_table): K and V are (num_pages, page_size, heads_kv, d),
// and the maps' boxes are page_box_rows rows, a multiple of 16 that divides block_n and
// page_size, so every box lies inside one page: a block is block_n / page_box_rows boxes
// per column, each at (row within its page, page) looked up in the sequence's page table.
// TMA rather than cp.async gathers: the SW128 tile lands exactly as the dense path's (a
// box of 16k rows starts on a 1024-byte swizzle period), the producer stays one thread
// with 24 registers, and the bytes still complete on the stage's one barrier.
// A box whose first key is past the sequence, or whose page lies past the sequence's
// page table, is loaded from page num_pages: wholly out of bounds, so TMA zero-fills it
// (and still counts its bytes) without reading memory. Page indices are the caller's and
// not trusted: one outside [0, num_pages) reads zeros, never outside the cache.
#include "warpspec/attention/params.hpp"
#include "warpspec/hopper/arch.cuh"
#include "warpspec/hopper/tma.cuh"

namespace warpspec::attention_impl {

template <class T, int kBlockN, int kCols, int kBoxCols>
struct KvSource {
  // The boxes of one block of kBlockN keys starting at sequence position `key0` (dense:
  // tensor row `row`, batch coordinate `batch`) into `dst`, completing on `bar`.
  __device__ __forceinline__ static void load(const AttentionParams& p, const CUtensorMap* map, uint64_t* bar, T* dst,
                                              int row, int key0, int seqlen_k, int head_kv, int batch, int b) {
    if (p.page_table == nullptr) {
#pragma unroll
      for (int c = 0; c < kCols; ++c) hopper::tma_load(dst + c * kBlockN * kBoxCols, map, bar, c * kBoxCols, row, head_kv, batch);
      return;
    }
    const int32_t* table = p.page_table + b * p.page_table_stride;
#pragma unroll 1
    for (int r0 = 0; r0 < kBlockN; r0 += p.page_box_rows) {
      const int key = key0 + r0;
      const int logical = key / p.page_size;
      int page = p.num_pages;  // out of bounds: zeros
      if (key < seqlen_k && logical < p.pages_per_seq) page = __ldg(table + logical);
      const int in_page = key - logical * p.page_size;
#pragma unroll
      for (int c = 0; c < kCols; ++c)
        hopper::tma_load(dst + c * kBlockN * kBoxCols + r0 * kBoxCols, map, bar, c * kBoxCols, in_page, head_kv, page);
    }
  }
};

}  // namespace warpspec::attention_impl
