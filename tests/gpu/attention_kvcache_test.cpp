// Attention for serving: split-KV (num_splits 1, 3 and the heuristic; bitwise repeatable
// for a fixed count), KV caches read through cache_seqlens (seqused_k), cache_batch_idx
// permutations, left pads and page tables (several page sizes, pages in random order),
// GQA ratios 1/4/8, seqlen_q 1..16, causal and windows; each sequence against the fp32
// reference over the gathered (logical) cache. And kvcache_append: the new rows land at
// cache_seqlens (rotary applied, both conventions), the rest of the cache is untouched.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/gpu_test.hpp"
#include "testing/attention_check.hpp"
#include "testing/attention_reference.hpp"
#include "testing/convert.hpp"
#include "testing/fill.hpp"
#include "testing/views.hpp"
#include "warpspec/warpspec.hpp"

namespace attention_kvcache {

using warpspec::AttentionArgs;
using warpspec::DType;
using warpspec::TensorView;
namespace test = warpspec::test;
namespace testbed = warpspec::testbed;

TensorView i32(void* data, int64_t n) {
  TensorView v;
  v.data = data, v.dtype = DType::kI32, v.rank = 1, v.shape[0] = n, v.stride[0] = 1;
  return v;
}

struct KvCase {
  const char* name;
  int d = 128, hkv = 2, ratio = 4, batch = 3, sq = 1, cap = 1000;
  int page = 0;  // page size; 0: contiguous cache
  int splits = 1;
  bool causal = false;
  int left = -1, right = -1;
  bool permute = false;  // cache_batch_idx: a permutation of a larger cache
  bool leftpad = false;
  DType dtype = DType::kBF16;
  int block_n = 0;  // the key block the plan must take (config.hpp; 0: not checked)
  bool full_lengths = false;  // every sequence the cache's length, no seqused_k
  // Also captured in a CUDA graph on a new stream and replayed, the replay's O and LSE
  // checked against the reference: the heuristic's splits under capture run split (on a
  // workspace the stream has cached) or unsplit (attention.cpp: launch_split), never refuse.
  bool capture = false;
};

void run(const KvCase& c, uint64_t seed) {
  const int hq = c.hkv * c.ratio, B = c.batch, cache_b = c.permute ? B + 2 : B;
  const size_t e = warpspec::dtype_size(c.dtype);
  const size_t row_k = size_t(c.hkv) * c.d, row_q = size_t(hq) * c.d;
  std::mt19937 gen{uint32_t(seed)};
  // The logical cache (cache_b, cap, hkv, d); paged: copied page by page in random order.
  const size_t logical = size_t(cache_b) * c.cap * row_k;
  test::DeviceBuffer lk(logical * e), lv(logical * e), dq(size_t(B) * c.sq * row_q * e);
  CUDA_ASSERT(testbed::fill_normalish(lk.get(), c.dtype, logical, seed));
  CUDA_ASSERT(testbed::fill_normalish(lv.get(), c.dtype, logical, seed + 1));
  CUDA_ASSERT(testbed::fill_normalish(dq.get(), c.dtype, size_t(B) * c.sq * row_q, seed + 2));
  std::vector<int32_t> lens(B), idx(B), pad(B, 0);
  for (int b = 0; b < B; ++b) {
    const uint32_t r1 = gen(), r2 = gen();
    lens[b] = 1 + int(r1 % uint32_t(c.cap));
    if (c.leftpad) pad[b] = int(r2 % uint32_t(lens[b]));
  }
  lens[0] = c.cap;  // one full sequence
  if (c.full_lengths) std::fill(lens.begin(), lens.end(), c.cap);
  std::vector<int> perm(cache_b);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), gen);
  for (int b = 0; b < B; ++b) idx[b] = c.permute ? perm[b] : b;
  test::PagedKv paged;
  if (c.page) {
    ASSERT_EQ(c.cap % c.page, 0);
    CUDA_ASSERT(test::scatter_pages(lk, lv, B, c.cap, c.page, row_k * e, idx.data(), gen, &paged));
  }
  const int pages_per_seq = paged.pages_per_seq, num_pages = paged.num_pages;
  const test::DeviceBuffer &pk = paged.k, &pv = paged.v;
  const std::vector<int32_t>& table = paged.table;
  test::DeviceBuffer d_table = test::to_device(table);
  test::DeviceBuffer d_lens = test::to_device(lens), d_idx = test::to_device(idx), d_pad = test::to_device(pad);
  test::DeviceBuffer d_o(size_t(B) * c.sq * row_q * e), d_lse(size_t(B) * hq * c.sq * 4);

  AttentionArgs a;
  a.q = testbed::bshd_contiguous(dq.get(), c.dtype, B, c.sq, hq, c.d);
  a.o = testbed::bshd_contiguous(d_o.get(), c.dtype, B, c.sq, hq, c.d);
  a.lse = testbed::lse_contiguous(d_lse.as<float>(), B, hq, c.sq);
  if (c.page) {
    a.k = testbed::bshd_contiguous(pk.get(), c.dtype, num_pages, c.page, c.hkv, c.d);
    a.v = testbed::bshd_contiguous(pv.get(), c.dtype, num_pages, c.page, c.hkv, c.d);
    a.page_table = testbed::page_table_view(d_table.get(), B, pages_per_seq);
  } else {
    a.k = testbed::bshd_contiguous(lk.get(), c.dtype, cache_b, c.cap, c.hkv, c.d);
    a.v = testbed::bshd_contiguous(lv.get(), c.dtype, cache_b, c.cap, c.hkv, c.d);
    if (c.permute) a.cache_batch_idx = i32(d_idx.get(), B);
    if (c.leftpad) a.cache_leftpad = i32(d_pad.get(), B);
  }
  if (!c.full_lengths) a.seqused_k = i32(d_lens.get(), B);
  a.causal = c.causal;
  a.window_left = c.left, a.window_right = c.right;
  a.num_splits = c.splits;
  if (c.block_n != 0) {
    std::string line;
    const warpspec::Status ds = warpspec::describe(a, &line);
    ASSERT_TRUE(ds.ok()) << ds.to_string();
    EXPECT_NE(line.find(" block_n=" + std::to_string(c.block_n) + " "), std::string::npos) << line;
  }

  // Twice on the library's workspace, where the tile's last share merges the splits (the
  // second call finds the share counters the first left behind: they must be re-armed),
  // then on a caller's workspace full of 0xFF bytes, where the combine kernel merges: the
  // same bits each time.
  size_t ws_bytes = 0;
  ASSERT_TRUE(warpspec::attention_workspace_size(a, &ws_bytes).ok());
  if (c.splits != 0) EXPECT_EQ(ws_bytes == 0, c.splits == 1) << ws_bytes;  // 0: the heuristic's count
  test::DeviceBuffer ws(std::max<size_t>(ws_bytes, 16));
  CUDA_ASSERT(cudaMemset(ws.get(), 0xFF, std::max<size_t>(ws_bytes, 16)));
  std::vector<std::vector<uint16_t>> runs;
  for (int rep = 0; rep < 3; ++rep) {
    CUDA_ASSERT(test::poison(d_o));
    CUDA_ASSERT(test::poison(d_lse));
    AttentionArgs call = a;
    if (rep == 2 && ws_bytes > 0) call.workspace = ws.get(), call.workspace_bytes = ws_bytes;
    const warpspec::Status st = warpspec::attention_forward(call, nullptr);
    ASSERT_TRUE(st.ok()) << st.to_string();
    CUDA_ASSERT(cudaDeviceSynchronize());
    runs.push_back(test::to_host<uint16_t>(d_o, size_t(B) * c.sq * row_q));
  }
  EXPECT_EQ(std::memcmp(runs[0].data(), runs[1].data(), runs[0].size() * 2), 0) << "not bitwise repeatable";
  EXPECT_EQ(std::memcmp(runs[0].data(), runs[2].data(), runs[0].size() * 2), 0)
      << "the combine kernel (a caller's workspace) gives other bits than the in-kernel merge";
  if (c.capture) {  // the graph's replay is what the reference checks below
    cudaStream_t stream;
    CUDA_ASSERT(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA_ASSERT(test::poison(d_o));
    CUDA_ASSERT(test::poison(d_lse));
    CUDA_ASSERT(cudaDeviceSynchronize());
    CUDA_ASSERT(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    const warpspec::Status st = warpspec::attention_forward(a, stream);
    CUDA_ASSERT(cudaStreamEndCapture(stream, &graph));
    ASSERT_TRUE(st.ok()) << "captured: " << st.to_string();
    CUDA_ASSERT(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_ASSERT(cudaGraphLaunch(exec, stream));
    CUDA_ASSERT(cudaStreamSynchronize(stream));
    runs[0] = test::to_host<uint16_t>(d_o, size_t(B) * c.sq * row_q);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
  }
  const auto& o = runs[0];
  const auto lse = test::to_host<float>(d_lse, size_t(B) * hq * c.sq);
  const auto v_host = test::to_host<uint16_t>(lv, logical);
  const double max_v = testbed::max_abs(c.dtype, v_host.data(), v_host.size());
  const float scale = 1.0f / std::sqrt(float(c.d));
  for (int b = 0; b < B; ++b) {
    SCOPED_TRACE("batch entry " + std::to_string(b) + " len " + std::to_string(lens[b]) + " pad " + std::to_string(pad[b]));
    const int sk = lens[b] - pad[b];
    testbed::RefProblem rp{1, c.sq, sk, hq, c.hkv, c.d, c.causal, scale, c.dtype};
    rp.window_left = c.left, rp.window_right = c.causal ? 0 : c.right;
    const size_t kbase = (size_t(idx[b]) * c.cap + pad[b]) * row_k * e;
    const testbed::RefTensor rq{dq.as<char>() + size_t(b) * c.sq * row_q * e, 0, int64_t(row_q), c.d};
    const testbed::RefTensor rk{lk.as<char>() + kbase, 0, int64_t(row_k), c.d};
    const testbed::RefTensor rv{lv.as<char>() + kbase, 0, int64_t(row_k), c.d};
    const size_t n = size_t(c.sq) * row_q;
    test::DeviceBuffer ref(n * 4), low(n * 4), ref_lse(size_t(c.sq) * hq * 4);
    CUDA_ASSERT(testbed::attention_reference(rp, rq, rk, rv, ref.as<float>(), ref_lse.as<float>(), false));
    CUDA_ASSERT(testbed::attention_reference(rp, rq, rk, rv, low.as<float>(), nullptr, true));
    CUDA_ASSERT(cudaDeviceSynchronize());
    const auto ref_h = test::to_host<float>(ref, n), low_h = test::to_host<float>(low, n);
    const auto ref_lse_h = test::to_host<float>(ref_lse, size_t(c.sq) * hq);
    const testbed::AttentionErrors err = testbed::compare_attention_o(
        c.dtype, o.data() + size_t(b) * c.sq * row_q, 0, int64_t(row_q), c.d, 1, c.sq, hq, c.d, ref_h.data(), low_h.data());
    EXPECT_EQ(err.nan, 0) << "NaN in O; first at reference index " << err.first_nan;
    EXPECT_LE(err.o, testbed::attention_o_tolerance(c.dtype, err.o_plain, err.max_ref, max_v, std::max(sk, 1)))
        << "plain error " << err.o_plain;
    int bad = 0;
    for (int h = 0; h < hq; ++h)
      for (int i = 0; i < c.sq; ++i) {
        const float got = lse[(size_t(b) * hq + h) * c.sq + i], want = ref_lse_h[size_t(h) * c.sq + i];
        if (!testbed::lse_matches(got, want) && bad++ == 0)
          ADD_FAILURE() << "LSE head " << h << " row " << i << ": got " << got << " want " << want;
      }
  }
}

std::vector<KvCase> cases() {
  std::vector<KvCase> v;
  for (int splits : {1, 3, 0}) {
    v.push_back({.name = "contiguous", .splits = splits});
    v.push_back({.name = "contiguous_mha_sq16_causal", .ratio = 1, .sq = 16, .splits = splits, .causal = true});
    v.push_back({.name = "gqa8_window", .hkv = 1, .ratio = 8, .sq = 5, .splits = splits, .left = 300});
    v.push_back({.name = "batch_idx_leftpad", .sq = 3, .splits = splits, .permute = true, .leftpad = true});
    for (int page : {16, 64, 128, 256})
      v.push_back({.name = "paged", .sq = 2, .cap = 1024, .page = page, .splits = splits, .causal = true});
    v.push_back({.name = "paged_hd64_fp16", .d = 64, .sq = 1, .cap = 960, .page = 48, .splits = splits,
                 .dtype = DType::kFP16});
    v.push_back({.name = "paged_hd192", .d = 192, .sq = 7, .cap = 896, .page = 64, .splits = splits});
  }
  v.push_back({.name = "paged_hd256_unsplit", .d = 256, .sq = 4, .cap = 640, .page = 32, .splits = 1});
  v.push_back({.name = "long_split_heuristic", .hkv = 8, .ratio = 4, .batch = 1, .sq = 1, .cap = 32768, .splits = 0});
  // The heuristic's splits captured in a graph (dense and paged caches).
  v.push_back({.name = "captured_split_heuristic", .hkv = 8, .ratio = 4, .batch = 1, .sq = 1, .cap = 8192, .splits = 0,
               .capture = true});
  v.push_back({.name = "captured_split_heuristic_paged", .hkv = 2, .ratio = 8, .batch = 2, .sq = 1, .cap = 8192,
               .page = 64, .splits = 0, .capture = true});
  // A long cache with seqused_k (every case here): the lengths are on the device, so the
  // 128-key configuration runs whatever the capacity (config.hpp, mean_visible_keys); pages
  // smaller than, dividing and larger than a block; cache_batch_idx/leftpad.
  for (int page : {16, 96, 256})
    v.push_back({.name = "paged_long_rows", .sq = 40, .cap = 4608, .page = page, .splits = 1, .causal = true,
                 .block_n = 128});
  v.push_back({.name = "batch_idx_leftpad_long_rows", .sq = 3, .cap = 3500, .splits = 1, .permute = true,
               .leftpad = true, .dtype = DType::kFP16, .block_n = 128});
  // Without seqused_k the lengths are known: 192-key blocks over a permuted cache.
  v.push_back({.name = "batch_idx_full_lengths_long_rows", .sq = 3, .cap = 3500, .splits = 1, .permute = true,
               .block_n = 192, .full_lengths = true});
  v.push_back({.name = "long_rows_split", .sq = 3, .cap = 4608, .splits = 3, .block_n = 128});
  return v;
}

class KvCache : public ::testing::TestWithParam<KvCase> {};

TEST_P(KvCache, MatchesReferenceOverGatheredCache) {
  WARPSPEC_REQUIRE_HOPPER();
  run(GetParam(), 0x5eed0000u + uint64_t(GetParam().page * 31 + GetParam().splits * 7 + GetParam().sq));
}

INSTANTIATE_TEST_SUITE_P(Serving, KvCache, ::testing::ValuesIn(cases()), [](const auto& info) {
  const KvCase& c = info.param;
  return std::string(c.name) + "_d" + std::to_string(c.d) + "_p" + std::to_string(c.page) + "_s" +
         std::to_string(c.splits) + "_" + std::to_string(info.index);
});

// Split partials through the public combine equal a one-split run to rounding, and the
// combine of all-empty splits is O = 0, LSE = -inf; NaN propagates.
TEST(AttentionCombine, EmptySplitsAndNaN) {
  WARPSPEC_REQUIRE_HOPPER();
  const int S = 3, B = 1, L = 2, H = 2, D = 8;
  std::vector<float> op(size_t(S) * B * L * H * D), lp(size_t(S) * B * L * H);
  for (size_t i = 0; i < op.size(); ++i) op[i] = float(i % 7) - 3.0f;
  // Row 0 head 0: splits {1, -inf, 2}; row 0 head 1: all -inf; row 1 head 0: a NaN;
  // row 1 head 1: {0, 0, -inf}.
  auto at = [&](int s, int r, int h) { return (size_t(s) * L + r) * H + h; };
  const float ninf = -INFINITY;
  const float vals[4][3] = {{1.f, ninf, 2.f}, {ninf, ninf, ninf}, {0.f, NAN, 1.f}, {0.f, 0.f, ninf}};
  for (int s = 0; s < S; ++s) {
    lp[at(s, 0, 0)] = vals[0][s], lp[at(s, 0, 1)] = vals[1][s], lp[at(s, 1, 0)] = vals[2][s], lp[at(s, 1, 1)] = vals[3][s];
  }
  test::DeviceBuffer d_op = test::to_device(op), d_lp = test::to_device(lp);
  test::DeviceBuffer d_out(size_t(B) * L * H * D * 4), d_lse(size_t(B) * H * L * 4);
  CUDA_ASSERT(test::poison(d_out));
  warpspec::CombineArgs a;
  a.out_partial = testbed::bshd_contiguous(d_op.get(), DType::kFP32, B, L, H, D);
  a.num_splits = S;
  a.out_partial_split_stride = int64_t(B) * L * H * D;
  a.lse_partial.data = d_lp.get(), a.lse_partial.dtype = DType::kFP32, a.lse_partial.rank = 3;
  a.lse_partial.shape[0] = B, a.lse_partial.shape[1] = L, a.lse_partial.shape[2] = H;
  a.lse_partial.stride[0] = L * H, a.lse_partial.stride[1] = H, a.lse_partial.stride[2] = 1;
  a.lse_partial_split_stride = int64_t(B) * L * H;
  a.out = testbed::bshd_contiguous(d_out.get(), DType::kFP32, B, L, H, D);
  a.lse = testbed::lse_contiguous(d_lse.as<float>(), B, H, L);
  const warpspec::Status st = warpspec::attention_combine(a, nullptr);
  ASSERT_TRUE(st.ok()) << st.to_string();
  CUDA_ASSERT(cudaDeviceSynchronize());
  const auto out = test::to_host<float>(d_out, size_t(L) * H * D);
  const auto lse = test::to_host<float>(d_lse, size_t(H) * L);
  auto o_at = [&](int r, int h, int x) { return out[(size_t(r) * H + h) * D + x]; };
  auto p_at = [&](int s, int r, int h, int x) { return op[((size_t(s) * L + r) * H + h) * D + x]; };
  const double l00 = std::log(std::exp(1.0) + std::exp(2.0));
  EXPECT_NEAR(lse[0 * L + 0], l00, 1e-5);
  for (int x = 0; x < D; ++x)
    EXPECT_NEAR(o_at(0, 0, x), std::exp(1.0 - l00) * p_at(0, 0, 0, x) + std::exp(2.0 - l00) * p_at(2, 0, 0, x), 1e-5);
  EXPECT_EQ(lse[1 * L + 0], -INFINITY);
  for (int x = 0; x < D; ++x) EXPECT_EQ(o_at(0, 1, x), 0.0f);
  EXPECT_TRUE(std::isnan(lse[0 * L + 1]));
  for (int x = 0; x < D; ++x) EXPECT_TRUE(std::isnan(o_at(1, 0, x)));
  const double l11 = std::log(2.0);
  EXPECT_NEAR(lse[1 * L + 1], l11, 1e-5);
  for (int x = 0; x < D; ++x) EXPECT_NEAR(o_at(1, 1, x), 0.5 * (p_at(0, 1, 1, x) + p_at(1, 1, 1, x)), 1e-5);
}

// kvcache_append: new rows at cache_seqlens (rotary on k, both conventions, and on q),
// every other cache element bit-identical to before.
class KvAppend : public ::testing::TestWithParam<std::tuple<bool, bool, int>> {};

TEST_P(KvAppend, WritesOnlyTheNewRows) {
  WARPSPEC_REQUIRE_HOPPER();
  const auto [rotary, interleaved, page] = GetParam();
  const int B = 3, cap = 256, hkv = 2, d = 128, sn = 5, hq = 4, rd = 64, ro = 512;
  const DType t = DType::kBF16;
  const size_t row = size_t(hkv) * d;
  const int pps = page ? cap / page : 0;
  const int entries = page ? B * pps : B, rows = page ? page : cap;
  const size_t cache_n = size_t(entries) * rows * row;
  test::DeviceBuffer kc(cache_n * 2), vc(cache_n * 2), kn(size_t(B) * sn * row * 2), vn(size_t(B) * sn * row * 2);
  test::DeviceBuffer q(size_t(B) * sn * hq * d * 2), qo(size_t(B) * sn * hq * d * 2);
  test::DeviceBuffer cs(size_t(ro) * rd / 2 * 2), sn_(size_t(ro) * rd / 2 * 2);
  CUDA_ASSERT(testbed::fill_normalish(kc.get(), t, cache_n, 11));
  CUDA_ASSERT(testbed::fill_normalish(vc.get(), t, cache_n, 12));
  CUDA_ASSERT(testbed::fill_normalish(kn.get(), t, size_t(B) * sn * row, 13));
  CUDA_ASSERT(testbed::fill_normalish(vn.get(), t, size_t(B) * sn * row, 14));
  CUDA_ASSERT(testbed::fill_normalish(q.get(), t, size_t(B) * sn * hq * d, 15));
  CUDA_ASSERT(testbed::fill_uniform(cs.get(), t, size_t(ro) * rd / 2, 16));
  CUDA_ASSERT(testbed::fill_uniform(sn_.get(), t, size_t(ro) * rd / 2, 17));
  std::vector<int32_t> lens = {0, 100, cap - sn}, table;
  for (int i = 0; i < B * pps; ++i) table.push_back((i * 7 + 3) % (B * pps));
  test::DeviceBuffer d_lens = test::to_device(lens), d_table = test::to_device(table);
  const auto kc0 = test::to_host<uint16_t>(kc, cache_n), vc0 = test::to_host<uint16_t>(vc, cache_n);
  warpspec::KvAppendArgs a;
  a.k_cache = testbed::bshd_contiguous(kc.get(), t, entries, rows, hkv, d);
  a.v_cache = testbed::bshd_contiguous(vc.get(), t, entries, rows, hkv, d);
  a.k_new = testbed::bshd_contiguous(kn.get(), t, B, sn, hkv, d);
  a.v_new = testbed::bshd_contiguous(vn.get(), t, B, sn, hkv, d);
  a.cache_seqlens = i32(d_lens.get(), B);
  if (page) {
    a.page_table = testbed::page_table_view(d_table.get(), B, pps);
  }
  if (rotary) {
    for (TensorView* v : {&a.rotary_cos, &a.rotary_sin}) {
      v->dtype = t, v->rank = 2, v->shape[0] = ro, v->shape[1] = rd / 2, v->stride[0] = rd / 2, v->stride[1] = 1;
    }
    a.rotary_cos.data = cs.get(), a.rotary_sin.data = sn_.get();
    a.rotary_interleaved = interleaved;
    a.q = testbed::bshd_contiguous(q.get(), t, B, sn, hq, d);
    a.q_out = testbed::bshd_contiguous(qo.get(), t, B, sn, hq, d);
    a.q_per_token = true;
  }
  const warpspec::Status st = warpspec::kvcache_append(a, nullptr);
  ASSERT_TRUE(st.ok()) << st.to_string();
  CUDA_ASSERT(cudaDeviceSynchronize());
  const auto kc1 = test::to_host<uint16_t>(kc, cache_n), vc1 = test::to_host<uint16_t>(vc, cache_n);
  const auto knh = test::to_host<uint16_t>(kn, size_t(B) * sn * row), vnh = test::to_host<uint16_t>(vn, size_t(B) * sn * row);
  const auto csh = test::to_host<uint16_t>(cs, size_t(ro) * rd / 2), snh = test::to_host<uint16_t>(sn_, size_t(ro) * rd / 2);
  std::vector<uint8_t> owned(cache_n / d, 0);
  auto f = [&](const std::vector<uint16_t>& h, size_t i) { return testbed::load_float(t, h.data(), i); };
  int bad = 0;
  for (int b = 0; b < B; ++b)
    for (int tk = 0; tk < sn; ++tk) {
      const int r = lens[b] + tk;
      const size_t crow = page ? (size_t(table[size_t(b) * pps + r / page]) * page + r % page) : size_t(b) * cap + r;
      for (int h = 0; h < hkv; ++h) {
        owned[crow * hkv + h] = 1;
        const size_t src = (size_t(b) * sn + tk) * row + size_t(h) * d, dst = crow * row + size_t(h) * d;
        for (int x = 0; x < d; ++x) {
          if (vc1[dst + x] != vnh[src + x] && bad++ < 3) ADD_FAILURE() << "v row " << r << " col " << x;
          float want = f(knh, src + x);
          if (rotary && x < rd) {
            const int pos = lens[b] + tk;
            int px, fi;
            float sign;
            if (interleaved) px = x ^ 1, fi = x / 2, sign = (x & 1) ? 1.f : -1.f;
            else px = x < rd / 2 ? x + rd / 2 : x - rd / 2, fi = x < rd / 2 ? x : x - rd / 2, sign = x < rd / 2 ? -1.f : 1.f;
            want = want * f(csh, size_t(pos) * rd / 2 + fi) + sign * f(knh, src + px) * f(snh, size_t(pos) * rd / 2 + fi);
          }
          const float got = f(kc1, dst + x);
          if (!(std::fabs(got - want) <= 1e-2f * (1.0f + std::fabs(want))) && bad++ < 3)
            ADD_FAILURE() << "k row " << r << " col " << x << ": got " << got << " want " << want;
        }
      }
    }
  EXPECT_EQ(bad, 0);
  int64_t stray = 0;
  for (size_t rr = 0; rr < owned.size(); ++rr)
    if (!owned[rr]) stray += std::memcmp(&kc1[rr * d], &kc0[rr * d], d * 2) != 0 || std::memcmp(&vc1[rr * d], &vc0[rr * d], d * 2) != 0;
  EXPECT_EQ(stray, 0) << "cache rows outside the appended region changed";
}

INSTANTIATE_TEST_SUITE_P(Serving, KvAppend,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool(), ::testing::Values(0, 64)));

}  // namespace attention_kvcache
