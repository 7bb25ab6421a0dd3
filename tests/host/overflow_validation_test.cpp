// Extents and strides near the 64-bit limits, through the C ABI (found by a fuzzer under
// UBSan against the stand-in Hopper, tests/fake_hopper): every call is answered by name,
// never with signed overflow in the heuristics' arithmetic, an internal error, or a
// message that names no field. Views of terabytes are placed at host addresses: a refusal
// made before the device check is checked anywhere; one made on the plan only where a
// device (or host.fake_hopper's stand-in) answers, and not on a real GPU, whose device
// check refuses these addresses first.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>

#include "host/fuzz.hpp"
#include "warpspec/warpspec.h"

namespace overflow_validation_test {

constexpr uint64_t kRegion = uint64_t(1) << 40;  // views a region apart never overlap

warpspec_tensor view(int region, int32_t dtype, std::initializer_list<int64_t> shape,
                     std::initializer_list<int64_t> stride) {
  warpspec_tensor t;
  std::memset(&t, 0, sizeof t);
  t.data = warpspec::test::host_address(uintptr_t(region) * kRegion);
  t.dtype = dtype;
  t.rank = int32_t(shape.size());
  int i = 0;
  for (int64_t s : shape) t.shape[i++] = s;
  i = 0;
  for (int64_t s : stride) t.stride[i++] = s;
  return t;
}

// Whether the call stopped at the device check (no device, or a real GPU refusing these
// host addresses) before the rule under test.
bool stopped_at_device_check(warpspec_status st, const std::string& message) {
  return st == WARPSPEC_NO_DEVICE || message.find("host memory") != std::string::npos;
}

// Refused with `needle` in the message, wherever the rule is checked.
void expect_refused(warpspec_status st, const std::string& needle) {
  const std::string message = warpspec_last_error();
  if (stopped_at_device_check(st, message)) GTEST_SKIP() << "refused on the device check first: " << message;
  EXPECT_EQ(st, WARPSPEC_INVALID_ARGUMENT) << message;
  EXPECT_NE(message.find(needle), std::string::npos) << message;
}

// 2^47 batches of a 33 x 8 D: the tile count times K once overflowed the cost model.
TEST(OverflowValidation, GemmTileCountIsBoundedBeforeItIsPriced) {
  warpspec_gemm_args a = warpspec_gemm_args_default();
  const int64_t L = int64_t(1) << 47, K = (int64_t(1) << 31) - 8;
  a.a = view(1, WARPSPEC_DTYPE_BF16, {33, K}, {K, 1});
  a.b = view(2, WARPSPEC_DTYPE_BF16, {K, 8}, {1, K});
  a.d = view(4, WARPSPEC_DTYPE_BF16, {L, 33, 8}, {264, 8, 1});
  expect_refused(warpspec_gemm_check(&a), "d.shape: M x N x L = 33 x 8 x 140737488355328");
}

// The heuristic's stream-K over ~97 tiles of 2^25 k-iterations passes what the scheduler
// indexes: it falls back to data-parallel (it was an internal error).
TEST(OverflowValidation, GemmHeuristicNeverPicksWhatTheSchedulerCannotIndex) {
  warpspec_gemm_args a = warpspec_gemm_args_default();
  const int64_t M = 12800, N = 256, K = (int64_t(1) << 31) - 8;
  a.a = view(1, WARPSPEC_DTYPE_BF16, {M, K}, {K, 1});
  a.b = view(40, WARPSPEC_DTYPE_BF16, {K, N}, {1, K});
  a.d = view(80, WARPSPEC_DTYPE_BF16, {M, N}, {N, 1});
  const warpspec_status st = warpspec_gemm_check(&a);
  const std::string message = warpspec_last_error();
  if (stopped_at_device_check(st, message)) GTEST_SKIP() << "refused on the device check first: " << message;
  EXPECT_EQ(st, WARPSPEC_OK) << message;
  char line[512];
  ASSERT_EQ(warpspec_gemm_describe(&a, line, sizeof line), WARPSPEC_OK) << warpspec_last_error();
  EXPECT_NE(std::string(line).find("decomposition=data_parallel"), std::string::npos) << line;
}

// Block scales with a negative extent, with amax: the overlap checks once took the span
// of scales not yet validated (INT64_MIN - 1).
TEST(OverflowValidation, BlockScalesAreValidatedBeforeTheirSpanIsTaken) {
  warpspec_gemm_args a = warpspec_gemm_args_default();
  a.a = view(1, WARPSPEC_DTYPE_E4M3, {128, 128}, {128, 1});
  a.b = view(2, WARPSPEC_DTYPE_E4M3, {128, 128}, {1, 128});
  a.d = view(3, WARPSPEC_DTYPE_E4M3, {128, 128}, {128, 1});
  a.scaling = WARPSPEC_GEMM_SCALING_BLOCK;
  a.scale_a = view(4, WARPSPEC_DTYPE_FP32, {INT64_MIN, 1}, {1, 1});
  a.scale_b = view(5, WARPSPEC_DTYPE_FP32, {1, 1}, {1, 1});
  a.amax = view(6, WARPSPEC_DTYPE_FP32, {}, {});
  expect_refused(warpspec_gemm_check(&a), "scale_a.shape");
}

// An explicit split count over 2^25 query tiles: 2^30 work items and more are refused by
// name (it was an internal error).
TEST(OverflowValidation, AttentionSplitsTimesTilesAreBounded) {
  warpspec_attention_args a = warpspec_attention_args_default();
  const int64_t H = int64_t(1) << 25;
  a.q = view(1, WARPSPEC_DTYPE_BF16, {1, 1, H, 64}, {H * 64, H * 64, 64, 1});
  a.k = view(2, WARPSPEC_DTYPE_BF16, {1, 128, H, 64}, {128 * H * 64, H * 64, 64, 1});
  a.v = view(4, WARPSPEC_DTYPE_BF16, {1, 128, H, 64}, {128 * H * 64, H * 64, 64, 1});
  a.o = view(6, WARPSPEC_DTYPE_BF16, {1, 1, H, 64}, {H * 64, H * 64, 64, 1});
  a.flags = WARPSPEC_FLAG_NUM_SPLITS;
  a.num_splits = 128;
  expect_refused(warpspec_attention_check(&a), "num_splits: 128 splits x 33554432 query tiles");
}

// rotary_cos of 2^62 columns: 2 * shape[1] overflowed before its range was checked.
TEST(OverflowValidation, RotaryWidthIsCheckedBeforeItIsDoubled) {
  warpspec_kvcache_append_args a = warpspec_kvcache_append_args_default();
  a.k_cache = view(1, WARPSPEC_DTYPE_BF16, {1, 1024, 1, 128}, {131072, 128, 128, 1});
  a.v_cache = view(2, WARPSPEC_DTYPE_BF16, {1, 1024, 1, 128}, {131072, 128, 128, 1});
  a.k_new = view(3, WARPSPEC_DTYPE_BF16, {1, 1, 1, 128}, {128, 128, 128, 1});
  a.v_new = view(4, WARPSPEC_DTYPE_BF16, {1, 1, 1, 128}, {128, 128, 128, 1});
  a.cache_seqlens = view(5, WARPSPEC_DTYPE_I32, {1}, {1});
  a.rotary_cos = view(6, WARPSPEC_DTYPE_BF16, {1024, int64_t(1) << 62}, {1, 1});
  a.rotary_sin = view(7, WARPSPEC_DTYPE_BF16, {1024, int64_t(1) << 62}, {1, 1});
  expect_refused(warpspec_kvcache_append(&a, nullptr), "rotary_cos.shape[1] (rotary_dim / 2)");
}

}  // namespace overflow_validation_test
