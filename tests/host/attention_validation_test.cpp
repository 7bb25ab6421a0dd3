// warpspec::check(AttentionArgs): every refusal names the argument and the rule, and
// comes before anything touches the device. Pointers come from test_pointer (real
// device memory on a Hopper machine, fake addresses elsewhere; never dereferenced):
// valid arguments give OK on a Hopper machine and kNoDevice elsewhere.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "host/expect_status.hpp"
#include "host/test_memory.hpp"
#include "testing/views.hpp"
#include "warpspec/warpspec.hpp"

// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace attention_validation_test {

using warpspec::AttentionArgs;
using warpspec::DType;
using warpspec::StatusCode;
using warpspec::TensorView;

void* fake(uintptr_t offset = 0) { return warpspec::test::test_pointer(offset); }

TensorView bshd(int64_t b, int64_t s, int64_t h, int64_t d, DType t = DType::kBF16, void* data = fake()) {
  return warpspec::testbed::bshd_contiguous(data, t, b, s, h, d);
}

AttentionArgs valid(int64_t d = 128) {
  AttentionArgs a;
  a.q = bshd(2, 100, 8, d);
  a.k = bshd(2, 300, 2, d, DType::kBF16, fake(0x1000000));
  a.v = bshd(2, 300, 2, d, DType::kBF16, fake(0x2000000));
  a.o = bshd(2, 100, 8, d, DType::kBF16, fake(0x3000000));
  return a;
}

// valid()'s LSE: (batch 2, heads 8, seqlen 100), contiguous.
TensorView lse_of_valid(void* data, DType t = DType::kFP32) {
  TensorView l;
  l.data = data;
  l.dtype = t;
  l.rank = 3;
  l.shape[0] = 2, l.shape[1] = 8, l.shape[2] = 100;
  l.stride[0] = 800, l.stride[1] = 100, l.stride[2] = 1;
  return l;
}

using warpspec::test::accepted;
void expect_refused(const AttentionArgs& a, StatusCode code, const std::string& needle) {
  warpspec::test::expect_check_refuses(a, code, needle);
}

TEST(AttentionValidation, ValidArgumentsAreAccepted) {
  for (int64_t d : {64, 96, 128, 192, 256}) EXPECT_TRUE(accepted(warpspec::check(valid(d)))) << d;
  AttentionArgs a = valid();
  a.causal = true;
  a.softmax_scale = 0.3f;
  a.lse.data = fake(0x4000000);
  a.lse.dtype = DType::kFP32;
  a.lse.rank = 3;
  a.lse.shape[0] = 2, a.lse.shape[1] = 8, a.lse.shape[2] = 100;
  a.lse.stride[0] = 800, a.lse.stride[1] = 100, a.lse.stride[2] = 1;
  EXPECT_TRUE(accepted(warpspec::check(a)));
  // BHSD memory viewed as BSHD, fp16.
  AttentionArgs b = valid(64);
  for (TensorView* v : {&b.q, &b.k, &b.v, &b.o}) {
    v->dtype = DType::kFP16;
    v->stride[2] = v->shape[1] * 64, v->stride[1] = 64, v->stride[0] = v->shape[2] * v->shape[1] * 64;
  }
  EXPECT_TRUE(accepted(warpspec::check(b)));
  // Unit dimensions may carry any stride.
  AttentionArgs c = valid();
  c.q.shape[0] = c.k.shape[0] = c.v.shape[0] = c.o.shape[0] = 1;
  c.q.stride[0] = 3;
  EXPECT_TRUE(accepted(warpspec::check(c)));
}

TEST(AttentionValidation, HeadDimAndDtype) {
  for (int64_t d : {0, 4, 12, 100, 264, 512}) {
    AttentionArgs a = valid(d);
    expect_refused(a, StatusCode::kUnsupported, "head_dim");
    // Split-KV moves a head dim onto the kernel with the partial epilogue: never one that
    // no kernel runs (head dim 264 with num_splits 2 was planned on the head dim 128
    // kernel, which would have computed with its first 128 columns; found by
    // AttentionPlanFuzz).
    for (int splits : {0, 2, 128}) {
      a.num_splits = splits;
      expect_refused(a, StatusCode::kUnsupported, "head_dim");
    }
  }
  AttentionArgs a = valid();
  a.q.dtype = DType::kFP32;
  expect_refused(a, StatusCode::kUnsupported, "q.dtype");
  a = valid();
  a.k.dtype = DType::kFP16;
  expect_refused(a, StatusCode::kInvalidArgument, "k.dtype");
  a = valid();
  a.o.dtype = DType::kFP16;
  expect_refused(a, StatusCode::kInvalidArgument, "o.dtype");
}

TEST(AttentionValidation, Shapes) {
  AttentionArgs a = valid();
  a.q.rank = 3;
  expect_refused(a, StatusCode::kInvalidArgument, "q.rank");
  a = valid();
  a.k.shape[2] = 3;  // 8 % 3 != 0
  a.v.shape[2] = 3;
  expect_refused(a, StatusCode::kInvalidArgument, "multiple of heads_kv");
  a = valid();
  a.k.shape[0] = 1;
  expect_refused(a, StatusCode::kInvalidArgument, "k.shape[0]");
  a = valid();
  a.v.shape[1] = 299;
  expect_refused(a, StatusCode::kInvalidArgument, "v.shape[1]");
  a = valid();
  a.k.shape[3] = 64;
  expect_refused(a, StatusCode::kInvalidArgument, "k.shape[3]");
  a = valid();
  a.o.shape[1] = 101;
  expect_refused(a, StatusCode::kInvalidArgument, "o.shape[1]");
  a = valid();
  a.q.shape[1] = -1;
  a.o.shape[1] = -1;
  expect_refused(a, StatusCode::kInvalidArgument, "q.shape[1]");
  a = valid();
  a.k.data = nullptr;
  expect_refused(a, StatusCode::kInvalidArgument, "k.data");
}

TEST(AttentionValidation, StridesAndAlignment) {
  AttentionArgs a = valid();
  a.q.stride[3] = 2;
  expect_refused(a, StatusCode::kInvalidArgument, "q.stride[3]");
  a = valid();
  a.k.stride[1] = 2 * 128 + 4;  // 8 bytes off a 16-byte multiple
  expect_refused(a, StatusCode::kMisaligned, "k.stride[1]");
  a = valid();
  a.v.data = fake(8);
  expect_refused(a, StatusCode::kMisaligned, "v.data");
  a = valid();
  a.o.stride[2] = 0;
  expect_refused(a, StatusCode::kInvalidArgument, "o.stride[2]");
  a = valid();
  a.q.stride[0] = -a.q.stride[0];
  expect_refused(a, StatusCode::kInvalidArgument, "q.stride[0]");
}

TEST(AttentionValidation, LseAndScale) {
  AttentionArgs a = valid();
  a.lse = lse_of_valid(fake(0x4000000), DType::kBF16);
  expect_refused(a, StatusCode::kInvalidArgument, "lse.dtype");
  a.lse.dtype = DType::kFP32;
  a.lse.shape[2] = 99;
  expect_refused(a, StatusCode::kInvalidArgument, "lse.shape[2]");
  a.lse.shape[2] = 100;
  a.lse.rank = 4;
  expect_refused(a, StatusCode::kInvalidArgument, "lse.rank");
  a.lse.rank = 3;
  a.lse.data = fake(2);
  expect_refused(a, StatusCode::kMisaligned, "lse.data");
  for (float sc : {0.0f, -0.0f, -1.0f, NAN, INFINITY, 3e38f}) {  // 3e38·log2(e) overflows fp32
    AttentionArgs b = valid();
    b.softmax_scale = sc;
    expect_refused(b, StatusCode::kInvalidArgument, "softmax_scale");
  }
}

// Zero extents are valid (FlashAttention and SDPA accept them): seqlen_k = 0 gives
// O = 0 and LSE = −inf; batch, seqlen_q or heads = 0 computes nothing. Pointers of
// empty views are never read; every other rule still applies.
TEST(AttentionValidation, ZeroExtents) {
  AttentionArgs a = valid();
  a.k.shape[1] = a.v.shape[1] = 0;
  a.k.data = a.v.data = nullptr;
  EXPECT_TRUE(accepted(warpspec::check(a))) << warpspec::check(a).to_string();
  a.causal = true;
  EXPECT_TRUE(accepted(warpspec::check(a))) << warpspec::check(a).to_string();
  a = valid();
  a.q.shape[1] = a.o.shape[1] = 0;
  a.q.data = a.o.data = nullptr;
  EXPECT_TRUE(accepted(warpspec::check(a))) << warpspec::check(a).to_string();
  a.v.dtype = DType::kFP16;  // still checked
  expect_refused(a, StatusCode::kInvalidArgument, "v.dtype");
  a = valid();
  a.k.shape[2] = a.v.shape[2] = 0;  // no kv head: heads_q cannot be a multiple of it
  expect_refused(a, StatusCode::kInvalidArgument, "k.shape[2]");
}

TEST(AttentionValidation, OutputsMayNotOverlapInputs) {
  AttentionArgs a = valid();
  a.o.data = fake(0x1000000 + 4096);  // inside k
  expect_refused(a, StatusCode::kInvalidArgument, "o: overlaps k");
  a = valid();
  a.o.data = fake(0x2000000);  // v itself
  expect_refused(a, StatusCode::kInvalidArgument, "o: overlaps v");
  a = valid();
  a.o = a.q;  // exactly q: in place, allowed
  EXPECT_TRUE(accepted(warpspec::check(a))) << warpspec::check(a).to_string();
  a.o.data = static_cast<char*>(a.q.data) + 8 * 128 * 2;  // q shifted by one row: refused
  expect_refused(a, StatusCode::kInvalidArgument, "o: overlaps q");
  a = valid();
  a.lse.data = static_cast<char*>(a.o.data) + 1024;  // inside o
  a.lse.dtype = DType::kFP32;
  a.lse.rank = 3;
  a.lse.shape[0] = 2, a.lse.shape[1] = 8, a.lse.shape[2] = 100;
  a.lse.stride[0] = 800, a.lse.stride[1] = 100, a.lse.stride[2] = 1;
  expect_refused(a, StatusCode::kInvalidArgument, "lse: overlaps o");
}

TEST(AttentionValidation, StridesPastTmaLimitsAreRefusedWithoutOverflow) {
  AttentionArgs a = valid();
  a.k.stride[0] = int64_t(1) << 62;  // stride * 2 bytes would overflow int64
  expect_refused(a, StatusCode::kInvalidArgument, "k.stride[0]");
  a = valid();
  a.lse.data = fake(0x4000000);
  a.lse.dtype = DType::kFP32;
  a.lse.rank = 3;
  a.lse.shape[0] = 2, a.lse.shape[1] = 8, a.lse.shape[2] = 100;
  a.lse.stride[0] = int64_t(1) << 62, a.lse.stride[1] = 100, a.lse.stride[2] = 1;
  expect_refused(a, StatusCode::kInvalidArgument, "lse");
}

TensorView packed(int64_t total, int64_t h, int64_t d, void* data) {
  TensorView v = warpspec::testbed::bshd_contiguous(data, DType::kBF16, 1, total, h, d);
  v.rank = 3;
  v.shape[0] = total, v.shape[1] = h, v.shape[2] = d;
  v.stride[0] = h * d, v.stride[1] = d, v.stride[2] = 1;
  return v;
}

TensorView vec(int64_t n, DType t, void* data) {
  TensorView v;
  v.data = data, v.dtype = t, v.rank = 1;
  v.shape[0] = n, v.stride[0] = 1;
  return v;
}

// Packed q (3 sequences, 700 rows) over packed k/v (900 rows), with its LSE.
AttentionArgs valid_varlen() {
  AttentionArgs a;
  a.q = packed(700, 8, 128, fake());
  a.o = packed(700, 8, 128, fake(0x3000000));
  a.k = packed(900, 2, 128, fake(0x1000000));
  a.v = packed(900, 2, 128, fake(0x2000000));
  a.cu_seqlens_q = vec(4, DType::kI32, fake(0x5000000));
  a.cu_seqlens_k = vec(4, DType::kI32, fake(0x5001000));
  a.max_seqlen_q = 400;
  a.lse.data = fake(0x4000000), a.lse.dtype = DType::kFP32, a.lse.rank = 2;
  a.lse.shape[0] = 8, a.lse.shape[1] = 700, a.lse.stride[0] = 700, a.lse.stride[1] = 1;
  return a;
}

TEST(AttentionValidation, WindowSoftcapSink) {
  AttentionArgs a = valid();
  a.window_left = 100, a.window_right = 0;
  EXPECT_TRUE(accepted(warpspec::check(a)));
  a.window_left = int64_t(1) << 40;  // past any length: unbounded, not an overflow
  EXPECT_TRUE(accepted(warpspec::check(a)));
  a.window_left = -2;
  expect_refused(a, StatusCode::kInvalidArgument, "window_left: must be -1 (unbounded) or >= 0, got -2");
  a = valid();
  a.window_right = -7;
  expect_refused(a, StatusCode::kInvalidArgument, "window_right: must be -1 (unbounded) or >= 0, got -7");
  a.causal = true;  // causal sets the right edge, but a bad value is still refused
  expect_refused(a, StatusCode::kInvalidArgument, "window_right");
  a = valid();
  a.attention_chunk = 256;
  EXPECT_TRUE(accepted(warpspec::check(a)));
  a.attention_chunk = -1;
  expect_refused(a, StatusCode::kInvalidArgument, "attention_chunk: must be 0 (off) or from 1 to 2^30 - 1, got -1");
  a.attention_chunk = int64_t(1) << 30;
  expect_refused(a, StatusCode::kInvalidArgument, "attention_chunk");
  AttentionArgs big = valid(256);
  big.attention_chunk = 512;
  expect_refused(big, StatusCode::kUnsupported, "attention_chunk: not supported with head_dim > 192");
  big.attention_chunk = 1;  // the window (0, 0): every kernel
  EXPECT_TRUE(accepted(warpspec::check(big)));
  big = valid(160);  // runs on the 192 kernel
  big.attention_chunk = 512;
  EXPECT_TRUE(accepted(warpspec::check(big)));
  a = valid();
  a.softcap = 30.0f;
  EXPECT_TRUE(accepted(warpspec::check(a)));
  a.softcap = -1.0f;
  expect_refused(a, StatusCode::kInvalidArgument, "softcap: must be finite and >= 0");
  a.softcap = NAN;
  expect_refused(a, StatusCode::kInvalidArgument, "softcap");
  a = valid();
  a.sink = vec(8, DType::kFP32, fake(0x5800000));  // (test_pointer's pool is 96 MB)
  EXPECT_TRUE(accepted(warpspec::check(a)));
  a.sink.shape[0] = 2;  // heads_kv, not heads_q
  expect_refused(a, StatusCode::kInvalidArgument, "sink.shape[0]: must be heads_q = 8, got 2");
  a.sink = vec(8, DType::kFP32, static_cast<char*>(a.o.data) + 64);
  expect_refused(a, StatusCode::kInvalidArgument, "overlaps sink");
}

TEST(AttentionValidation, Varlen) {
  EXPECT_TRUE(accepted(warpspec::check(valid_varlen()))) << warpspec::check(valid_varlen()).to_string();
  AttentionArgs a = valid_varlen();
  a.seqused_k = vec(3, DType::kI32, fake(0x5002000));
  a.seqused_q = vec(3, DType::kI32, fake(0x5003000));
  EXPECT_TRUE(accepted(warpspec::check(a)));
  a.seqused_k.shape[0] = 4;
  expect_refused(a, StatusCode::kInvalidArgument, "seqused_k.shape[0]: must be batch = 3, got 4");
  a = valid_varlen();
  a.max_seqlen_q = -1;
  expect_refused(a, StatusCode::kInvalidArgument, "max_seqlen_q: must be >= 0");
  a = valid_varlen();
  a.max_seqlen_q = 0;  // a zero-filled struct: would compute and write nothing
  expect_refused(a, StatusCode::kInvalidArgument, "max_seqlen_q: required with cu_seqlens_q");
  a.q.shape[0] = a.o.shape[0] = 0, a.lse.shape[1] = 0;  // no rows: 0 is the longest sequence
  EXPECT_TRUE(accepted(warpspec::check(a))) << warpspec::check(a).to_string();
  a = valid_varlen();
  a.lse.rank = 3;
  expect_refused(a, StatusCode::kInvalidArgument, "lse.rank: must be 2 (heads_q, total_q) with cu_seqlens_q");
  a = valid_varlen();
  a.o.shape[0] = 699;
  expect_refused(a, StatusCode::kInvalidArgument, "o.shape[0] (total): must be 700");
  a = valid_varlen();
  a.cu_seqlens_k.shape[0] = 5;
  expect_refused(a, StatusCode::kInvalidArgument, "cu_seqlens_k.shape[0]: must be batch + 1 = 4, got 5");
  a = valid_varlen();
  a.cu_seqlens_q.dtype = DType::kFP32;
  expect_refused(a, StatusCode::kInvalidArgument, "cu_seqlens_q.dtype: must be int32");
  a = valid_varlen();
  a.cu_seqlens_q.data = static_cast<char*>(a.cu_seqlens_q.data) + 2;
  expect_refused(a, StatusCode::kMisaligned, "cu_seqlens_q.data: must be 4-byte aligned");
  a = valid_varlen();
  a.cu_seqlens_q.data = static_cast<char*>(a.o.data) + 128;  // written while read
  expect_refused(a, StatusCode::kInvalidArgument, "overlaps cu_seqlens_q");
  // Packed q over a dense cache: the batch is cu_seqlens' length - 1.
  a = valid_varlen();
  a.cu_seqlens_k = TensorView{};
  a.k = bshd(3, 300, 2, 128, DType::kBF16, fake(0x1000000));
  a.v = bshd(3, 300, 2, 128, DType::kBF16, fake(0x2000000));
  EXPECT_TRUE(accepted(warpspec::check(a))) << warpspec::check(a).to_string();
  a.k.shape[0] = a.v.shape[0] = 2;
  expect_refused(a, StatusCode::kInvalidArgument, "k.shape[0] (batch): must be 3, got 2");
  // A dense q with a packed k: rank 4 q, rank 3 k.
  a = valid();
  a.cu_seqlens_k = vec(3, DType::kI32, fake(0x5001000));
  a.k = packed(900, 2, 128, fake(0x1000000));
  a.v = packed(900, 2, 128, fake(0x2000000));
  EXPECT_TRUE(accepted(warpspec::check(a))) << warpspec::check(a).to_string();
}

}  // namespace attention_validation_test

namespace attention_validation_test {

// FP8: e4m3 q, k, v with bf16 o; descales fp32 (batch, heads_kv).
AttentionArgs valid_fp8(int64_t d = 128) {
  AttentionArgs a;
  a.q = bshd(2, 100, 8, d, DType::kE4M3);
  a.k = bshd(2, 300, 2, d, DType::kE4M3, fake(0x1000000));
  a.v = bshd(2, 300, 2, d, DType::kE4M3, fake(0x2000000));
  a.o = bshd(2, 100, 8, d, DType::kBF16, fake(0x3000000));
  return a;
}

TensorView descale(int64_t b, int64_t h, uintptr_t at) {
  TensorView v;
  v.data = fake(at);
  v.dtype = DType::kFP32;
  v.rank = 2;
  v.shape[0] = b, v.shape[1] = h;
  v.stride[0] = h, v.stride[1] = 1;
  return v;
}

// Valid FP8 arguments pass every rule: accepted where the kernels are built, else the
// one refusal that names the build option.
void expect_fp8_valid(const AttentionArgs& a) {
  const warpspec::Status s = warpspec::check(a);
  if (accepted(s)) return;
  EXPECT_EQ(s.code(), StatusCode::kUnsupported) << s.message();
  EXPECT_NE(s.message().find("WARPSPEC_FP8_ATTENTION"), std::string::npos) << s.message();
}

TEST(AttentionValidationFp8, ValidArguments) {
  for (int64_t d : {64, 128, 256}) expect_fp8_valid(valid_fp8(d));
  AttentionArgs a = valid_fp8();
  a.causal = true;
  a.q_descale = descale(2, 2, 0x5000000);
  a.k_descale = descale(2, 2, 0x5001000);
  a.v_descale = descale(2, 2, 0x5002000);
  expect_fp8_valid(a);
  a.num_splits = 0;  // the heuristic: FP8 runs unsplit
  expect_fp8_valid(a);
}

TEST(AttentionValidationFp8, HeadDimsAndDtypes) {
  for (int64_t d : {32, 96, 192, 200}) expect_refused(valid_fp8(d), StatusCode::kUnsupported, "head_dim");
  AttentionArgs a = valid_fp8();
  a.o.dtype = DType::kE4M3;
  expect_refused(a, StatusCode::kInvalidArgument, "o.dtype: must be bf16");
  a = valid_fp8();
  a.k.dtype = DType::kBF16;
  expect_refused(a, StatusCode::kInvalidArgument, "k.dtype");
  a = valid_fp8();
  a.v.dtype = DType::kE5M2;
  expect_refused(a, StatusCode::kInvalidArgument, "v.dtype");
  a = valid_fp8();
  a.q.dtype = a.k.dtype = a.v.dtype = DType::kE5M2;
  expect_refused(a, StatusCode::kUnsupported, "q.dtype");
}

TEST(AttentionValidationFp8, Descales) {
  AttentionArgs a = valid_fp8();
  a.q_descale = descale(2, 8, 0x5000000);  // heads_q, not heads_kv
  expect_refused(a, StatusCode::kInvalidArgument, "q_descale.shape[1] (heads_kv)");
  a = valid_fp8();
  a.k_descale = descale(3, 2, 0x5000000);
  expect_refused(a, StatusCode::kInvalidArgument, "k_descale.shape[0] (batch)");
  a = valid_fp8();
  a.v_descale = descale(2, 2, 0x5000000);
  a.v_descale.dtype = DType::kBF16;
  expect_refused(a, StatusCode::kInvalidArgument, "v_descale.dtype");
  a = valid_fp8();
  a.v_descale = descale(2, 2, 0x5000000);
  a.v_descale.rank = 1;
  expect_refused(a, StatusCode::kInvalidArgument, "v_descale.rank");
  a = valid_fp8();
  a.q_descale = descale(2, 2, 0x5000002);
  expect_refused(a, StatusCode::kMisaligned, "q_descale.data");
  AttentionArgs b = valid();  // bf16 inputs take no descale
  b.q_descale = descale(2, 2, 0x5000000);
  expect_refused(b, StatusCode::kInvalidArgument, "q_descale: descales are for e4m3 inputs only");
}

TEST(AttentionValidationFp8, UnsupportedOptionsAreNamed) {
  const auto refused = [](void (*set)(AttentionArgs&), const char* needle) {
    AttentionArgs a = valid_fp8();
    set(a);
    expect_refused(a, StatusCode::kUnsupported, needle);
  };
  refused([](AttentionArgs& a) { a.softcap = 30.0f; }, "softcap");
  refused([](AttentionArgs& a) { a.window_left = 64; }, "window_left");
  refused([](AttentionArgs& a) { a.window_right = 64; }, "window_right");
  refused([](AttentionArgs& a) { a.attention_chunk = 256; }, "attention_chunk");
  refused([](AttentionArgs& a) { a.num_splits = 4; }, "num_splits");
  refused([](AttentionArgs& a) { a.pack_gqa = true; }, "pack_gqa");
  refused([](AttentionArgs& a) { a.sink.data = fake(0x6000000), a.sink.rank = 1, a.sink.shape[0] = 8,
                                 a.sink.dtype = DType::kFP32; }, "sink");
  refused([](AttentionArgs& a) { a.page_table.data = fake(0x6000000), a.page_table.rank = 2; }, "page_table");
  refused([](AttentionArgs& a) { a.seqused_k.data = fake(0x6000000), a.seqused_k.rank = 1, a.seqused_k.shape[0] = 2,
                                 a.seqused_k.dtype = DType::kI32; }, "seqused_k");
}

// O and LSE are written: each element at its own address.
TEST(AttentionValidation, OutputsAddressEachElementOnce) {
  AttentionArgs a = valid();
  a.o.stride[1] = a.o.stride[2];  // seqlen stride = head stride: rows of different heads coincide
  expect_refused(a, StatusCode::kInvalidArgument, "o.stride: elements overlap (dimension 2");
  a = valid();
  a.o.stride[0] = 64 * 8 * 128;  // batch 1 starts inside batch 0 (100 rows)
  expect_refused(a, StatusCode::kInvalidArgument, "o.stride: elements overlap");
  a = valid();
  a.o.stride[1] = 2 * 8 * 128;  // padded rows: fine
  a.o.stride[0] = 100 * 2 * 8 * 128;
  EXPECT_TRUE(accepted(warpspec::check(a))) << warpspec::check(a).to_string();
  a = valid();
  a.lse = lse_of_valid(fake(0x4000000));
  a.lse.stride[1] = 1;  // heads one element apart over seqlen 100
  expect_refused(a, StatusCode::kInvalidArgument, "lse.stride: elements overlap");
  a.lse.stride[1] = 100;
  EXPECT_TRUE(accepted(warpspec::check(a))) << warpspec::check(a).to_string();
}

// A "big enough" workspace size (SIZE_MAX, as the size queries pass) is no error: the bytes
// the plan writes are then checked against every view once the plan is made (on a device;
// without one the call stops at the device check, never accepted).
TEST(AttentionValidation, WorkspaceOfUnboundedSizeIsCheckedOnWhatThePlanWrites) {
  AttentionArgs a = valid();
  a.num_splits = 3;
  a.workspace = fake(0x5000000);
  a.workspace_bytes = 8 << 20;  // past what 3 splits need (2.4 MB on 132 SMs), inside test_pointer's 96 MiB
  EXPECT_TRUE(accepted(warpspec::check(a))) << warpspec::check(a).to_string();
  a.workspace_bytes = SIZE_MAX;
  EXPECT_TRUE(accepted(warpspec::check(a))) << warpspec::check(a).to_string();
  size_t bytes = 0;
  const warpspec::Status q = warpspec::attention_workspace_size(a, &bytes);  // the query passes SIZE_MAX itself
  EXPECT_TRUE(accepted(q)) << q.to_string();
  a.workspace = a.o.data;
  const warpspec::Status s = warpspec::check(a);
  EXPECT_FALSE(s.ok()) << "a workspace over o was accepted";
  if (s.code() != StatusCode::kNoDevice) {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
    EXPECT_NE(s.message().find("workspace: overlaps o"), std::string::npos) << s.message();
  }
  a.workspace_bytes = 1 << 20;  // a bounded size: refused before the device check, anywhere
  expect_refused(a, StatusCode::kInvalidArgument, "workspace: overlaps o");
}

// The split-KV workspace counts a packed q's total rows: 128 splits x 132152840 rows x 2^22
// heads x 65 fp32 is past 2^64 bytes (while 128 x 2^22 work items stay below 2^30), which once
// wrapped to a 16 GiB size and a workspace of that size was accepted. Refused after planning
// (so only where a device answers, or host.fake_hopper's stand-in).
TEST(AttentionValidation, SplitWorkspaceThatWouldWrapIsRefused) {
  AttentionArgs a;
  const int64_t rows = 132152840, heads = int64_t(1) << 22;
  // k, v and cu_seqlens below q, whose ~2^56 bytes reach far past them (on a GPU each data
  // pointer is device memory: test_pointer's allocation).
  a.q = packed(rows, heads, 64, fake(0x3000000));
  a.o = a.q;  // in place
  a.k = bshd(1, 1024, 1, 64, DType::kBF16, fake());
  a.v = bshd(1, 1024, 1, 64, DType::kBF16, fake(0x1000000));
  a.cu_seqlens_q = vec(2, DType::kI32, fake(0x2000000));
  a.max_seqlen_q = 1;
  a.num_splits = 128;
  size_t bytes = 0;
  const warpspec::Status s = warpspec::attention_workspace_size(a, &bytes);
  if (s.code() == StatusCode::kNoDevice) GTEST_SKIP() << "the plan needs a device: " << s.to_string();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string() << " (size " << bytes << ")";
  EXPECT_NE(s.message().find("num_splits: the split-KV workspace"), std::string::npos) << s.message();
}

}  // namespace attention_validation_test
