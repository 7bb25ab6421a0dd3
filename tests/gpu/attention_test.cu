// Attention forward against a plain float32 GPU reference (itself checked against a
// float64 CPU loop), FlashAttention-3's rule: the kernel's max error against the fp32
// oracle must be within 2x the error of the same computation done plainly in the
// input precision, plus a small floor. Every head dim, causal or not, seqlen pairs
// equal and unequal (1, 113, 1031, the tile edges), GQA ratios 1/4/8, three memory
// layouts (contiguous BSHD, BHSD viewed as BSHD, padded strides). Outputs are
// poisoned (NaN) first, every element is checked, O's padding must stay poisoned, and
// NaN never passes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/gpu_test.hpp"
#include "gpu/attention_reference.cuh"
#include "warpspec/warpspec.hpp"

namespace {

using warpspec::AttentionArgs;
using warpspec::DType;
using warpspec::TensorView;
namespace test = warpspec::test;

// Memory layouts of the (batch, seqlen, heads, head_dim) views.
enum Layout { kBSHD = 0, kBHSD = 1, kPadded = 2 };

struct Case {
  int d = 64;
  bool causal = false;
  int sq = 128, sk = 128;
  int hkv = 1, ratio = 1, batch = 1;
  Layout layout = kBSHD;
  DType dtype = DType::kBF16;
  float scale = 0;  // 0: the default 1/sqrt(d)
  bool lse = true;
};

std::string describe(const Case& c) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "d=%d %s sq=%d sk=%d b=%d hq=%d hkv=%d layout=%d %s scale=%g lse=%d", c.d,
                c.causal ? "causal" : "full", c.sq, c.sk, c.batch, c.hkv * c.ratio, c.hkv, int(c.layout),
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

TensorView view4(void* data, DType t, int64_t b, int64_t s, int64_t h, int64_t d, const Strides& st) {
  TensorView v;
  v.data = data;
  v.dtype = t;
  v.rank = 4;
  v.shape[0] = b, v.shape[1] = s, v.shape[2] = h, v.shape[3] = d;
  v.stride[0] = st.sb, v.stride[1] = st.ss, v.stride[2] = st.sh, v.stride[3] = 1;
  return v;
}

float to_float(DType t, uint16_t bits) {
  if (t == DType::kBF16) {
    __nv_bfloat16 x;
    std::memcpy(&x, &bits, 2);
    return __bfloat162float(x);
  }
  __half x;
  std::memcpy(&x, &bits, 2);
  return __half2float(x);
}
uint16_t from_float(DType t, float f) {
  uint16_t bits;
  if (t == DType::kBF16) {
    __nv_bfloat16 x = __float2bfloat16(f);
    std::memcpy(&bits, &x, 2);
  } else {
    __half x = __float2half(f);
    std::memcpy(&bits, &x, 2);
  }
  return bits;
}

std::vector<uint16_t> random_tensor(std::mt19937_64& rng, DType t, int64_t elems) {
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::vector<uint16_t> v(static_cast<size_t>(elems));
  for (auto& x : v) x = from_float(t, n(rng));
  return v;
}

void run_case(const Case& c) {
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(describe(c) + " seed=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const int hq = c.hkv * c.ratio;
  const Strides sq_st = strides_for(c.layout, c.batch, c.sq, hq, c.d);
  const Strides sk_st = strides_for(c.layout, c.batch, c.sk, c.hkv, c.d);
  const auto hq_host = random_tensor(rng, c.dtype, sq_st.elems);
  const auto hk_host = random_tensor(rng, c.dtype, sk_st.elems);
  const auto hv_host = random_tensor(rng, c.dtype, sk_st.elems);
  test::DeviceBuffer dq = test::to_device(hq_host), dk = test::to_device(hk_host), dv = test::to_device(hv_host);
  test::DeviceBuffer d_o(size_t(sq_st.elems) * 2);
  const int64_t rows = int64_t(c.batch) * hq * c.sq;
  test::DeviceBuffer d_lse(size_t(rows) * 4);
  test::DeviceBuffer d_ref(size_t(rows) * c.d * 4), d_ref_lse(size_t(rows) * 4), d_low(size_t(rows) * c.d * 4);
  ASSERT_TRUE(dq.get() && dk.get() && dv.get() && d_o.get() && d_lse.get() && d_ref.get() && d_low.get());
  CUDA_ASSERT(test::poison(d_o));
  CUDA_ASSERT(test::poison(d_lse));

  AttentionArgs a;
  a.q = view4(dq.get(), c.dtype, c.batch, c.sq, hq, c.d, sq_st);
  a.k = view4(dk.get(), c.dtype, c.batch, c.sk, c.hkv, c.d, sk_st);
  a.v = view4(dv.get(), c.dtype, c.batch, c.sk, c.hkv, c.d, sk_st);
  a.o = view4(d_o.get(), c.dtype, c.batch, c.sq, hq, c.d, sq_st);
  if (c.lse) {
    a.lse.data = d_lse.get();
    a.lse.dtype = DType::kFP32;
    a.lse.rank = 3;
    a.lse.shape[0] = c.batch, a.lse.shape[1] = hq, a.lse.shape[2] = c.sq;
    a.lse.stride[0] = int64_t(hq) * c.sq, a.lse.stride[1] = c.sq, a.lse.stride[2] = 1;
  }
  if (c.scale != 0) a.softmax_scale = c.scale;
  a.causal = c.causal;
  const float scale = c.scale != 0 ? c.scale : 1.0f / std::sqrt(float(c.d));
  warpspec::Status s = warpspec::attention_forward(a, nullptr);
  ASSERT_TRUE(s.ok()) << s.to_string();
  CUDA_ASSERT(cudaDeviceSynchronize());

  test::RefProblem rp{c.batch, c.sq, c.sk, hq, c.hkv, c.d, c.causal, scale, c.dtype};
  const test::RefTensor rq{dq.get(), sq_st.sb, sq_st.ss, sq_st.sh}, rk{dk.get(), sk_st.sb, sk_st.ss, sk_st.sh},
      rv{dv.get(), sk_st.sb, sk_st.ss, sk_st.sh};
  CUDA_ASSERT(test::attention_reference(rp, rq, rk, rv, d_ref.as<float>(), d_ref_lse.as<float>(), false));
  CUDA_ASSERT(test::attention_reference(rp, rq, rk, rv, d_low.as<float>(), nullptr, true));
  CUDA_ASSERT(cudaDeviceSynchronize());

  const auto o = test::to_host<uint16_t>(d_o, size_t(sq_st.elems));
  const auto ref = test::to_host<float>(d_ref, size_t(rows) * c.d);
  const auto low = test::to_host<float>(d_low, size_t(rows) * c.d);
  double err = 0, err_low = 0, max_ref = 0;
  int64_t nan_count = 0, first_nan = -1;
  std::vector<uint8_t> covered(size_t(sq_st.elems), 0);
  for (int b = 0; b < c.batch; ++b)
    for (int i = 0; i < c.sq; ++i)
      for (int h = 0; h < hq; ++h)
        for (int x = 0; x < c.d; ++x) {
          const int64_t at = b * sq_st.sb + int64_t(i) * sq_st.ss + h * sq_st.sh + x;
          covered[size_t(at)] = 1;
          const size_t r = ((size_t(b) * c.sq + i) * hq + h) * c.d + x;
          const float got = to_float(c.dtype, o[size_t(at)]);
          if (std::isnan(got)) {
            if (nan_count++ == 0) first_nan = int64_t(r);
            continue;
          }
          err = std::max(err, double(std::fabs(got - ref[r])));
          err_low = std::max(err_low, double(std::fabs(low[r] - ref[r])));
          max_ref = std::max(max_ref, double(std::fabs(ref[r])));
        }
  EXPECT_EQ(nan_count, 0) << "NaN (unwritten or computed) in O; first at reference index " << first_nan;
  const double floor = (c.dtype == DType::kBF16 ? 1.0 / 512 : 1.0 / 4096) * std::max(1e-2, max_ref) * 0.05 + 1e-6;
  EXPECT_LE(err, 2 * err_low + floor) << "max |O - ref| " << err << " vs plain-" << warpspec::dtype_name(c.dtype)
                                      << " error " << err_low;
  int64_t stray = 0;
  for (size_t i = 0; i < covered.size(); ++i)
    if (!covered[i] && o[i] != 0xFFFF) ++stray;
  EXPECT_EQ(stray, 0) << "writes outside O's view (padding changed)";

  if (c.lse) {
    const auto lse = test::to_host<float>(d_lse, size_t(rows));
    const auto ref_lse = test::to_host<float>(d_ref_lse, size_t(rows));
    int64_t bad = 0, first_bad = -1;
    for (size_t r = 0; r < lse.size(); ++r) {
      const float e = ref_lse[r], g = lse[r];
      const bool ok = std::isinf(e) ? (g == e) : (std::fabs(g - e) <= 1e-3f * (1.0f + std::fabs(e)));
      if (!ok && bad++ == 0) first_bad = int64_t(r);
    }
    EXPECT_EQ(bad, 0) << "LSE mismatches; first at " << first_bad << ": got "
                      << (first_bad >= 0 ? lse[size_t(first_bad)] : 0.0f) << " want "
                      << (first_bad >= 0 ? ref_lse[size_t(first_bad)] : 0.0f);
  }
}

// ------------------------------------------------------------------ the sweep

std::vector<Case> sweep() {
  const int dims[] = {64, 96, 128, 192, 256};
  const std::pair<int, int> lens[] = {{1, 1},     {1, 1031},  {1031, 1},   {113, 113}, {113, 1031}, {1031, 113},
                                      {127, 129}, {129, 127}, {128, 128},  {1031, 1031}, {257, 80}, {80, 257}};
  const int ratios[] = {1, 4, 8};
  std::vector<Case> out;
  int i = 0;
  for (int d : dims)
    for (bool causal : {false, true})
      for (auto [sq, sk] : lens) {
        Case c;
        c.d = d, c.causal = causal, c.sq = sq, c.sk = sk;
        c.ratio = ratios[i % 3];
        c.layout = Layout((i / 3) % 3);
        c.hkv = (i % 2) + 1;
        c.batch = sq * sk > 500000 ? 1 : 2;
        c.dtype = (i % 4 == 3) ? DType::kFP16 : DType::kBF16;
        out.push_back(c);
        ++i;
      }
  return out;
}

// Head dims that run padded on the next larger kernel (zero-filled loads, clipped store).
std::vector<Case> padded_sweep() {
  std::vector<Case> out;
  int i = 0;
  for (int d : {8, 40, 80, 160, 224})
    for (auto [sq, sk] : {std::pair<int, int>{113, 1031}, std::pair<int, int>{257, 80}}) {
      Case c;
      c.d = d, c.causal = (i % 2) == 1, c.sq = sq, c.sk = sk;
      c.ratio = (i % 3) == 0 ? 4 : 1;
      c.layout = Layout(i % 3);
      c.hkv = 1 + (i % 2);
      c.batch = 2;
      c.dtype = (i % 4 == 3) ? DType::kFP16 : DType::kBF16;
      out.push_back(c);
      ++i;
    }
  return out;
}

class AttentionSweep : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionSweep, MatchesReference) {
  WARPSPEC_REQUIRE_HOPPER();
  run_case(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Attention, AttentionSweep, ::testing::ValuesIn(sweep()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           const Case& c = info.param;
                           return "d" + std::to_string(c.d) + (c.causal ? "_causal" : "_full") + "_q" +
                                  std::to_string(c.sq) + "_k" + std::to_string(c.sk) + "_r" + std::to_string(c.ratio) +
                                  "_l" + std::to_string(int(c.layout)) + (c.dtype == DType::kFP16 ? "_fp16" : "_bf16");
                         });
INSTANTIATE_TEST_SUITE_P(AttentionPadded, AttentionSweep, ::testing::ValuesIn(padded_sweep()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           const Case& c = info.param;
                           return "d" + std::to_string(c.d) + (c.causal ? "_causal" : "_full") + "_q" +
                                  std::to_string(c.sq) + "_k" + std::to_string(c.sk) + "_r" + std::to_string(c.ratio) +
                                  "_l" + std::to_string(int(c.layout)) + (c.dtype == DType::kFP16 ? "_fp16" : "_bf16");
                         });

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

// The float32 reference against a float64 CPU loop on small problems.
TEST(AttentionReference, MatchesFloat64Cpu) {
  WARPSPEC_REQUIRE_HOPPER();
  for (bool causal : {false, true})
    for (auto [sq, sk] : {std::pair{37, 53}, std::pair{53, 37}, std::pair{1, 9}}) {
      const int b = 2, hq = 4, hkv = 2, d = 64;
      const uint64_t seed = test::fresh_seed();
      SCOPED_TRACE("causal=" + std::to_string(causal) + " sq=" + std::to_string(sq) + " sk=" + std::to_string(sk) +
                   " seed=" + std::to_string(seed));
      std::mt19937_64 rng(seed);
      const auto hqv = random_tensor(rng, DType::kBF16, int64_t(b) * sq * hq * d);
      const auto hkv_ = random_tensor(rng, DType::kBF16, int64_t(b) * sk * hkv * d);
      const auto hvv = random_tensor(rng, DType::kBF16, int64_t(b) * sk * hkv * d);
      test::DeviceBuffer dq = test::to_device(hqv), dk = test::to_device(hkv_), dv = test::to_device(hvv);
      test::DeviceBuffer dout(size_t(b) * sq * hq * d * 4), dlse(size_t(b) * hq * sq * 4);
      const float scale = 0.125f;
      test::RefProblem rp{b, sq, sk, hq, hkv, d, causal, scale, DType::kBF16};
      CUDA_ASSERT(test::attention_reference(rp, {dq.get(), int64_t(sq) * hq * d, hq * d, d},
                                            {dk.get(), int64_t(sk) * hkv * d, hkv * d, d},
                                            {dv.get(), int64_t(sk) * hkv * d, hkv * d, d}, dout.as<float>(),
                                            dlse.as<float>(), false));
      CUDA_ASSERT(cudaDeviceSynchronize());
      const auto out = test::to_host<float>(dout, size_t(b) * sq * hq * d);
      const auto lse = test::to_host<float>(dlse, size_t(b) * hq * sq);
      auto at = [&](const std::vector<uint16_t>& t, int64_t s_len, int64_t heads, int bb, int i, int h, int x) {
        return double(to_float(DType::kBF16, t[size_t(((bb * s_len + i) * heads + h) * d + x)]));
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

}  // namespace
