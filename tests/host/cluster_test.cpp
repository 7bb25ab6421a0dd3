// Clusters on the host (issue 10): the pair walk the clustered GEMM kernels run
// (schedule/cluster_units.hpp), the scheduler's refusal of clusters with K splits, the
// cluster kernels built, and the refusals of the GemmArgs cluster fields, which come
// before the device check.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "host/expect_status.hpp"
#include "host/test_memory.hpp"
#include "src/gemm/instances.hpp"
#include "warpspec/schedule/cluster_units.hpp"
#include "warpspec/schedule/stream_k.hpp"
#include "warpspec/warpspec.hpp"

// A named namespace: the host tests build as one unity translation unit.
namespace cluster_test {

using warpspec::DType;
using warpspec::GemmArgs;
using warpspec::GemmDecomposition;
using warpspec::StatusCode;
using warpspec::TensorView;
using warpspec::gemm_impl::ClusterShape;
using warpspec::gemm_impl::GemmConfig;
using warpspec::schedule::ClusterUnits;
using warpspec::schedule::KDecomposition;
using warpspec::schedule::KSplitArguments;
using warpspec::schedule::KSplitScheduler;
using warpspec::schedule::KWorkUnit;
using warpspec::schedule::persistent_grid_size;
using warpspec::schedule::RasterOrder;

// ------------------------------------------------------------------ the pair walk

struct Problem {
  int tiles_m, tiles_n, batch, k_iters, clusters;  // clusters: pairs in the grid
  int cluster_m, cluster_n;
  RasterOrder raster = RasterOrder::kAlongN;
  int swizzle = 1;
  std::string str() const {
    return std::to_string(tiles_m) + "x" + std::to_string(tiles_n) + "x" + std::to_string(batch) + " k " +
           std::to_string(k_iters) + " clusters " + std::to_string(clusters) + " cluster " +
           std::to_string(cluster_m) + "x" + std::to_string(cluster_n) + " raster " +
           std::to_string(int(raster)) + " swizzle " + std::to_string(swizzle);
  }
};

KSplitScheduler scheduler_of(const Problem& p) {
  KSplitArguments a;
  a.tiles.tiles_m = p.tiles_m;
  a.tiles.tiles_n = p.tiles_n;
  a.tiles.batch = p.batch;
  a.tiles.grid_size = 2 * p.clusters;
  a.tiles.raster = p.raster;
  a.tiles.swizzle = p.swizzle;
  a.tiles.cluster_m = p.cluster_m;
  a.tiles.cluster_n = p.cluster_n;
  a.k_iters = p.k_iters;
  a.decomposition = KDecomposition::kDataParallel;
  const char* why = KSplitScheduler::check(a);
  EXPECT_EQ(why, nullptr) << p.str() << ": " << why;
  return KSplitScheduler(a);
}

// Walks both CTAs of every cluster in lock-step, as the kernel's roles do, and checks the
// whole contract: the two CTAs get the two tiles of one pair at every step, in the same
// order and the same number of steps; every in-bounds tile exactly once; only the second
// tile of a pair on an odd edge is out of bounds (and it is still valid: its CTA runs the
// mainloop for its peer); every unit is a whole, final tile with no peers.
void check_pairs(const Problem& p) {
  SCOPED_TRACE(p.str());
  const KSplitScheduler s = scheduler_of(p);
  const ClusterUnits units(s);
  ASSERT_EQ(units.cluster_size(), 2);
  const bool along_m = p.cluster_m == 2;
  std::vector<int> seen(size_t(p.tiles_m) * p.tiles_n * p.batch, 0);
  int padded = 0, steps_total = 0;
  for (int c = 0; c < p.clusters; ++c) {
    KWorkUnit u0 = units.first(2 * c), u1 = units.first(2 * c + 1);
    int steps = 0;
    for (; u0.valid || u1.valid; u0 = units.next(u0), u1 = units.next(u1)) {
      ASSERT_EQ(u0.valid, u1.valid) << "cluster " << c << " step " << steps << ": one CTA of the pair ran out early";
      ASSERT_EQ(u0.cursor, u1.cursor) << "the pair must work on one unit at a time";
      ASSERT_EQ(u0.cursor, c + steps * p.clusters) << "cluster c takes units c, c + G/2, ...";
      ASSERT_EQ(u0.l, u1.l);
      if (along_m) {
        ASSERT_EQ(u0.n_block, u1.n_block) << "a 2x1 pair shares its B tile: one n_block";
        ASSERT_EQ(u0.m_block % 2, 0);
        ASSERT_EQ(u1.m_block, u0.m_block + 1) << "rank 1 takes the M neighbour";
      } else {
        ASSERT_EQ(u0.m_block, u1.m_block) << "a 1x2 pair shares its A tile: one m_block";
        ASSERT_EQ(u0.n_block % 2, 0);
        ASSERT_EQ(u1.n_block, u0.n_block + 1) << "rank 1 takes the N neighbour";
      }
      for (const KWorkUnit* u : {&u0, &u1}) {
        ASSERT_EQ(u->cta, u == &u0 ? 2 * c : 2 * c + 1);
        ASSERT_EQ(u->k_begin, 0);
        ASSERT_EQ(u->k_end, p.k_iters);
        ASSERT_TRUE(s.is_final(*u)) << "clusters run data-parallel: every unit is final";
        int begin = -1, count = -1;
        s.peer_slots(*u, begin, count);
        ASSERT_EQ(count, 0) << "no partials to add";
        ASSERT_GE(u->l, 0);
        ASSERT_LT(u->l, p.batch);
        const bool inside = u->m_block < p.tiles_m && u->n_block < p.tiles_n;
        ASSERT_EQ(u->in_bounds, inside);
        if (inside) {
          ++seen[(size_t(u->l) * p.tiles_m + u->m_block) * p.tiles_n + u->n_block];
        } else {
          // Only the pair's second tile can lie past the edge, one tile past it.
          ASSERT_EQ(u, &u1) << "the first tile of a pair is always inside the problem";
          ASSERT_EQ(along_m ? u->m_block : u->n_block, along_m ? p.tiles_m : p.tiles_n);
          ASSERT_EQ((along_m ? p.tiles_m : p.tiles_n) % 2, 1) << "padding only on an odd edge";
          ++padded;
        }
      }
      ++steps;
      ASSERT_LE(steps, p.tiles_m * p.tiles_n * p.batch) << "runaway walk";
    }
    steps_total += steps;
  }
  for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "tile " << i << " handed out " << seen[i] << " times";
  const int pairs_m = along_m ? (p.tiles_m + 1) / 2 : p.tiles_m;
  const int pairs_n = along_m ? p.tiles_n : (p.tiles_n + 1) / 2;
  EXPECT_EQ(steps_total, pairs_m * pairs_n * p.batch) << "one step per pair";
  const int odd_edge = along_m ? (p.tiles_m % 2) * p.tiles_n : (p.tiles_n % 2) * p.tiles_m;
  EXPECT_EQ(padded, odd_edge * p.batch) << "one padded tile per pair on an odd edge";
}

TEST(ClusterUnits, PairsCoverEveryTileOnceInLockStep) {
  int cases = 0;
  for (int cm : {2, 1})
    for (int tm : {1, 2, 3, 4, 7, 18})
      for (int tn : {1, 2, 3, 5, 17})
        for (int batch : {1, 3})
          for (int clusters : {1, 2, 5, 66, 200})
            for (RasterOrder r : {RasterOrder::kAlongM, RasterOrder::kAlongN, RasterOrder::kHeuristic})
              for (int sw : {1, 2, 8}) {
                check_pairs(Problem{tm, tn, batch, 3, clusters, cm, 3 - cm, r, sw});
                if (HasFatalFailure()) return;
                ++cases;
              }
  EXPECT_GT(cases, 2000);
}

TEST(ClusterUnits, EmptyKAndTheKernelsGrid) {
  // K = 0: every unit has an empty range and is still final (D = beta·C).
  check_pairs(Problem{3, 5, 2, 0, 4, 2, 1});
  check_pairs(Problem{3, 5, 2, 0, 4, 1, 2});
  // The grid the host launches: a whole number of pairs, at most one per two SMs, never
  // more pairs than there is work.
  EXPECT_EQ(persistent_grid_size(64, 32, 1, 132, 2, 1), 132);
  EXPECT_EQ(persistent_grid_size(3, 3, 1, 132, 2, 1), 12);  // 2 x 3 pairs, two CTAs each
  EXPECT_EQ(persistent_grid_size(3, 3, 1, 132, 1, 2), 12);
  EXPECT_EQ(persistent_grid_size(1, 1, 1, 132, 2, 1), 2);   // one pair, half padding
  EXPECT_EQ(persistent_grid_size(64, 32, 1, 131, 2, 1), 130);
  check_pairs(Problem{64, 32, 1, 64, 66, 2, 1});  // 8192 x 8192 on 128 x 256: 16 steps per cluster
}

TEST(ClusterUnits, KSplitsAreRefusedWithClusters) {
  KSplitArguments a;
  a.tiles.tiles_m = 8;
  a.tiles.tiles_n = 8;
  a.tiles.grid_size = 16;
  a.tiles.cluster_m = 2;
  a.k_iters = 64;
  for (KDecomposition d : {KDecomposition::kSplitK, KDecomposition::kStreamK}) {
    a.decomposition = d;
    a.splits = 2;
    const char* why = KSplitScheduler::check(a);
    ASSERT_NE(why, nullptr);
    EXPECT_NE(std::string(why).find("cluster"), std::string::npos) << why;
    EXPECT_NE(std::string(why).find("data-parallel only"), std::string::npos) << why;
  }
  a.decomposition = KDecomposition::kDataParallel;
  a.splits = 1;
  EXPECT_EQ(KSplitScheduler::check(a), nullptr);
  a.tiles.grid_size = 15;  // not a whole number of pairs
  EXPECT_NE(KSplitScheduler::check(a), nullptr);
}

// ------------------------------------------------------------------ the kernels built

TEST(ClusterKernels, TwoPairsOfTheTnKernelAppendedAfterTheOthers) {
  using warpspec::gemm_impl::kClusterBase;
  // The built list: exactly the two pairs on the TN kernel, appended after the others.
  int clustered = 0;
  for (const GemmConfig& c : warpspec::gemm_impl::kGemmInstances)
    if (c.cluster.size() > 1) {
      ++clustered;
      GemmConfig base = c;
      base.cluster = {};
      EXPECT_EQ(base, kClusterBase);
    }
  EXPECT_EQ(clustered, 2);
  EXPECT_EQ(warpspec::gemm_impl::kGemmInstances[warpspec::gemm_impl::kNumPlainInstances +
                                                 warpspec::gemm_impl::kNumFusedInstances]
                .cluster,
            (ClusterShape{2, 1}));
}

// ------------------------------------------------------------------ refusals

void* fake(uintptr_t offset = 0) { return warpspec::test::test_pointer(offset); }

// 256 x 64 (row-major A) times 64 x 512 (column-major B) into 256 x 512 row-major D:
// the layout clusters are built for, 2 x 2 tiles of 128 x 256.
GemmArgs tn_args(int64_t m = 256, int64_t n = 512) {
  GemmArgs g;
  g.a = TensorView::matrix(fake(), DType::kBF16, m, 64, 64);
  g.b = TensorView::matrix(fake(0x100000), DType::kBF16, 64, n, 64, /*row_major=*/false);
  g.d = TensorView::matrix(fake(0x200000), DType::kBF16, m, n, n);
  return g;
}

using warpspec::test::accepted;
using warpspec::test::expect_refused;

GemmArgs with_cluster(GemmArgs g, int m, int n) {
  g.cluster_m = m, g.cluster_n = n;
  return g;
}

TEST(ClusterValidation, BuiltCasesPassValidation) {
  for (const auto& [m, n] : std::vector<std::pair<int, int>>{{0, 0}, {1, 1}, {2, 1}, {1, 2}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    EXPECT_TRUE(accepted(warpspec::check(with_cluster(tn_args(), m, n)))) << warpspec::check(with_cluster(tn_args(), m, n)).to_string();
    GemmArgs g = with_cluster(tn_args(), m, n);
    g.tile_n = 256;
    g.decomposition = GemmDecomposition::kDataParallel;
    EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
    g.beta = 0.5f;
    g.c = g.d;  // in place
    EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  }
  // A column-major D is computed transposed: its kernel M is the caller's N.
  GemmArgs g = with_cluster(tn_args(64, 512), 2, 1);
  g.d = TensorView::matrix(fake(0x200000), DType::kBF16, 64, 512, 64, /*row_major=*/false);
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  // 1 x 1 is the plain kernel: any layout.
  g = with_cluster(tn_args(), 1, 1);
  g.b = TensorView::matrix(fake(0x100000), DType::kBF16, 64, 512, 512);  // row-major B
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
}

TEST(ClusterValidation, BadShapesAreRefusedByName) {
  expect_refused(with_cluster(tn_args(), 3, 1), StatusCode::kInvalidArgument, "cluster_m, cluster_n: each must be 1 or 2");
  expect_refused(with_cluster(tn_args(), 1, 4), StatusCode::kInvalidArgument, "cluster_m, cluster_n");
  expect_refused(with_cluster(tn_args(), -1, 1), StatusCode::kInvalidArgument, "cluster_m, cluster_n");
  expect_refused(with_cluster(tn_args(), 2, 0), StatusCode::kInvalidArgument, "or both 0 (automatic), got 2 x 0");
  expect_refused(with_cluster(tn_args(), 0, 1), StatusCode::kInvalidArgument, "got 0 x 1");
  expect_refused(with_cluster(tn_args(), 2, 2), StatusCode::kUnsupported, "2 x 2 clusters are not built");
}

TEST(ClusterValidation, KernelsNotBuiltWithClustersAreRefusedByName) {
  for (const auto& [m, n] : std::vector<std::pair<int, int>>{{2, 1}, {1, 2}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    const char* built = "clusters are built for one kernel";
    GemmArgs g = with_cluster(tn_args(), m, n);
    g.b = TensorView::matrix(fake(0x100000), DType::kBF16, 64, 512, 512);  // row-major B (N contiguous)
    expect_refused(g, StatusCode::kUnsupported, built);
    expect_refused(g, StatusCode::kUnsupported, "bf16 B (row-major)");
    g = with_cluster(tn_args(), m, n);
    g.a = TensorView::matrix(fake(), DType::kBF16, 256, 64, 256, /*row_major=*/false);  // column-major A
    expect_refused(g, StatusCode::kUnsupported, "bf16 A (column-major)");
    g = with_cluster(tn_args(), m, n);
    g.d = TensorView::matrix(fake(0x200000), DType::kFP32, 256, 512, 512);
    expect_refused(g, StatusCode::kUnsupported, "D fp32");
    g = with_cluster(tn_args(), m, n);
    g.a.dtype = g.b.dtype = g.d.dtype = DType::kFP16;
    expect_refused(g, StatusCode::kUnsupported, "fp16 A");
    g = with_cluster(tn_args(), m, n);
    g.activation = warpspec::GemmActivation::kReLU;
    expect_refused(g, StatusCode::kUnsupported, "fused epilogue");
    g = with_cluster(tn_args(), m, n);
    g.tile_n = 128;
    expect_refused(g, StatusCode::kUnsupported, "tile_n: ");
    for (GemmDecomposition d : {GemmDecomposition::kSplitK, GemmDecomposition::kStreamK}) {
      g = with_cluster(tn_args(), m, n);
      g.decomposition = d;
      expect_refused(g, StatusCode::kUnsupported, "decomposition: split-K and stream-K run without clusters");
    }
    g = with_cluster(tn_args(64, 512), m, n);  // M = 64: the kernel loads 64 rows of A
    expect_refused(g, StatusCode::kUnsupported, "more than 64 rows in the kernel's M (M = 64)");
    g = with_cluster(tn_args(512, 64), m, n);  // column-major D: the kernel's M is N = 64
    g.d = TensorView::matrix(fake(0x200000), DType::kBF16, 512, 64, 512, /*row_major=*/false);
    expect_refused(g, StatusCode::kUnsupported, "(N, as D is column-major = 64)");
  }
}

}  // namespace cluster_test
