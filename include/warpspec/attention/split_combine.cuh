#pragma once
// Split-KV's merge inside the attention kernel: the last share of a query tile merges it.
//
// Each consumer warpgroup, once it has stored its rows' partial O and LSE for one share
// (epilogue_partial.cuh), counts the share in on a counter of its (query tile,
// warpgroup): every thread fences its stores to GPU scope, the warpgroup syncs, one thread
// adds 1. The warpgroup that brings the count to `splits` is the tile's last: it re-arms
// the counter (0, for the next call on the same workspace) and merges its rows over every
// split with combine_row (combine.cuh), the combine kernel's own function, so the bits
// are the combine kernel's. Its warps take the rows in turn (a decode tile has g valid
// rows: one pass for g <= 4).
//
// Why: the combine kernel after the split attention is a launch and a pass of its own
// (6.4 us in ncu; with PDL about 1 us of a 22 us decode step at batch 1, cache 8192,
// on the H200: bench/NOTES.md v14). The host uses it when the call runs on the
// library's workspace, whose counters are known to be zero (zeroed at allocation,
// re-armed by every call); with a caller's workspace the combine kernel merges
// (src/attention/attention.cpp says why).
// p.split_counters == nullptr: the separate combine kernel merges instead.
#include "warpspec/attention/combine.cuh"
#include "warpspec/attention/config.hpp"
#include "warpspec/attention/pack_gqa.cuh"
#include "warpspec/attention/params.hpp"
#include "warpspec/attention/seqlen.cuh"
#include "warpspec/hopper/warp.cuh"

namespace warpspec::attention_impl {

template <AttentionConfig kCfg>
struct SplitCombine {
  static constexpr bool kPack = packs_gqa(kCfg.shape);
  static constexpr int kBlockM = kCfg.shape.block_m();

  // Counters the host reserves: one per (query tile, consumer warpgroup).
  static constexpr int kCountersPerTile = kCfg.shape.consumers;

  // Warpgroup `wg` (all its threads) after storing work tile w's partials.
  __device__ __forceinline__ static void arrive(const AttentionParams& p, int wg, const schedule::AttentionWork& w,
                                                const SeqInfo& sq) {
    if (p.split_counters == nullptr) return;
    const int row_base = w.m_block * kBlockM + 64 * wg;
    const int rows = min(64, PackGqa::rows<kPack>(p, sq.seqlen_q) - row_base);
    if (rows <= 0) return;  // the same for every share of the tile: its counter is never touched
    const int t = threadIdx.x % hopper::kWarpgroupSize;
    __threadfence();  // this thread's partial stores, visible at GPU scope before the count
    hopper::named_barrier_sync(epilogue_barrier(kCfg.shape.consumers, wg), hopper::kWarpgroupSize);
    bool last = false;
    if (t == 0) {
      int32_t* counter = p.split_counters + int64_t(p.sched.tile_of(w)) * kCountersPerTile + wg;
      last = atomicAdd(counter, 1) == p.sched.splits() - 1;
      if (last) *counter = 0;  // every share has counted: re-armed for the next call
    }
    if (!hopper::named_barrier_sync_or(epilogue_barrier(kCfg.shape.consumers, wg), hopper::kWarpgroupSize, last)) return;
    __threadfence();  // the other shares' partials, seen after their counts
    const int warp = t / 32, lane = t % 32;
#pragma unroll 1
    for (int r = warp; r < rows; r += hopper::kWarpgroupSize / 32) {
      const int row = row_base + r;
      const int pos = PackGqa::position<kPack>(p, row);
      if (pos < sq.seqlen_q)
        combine_row(p.combine, sq.q_batch, int64_t(sq.q_offset) + pos, PackGqa::head<kPack>(p, w.head, row), lane);
    }
  }
};

}  // namespace warpspec::attention_impl
