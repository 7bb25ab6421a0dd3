#pragma once
// The K decomposition the host picks (header-only: the host tests call it directly).
//
// Cost model, in k-iterations of one CTA (the time of one block_k step of one tile):
//   data-parallel  waves * K, waves = ceil(T / SMs): a ragged last wave costs a full one.
//   split-K (S)    ceil(T*S / SMs) * ceil(K / S) + the fixup: each finaliser reads S-1
//                  partial tiles, each contributor writes one.
//   stream-K       whole data-parallel waves + the streamed share ceil(sk_tiles*K / SMs),
//                  + the fixup of about SMs / sk_tiles contributors per streamed tile.
// A partial tile is 128 KB of fp32 at the widest tile, written or read through L2 by a CTA
// in roughly the time of kFixupCost k-iterations (an estimate, not a measurement yet;
// bench/NOTES.md will carry the measured figure). Anything but data-parallel must beat it
// by kMargin, since it also costs a workspace and launches more CTAs.
#include <cstdint>

#include "warpspec/gemm_api.hpp"
#include "warpspec/schedule/stream_k.hpp"

namespace warpspec::gemm_impl {

struct KChoice {
  schedule::KDecomposition decomposition = schedule::KDecomposition::kDataParallel;
  int splits = 1;
};

inline constexpr double kFixupCost = 3.0;
inline constexpr double kMargin = 0.9;
inline constexpr int kMaxHeuristicSplits = 16;

inline double cost_data_parallel(int64_t tiles, int64_t k, int sms) { return double((tiles + sms - 1) / sms * k); }

inline double cost_split_k(int64_t tiles, int64_t k, int sms, int splits) {
  const int64_t waves = (tiles * splits + sms - 1) / sms;
  return double(waves * ((k + splits - 1) / splits)) + kFixupCost * splits;
}

inline double cost_stream_k(int64_t tiles, int64_t k, int sms) {
  const int64_t sk = schedule::KSplitScheduler::stream_k_tiles(tiles, sms);
  if (sk == 0) return cost_data_parallel(tiles, k, sms);
  const int64_t dp_waves = (tiles - sk) / sms;
  const int64_t peers = (sms + sk - 1) / sk;
  return double(dp_waves * k + (sk * k + sms - 1) / sms) + kFixupCost * double(peers + 1);
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
// one whole wave before it) and keep the rest data-parallel. The cost model above calls the
// gain ~1-3% there, inside kMargin, and it is what the H200 gives where there are 12 waves
// or more and 32 k-iterations a tile or more (bench/NOTES.md v44, bf16, stream-K against
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
  if (split < kMargin * dp && split <= stream) {
    c.decomposition = KDecomposition::kSplitK;
    c.splits = s;
  } else if (stream < kMargin * dp || (stream_tail && stream_the_tail(tiles, k, sms))) {
    c.decomposition = KDecomposition::kStreamK;
  }
  return c;
}

}  // namespace warpspec::gemm_impl
