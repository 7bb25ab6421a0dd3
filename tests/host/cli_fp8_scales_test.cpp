// The FP8 scales `gemm` and `bench gemm --dtype e4m3 --scaling tensor|row|block` pass
// (tools/gemm_scales.hpp): ours are accepted by the library's validation in every mode on
// a shape off the 128 grid (the refusals come before the device check, so this runs with
// or without a GPU); each layout maps an operand element to its scale; the peer's block
// scale_b (cuBLASLt's BLK128x128_32F) holds the same blocks K-contiguous in 16-byte columns.
#include <gtest/gtest.h>

#include <cstdint>

#include "host/test_memory.hpp"
#include "tools/gemm_scales.hpp"
#include "warpspec/warpspec.hpp"

// A named namespace: the host tests build as one unity translation unit.
namespace cli_fp8_scales_test {

using warpspec::DType;
using warpspec::GemmArgs;
using warpspec::StatusCode;
using warpspec::TensorView;
using warpspec::tools::ScaleLayout;
using warpspec::tools::ScaleMode;

// M not a multiple of 4 (scale_a's columns are padded), K 4.1 blocks of 128 (a multiple
// of 16: FP8 rows are 16-byte aligned), N 1.6 blocks.
constexpr int64_t kM = 301, kN = 200, kK = 528;

float* fake(uintptr_t offset) { return static_cast<float*>(warpspec::test::test_pointer(offset)); }

GemmArgs fp8_args(ScaleMode s, const ScaleLayout& b) {
  GemmArgs g;
  g.a = TensorView::matrix(fake(0), DType::kE4M3, kM, kK, kK);
  g.b = TensorView::matrix(fake(0x100000), DType::kE4M3, kK, kN, kK, /*row_major=*/false);
  g.d = TensorView::matrix(fake(0x200000), DType::kBF16, kM, kN, kN);
  g.scale_a = warpspec::tools::scale_a_layout(s, kM, kK).view(fake(0x400000));
  g.scale_b = b.view(fake(0x500000));
  g.scaling = s == ScaleMode::kBlock ? warpspec::GemmScaling::kBlock : warpspec::GemmScaling::kTensorOrRow;
  return g;
}

// The offset of operand element (r, c)'s scale (testing/dequant.hpp reads it so).
int64_t offset(const ScaleLayout& l, int64_t r, int64_t c) {
  return (r / l.block_r) * l.stride_r + (c / l.block_c) * l.stride_c;
}

TEST(CliFp8Scales, OursAreAcceptedInEveryMode) {
  using warpspec::tools::peer_scale_b_layout;
  using warpspec::tools::scale_b_layout;
  for (ScaleMode s : {ScaleMode::kTensor, ScaleMode::kRow, ScaleMode::kBlock}) {
    // The library takes block scales in any strides: the peer's layout is accepted too.
    for (const ScaleLayout& b : {scale_b_layout(s, kK, kN), peer_scale_b_layout(s, kK, kN)}) {
      const warpspec::Status st = warpspec::check(fp8_args(s, b));
      EXPECT_TRUE(st.ok() || st.code() == StatusCode::kNoDevice) << scale_mode_name(s) << ": " << st.to_string();
    }
  }
}

TEST(CliFp8Scales, EachOperandElementFindsItsScale) {
  using warpspec::tools::scale_a_layout;
  using warpspec::tools::scale_b_layout;
  for (int64_t r : {int64_t(0), int64_t(127), int64_t(128), kM - 1})
    for (int64_t c : {int64_t(0), int64_t(127), int64_t(128), int64_t(300), kK - 1}) {
      EXPECT_EQ(offset(scale_a_layout(ScaleMode::kTensor, kM, kK), r, c), 0);
      EXPECT_EQ(offset(scale_a_layout(ScaleMode::kRow, kM, kK), r, c), r);  // one per row of A
      EXPECT_EQ(offset(scale_a_layout(ScaleMode::kBlock, kM, kK), r, c), r + (c / 128) * 304);  // M-contiguous, padded
    }
  for (int64_t r : {int64_t(0), int64_t(127), int64_t(128), kK - 1})
    for (int64_t c : {int64_t(0), int64_t(127), int64_t(128), kN - 1}) {
      EXPECT_EQ(offset(scale_b_layout(ScaleMode::kTensor, kK, kN), r, c), 0);
      EXPECT_EQ(offset(scale_b_layout(ScaleMode::kRow, kK, kN), r, c), c);  // one per column of B
      EXPECT_EQ(offset(scale_b_layout(ScaleMode::kBlock, kK, kN), r, c), (r / 128) * 2 + c / 128);  // row-major
      // cuBLASLt's: the 5 K blocks of a column of blocks contiguous, columns 8 floats apart.
      EXPECT_EQ(offset(warpspec::tools::peer_scale_b_layout(ScaleMode::kBlock, kK, kN), r, c), r / 128 + (c / 128) * 8);
    }
}

TEST(CliFp8Scales, AllocationsCoverTheLastScale) {
  using warpspec::tools::scale_a_layout;
  EXPECT_EQ(scale_a_layout(ScaleMode::kTensor, kM, kK).elements(), 1);
  EXPECT_EQ(scale_a_layout(ScaleMode::kRow, kM, kK).elements(), kM);
  EXPECT_EQ(warpspec::tools::scale_b_layout(ScaleMode::kRow, kK, kN).elements(), kN);
  EXPECT_EQ(scale_a_layout(ScaleMode::kBlock, kM, kK).elements(), 4 * 304 + kM);
  EXPECT_EQ(warpspec::tools::scale_b_layout(ScaleMode::kBlock, kK, kN).elements(), 10);
  EXPECT_EQ(warpspec::tools::peer_scale_b_layout(ScaleMode::kBlock, kK, kN).elements(), 8 + 5);
  // Only block scale_b differs between ours and the peer's (the runner then fills a copy).
  for (ScaleMode s : {ScaleMode::kTensor, ScaleMode::kRow, ScaleMode::kBlock})
    EXPECT_EQ(same_layout(warpspec::tools::scale_b_layout(s, kK, kN), warpspec::tools::peer_scale_b_layout(s, kK, kN)),
              s != ScaleMode::kBlock);
}

TEST(CliFp8Scales, ModesParseByName) {
  for (ScaleMode s : {ScaleMode::kTensor, ScaleMode::kRow, ScaleMode::kBlock}) {
    ScaleMode parsed = ScaleMode::kNone;
    EXPECT_TRUE(warpspec::tools::parse_scale_mode(scale_mode_name(s), &parsed));
    EXPECT_EQ(parsed, s);
  }
  ScaleMode parsed = ScaleMode::kNone;
  for (const char* bad : {"none", "", "Block", "col"}) EXPECT_FALSE(warpspec::tools::parse_scale_mode(bad, &parsed));
  EXPECT_EQ(parsed, ScaleMode::kNone);
}

}  // namespace cli_fp8_scales_test
