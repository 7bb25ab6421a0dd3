// The C ABI against corrupted structs: a valid attention or GEMM call with a few random
// bytes overwritten anywhere in its struct (tensor ranks, dtypes, shapes, strides,
// pointers, flags, reserved words, the struct size) is answered with a known status, a
// refusal with a message that names the field ("name: rule"), never an internal error or
// a crash. Only the check entry points are called (they launch nothing); the data
// pointers are host addresses, which a Hopper machine's device check refuses by name.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "host/fuzz.hpp"
#include "warpspec/warpspec.h"

namespace c_api_fuzz_test {

using Gen = warpspec::test::FuzzGen;

void* host(uintptr_t offset) { return warpspec::test::host_address(offset); }

// A contiguous (b, s, h, d) tensor.
warpspec_tensor bshd(uintptr_t offset, int32_t dtype, int64_t b, int64_t s, int64_t h, int64_t d) {
  warpspec_tensor t;
  std::memset(&t, 0, sizeof t);
  t.data = host(offset), t.dtype = dtype, t.rank = 4;
  const int64_t shape[4] = {b, s, h, d}, stride[4] = {s * h * d, h * d, d, 1};
  for (int i = 0; i < 4; ++i) t.shape[i] = shape[i], t.stride[i] = stride[i];
  return t;
}

warpspec_tensor matrix(uintptr_t offset, int32_t dtype, int64_t rows, int64_t cols, bool row_major) {
  warpspec_tensor t;
  std::memset(&t, 0, sizeof t);
  t.data = host(offset), t.dtype = dtype, t.rank = 2;
  t.shape[0] = rows, t.shape[1] = cols;
  t.stride[0] = row_major ? cols : 1, t.stride[1] = row_major ? 1 : rows;
  return t;
}

// A caller's struct with room after it: a corrupted struct_size (up to the 4096 bytes the
// library accepts from a newer caller, whose tail it reads and requires zero) then reads
// zeros inside this object, not past the caller's stack.
template <class S>
struct Padded {
  S s;
  unsigned char tail[4096];
};

// 1 to 4 random bytes of `s` overwritten (the struct size only now and then).
template <class S>
void corrupt(Gen& g, S& s) {
  auto* bytes = reinterpret_cast<unsigned char*>(&s);
  const int n = int(g.pick({1, 1, 2, 4}));
  for (int i = 0; i < n; ++i) {
    const int64_t at = g.coin(0.02) ? int64_t(g.pick({0, 1, 7})) : 8 + int64_t(g.rng() % (sizeof(S) - 8));
    bytes[at] = static_cast<unsigned char>(g.rng());
  }
}

void expect_answered(warpspec_status st, int i, int* refused) {
  ASSERT_NE(st, WARPSPEC_INTERNAL) << "call " << i << ": " << warpspec_last_error();
  ASSERT_TRUE(st >= WARPSPEC_OK && st <= WARPSPEC_CUDA_ERROR) << "call " << i << ": status " << int(st);
  if (st == WARPSPEC_OK || st == WARPSPEC_NO_DEVICE) return;
  ++*refused;
  const std::string message = warpspec_last_error();
  const size_t colon = message.find(':');
  ASSERT_TRUE(colon != std::string::npos && colon > 0) << "call " << i << ": a refusal names the field first: " << message;
}

TEST(CApiFuzz, CorruptedAttentionStructsAreAnsweredByName) {
  int refused = 0;
  const int kCalls = warpspec::test::fuzz_calls(20000);
  for (int i = 0; i < kCalls; ++i) {
    Gen g(0xcab1000u + uint64_t(i));
    Padded<warpspec_attention_args> padded{};
    warpspec_attention_args& a = padded.s;
    a = warpspec_attention_args_default();
    const int64_t b = 2, s = g.pick({1, 100, 1000}), h = 8, hkv = g.pick({2, 8}), d = g.pick({64, 128});
    a.q = bshd(uintptr_t(1) << 30, WARPSPEC_DTYPE_BF16, b, s, h, d);
    a.k = bshd(uintptr_t(2) << 30, WARPSPEC_DTYPE_BF16, b, 700, hkv, d);
    a.v = bshd(uintptr_t(3) << 30, WARPSPEC_DTYPE_BF16, b, 700, hkv, d);
    a.o = bshd(uintptr_t(4) << 30, WARPSPEC_DTYPE_BF16, b, s, h, d);
    a.causal = int32_t(g.coin(0.5));
    if (g.coin(0.3)) a.flags |= WARPSPEC_FLAG_WINDOW, a.window_left = 128, a.window_right = -1;
    corrupt(g, a);
    expect_answered(warpspec_attention_check(&a), i, &refused);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(refused, kCalls / 4);
}

TEST(CApiFuzz, CorruptedGemmStructsAreAnsweredByName) {
  int refused = 0;
  const int kCalls = warpspec::test::fuzz_calls(20000);
  for (int i = 0; i < kCalls; ++i) {
    Gen g(0xcab2000u + uint64_t(i));
    Padded<warpspec_gemm_args> padded{};
    warpspec_gemm_args& a = padded.s;
    a = warpspec_gemm_args_default();
    const int64_t m = g.pick({1, 64, 1000}), n = g.pick({64, 520}), k = g.pick({32, 4096});
    a.a = matrix(uintptr_t(1) << 30, WARPSPEC_DTYPE_BF16, m, k, true);
    a.b = matrix(uintptr_t(2) << 30, WARPSPEC_DTYPE_BF16, k, n, false);
    a.d = matrix(uintptr_t(3) << 30, WARPSPEC_DTYPE_BF16, m, n, true);
    corrupt(g, a);
    expect_answered(warpspec_gemm_check(&a), i, &refused);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(refused, kCalls / 4);
}

}  // namespace c_api_fuzz_test
