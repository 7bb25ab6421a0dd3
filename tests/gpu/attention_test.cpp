// Attention forward against a plain float32 GPU reference (itself checked against a
// float64 CPU loop), by testing/attention_check.hpp's rule: FlashAttention-3's (the
// kernel's max error against the fp32 oracle within 2x the error of the same computation
// done plainly in the input precision, plus a small floor), capped by the kernel's own
// error bound. Every head dim, causal or not, seqlen pairs equal and unequal (1, 113,
// 1031, the tile edges), GQA ratios 1/4/8, three memory layouts (contiguous BSHD, BHSD
// viewed as BSHD, padded strides), chosen per case so they cross; K, V, O and LSE in
// layouts of their own, O aliasing Q. Outputs are poisoned (NaN) first, every element
// is checked, O's and LSE's padding must stay poisoned, and NaN never passes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/gpu_test.hpp"
#include "testing/attention_check.hpp"
#include "testing/attention_reference.hpp"
#include "testing/convert.hpp"
#include "testing/random.hpp"
#include "testing/views.hpp"
#include "warpspec/warpspec.hpp"

namespace attention_test {  // named: the file is compiled with others in one translation unit

using warpspec::AttentionArgs;
using warpspec::DType;
using warpspec::TensorView;
namespace test = warpspec::test;
namespace testbed = warpspec::testbed;

// Memory layouts of the (batch, seqlen, heads, head_dim) views.
enum Layout { kBSHD = 0, kBHSD = 1, kPadded = 2 };
// LSE (batch, heads, seqlen): dense, or heads innermost with gaps between rows and
// batches (no stride is 1 where a dense view has it).
enum LseLayout { kLseDense = 0, kLseStrided = 1 };

struct Case {
  int d = 64;
  bool causal = false;
  int sq = 128, sk = 128;
  int hkv = 1, ratio = 1, batch = 1;
  Layout layout = kBSHD;                      // Q's, and K's, V's and O's unless given
  int k_layout = -1, v_layout = -1, o_layout = -1;  // -1: Q's layout
  LseLayout lse_layout = kLseDense;
  bool o_is_q = false;  // O is Q's view itself (Q is overwritten)
  DType dtype = DType::kBF16;
  float scale = 0;  // 0: the default 1/sqrt(d)
  bool lse = true;
  const char* plan_has = nullptr;  // describe's line for the call must contain this
};

Layout layout_of(int l, Layout fallback) { return l < 0 ? fallback : Layout(l); }

std::string describe(const Case& c) {
  char buf[260];
  std::snprintf(buf, sizeof buf,
                "d=%d %s sq=%d sk=%d b=%d hq=%d hkv=%d layout q%d k%d v%d o%d lse%d%s %s scale=%g lse=%d", c.d,
                c.causal ? "causal" : "full", c.sq, c.sk, c.batch, c.hkv * c.ratio, c.hkv, int(c.layout),
                int(layout_of(c.k_layout, c.layout)), int(layout_of(c.v_layout, c.layout)),
                int(layout_of(c.o_layout, c.layout)), int(c.lse_layout), c.o_is_q ? " O=Q" : "",
                warpspec::dtype_name(c.dtype), c.scale, int(c.lse));
  return buf;
}

// Element strides (batch, seqlen, heads) of a (b, s, h, d) view in `layout`, and the
// buffer size in elements.
struct Strides {
  int64_t sb, ss, sh, elems;
};
Strides strides_for(Layout l, int64_t b, int64_t s, int64_t h, int64_t d) {
  Strides st{};
  if (l == kBSHD) {
    st.sh = d, st.ss = h * d, st.sb = s * h * d;
  } else if (l == kBHSD) {
    st.ss = d, st.sh = s * d, st.sb = h * s * d;
  } else {  // 16 bytes between heads, 32 between rows, 128 between batches
    st.sh = d + 8, st.ss = h * (d + 8) + 16, st.sb = s * st.ss + 64;
  }
  st.elems = (b - 1) * st.sb + (s - 1) * st.ss + (h - 1) * st.sh + d;
  return st;
}

// LSE strides (batch, heads, seqlen) and buffer size in floats.
struct LseStrides {
  int64_t sb, sh, ss, elems;
};
LseStrides lse_strides_for(LseLayout l, int64_t b, int64_t h, int64_t s) {
  LseStrides st{};
  if (l == kLseDense) {
    st.ss = 1, st.sh = s, st.sb = h * s;
  } else {
    st.sh = 1, st.ss = h + 3, st.sb = s * (h + 3) + 5;
  }
  st.elems = (b - 1) * st.sb + (h - 1) * st.sh + (s - 1) * st.ss + 1;
  return st;
}

TensorView view4(void* data, DType t, int64_t b, int64_t s, int64_t h, int64_t d, const Strides& st) {
  return testbed::bshd_view(data, t, b, s, h, d, st.sb, st.ss, st.sh);
}

std::vector<uint16_t> random_tensor(std::mt19937_64& rng, DType t, int64_t elems) {
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::vector<uint16_t> v(static_cast<size_t>(elems));
  for (size_t i = 0; i < v.size(); ++i) testbed::store_float(t, v.data(), i, n(rng));
  return v;
}

void run_case(const Case& c) {
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(describe(c) + " " + test::seed_note(seed));
  std::mt19937_64 rng(seed);
  const int hq = c.hkv * c.ratio;
  const Layout k_layout = layout_of(c.k_layout, c.layout), v_layout = layout_of(c.v_layout, c.layout);
  const Layout o_layout = c.o_is_q ? c.layout : layout_of(c.o_layout, c.layout);
  const Strides sq_st = strides_for(c.layout, c.batch, c.sq, hq, c.d);
  const Strides sk_st = strides_for(k_layout, c.batch, c.sk, c.hkv, c.d);
  const Strides sv_st = strides_for(v_layout, c.batch, c.sk, c.hkv, c.d);
  const Strides so_st = strides_for(o_layout, c.batch, c.sq, hq, c.d);
  const LseStrides sl_st = lse_strides_for(c.lse_layout, c.batch, hq, c.sq);
  const auto hq_host = random_tensor(rng, c.dtype, sq_st.elems);
  const auto hk_host = random_tensor(rng, c.dtype, sk_st.elems);
  const auto hv_host = random_tensor(rng, c.dtype, sv_st.elems);
  // The reference reads its own copy of Q: with O = Q, the kernel overwrites Q.
  test::DeviceBuffer dq = test::to_device(hq_host), dq_ref = test::to_device(hq_host);
  test::DeviceBuffer dk = test::to_device(hk_host), dv = test::to_device(hv_host);
  test::DeviceBuffer d_o(c.o_is_q ? 0 : size_t(so_st.elems) * 2);
  const int64_t rows = int64_t(c.batch) * hq * c.sq;
  test::DeviceBuffer d_lse(size_t(sl_st.elems) * 4);
  test::DeviceBuffer d_ref(size_t(rows) * c.d * 4), d_ref_lse(size_t(rows) * 4), d_low(size_t(rows) * c.d * 4);
  ASSERT_TRUE(dq.get() && dq_ref.get() && dk.get() && dv.get() && (c.o_is_q || d_o.get()) && d_lse.get() &&
              d_ref.get() && d_low.get());
  if (!c.o_is_q) CUDA_ASSERT(test::poison(d_o));
  CUDA_ASSERT(test::poison(d_lse));
  const test::DeviceBuffer& out = c.o_is_q ? dq : d_o;

  AttentionArgs a;
  a.q = view4(dq.get(), c.dtype, c.batch, c.sq, hq, c.d, sq_st);
  a.k = view4(dk.get(), c.dtype, c.batch, c.sk, c.hkv, c.d, sk_st);
  a.v = view4(dv.get(), c.dtype, c.batch, c.sk, c.hkv, c.d, sv_st);
  a.o = c.o_is_q ? a.q : view4(d_o.get(), c.dtype, c.batch, c.sq, hq, c.d, so_st);
  if (c.lse) a.lse = testbed::lse_view(d_lse.as<float>(), c.batch, hq, c.sq, sl_st.sb, sl_st.sh, sl_st.ss);
  if (c.scale != 0) a.softmax_scale = c.scale;
  a.causal = c.causal;
  const float scale = c.scale != 0 ? c.scale : 1.0f / std::sqrt(float(c.d));
  if (c.plan_has != nullptr) {
    std::string line;
    const warpspec::Status ds = warpspec::describe(a, &line);
    ASSERT_TRUE(ds.ok()) << ds.to_string();
    EXPECT_NE(line.find(c.plan_has), std::string::npos) << line;
  }
  warpspec::Status s = warpspec::attention_forward(a, nullptr);
  ASSERT_TRUE(s.ok()) << s.to_string();
  CUDA_ASSERT(cudaDeviceSynchronize());

  testbed::RefProblem rp{c.batch, c.sq, c.sk, hq, c.hkv, c.d, c.causal, scale, c.dtype};
  const testbed::RefTensor rq{dq_ref.get(), sq_st.sb, sq_st.ss, sq_st.sh}, rk{dk.get(), sk_st.sb, sk_st.ss, sk_st.sh},
      rv{dv.get(), sv_st.sb, sv_st.ss, sv_st.sh};
  CUDA_ASSERT(testbed::attention_reference(rp, rq, rk, rv, d_ref.as<float>(), d_ref_lse.as<float>(), false));
  CUDA_ASSERT(testbed::attention_reference(rp, rq, rk, rv, d_low.as<float>(), nullptr, true));
  CUDA_ASSERT(cudaDeviceSynchronize());

  const auto o = test::to_host<uint16_t>(out, size_t(so_st.elems));
  const auto ref = test::to_host<float>(d_ref, size_t(rows) * c.d);
  const auto low = test::to_host<float>(d_low, size_t(rows) * c.d);
  std::vector<uint8_t> covered(size_t(so_st.elems), 0);
  const testbed::AttentionErrors e = testbed::compare_attention_o(
      c.dtype, o.data(), so_st.sb, so_st.ss, so_st.sh, c.batch, c.sq, hq, c.d, ref.data(), low.data(), covered.data());
  EXPECT_EQ(e.nan, 0) << "NaN (unwritten or computed) in O; first at reference index " << e.first_nan;
  const double max_v = testbed::max_abs(c.dtype, hv_host.data(), hv_host.size());
  const double tol = testbed::attention_o_tolerance(c.dtype, e.o_plain, e.max_ref, max_v, c.sk);
  EXPECT_LE(e.o, tol) << "max |O - ref| " << e.o << " vs plain-" << warpspec::dtype_name(c.dtype) << " error "
                      << e.o_plain << " (max |ref| " << e.max_ref << ", max |V| " << max_v << ")";
  // With O = Q the rest of the buffer is Q's untouched padding, which must also hold.
  int64_t stray = 0;
  for (size_t i = 0; i < covered.size(); ++i)
    if (!covered[i] && o[i] != (c.o_is_q ? hq_host[i] : uint16_t(0xFFFF))) ++stray;
  EXPECT_EQ(stray, 0) << "writes outside O's view (padding changed)";

  if (c.lse) {
    const auto lse = test::to_host<float>(d_lse, size_t(sl_st.elems));
    const auto ref_lse = test::to_host<float>(d_ref_lse, size_t(rows));
    std::vector<uint8_t> lse_covered(lse.size(), 0);
    int64_t bad = 0, first_bad = -1, first_at = 0;
    for (int b = 0; b < c.batch; ++b)
      for (int h = 0; h < hq; ++h)
        for (int i = 0; i < c.sq; ++i) {
          const int64_t at = b * sl_st.sb + h * sl_st.sh + int64_t(i) * sl_st.ss;
          const int64_t r = (int64_t(b) * hq + h) * c.sq + i;  // the reference's dense (b, h, sq)
          lse_covered[size_t(at)] = 1;
          if (!testbed::lse_matches(lse[size_t(at)], ref_lse[size_t(r)]) && bad++ == 0) first_bad = r, first_at = at;
        }
    EXPECT_EQ(bad, 0) << "LSE mismatches; first at row " << first_bad << ": got "
                      << (first_bad >= 0 ? lse[size_t(first_at)] : 0.0f) << " want "
                      << (first_bad >= 0 ? ref_lse[size_t(first_bad)] : 0.0f);
    int64_t lse_stray = 0;
    for (size_t i = 0; i < lse.size(); ++i)
      if (!lse_covered[i] && !std::isnan(lse[i])) ++lse_stray;
    EXPECT_EQ(lse_stray, 0) << "writes outside LSE's view";
  }
}

// ------------------------------------------------------------------ the sweep

// A fixed pseudo-random choice among n values for parameter `field` of case i: the
// parameters of a sweep cross (no period shared with the seqlen pairs or with each other)
// while the list of cases, and so the test names, stays the same from run to run.
// SweepCoverage below holds the salts to that.
int pick(uint64_t salt, int i, int field, int n) {
  return int(testbed::hash64(salt + uint64_t(field), uint64_t(i)) % uint64_t(n));
}
constexpr uint64_t kSweepSalt = 7, kPaddedSalt = 1;

const std::pair<int, int> kSweepLens[] = {{1, 1},     {1, 1031},  {1031, 1},    {113, 113}, {113, 1031}, {1031, 113},
                                          {127, 129}, {129, 127}, {128, 128},   {1031, 1031}, {257, 80}, {80, 257}};

std::vector<Case> sweep() {
  const int dims[] = {64, 96, 128, 192, 256};
  const int ratios[] = {1, 4, 8};
  std::vector<Case> out;
  int i = 0;
  for (int d : dims)
    for (bool causal : {false, true})
      for (auto [sq, sk] : kSweepLens) {
        Case c;
        c.d = d, c.causal = causal, c.sq = sq, c.sk = sk;
        c.ratio = ratios[pick(kSweepSalt, i, 0, 3)];
        c.layout = Layout(pick(kSweepSalt, i, 1, 3));
        c.hkv = 1 + pick(kSweepSalt, i, 2, 2);
        c.dtype = pick(kSweepSalt, i, 3, 2) ? DType::kFP16 : DType::kBF16;
        c.batch = sq * sk > 500000 ? 1 : 2;
        out.push_back(c);
        ++i;
      }
  return out;
}

const std::pair<int, int> kPaddedLens[] = {{113, 1031}, {257, 80}};

// Head dims that run padded on the next larger kernel (zero-filled loads, clipped store).
std::vector<Case> padded_sweep() {
  std::vector<Case> out;
  int i = 0;
  for (int d : {8, 40, 80, 160, 224})
    for (auto [sq, sk] : kPaddedLens) {
      Case c;
      c.d = d, c.sq = sq, c.sk = sk;
      c.causal = pick(kPaddedSalt, i, 0, 2) == 1;
      c.ratio = pick(kPaddedSalt, i, 1, 2) ? 4 : 1;
      c.layout = Layout(pick(kPaddedSalt, i, 2, 3));
      c.hkv = 1 + pick(kPaddedSalt, i, 3, 2);
      c.dtype = pick(kPaddedSalt, i, 4, 2) ? DType::kFP16 : DType::kBF16;
      c.batch = 2;
      out.push_back(c);
      ++i;
    }
  return out;
}

// The sweeps' parameters cross: every seqlen pair meets every GQA ratio, layout, kv head
// count and dtype (and in the main sweep every combination of those four appears). No GPU
// needed: this checks the case lists.
TEST(AttentionSweepCoverage, ParametersCross) {
  const auto cases = sweep();
  std::set<std::tuple<int, int, int, int>> combos;
  for (auto [sq, sk] : kSweepLens) {
    std::set<int> ratios, layouts, hkvs, dtypes;
    for (const Case& c : cases)
      if (c.sq == sq && c.sk == sk) {
        ratios.insert(c.ratio), layouts.insert(c.layout), hkvs.insert(c.hkv), dtypes.insert(int(c.dtype));
        combos.insert({c.ratio, c.layout, c.hkv, int(c.dtype)});
      }
    EXPECT_EQ(ratios.size(), 3u) << sq << "x" << sk;
    EXPECT_EQ(layouts.size(), 3u) << sq << "x" << sk;
    EXPECT_EQ(hkvs.size(), 2u) << sq << "x" << sk;
    EXPECT_EQ(dtypes.size(), 2u) << sq << "x" << sk;
  }
  EXPECT_EQ(combos.size(), 36u) << "ratio x layout x kv heads x dtype combinations in the sweep";
  const auto padded = padded_sweep();
  std::set<int> layouts, hkvs;
  for (auto [sq, sk] : kPaddedLens) {
    std::set<int> causal, ratios, dtypes;
    for (const Case& c : padded)
      if (c.sq == sq && c.sk == sk) {
        causal.insert(c.causal), ratios.insert(c.ratio), dtypes.insert(int(c.dtype));
        layouts.insert(c.layout), hkvs.insert(c.hkv);
      }
    EXPECT_EQ(causal.size(), 2u) << sq << "x" << sk;
    EXPECT_EQ(ratios.size(), 2u) << sq << "x" << sk;
    EXPECT_EQ(dtypes.size(), 2u) << sq << "x" << sk;
  }
  EXPECT_EQ(layouts.size(), 3u);
  EXPECT_EQ(hkvs.size(), 2u);
}

class AttentionSweep : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionSweep, MatchesReference) {
  WARPSPEC_REQUIRE_HOPPER();
  run_case(GetParam());
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return "d" + std::to_string(c.d) + (c.causal ? "_causal" : "_full") + "_q" + std::to_string(c.sq) + "_k" +
         std::to_string(c.sk) + "_r" + std::to_string(c.ratio) + "_h" + std::to_string(c.hkv) + "_l" +
         std::to_string(int(c.layout)) + (c.dtype == DType::kFP16 ? "_fp16" : "_bf16");
}

INSTANTIATE_TEST_SUITE_P(Attention, AttentionSweep, ::testing::ValuesIn(sweep()), case_name);
INSTANTIATE_TEST_SUITE_P(AttentionPadded, AttentionSweep, ::testing::ValuesIn(padded_sweep()), case_name);

// GQA ratios x layouts x dtype on one head dim, off-tile lengths.
TEST(Attention, GqaLayoutsDtypes) {
  WARPSPEC_REQUIRE_HOPPER();
  for (int ratio : {1, 4, 8})
    for (int layout = 0; layout < 3; ++layout)
      for (DType t : {DType::kBF16, DType::kFP16}) {
        Case c;
        c.d = 128, c.sq = 200, c.sk = 333, c.hkv = 2, c.ratio = ratio, c.batch = 2, c.layout = Layout(layout);
        c.dtype = t;
        c.causal = layout == 1;
        run_case(c);
      }
}

// More tiles than SMs: every CTA loops over several tiles (persistent scheduling,
// longest-first for causal), Q's buffer is reused for O and refilled.
TEST(Attention, PersistentManyTiles) {
  WARPSPEC_REQUIRE_HOPPER();
  for (int d : {64, 128, 256})
    for (bool causal : {false, true}) {
      Case c;
      c.d = d, c.causal = causal, c.sq = 2048, c.sk = 2048, c.hkv = 4, c.ratio = 4, c.batch = 2;
      run_case(c);
    }
}

// Several tiles per CTA with few key blocks each (a tile's epilogue runs beside the next
// tile's first S, and Q alternates between two slots at head dims 64 and 128): small
// enough for the sanitizers (scripts/gpu-check runs this one under them); one key block
// per tile, and (causal, seqlen_q > seqlen_k) tiles that see no key between tiles that do.
void many_short_tiles(int d) {
  for (int sk : {100, 300}) {
    Case c;
    c.d = d, c.causal = sk == 300, c.sq = 2048, c.sk = sk, c.hkv = 4, c.ratio = 2, c.batch = 2;
    run_case(c);
  }
}
TEST(Attention, ManyShortTilesPerCta) {
  WARPSPEC_REQUIRE_HOPPER();
  for (int d : {64, 128}) many_short_tiles(d);
}
// Head dim 256: one Q slot, each tile's last P·V alone (no room to overlap).
TEST(Attention, ManyShortTilesPerCtaHeadDim256) {
  WARPSPEC_REQUIRE_HOPPER();
  many_short_tiles(256);
}

// Head dim 256's 64-key kernel (config.hpp: short calls, where 80-key blocks compute more
// masked keys): the plan names it for these calls, and it matches the reference, with
// sequences that end inside a block and a GQA ratio. With fewer tiles than SMs the call
// takes its longest tile's time (attention.cpp: busy_fraction): causal 445 is 7 blocks of
// 64 keys there against 6 of 80 (448 keys against 480, past the 64-key kernel's speed of
// 0.94); at 333 it is 384 keys against 400, and the 80-key kernel is the choice.
TEST(Attention, HeadDim256ShortCallsRunOn64KeyBlocks) {
  WARPSPEC_REQUIRE_HOPPER();
  struct Shape {
    bool causal;
    int sq, sk;
    DType t;
  };
  for (const Shape& sh : {Shape{true, 512, 512, DType::kBF16}, Shape{false, 512, 512, DType::kFP16},
                          Shape{true, 445, 445, DType::kBF16}, Shape{false, 200, 100, DType::kBF16}}) {
    Case c;
    c.d = 256, c.causal = sh.causal, c.sq = sh.sq, c.sk = sh.sk, c.dtype = sh.t, c.hkv = 2, c.ratio = 2;
    c.batch = 2, c.plan_has = " block_n=64 ";
    run_case(c);
  }
}

// Each consumer warpgroup skips the tile's first key blocks that its own rows do not see
// (warpgroup_rows.cuh): on the causal diagonal, with the diagonal offset (seqlen_q !=
// seqlen_k), and where its rows lie past the sequence's end; at a chain's start (any
// number of blocks) and joined to the previous tile (at most min(stages, V stages) - 1),
// with turns and without; more tiles than SMs, so both paths run. Each 16-bit kernel that
// skips, named by its describe line.
TEST(Attention, WarpgroupsSkipTheBlocksTheirRowsDoNotSee) {
  WARPSPEC_REQUIRE_HOPPER();
  struct Shape {
    int d, sq, sk, batch;
    DType t;
    const char* plan;
  };
  for (const Shape& sh : {
           Shape{64, 3000, 3000, 2, DType::kBF16, " block_m=192 "},  // three warpgroups taking turns
           Shape{64, 2100, 2400, 2, DType::kFP16, " block_m=192 "},
           Shape{192, 1000, 1000, 3, DType::kBF16, " block_n=112 "},
           Shape{256, 512, 512, 8, DType::kBF16, " block_n=64 "},
           Shape{256, 700, 1000, 3, DType::kBF16, " block_n=80 "},
           Shape{256, 2000, 2000, 2, DType::kFP16, " block_n=80 "},
           Shape{128, 6400, 6400, 2, DType::kBF16, " block_n=192 "},  // rows that see >= 3072 keys
       }) {
    Case c;
    c.d = sh.d, c.causal = true, c.sq = sh.sq, c.sk = sh.sk, c.dtype = sh.t, c.batch = sh.batch;
    c.hkv = sh.d == 128 ? 1 : 2, c.ratio = sh.d == 128 ? 2 : 4, c.plan_has = sh.plan;
    run_case(c);
  }
}

// A large scale makes the softmax peaky: the running max changes often and matters.
TEST(Attention, LargeScaleAndNoLse) {
  WARPSPEC_REQUIRE_HOPPER();
  Case c;
  c.d = 128, c.sq = 300, c.sk = 700, c.scale = 1.0f, c.causal = true;
  run_case(c);
  c.lse = false, c.scale = 0.5f, c.causal = false, c.d = 64;
  run_case(c);
}

// Causal with seqlen_q > seqlen_k: whole tiles see no key (zeros, -inf) next to tiles
// that do.
TEST(Attention, CausalEmptyTiles) {
  WARPSPEC_REQUIRE_HOPPER();
  for (int d : {64, 192}) {
    Case c;
    c.d = d, c.causal = true, c.sq = 1000, c.sk = 300, c.hkv = 2, c.ratio = 4, c.batch = 2, c.layout = kPadded;
    run_case(c);
  }
}

// Documented layouts (warpspec/attention_api.hpp) that the sweeps do not reach.

// "o ... may be q itself": O written over Q, every CTA reading its Q tile before any CTA
// stores that tile's O; persistent (more tiles than SMs), GQA, causal and not, sq != sk.
TEST(Attention, OutputAliasesQuery) {
  WARPSPEC_REQUIRE_HOPPER();
  int i = 0;
  for (int d : {64, 128, 256})
    for (bool causal : {false, true}) {
      Case c;
      c.d = d, c.causal = causal, c.sq = 1500, c.sk = 700, c.hkv = 2, c.ratio = 4, c.batch = 2;
      c.layout = Layout(i++ % 3);
      c.o_is_q = true;
      run_case(c);
    }
}

// LSE with no unit stride (heads innermost, gaps between rows and batches), including
// rows that see no key (causal, sq > sk: LSE = -inf there), and the padding untouched.
TEST(Attention, LseWithStrides) {
  WARPSPEC_REQUIRE_HOPPER();
  for (int d : {64, 128})
    for (auto [sq, sk] : {std::pair{300, 700}, std::pair{700, 300}}) {
      Case c;
      c.d = d, c.causal = true, c.sq = sq, c.sk = sk, c.hkv = 2, c.ratio = 4, c.batch = 2;
      c.lse_layout = kLseStrided;
      run_case(c);
      c.causal = false, c.layout = kPadded;
      run_case(c);
    }
}

// K and V each with strides of their own (and unlike Q's and O's): one TMA map per
// operand, not one shared by K and V.
TEST(Attention, KeyAndValueStridesDiffer) {
  WARPSPEC_REQUIRE_HOPPER();
  const int perms[][4] = {{kBSHD, kPadded, kBHSD, kBSHD}, {kBHSD, kBSHD, kPadded, kPadded},
                          {kPadded, kBHSD, kBSHD, kBHSD}};
  for (const auto& l : perms)
    for (int d : {64, 192})
      for (bool causal : {false, true}) {
        Case c;
        c.d = d, c.causal = causal, c.sq = 333, c.sk = 517, c.hkv = 2, c.ratio = 2, c.batch = 2;
        c.layout = Layout(l[0]), c.k_layout = l[1], c.v_layout = l[2], c.o_layout = l[3];
        c.dtype = causal ? DType::kFP16 : DType::kBF16;
        run_case(c);
      }
}

// Rows that see no key (causal, sq > sk) take a path of their own that writes zeros:
// with O's strides unlike Q's it must use O's, and leave O's padding alone.
TEST(Attention, EmptyRowsWithOutputStridesUnlikeQuery) {
  WARPSPEC_REQUIRE_HOPPER();
  for (int d : {64, 128, 256})
    for (auto [q_layout, o_layout] : {std::pair{kBSHD, kPadded}, std::pair{kPadded, kBHSD}, std::pair{kBHSD, kBSHD}}) {
      Case c;
      c.d = d, c.causal = true, c.sq = 900, c.sk = 200, c.hkv = 1, c.ratio = 4, c.batch = 2;
      c.layout = q_layout, c.o_layout = o_layout;
      run_case(c);
    }
}

// The float32 reference against a float64 CPU loop on small problems.
TEST(AttentionReference, MatchesFloat64Cpu) {
  WARPSPEC_REQUIRE_HOPPER();
  for (bool causal : {false, true})
    for (auto [sq, sk] : {std::pair{37, 53}, std::pair{53, 37}, std::pair{1, 9}}) {
      const int b = 2, hq = 4, hkv = 2, d = 64;
      const uint64_t seed = test::fresh_seed();
      SCOPED_TRACE("causal=" + std::to_string(causal) + " sq=" + std::to_string(sq) + " sk=" + std::to_string(sk) + " " +
                   test::seed_note(seed));
      std::mt19937_64 rng(seed);
      const auto hqv = random_tensor(rng, DType::kBF16, int64_t(b) * sq * hq * d);
      const auto hkv_ = random_tensor(rng, DType::kBF16, int64_t(b) * sk * hkv * d);
      const auto hvv = random_tensor(rng, DType::kBF16, int64_t(b) * sk * hkv * d);
      test::DeviceBuffer dq = test::to_device(hqv), dk = test::to_device(hkv_), dv = test::to_device(hvv);
      test::DeviceBuffer dout(size_t(b) * sq * hq * d * 4), dlse(size_t(b) * hq * sq * 4);
      const float scale = 0.125f;
      testbed::RefProblem rp{b, sq, sk, hq, hkv, d, causal, scale, DType::kBF16};
      CUDA_ASSERT(testbed::attention_reference(rp, {dq.get(), int64_t(sq) * hq * d, hq * d, d},
                                            {dk.get(), int64_t(sk) * hkv * d, hkv * d, d},
                                            {dv.get(), int64_t(sk) * hkv * d, hkv * d, d}, dout.as<float>(),
                                            dlse.as<float>(), false));
      CUDA_ASSERT(cudaDeviceSynchronize());
      const auto out = test::to_host<float>(dout, size_t(b) * sq * hq * d);
      const auto lse = test::to_host<float>(dlse, size_t(b) * hq * sq);
      auto at = [&](const std::vector<uint16_t>& t, int64_t s_len, int64_t heads, int bb, int i, int h, int x) {
        return double(testbed::load_float(DType::kBF16, t.data(), size_t(((bb * s_len + i) * heads + h) * d + x)));
      };
      double worst = 0, worst_lse = 0;
      for (int bb = 0; bb < b; ++bb)
        for (int h = 0; h < hq; ++h)
          for (int i = 0; i < sq; ++i) {
            const int hk = h / (hq / hkv);
            const int limit = causal ? std::min(sk, i + 1 + sk - sq) : sk;
            std::vector<double> sc(size_t(std::max(limit, 0)));
            double mx = -INFINITY;
            for (int j = 0; j < limit; ++j) {
              double acc = 0;
              for (int x = 0; x < d; ++x) acc += at(hqv, sq, hq, bb, i, h, x) * at(hkv_, sk, hkv, bb, j, hk, x);
              sc[size_t(j)] = acc * scale;
              mx = std::max(mx, sc[size_t(j)]);
            }
            double sum = 0;
            for (double& e : sc) sum += (e = std::exp(e - mx));
            const double want_lse = limit > 0 ? mx + std::log(sum) : -INFINITY;
            const float got_lse = lse[size_t((bb * hq + h) * sq + i)];
            if (std::isinf(want_lse)) EXPECT_TRUE(std::isinf(got_lse) && got_lse < 0);
            else worst_lse = std::max(worst_lse, std::fabs(got_lse - want_lse));
            for (int x = 0; x < d; ++x) {
              double acc = 0;
              for (int j = 0; j < limit; ++j) acc += sc[size_t(j)] * at(hvv, sk, hkv, bb, j, hk, x);
              const double want = limit > 0 ? acc / sum : 0.0;
              const float got = out[size_t(((bb * sq + i) * hq + h) * d + x)];
              worst = std::isnan(got) ? INFINITY : std::max(worst, std::fabs(got - want));
            }
          }
      EXPECT_LE(worst, 1e-5);
      EXPECT_LE(worst_lse, 1e-5);
    }
}

}  // namespace attention_test
