#pragma once
// ClusterUnits: the GEMM's unit walk when the kernel runs in clusters of two CTAs
// (2x1: a pair of M tiles sharing their B tile; 1x2: a pair of N tiles sharing A).
//
// Data-parallel only: every unit is a whole tile, k-iterations [0, k_iters), and final.
// Split-K and stream-K are refused with clusters (KSplitScheduler::check): their units
// differ per CTA in length and their fixup makes CTAs wait on other CTAs' partials,
// while a multicast pair must run the same k-iterations in lock-step.
//
// The walk is PersistentScheduler's cluster walk (schedule/persistent.hpp), which the
// KSplitScheduler built with cluster_m x cluster_n already holds as its tile order:
// cluster k of the grid takes cluster units k, k + G/2, k + G, ... and the CTA of
// cluster rank r the tile at offset r inside the unit. So
//   * both CTAs of a cluster get the two tiles of one pair, in the same order, for the
//     whole run, and the same number of units (the multicast lock-step);
//   * where the tile count along the pair's side is odd, the last pair's second tile
//     lies past the problem: valid, not in_bounds. Its CTA still runs the mainloop
//     (it loads and multicasts its half of the shared operand, which its peer needs;
//     its own operand's boxes are past the edge and TMA zero-fills them) and stores
//     nothing;
//   * every in-bounds tile is handed out exactly once.
//
// KSplitScheduler's own first()/next() index units without clusters: a clustered
// kernel walks with this view instead (gemm/cluster_cast.cuh picks the walk).
//
//   ClusterUnits units(p.sched);   // a KSplitScheduler built with cluster 2x1 or 1x2
//   for (KWorkUnit u = units.first(blockIdx.x); u.valid; u = units.next(u)) ...
#include <cstdint>

#include "warpspec/schedule/persistent.hpp"
#include "warpspec/schedule/stream_k.hpp"

namespace warpspec::schedule {

class ClusterUnits {
 public:
  // `s` must outlive the view (the kernel's is a __grid_constant__ parameter).
  WARPSPEC_HOST_DEVICE explicit ClusterUnits(const KSplitScheduler& s) : tiles_(s.tile_order()), k_iters_(s.k_iters()) {}

  // First unit of the CTA with linear id `cta` (1-D grid, clusters of consecutive ids).
  WARPSPEC_HOST_DEVICE KWorkUnit first(int cta) const { return unit(tiles_.first(cta), cta); }

  // The same CTA's next unit: one grid stride (in clusters) on. Call only while u.valid.
  WARPSPEC_HOST_DEVICE KWorkUnit next(const KWorkUnit& u) const {
    WorkTile t;
    t.linear = u.cursor;
    t.cta_rank = u.cta & (cluster_size() - 1);
    return unit(tiles_.next(t), u.cta);
  }

  WARPSPEC_HOST_DEVICE int cluster_size() const { return tiles_.cluster_m() * tiles_.cluster_n(); }

 private:
  WARPSPEC_HOST_DEVICE KWorkUnit unit(const WorkTile& t, int cta) const {
    KWorkUnit u;
    u.m_block = t.m_block;
    u.n_block = t.n_block;
    u.l = t.l;
    u.tile = t.linear;  // the pair's index: data-parallel units need no workspace slot
    u.k_begin = 0;
    u.k_end = k_iters_;  // final: KSplitScheduler::is_final holds
    u.cursor = t.linear;
    u.cta = cta;
    u.valid = t.valid;
    u.in_bounds = t.in_bounds;
    return u;
  }

  const PersistentScheduler& tiles_;
  int32_t k_iters_;
};

}  // namespace warpspec::schedule
