// The measuring rules of the benchmarks, on the CPU: the ABBA order of the interleaved
// timing, the median and spread over rounds, and the FLOP count of the causal mask.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "../../testing/mask_count.hpp"
#include "../../tools/timing.hpp"
#include "common/seed.hpp"

// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace measurement_test {

using warpspec::tools::Spread;
using warpspec::tools::detail::block_order;

TEST(Timing, BlocksAreAbbaAndBaabOnOddRounds) {
  EXPECT_EQ(block_order(2, false), (std::vector<int>{0, 1, 1, 0}));
  EXPECT_EQ(block_order(2, true), (std::vector<int>{1, 0, 0, 1}));
  EXPECT_EQ(block_order(3, false), (std::vector<int>{0, 1, 2, 2, 1, 0}));
  EXPECT_EQ(block_order(1, true), (std::vector<int>{0, 0}));
  // Every candidate runs equally often, and its mean position in the block is the same.
  for (int n = 1; n <= 4; ++n)
    for (bool rev : {false, true}) {
      const auto o = block_order(n, rev);
      ASSERT_EQ(o.size(), size_t(2 * n));
      std::vector<int> count(o.size() / 2), pos_sum(o.size() / 2);
      for (size_t i = 0; i < o.size(); ++i) ++count[size_t(o[i])], pos_sum[size_t(o[i])] += int(i);
      for (int c = 0; c < n; ++c) {
        EXPECT_EQ(count[size_t(c)], 2);
        EXPECT_EQ(pos_sum[size_t(c)], 2 * n - 1) << "candidate " << c << " sits earlier or later than the others";
      }
    }
}

TEST(Timing, SpreadIsMedianAndExtremesOfRounds) {
  const Spread odd = warpspec::tools::spread_of({3.0, 1.0, 2.0, 9.0, 4.0});
  EXPECT_EQ(odd.median, 3.0);
  EXPECT_EQ(odd.lo, 1.0);
  EXPECT_EQ(odd.hi, 9.0);
  const Spread even = warpspec::tools::spread_of({4.0, 1.0, 2.0, 8.0});
  EXPECT_EQ(even.median, 3.0);
  // A rate from a time: the slowest round is the least rate.
  const Spread tf = warpspec::tools::tflops_of(Spread{2.0, 1.0, 4.0}, 4e12);
  EXPECT_DOUBLE_EQ(tf.median, 2000.0);
  EXPECT_DOUBLE_EQ(tf.lo, 1000.0);
  EXPECT_DOUBLE_EQ(tf.hi, 4000.0);
  EXPECT_EQ(warpspec::tools::format_spread(Spread{652.14, 648.0, 655.25}, 1), "652.1 (648.0-655.2)");
}

int64_t brute_pairs(int64_t sq, int64_t sk) {
  int64_t n = 0;
  for (int64_t i = 0; i < sq; ++i)
    for (int64_t j = 0; j < sk; ++j) n += j <= i + sk - sq;
  return n;
}

TEST(MaskCount, CausalPairsMatchBruteForce) {
  using warpspec::testbed::attention_pairs;
  for (int64_t sq = 1; sq <= 40; ++sq)
    for (int64_t sk = 1; sk <= 40; ++sk) {
      ASSERT_EQ(attention_pairs(sq, sk, true), double(brute_pairs(sq, sk))) << sq << " x " << sk;
      ASSERT_EQ(attention_pairs(sq, sk, false), double(sq * sk));
    }
  const uint64_t seed = warpspec::test::fresh_seed();
  SCOPED_TRACE(warpspec::test::seed_note(seed));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> len(1, 3000);
  for (int t = 0; t < 20; ++t) {
    const int64_t sq = len(rng), sk = len(rng);
    EXPECT_EQ(attention_pairs(sq, sk, true), double(brute_pairs(sq, sk))) << sq << " x " << sk;
  }
  // Square: s (s + 1) / 2, not the s^2 / 2 a halving gives; sq > sk leaves rows empty.
  EXPECT_EQ(attention_pairs(8192, 8192, true), 8192.0 * 8193 / 2);
  EXPECT_EQ(attention_pairs(1000, 300, true), 300.0 * 301 / 2);
  EXPECT_EQ(attention_pairs(300, 1000, true), 300.0 * 700 + 300.0 * 301 / 2);
  EXPECT_EQ(attention_pairs(0, 10, true), 0.0);
}

}  // namespace measurement_test
