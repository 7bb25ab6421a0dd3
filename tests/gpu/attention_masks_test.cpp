// Attention with FlashAttention-3's full call: sliding windows (left-only, right-only,
// both, with causal, smaller and larger than the sequence), softcap, learnable sinks,
// and variable length (packed Q and/or K/V, seqused, empty and length-1 sequences,
// seqlen_q != seqlen_k per sequence). Each sequence is checked against the float32
// reference (testing/attention_reference.hpp, which implements the same masks) run on
// that sequence alone, by the rule of testing/attention_check.hpp; LSE too. Outputs
// are poisoned (NaN) first and have guard rows past the packed tensor: every row the
// call must write is written, nothing outside the view (or past seqused) is.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/gpu_test.hpp"
#include "testing/attention_check.hpp"
#include "testing/attention_reference.hpp"
#include "testing/convert.hpp"
#include "testing/fill.hpp"
#include "testing/random.hpp"
#include "testing/views.hpp"
#include "warpspec/warpspec.hpp"

namespace attention_masks {

using warpspec::AttentionArgs;
using warpspec::DType;
using warpspec::TensorView;
namespace test = warpspec::test;
namespace testbed = warpspec::testbed;

struct Seq {
  int q, k;  // this sequence's query and key rows (its capacity when seqused shortens it)
};

struct MaskCase {
  const char* name;
  int d = 128;
  DType dtype = DType::kBF16;
  bool causal = false;
  int left = -1, right = -1;
  float softcap = 0.0f;
  float scale = 0.0f;  // 0: 1/sqrt(d)
  bool sink = false;
  std::vector<Seq> seqs;  // one per batch entry
  bool pack_q = false, pack_k = false;
  // seqused: rows of each sequence that take part (-1: all of them)
  std::vector<int> used_q, used_k;
  int hkv = 2, ratio = 2;
  int chunk = 0;  // attention_chunk
  bool bad_cu = false;  // cu_seqlens_q's last entry points far past the tensor
  bool dynamic = true;  // packed: the dynamic tile schedule (a tile counter); else static
  int block_n = 0;  // the key block the plan must take (config.hpp; 0: not checked)
};

TensorView packed_view(void* data, DType t, int64_t total, int64_t h, int64_t d) {
  TensorView v;
  v.data = data;
  v.dtype = t;
  v.rank = 3;
  v.shape[0] = total, v.shape[1] = h, v.shape[2] = d;
  v.stride[0] = h * d, v.stride[1] = d, v.stride[2] = 1;
  return v;
}

TensorView int_vector(void* data, int64_t n) {
  TensorView v;
  v.data = data;
  v.dtype = DType::kI32;
  v.rank = 1;
  v.shape[0] = n;
  v.stride[0] = 1;
  return v;
}

// Rows of each sequence in its tensor: packed at prefix sums, dense at b * capacity.
std::vector<int> offsets(const std::vector<Seq>& seqs, bool packed, bool of_q, int capacity) {
  std::vector<int> off;
  int at = 0;
  for (size_t b = 0; b < seqs.size(); ++b) {
    off.push_back(packed ? at : int(b) * capacity);
    at += of_q ? seqs[b].q : seqs[b].k;
  }
  off.push_back(packed ? at : int(seqs.size()) * capacity);
  return off;
}

void run(const MaskCase& c) {
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(std::string(c.name) + " " + test::seed_note(seed));
  const int batch = int(c.seqs.size());
  const int hq = c.hkv * c.ratio;
  int max_q = 0, max_k = 0;
  for (const Seq& s : c.seqs) max_q = std::max(max_q, s.q), max_k = std::max(max_k, s.k);
  if (!c.pack_q)
    for (const Seq& s : c.seqs) ASSERT_EQ(s.q, max_q) << "a dense side has one length";
  if (!c.pack_k)
    for (const Seq& s : c.seqs) ASSERT_EQ(s.k, max_k) << "a dense side has one length";
  const std::vector<int> qoff = offsets(c.seqs, c.pack_q, true, max_q), koff = offsets(c.seqs, c.pack_k, false, max_k);
  const int total_q = qoff.back(), total_k = koff.back();
  const int guard = 37;  // rows of O and LSE past the view, which must stay poisoned
  const size_t row_q = size_t(hq) * c.d, row_k = size_t(c.hkv) * c.d;

  test::DeviceBuffer dq(std::max<size_t>(1, size_t(total_q) * row_q * 2)),
      dk(std::max<size_t>(1, size_t(total_k) * row_k * 2)), dv(std::max<size_t>(1, size_t(total_k) * row_k * 2));
  test::DeviceBuffer d_o(size_t(total_q + guard) * row_q * 2), d_lse(size_t(hq) * (total_q + guard) * 4);
  ASSERT_TRUE(dq.get() && dk.get() && dv.get() && d_o.get() && d_lse.get());
  CUDA_ASSERT(testbed::fill_normalish(dq.get(), c.dtype, size_t(total_q) * row_q, seed));
  CUDA_ASSERT(testbed::fill_normalish(dk.get(), c.dtype, size_t(total_k) * row_k, seed + 1));
  CUDA_ASSERT(testbed::fill_normalish(dv.get(), c.dtype, size_t(total_k) * row_k, seed + 2));
  CUDA_ASSERT(test::poison(d_o));
  CUDA_ASSERT(test::poison(d_lse));

  std::vector<float> sink_host(hq);
  for (int h = 0; h < hq; ++h) sink_host[h] = 4.0f * testbed::hash_uniform(seed + 3, h) + 1.0f;  // in [-3, 5)
  test::DeviceBuffer d_sink = test::to_device(sink_host);
  std::vector<int> cu_q(qoff), cu_k(koff);
  if (c.bad_cu) cu_q.back() = total_q + 100000;
  test::DeviceBuffer d_cu_q = test::to_device(cu_q), d_cu_k = test::to_device(cu_k);
  test::DeviceBuffer d_used_q = test::to_device(c.used_q), d_used_k = test::to_device(c.used_k);
  test::DeviceBuffer d_counter = test::to_device(std::vector<int32_t>{0, 0});

  AttentionArgs a;
  if (c.pack_q) {
    a.q = packed_view(dq.get(), c.dtype, total_q, hq, c.d);
    a.o = packed_view(d_o.get(), c.dtype, total_q, hq, c.d);
    a.cu_seqlens_q = int_vector(d_cu_q.get(), batch + 1);
    a.max_seqlen_q = c.bad_cu ? 100000 : max_q;  // a bad bound too: the grid then covers far past the tensor
    a.lse = testbed::lse_view(d_lse.as<float>(), 1, hq, total_q, 0, total_q + guard, 1);
    a.lse.rank = 2;  // (heads, total_q)
    a.lse.shape[0] = hq, a.lse.shape[1] = total_q;
    a.lse.stride[0] = total_q + guard, a.lse.stride[1] = 1;
  } else {
    a.q = testbed::bshd_contiguous(dq.get(), c.dtype, batch, max_q, hq, c.d);
    a.o = testbed::bshd_contiguous(d_o.get(), c.dtype, batch, max_q, hq, c.d);
    a.lse = testbed::lse_contiguous(d_lse.as<float>(), batch, hq, max_q);
  }
  if (c.pack_k) {
    a.k = packed_view(dk.get(), c.dtype, total_k, c.hkv, c.d);
    a.v = packed_view(dv.get(), c.dtype, total_k, c.hkv, c.d);
    a.cu_seqlens_k = int_vector(d_cu_k.get(), batch + 1);
  } else {
    a.k = testbed::bshd_contiguous(dk.get(), c.dtype, batch, max_k, c.hkv, c.d);
    a.v = testbed::bshd_contiguous(dv.get(), c.dtype, batch, max_k, c.hkv, c.d);
  }
  if (!c.used_q.empty()) a.seqused_q = int_vector(d_used_q.get(), batch);
  if (!c.used_k.empty()) a.seqused_k = int_vector(d_used_k.get(), batch);
  if (c.dynamic) a.tile_counter = int_vector(d_counter.get(), 2);
  a.causal = c.causal;
  a.window_left = c.left, a.window_right = c.right;
  a.softcap = c.softcap;
  a.attention_chunk = c.chunk;
  if (c.scale != 0) a.softmax_scale = c.scale;
  if (c.sink) {
    a.sink.data = d_sink.get(), a.sink.dtype = DType::kFP32, a.sink.rank = 1;
    a.sink.shape[0] = hq, a.sink.stride[0] = 1;
  }
  if (c.block_n != 0) {
    std::string line;
    const warpspec::Status ds = warpspec::describe(a, &line);
    ASSERT_TRUE(ds.ok()) << ds.to_string();
    EXPECT_NE(line.find(" block_n=" + std::to_string(c.block_n) + " "), std::string::npos) << line;
  }
  const warpspec::Status st = warpspec::attention_forward(a, nullptr);
  ASSERT_TRUE(st.ok()) << st.to_string();
  CUDA_ASSERT(cudaDeviceSynchronize());
  // The kernel leaves the counter pair zero for the next call.
  const auto counter = test::to_host<int32_t>(d_counter, 2);
  EXPECT_EQ(counter[0], 0) << "tile counter not reset";
  EXPECT_EQ(counter[1], 0) << "done counter not reset";

  const auto o = test::to_host<uint16_t>(d_o, size_t(total_q + guard) * row_q);
  const auto lse = test::to_host<float>(d_lse, size_t(hq) * (total_q + guard));
  const auto v_host = test::to_host<uint16_t>(dv, size_t(total_k) * row_k);
  const double max_v = testbed::max_abs(c.dtype, v_host.data(), v_host.size());
  std::vector<uint8_t> o_written(o.size() / c.d, 0), lse_written(lse.size(), 0);  // per (row, head) / entry
  const float scale = c.scale != 0 ? c.scale : 1.0f / std::sqrt(float(c.d));
  // The LSE entry of (sequence b, head h, row i) in d_lse.
  const auto lse_at = [&](int b, int h, int i) -> size_t {
    return c.pack_q ? size_t(h) * (total_q + guard) + qoff[b] + i : (size_t(b) * hq + h) * max_q + i;
  };

  for (int b = 0; b < batch; ++b) {
    SCOPED_TRACE("sequence " + std::to_string(b));
    const int sq = c.used_q.empty() ? c.seqs[b].q : std::min(c.seqs[b].q, c.used_q[b]);
    const int sk = c.used_k.empty() ? c.seqs[b].k : std::min(c.seqs[b].k, c.used_k[b]);
    if (sq == 0) continue;
    testbed::RefProblem rp{1, sq, sk, hq, c.hkv, c.d, c.causal, scale, c.dtype};
    rp.window_left = c.left, rp.window_right = c.right, rp.softcap = c.softcap;
    rp.sink = c.sink ? d_sink.as<float>() : nullptr;
    rp.chunk = c.chunk;
    const size_t e = warpspec::dtype_size(c.dtype);
    const testbed::RefTensor rq{static_cast<char*>(dq.get()) + qoff[b] * row_q * e, 0, int64_t(row_q), c.d};
    const testbed::RefTensor rk{static_cast<char*>(dk.get()) + koff[b] * row_k * e, 0, int64_t(row_k), c.d};
    const testbed::RefTensor rv{static_cast<char*>(dv.get()) + koff[b] * row_k * e, 0, int64_t(row_k), c.d};
    const size_t n = size_t(sq) * row_q;
    test::DeviceBuffer ref(n * 4), low(n * 4), ref_lse(size_t(sq) * hq * 4);
    CUDA_ASSERT(testbed::attention_reference(rp, rq, rk, rv, ref.as<float>(), ref_lse.as<float>(), false));
    CUDA_ASSERT(testbed::attention_reference(rp, rq, rk, rv, low.as<float>(), nullptr, true));
    CUDA_ASSERT(cudaDeviceSynchronize());
    const auto ref_h = test::to_host<float>(ref, n), low_h = test::to_host<float>(low, n);
    const auto ref_lse_h = test::to_host<float>(ref_lse, size_t(sq) * hq);
    const uint16_t* o_seq = o.data() + size_t(qoff[b]) * row_q;
    const testbed::AttentionErrors err = testbed::compare_attention_o(c.dtype, o_seq, 0, int64_t(row_q), c.d, 1, sq, hq,
                                                                      c.d, ref_h.data(), low_h.data());
    EXPECT_EQ(err.nan, 0) << "NaN (unwritten or computed) in O; first at reference index " << err.first_nan;
    const double tol = testbed::attention_o_tolerance(c.dtype, err.o_plain, err.max_ref, max_v, std::max(sk, 1));
    EXPECT_LE(err.o, tol) << "max |O - ref| " << err.o << " vs plain error " << err.o_plain;
    int bad = 0;
    for (int h = 0; h < hq; ++h)
      for (int i = 0; i < sq; ++i) {
        const float got = lse[lse_at(b, h, i)], want = ref_lse_h[size_t(h) * sq + i];
        if (!testbed::lse_matches(got, want) && bad++ == 0)
          ADD_FAILURE() << "LSE head " << h << " row " << i << ": got " << got << " want " << want;
        lse_written[lse_at(b, h, i)] = 1;
      }
    EXPECT_EQ(bad, 0) << "LSE mismatches";
    for (int i = 0; i < sq; ++i)
      for (int h = 0; h < hq; ++h) o_written[(size_t(qoff[b]) + i) * hq + h] = 1;
  }
  // Everything else keeps its poison: rows past seqused, the guard rows, and (dense) the
  // padding of O. The bytes 0xFFFF are the poison of a 16-bit element.
  int64_t stray = 0;
  for (size_t r = 0; r < o_written.size(); ++r) {
    if (o_written[r]) continue;
    for (int x = 0; x < c.d; ++x) stray += o[r * c.d + x] != 0xFFFF;
  }
  EXPECT_EQ(stray, 0) << "O elements written outside the rows the call owns";
  int64_t lse_stray = 0;
  for (size_t i = 0; i < lse.size(); ++i) lse_stray += !lse_written[i] && !std::isnan(lse[i]);
  EXPECT_EQ(lse_stray, 0) << "LSE entries written outside the rows the call owns";
}

std::vector<Seq> dense(int batch, int sq, int sk) { return std::vector<Seq>(size_t(batch), Seq{sq, sk}); }
// Ragged lengths with the edge cases: empty, length 1, the tile edges, sq != sk.
const std::vector<Seq> kRagged = {{300, 300}, {0, 0}, {1, 1}, {129, 1031}, {1031, 129}, {0, 50}, {50, 0}, {128, 128}, {7, 700}};

std::vector<MaskCase> cases() {
  std::vector<MaskCase> v;
  auto add = [&](MaskCase c) { v.push_back(std::move(c)); };
  // Windows on dense batches.
  add({.name = "window_both", .d = 128, .left = 100, .right = 50, .seqs = dense(2, 1031, 1031)});
  add({.name = "window_causal_left", .d = 64, .causal = true, .left = 256, .seqs = dense(2, 1031, 1031)});
  add({.name = "window_left_only_sq_lt_sk", .d = 128, .dtype = DType::kFP16, .left = 200, .seqs = dense(1, 300, 1031)});
  add({.name = "window_right_only", .d = 256, .right = 7, .seqs = dense(2, 513, 513)});
  add({.name = "window_wider_than_sequence", .d = 64, .left = 5000, .right = 5000, .seqs = dense(2, 257, 300)});
  add({.name = "window_diagonal_sq_gt_sk", .d = 128, .left = 0, .right = 0, .seqs = dense(2, 700, 300)});
  add({.name = "window_causal_sq_gt_sk", .d = 192, .dtype = DType::kFP16, .causal = true, .left = 64, .seqs = dense(1, 1031, 257)});
  // Softcap (a large scale, so that capping matters) and sinks.
  add({.name = "softcap", .d = 128, .softcap = 5.0f, .scale = 0.5f, .seqs = dense(2, 513, 1031)});
  add({.name = "softcap_causal_fp16", .d = 64, .dtype = DType::kFP16, .causal = true, .softcap = 30.0f, .seqs = dense(2, 700, 700)});
  add({.name = "sink", .d = 64, .sink = true, .seqs = dense(2, 300, 1031)});
  add({.name = "sink_causal_rows_without_keys", .d = 128, .causal = true, .sink = true, .seqs = dense(1, 700, 300)});
  // Variable length.
  add({.name = "varlen", .d = 128, .seqs = kRagged, .pack_q = true, .pack_k = true});
  add({.name = "varlen_causal", .d = 64, .causal = true, .seqs = kRagged, .pack_q = true, .pack_k = true});
  add({.name = "varlen_causal_static", .d = 64, .causal = true, .seqs = kRagged, .pack_q = true, .pack_k = true, .dynamic = false});
  add({.name = "varlen_causal_fp16_d256", .d = 256, .dtype = DType::kFP16, .causal = true, .seqs = kRagged, .pack_q = true, .pack_k = true, .hkv = 1, .ratio = 3});
  add({.name = "varlen_window", .d = 96, .left = 90, .right = 3, .seqs = kRagged, .pack_q = true, .pack_k = true});
  add({.name = "varlen_all", .d = 128, .causal = true, .left = 300, .softcap = 20.0f, .sink = true, .seqs = kRagged, .pack_q = true, .pack_k = true, .hkv = 2, .ratio = 4});
  add({.name = "varlen_q_dense_k_seqused", .d = 128, .causal = true, .seqs = {{300, 1031}, {1, 1031}, {129, 1031}, {0, 1031}}, .pack_q = true, .used_k = {1031, 5, 0, 600}});
  add({.name = "dense_q_varlen_k", .d = 64, .seqs = {{257, 1031}, {257, 1}, {257, 0}, {257, 300}}, .pack_k = true});
  add({.name = "varlen_seqused_q", .d = 128, .seqs = kRagged, .pack_q = true, .pack_k = true, .used_q = {150, 0, 1, 129, 1000, 0, 50, 0, 7}});
  // Chunked attention (FlashAttention-3's attention_chunk), alone and with the other masks.
  add({.name = "chunk_causal", .d = 128, .causal = true, .seqs = dense(2, 1031, 1031), .chunk = 256});
  add({.name = "chunk_unaligned_sq_gt_sk", .d = 64, .seqs = dense(2, 700, 300), .chunk = 100});
  add({.name = "chunk_window_sq_lt_sk", .d = 192, .dtype = DType::kFP16, .left = 50, .seqs = dense(1, 300, 1031), .chunk = 77});
  add({.name = "varlen_chunk_causal", .d = 128, .causal = true, .seqs = kRagged, .pack_q = true, .pack_k = true, .chunk = 192});
  // Head dim 128's 192-key blocks (rows that see 3072 keys or more on average; config.hpp):
  // key lengths off the block grid, every mask, packed sides, pack-GQA's group of 4.
  add({.name = "long_rows_full", .d = 128, .seqs = dense(1, 700, 4133), .block_n = 192});
  add({.name = "long_rows_causal_fp16", .d = 120, .dtype = DType::kFP16, .causal = true, .seqs = dense(1, 1000, 7001), .block_n = 192});
  add({.name = "long_rows_small_causal", .d = 128, .causal = true, .seqs = dense(1, 65, 3163), .hkv = 1, .block_n = 192});
  add({.name = "long_rows_window_softcap_sink", .d = 128, .left = 3500, .right = 100, .softcap = 20.0f, .sink = true, .seqs = dense(1, 800, 5000), .hkv = 1, .ratio = 4, .block_n = 192});
  add({.name = "long_rows_varlen", .d = 128, .softcap = 10.0f, .seqs = {{4100, 4100}, {0, 0}, {1, 3500}, {3000, 5000}, {700, 3200}}, .pack_q = true, .pack_k = true, .block_n = 192});
  add({.name = "long_rows_varlen_causal", .d = 128, .causal = true, .seqs = {{5000, 9000}, {0, 0}, {3000, 7777}, {1, 4000}}, .pack_q = true, .pack_k = true, .hkv = 1, .ratio = 4, .block_n = 192});
  add({.name = "long_rows_window_short_stays_128", .d = 128, .causal = true, .left = 1000, .seqs = dense(1, 1000, 8192), .block_n = 128});
  add({.name = "varlen_bad_cu_seqlens_stays_inside", .d = 64, .seqs = {{200, 200}, {100, 100}}, .pack_q = true, .pack_k = true, .bad_cu = true});
  return v;
}

// The dynamic schedule: the same output bit for bit on every run and as the static
// schedule (each tile is computed the same way whichever CTA takes it), the counter
// reset after each call, with many more tiles than CTAs.
TEST(AttentionMasksSchedule, DynamicIsDeterministicAndMatchesStatic) {
  WARPSPEC_REQUIRE_HOPPER();
  std::vector<int> lens;
  for (int i = 0; i < 64; ++i) lens.push_back(1 + int(testbed::hash64(99, i) % 3000));
  std::vector<int> cu(1, 0);
  for (int l : lens) cu.push_back(cu.back() + l);
  const int total = cu.back(), h = 8, d = 128;
  test::DeviceBuffer q(size_t(total) * h * d * 2), k(size_t(total) * h * d * 2), v(size_t(total) * h * d * 2),
      o(size_t(total) * h * d * 2), d_cu = test::to_device(cu), counter = test::to_device(std::vector<int32_t>{0, 0});
  ASSERT_TRUE(q.get() && k.get() && v.get() && o.get());
  CUDA_ASSERT(testbed::fill_normalish(q.get(), DType::kBF16, size_t(total) * h * d, 1));
  CUDA_ASSERT(testbed::fill_normalish(k.get(), DType::kBF16, size_t(total) * h * d, 2));
  CUDA_ASSERT(testbed::fill_normalish(v.get(), DType::kBF16, size_t(total) * h * d, 3));
  AttentionArgs a;
  a.q = packed_view(q.get(), DType::kBF16, total, h, d);
  a.k = packed_view(k.get(), DType::kBF16, total, h, d);
  a.v = packed_view(v.get(), DType::kBF16, total, h, d);
  a.o = packed_view(o.get(), DType::kBF16, total, h, d);
  a.cu_seqlens_q = a.cu_seqlens_k = int_vector(d_cu.get(), int64_t(lens.size()) + 1);
  a.max_seqlen_q = *std::max_element(lens.begin(), lens.end());
  a.causal = true;
  std::vector<uint16_t> first;
  for (int run = 0; run < 6; ++run) {
    a.tile_counter = run == 5 ? TensorView{} : int_vector(counter.get(), 2);  // the last run static
    CUDA_ASSERT(test::poison(o));
    const warpspec::Status s = warpspec::attention_forward(a, nullptr);
    ASSERT_TRUE(s.ok()) << s.to_string();
    CUDA_ASSERT(cudaDeviceSynchronize());
    const auto out = test::to_host<uint16_t>(o, size_t(total) * h * d);
    if (run == 0) {
      first = out;
      int64_t poisoned = 0;
      for (uint16_t x : out) poisoned += x == 0xFFFF;
      EXPECT_EQ(poisoned, 0) << "rows left unwritten";
    } else {
      EXPECT_TRUE(out == first) << "run " << run << (run == 5 ? " (static)" : " (dynamic)") << " differs from run 0";
    }
    const auto c = test::to_host<int32_t>(counter, 2);
    EXPECT_EQ(c[0], 0) << "run " << run;
    EXPECT_EQ(c[1], 0) << "run " << run;
  }
}

// A dense call the library runs on the dynamic schedule with its own tile counter: its O
// is the same bits as the same problem given packed (varlen: the caller's counter, no
// sections; each tile is computed alike wherever it runs), twice (the counter left zero),
// and three (batch, head) pairs of it match the reference. `sections`: whether the plan
// cuts the work into L2 sections.
void dense_dynamic_matches_packed(int batch, int sq, int hkv, int hq, int d, bool causal, bool sections) {
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  const DType t = DType::kBF16;
  const size_t rows = size_t(batch) * sq, row_q = size_t(hq) * d, row_k = size_t(hkv) * d;
  test::DeviceBuffer q(rows * row_q * 2), k(rows * row_k * 2), v(rows * row_k * 2), o(rows * row_q * 2),
      o_packed(rows * row_q * 2), counter = test::to_device(std::vector<int32_t>{0, 0});
  ASSERT_TRUE(q.get() && k.get() && v.get() && o.get() && o_packed.get());
  CUDA_ASSERT(testbed::fill_normalish(q.get(), t, rows * row_q, seed));
  CUDA_ASSERT(testbed::fill_normalish(k.get(), t, rows * row_k, seed + 1));
  CUDA_ASSERT(testbed::fill_normalish(v.get(), t, rows * row_k, seed + 2));
  AttentionArgs a;
  a.q = testbed::bshd_contiguous(q.get(), t, batch, sq, hq, d);
  a.k = testbed::bshd_contiguous(k.get(), t, batch, sq, hkv, d);
  a.v = testbed::bshd_contiguous(v.get(), t, batch, sq, hkv, d);
  a.o = testbed::bshd_contiguous(o.get(), t, batch, sq, hq, d);
  a.causal = causal;
  std::string line;
  ASSERT_TRUE(warpspec::describe(a, &line).ok());
  EXPECT_EQ(line.find(" l2_sections=") != std::string::npos, sections) << line;
  EXPECT_NE(line.find(" schedule=dynamic"), std::string::npos) << line;

  std::vector<int> cu(batch + 1);
  for (int b = 0; b <= batch; ++b) cu[b] = b * sq;
  test::DeviceBuffer d_cu = test::to_device(cu);
  AttentionArgs p = a;
  p.q = packed_view(q.get(), t, int64_t(rows), hq, d);
  p.k = packed_view(k.get(), t, int64_t(rows), hkv, d);
  p.v = packed_view(v.get(), t, int64_t(rows), hkv, d);
  p.o = packed_view(o_packed.get(), t, int64_t(rows), hq, d);
  p.cu_seqlens_q = p.cu_seqlens_k = int_vector(d_cu.get(), batch + 1);
  p.max_seqlen_q = sq;
  p.tile_counter = int_vector(counter.get(), 2);
  ASSERT_TRUE(warpspec::describe(p, &line).ok());
  EXPECT_EQ(line.find(" l2_sections="), std::string::npos) << line;
  CUDA_ASSERT(test::poison(o_packed));
  warpspec::Status st = warpspec::attention_forward(p, nullptr);
  ASSERT_TRUE(st.ok()) << st.to_string();
  CUDA_ASSERT(cudaDeviceSynchronize());
  const auto want = test::to_host<uint16_t>(o_packed, rows * row_q);
  for (int run = 0; run < 2; ++run) {
    CUDA_ASSERT(test::poison(o));
    st = warpspec::attention_forward(a, nullptr);
    ASSERT_TRUE(st.ok()) << st.to_string();
    CUDA_ASSERT(cudaDeviceSynchronize());
    const auto got = test::to_host<uint16_t>(o, rows * row_q);
    int64_t differ = 0;
    for (size_t i = 0; i < got.size(); ++i) differ += got[i] != want[i];
    EXPECT_EQ(differ, 0) << "run " << run << ": elements that differ from the packed call's";
  }
  // The reference for (batch, head) pairs in the first and last sections.
  const auto o_host = test::to_host<uint16_t>(o, rows * row_q);
  const auto v_host = test::to_host<uint16_t>(v, rows * row_k);
  const double max_v = testbed::max_abs(t, v_host.data(), v_host.size());
  for (auto [b, h] : {std::pair{0, 0}, std::pair{batch / 2, hq / 2 - 3}, std::pair{batch - 1, hq - 1}}) {
    SCOPED_TRACE("batch " + std::to_string(b) + " head " + std::to_string(h));
    testbed::RefProblem rp{1, sq, sq, 1, 1, d, causal, 1.0f / std::sqrt(float(d)), t};
    const size_t q_at = (size_t(b) * sq * row_q + size_t(h) * d) * 2, k_at = (size_t(b) * sq * row_k + size_t(h / (hq / hkv)) * d) * 2;
    const testbed::RefTensor rq{q.as<char>() + q_at, 0, int64_t(row_q), 0};
    const testbed::RefTensor rk{k.as<char>() + k_at, 0, int64_t(row_k), 0};
    const testbed::RefTensor rv{v.as<char>() + k_at, 0, int64_t(row_k), 0};
    const size_t n = size_t(sq) * d;
    test::DeviceBuffer ref(n * 4), low(n * 4);
    CUDA_ASSERT(testbed::attention_reference(rp, rq, rk, rv, ref.as<float>(), nullptr, false));
    CUDA_ASSERT(testbed::attention_reference(rp, rq, rk, rv, low.as<float>(), nullptr, true));
    CUDA_ASSERT(cudaDeviceSynchronize());
    const auto ref_h = test::to_host<float>(ref, n), low_h = test::to_host<float>(low, n);
    const testbed::AttentionErrors err = testbed::compare_attention_o(
        t, o_host.data() + size_t(b) * sq * row_q + size_t(h) * d, 0, int64_t(row_q), d, 1, sq, 1, d, ref_h.data(), low_h.data());
    EXPECT_EQ(err.nan, 0);
    EXPECT_LE(err.o, testbed::attention_o_tolerance(t, err.o_plain, err.max_ref, max_v, sq)) << "vs plain " << err.o_plain;
  }
}

// L2 sections (schedule/attention.hpp): a dense causal call whose heads' K/V outgrow half
// of L2 runs section by section on the dynamic schedule.
TEST(AttentionMasksSchedule, L2SectionsMatchPackedAndReference) {
  WARPSPEC_REQUIRE_HOPPER();
  dense_dynamic_matches_packed(3, 3000, 8, 32, 128, /*causal=*/true, /*sections=*/true);  // K/V 1.5 MB a head: 20 heads a section
}

// Head dim 64's full calls from 1k keys run the dynamic schedule too, in one section.
TEST(AttentionMasksSchedule, HeadDim64FullCallsRunDynamicAndMatch) {
  WARPSPEC_REQUIRE_HOPPER();
  dense_dynamic_matches_packed(3, 2100, 4, 16, 64, /*causal=*/false, /*sections=*/false);
}

class AttentionMasks : public ::testing::TestWithParam<MaskCase> {};

TEST_P(AttentionMasks, MatchesReference) {
  WARPSPEC_REQUIRE_HOPPER();
  run(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Attention, AttentionMasks, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<MaskCase>& i) { return std::string(i.param.name); });

}  // namespace attention_masks
