// Random GEMM calls, valid and not, through warpspec::check (every argument rule, and on a
// Hopper machine the device and the TMA descriptors, without launching): each is accepted
// (OK, or kNoDevice without a Hopper GPU) or refused with a Status that names an argument
// ("name: rule"), never an internal error; gemm() refuses a refused call identically, and
// check() is a function of the call. Pointers are fake (never dereferenced).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "host/fuzz.hpp"
#include "host/test_memory.hpp"
#include "warpspec/warpspec.hpp"

namespace gemm_check_fuzz_test {

using warpspec::DType;
using warpspec::GemmArgs;
using warpspec::StatusCode;
using warpspec::TensorView;

using Gen = warpspec::test::FuzzGen;

void* fake(uintptr_t offset) { return warpspec::test::test_pointer(offset); }

// A (rows x cols) operand, row- or column-major with a leading dimension of at least the
// minor extent (rounded to 16 bytes), batched over `batch` (rank 3) or not.
TensorView operand(Gen& g, uintptr_t offset, DType t, int64_t batch, int64_t rows, int64_t cols, bool row_major) {
  const int64_t minor = row_major ? cols : rows;
  const int64_t per16 = 16 / int64_t(warpspec::dtype_size(t));
  int64_t ld = (std::max<int64_t>(minor, 1) + per16 - 1) / per16 * per16;
  if (g.coin(0.1)) ld += g.pick({1, per16, -2 * ld});  // unaligned, padded, or negative
  if (batch == 0) return TensorView::matrix(fake(offset), t, rows, cols, ld, row_major);
  const int64_t stride = g.coin(0.2) ? 0 : ld * (row_major ? rows : cols);
  return TensorView::batched_matrix(fake(offset), t, batch, rows, cols, ld, stride, row_major);
}

GemmArgs random_call(Gen& g) {
  GemmArgs a;
  const int64_t m = g.pick({0, 1, 16, 33, 64, 127, 128, 1000, 4096}), n = g.pick({0, 8, 48, 136, 256, 1000, 8192});
  const int64_t k = g.pick({0, 16, 24, 72, 128, 1040, 4096});
  const int64_t l = g.pick({0, 0, 0, 1, 3});  // 0: rank 2
  const DType in = DType(g.pick({0, 0, 1, 3, 3, 4, 2}));  // bf16, fp16, e4m3, e5m2, fp32
  const DType in_b = g.coin(0.8) ? in : DType(g.pick({0, 1, 3, 4}));
  const DType out = g.coin(0.6) ? (warpspec::dtype_size(in) == 1 ? DType::kBF16 : in) : DType(g.pick({0, 1, 2, 3}));
  const bool a_row = g.coin(0.7), b_row = g.coin(0.4), d_row = g.coin(0.85);
  a.a = operand(g, uintptr_t(1) << 28, in, l, m, k, a_row);
  a.b = operand(g, uintptr_t(2) << 28, in_b, l, k, n, b_row);
  a.d = operand(g, uintptr_t(3) << 28, out, l, m, n, d_row);
  if (g.coin(0.2)) {
    a.beta = float(g.pick({1, -2, 0}));
    a.c = g.coin(0.3) ? a.d : operand(g, uintptr_t(4) << 28, out, l, m, n, d_row);
  }
  if (g.coin(0.1)) a.alpha = g.coin(0.5) ? std::numeric_limits<float>::quiet_NaN() : -0.5f;
  if (g.coin(0.1)) a.raster = warpspec::GemmRaster(g.pick({0, 1, 2, 7}));
  if (g.coin(0.1)) a.swizzle = int(g.pick({0, 1, 2, 3, 8, 16, -1}));
  if (g.coin(0.2)) a.tile_n = int(g.pick({0, 16, 32, 64, 96, 128, 256, 512}));
  if (g.coin(0.2)) a.decomposition = warpspec::GemmDecomposition(g.pick({0, 1, 2, 3, 9}));
  if (g.coin(0.2)) a.splits = int(g.pick({-1, 0, 1, 2, 7, 300}));
  if (g.coin(0.05)) a.workspace = fake(uintptr_t(5) << 28), a.workspace_bytes = size_t(g.pick({0, 16, 1 << 20}));
  if (warpspec::dtype_size(in) == 1 || g.coin(0.1)) {
    const int64_t sa = g.pick({1, m, 0}), sb = g.pick({1, n, 0});
    if (g.coin(0.9)) a.scale_a = TensorView::matrix(fake(uintptr_t(6) << 28), DType::kFP32, 1, sa, sa);
    if (g.coin(0.9)) a.scale_b = TensorView::matrix(fake(uintptr_t(7) << 28), DType::kFP32, 1, sb, sb);
    if (g.coin(0.1)) a.scaling = warpspec::GemmScaling(g.pick({0, 1, 5}));
    a.use_fast_accum = g.coin(0.3);
  }
  if (g.coin(0.15)) {
    a.bias_per_row = g.coin(0.3);
    const int64_t len = a.bias_per_row ? m : n;
    a.bias = TensorView::matrix(fake(uintptr_t(8) << 28), DType(g.pick({0, 1, 2})), 1, len, len);
  }
  if (g.coin(0.15)) a.activation = warpspec::GemmActivation(g.pick({0, 1, 2, 3, 4, 11}));
  if (g.coin(0.1)) a.cluster_m = int(g.pick({0, 1, 2, 3})), a.cluster_n = int(g.pick({0, 1, 2}));
  if (g.coin(0.1)) a.schedule = warpspec::GemmSchedule(g.pick({0, 1, 2, 5}));
  if (g.coin(0.03)) a.d.data = a.a.data;  // D over A
  if (g.coin(0.03)) a.a.data = nullptr;
  return a;
}

TEST(GemmCheckFuzz, EveryCallIsAcceptedOrRefusedByName) {
  int accepted = 0, refused = 0;
  const int kCalls = warpspec::test::fuzz_calls(20000);
  for (int i = 0; i < kCalls; ++i) {
    Gen g(0x6e44000u + uint64_t(i));
    const GemmArgs a = random_call(g);
    const warpspec::Status s = warpspec::check(a);
    const std::string what = "call " + std::to_string(i) + ": " + s.to_string();
    ASSERT_NE(s.code(), StatusCode::kInternal) << what;
    ASSERT_NE(s.code(), StatusCode::kCudaError) << what;
    if (s.ok() || s.code() == StatusCode::kNoDevice) {
      ++accepted;
      continue;
    }
    ++refused;
    const size_t colon = s.message().find(':');
    ASSERT_TRUE(colon != std::string::npos && colon > 0) << "a refusal names the argument first: " << what;
    const warpspec::Status again = warpspec::check(a);
    ASSERT_EQ(again.code(), s.code()) << what;
    ASSERT_EQ(again.message(), s.message()) << what;
    const warpspec::Status run = warpspec::gemm(a, nullptr);  // refused: nothing launches
    ASSERT_EQ(run.code(), s.code()) << what;
    ASSERT_EQ(run.message(), s.message()) << what;
  }
  // The generator reaches both outcomes. (On a Hopper machine the operands 256 MiB apart
  // lie past test_pointer's allocation, so calls that pass the argument rules are refused
  // by the pointer check, by name; without one they reach the device check.)
  if (!warpspec::check_device().ok()) EXPECT_GT(accepted, kCalls / 20);
  EXPECT_GT(refused, kCalls / 10);
}

}  // namespace gemm_check_fuzz_test
