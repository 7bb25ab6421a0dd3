// Host tests for the persistent GEMM tile scheduler, its raster/swizzle map and
// FastDivmod. The scheduler is plain integer maths shared by host and kernel, so the
// CPU can check it exhaustively on small problems: every tile exactly once, the
// per-CTA stride, the stripe shape, the heuristic and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "warpspec/schedule/fast_divmod.hpp"
#include "warpspec/schedule/persistent.hpp"
#include "warpspec/schedule/raster.hpp"

// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace persistent_scheduler_test {

using warpspec::schedule::FastDivmod;
using warpspec::schedule::persistent_grid_size;
using warpspec::schedule::PersistentArguments;
using warpspec::schedule::PersistentScheduler;
using warpspec::schedule::RasterOrder;
using warpspec::schedule::resolve_raster;
using warpspec::schedule::SwizzledRaster;
using warpspec::schedule::WorkTile;

const char* raster_name(RasterOrder r) {
  switch (r) {
    case RasterOrder::kAlongM: return "AlongM";
    case RasterOrder::kAlongN: return "AlongN";
    default: return "Heuristic";
  }
}

// The order the raster promises, written the slow obvious way: stripes of `swizzle`
// minor units (the last one narrower), each walked along the major dimension.
std::vector<std::pair<int, int>> reference_order(int count_m, int count_n, RasterOrder r,
                                                 int swizzle) {
  const bool along_m = r == RasterOrder::kAlongM;
  const int major = along_m ? count_m : count_n;
  const int minor = along_m ? count_n : count_m;
  std::vector<std::pair<int, int>> order;
  for (int start = 0; start < minor; start += swizzle) {
    const int width = std::min(swizzle, minor - start);
    for (int j = 0; j < major; ++j)
      for (int k = 0; k < width; ++k)
        order.emplace_back(along_m ? j : start + k, along_m ? start + k : j);
  }
  return order;
}

// ------------------------------------------------------------------ FastDivmod

TEST(SchedulerFastDivmod, MatchesDivisionOnEdgesAndRandomValues) {
  std::mt19937 rng(20240611);
  std::vector<uint32_t> divisors = {1, 2, 3, 5, 6, 7, 8, 9, 13, 64, 100, 127, 128, 129,
                                    1000, 65535, 65536, 65537, (1u << 30) - 1, 1u << 30,
                                    (1u << 30) + 1, (1u << 31) - 1};
  std::uniform_int_distribution<uint32_t> any31(1, (1u << 31) - 1);
  std::uniform_int_distribution<uint32_t> small(1, 4096);
  for (int i = 0; i < 2000; ++i) divisors.push_back(i % 2 ? any31(rng) : small(rng));
  std::uniform_int_distribution<uint32_t> dividend(0, (1u << 31) - 1);
  for (uint32_t d : divisors) {
    const FastDivmod fd(d);
    ASSERT_EQ(fd.divisor(), d);
    std::vector<uint32_t> ns = {0, 1, d - 1, d, (1u << 31) - 1, (1u << 31) - 2};
    // Multiples of d and their neighbours are where a rounding error would show.
    for (uint32_t k : {1u, 2u, 3u, 1000u, (1u << 31) / d - 1, (1u << 31) / d}) {
      const uint64_t x = uint64_t{k} * d;
      for (uint64_t y : {x - 1, x, x + 1})
        if (y < (1u << 31)) ns.push_back(uint32_t(y));
    }
    for (int i = 0; i < 500; ++i) ns.push_back(dividend(rng));
    for (uint32_t n : ns) {
      if (n >= (1u << 31)) continue;
      uint32_t q, r;
      fd.divmod(n, q, r);
      ASSERT_EQ(q, n / d) << n << " / " << d;
      ASSERT_EQ(r, n % d) << n << " % " << d;
      ASSERT_EQ(fd.div(n), n / d);
    }
  }
}

TEST(SchedulerFastDivmod, ExhaustiveForSmallDivisorsAndDividends) {
  for (uint32_t d = 1; d <= 300; ++d) {
    const FastDivmod fd(d);
    for (uint32_t n = 0; n < 20000; ++n) {
      uint32_t q, r;
      fd.divmod(n, q, r);
      ASSERT_EQ(q, n / d) << n << " / " << d;
      ASSERT_EQ(r, n % d) << n << " % " << d;
    }
  }
}

TEST(SchedulerFastDivmod, DefaultDividesByOne) {
  const FastDivmod fd;
  EXPECT_EQ(fd.divisor(), 1u);
  EXPECT_EQ(fd.div(0), 0u);
  EXPECT_EQ(fd.div(12345), 12345u);
  EXPECT_EQ(fd.div((1u << 31) - 1), (1u << 31) - 1);
}

// ------------------------------------------------------------------ raster map

TEST(SchedulerRaster, MatchesReferenceOrderExhaustively) {
  for (int cm = 1; cm <= 13; ++cm)
    for (int cn = 1; cn <= 13; ++cn)
      for (RasterOrder r : {RasterOrder::kAlongM, RasterOrder::kAlongN})
        for (int s : {1, 2, 4, 8, 16}) {
          const SwizzledRaster map(cm, cn, r, s);
          const auto ref = reference_order(cm, cn, r, s);
          ASSERT_EQ(int(ref.size()), cm * cn);
          for (int i = 0; i < cm * cn; ++i) {
            uint32_t m, n;
            map.map(uint32_t(i), m, n);
            ASSERT_EQ(int(m), ref[i].first)
                << cm << "x" << cn << " " << raster_name(r) << " swizzle " << s << " i " << i;
            ASSERT_EQ(int(n), ref[i].second)
                << cm << "x" << cn << " " << raster_name(r) << " swizzle " << s << " i " << i;
          }
        }
}

TEST(SchedulerRaster, DocumentedExample) {
  // The 5 x 5, AlongM, swizzle 2 picture in raster.hpp.
  const int expected[5][5] = {{0, 1, 10, 11, 20},
                              {2, 3, 12, 13, 21},
                              {4, 5, 14, 15, 22},
                              {6, 7, 16, 17, 23},
                              {8, 9, 18, 19, 24}};
  const SwizzledRaster map(5, 5, RasterOrder::kAlongM, 2);
  for (int i = 0; i < 25; ++i) {
    uint32_t m, n;
    map.map(uint32_t(i), m, n);
    EXPECT_EQ(expected[m][n], i) << "m " << m << " n " << n;
  }
}

TEST(SchedulerRaster, AlongMGoesDownMFirstWithoutSwizzle) {
  const SwizzledRaster along_m(6, 4, RasterOrder::kAlongM, 1);
  const SwizzledRaster along_n(6, 4, RasterOrder::kAlongN, 1);
  for (uint32_t i = 0; i < 24; ++i) {
    uint32_t m, n;
    along_m.map(i, m, n);
    EXPECT_EQ(m, i % 6);
    EXPECT_EQ(n, i / 6);
    along_n.map(i, m, n);
    EXPECT_EQ(m, i / 4);
    EXPECT_EQ(n, i % 4);
  }
}

// Within a full stripe, `swizzle` consecutive indices share one major coordinate and
// cover the stripe's `swizzle` minor coordinates; the next group steps major by one.
// Tail stripes do the same with their narrower width.
TEST(SchedulerRaster, ConsecutiveIndicesStayInsideTheirStripe) {
  for (int cm = 1; cm <= 13; ++cm)
    for (int cn = 1; cn <= 13; ++cn)
      for (RasterOrder r : {RasterOrder::kAlongM, RasterOrder::kAlongN})
        for (int s : {2, 4, 8}) {
          const bool along_m = r == RasterOrder::kAlongM;
          const int major = along_m ? cm : cn;
          const int minor = along_m ? cn : cm;
          const SwizzledRaster map(cm, cn, r, s);
          for (int i = 0; i < cm * cn; ++i) {
            uint32_t m, n;
            map.map(uint32_t(i), m, n);
            const int maj = along_m ? int(m) : int(n);
            const int min = along_m ? int(n) : int(m);
            const int stripe = i / (s * major);
            const int width = std::min(s, minor - stripe * s);
            ASSERT_GE(width, 1);
            const int in_stripe = i - stripe * s * major;
            // The stripe is `width` units wide (width == s for every full stripe).
            ASSERT_GE(min, stripe * s);
            ASSERT_LT(min, stripe * s + width);
            ASSERT_EQ(min, stripe * s + in_stripe % width);
            ASSERT_EQ(maj, in_stripe / width);
          }
        }
}

// ------------------------------------------------------------------ heuristic

TEST(SchedulerHeuristic, FollowsCutlassRule) {
  // More N tiles than M tiles: raster along M (the shorter side); otherwise along N.
  EXPECT_EQ(resolve_raster(RasterOrder::kHeuristic, 4, 5), RasterOrder::kAlongM);
  EXPECT_EQ(resolve_raster(RasterOrder::kHeuristic, 5, 4), RasterOrder::kAlongN);
  EXPECT_EQ(resolve_raster(RasterOrder::kHeuristic, 7, 7), RasterOrder::kAlongN);  // tie
  EXPECT_EQ(resolve_raster(RasterOrder::kHeuristic, 1, 1), RasterOrder::kAlongN);
  EXPECT_EQ(resolve_raster(RasterOrder::kHeuristic, 1, 1000), RasterOrder::kAlongM);
  // Counts are rounded to whole clusters first: 3 M tiles in 2-tall clusters is 4.
  EXPECT_EQ(resolve_raster(RasterOrder::kHeuristic, 3, 4), RasterOrder::kAlongM);
  EXPECT_EQ(resolve_raster(RasterOrder::kHeuristic, 3, 4, 2, 1), RasterOrder::kAlongN);
  EXPECT_EQ(resolve_raster(RasterOrder::kHeuristic, 4, 3, 1, 2), RasterOrder::kAlongN);
  EXPECT_EQ(resolve_raster(RasterOrder::kHeuristic, 3, 3, 1, 2), RasterOrder::kAlongM);
  // Explicit orders pass through.
  EXPECT_EQ(resolve_raster(RasterOrder::kAlongN, 1, 1000), RasterOrder::kAlongN);
  EXPECT_EQ(resolve_raster(RasterOrder::kAlongM, 1000, 1), RasterOrder::kAlongM);
}

TEST(SchedulerHeuristic, SchedulerResolvesAtConstruction) {
  for (int tm = 1; tm <= 9; ++tm)
    for (int tn = 1; tn <= 9; ++tn) {
      const PersistentScheduler s(tm, tn, 1, 4, RasterOrder::kHeuristic, 2);
      EXPECT_EQ(s.raster(), tn > tm ? RasterOrder::kAlongM : RasterOrder::kAlongN);
      const PersistentScheduler e(tm, tn, 1, 4, RasterOrder::kAlongM, 2);
      EXPECT_EQ(e.raster(), RasterOrder::kAlongM);
    }
}

// ------------------------------------------------------------------ scheduler

struct Case {
  int tm, tn, batch, grid;
  RasterOrder raster;
  int swizzle, cluster_m, cluster_n;
  std::string str() const {
    return std::to_string(tm) + "x" + std::to_string(tn) + "x" + std::to_string(batch) +
           " grid " + std::to_string(grid) + " " + raster_name(raster) + " swizzle " +
           std::to_string(swizzle) + " cluster " + std::to_string(cluster_m) + "x" +
           std::to_string(cluster_n);
  }
};

// Runs every CTA of the grid through first()/next() the way the kernel loop does and
// checks the whole contract for one case.
void check_case(const Case& c) {
  const PersistentArguments args{c.tm, c.tn, c.batch, c.grid, c.raster, c.swizzle,
                                 c.cluster_m, c.cluster_n};
  ASSERT_EQ(PersistentScheduler::check(args), nullptr) << c.str();
  const PersistentScheduler s(args);
  const int csize = c.cluster_m * c.cluster_n;
  const int units_m = (c.tm + c.cluster_m - 1) / c.cluster_m;
  const int units_n = (c.tn + c.cluster_n - 1) / c.cluster_n;
  const int work = units_m * units_n * c.batch;
  const int clusters = c.grid / csize;
  ASSERT_EQ(s.total_tiles(), c.tm * c.tn * c.batch) << c.str();
  ASSERT_EQ(s.total_work(), work) << c.str();
  ASSERT_EQ(s.grid_size(), c.grid) << c.str();

  std::vector<int> seen(size_t(c.tm) * c.tn * c.batch, 0);
  // The steps each cluster's CTAs take: every rank must agree (multicast lock-step).
  std::vector<int> steps(clusters, -1);
  for (int cta = 0; cta < c.grid; ++cta) {
    const int cluster = cta / csize;
    const int rank = cta % csize;
    int n_steps = 0;
    WorkTile t = s.first(cta);
    for (int k = 0; t.valid; ++k, t = s.next(t)) {
      // CTA sequence: cluster, cluster + G/C, cluster + 2G/C, ... strictly.
      ASSERT_EQ(t.linear, cluster + k * clusters) << c.str() << " cta " << cta;
      ASSERT_EQ(t.cta_rank, rank);
      ASSERT_LT(t.linear, work);
      ASSERT_GE(t.m_block, 0);
      ASSERT_GE(t.n_block, 0);
      ASSERT_GE(t.l, 0);
      ASSERT_LT(t.l, c.batch);
      // Padded tiles stay inside the cluster-rounded grid, and only clusters pad.
      ASSERT_LT(t.m_block, units_m * c.cluster_m);
      ASSERT_LT(t.n_block, units_n * c.cluster_n);
      const bool in_range = t.m_block < c.tm && t.n_block < c.tn;
      ASSERT_EQ(t.in_bounds, in_range) << c.str();
      if (csize == 1) {
        ASSERT_TRUE(t.in_bounds) << c.str();
      }
      // The CTA's position inside its cluster follows the documented rank convention.
      ASSERT_EQ(t.m_block % c.cluster_m, s.cta_rank_m(rank));
      ASSERT_EQ(t.n_block % c.cluster_n, s.cta_rank_n(rank));
      if (in_range) ++seen[(size_t(t.l) * c.tm + t.m_block) * c.tn + t.n_block];
      ++n_steps;
      ASSERT_LE(n_steps, work) << c.str();  // no runaway loop
    }
    ASSERT_FALSE(t.in_bounds) << "an invalid tile must never be in bounds: " << c.str();
    // Expected: the count of indices cluster + k*clusters below work.
    const int expected = cluster < work ? (work - cluster + clusters - 1) / clusters : 0;
    ASSERT_EQ(n_steps, expected) << c.str() << " cta " << cta;
    if (steps[cluster] < 0) steps[cluster] = n_steps;
    ASSERT_EQ(steps[cluster], n_steps) << "cluster ranks disagree: " << c.str();
  }
  for (size_t i = 0; i < seen.size(); ++i)
    ASSERT_EQ(seen[i], 1) << "tile " << i << " handed out " << seen[i] << " times: " << c.str();
}

std::vector<int> grid_sizes(int work, int csize) {
  // From one cluster to more clusters than work, including the edges around `work`.
  std::set<int> clusters = {1, 2, 3, 7, work - 1, work, work + 1, work + 5};
  std::vector<int> out;
  for (int k : clusters)
    if (k >= 1) out.push_back(k * csize);
  return out;
}

// Swizzle 16 with whole 16-wide stripes and tails beside them (the exhaustive tests above
// stop at 13 tiles a side, where a 16-wide stripe is all tail): the map against the
// reference order, and every tile handed out once, with and without pairs.
TEST(SchedulerRaster, WideStripesMatchReferenceOrder) {
  for (int cm : {15, 16, 17, 31, 32, 33, 40})
    for (int cn : {1, 16, 17, 32, 40})
      for (RasterOrder r : {RasterOrder::kAlongM, RasterOrder::kAlongN}) {
        const SwizzledRaster map(cm, cn, r, 16);
        const auto ref = reference_order(cm, cn, r, 16);
        for (int i = 0; i < cm * cn; ++i) {
          uint32_t m, n;
          map.map(uint32_t(i), m, n);
          ASSERT_EQ(int(m), ref[i].first) << cm << "x" << cn << " " << raster_name(r) << " i " << i;
          ASSERT_EQ(int(n), ref[i].second) << cm << "x" << cn << " " << raster_name(r) << " i " << i;
        }
      }
}

TEST(SchedulerPersistent, EveryTileExactlyOnceWithWideStripes) {
  for (auto [cm, cn] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{1, 2}})
    for (auto [tm, tn] : {std::pair{32, 32}, std::pair{33, 17}, std::pair{17, 40}, std::pair{64, 3}})
      for (RasterOrder r : {RasterOrder::kAlongM, RasterOrder::kAlongN}) {
        const int work = ((tm + cm - 1) / cm) * ((tn + cn - 1) / cn);
        for (int g : grid_sizes(work, cm * cn)) {
          check_case({tm, tn, 1, g, r, 16, cm, cn});
          if (HasFatalFailure()) return;
        }
      }
}

TEST(SchedulerPersistent, EveryTileExactlyOnceNoClusters) {
  for (int tm = 1; tm <= 13; ++tm)
    for (int tn = 1; tn <= 13; ++tn)
      for (int batch = 1; batch <= 3; ++batch)
        for (RasterOrder r :
             {RasterOrder::kAlongM, RasterOrder::kAlongN, RasterOrder::kHeuristic})
          for (int sw : {1, 2, 4, 8, 16})
            for (int g : grid_sizes(tm * tn * batch, 1)) {
              check_case({tm, tn, batch, g, r, sw, 1, 1});
              if (HasFatalFailure()) return;
            }
}

TEST(SchedulerPersistent, EveryTileExactlyOnceWithClusters) {
  for (auto [cm, cn] : {std::pair{2, 1}, std::pair{1, 2}, std::pair{2, 2}})
    for (int tm = 1; tm <= 13; ++tm)
      for (int tn = 1; tn <= 13; ++tn)
        for (int batch = 1; batch <= 3; ++batch)
          for (RasterOrder r : {RasterOrder::kAlongM, RasterOrder::kAlongN})
            for (int sw : {1, 2, 4, 8}) {
              const int work = ((tm + cm - 1) / cm) * ((tn + cn - 1) / cn) * batch;
              for (int g : grid_sizes(work, cm * cn)) {
                check_case({tm, tn, batch, g, r, sw, cm, cn});
                if (HasFatalFailure()) return;
              }
            }
}

TEST(SchedulerPersistent, OrderIsBatchMajorThenRaster) {
  // get() over consecutive indices: all of batch 0 in raster order, then batch 1, ...
  const int tm = 7, tn = 5, batch = 3;
  for (RasterOrder r : {RasterOrder::kAlongM, RasterOrder::kAlongN})
    for (int sw : {1, 2, 4, 8}) {
      const PersistentScheduler s(tm, tn, batch, 132, r, sw);
      const auto ref = reference_order(tm, tn, r, sw);
      for (int i = 0; i < tm * tn * batch; ++i) {
        const WorkTile t = s.get(i);
        ASSERT_TRUE(t.valid);
        EXPECT_EQ(t.l, i / (tm * tn));
        EXPECT_EQ(t.m_block, ref[i % (tm * tn)].first);
        EXPECT_EQ(t.n_block, ref[i % (tm * tn)].second);
      }
      EXPECT_FALSE(s.get(tm * tn * batch).valid);
      EXPECT_FALSE(s.get(tm * tn * batch + 1000).in_bounds);
    }
}

TEST(SchedulerPersistent, ClusterUnitsAreSwizzledAsAWhole) {
  // 2x1 clusters on 6 x 8 tiles, AlongN, swizzle 2: units are 3 x 8; the stripe is two
  // units (four tiles) tall in M and consecutive work indices walk along N.
  const PersistentArguments args{6, 8, 1, 8, RasterOrder::kAlongN, 2, 2, 1};
  ASSERT_EQ(PersistentScheduler::check(args), nullptr);
  const PersistentScheduler s(args);
  const WorkTile a0 = s.get(0, 0), a1 = s.get(0, 1), b0 = s.get(1, 0), c0 = s.get(2, 0);
  EXPECT_EQ(std::tie(a0.m_block, a0.n_block), std::make_tuple(0, 0));
  EXPECT_EQ(std::tie(a1.m_block, a1.n_block), std::make_tuple(1, 0));  // the peer CTA
  EXPECT_EQ(std::tie(b0.m_block, b0.n_block), std::make_tuple(2, 0));  // unit_m 1
  EXPECT_EQ(std::tie(c0.m_block, c0.n_block), std::make_tuple(0, 1));  // next N
}

TEST(SchedulerPersistent, GridSizeHelper) {
  EXPECT_EQ(persistent_grid_size(10, 10, 1, 132), 100);   // fewer tiles than SMs
  EXPECT_EQ(persistent_grid_size(64, 64, 1, 132), 132);   // one CTA per SM
  EXPECT_EQ(persistent_grid_size(1, 1, 1, 132), 1);
  EXPECT_EQ(persistent_grid_size(5, 5, 4, 132), 100);     // batch counts as work
  EXPECT_EQ(persistent_grid_size(64, 64, 1, 132, 2, 1), 132);
  EXPECT_EQ(persistent_grid_size(64, 64, 1, 131, 2, 1), 130);   // whole clusters only
  EXPECT_EQ(persistent_grid_size(3, 1, 1, 132, 2, 1), 4);       // 2 clusters of work
  EXPECT_EQ(persistent_grid_size(64, 64, 1, 132, 2, 2), 132);
  EXPECT_EQ(persistent_grid_size(4, 4, 1, 1, 2, 2), 4);         // at least one cluster
  EXPECT_EQ(persistent_grid_size(4, 4, 1, 0), 1);
  // The helper's answer always passes check().
  for (int tm : {1, 3, 50})
    for (int tn : {1, 2, 77})
      for (auto [cm, cn] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{1, 2}, std::pair{2, 2}}) {
        const int g = persistent_grid_size(tm, tn, 2, 132, cm, cn);
        const PersistentArguments args{tm, tn, 2, g, RasterOrder::kHeuristic, 8, cm, cn};
        EXPECT_EQ(PersistentScheduler::check(args), nullptr) << tm << "x" << tn;
      }
}

// ------------------------------------------------------------------ validation

TEST(SchedulerValidation, RefusesBadArgumentsWithTheRule) {
  const PersistentArguments good{8, 8, 1, 16, RasterOrder::kAlongM, 4, 1, 1};
  ASSERT_EQ(PersistentScheduler::check(good), nullptr);
  auto refused = [&](auto edit, const std::string& names) {
    PersistentArguments a = good;
    edit(a);
    const char* why = PersistentScheduler::check(a);
    ASSERT_NE(why, nullptr) << names;
    EXPECT_NE(std::string(why).find(names), std::string::npos) << why;
  };
  refused([](auto& a) { a.tiles_m = 0; }, "tiles_m");
  refused([](auto& a) { a.tiles_n = -3; }, "tiles_n");
  refused([](auto& a) { a.batch = 0; }, "batch");
  for (int sw : {0, 3, 5, 6, 7, 12, 32, -1}) refused([&](auto& a) { a.swizzle = sw; }, "swizzle");
  refused([](auto& a) { a.cluster_m = 3; }, "cluster_m");
  refused([](auto& a) { a.cluster_n = 0; }, "cluster_n");
  refused([](auto& a) { a.cluster_m = 4; }, "cluster_m");
  refused([](auto& a) { a.raster = static_cast<RasterOrder>(7); }, "raster");
  refused([](auto& a) { a.grid_size = 0; }, "grid_size");
  refused([](auto& a) { a.grid_size = 15, a.cluster_n = 2; }, "multiple of cluster");
  refused([](auto& a) { a.grid_size = 6, a.cluster_m = 2, a.cluster_n = 2; }, "multiple");
  refused([](auto& a) { a.tiles_m = 1 << 16, a.tiles_n = 1 << 16; }, "2^31");
  refused([](auto& a) { a.tiles_m = 1 << 15, a.tiles_n = 1 << 15, a.batch = 2; }, "2^31");
  refused([](auto& a) { a.tiles_m = INT32_MAX, a.tiles_n = 1, a.cluster_m = 2, a.grid_size = 2; },
          "2^31");
  // Just under the limit is accepted: work + stride stays within int32.
  PersistentArguments big = good;
  big.tiles_m = 1 << 15;
  big.tiles_n = (1 << 16) - 1;
  big.grid_size = 132;
  EXPECT_EQ(PersistentScheduler::check(big), nullptr);
}

TEST(SchedulerValidation, LargestProblemMapsEndToEnd) {
  // Near the int32 limit the last indices still map in range and step past the end.
  const PersistentArguments args{1 << 15, (1 << 16) - 1, 1, 132, RasterOrder::kAlongN, 8, 1, 1};
  ASSERT_EQ(PersistentScheduler::check(args), nullptr);
  const PersistentScheduler s(args);
  const int total = s.total_tiles();
  std::set<std::pair<int, int>> tiles;
  for (int i = total - 2000; i < total; ++i) {
    const WorkTile t = s.get(i);
    ASSERT_TRUE(t.valid && t.in_bounds);
    ASSERT_LT(t.m_block, args.tiles_m);
    ASSERT_LT(t.n_block, args.tiles_n);
    ASSERT_TRUE(tiles.insert({t.m_block, t.n_block}).second);
    const WorkTile after = s.next(t);
    if (i + 132 >= total) {
      ASSERT_FALSE(after.valid);
    }
  }
}

}  // namespace persistent_scheduler_test
