// The attention yardstick (testing/attention_check.hpp): FlashAttention-3's 2x the plain
// computation's error, never below what rounding the exact answer to O's dtype costs.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "testing/attention_check.hpp"
#include "testing/convert.hpp"

namespace attention_check_test {

using warpspec::DType;
namespace testbed = warpspec::testbed;

// One query row, d = 8: a "plain" computation that lands on the exact answer everywhere
// (chance, on so few outputs) leaves a yardstick of half an ulp of the largest output, and a
// kernel whose O is the exact answer rounded once passes.
TEST(AttentionCheck, YardstickNeverBelowRoundingTheExactAnswer) {
  for (DType t : {DType::kBF16, DType::kFP16}) {
    const std::vector<float> ref = {1.0f + 1.0f / 512 + 1.0f / 4096, -0.75f, 0.3f, 1.9f, 0.01f, -1.3f, 0.5f, 1.01f};
    std::vector<unsigned char> o(ref.size() * 2);
    for (size_t i = 0; i < ref.size(); ++i) testbed::store_float(t, o.data(), i, ref[i]);
    const std::vector<float> plain = ref;  // error 0: the chance the old rule failed on
    const auto e = testbed::compare_attention_o(t, o.data(), 8, 8, 8, 1, 1, 1, 8, ref.data(), plain.data());
    double rounding = 0;
    for (size_t i = 0; i < ref.size(); ++i)
      rounding = std::max(rounding, double(std::fabs(testbed::load_float(t, o.data(), i) - ref[i])));
    ASSERT_GT(rounding, 0.0);  // the case rounds: it tests something
    EXPECT_EQ(e.o, rounding);
    EXPECT_EQ(e.o_plain, testbed::unit_roundoff(t) * double(1.9f));  // rounding's bound at max |ref|
    EXPECT_LE(e.o, testbed::attention_o_tolerance(t, e.o_plain, e.max_ref, 1.9, 1));
    // A wrong answer (one element off by 4 ulps) still fails.
    testbed::store_float(t, o.data(), 3, ref[3] + 4 * 2 * testbed::unit_roundoff(t));
    const auto bad = testbed::compare_attention_o(t, o.data(), 8, 8, 8, 1, 1, 1, 8, ref.data(), plain.data());
    EXPECT_GT(bad.o, testbed::attention_o_tolerance(t, bad.o_plain, bad.max_ref, 1.9, 1));
  }
}

// The rounding of the exact answer can itself land near by chance (outputs that are all
// nearly representable): the yardstick is rounding's bound, so a kernel that rounds P once
// more and lands 0.7 ulp away still passes (the fuzz's varlen seed 670129198: 8 outputs,
// error 0.0027 at |O| ~ 1 against a realised rounding of 0.0012).
TEST(AttentionCheck, YardstickIsRoundingsBoundNotItsChance) {
  const DType t = DType::kBF16;
  // ref[4] is 0.3 ulp above 1.5 (ulp 1/128 at [1, 2)); the kernel's O there is the next
  // value up, 0.7 ulp away: one more rounding's worth. The realised rounding (0.3 ulp) would
  // have set a yardstick of 0.6 ulp.
  const std::vector<float> ref = {1.0f + 1.0f / 4096, 0.5f, -0.75f, 0.25f, 1.5f + 0.3f / 128, -1.0f, 0.125f, 1.25f};
  const std::vector<float> plain = ref;
  std::vector<unsigned char> o(ref.size() * 2);
  for (size_t i = 0; i < ref.size(); ++i) testbed::store_float(t, o.data(), i, ref[i]);
  testbed::store_float(t, o.data(), 4, 1.5f + 1.0f / 128);
  const auto e = testbed::compare_attention_o(t, o.data(), 8, 8, 8, 1, 1, 1, 8, ref.data(), plain.data());
  EXPECT_NEAR(e.o, 0.7 / 128, 1e-6);
  EXPECT_LE(e.o, testbed::attention_o_tolerance(t, e.o_plain, e.max_ref, 1.5, 1));
}

// Where the plain computation's error is larger than rounding, it is the yardstick.
TEST(AttentionCheck, PlainErrorAboveRoundingIsKept) {
  const std::vector<float> ref = {0.25f, 0.5f};
  std::vector<float> plain = {0.25f + 0.01f, 0.5f};
  std::vector<unsigned char> o(4);
  testbed::store_float(DType::kBF16, o.data(), 0, 0.25f);
  testbed::store_float(DType::kBF16, o.data(), 1, 0.5f);
  const auto e = testbed::compare_attention_o(DType::kBF16, o.data(), 2, 2, 2, 1, 1, 1, 2, ref.data(), plain.data());
  EXPECT_NEAR(e.o_plain, 0.01, 1e-6);
  EXPECT_EQ(e.o, 0.0);
}

}  // namespace attention_check_test
