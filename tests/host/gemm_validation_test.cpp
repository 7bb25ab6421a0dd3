// GEMM argument validation: every refusal names the argument and the rule, and comes
// before the device check, so these run (and mean the same) with or without a GPU.
// Nothing here launches: pointers come from test_pointer (real device memory on a
// Hopper machine, fake aligned addresses elsewhere).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "host/test_memory.hpp"
#include "warpspec/warpspec.hpp"

// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace gemm_validation_test {

using warpspec::DType;
using warpspec::GemmArgs;
using warpspec::StatusCode;
using warpspec::TensorView;

void* fake(uintptr_t offset = 0) { return warpspec::test::test_pointer(offset); }

// 64x32 (row-major A) times 32x48 (column-major B) into 64x48 row-major D.
GemmArgs valid_args() {
  GemmArgs g;
  g.a = TensorView::matrix(fake(), DType::kBF16, 64, 32, 32);
  g.b = TensorView::matrix(fake(0x10000), DType::kBF16, 32, 48, 32, /*row_major=*/false);
  g.d = TensorView::matrix(fake(0x20000), DType::kBF16, 64, 48, 48);
  return g;
}

bool accepted(const warpspec::Status& s) { return s.ok() || s.code() == StatusCode::kNoDevice; }

// The refusal happens before the device check: same code on any machine.
void expect_refused(const GemmArgs& g, StatusCode code, const std::string& names) {
  warpspec::Status s = warpspec::check(g);
  EXPECT_EQ(s.code(), code) << s.to_string();
  if (s.ok()) return;  // the pointers are fake: never run a case the check accepted
  EXPECT_NE(s.message().find(names), std::string::npos) << "message should name '" << names << "': " << s.message();
  // gemm() refuses identically (and launches nothing).
  warpspec::Status r = warpspec::gemm(g, nullptr);
  EXPECT_EQ(r.code(), s.code());
  EXPECT_EQ(r.message(), s.message());
}

TEST(GemmValidation, ValidArgumentsPassValidation) {
  warpspec::Status s = warpspec::check(valid_args());
  // Without a Hopper GPU the only possible refusal is the device check.
  if (!warpspec::check_device().ok()) {
    EXPECT_EQ(s.code(), StatusCode::kNoDevice) << s.to_string();
  } else {
    EXPECT_TRUE(s.ok()) << s.to_string();
  }
}

TEST(GemmValidation, NullPointers) {
  GemmArgs g = valid_args();
  g.a.data = nullptr;
  expect_refused(g, StatusCode::kInvalidArgument, "a.data");
  g = valid_args();
  g.d.data = nullptr;
  expect_refused(g, StatusCode::kInvalidArgument, "d.data");
  g = valid_args();
  g.beta = 0.5f;  // C is needed now
  expect_refused(g, StatusCode::kInvalidArgument, "c.data");
}

TEST(GemmValidation, MisalignedPointerAndLeadingDimension) {
  GemmArgs g = valid_args();
  g.a.data = fake(8);
  expect_refused(g, StatusCode::kMisaligned, "a.data");
  g = valid_args();
  g.d = TensorView::matrix(fake(0x20000), DType::kBF16, 64, 48, 52);  // 104-byte rows
  expect_refused(g, StatusCode::kMisaligned, "d.stride[0]");
  g = valid_args();
  g.b = TensorView::matrix(fake(0x10000), DType::kBF16, 32, 48, 36, false);
  expect_refused(g, StatusCode::kMisaligned, "b.stride[1]");
}

TEST(GemmValidation, ShapesMustAgree) {
  GemmArgs g = valid_args();
  g.b = TensorView::matrix(fake(0x10000), DType::kBF16, 40, 48, 40, false);
  expect_refused(g, StatusCode::kInvalidArgument, "b.shape");
  g = valid_args();
  g.d = TensorView::matrix(fake(0x20000), DType::kBF16, 64, 56, 56);
  expect_refused(g, StatusCode::kInvalidArgument, "d.shape");
  g = valid_args();
  g.a.shape[0] = 0;  // M = 0 for A, but D has 64 rows
  expect_refused(g, StatusCode::kInvalidArgument, "d.shape");
  g = valid_args();
  g.a.shape[0] = -1;
  expect_refused(g, StatusCode::kInvalidArgument, "a.shape[0]");
  g = valid_args();
  g.a.rank = 5;
  expect_refused(g, StatusCode::kInvalidArgument, "a.rank");
}

TEST(GemmValidation, DtypeRules) {
  GemmArgs g = valid_args();
  g.a.dtype = g.b.dtype = DType::kFP32;
  expect_refused(g, StatusCode::kUnsupported, "a.dtype");
  g = valid_args();
  g.b.dtype = DType::kFP16;
  expect_refused(g, StatusCode::kInvalidArgument, "b.dtype");
  g = valid_args();
  g.d.dtype = DType::kFP16;  // bf16 inputs: D is bf16 or fp32
  expect_refused(g, StatusCode::kUnsupported, "d.dtype");
  g = valid_args();
  g.beta = 1.0f;
  g.c = TensorView::matrix(fake(0x30000), DType::kFP32, 64, 48, 48);
  expect_refused(g, StatusCode::kInvalidArgument, "c.dtype");
}

TEST(GemmValidation, StridesNeedAUnitDimension) {
  GemmArgs g = valid_args();
  g.a.stride[0] = 64;
  g.a.stride[1] = 2;
  expect_refused(g, StatusCode::kInvalidArgument, "a.stride");
  g = valid_args();
  g.a.stride[1] = -1;
  expect_refused(g, StatusCode::kInvalidArgument, "a.stride[1]");
}

TEST(GemmValidation, OutputRowsMayNotOverlapOrBroadcast) {
  GemmArgs g = valid_args();
  g.d = TensorView::matrix(fake(0x20000), DType::kBF16, 64, 48, 40);  // ld < N
  expect_refused(g, StatusCode::kInvalidArgument, "d.stride");
  g = valid_args();
  g.d = TensorView::batched_matrix(fake(0x20000), DType::kBF16, 3, 64, 48, 48, 0);
  expect_refused(g, StatusCode::kInvalidArgument, "d.stride[0]");
}

TEST(GemmValidation, BatchRules) {
  GemmArgs g = valid_args();
  g.d = TensorView::batched_matrix(fake(0x20000), DType::kBF16, 3, 64, 48, 48, 64 * 48);
  g.a = TensorView::batched_matrix(fake(), DType::kBF16, 2, 64, 32, 32, 64 * 32);  // 2 is neither 1 nor 3
  expect_refused(g, StatusCode::kInvalidArgument, "a.shape[0]");
  g.a = TensorView::batched_matrix(fake(), DType::kBF16, 3, 64, 32, 32, 64 * 32 + 4);  // 8-byte batch stride
  expect_refused(g, StatusCode::kMisaligned, "a.stride[0]");
  // Broadcasts pass validation: rank 2, batch 1, or batch stride 0.
  g.a = TensorView::batched_matrix(fake(), DType::kBF16, 3, 64, 32, 32, 0);
  warpspec::Status s = warpspec::check(g);
  EXPECT_TRUE(s.ok() || s.code() == StatusCode::kNoDevice) << s.to_string();
}

TEST(GemmValidation, MixedCAndDLayoutsAreRefused) {
  GemmArgs g = valid_args();
  g.beta = 1.0f;
  g.c = TensorView::matrix(fake(0x30000), DType::kBF16, 64, 48, 64, /*row_major=*/false);
  expect_refused(g, StatusCode::kUnsupported, "c.stride");
}

TEST(GemmValidation, ScheduleOptions) {
  GemmArgs g = valid_args();
  g.swizzle = 3;
  expect_refused(g, StatusCode::kInvalidArgument, "swizzle");
  g = valid_args();
  g.tile_n = 96;
  expect_refused(g, StatusCode::kInvalidArgument, "tile_n");
  g = valid_args();
  g.raster = static_cast<warpspec::GemmRaster>(7);
  expect_refused(g, StatusCode::kInvalidArgument, "raster");
  g = valid_args();
  g.alpha = std::numeric_limits<float>::infinity();
  expect_refused(g, StatusCode::kInvalidArgument, "alpha");
}

TEST(GemmValidation, BetaZeroIgnoresC) {
  GemmArgs g = valid_args();
  g.c = TensorView::matrix(fake(8), DType::kFP32, 1, 1, 1);  // nonsense, never read
  warpspec::Status s = warpspec::check(g);
  EXPECT_TRUE(s.ok() || s.code() == StatusCode::kNoDevice) << s.to_string();
}

TEST(GemmValidation, UnitDimensionsAcceptEitherReading) {
  // A 1 x K row vector and an M x 1 output column have no meaningful second stride.
  GemmArgs g;
  g.a = TensorView::matrix(fake(), DType::kFP16, 1, 40, 1);  // stride (1, 1): still fine
  g.b = TensorView::matrix(fake(0x10000), DType::kFP16, 40, 24, 24);
  g.d = TensorView::matrix(fake(0x20000), DType::kFP32, 1, 24, 1);
  warpspec::Status s = warpspec::check(g);
  EXPECT_TRUE(s.ok() || s.code() == StatusCode::kNoDevice) << s.to_string();
}

// Zero extents are valid problems (torch.matmul and addmm accept them): M, N or L = 0
// computes nothing, K = 0 gives D = beta·C. Pointers of empty views are never read.
TEST(GemmValidation, ZeroExtentsAreAcceptedAndStillChecked) {
  GemmArgs g = valid_args();
  g.a.shape[0] = 0, g.d.shape[0] = 0;  // M = 0
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g.a.data = nullptr, g.d.data = nullptr;  // empty views: any pointer
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g.b.dtype = DType::kFP16;  // the dtype rule still applies to an empty problem
  expect_refused(g, StatusCode::kInvalidArgument, "b.dtype");
  g = valid_args();
  g.a = TensorView::matrix(nullptr, DType::kBF16, 64, 0, 0);  // K = 0
  g.b = TensorView::matrix(nullptr, DType::kBF16, 0, 48, 0, false);
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g.beta = 0.5f;  // D = 0.5·C: C is needed
  expect_refused(g, StatusCode::kInvalidArgument, "c.data");
  g.c = TensorView::matrix(fake(0x30000), DType::kBF16, 64, 48, 48);
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g = valid_args();
  g.d = TensorView::batched_matrix(fake(0x20000), DType::kBF16, 0, 64, 48, 48, 64 * 48);  // L = 0
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
}

// A batched problem with an empty matrix dimension: its empty views' batch strides are never
// used, whatever they are (torch gives a (3, 5, 0) tensor the batch stride 5, which is not 16
// bytes); the non-empty views keep every rule.
TEST(GemmValidation, EmptyBatchedViewsIgnoreTheirBatchStride) {
  GemmArgs g;
  g.a = TensorView::batched_matrix(fake(), DType::kBF16, 3, 5, 0, 1, 5);  // K = 0, torch's strides
  g.b = TensorView::batched_matrix(fake(0x10000), DType::kBF16, 3, 0, 7, 7, 7);
  g.d = TensorView::batched_matrix(fake(0x20000), DType::kBF16, 3, 5, 7, 8, 40);
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g.d = TensorView::batched_matrix(fake(0x20000), DType::kBF16, 3, 5, 7, 8, 36);  // D is not empty: refused
  expect_refused(g, StatusCode::kMisaligned, "d.stride[0]");
  g = GemmArgs{};  // N = 0: D (3, 5, 0) with batch stride 5, or 0
  g.a = TensorView::batched_matrix(fake(), DType::kBF16, 3, 5, 8, 8, 40);
  g.b = TensorView::batched_matrix(fake(0x10000), DType::kBF16, 3, 8, 0, 1, 8);
  g.d = TensorView::batched_matrix(fake(0x20000), DType::kBF16, 3, 5, 0, 1, 5);
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g.d.stride[0] = 0;
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g.a = TensorView::batched_matrix(fake(), DType::kBF16, 3, 5, 8, 8, 20);  // A is not empty: refused
  expect_refused(g, StatusCode::kMisaligned, "a.stride[0]");
}

TEST(GemmValidation, OutputMayNotOverlapInputs) {
  GemmArgs g = valid_args();
  g.d = TensorView::matrix(fake(0x40), DType::kBF16, 64, 48, 48);  // inside A's bytes
  expect_refused(g, StatusCode::kInvalidArgument, "d: overlaps a");
  g = valid_args();
  g.d = TensorView::matrix(fake(0x10000 + 32 * 48 * 2 - 16), DType::kBF16, 64, 48, 48);  // D's first bytes are B's last
  expect_refused(g, StatusCode::kInvalidArgument, "d: overlaps b");
  // C may be exactly D (in place) ...
  g = valid_args();
  g.beta = 1.0f;
  g.c = g.d;
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  // ... but not D shifted by a row.
  g.c.data = static_cast<char*>(g.d.data) + 48 * 2;
  expect_refused(g, StatusCode::kInvalidArgument, "d: overlaps c");
  // With beta == 0, C is not read, so it may overlap anything.
  g.beta = 0.0f;
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
}

TEST(GemmValidation, StridesPastTmaLimitsAreRefusedWithoutOverflow) {
  GemmArgs g = valid_args();
  g.a.stride[0] = int64_t(1) << 62;  // stride * 2 bytes would overflow int64
  expect_refused(g, StatusCode::kInvalidArgument, "a.stride[0]");
  g = valid_args();
  g.d = TensorView::batched_matrix(fake(0x20000), DType::kBF16, 2, 64, 48, 48, int64_t(1) << 61);
  expect_refused(g, StatusCode::kInvalidArgument, "d.stride[0]");
  // One batch is never stepped over: a matrix whose own span passes 2^40 bytes (2^19 rows
  // 2 MiB apart) was refused for a batch stride of rows x ld the caller never gave.
  // A last, above B and D (each data pointer is device memory on a GPU: test_pointer's).
  g = valid_args();
  g.d = TensorView::matrix(fake(0x20000), DType::kBF16, int64_t(1) << 19, 48, 48);  // 48 MiB
  g.a = TensorView::matrix(fake(0x4000000), DType::kBF16, int64_t(1) << 19, 32, int64_t(1) << 20);
  const warpspec::Status s = warpspec::check(g);
  EXPECT_TRUE(accepted(s)) << s.to_string();
}

// D is written: every element at its own address, across batches too (the row rule above
// does not see a batch stride shorter than a matrix).
TEST(GemmValidation, BatchesOfDMayNotOverlap) {
  GemmArgs g = valid_args();
  g.d = TensorView::batched_matrix(fake(0x20000), DType::kBF16, 2, 64, 48, 48, 48);  // batch 1 = batch 0's row 1
  expect_refused(g, StatusCode::kInvalidArgument, "d.stride: elements overlap");
  g.d = TensorView::batched_matrix(fake(0x20000), DType::kBF16, 2, 64, 48, 48, 64 * 48);  // back to back: fine
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
}

// The split-K / stream-K workspace is written while the views are read and written: it
// shares no byte with any, and its size may not wrap past the address space.
TEST(GemmValidation, WorkspaceSharesNothing) {
  GemmArgs g = valid_args();
  g.decomposition = warpspec::GemmDecomposition::kSplitK;
  g.splits = 2;
  g.workspace = fake(0x30000);
  g.workspace_bytes = 1 << 16;
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g.workspace = g.d.data;
  expect_refused(g, StatusCode::kInvalidArgument, "workspace: overlaps d");
  g.workspace = g.a.data;
  expect_refused(g, StatusCode::kInvalidArgument, "workspace: overlaps a");
  // A "big enough" size (SIZE_MAX, as gemm_workspace_size passes) is no error: the bytes the
  // plan writes are checked once it is made (on a device; without one, the device check).
  g.workspace = fake(0x30000);
  g.workspace_bytes = SIZE_MAX;
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  size_t bytes = 0;
  EXPECT_TRUE(accepted(warpspec::gemm_workspace_size(g, &bytes))) << warpspec::gemm_workspace_size(g, &bytes).to_string();
  g.workspace = g.d.data;
  const warpspec::Status s = warpspec::check(g);
  EXPECT_FALSE(s.ok()) << "a workspace over d was accepted";
  if (s.code() != StatusCode::kNoDevice)
    EXPECT_NE(s.message().find("workspace: overlaps d"), std::string::npos) << s.message();
  // C is read only with beta: without it, a workspace over C's bytes is fine.
  g.workspace = fake(0x30000);
  g.workspace_bytes = 1 << 16;
  g.c = TensorView::matrix(fake(0x30000), DType::kBF16, 64, 48, 48);
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g.beta = 1.0f;
  expect_refused(g, StatusCode::kInvalidArgument, "workspace: overlaps c");
}

}  // namespace gemm_validation_test
