#pragma once
// The K decomposition the host picks (header-only: the host tests call it directly).
//
// Cost model, in k-iterations of one CTA (the time of one block_k step of one tile):
//   data-parallel  waves * K, waves = ceil(T / SMs): a ragged last wave costs a full one.
//   split-K (S)    ceil(T*S / SMs) * ceil(K / S) + the fixup: each finaliser reads S-1
//                  partial tiles, each contributor writes one.
//   stream-K       every tile streamed (T < 2 SMs: the partial wave and the one before it
//                  are all there is): T*K / SMs at kStreamKEfficiency of data-parallel's
//                  speed, + the fixup of about SMs / T contributors per tile.
// A partial tile is 128 KB of fp32 at the widest tile, written or read through L2 by a CTA
// in roughly the time of kFixupCost k-iterations. Split-K must beat data-parallel by
// kMargin, since it also costs a workspace and launches more CTAs; stream-K's efficiency
// already carries what it costs over data-parallel (measured, below).
//
// Stream-K's efficiency, measured on the H200 (bench/NOTES.md v47, bf16, each launch's
// stream-K against its data-parallel form on the same tile): the streamed work ran at 0.77-0.83
// of data-parallel's speed per k-iteration where every tile was streamed (384x8192x8192 on
// 96 and 192 tiles: stream-K +13% and +14%; 512x14336x4096 and 256x14336x4096 on 224 tiles:
// -8% and -10%), and at ~0.6 where data-parallel waves ran before a streamed tail of two and
// a half waves or fewer (256x28672x8192, 448 tiles, 3.4 waves: -6%), whose ragged last wave
// costs data-parallel less than a whole one: the model streams such launches only through
// the long-run rule (stream_the_tail). Split-K's splits ran at 0.82-0.86 of data-parallel's
// speed per k-iteration (384x8192x8192 on 192 tiles in two splits: +11% over data-parallel
// where the model without it said +29%; 256x28672x8192 on 448 tiles: -7%).
#include <algorithm>
#include <cstdint>

#include "warpspec/gemm_api.hpp"
#include "warpspec/schedule/stream_k.hpp"

namespace warpspec::gemm_impl {

struct KChoice {
  schedule::KDecomposition decomposition = schedule::KDecomposition::kDataParallel;
  int splits = 1;
  double cost = 0;  // the heuristic's: the model's cost of its choice, in k-iterations (else 0)
};

inline constexpr double kFixupCost = 3.0;
inline constexpr double kMargin = 0.9;
inline constexpr double kStreamKEfficiency = 0.8;
inline constexpr double kSplitKEfficiency = 0.85;
inline constexpr int kMaxHeuristicSplits = 16;

inline double cost_data_parallel(int64_t tiles, int64_t k, int sms) { return double((tiles + sms - 1) / sms * k); }

inline double cost_split_k(int64_t tiles, int64_t k, int sms, int splits) {
  const int64_t waves = (tiles * splits + sms - 1) / sms;
  return double(waves * ((k + splits - 1) / splits)) / kSplitKEfficiency + kFixupCost * splits;
}

// Stream-K where every tile is streamed (fewer than two waves, not whole); else
// data-parallel's cost (the model does not stream part of a launch).
inline double cost_stream_k(int64_t tiles, int64_t k, int sms) {
  if (tiles >= 2 * int64_t(sms) || tiles % sms == 0) return cost_data_parallel(tiles, k, sms);
  const int64_t peers = (sms + tiles - 1) / tiles;
  return double(tiles * k) / double(sms) / kStreamKEfficiency + kFixupCost * double(peers);
}

// The heuristic's split count for split-K: the cheapest S in 2..min(16, K), or 1.
inline int best_splits(int64_t tiles, int64_t k, int sms) {
  int best = 1;
  double best_cost = cost_data_parallel(tiles, k, sms);
  for (int s = 2; s <= kMaxHeuristicSplits && s <= k; ++s) {
    const double c = cost_split_k(tiles, k, sms, s);
    if (c < best_cost) best = s, best_cost = c;
  }
  return best;
}

// A long run of whole waves with a ragged last one: stream the tail (the partial wave and
// one whole wave before it) and keep the rest data-parallel. The cost model above leaves
// such launches alone (a gain of 1-3% is inside what it can tell), and it is what the H200
// gives where there are 12 waves or more and 32 k-iterations a tile or more (bench/NOTES.md v44, bf16, stream-K against
// data-parallel head to head in one timing: 8192^3 (15.5 waves) +1.5%, 16384^3 (62.1)
// +0.4%, 4096x14336x4096 (13.6) +0.8%, 4096x28672x8192 (27.2) +3.2%); with fewer waves the
// streamed share is larger and it loses (4096^3, 3.9 waves: -2.5%; 4096x8192x28672, 7.8
// waves: -5.6%), and over a short K it is level (8192x8192x1024, 16 k-iterations: +0.3%).
// Not for FP8: its data-parallel loop runs across tiles (gemm/mma_fp8_carried.cuh), which
// stream-K leaves, and it lost 1-3% there (v42).
inline constexpr int64_t kStreamTailWaves = 12;
inline constexpr int64_t kStreamTailMinK = 32;

inline bool stream_the_tail(int64_t tiles, int64_t k, int sms) {
  return tiles % sms != 0 && tiles / sms >= kStreamTailWaves && k >= kStreamTailMinK;
}

// `request` and `splits` as GemmArgs has them (already validated); k = k-iterations per tile.
// `stream_tail`: stream_the_tail may pick stream-K (16-bit launches).
inline KChoice choose_decomposition(GemmDecomposition request, int splits, int64_t tiles, int64_t k, int sms,
                                    bool stream_tail = false) {
  using schedule::KDecomposition;
  KChoice c;
  if (k == 0 || request == GemmDecomposition::kDataParallel) return c;
  if (request == GemmDecomposition::kSplitK) {
    c.decomposition = KDecomposition::kSplitK;
    c.splits = splits != 0 ? splits : best_splits(tiles, k, sms);
    return c;
  }
  if (request == GemmDecomposition::kStreamK) {
    c.decomposition = KDecomposition::kStreamK;
    return c;
  }
  const double dp = cost_data_parallel(tiles, k, sms);
  const int s = best_splits(tiles, k, sms);
  const double split = s > 1 ? cost_split_k(tiles, k, sms, s) : dp;
  const double stream = cost_stream_k(tiles, k, sms);
  c.cost = dp;
  if (split < kMargin * dp && split <= stream) {
    c.decomposition = KDecomposition::kSplitK;
    c.splits = s;
    c.cost = split;
  } else if (stream < dp || (stream_tail && stream_the_tail(tiles, k, sms))) {
    c.decomposition = KDecomposition::kStreamK;
    c.cost = std::min(stream, dp);  // the long-run rule: within 1-3% of data-parallel
  }
  return c;
}

// The model's cost of the heuristic's choice for `tiles` tiles of `k` k-iterations: what
// the tile heuristic compares across tile widths.
inline double heuristic_cost(int64_t tiles, int64_t k, int sms) {
  return choose_decomposition(GemmDecomposition::kHeuristic, 0, tiles, k, sms).cost;
}

}  // namespace warpspec::gemm_impl
