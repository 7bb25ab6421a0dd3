#pragma once
// PersistentScheduler: the static persistent tile scheduler of the GEMM kernel.
//
// The kernel launches G CTAs (about one per SM) and each walks the output tiles with a
// fixed stride: CTA c takes work indices c, c+G, c+2G, ... until they run out. Work
// indices are ordered batch-major (all of batch 0, then batch 1, ...) and, inside a
// batch, by SwizzledRaster (raster order + L2 swizzle stripes).
//
// Clusters: with a cluster of cluster_m x cluster_n CTAs (each 1 or 2), the unit of work
// is a cluster-sized block of tiles and the stride is over clusters: cluster k takes
// units k, k+G/C, ... (C = cluster size), and the CTA of rank r inside the cluster takes
// tile (unit_m*cluster_m + r % cluster_m, unit_n*cluster_n + r / cluster_m). All CTAs
// of a cluster therefore run the same number of iterations, which TMA multicast needs
// (a peer that leaves early never arrives on the shared barriers). Where the tile
// count is not a multiple of the cluster, the edge cluster's extra CTA gets a tile
// outside the problem: WorkTile::in_bounds says so; the kernel still runs its
// mainloop (TMA zero-fills the loads it multicasts for its peer) and must not store.
//
// Usage, kernel side (1-D grid of G CTAs, cluster dims (cluster_m*cluster_n, 1, 1),
// scheduler passed by value as a __grid_constant__ kernel parameter):
//
//   for (WorkTile t = sched.first(blockIdx.x); t.valid; t = sched.next(t)) {
//     mainloop(t.m_block, t.n_block, t.l);            // every role, every CTA
//     if (t.in_bounds) epilogue(t.m_block, t.n_block, t.l);
//   }
//
// Host side:
//
//   PersistentArguments args{tiles_m, tiles_n, batch, 0, RasterOrder::kHeuristic, 4};
//   args.grid_size = persistent_grid_size(tiles_m, tiles_n, batch, sm_count);
//   if (const char* why = PersistentScheduler::check(args)) return invalid_argument(why);
//   PersistentScheduler sched(args);   // resolves kHeuristic, precomputes divisors
#include <cstdint>

#include "warpspec/schedule/fast_divmod.hpp"
#include "warpspec/schedule/raster.hpp"

namespace warpspec::schedule {

// What the host chooses. Counts are in output tiles (ceil(M / kBlockM), ...).
struct PersistentArguments {
  int tiles_m = 1;
  int tiles_n = 1;
  int batch = 1;       // L
  int grid_size = 1;   // CTAs launched: a multiple of cluster_m * cluster_n
  RasterOrder raster = RasterOrder::kHeuristic;
  int swizzle = 1;     // stripe width in units, 1, 2, 4, 8 or 16 (1 = plain raster)
  int cluster_m = 1;   // 1 or 2
  int cluster_n = 1;   // 1 or 2
};

// One CTA's assignment for one loop iteration.
struct WorkTile {
  int32_t m_block = 0;  // tile coordinates, in tiles
  int32_t n_block = 0;
  int32_t l = 0;        // batch index
  // Work index (in cluster units) this came from, and the CTA's rank in its
  // cluster: next() needs both, and the kernel keeps them in two registers.
  int32_t linear = 0;
  int32_t cta_rank = 0;
  // The loop runs while valid. It is the same for every CTA of a cluster.
  bool valid = false;
  // valid and the tile lies inside the problem. Differs from valid only for the
  // padded CTA of an edge cluster; always equal to valid when the cluster is 1x1.
  bool in_bounds = false;
};

// CTAs to launch: one per SM (max_ctas), but never more than there is work, and a
// whole number of clusters. Pass the SM count for 1x1 clusters; with clusters pass
// cluster_size * cudaOccupancyMaxActiveClusters(), since GPC boundaries can leave
// SMs that no whole cluster fits on. Returns at least one cluster.
inline int persistent_grid_size(int tiles_m, int tiles_n, int batch, int max_ctas,
                                int cluster_m = 1, int cluster_n = 1) {
  const int64_t cluster_size = int64_t{cluster_m} * cluster_n;
  const int64_t units = (int64_t{tiles_m} + cluster_m - 1) / cluster_m *
                        ((int64_t{tiles_n} + cluster_n - 1) / cluster_n) * batch;
  int64_t clusters = max_ctas / cluster_size;
  if (clusters > units) clusters = units;
  if (clusters < 1) clusters = 1;
  return static_cast<int>(clusters * cluster_size);
}

class PersistentScheduler {
 public:
  using Arguments = PersistentArguments;

  // nullptr when `args` can be scheduled, else why not, naming the argument and the
  // rule (a static string: callable anywhere, and the host wraps it in a Status).
  // The limit on totals keeps every work index, and index + stride, inside int32 and
  // under FastDivmod's 2^31 dividend bound.
  static const char* check(const Arguments& args) {
    if (args.tiles_m < 1) return "tiles_m: must be >= 1";
    if (args.tiles_n < 1) return "tiles_n: must be >= 1";
    if (args.batch < 1) return "batch: must be >= 1";
    if (!is_valid_swizzle(args.swizzle)) return "swizzle: must be 1, 2, 4, 8 or 16";
    if (args.cluster_m != 1 && args.cluster_m != 2) return "cluster_m: must be 1 or 2";
    if (args.cluster_n != 1 && args.cluster_n != 2) return "cluster_n: must be 1 or 2";
    if (args.raster != RasterOrder::kAlongM && args.raster != RasterOrder::kAlongN &&
        args.raster != RasterOrder::kHeuristic)
      return "raster: must be kAlongM, kAlongN or kHeuristic";
    if (args.grid_size < 1) return "grid_size: must be >= 1";
    if (args.grid_size % (args.cluster_m * args.cluster_n) != 0)
      return "grid_size: must be a multiple of cluster_m * cluster_n";
    const int64_t units_m = (int64_t{args.tiles_m} + args.cluster_m - 1) / args.cluster_m;
    const int64_t units_n = (int64_t{args.tiles_n} + args.cluster_n - 1) / args.cluster_n;
    const int64_t clusters = args.grid_size / (args.cluster_m * args.cluster_n);
    if (units_m * args.cluster_m > INT32_MAX || units_n * args.cluster_n > INT32_MAX ||
        units_m * units_n * args.batch + clusters > INT32_MAX)
      return "tiles_m * tiles_n * batch: too many tiles (work indices must stay below 2^31)";
    return nullptr;
  }

  PersistentScheduler() = default;

  // Precondition: check(args) == nullptr. Resolves kHeuristic and precomputes every
  // divisor; cheap enough to build in the kernel too, but meant for the host.
  WARPSPEC_HOST_DEVICE explicit PersistentScheduler(const Arguments& args)
      : tiles_m_(args.tiles_m),
        tiles_n_(args.tiles_n),
        log_cluster_m_(args.cluster_m == 2 ? 1 : 0),
        log_cluster_n_(args.cluster_n == 2 ? 1 : 0),
        swizzle_(args.swizzle),
        raster_(resolve_raster(args.raster, args.tiles_m, args.tiles_n, args.cluster_m,
                               args.cluster_n)) {
    const uint32_t units_m = (uint32_t(args.tiles_m) + args.cluster_m - 1) >> log_cluster_m_;
    const uint32_t units_n = (uint32_t(args.tiles_n) + args.cluster_n - 1) >> log_cluster_n_;
    const uint32_t units_per_batch = units_m * units_n;
    total_units_ = units_per_batch * uint32_t(args.batch);
    stride_ = uint32_t(args.grid_size) >> (log_cluster_m_ + log_cluster_n_);
    batch_ = FastDivmod(units_per_batch);
    raster_map_ = SwizzledRaster(units_m, units_n, raster_, uint32_t(args.swizzle));
    total_tiles_ = args.tiles_m * args.tiles_n * args.batch;
  }

  // Convenience form of the brief's sketch: no clusters.
  WARPSPEC_HOST_DEVICE PersistentScheduler(int tiles_m, int tiles_n, int batch, int grid_size,
                                        RasterOrder raster, int swizzle)
      : PersistentScheduler(Arguments{tiles_m, tiles_n, batch, grid_size, raster, swizzle}) {}

  // In-range output tiles: what the kernel computes and stores.
  WARPSPEC_HOST_DEVICE int total_tiles() const { return total_tiles_; }
  // Work indices: cluster units over all batches (== total_tiles() for 1x1 clusters).
  WARPSPEC_HOST_DEVICE int total_work() const { return int(total_units_); }
  WARPSPEC_HOST_DEVICE int grid_size() const { return int(stride_) << cluster_log_size(); }
  WARPSPEC_HOST_DEVICE RasterOrder raster() const { return raster_; }  // never kHeuristic
  WARPSPEC_HOST_DEVICE int swizzle() const { return swizzle_; }
  WARPSPEC_HOST_DEVICE int cluster_m() const { return 1 << log_cluster_m_; }
  WARPSPEC_HOST_DEVICE int cluster_n() const { return 1 << log_cluster_n_; }

  // Position of cluster rank r along M and N: the convention get() uses, which the
  // kernel's multicast masks must follow (CTAs with equal rank_n share a B tile...).
  WARPSPEC_HOST_DEVICE int cta_rank_m(int cta_rank) const {
    return cta_rank & ((1 << log_cluster_m_) - 1);
  }
  WARPSPEC_HOST_DEVICE int cta_rank_n(int cta_rank) const { return cta_rank >> log_cluster_m_; }

  // The tile of work index `linear` (cluster units) for the CTA of rank `cta_rank` in
  // its cluster. Indices past the end give valid = false; the coordinates are then
  // meaningless but computed without a branch (any index < 2^31 is safe to map).
  WARPSPEC_HOST_DEVICE WorkTile get(int linear, int cta_rank = 0) const {
    uint32_t l, in_batch, unit_m, unit_n;
    batch_.divmod(uint32_t(linear), l, in_batch);
    raster_map_.map(in_batch, unit_m, unit_n);
    WorkTile t;
    t.m_block = int32_t((unit_m << log_cluster_m_) + uint32_t(cta_rank_m(cta_rank)));
    t.n_block = int32_t((unit_n << log_cluster_n_) + uint32_t(cta_rank_n(cta_rank)));
    t.l = int32_t(l);
    t.linear = linear;
    t.cta_rank = cta_rank;
    t.valid = uint32_t(linear) < total_units_;
    t.in_bounds = t.valid && t.m_block < tiles_m_ && t.n_block < tiles_n_;
    return t;
  }

  // First tile of the CTA with linear id `cta` in a 1-D grid whose clusters are
  // consecutive ids (cluster dims (C,1,1): cluster = cta / C, rank = cta % C).
  WARPSPEC_HOST_DEVICE WorkTile first(int cta) const {
    const int log_size = cluster_log_size();
    return get(cta >> log_size, cta & ((1 << log_size) - 1));
  }

  // The same CTA's next tile: one grid stride on. Call only while t.valid (check()
  // guarantees index + stride stays in int32 from any valid index).
  WARPSPEC_HOST_DEVICE WorkTile next(const WorkTile& t) const {
    return get(t.linear + int(stride_), t.cta_rank);
  }

 private:
  WARPSPEC_HOST_DEVICE int cluster_log_size() const { return log_cluster_m_ + log_cluster_n_; }

  FastDivmod batch_;            // units per batch: work index -> (l, index in batch)
  SwizzledRaster raster_map_;   // index in batch -> (unit_m, unit_n)
  uint32_t total_units_ = 0;    // work indices in all
  uint32_t stride_ = 1;         // clusters in the grid: the per-iteration step
  int32_t tiles_m_ = 1;         // bounds for in_bounds
  int32_t tiles_n_ = 1;
  int32_t total_tiles_ = 1;
  int32_t log_cluster_m_ = 0;   // clusters are 1 or 2 per dimension: shifts, not divides
  int32_t log_cluster_n_ = 0;
  int32_t swizzle_ = 1;
  RasterOrder raster_ = RasterOrder::kAlongN;
};

}  // namespace warpspec::schedule
