// Pack-GQA (AttentionArgs::pack_gqa, include/warpspec/attention/pack_gqa.cuh): the
// query heads of one KV head share one query tile. Every case runs three times, each on
// freshly poisoned outputs, with pack_gqa false, true and unset, and checks:
//   - the plan: describe() reports pack_gqa=g for true, nothing for false, and for unset
//     what FlashAttention-3's fill rule picks (re-derived here from its documentation);
//   - O and LSE of false and of true against the fp32 reference, sequence by sequence
//     (testing/attention_check.hpp's rule), no NaN, and nothing written outside the
//     call's rows (guard rows past O and LSE, rows of empty sequences, LSE entries past
//     each head's rows);
//   - packed against unpacked bit for bit where the work order is the same: one split and
//     no mask (every row then sees the same key blocks in the same order, and a row's
//     arithmetic does not depend on which tile row holds it). With a mask a tile's key
//     block range depends on the positions it holds, so a row may start its online
//     softmax at a different block: only the reference bounds both;
//   - unset against the run of whichever plan it chose, bit for bit (the forward is
//     deterministic).
// Sweep: GQA ratios 2/4/8/16, seqlen_q 1/3/16/100, full / causal / windows, varlen Q
// (cu_seqlens_q, ragged seqused_k, an empty sequence and one without keys), paged KV,
// split-KV 1 and 3, fp16 and bf16, head dims 64/128/192, learnable sinks.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/gpu_test.hpp"
#include "testing/attention_check.hpp"
#include "testing/attention_reference.hpp"
#include "testing/convert.hpp"
#include "testing/fill.hpp"
#include "testing/random.hpp"
#include "testing/views.hpp"
#include "warpspec/attention/config.hpp"
#include "warpspec/warpspec.hpp"

namespace attention_pack_gqa_test {

using warpspec::AttentionArgs;
using warpspec::DType;
using warpspec::TensorView;
namespace test = warpspec::test;
namespace testbed = warpspec::testbed;

struct PackCase {
  const char* name;
  int d = 128, hkv = 2, ratio = 4, batch = 2, sq = 1, sk = 517;
  DType dtype = DType::kBF16;
  bool causal = false;
  int left = -1, right = -1;
  int splits = 1;  // 0: the heuristic's count
  bool heuristic_splits = false;  // with splits 0: whether the heuristic splits the case
  // Q packed by cu_seqlens_q: lengths up to sq (the first sq, a 0 among them from batch
  // 3), and ragged seqused_k (the first sk, a 0 among them from batch 3).
  bool varlen = false;
  int page = 0;  // paged K/V of this page size (sk a multiple of it), ragged seqused_k
  bool sink = false;
  int block_n = 0;  // the key block the plan must take (config.hpp; 0: not checked)
};

// gtest prints a case by this (not as the struct's bytes).
void PrintTo(const PackCase& c, std::ostream* os) {
  *os << c.name << " d=" << c.d << " hkv=" << c.hkv << " ratio=" << c.ratio << " batch=" << c.batch << " sq=" << c.sq
      << " sk=" << c.sk << (c.dtype == DType::kFP16 ? " fp16" : " bf16") << " causal=" << c.causal
      << " window=(" << c.left << "," << c.right << ") splits=" << c.splits << " varlen=" << c.varlen
      << " page=" << c.page << " sink=" << c.sink;
}

TensorView i32_vector(void* data, int64_t n) {
  TensorView v;
  v.data = data, v.dtype = DType::kI32, v.rank = 1, v.shape[0] = n, v.stride[0] = 1;
  return v;
}

// (total, heads, head_dim) rows of a packed (varlen) tensor, contiguous.
TensorView packed_rows(void* data, DType t, int64_t total, int64_t h, int64_t d) {
  TensorView v;
  v.data = data, v.dtype = t, v.rank = 3;
  v.shape[0] = total, v.shape[1] = h, v.shape[2] = d;
  v.stride[0] = h * d, v.stride[1] = d, v.stride[2] = 1;
  return v;
}

// The value of `key` in a describe() line ("" when the line does not have it).
std::string word(const std::string& line, const std::string& key) {
  std::istringstream in(line);
  std::string w;
  while (in >> w)
    if (w.rfind(key + "=", 0) == 0) return w.substr(key.size() + 1);
  return "";
}

// What pack_gqa unset plans, as AttentionArgs::pack_gqa documents it: pack when pack-GQA
// can run (g a power of two from 2 to 16, head dim up to 192) and unpacked query tiles
// would be less than 90% as full as packed ones (the grid covers max_seqlen_q positions
// per sequence, `block_m` rows a tile of the configuration that runs, as described).
bool unset_packs(const PackCase& c, int block_m) {
  const int g = c.ratio;
  if (g < 2 || g > 16 || (g & (g - 1)) != 0 || c.d > 192) return false;
  const double m = block_m;
  const auto fill = [&](double rows) { return rows / (std::ceil(rows / m) * m); };
  return fill(c.sq) < 0.9 * fill(double(c.sq) * g);
}

// Elements of two equally long images that differ in their bits.
template <class T>
size_t differing(const std::vector<T>& x, const std::vector<T>& y) {
  size_t n = 0;
  for (size_t i = 0; i < x.size(); ++i) n += std::memcmp(&x[i], &y[i], sizeof(T)) != 0;
  return n;
}

struct Run {
  std::vector<uint16_t> o;
  std::vector<float> lse;
  bool packed = false;
};

void run(const PackCase& c) {
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(std::string(c.name) + " " + test::seed_note(seed));
  const int B = c.batch, hq = c.hkv * c.ratio;
  const size_t e = warpspec::dtype_size(c.dtype), row_q = size_t(hq) * c.d, row_k = size_t(c.hkv) * c.d;
  ASSERT_EQ(e, 2u);
  std::mt19937 gen{uint32_t(seed ^ (seed >> 32))};

  // Each sequence's query and key lengths; dense sides have one length.
  const bool ragged_k = c.varlen || c.page > 0;
  std::vector<int32_t> lens_q(B, c.sq), lens_k(B, c.sk);
  for (int b = 1; b < B; ++b) {
    const uint32_t r1 = gen(), r2 = gen();
    if (c.varlen) lens_q[b] = 1 + int(r1 % uint32_t(c.sq));
    if (ragged_k) lens_k[b] = 1 + int(r2 % uint32_t(c.sk));
  }
  if (c.varlen && B >= 3) lens_q[1] = 0;  // an empty sequence: nothing of it is written
  if (ragged_k && B >= 3) lens_k[2] = 0;  // no keys: O = 0, LSE = the sink or -inf
  std::vector<int32_t> qoff(B + 1, 0);  // rows of each sequence in Q and O (dense: b * sq)
  for (int b = 0; b < B; ++b) qoff[b + 1] = qoff[b] + lens_q[b];
  const int total_q = qoff[B];

  // Q, the logical cache (B, sk, hkv, d), and O / LSE with guard space past the views.
  const int guard = 37;
  const size_t q_elems = std::max<size_t>(1, size_t(total_q) * row_q), kv_elems = size_t(B) * c.sk * row_k;
  test::DeviceBuffer dq(q_elems * e), lk(kv_elems * e), lv(kv_elems * e);
  ASSERT_TRUE(dq.get() && lk.get() && lv.get());
  CUDA_ASSERT(testbed::fill_normalish(dq.get(), c.dtype, q_elems, seed));
  CUDA_ASSERT(testbed::fill_normalish(lk.get(), c.dtype, kv_elems, seed + 1));
  CUDA_ASSERT(testbed::fill_normalish(lv.get(), c.dtype, kv_elems, seed + 2));
  const size_t o_elems = size_t(total_q + guard) * row_q;
  // LSE: dense (B, hq, sq) then guard entries; varlen (hq, total_q) with a head stride of
  // total_q + guard (guard entries after every head's rows).
  const size_t lse_elems = c.varlen ? size_t(hq) * (total_q + guard) : size_t(B) * hq * c.sq + guard;
  test::DeviceBuffer d_o(o_elems * e), d_lse(lse_elems * 4);
  ASSERT_TRUE(d_o.get() && d_lse.get());
  const auto lse_at = [&](int b, int h, int i) -> size_t {
    return c.varlen ? size_t(h) * (total_q + guard) + qoff[b] + i : (size_t(b) * hq + h) * c.sq + i;
  };

  // Paged: the logical cache copied page by page to pages in random order (spare pages
  // poisoned: a read through a wrong table entry shows).
  test::PagedKv paged;
  if (c.page) {
    ASSERT_EQ(c.sk % c.page, 0);
    CUDA_ASSERT(test::scatter_pages(lk, lv, B, c.sk, c.page, row_k * e, nullptr, gen, &paged));
  }
  const int pages_per_seq = paged.pages_per_seq, num_pages = paged.num_pages;
  const test::DeviceBuffer &pk = paged.k, &pv = paged.v;
  const std::vector<int32_t>& table = paged.table;
  std::vector<float> sink_host(hq);
  for (int h = 0; h < hq; ++h) sink_host[h] = 4.0f * testbed::hash_uniform(seed + 3, h) + 1.0f;  // in [-3, 5)
  test::DeviceBuffer d_table = test::to_device(table), d_lens_k = test::to_device(lens_k),
                     d_cu_q = test::to_device(qoff), d_sink = test::to_device(sink_host),
                     d_counter = test::to_device(std::vector<int32_t>{0, 0});

  AttentionArgs a;
  if (c.varlen) {
    a.q = packed_rows(dq.get(), c.dtype, total_q, hq, c.d);
    a.o = packed_rows(d_o.get(), c.dtype, total_q, hq, c.d);
    a.cu_seqlens_q = i32_vector(d_cu_q.get(), B + 1);
    a.max_seqlen_q = c.sq;
    a.lse = testbed::lse_view(d_lse.as<float>(), 1, hq, total_q, 0, total_q + guard, 1);
    a.lse.rank = 2;  // (heads, total_q)
    a.lse.shape[0] = hq, a.lse.shape[1] = total_q;
    a.lse.stride[0] = total_q + guard, a.lse.stride[1] = 1;
    a.tile_counter = i32_vector(d_counter.get(), 2);  // the dynamic schedule of ragged batches
  } else {
    a.q = testbed::bshd_contiguous(dq.get(), c.dtype, B, c.sq, hq, c.d);
    a.o = testbed::bshd_contiguous(d_o.get(), c.dtype, B, c.sq, hq, c.d);
    a.lse = testbed::lse_contiguous(d_lse.as<float>(), B, hq, c.sq);
  }
  if (c.page) {
    a.k = testbed::bshd_contiguous(pk.get(), c.dtype, num_pages, c.page, c.hkv, c.d);
    a.v = testbed::bshd_contiguous(pv.get(), c.dtype, num_pages, c.page, c.hkv, c.d);
    a.page_table = testbed::page_table_view(d_table.get(), B, pages_per_seq);
  } else {
    a.k = testbed::bshd_contiguous(lk.get(), c.dtype, B, c.sk, c.hkv, c.d);
    a.v = testbed::bshd_contiguous(lv.get(), c.dtype, B, c.sk, c.hkv, c.d);
  }
  if (ragged_k) a.seqused_k = i32_vector(d_lens_k.get(), B);
  a.causal = c.causal;
  a.window_left = c.left, a.window_right = c.right;
  a.num_splits = c.splits;
  if (c.sink) {
    a.sink.data = d_sink.get(), a.sink.dtype = DType::kFP32, a.sink.rank = 1;
    a.sink.shape[0] = hq, a.sink.stride[0] = 1;
  }

  // The three runs: false, true, unset.
  const std::optional<bool> modes[3] = {false, true, std::nullopt};
  const char* mode_names[3] = {"pack_gqa false", "pack_gqa true", "pack_gqa unset"};
  Run runs[3];
  for (int m = 0; m < 3; ++m) {
    SCOPED_TRACE(mode_names[m]);
    a.pack_gqa = modes[m];
    std::string line;
    const warpspec::Status ds = warpspec::describe(a, &line);
    ASSERT_TRUE(ds.ok()) << ds.to_string();
    // The kernel: head dim d's, or with split-KV the one that has the partial epilogue
    // (head dim 64's splits run on the 128 kernel).
    namespace ai = warpspec::attention_impl;
    const std::string splits_word = word(line, "splits");
    const int splits = splits_word.empty() ? 1 : std::stoi(splits_word);
    if (c.splits > 0) EXPECT_EQ(splits, c.splits) << line;
    else if (c.heuristic_splits) EXPECT_GT(splits, 1) << "the heuristic was to split this case: " << line;
    else EXPECT_EQ(splits, 1) << "the heuristic was not to split this case: " << line;
    const int kernel_d = splits > 1 ? ai::split_config_for(ai::kernel_head_dim(c.d)).head_dim : ai::kernel_head_dim(c.d);
    EXPECT_EQ(word(line, "kernel_head_dim"), std::to_string(kernel_d)) << line;
    if (c.block_n != 0) EXPECT_EQ(word(line, "block_n"), std::to_string(c.block_n)) << line;
    const bool want = m == 0 ? false : m == 1 ? true : unset_packs(c, std::stoi(word(line, "block_m")));
    const std::string packed = word(line, "pack_gqa");
    EXPECT_EQ(packed, want ? std::to_string(c.ratio) : std::string()) << line;
    runs[m].packed = !packed.empty();
    CUDA_ASSERT(test::poison(d_o));
    CUDA_ASSERT(test::poison(d_lse));
    const warpspec::Status st = warpspec::attention_forward(a, nullptr);
    ASSERT_TRUE(st.ok()) << st.to_string();
    CUDA_ASSERT(cudaDeviceSynchronize());
    if (c.varlen) {
      const auto counter = test::to_host<int32_t>(d_counter, 2);
      EXPECT_EQ(counter[0], 0) << "tile counter not reset";
      EXPECT_EQ(counter[1], 0) << "done counter not reset";
    }
    runs[m].o = test::to_host<uint16_t>(d_o, o_elems);
    runs[m].lse = test::to_host<float>(d_lse, lse_elems);
  }

  // The reference per sequence, once; then false and true against it.
  const auto v_host = test::to_host<uint16_t>(lv, kv_elems);
  const double max_v = testbed::max_abs(c.dtype, v_host.data(), v_host.size());
  const float scale = 1.0f / std::sqrt(float(c.d));
  std::vector<uint8_t> o_owned(size_t(total_q + guard) * hq, 0), lse_owned(lse_elems, 0);  // per (row, head) / entry
  for (int b = 0; b < B; ++b) {
    const int sq = lens_q[b], sk = lens_k[b];
    SCOPED_TRACE("sequence " + std::to_string(b) + ": seqlen_q " + std::to_string(sq) + " seqlen_k " +
                 std::to_string(sk));
    if (sq == 0) continue;
    testbed::RefProblem rp{1, sq, sk, hq, c.hkv, c.d, c.causal, scale, c.dtype};
    rp.window_left = c.left, rp.window_right = c.causal ? 0 : c.right;
    rp.sink = c.sink ? d_sink.as<float>() : nullptr;
    const testbed::RefTensor rq{dq.as<char>() + size_t(qoff[b]) * row_q * e, 0, int64_t(row_q), c.d};
    const testbed::RefTensor rk{lk.as<char>() + size_t(b) * c.sk * row_k * e, 0, int64_t(row_k), c.d};
    const testbed::RefTensor rv{lv.as<char>() + size_t(b) * c.sk * row_k * e, 0, int64_t(row_k), c.d};
    const size_t n = size_t(sq) * row_q;
    test::DeviceBuffer ref(n * 4), low(n * 4), ref_lse(size_t(sq) * hq * 4);
    CUDA_ASSERT(testbed::attention_reference(rp, rq, rk, rv, ref.as<float>(), ref_lse.as<float>(), false));
    CUDA_ASSERT(testbed::attention_reference(rp, rq, rk, rv, low.as<float>(), nullptr, true));
    CUDA_ASSERT(cudaDeviceSynchronize());
    const auto ref_h = test::to_host<float>(ref, n), low_h = test::to_host<float>(low, n);
    const auto ref_lse_h = test::to_host<float>(ref_lse, size_t(sq) * hq);
    for (int m = 0; m < 2; ++m) {
      SCOPED_TRACE(mode_names[m]);
      const uint16_t* o_seq = runs[m].o.data() + size_t(qoff[b]) * row_q;
      const testbed::AttentionErrors err = testbed::compare_attention_o(c.dtype, o_seq, 0, int64_t(row_q), c.d, 1, sq,
                                                                        hq, c.d, ref_h.data(), low_h.data());
      EXPECT_EQ(err.nan, 0) << "NaN (unwritten or computed) in O; first at reference index " << err.first_nan;
      EXPECT_LE(err.o, testbed::attention_o_tolerance(c.dtype, err.o_plain, err.max_ref, max_v, std::max(sk, 1)))
          << "max |O - ref| " << err.o << " vs plain error " << err.o_plain;
      int bad = 0;
      for (int h = 0; h < hq; ++h)
        for (int i = 0; i < sq; ++i) {
          const float got = runs[m].lse[lse_at(b, h, i)], want = ref_lse_h[size_t(h) * sq + i];
          if (!testbed::lse_matches(got, want) && bad++ == 0)
            ADD_FAILURE() << "LSE head " << h << " position " << i << ": got " << got << " want " << want;
        }
      EXPECT_EQ(bad, 0) << "LSE mismatches";
    }
    for (int h = 0; h < hq; ++h)
      for (int i = 0; i < sq; ++i) {
        lse_owned[lse_at(b, h, i)] = 1;
        o_owned[(size_t(qoff[b]) + i) * hq + h] = 1;
      }
  }
  // Everything else keeps its poison (0xFFFF: a 16-bit element's; NaN: LSE's).
  for (int m = 0; m < 3; ++m) {
    SCOPED_TRACE(mode_names[m]);
    int64_t stray = 0, lse_stray = 0;
    for (size_t r = 0; r < o_owned.size(); ++r)
      if (!o_owned[r])
        for (int x = 0; x < c.d; ++x) stray += runs[m].o[r * c.d + x] != 0xFFFF;
    for (size_t i = 0; i < lse_owned.size(); ++i) lse_stray += !lse_owned[i] && !std::isnan(runs[m].lse[i]);
    EXPECT_EQ(stray, 0) << "O elements written outside the rows the call owns";
    EXPECT_EQ(lse_stray, 0) << "LSE entries written outside the rows the call owns";
  }
  // Packed against unpacked, bit for bit where the work order is the same.
  ASSERT_TRUE(runs[1].packed && !runs[0].packed) << "the plans did not differ: nothing to compare";
  if (c.splits == 1 && !c.causal && c.left < 0 && c.right < 0) {
    EXPECT_EQ(differing(runs[0].o, runs[1].o), 0u) << "O elements of packed and unpacked that differ (one split, no mask)";
    EXPECT_EQ(differing(runs[0].lse, runs[1].lse), 0u) << "LSE entries of packed and unpacked that differ";
  }
  // Unset is the run of the plan it chose.
  const Run& chosen = runs[2].packed ? runs[1] : runs[0];
  EXPECT_EQ(differing(runs[2].o, chosen.o), 0u) << "O of unset differs from the same plan run explicitly";
  EXPECT_EQ(differing(runs[2].lse, chosen.lse), 0u) << "LSE of unset differs from the same plan run explicitly";
}

std::vector<PackCase> cases() {
  std::vector<PackCase> v;
  // The sweep: ratio x seqlen_q x full / causal x splits; head dim and dtype cycle through
  // it (periods 3 and 6 against causal's 2: every head dim meets both masks and dtypes).
  const int dims[3] = {64, 128, 192};
  int i = 0;
  for (int splits : {1, 3})
    for (int ratio : {2, 4, 8})
      for (int sq : {1, 3, 16, 100})
        for (bool causal : {false, true}) {
          PackCase c{.name = causal ? "causal" : "full"};
          c.ratio = ratio, c.sq = sq, c.causal = causal, c.splits = splits;
          c.sk = sq == 100 ? 263 : 517;
          c.d = dims[i % 3];
          c.dtype = (i / 3) % 2 ? DType::kFP16 : DType::kBF16;
          ++i;
          v.push_back(c);
        }
  // Group 16 (the most the host packs) with one KV head.
  v.push_back({.name = "group16", .hkv = 1, .ratio = 16, .sq = 3});
  v.push_back({.name = "group16_causal", .d = 64, .hkv = 1, .ratio = 16, .sq = 100, .sk = 300, .causal = true,
               .splits = 3});
  // Windows: both edges, left with causal, rows that see no key (seqlen_q > seqlen_k).
  for (int splits : {1, 3}) {
    v.push_back({.name = "window", .ratio = 4, .sq = 100, .sk = 700, .left = 100, .right = 20, .splits = splits});
    v.push_back({.name = "window_causal_left", .d = 192, .ratio = 8, .sq = 16, .dtype = DType::kFP16,
                 .causal = true, .left = 64, .splits = splits});
    v.push_back({.name = "window_fp16_hd64", .d = 64, .ratio = 2, .sq = 3, .sk = 1031, .dtype = DType::kFP16,
                 .left = 5, .right = 300, .splits = splits});
  }
  v.push_back({.name = "causal_sq_gt_sk", .ratio = 4, .sq = 100, .sk = 40, .causal = true});
  // Varlen Q over a dense cache with ragged seqused_k (an empty sequence, one with no keys).
  for (int splits : {1, 3}) {
    v.push_back({.name = "varlen", .ratio = 4, .batch = 4, .sq = 100, .sk = 400, .splits = splits, .varlen = true});
    v.push_back({.name = "varlen_causal", .d = 64, .ratio = 8, .batch = 4, .sq = 16, .sk = 400,
                 .dtype = DType::kFP16, .causal = true, .splits = splits, .varlen = true});
    v.push_back({.name = "varlen_window_hd192", .d = 192, .ratio = 2, .batch = 3, .sq = 37, .sk = 300,
                 .left = 50, .right = 0, .splits = splits, .varlen = true});
  }
  // Paged caches (pages in random order), decode and short prefill.
  for (int splits : {1, 3}) {
    v.push_back({.name = "paged", .ratio = 4, .batch = 3, .sq = 1, .sk = 512, .splits = splits, .page = 64});
    v.push_back({.name = "paged_causal_p16", .d = 192, .ratio = 8, .batch = 3, .sq = 5, .sk = 512,
                 .dtype = DType::kFP16, .causal = true, .splits = splits, .page = 16});
    v.push_back({.name = "paged_hd64", .d = 64, .ratio = 2, .batch = 3, .sq = 16, .sk = 256, .splits = splits,
                 .page = 128});
    v.push_back({.name = "varlen_paged", .ratio = 4, .batch = 4, .sq = 7, .sk = 480, .causal = true,
                 .splits = splits, .varlen = true, .page = 32});
  }
  // Decoding at head dim 64 over a long cache, the heuristic's splits: on the 128 kernel.
  v.push_back({.name = "decode_hd64_heuristic", .d = 64, .ratio = 8, .sq = 1, .sk = 8192, .splits = 0,
               .heuristic_splits = true});
  v.push_back({.name = "decode_hd40_heuristic_paged", .d = 40, .ratio = 4, .batch = 3, .sq = 2, .sk = 4096,
               .dtype = DType::kFP16, .causal = true, .splits = 0, .heuristic_splits = true, .page = 256});
  // A prefill chunk the heuristic would split on the hd64 kernel's 192-row tiles but not on
  // the hd128 kernel's 128-row ones: it stays on hd64, unsplit (the padded kernel would
  // gain nothing).
  v.push_back({.name = "chunk_hd64_heuristic_unsplit", .d = 64, .hkv = 8, .ratio = 2, .batch = 1, .sq = 1024,
               .sk = 8192, .causal = true, .splits = 0});
  // Head dim 128's 192-key blocks (rows that see 3072 keys or more; config.hpp).
  v.push_back({.name = "long_rows_sink", .ratio = 4, .sq = 16, .sk = 4000, .sink = true, .block_n = 192});
  // Paged (lengths on the device): the 128-key configuration whatever the capacity.
  v.push_back({.name = "long_rows_paged_causal", .hkv = 1, .ratio = 8, .sq = 5, .sk = 4096, .causal = true,
               .page = 128, .block_n = 128});
  // Learnable sinks: per query head, so the rows of one packed tile carry different sinks.
  for (int splits : {1, 3}) {
    v.push_back({.name = "sink", .ratio = 4, .sq = 16, .splits = splits, .sink = true});
    v.push_back({.name = "sink_decode_hd64", .d = 64, .ratio = 8, .sq = 1, .dtype = DType::kFP16, .splits = splits,
                 .sink = true});
    v.push_back({.name = "sink_varlen_causal", .d = 192, .ratio = 8, .batch = 4, .sq = 16, .sk = 300,
                 .causal = true, .splits = splits, .varlen = true, .sink = true});
    v.push_back({.name = "sink_paged", .ratio = 2, .batch = 3, .sq = 3, .sk = 256, .splits = splits, .page = 64,
                 .sink = true});
  }
  return v;
}

class PackGqa : public ::testing::TestWithParam<PackCase> {};

TEST_P(PackGqa, PackedMatchesUnpackedAndReference) {
  WARPSPEC_REQUIRE_HOPPER();
  run(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Attention, PackGqa, ::testing::ValuesIn(cases()), [](const auto& info) {
  const PackCase& c = info.param;
  return std::string(c.name) + "_g" + std::to_string(c.ratio) + "_sq" + std::to_string(c.sq) + "_d" +
         std::to_string(c.d) + (c.dtype == DType::kFP16 ? "_fp16" : "_bf16") + "_s" + std::to_string(c.splits) + "_" +
         std::to_string(info.index);
});

}  // namespace attention_pack_gqa_test
