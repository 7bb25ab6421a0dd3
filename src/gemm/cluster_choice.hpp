#pragma once
// The cluster the host picks when the caller leaves it to the library (header-only: the
// host tests call it directly).
//
// Rule (CUTLASS's practice for large GEMMs, not yet measured here: bench/NOTES.md holds
// the prediction and the command that measures it): 2 x 1, the pair of M-neighbouring
// tiles sharing their B tile, for the one kernel built with clusters, when the problem
// runs data-parallel with at least two waves of tiles and more than 64 rows. Why 2 x 1:
// the 128 x 256 tile's B stage (32 KB) is twice its A stage, so sharing B saves each CTA
// 16 KB of its 48 KB per stage from L2, sharing A only 8 KB. Why two waves: a pair is
// a unit of the persistent schedule, so with few tiles the pairs cut the grid's
// parallelism in half-steps (an odd tile count pads a pair) for little reuse.
#include <cstdint>

#include "instances.hpp"
#include "warpspec/gemm/config.hpp"
#include "warpspec/schedule/stream_k.hpp"

namespace warpspec::gemm_impl {

// `cfg`: the kernel the call runs (tile, dtypes, majors, epilogue), any cluster; m: the
// kernel's M; tiles: output tiles of cfg's tile over every batch.
inline ClusterShape choose_cluster(const GemmConfig& cfg, int64_t m, int64_t tiles, schedule::KDecomposition d,
                                   int sms) {
  GemmConfig pair = cfg;
  pair.cluster = ClusterShape{2, 1};
  if (d != schedule::KDecomposition::kDataParallel || m <= 64 || tiles < 2 * int64_t{sms} || !is_built(pair))
    return ClusterShape{1, 1};
  return pair.cluster;
}

}  // namespace warpspec::gemm_impl
