// The GEMM's K decomposition on the host: the heuristic's choices (src/gemm/
// decomposition.hpp), the fixup workspace size, and the refusals of the new GemmArgs
// fields (decomposition, splits, workspace), which come before the device check.
#include <gtest/gtest.h>

#include <string>

#include "host/test_memory.hpp"
#include "src/gemm/decomposition.hpp"
#include "warpspec/gemm/fixup_layout.hpp"
#include "warpspec/warpspec.hpp"

// A named namespace: the host tests build as one unity translation unit.
namespace gemm_decomposition_test {

using warpspec::DType;
using warpspec::GemmArgs;
using warpspec::GemmDecomposition;
using warpspec::StatusCode;
using warpspec::TensorView;
using warpspec::gemm_impl::choose_decomposition;
using warpspec::gemm_impl::fixup_workspace_bytes;
using warpspec::schedule::KDecomposition;

constexpr int kSms = 132;

TEST(GemmDecomposition, HeuristicSplitsFewTilesWithLongK) {
  // 16 x 4096 x 4096 on 128 x 64 tiles: 64 tiles, 64 k-iterations: half the SMs idle.
  auto c = choose_decomposition(GemmDecomposition::kHeuristic, 0, 64, 64, kSms);
  EXPECT_EQ(c.decomposition, KDecomposition::kSplitK);
  EXPECT_GE(c.splits, 2);
  EXPECT_LE(int64_t{64} * c.splits, 2 * kSms);  // no more than two waves of units
  // One tile, very long K: many splits.
  c = choose_decomposition(GemmDecomposition::kHeuristic, 0, 1, 512, kSms);
  EXPECT_EQ(c.decomposition, KDecomposition::kSplitK);
  EXPECT_GE(c.splits, 8);
}

TEST(GemmDecomposition, HeuristicKeepsWholeWavesDataParallel) {
  // Whole waves: nothing to balance.
  EXPECT_EQ(choose_decomposition(GemmDecomposition::kHeuristic, 0, 2 * kSms, 64, kSms).decomposition,
            KDecomposition::kDataParallel);
  EXPECT_EQ(choose_decomposition(GemmDecomposition::kHeuristic, 0, kSms, 1024, kSms).decomposition,
            KDecomposition::kDataParallel);
  // Short K: the fixup would cost more than the idle SMs.
  EXPECT_EQ(choose_decomposition(GemmDecomposition::kHeuristic, 0, 10, 2, kSms).decomposition,
            KDecomposition::kDataParallel);
  // K = 0 is always data-parallel, whatever was asked.
  for (auto d : {GemmDecomposition::kHeuristic, GemmDecomposition::kSplitK, GemmDecomposition::kStreamK})
    EXPECT_EQ(choose_decomposition(d, 0, 10, 0, kSms).decomposition, KDecomposition::kDataParallel);
}

TEST(GemmDecomposition, HeuristicStreamsARaggedLastWave) {
  // 133 tiles: a second wave of one tile would double the time; stream-K spreads it.
  auto c = choose_decomposition(GemmDecomposition::kHeuristic, 0, kSms + 1, 128, kSms);
  EXPECT_NE(c.decomposition, KDecomposition::kDataParallel);
  // Stream-K is chosen over split-K when there are more tiles than SMs (less than two waves).
  c = choose_decomposition(GemmDecomposition::kHeuristic, 0, kSms + 60, 128, kSms);
  EXPECT_EQ(c.decomposition, KDecomposition::kStreamK);
  EXPECT_EQ(choose_decomposition(GemmDecomposition::kHeuristic, 0, 96, 128, kSms).decomposition,
            KDecomposition::kStreamK);
  // Data-parallel waves before a ragged one are not streamed in part (measured slower,
  // bench/NOTES.md v47: 448 tiles of 128 k-iterations, -6%), unless the run of waves is long.
  c = choose_decomposition(GemmDecomposition::kHeuristic, 0, 3 * kSms + 20, 128, kSms);
  EXPECT_EQ(c.decomposition, KDecomposition::kDataParallel);
  // Every tile streamed must beat whole waves at stream-K's measured efficiency: 224 tiles of
  // 64 k-iterations stay data-parallel (streamed: -8%), 96 of 128 are streamed (+13%).
  EXPECT_EQ(choose_decomposition(GemmDecomposition::kHeuristic, 0, 224, 64, kSms).decomposition,
            KDecomposition::kDataParallel);
}

TEST(GemmDecomposition, HeuristicStreamsTheTailOfManyWaves) {
  const auto pick = [](int64_t tiles, int64_t k, bool stream_tail) {
    return choose_decomposition(GemmDecomposition::kHeuristic, 0, tiles, k, kSms, stream_tail).decomposition;
  };
  // 16-bit launches on the 128 x 256 tile, the shapes measured (bench/NOTES.md v44).
  EXPECT_EQ(pick(2048, 128, true), KDecomposition::kStreamK);  // 8192^3: 15.5 waves
  EXPECT_EQ(pick(1792, 64, true), KDecomposition::kStreamK);   // 4096 x 14336 x 4096: 13.6
  EXPECT_EQ(pick(8192, 256, true), KDecomposition::kStreamK);  // 16384^3: 62.1
  EXPECT_EQ(pick(512, 64, true), KDecomposition::kDataParallel);    // 4096^3: 3.9 waves
  EXPECT_EQ(pick(1024, 448, true), KDecomposition::kDataParallel);  // 4096 x 8192 x 28672: 7.8
  EXPECT_EQ(pick(2048, 16, true), KDecomposition::kDataParallel);   // 8192 x 8192 x 1024: short K
  EXPECT_EQ(pick(20 * kSms, 128, true), KDecomposition::kDataParallel);  // whole waves
  // Launches that keep data-parallel (FP8's loop across tiles): the tail stays.
  EXPECT_EQ(pick(2048, 128, false), KDecomposition::kDataParallel);
  EXPECT_EQ(pick(4096, 64, false), KDecomposition::kDataParallel);  // 8192^3 on FP8's 128 x 128
}

TEST(GemmDecomposition, ExplicitRequestsAreHonoured) {
  auto c = choose_decomposition(GemmDecomposition::kSplitK, 5, 2 * kSms, 64, kSms);
  EXPECT_EQ(c.decomposition, KDecomposition::kSplitK);
  EXPECT_EQ(c.splits, 5);
  c = choose_decomposition(GemmDecomposition::kSplitK, 300, 1, 2, kSms);  // more splits than k-iterations
  EXPECT_EQ(c.splits, 300);
  c = choose_decomposition(GemmDecomposition::kSplitK, 0, 1, 64, kSms);  // splits picked
  EXPECT_GE(c.splits, 2);
  EXPECT_EQ(choose_decomposition(GemmDecomposition::kStreamK, 0, 2 * kSms, 64, kSms).decomposition,
            KDecomposition::kStreamK);
  EXPECT_EQ(choose_decomposition(GemmDecomposition::kDataParallel, 0, 1, 4096, kSms).decomposition,
            KDecomposition::kDataParallel);
}

TEST(GemmDecomposition, WorkspaceBytes) {
  using warpspec::gemm_impl::fixup_flag_bytes;
  EXPECT_EQ(fixup_workspace_bytes(0, 128, 256), 0u);
  EXPECT_EQ(fixup_flag_bytes(1), 256u);   // 2 flags, padded to 256 bytes
  EXPECT_EQ(fixup_flag_bytes(64), 512u);  // 128 flags
  EXPECT_EQ(fixup_workspace_bytes(1, 128, 256), 256u + 128u * 256u * 4u);
  EXPECT_EQ(fixup_workspace_bytes(132, 128, 128), 1280u + 132u * 128u * 128u * 4u);
  EXPECT_EQ(fixup_workspace_bytes(3, 128, 64) % 16, 0u);  // partials stay 16-byte aligned
}

void* fake(uintptr_t offset = 0) { return warpspec::test::test_pointer(offset); }

GemmArgs valid_args() {
  GemmArgs g;
  g.a = TensorView::matrix(fake(), DType::kBF16, 64, 32, 32);
  g.b = TensorView::matrix(fake(0x10000), DType::kBF16, 32, 48, 32, /*row_major=*/false);
  g.d = TensorView::matrix(fake(0x20000), DType::kBF16, 64, 48, 48);
  return g;
}

void expect_refused(const GemmArgs& g, StatusCode code, const std::string& names) {
  const warpspec::Status s = warpspec::check(g);
  EXPECT_EQ(s.code(), code) << s.to_string();
  if (s.ok()) return;
  EXPECT_NE(s.message().find(names), std::string::npos) << s.message();
  const warpspec::Status r = warpspec::gemm(g, nullptr);
  EXPECT_EQ(r.code(), s.code());
  EXPECT_EQ(r.message(), s.message());
  size_t bytes = 7;
  EXPECT_EQ(warpspec::gemm_workspace_size(g, &bytes).code(), s.code());
  EXPECT_EQ(bytes, 0u);
}

TEST(GemmDecomposition, RefusalsNameTheArgumentAndTheRule) {
  GemmArgs g = valid_args();
  g.decomposition = GemmDecomposition(4);
  expect_refused(g, StatusCode::kInvalidArgument, "decomposition: unknown value 4");
  g = valid_args();
  g.decomposition = GemmDecomposition::kSplitK;
  g.splits = -1;
  expect_refused(g, StatusCode::kInvalidArgument, "splits: must be 0 (automatic) or 1..256, got -1");
  g.splits = 257;
  expect_refused(g, StatusCode::kInvalidArgument, "splits: must be 0 (automatic) or 1..256, got 257");
  for (auto d : {GemmDecomposition::kHeuristic, GemmDecomposition::kDataParallel, GemmDecomposition::kStreamK}) {
    g = valid_args();
    g.decomposition = d;
    g.splits = 2;
    expect_refused(g, StatusCode::kInvalidArgument, "splits: 2 given, but splits apply only with decomposition kSplitK");
  }
  g = valid_args();
  g.workspace_bytes = 4096;
  expect_refused(g, StatusCode::kInvalidArgument, "workspace: null with workspace_bytes 4096");
  g = valid_args();
  g.workspace = fake(0x40008);
  g.workspace_bytes = 4096;
  expect_refused(g, StatusCode::kMisaligned, "workspace: must be 16-byte aligned");
}

TEST(GemmDecomposition, ValidChoicesPassOrNameTheDevice) {
  for (auto d : {GemmDecomposition::kHeuristic, GemmDecomposition::kDataParallel, GemmDecomposition::kSplitK,
                 GemmDecomposition::kStreamK}) {
    GemmArgs g = valid_args();
    g.decomposition = d;
    if (d == GemmDecomposition::kSplitK) g.splits = 256;
    const warpspec::Status s = warpspec::check(g);
    EXPECT_TRUE(s.ok() || s.code() == StatusCode::kNoDevice) << s.to_string();
  }
  size_t bytes = 0;
  EXPECT_EQ(warpspec::gemm_workspace_size(valid_args(), nullptr).code(), StatusCode::kInvalidArgument);
  const warpspec::Status s = warpspec::gemm_workspace_size(valid_args(), &bytes);
  EXPECT_TRUE(s.ok() || s.code() == StatusCode::kNoDevice) << s.to_string();
}

}  // namespace gemm_decomposition_test
