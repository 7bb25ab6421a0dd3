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

  // The walk's cursor (UnitWalk): the work index and the CTA.
  struct Cursor {
    int32_t linear = 0, cta = 0;
  };
  // The CTA with linear id `cta` (1-D grid, clusters of consecutive ids) starts at its
  // cluster's index; each next unit is one grid stride (in clusters) on.
  WARPSPEC_HOST_DEVICE Cursor start(int cta) const { return {tiles_.first_index(cta), cta}; }
  WARPSPEC_HOST_DEVICE Cursor after(const KWorkUnit& u) const { return {u.cursor + tiles_.stride(), u.cta}; }
  WARPSPEC_HOST_DEVICE KWorkUnit before(int cta) const {  // after(before(cta)) == start(cta)
    KWorkUnit u;
    u.cursor = tiles_.first_index(cta) - tiles_.stride();
    u.cta = cta;
    return u;
  }
  WARPSPEC_HOST_DEVICE bool valid_at(const Cursor& c) const { return c.linear < tiles_.total_work(); }
  WARPSPEC_HOST_DEVICE KWorkUnit at(const Cursor& c) const {
    return unit(tiles_.get(c.linear, c.cta & (cluster_size() - 1)), c.cta);
  }

  WARPSPEC_HOST_DEVICE KWorkUnit first(int cta) const { return at(start(cta)); }
  // Call only while u.valid.
  WARPSPEC_HOST_DEVICE KWorkUnit next(const KWorkUnit& u) const { return at(after(u)); }

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
