// AttentionScheduler on the CPU: every (m_block, head, batch) tile exactly once over
// the persistent grid, the m-fastest order for non-causal, longest-first dealt
// serpentine for causal, and the causal load balance that serpentine buys.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "warpspec/schedule/attention.hpp"

// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace attention_scheduler_test {

using warpspec::schedule::AttentionOrder;
using warpspec::schedule::AttentionScheduler;
using warpspec::schedule::AttentionSchedulerArguments;
using warpspec::schedule::AttentionWork;

AttentionSchedulerArguments args(int tm, int h, int b, int grid, AttentionOrder o) {
  AttentionSchedulerArguments a;
  a.tiles_m = tm, a.heads = h, a.batch = b, a.grid_size = grid, a.order = o;
  return a;
}

TEST(AttentionScheduler, EveryTileOnceInBothOrders) {
  for (AttentionOrder o : {AttentionOrder::kMFastest, AttentionOrder::kLongestFirst})
    for (auto [tm, h, b] : {std::tuple{1, 1, 1}, std::tuple{64, 16, 2}, std::tuple{3, 7, 5}, std::tuple{9, 1, 13},
                            std::tuple{128, 32, 1}})
      for (int grid : {1, 7, 8, 10, 132, 1000}) {  // partial last rounds, odd and even
        const auto a = args(tm, h, b, warpspec::schedule::attention_grid_size(tm, h, b, grid), o);
        ASSERT_EQ(AttentionScheduler::check(a), nullptr);
        const AttentionScheduler s(a);
        EXPECT_EQ(s.total_tiles(), tm * h * b);
        EXPECT_LE(s.grid_size(), tm * h * b);
        std::vector<int> seen(size_t(tm) * h * b, 0);
        for (int cta = 0; cta < s.grid_size(); ++cta) {
          int prev_m = INT32_MAX;
          for (AttentionWork w = s.first(cta); w.valid; w = s.next(w)) {
            ASSERT_TRUE(w.m_block >= 0 && w.m_block < tm && w.head >= 0 && w.head < h && w.batch >= 0 && w.batch < b);
            ++seen[(size_t(w.batch) * h + w.head) * tm + w.m_block];
            if (o == AttentionOrder::kLongestFirst) {
              EXPECT_LE(w.m_block, prev_m) << "a CTA's tiles must get shorter";
              prev_m = w.m_block;
            }
          }
        }
        for (int x : seen) ASSERT_EQ(x, 1);
        // Every CTA gets floor or ceil of tiles / G.
        const int lo = s.total_tiles() / s.grid_size();
        for (int cta = 0; cta < s.grid_size(); ++cta) {
          int count = 0;
          for (AttentionWork w = s.first(cta); w.valid; w = s.next(w)) ++count;
          EXPECT_TRUE(count == lo || count == lo + 1) << "cta " << cta << " got " << count;
        }
      }
}

TEST(AttentionScheduler, MFastestKeepsHeadsTogether) {
  const AttentionScheduler s(args(8, 4, 2, 8, AttentionOrder::kMFastest));
  for (int i = 0; i < 64; ++i) {
    const AttentionWork w = s.get(i);
    EXPECT_EQ(w.m_block, i % 8);
    EXPECT_EQ(w.head, (i / 8) % 4);
    EXPECT_EQ(w.batch, i / 32);
  }
}

TEST(AttentionScheduler, LongestFirstDealsRoundsSerpentine) {
  // 16 m-blocks x 3 heads x 2 batches = 96 tiles over 10 CTAs: rounds 0..8 full, round 9
  // (odd) holds 6 tiles, which go to CTAs 4..9.
  const int tm = 16, h = 3, b = 2, grid = 10;
  const AttentionScheduler s(args(tm, h, b, grid, AttentionOrder::kLongestFirst));
  auto list = [&](int pos) {  // the work list: longest m-block first, (head, batch) fastest
    return std::tuple{tm - 1 - pos / (h * b), pos % h, (pos / h) % b};
  };
  for (int i = 0; i < 10 * grid; ++i) {
    const int round = i / grid, cta = i % grid;
    const int pos = round % 2 ? round * grid + grid - 1 - cta : i;
    const AttentionWork w = s.get(i);
    ASSERT_EQ(w.valid, pos < tm * h * b) << "index " << i;
    if (!w.valid) continue;
    EXPECT_EQ(std::tuple(w.m_block, w.head, w.batch), list(pos)) << "index " << i;
  }
  EXPECT_EQ(s.get(0).m_block, 15);
  EXPECT_EQ(s.get(grid).m_block, 12);  // round 1 (positions 10..19) reversed
  EXPECT_EQ(s.get(2 * grid - 1).m_block, 14);
  EXPECT_FALSE(s.get(9 * grid + 3).valid);
  EXPECT_TRUE(s.get(9 * grid + 4).valid);
  EXPECT_EQ(s.get(9 * grid + 9).m_block, 0);
}

// Causal cost of a tile ~ the key blocks it reads (m_block + 1 when block_n = block_m).
// The benchmark's shapes (16k tokens, hidden 2048) on 132 SMs: the busiest CTA must
// stay within 1% of the mean (the plain stride c, c+G, ... was 3-12% above it).
TEST(AttentionScheduler, LongestFirstBalancesCausalLoad) {
  for (auto [tm, h, b] : {std::tuple{64, 16, 2}, std::tuple{128, 16, 1}, std::tuple{64, 32, 4}, std::tuple{128, 32, 1},
                          std::tuple{64, 8, 2}, std::tuple{128, 8, 1}, std::tuple{32, 16, 4}}) {
    const int grid = warpspec::schedule::attention_grid_size(tm, h, b, 132);
    const AttentionScheduler s(args(tm, h, b, grid, AttentionOrder::kLongestFirst));
    std::vector<double> load(grid, 0.0);
    double total = 0;
    for (int cta = 0; cta < grid; ++cta)
      for (AttentionWork w = s.first(cta); w.valid; w = s.next(w)) load[cta] += w.m_block + 1, total += w.m_block + 1;
    const double worst = *std::max_element(load.begin(), load.end());
    EXPECT_LE(worst, 1.01 * total / grid) << tm << " x " << h << " x " << b;
  }
}

// L2 sections: the work list (positions 0..total, as the dynamic schedule hands them out)
// covers every tile once, section by section (each section's (split, batch, head) indices
// consecutive, the last one shorter), each longest first; past the end, invalid. Without
// sections (0, or one covering every head), the list is the plain longest-first one.
TEST(AttentionScheduler, L2SectionsRunSectionBySectionLongestFirst) {
  for (auto [tm, h, b, splits, section] : {std::tuple{4, 16, 32, 1, 128}, std::tuple{4, 16, 32, 1, 96},
                                           std::tuple{128, 16, 1, 1, 4}, std::tuple{3, 7, 5, 1, 6},
                                           std::tuple{5, 6, 2, 3, 4}, std::tuple{9, 1, 13, 1, 1}}) {
    auto a = args(tm, h, b, 132, AttentionOrder::kLongestFirst);
    a.splits = splits, a.section = section;
    ASSERT_EQ(AttentionScheduler::check(a), nullptr);
    const AttentionScheduler s(a);
    const int all = h * b * splits, sections = (all + section - 1) / section;
    EXPECT_EQ(s.sections(), sections);
    std::vector<int> seen(size_t(tm) * all, 0);
    int pos = 0;
    for (int sec = 0; sec < sections; ++sec) {
      const int lo = sec * section, n = std::min(section, all - lo);
      for (int rank = 0; rank < tm; ++rank)
        for (int i = 0; i < n; ++i, ++pos) {
          const AttentionWork w = s.at(uint32_t(pos));
          ASSERT_TRUE(w.valid) << pos;
          const int idx = (w.split * b + w.batch) * h + w.head;  // (split, batch, head), head fastest
          ASSERT_EQ(idx, lo + i) << "position " << pos << ": section " << sec << " rank " << rank;
          ASSERT_EQ(w.m_block, tm - 1 - rank) << "position " << pos;
          ++seen[size_t(idx) * tm + w.m_block];
        }
    }
    EXPECT_EQ(pos, s.total_tiles());
    for (int x : seen) ASSERT_EQ(x, 1);
    for (int past = 0; past < 300; ++past) EXPECT_FALSE(s.at(uint32_t(pos + past)).valid);
  }
  // 0 and a section of every head give the plain order.
  auto plain = args(6, 5, 3, 7, AttentionOrder::kLongestFirst);
  auto whole = plain;
  whole.section = 15;
  const AttentionScheduler s0(plain), s1(whole);
  EXPECT_EQ(s0.sections(), 1);
  EXPECT_EQ(s1.sections(), 1);
  for (int pos = 0; pos < 6 * 5 * 3; ++pos) {
    const AttentionWork x = s0.at(uint32_t(pos)), y = s1.at(uint32_t(pos));
    EXPECT_EQ(std::tuple(x.m_block, x.head, x.batch), std::tuple(y.m_block, y.head, y.batch)) << pos;
  }
  auto bad = args(6, 5, 3, 7, AttentionOrder::kMFastest);
  bad.section = 2;
  EXPECT_NE(AttentionScheduler::check(bad), nullptr) << "sections are for longest-first";
  bad = plain;
  bad.section = -1;
  EXPECT_NE(AttentionScheduler::check(bad), nullptr);
}

TEST(AttentionScheduler, CheckRefusesBadArguments) {
  EXPECT_NE(AttentionScheduler::check(args(0, 1, 1, 1, AttentionOrder::kMFastest)), nullptr);
  EXPECT_NE(AttentionScheduler::check(args(1, 0, 1, 1, AttentionOrder::kMFastest)), nullptr);
  EXPECT_NE(AttentionScheduler::check(args(1, 1, 0, 1, AttentionOrder::kMFastest)), nullptr);
  EXPECT_NE(AttentionScheduler::check(args(1, 1, 1, 0, AttentionOrder::kMFastest)), nullptr);
  EXPECT_NE(AttentionScheduler::check(args(1, 1, 1, 1, AttentionOrder(7))), nullptr);
  EXPECT_NE(AttentionScheduler::check(args(1 << 20, 1 << 10, 4, 132, AttentionOrder::kMFastest)), nullptr);
}

}  // namespace attention_scheduler_test
