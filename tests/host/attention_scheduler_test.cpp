// AttentionScheduler on the CPU: every (m_block, head, batch) tile exactly once over
// the persistent grid, the m-fastest order for non-causal, longest-first for causal.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "warpspec/schedule/attention.hpp"

namespace {

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
      for (int grid : {1, 7, 132, 1000}) {
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

TEST(AttentionScheduler, LongestFirstHandsOutLongTilesFirst) {
  const AttentionScheduler s(args(16, 3, 2, 10, AttentionOrder::kLongestFirst));
  std::vector<int> m;
  for (int i = 0; i < s.total_tiles(); ++i) m.push_back(s.get(i).m_block);
  EXPECT_TRUE(std::is_sorted(m.rbegin(), m.rend()));
  EXPECT_EQ(m.front(), 15);
  EXPECT_EQ(m.back(), 0);
  EXPECT_FALSE(s.get(s.total_tiles()).valid);
}

TEST(AttentionScheduler, CheckRefusesBadArguments) {
  EXPECT_NE(AttentionScheduler::check(args(0, 1, 1, 1, AttentionOrder::kMFastest)), nullptr);
  EXPECT_NE(AttentionScheduler::check(args(1, 0, 1, 1, AttentionOrder::kMFastest)), nullptr);
  EXPECT_NE(AttentionScheduler::check(args(1, 1, 0, 1, AttentionOrder::kMFastest)), nullptr);
  EXPECT_NE(AttentionScheduler::check(args(1, 1, 1, 0, AttentionOrder::kMFastest)), nullptr);
  EXPECT_NE(AttentionScheduler::check(args(1, 1, 1, 1, AttentionOrder(7))), nullptr);
  EXPECT_NE(AttentionScheduler::check(args(1 << 20, 1 << 10, 4, 132, AttentionOrder::kMFastest)), nullptr);
}

}  // namespace
