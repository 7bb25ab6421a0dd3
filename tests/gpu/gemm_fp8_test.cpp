// FP8 GEMM (e4m3, and e4m3 x e5m2 either way round) with scales, and the fused epilogue (bias per column
// / per row, ReLU, GELU tanh / erf, SiLU) on FP8 and 16-bit inputs, against a float64 CPU loop on the
// dequantised inputs. Random inputs per case, output poisoned before every launch,
// every element checked; shapes off the 128 x 128 x 128 tile grid.
//
// Tolerance: FP8 products are exact in fp32, so the error is the accumulation's, below
// testing/gemm_check.hpp's fp8_accumulation_eps (2^-11, fast accumulation 2^-9) of Σ|a·b|
// (scaled). Plus two units of output rounding, and 1e-6 of the activation's approximations
// (fp32 ex2 / rcp, A&S erf). An e4m3 D (scale_result, amax): the kernel rounds a value within
// that tolerance δ of the exact y = scale_result · x, so D must lie between the host's
// saturating e4m3 roundings of y - δ and y + δ (rounding is monotonic), and amax between
// max(|x| - δ) and max(|x| + δ) over D's elements.
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "common/gpu_test.hpp"
#include "testing/convert.hpp"
#include "testing/gemm_check.hpp"
#include "testing/random.hpp"
#include "warpspec/warpspec.hpp"

namespace gemm_fp8_test {

using warpspec::DType;
using warpspec::GemmActivation;
using warpspec::GemmArgs;
using warpspec::TensorView;
namespace test = warpspec::test;
namespace testbed = warpspec::testbed;

// kBlock: DeepSeek-V3's block scales, scale_a (M, ceil(K/128)) stored column-major (M
// contiguous, DeepGEMM's layout), scale_b (ceil(K/128), ceil(N/128)) row-major.
enum class Scaling { kNone, kTensor, kRow, kBlock };
enum class Bias { kNone, kColumn, kRow };

struct Case {
  int64_t m, n, k;
  DType in, out;
  Scaling scaling = Scaling::kNone;
  Bias bias = Bias::kNone;
  DType bias_dtype = DType::kFP32;
  GemmActivation act = GemmActivation::kNone;
  bool fast_accum = false;
  bool d_col_major = false;
  int tile_n = 0;  // 256: the wide FP8 tile (D bf16)
  warpspec::GemmDecomposition decomposition = warpspec::GemmDecomposition::kHeuristic;
  int splits = 0;  // split-K only
  bool b_other = false;  // B in the other 8-bit format than A (mixed e4m3 x e5m2)
  warpspec::GemmSchedule schedule = warpspec::GemmSchedule::kHeuristic;
  float result_scale = 0;  // an e4m3 D's scale_result: 0 leaves it empty (1)
  bool amax = false;       // an e4m3 D: ask for amax
  float beta = 0;          // beta·C with C of D's dtype and layout (0: no C)
  DType b_in() const { return !b_other ? in : in == DType::kE4M3 ? DType::kE5M2 : DType::kE4M3; }
};

std::string name(const Case& c) {
  char buf[220];
  std::snprintf(buf, sizeof buf, "%ldx%ldx%ld_%s_%s_s%d_b%d%s_a%d%s%s%s", long(c.m), long(c.n), long(c.k),
                warpspec::dtype_name(c.in), warpspec::dtype_name(c.out), int(c.scaling), int(c.bias),
                c.bias != Bias::kNone ? warpspec::dtype_name(c.bias_dtype) : "", int(c.act), c.fast_accum ? "_fast" : "",
                c.d_col_major ? "_dcol" : "", c.tile_n == 256 ? "_t256" : c.tile_n == 128 ? "_t128" : "");
  std::string s = buf;
  if (c.decomposition == warpspec::GemmDecomposition::kDataParallel) s += "_dp";
  if (c.decomposition == warpspec::GemmDecomposition::kSplitK) s += "_splitk" + std::to_string(c.splits);
  if (c.decomposition == warpspec::GemmDecomposition::kStreamK) s += "_streamk";
  if (c.b_other) s += std::string("_b") + warpspec::dtype_name(c.b_in());
  if (c.schedule == warpspec::GemmSchedule::kPingPong) s += "_pingpong";
  if (c.schedule == warpspec::GemmSchedule::kCooperative) s += "_coop";
  if (c.result_scale != 0) s += "_rs" + std::to_string(int(c.result_scale * 1000));
  if (c.amax) s += "_amax";
  if (c.beta != 0) s += "_beta";
  return s;
}

void PrintTo(const Case& c, std::ostream* os) { *os << name(c); }

// Round to the format and back, storing element i (an index, not a byte offset) of
// `bytes` (host conversions of cuda_fp8.h / cuda_bf16.h).
float quantise(DType t, float x, uint8_t* bytes, size_t i) {
  if (t == DType::kE4M3) {
    const __nv_fp8_e4m3 v(x);
    std::memcpy(bytes + i, &v, 1);
    return float(v);
  }
  if (t == DType::kE5M2) {
    const __nv_fp8_e5m2 v(x);
    std::memcpy(bytes + i, &v, 1);
    return float(v);
  }
  testbed::store_float(t, bytes, i, x);
  return testbed::load_float(t, bytes, i);
}

// A host vector of n values in [lo, hi), from the seed's stream.
std::vector<float> uniform(uint64_t seed, size_t n, float lo, float hi) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = lo + (hi - lo) * 0.5f * (testbed::hash_uniform(seed, i) + 1.0f);
  return v;
}

TensorView vec(const test::DeviceBuffer& b, DType t, int64_t n) {
  TensorView v;
  v.data = b.get();
  v.dtype = t;
  v.rank = 1;
  v.shape[0] = n;
  v.stride[0] = 1;
  return v;
}

void run_case(const Case& c) {
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(name(c) + " " + test::seed_note(seed));
  const int64_t M = c.m, N = c.n, K = c.k;
  const size_t ein = warpspec::dtype_size(c.in), eout = warpspec::dtype_size(c.out);
  // A row-major M x K, B column-major (K contiguous): element (k, j) at j*K + k.
  std::vector<uint8_t> ha(M * K * ein), hb(N * K * ein);
  std::vector<float> fa(M * K), fb(N * K);
  // Exercise the formats' exponents (e5m2: 2 more bits of exponent, 1 fewer of mantissa).
  const float range_a = c.in == DType::kE5M2 ? 4.0f : 2.0f, range_b = c.b_in() == DType::kE5M2 ? 4.0f : 2.0f;
  for (int64_t i = 0; i < M * K; ++i) fa[i] = quantise(c.in, range_a * testbed::hash_uniform(seed, i), ha.data(), i);
  for (int64_t i = 0; i < N * K; ++i)
    fb[i] = quantise(c.b_in(), range_b * testbed::hash_uniform(seed + 1, i), hb.data(), i);
  std::vector<float> sa(1, 1.0f), sb(1, 1.0f);
  const int64_t KB = (K + 127) / 128, NB = (N + 127) / 128;
  if (c.scaling == Scaling::kTensor) sa = uniform(seed + 2, 1, 0.25f, 2.0f), sb = uniform(seed + 3, 1, 0.25f, 2.0f);
  if (c.scaling == Scaling::kRow) sa = uniform(seed + 2, M, 0.25f, 2.0f), sb = uniform(seed + 3, N, 0.25f, 2.0f);
  // Block scales spanning 2^-6 .. 2^6 (2^2 at the top for fp16, whose range ends at 65504):
  // a wrong block shows.
  if (c.scaling == Scaling::kBlock) {
    const float top = c.out == DType::kFP16 ? 2.0f : 6.0f;
    sa = uniform(seed + 2, size_t(M * KB), -6.0f, top), sb = uniform(seed + 3, size_t(KB * NB), -6.0f, top);
    for (float& x : sa) x = std::exp2(x);
    for (float& x : sb) x = std::exp2(x);
  }
  // The factor of product term (i, j, k): element (i, kb) of scale_a at kb * M + i, (kb, nb) of scale_b at kb * NB + nb.
  auto factor = [&](int64_t i, int64_t j, int64_t k) -> double {
    switch (c.scaling) {
      case Scaling::kTensor: return double(sa[0]) * double(sb[0]);
      case Scaling::kRow: return double(sa[i]) * double(sb[j]);
      case Scaling::kBlock: return double(sa[(k / 128) * M + i]) * double(sb[(k / 128) * NB + j / 128]);
      default: return 1.0;
    }
  };
  const int64_t nbias = c.bias == Bias::kRow ? M : N;
  std::vector<uint8_t> hbias(nbias * warpspec::dtype_size(c.bias_dtype));
  std::vector<float> fbias(nbias, 0.0f);
  for (int64_t i = 0; i < nbias && c.bias != Bias::kNone; ++i)
    fbias[i] = quantise(c.bias_dtype, testbed::hash_uniform(seed + 4, i), hbias.data(), i);

  test::DeviceBuffer da = test::to_device(ha), db = test::to_device(hb), dsa = test::to_device(sa),
                     dsb = test::to_device(sb), dbias = test::to_device(hbias);
  // D's leading dimension padded to 16 bytes (TMA's rule); the padding must stay poison.
  const int64_t per16 = int64_t(16 / eout), inner = c.d_col_major ? M : N, outer = c.d_col_major ? N : M;
  const int64_t ld = (inner + per16 - 1) / per16 * per16;
  test::DeviceBuffer dd(size_t(outer * ld) * eout);
  ASSERT_NE(dd.get(), nullptr);
  CUDA_ASSERT(test::poison(dd));
  // C: D's dtype and layout, values in [-1, 1) rounded to that dtype (fc, row-major M x N).
  std::vector<uint8_t> hc;
  std::vector<float> fc;
  if (c.beta != 0) {
    hc.assign(size_t(outer * ld) * eout, 0xFF);
    fc.assign(size_t(M * N), 0.0f);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        fc[size_t(i * N + j)] = quantise(c.out, testbed::hash_uniform(seed + 5, size_t(i * N + j)), hc.data(),
                                         c.d_col_major ? size_t(j * ld + i) : size_t(i * ld + j));
  }
  test::DeviceBuffer dc = test::to_device(hc);
  GemmArgs g;
  g.a = TensorView::matrix(da.get(), c.in, M, K, K);
  g.b = TensorView::matrix(db.get(), c.b_in(), K, N, K, /*row_major=*/false);
  g.d = TensorView::matrix(dd.get(), c.out, M, N, ld, !c.d_col_major);
  if (c.beta != 0) {
    g.c = TensorView::matrix(dc.get(), c.out, M, N, ld, !c.d_col_major);
    g.beta = c.beta;
  }
  if (c.scaling == Scaling::kTensor) g.scale_a = vec(dsa, DType::kFP32, 1), g.scale_b = vec(dsb, DType::kFP32, 1);
  if (c.scaling == Scaling::kRow) g.scale_a = vec(dsa, DType::kFP32, M), g.scale_b = vec(dsb, DType::kFP32, N);
  if (c.scaling == Scaling::kBlock) {
    g.scaling = warpspec::GemmScaling::kBlock;
    g.scale_a = TensorView::matrix(dsa.get(), DType::kFP32, M, KB, M, /*row_major=*/false);
    g.scale_b = TensorView::matrix(dsb.get(), DType::kFP32, KB, NB, NB);
  }
  if (c.bias != Bias::kNone) {
    g.bias = vec(dbias, c.bias_dtype, nbias);
    g.bias_per_row = c.bias == Bias::kRow;
  }
  g.activation = c.act;
  g.use_fast_accum = c.fast_accum;
  g.tile_n = c.tile_n;
  g.decomposition = c.decomposition;
  g.schedule = c.schedule;
  g.splits = c.splits;
  const bool e4m3_out = c.out == DType::kE4M3;
  const std::vector<float> hrs(1, c.result_scale);
  test::DeviceBuffer drs = test::to_device(hrs), damax(sizeof(float));
  if (c.result_scale != 0) g.scale_result = vec(drs, DType::kFP32, 1);
  if (c.amax) {
    CUDA_ASSERT(test::poison(damax));  // all ones: NaN bits above any |x|, so a missing zeroing shows
    g.amax = vec(damax, DType::kFP32, 1);
  }
  const double rscale = c.result_scale != 0 ? double(c.result_scale) : 1.0;
  const warpspec::Status s = warpspec::gemm(g);
  ASSERT_TRUE(s.ok()) << s.to_string();
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<uint8_t> hd = test::to_host<uint8_t>(dd, dd.bytes());
  int64_t stray = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t x = inner; x < ld; ++x)
      for (size_t b = 0; b < eout; ++b) stray += hd[size_t(o * ld + x) * eout + b] != 0xFF;
  EXPECT_EQ(stray, 0) << "bytes written in D's row padding";

  const bool fp8 = ein == 1;
  const double acc_rel = !fp8 ? std::ldexp(1.0, -16) : testbed::fp8_accumulation_eps(c.fast_accum);
  // Row by row on every core; each row keeps its count and its first misses, reported in
  // row order below.
  struct Miss {
    int64_t i, j;
    double got, expect, tol;
  };
  std::vector<int64_t> bad_in_row(static_cast<size_t>(M), 0);
  std::vector<std::vector<Miss>> misses(static_cast<size_t>(M));
  std::vector<double> amax_lo(static_cast<size_t>(M), 0.0), amax_hi(static_cast<size_t>(M), 0.0);  // per row
  test::parallel_rows(M, [&](int64_t i) {
    for (int64_t j = 0; j < N; ++j) {
      double dot = 0, mag = 0;  // scaled: Σ s·a·b and Σ |s·a·b|
      for (int64_t k = 0; k < K; ++k) {
        const double p = factor(i, j, k) * double(fa[i * K + k]) * double(fb[j * K + k]);
        dot += p;
        mag += std::fabs(p);
      }
      const double pre = dot + (c.bias == Bias::kRow ? fbias[i] : c.bias == Bias::kColumn ? fbias[j] : 0.0) +
                         (c.beta != 0 ? double(c.beta) * double(fc[size_t(i * N + j)]) : 0.0);
      const double expect = testbed::activate(c.act, pre);
      const size_t at = c.d_col_major ? size_t(j * ld + i) : size_t(i * ld + j);
      const double got = testbed::load_float(c.out, hd.data(), at);
      if (e4m3_out) {
        const double delta = 1.2 * acc_rel * mag + 1e-6 * (std::fabs(pre) + 1);
        amax_lo[size_t(i)] = std::max(amax_lo[size_t(i)], std::fabs(expect) - delta);
        amax_hi[size_t(i)] = std::max(amax_hi[size_t(i)], std::fabs(expect) + delta);
        const double y = rscale * expect, dy = rscale * delta;
        const double lo = float(__nv_fp8_e4m3(float(y - dy))), hi = float(__nv_fp8_e4m3(float(y + dy)));
        if (!(got >= lo && got <= hi)) {
          if (++bad_in_row[size_t(i)] <= 5) misses[size_t(i)].push_back({i, j, got, y, hi - lo});
        }
        continue;
      }
      const double tol = 2 * testbed::gemm_output_eps(c.out) * std::fabs(expect) + 1.2 * acc_rel * mag +
                         1e-6 * (std::fabs(pre) + 1) + 1e-30;
      if (!(std::fabs(got - expect) <= tol)) {
        if (++bad_in_row[size_t(i)] <= 5) misses[size_t(i)].push_back({i, j, got, expect, tol});
      }
    }
  });
  int64_t bad = 0, shown = 0;
  for (int64_t i = 0; i < M; ++i) {
    bad += bad_in_row[size_t(i)];
    for (const Miss& m : misses[size_t(i)])
      if (shown++ < 5)
        ADD_FAILURE() << "D(" << m.i << ", " << m.j << ") = " << m.got << ", expected " << m.expect << " (tolerance "
                      << m.tol << ")";
  }
  EXPECT_EQ(bad, 0) << "of " << M * N << " elements";
  if (c.amax) {
    float got = 0;
    CUDA_ASSERT(cudaMemcpy(&got, damax.get(), sizeof got, cudaMemcpyDeviceToHost));
    double lo = 0, hi = 0;
    for (int64_t i = 0; i < M; ++i) lo = std::max(lo, amax_lo[size_t(i)]), hi = std::max(hi, amax_hi[size_t(i)]);
    EXPECT_TRUE(double(got) >= lo && double(got) <= hi) << "amax " << got << ", expected within [" << lo << ", " << hi
                                                         << "]";
  }
}

class GemmFp8Sweep : public ::testing::TestWithParam<Case> {};

TEST_P(GemmFp8Sweep, MatchesFloat64Reference) {
  WARPSPEC_REQUIRE_HOPPER();
  run_case(GetParam());
}

std::vector<Case> fp8_cases() {
  std::vector<Case> cases;
  // Every input x output x scaling x activation x bias kind, off the tile grid.
  for (DType in : {DType::kE4M3})
    for (DType out : {DType::kBF16, DType::kFP16, DType::kFP32})
      for (Scaling sc : {Scaling::kNone, Scaling::kTensor, Scaling::kRow})
        for (GemmActivation act : {GemmActivation::kNone, GemmActivation::kReLU, GemmActivation::kGeluTanh,
                                   GemmActivation::kGeluErf, GemmActivation::kSiLU})
          for (Bias bias : {Bias::kNone, Bias::kColumn, Bias::kRow})
            cases.push_back({131, 200, 272, in, out, sc, bias, bias == Bias::kRow ? out : DType::kFP32, act});
  // Shapes: below one tile, exactly one, one past, long K (promotion matters), batch-free
  // column-major D (computed as D^T = B^T A^T), fast accumulation.
  for (auto [m, n, k] : {std::tuple{1, 16, 16}, {64, 8, 32}, {128, 128, 128}, {129, 129, 144}, {257, 72, 1040},
                         {96, 384, 4096}})
    for (bool fast : {false, true}) cases.push_back({m, n, k, DType::kE4M3, DType::kBF16, Scaling::kRow, Bias::kColumn,
                                                     DType::kBF16, GemmActivation::kGeluErf, fast});
  cases.push_back({200, 136, 256, DType::kE4M3, DType::kFP16, Scaling::kRow, Bias::kRow, DType::kFP16,
                   GemmActivation::kSiLU, false, true});
  // The wide tile (128 x 256 as two 128-column parts): below, across and past one tile,
  // every scaling, long K, column-major D, fast accumulation (promoted every k-block anyway).
  for (auto [m, n, k] : {std::tuple{1, 16, 16}, {131, 200, 272}, {257, 520, 1040}, {96, 384, 4096}})
    for (Scaling sc : {Scaling::kNone, Scaling::kTensor, Scaling::kRow})
      cases.push_back({m, n, k, DType::kE4M3, DType::kBF16, sc, Bias::kColumn, DType::kBF16, GemmActivation::kGeluTanh,
                       false, false, 256});
  cases.push_back({200, 300, 512, DType::kE4M3, DType::kBF16, Scaling::kRow, Bias::kRow, DType::kFP32,
                   GemmActivation::kNone, true, true, 256});
  cases.push_back({200, 136, 256, DType::kE4M3, DType::kFP32, Scaling::kTensor, Bias::kColumn, DType::kFP32,
                   GemmActivation::kReLU, true, true});
  // The FP8 consumer's unit walk through one CTA: split-K with more splits than k-blocks
  // (empty units, k_count 0) and with ragged ones, stream-K (units of different k_count
  // per CTA), more tiles than SMs (a CTA runs several), M <= 64 (one warpgroup idle),
  // both tiles, with and without fast accumulation (the consumer promotes differently).
  using warpspec::GemmDecomposition;
  struct Walk {
    int64_t m, n, k;
    GemmDecomposition d;
    int splits;
  };
  for (Walk w : {Walk{200, 136, 1040, GemmDecomposition::kSplitK, 3}, Walk{200, 136, 384, GemmDecomposition::kSplitK, 7},
                 Walk{64, 136, 1040, GemmDecomposition::kSplitK, 4}, Walk{257, 520, 1040, GemmDecomposition::kStreamK, 0},
                 Walk{1100, 1300, 1168, GemmDecomposition::kStreamK, 0}, Walk{40, 2000, 1040, GemmDecomposition::kStreamK, 0},
                 Walk{1024, 2304, 256, GemmDecomposition::kDataParallel, 0}})
    for (int tile_n : {0, 256})
      for (bool fast : {false, true})
        cases.push_back({w.m, w.n, w.k, DType::kE4M3, DType::kBF16, Scaling::kRow, Bias::kColumn, DType::kBF16,
                         GemmActivation::kNone, fast, false, tile_n, w.d, w.splits});
  // Block scales: every output dtype, both tiles (the wide one's two 128-column parts take
  // two column blocks), K and N off the 128 grid (a partial last block), M <= 64, one
  // k-block, long K, bias and an activation after the scaled product, and the unit walks
  // (split-K with empty and ragged units, stream-K): each unit scales its own k-blocks.
  for (auto [m, n, k] : {std::tuple{1, 16, 16}, {131, 200, 272}, {64, 136, 1040}, {257, 520, 1040}, {96, 384, 4096},
                         {128, 256, 128}})
    for (int tile_n : {0, 256})
      cases.push_back({m, n, k, DType::kE4M3, DType::kBF16, Scaling::kBlock, Bias::kNone, DType::kFP32,
                       GemmActivation::kNone, false, false, tile_n});
  for (DType out : {DType::kFP16, DType::kFP32})
    cases.push_back({131, 200, 400, DType::kE4M3, out, Scaling::kBlock, Bias::kColumn, DType::kFP32,
                     GemmActivation::kGeluTanh});
  cases.push_back({131, 200, 400, DType::kE4M3, DType::kBF16, Scaling::kBlock, Bias::kRow, DType::kFP32,
                   GemmActivation::kSiLU});
  for (Walk w : {Walk{200, 136, 1040, GemmDecomposition::kSplitK, 3}, Walk{200, 136, 384, GemmDecomposition::kSplitK, 7},
                 Walk{1100, 1300, 1168, GemmDecomposition::kStreamK, 0}})
    for (int tile_n : {0, 256})
      cases.push_back({w.m, w.n, w.k, DType::kE4M3, DType::kBF16, Scaling::kBlock, Bias::kNone, DType::kFP32,
                       GemmActivation::kNone, false, false, tile_n, w.d, w.splits});
  // Mixed formats (e4m3 A x e5m2 B and e5m2 A x e4m3 B, the 128 x 128 tile): every output
  // dtype and scaling, an activation and both biases; column-major D (the kernel then
  // multiplies the caller's B as its A: the other kernel of the pair); long K promoted
  // and fast; block scales; split-K and stream-K unit walks.
  for (DType in : {DType::kE4M3, DType::kE5M2}) {
    for (DType out : {DType::kBF16, DType::kFP16, DType::kFP32})
      for (Scaling sc : {Scaling::kNone, Scaling::kTensor, Scaling::kRow})
        cases.push_back({131, 200, 272, in, out, sc, out == DType::kFP16 ? Bias::kRow : Bias::kColumn,
                         out == DType::kFP16 ? out : DType::kFP32, GemmActivation::kGeluTanh, false, false, 0,
                         GemmDecomposition::kHeuristic, 0, true});
    for (bool fast : {false, true}) {
      cases.push_back({96, 384, 4096, in, DType::kBF16, Scaling::kRow, Bias::kColumn, DType::kBF16,
                       GemmActivation::kNone, fast, false, 0, GemmDecomposition::kHeuristic, 0, true});
      cases.push_back({200, 136, 256, in, DType::kFP32, Scaling::kTensor, Bias::kColumn, DType::kFP32,
                       GemmActivation::kReLU, fast, true, 0, GemmDecomposition::kHeuristic, 0, true});
    }
    cases.push_back({131, 200, 400, in, DType::kBF16, Scaling::kBlock, Bias::kNone, DType::kFP32,
                     GemmActivation::kNone, false, false, 0, GemmDecomposition::kHeuristic, 0, true});
    for (Walk w : {Walk{200, 136, 1040, GemmDecomposition::kSplitK, 3}, Walk{1100, 1300, 1168, GemmDecomposition::kStreamK, 0}})
      cases.push_back({w.m, w.n, w.k, in, DType::kBF16, Scaling::kRow, Bias::kColumn, DType::kBF16,
                       GemmActivation::kNone, false, false, 0, w.d, w.splits, true});
  }
  // Data-parallel on the 128 x 128 tile with two or more tiles a CTA (16 x 17 = 272 tiles
  // on 132 SMs; a CTA stores two or three tiles): the consumer's loop from one tile into the next. Odd and even k-block
  // counts (the last one partial: K = 240 is 128 + 112), M off the tile grid, every scaling, fp32 out with a
  // bias, mixed formats. Appended, so the indices above stay.
  struct ManyTiles {
    int64_t m, k;
    DType out;
    Scaling sc;
    bool b_other;
  };
  for (ManyTiles c : {ManyTiles{2048, 384, DType::kBF16, Scaling::kRow, false},
                      ManyTiles{2048, 240, DType::kFP32, Scaling::kTensor, false},
                      ManyTiles{2050, 256, DType::kBF16, Scaling::kBlock, false},
                      ManyTiles{2048, 512, DType::kBF16, Scaling::kNone, false},
                      ManyTiles{2048, 256, DType::kBF16, Scaling::kRow, true}})
    cases.push_back({c.m, 2100, c.k, DType::kE4M3, c.out, c.sc, c.sc == Scaling::kBlock ? Bias::kNone : Bias::kColumn,
                     DType::kFP32, GemmActivation::kNone, false, false, 128, GemmDecomposition::kDataParallel, 0,
                     c.b_other});
  // The same on the 128 x 256 tile (16 x 17 = 272 tiles): before these, no case ran it
  // with more than one tile a CTA (the walk above is 72 wide tiles).
  for (Scaling sc : {Scaling::kRow, Scaling::kBlock})
    cases.push_back({2048, 4300, sc == Scaling::kRow ? 384 : 256, DType::kE4M3, DType::kBF16, sc,
                     sc == Scaling::kBlock ? Bias::kNone : Bias::kColumn, DType::kFP32, GemmActivation::kNone, false,
                     false, 256, GemmDecomposition::kDataParallel, 0});
  // Longer k loops on the 128 x 128 tile, several tiles a CTA: the loop carried across
  // tiles (gemm/mma_fp8_carried.cuh, built for D bf16 and e4m3) with 4, 8 (the last partial)
  // and 7 k-blocks a tile, and the shortest odd ones, 3 and 5 (one and two pairs of steps
  // after the first k-block; an odd count drains at each tile's end); and the fp16 / fp32 D
  // kernels' per-unit loop over the same k-block counts.
  for (ManyTiles c : {ManyTiles{2050, 512, DType::kBF16, Scaling::kBlock, false},
                      ManyTiles{2048, 1008, DType::kBF16, Scaling::kTensor, false},
                      ManyTiles{2048, 896, DType::kBF16, Scaling::kRow, true},
                      ManyTiles{2048, 384, DType::kBF16, Scaling::kTensor, false},
                      ManyTiles{2048, 640, DType::kBF16, Scaling::kRow, false},
                      ManyTiles{2048, 1008, DType::kFP32, Scaling::kTensor, false},
                      ManyTiles{2048, 640, DType::kFP16, Scaling::kRow, false}})
    cases.push_back({c.m, 2100, c.k, DType::kE4M3, c.out, c.sc, c.sc == Scaling::kBlock ? Bias::kNone : Bias::kColumn,
                     DType::kFP32, GemmActivation::kNone, false, false, 128, GemmDecomposition::kDataParallel, 0,
                     c.b_other});
  // M ending inside a tile (gemm/mainloop.cuh tile_loaded_rows_a): A's last box as 8-row
  // boxes or as one whole box moved back over the box before it (FP8 multiplies both
  // warpgroups' rows; rows past M hold older stages' bytes and are never stored): 56, 40
  // and 8 rows of the last box on both tiles, and 52 rows in the loop carried across
  // tiles (2100 rows, 17 row tiles, several tiles a CTA).
  for (int64_t m : {120, 104, 200})
    for (int tile_n : {128, 256})
      cases.push_back({m, 520, 400, DType::kE4M3, DType::kBF16, Scaling::kRow, Bias::kColumn, DType::kBF16,
                       GemmActivation::kNone, false, false, tile_n});
  cases.push_back({2100, 2100, 512, DType::kE4M3, DType::kBF16, Scaling::kTensor, Bias::kNone, DType::kFP32,
                   GemmActivation::kNone, false, false, 128, GemmDecomposition::kDataParallel, 0});
  // A 16-bit D is one kernel, bf16 or fp16 at run time (config.hpp kernel_config): beta·C
  // read in either type (before the activation), and the paths a D fp16 call reaches only
  // through it: the wide tile, the ping-pong kernel, the loop carried across tiles (odd and
  // even k-block counts), a column-major D, mixed formats, split-K; fp32 D beside them.
  auto beta_case = [&](Case c, float beta) {
    c.beta = beta;
    cases.push_back(c);
  };
  for (DType out : {DType::kBF16, DType::kFP16, DType::kFP32})
    beta_case({131, 200, 272, DType::kE4M3, out, Scaling::kRow, Bias::kColumn, DType::kFP32, GemmActivation::kGeluTanh},
              0.5f);
  for (DType out : {DType::kBF16, DType::kFP16})
    for (int64_t k : {640, 896})
      beta_case({2048, 2100, k, DType::kE4M3, out, Scaling::kTensor, Bias::kNone, DType::kFP32, GemmActivation::kNone,
                 false, false, 128, GemmDecomposition::kDataParallel, 0},
                -1.0f);
  beta_case({200, 136, 256, DType::kE4M3, DType::kFP16, Scaling::kRow, Bias::kRow, DType::kFP16, GemmActivation::kSiLU,
             false, true},
            0.25f);
  beta_case({257, 520, 1040, DType::kE4M3, DType::kFP16, Scaling::kRow, Bias::kColumn, DType::kFP16,
             GemmActivation::kNone, false, false, 256},
            0.5f);
  beta_case({131, 200, 272, DType::kE4M3, DType::kFP16, Scaling::kRow, Bias::kColumn, DType::kFP32,
             GemmActivation::kReLU, false, false, 0, GemmDecomposition::kSplitK, 3},
            2.0f);
  beta_case({131, 200, 272, DType::kE4M3, DType::kFP16, Scaling::kRow, Bias::kColumn, DType::kFP32,
             GemmActivation::kGeluErf, false, false, 0, GemmDecomposition::kHeuristic, 0, true},
            0.5f);
  for (float beta : {0.0f, 0.5f})
    beta_case({300, 520, 512, DType::kE4M3, DType::kFP16, Scaling::kTensor, Bias::kColumn, DType::kFP16,
               GemmActivation::kGeluTanh, true, false, 0, GemmDecomposition::kHeuristic, 0, false,
               warpspec::GemmSchedule::kPingPong},
              beta);
  cases.push_back({257, 520, 1040, DType::kE4M3, DType::kFP16, Scaling::kTensor, Bias::kColumn, DType::kFP16,
                   GemmActivation::kNone, false, false, 256});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Fp8, GemmFp8Sweep, ::testing::ValuesIn(fp8_cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::to_string(i.index) + "_" + name(i.param); });

// An e4m3 D (scale_result and amax; gemm/epilogue_quant.cuh): every scaling, activations and
// both biases (bf16, fp16, fp32), N off the 16-byte grid (the row end's chunk stored with plain
// stores), M ending inside a tile, a column-major D (computed as Dᵀ), long K promoted and fast,
// split-K and stream-K (the final unit quantises), data-parallel with several tiles a CTA (the
// loop carried across tiles), a scale that saturates (|y| past 448 stores ±448), and amax with
// and without a scale.
std::vector<Case> fp8_out_cases() {
  using warpspec::GemmDecomposition;
  std::vector<Case> cases;
  auto add = [&](int64_t m, int64_t n, int64_t k, Scaling sc, Bias bias, DType bias_dtype, GemmActivation act,
                 float result_scale, bool amax) {
    Case c{m, n, k, DType::kE4M3, DType::kE4M3, sc, bias, bias_dtype, act};
    c.result_scale = result_scale;
    c.amax = amax;
    cases.push_back(c);
    return &cases.back();
  };
  for (Scaling sc : {Scaling::kNone, Scaling::kTensor, Scaling::kRow, Scaling::kBlock})
    add(131, 200, 272, sc, sc == Scaling::kBlock ? Bias::kNone : Bias::kColumn, DType::kBF16, GemmActivation::kGeluTanh,
        0.5f, true);
  for (GemmActivation act : {GemmActivation::kNone, GemmActivation::kReLU, GemmActivation::kGeluErf, GemmActivation::kSiLU})
    for (DType bias_dtype : {DType::kFP32, DType::kFP16})
      add(131, 200, 272, Scaling::kRow, act == GemmActivation::kReLU ? Bias::kRow : Bias::kColumn, bias_dtype, act,
          0.25f, true);
  add(131, 200, 272, Scaling::kTensor, Bias::kNone, DType::kFP32, GemmActivation::kNone, 0, false);   // neither
  add(131, 200, 272, Scaling::kTensor, Bias::kNone, DType::kFP32, GemmActivation::kNone, 0, true);    // amax alone
  add(131, 200, 272, Scaling::kTensor, Bias::kColumn, DType::kFP32, GemmActivation::kNone, 64.0f, true);  // saturates
  for (auto [m, n, k] : {std::tuple{1, 16, 16}, {64, 8, 32}, {129, 129, 144}, {120, 520, 400}, {257, 72, 1040},
                         {96, 384, 4096}})
    for (bool fast : {false, true})
      add(m, n, k, Scaling::kRow, Bias::kColumn, DType::kBF16, GemmActivation::kNone, 2.0f, true)->fast_accum = fast;
  add(200, 136, 256, Scaling::kRow, Bias::kRow, DType::kFP32, GemmActivation::kSiLU, 0.5f, true)->d_col_major = true;
  add(200, 130, 256, Scaling::kTensor, Bias::kColumn, DType::kFP32, GemmActivation::kNone, 1.0f, true)->d_col_major =
      true;
  struct Walk {
    int64_t m, n, k;
    GemmDecomposition d;
    int splits;
  };
  for (Walk w : {Walk{200, 136, 1040, GemmDecomposition::kSplitK, 3}, Walk{1100, 1300, 1168, GemmDecomposition::kStreamK, 0},
                 Walk{2048, 2100, 512, GemmDecomposition::kDataParallel, 0},
                 Walk{2100, 2100, 384, GemmDecomposition::kDataParallel, 0}})
    for (bool fast : {false, true}) {
      Case* c = add(w.m, w.n, w.k, Scaling::kRow, Bias::kColumn, DType::kFP32, GemmActivation::kNone, 0.125f, true);
      c->decomposition = w.d;
      c->splits = w.splits;
      c->fast_accum = fast;
      c->tile_n = 128;
    }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Fp8Out, GemmFp8Sweep, ::testing::ValuesIn(fp8_out_cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::to_string(i.index) + "_" + name(i.param); });

std::vector<Case> epilogue_16bit_cases() {
  // The fused epilogue on the 16-bit GEMM: its one kernel per dtype (128 x 256 tile,
  // D of the input dtype) over N below, across and past one tile (72, 200, 520).
  std::vector<Case> cases;
  for (DType in : {DType::kBF16, DType::kFP16})
    for (DType out : {in})
      for (GemmActivation act : {GemmActivation::kNone, GemmActivation::kReLU, GemmActivation::kGeluTanh,
                                 GemmActivation::kGeluErf, GemmActivation::kSiLU})
        for (Bias bias : {Bias::kColumn, Bias::kRow})
          for (int64_t n : {72, 200, 520})
            cases.push_back({133, n, 96, in, out, Scaling::kNone, bias, bias == Bias::kRow ? DType::kFP32 : out, act});
  cases.push_back({133, 200, 96, DType::kBF16, DType::kBF16, Scaling::kRow, Bias::kColumn, DType::kBF16,
                   GemmActivation::kGeluTanh, false, true});
  // The ping-pong schedule's fused kernels (bf16, fp16), asked for by name: every activation and
  // bias, one tile and many (2000 x 2600: 16 x 21 tiles, several a CTA, both warpgroups'
  // epilogues under the other's mainloop), scales, a column-major D, and the heuristic's
  // own choice where it takes ping-pong (at least two 128 x 128 tiles per SM).
  int i = 0;
  for (GemmActivation act : {GemmActivation::kNone, GemmActivation::kReLU, GemmActivation::kGeluTanh,
                             GemmActivation::kGeluErf, GemmActivation::kSiLU})
    for (Bias bias : {Bias::kColumn, Bias::kRow}) {
      Case c{i % 2 ? 2000 : 133, i % 2 ? 2600 : 200, i % 2 || i % 3 ? 96 : 320, DType::kBF16, DType::kBF16, Scaling::kNone,
             bias, bias == Bias::kRow || i % 4 == 0 ? DType::kFP32 : DType::kBF16, act};
      c.schedule = warpspec::GemmSchedule::kPingPong;
      c.tile_n = i % 3 == 2 ? 128 : 0;
      ++i;
      cases.push_back(c);
    }
  Case s{1000, 1000, 136, DType::kBF16, DType::kBF16, Scaling::kRow, Bias::kColumn, DType::kBF16,
         GemmActivation::kSiLU, false, true};  // scales, D column-major
  s.schedule = warpspec::GemmSchedule::kPingPong;
  cases.push_back(s);
  for (GemmActivation act : {GemmActivation::kGeluErf, GemmActivation::kReLU}) {  // fp16's kernel
    Case f{act == GemmActivation::kReLU ? 133 : 2000, 2600, 96, DType::kFP16, DType::kFP16, Scaling::kNone,
           act == GemmActivation::kReLU ? Bias::kRow : Bias::kColumn, DType::kFP16, act};
    f.schedule = warpspec::GemmSchedule::kPingPong;
    cases.push_back(f);
  }
  Case h{4200, 4200, 136, DType::kBF16, DType::kBF16, Scaling::kTensor, Bias::kColumn, DType::kBF16,
         GemmActivation::kGeluTanh};  // 33 x 33 tiles: the heuristic's ping-pong
  cases.push_back(h);
  h.schedule = warpspec::GemmSchedule::kCooperative;  // and the cooperative kernel by name
  cases.push_back(h);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Epilogue16Bit, GemmFp8Sweep, ::testing::ValuesIn(epilogue_16bit_cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::to_string(i.index) + "_" + name(i.param); });

std::vector<Case> fp8_pingpong_cases() {
  // FP8 with fast accumulation on the ping-pong schedule (gemm/kernel_pingpong.cuh, e4m3 ->
  // bf16): asked for by name with one tile a CTA and several, M and N off the tile grid, K
  // of one k-block, of several with the last partial (1040 = 8 x 128 + 16), tensor- and
  // row-wise scales, bias per column and per row, activations, a column-major D (the
  // swapped operands); and the heuristic's own choice where there are at least two
  // 128 x 128 tiles per SM (33 x 33 tiles).
  std::vector<Case> cases;
  struct P {
    int64_t m, n, k;
    Scaling sc;
    Bias bias;
    GemmActivation act;
    bool d_col_major;
    warpspec::GemmSchedule schedule;
  };
  const auto pp = warpspec::GemmSchedule::kPingPong, auto_ = warpspec::GemmSchedule::kHeuristic;
  for (const P& c : {P{133, 200, 256, Scaling::kTensor, Bias::kNone, GemmActivation::kNone, false, pp},
                     P{2050, 2100, 512, Scaling::kRow, Bias::kRow, GemmActivation::kReLU, false, pp},
                     P{2048, 2100, 128, Scaling::kTensor, Bias::kColumn, GemmActivation::kGeluTanh, false, pp},
                     P{1000, 1000, 1040, Scaling::kRow, Bias::kColumn, GemmActivation::kSiLU, true, pp},
                     P{2100, 2100, 640, Scaling::kNone, Bias::kNone, GemmActivation::kNone, false, pp},
                     P{4200, 4200, 384, Scaling::kTensor, Bias::kColumn, GemmActivation::kGeluTanh, false, auto_},
                     P{4200, 4200, 1040, Scaling::kRow, Bias::kNone, GemmActivation::kGeluErf, false, auto_}}) {
    Case x{c.m, c.n, c.k, DType::kE4M3, DType::kBF16, c.sc, c.bias, c.bias == Bias::kRow ? DType::kFP32 : DType::kBF16,
           c.act, /*fast_accum=*/true, c.d_col_major};
    x.schedule = c.schedule;
    cases.push_back(x);
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Fp8PingPong, GemmFp8Sweep, ::testing::ValuesIn(fp8_pingpong_cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::to_string(i.index) + "_" + name(i.param); });

// Which FP8 calls run ping-pong: the heuristic takes it for fast accumulation with two or
// more 128 x 128 tiles per SM, never with promotion (its registers hold no second fragment)
// or block scales; asked for by name without fast accumulation it is refused, naming the
// schedule, and nothing is written.
TEST(GemmFp8, PingPongOnlyWithFastAccumulation) {
  WARPSPEC_REQUIRE_HOPPER();
  const int64_t M = 4096, N = 4096, K = 256;
  test::DeviceBuffer da(M * K), db(N * K), dd(M * N * 2), dsa(4 * 64), dsb(4 * 64);
  CUDA_ASSERT(test::poison(dd));
  auto args = [&](bool fast, warpspec::GemmSchedule schedule) {
    GemmArgs g;
    g.a = TensorView::matrix(da.get(), DType::kE4M3, M, K, K);
    g.b = TensorView::matrix(db.get(), DType::kE4M3, K, N, K, false);
    g.d = TensorView::matrix(dd.get(), DType::kBF16, M, N, N);
    g.scale_a = vec(dsa, DType::kFP32, 1);
    g.scale_b = vec(dsb, DType::kFP32, 1);
    g.use_fast_accum = fast;
    g.schedule = schedule;
    return g;
  };
  std::string line;
  ASSERT_TRUE(warpspec::describe(args(true, warpspec::GemmSchedule::kHeuristic), &line).ok());
  EXPECT_NE(line.find("schedule=pingpong"), std::string::npos) << line;
  ASSERT_TRUE(warpspec::describe(args(false, warpspec::GemmSchedule::kHeuristic), &line).ok());
  EXPECT_EQ(line.find("schedule=pingpong"), std::string::npos) << line;
  ASSERT_TRUE(warpspec::describe(args(true, warpspec::GemmSchedule::kCooperative), &line).ok());
  EXPECT_EQ(line.find("schedule=pingpong"), std::string::npos) << line;
  // The heuristic's FP8 threshold, 1.8 tiles per SM (gemm.cpp pingpong_pays), on this device.
  int sms = 0;
  CUDA_ASSERT(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (int64_t rows : {int64_t(1920), int64_t(1536)}) {
    GemmArgs g = args(true, warpspec::GemmSchedule::kHeuristic);
    g.a = TensorView::matrix(da.get(), DType::kE4M3, rows, K, K);
    g.b = TensorView::matrix(db.get(), DType::kE4M3, K, 2048, K, false);
    g.d = TensorView::matrix(dd.get(), DType::kBF16, rows, 2048, 2048);
    const int64_t tiles = (rows / 128) * (2048 / 128);
    ASSERT_TRUE(warpspec::describe(g, &line).ok());
    EXPECT_EQ(line.find("schedule=pingpong") != std::string::npos, tiles * 5 >= int64_t(sms) * 9)
        << rows << " rows, " << sms << " SMs: " << line;
  }
  const warpspec::Status s = warpspec::gemm(args(false, warpspec::GemmSchedule::kPingPong));
  EXPECT_EQ(s.code(), warpspec::StatusCode::kUnsupported) << s.to_string();
  EXPECT_NE(s.message().find("schedule"), std::string::npos) << s.to_string();
  EXPECT_NE(s.message().find("use_fast_accum"), std::string::npos) << s.to_string();
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<uint8_t> hd = test::to_host<uint8_t>(dd, dd.bytes());
  for (uint8_t byte : hd) ASSERT_EQ(byte, 0xFF) << "a refused call wrote D";
}

// A NaN or Inf scale reaches the output as in torch._scaled_mm: a NaN tensor-wise scale
// makes every element NaN; an Inf row scale makes its row non-finite and no other.
TEST(GemmFp8, NanAndInfScalesPropagate) {
  WARPSPEC_REQUIRE_HOPPER();
  const int64_t M = 130, N = 136, K = 128;
  std::vector<uint8_t> ha(M * K), hb(N * K);
  for (size_t i = 0; i < ha.size(); ++i) quantise(DType::kE4M3, 0.5f + 0.25f * testbed::hash_uniform(7, i), ha.data(), i);
  for (size_t i = 0; i < hb.size(); ++i) quantise(DType::kE4M3, 0.5f + 0.25f * testbed::hash_uniform(8, i), hb.data(), i);
  std::vector<float> sa(M, 1.0f), sb(N, 1.0f);
  sa[77] = INFINITY;
  test::DeviceBuffer da = test::to_device(ha), db = test::to_device(hb), dsa = test::to_device(sa),
                     dsb = test::to_device(sb), dd(M * N * 2);
  GemmArgs g;
  g.a = TensorView::matrix(da.get(), DType::kE4M3, M, K, K);
  g.b = TensorView::matrix(db.get(), DType::kE4M3, K, N, K, false);
  g.d = TensorView::matrix(dd.get(), DType::kBF16, M, N, N);
  g.scale_a = vec(dsa, DType::kFP32, M);
  g.scale_b = vec(dsb, DType::kFP32, N);
  CUDA_ASSERT(test::poison(dd));
  ASSERT_TRUE(warpspec::gemm(g).ok());
  CUDA_ASSERT(cudaDeviceSynchronize());
  std::vector<uint8_t> hd = test::to_host<uint8_t>(dd, M * N * 2);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      const float v = testbed::load_float(DType::kBF16, hd.data(), i * N + j);
      if (i == 77) EXPECT_TRUE(std::isinf(v) && v > 0) << i << "," << j << ": " << v;  // inputs are positive
      else ASSERT_TRUE(std::isfinite(v)) << i << "," << j << ": " << v;
    }
  const float nan = NAN;
  CUDA_ASSERT(cudaMemcpy(dsb.get(), &nan, 4, cudaMemcpyHostToDevice));
  g.scale_a = vec(dsa, DType::kFP32, 1);  // tensor-wise: element 0 (1.0)
  g.scale_b = vec(dsb, DType::kFP32, 1);  // tensor-wise NaN
  CUDA_ASSERT(test::poison(dd));
  ASSERT_TRUE(warpspec::gemm(g).ok());
  CUDA_ASSERT(cudaDeviceSynchronize());
  hd = test::to_host<uint8_t>(dd, M * N * 2);
  for (int64_t i = 0; i < M * N; ++i) ASSERT_TRUE(std::isnan(testbed::load_float(DType::kBF16, hd.data(), i))) << i;
}

// What is not built is refused by name before anything launches, D left untouched:
// e5m2 x e5m2, an FP8 B with a 16-bit A, and the wide tile with mixed formats.
TEST(GemmFp8, UnbuiltFormatsRefusedByName) {
  WARPSPEC_REQUIRE_HOPPER();
  const int64_t M = 64, N = 64, K = 64;
  test::DeviceBuffer da(M * K * 2), db(N * K * 2), dd(M * N * 2);
  CUDA_ASSERT(test::poison(dd));
  auto args = [&](DType ta, DType tb, int tile_n) {
    GemmArgs g;
    g.a = TensorView::matrix(da.get(), ta, M, K, K);
    g.b = TensorView::matrix(db.get(), tb, K, N, K, false);
    g.d = TensorView::matrix(dd.get(), DType::kBF16, M, N, N);
    g.tile_n = tile_n;
    return g;
  };
  struct Refusal {
    DType a, b;
    int tile_n;
    const char* names;
  };
  for (const Refusal& r : {Refusal{DType::kE5M2, DType::kE5M2, 0, "e5m2 x e5m2"}, Refusal{DType::kBF16, DType::kE4M3, 0, "b.dtype"},
                           Refusal{DType::kE4M3, DType::kBF16, 0, "b.dtype"}, Refusal{DType::kE4M3, DType::kE5M2, 256, "tile_n"},
                           Refusal{DType::kE5M2, DType::kE4M3, 256, "tile_n"}}) {
    const warpspec::Status s = warpspec::gemm(args(r.a, r.b, r.tile_n));
    SCOPED_TRACE(std::string(warpspec::dtype_name(r.a)) + " x " + warpspec::dtype_name(r.b));
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find(r.names), std::string::npos) << s.to_string();
  }
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<uint8_t> hd = test::to_host<uint8_t>(dd, dd.bytes());
  for (uint8_t byte : hd) ASSERT_EQ(byte, 0xFF) << "a refused call wrote D";
  // And the pair that is built runs (no scales: the fused FP8 kernel with unit scales).
  EXPECT_TRUE(warpspec::gemm(args(DType::kE5M2, DType::kE4M3, 0)).ok());
  EXPECT_TRUE(warpspec::gemm(args(DType::kE4M3, DType::kE5M2, 128)).ok());
  CUDA_ASSERT(cudaDeviceSynchronize());
}

// An e4m3 D's amax counts D's elements only, not the tile's padding. Row 0 has a row bias of
// 1000 and products that pull every element of it below: A >= 0, B <= 0, so x(0, j) = 1000 +
// Σ a·b lies in (872, 1000). The 56 padding columns of the last column tile (N = 200) compute
// x = 1000 + 0 (B zero-filled past N): counted, amax would be exactly 1000. Then NaN: a NaN
// tensor-wise scale makes every x NaN, amax NaN and D e4m3 NaN; and a captured graph
// replayed after scale_result changes (read on the device) and with PDL: amax zeroed each time.
TEST(GemmFp8, E4m3OutputAmaxScaleAndNan) {
  WARPSPEC_REQUIRE_HOPPER();
  const int64_t M = 131, N = 200, K = 128;
  std::vector<uint8_t> ha(M * K), hb(N * K);
  std::vector<float> fa(M * K), fb(N * K);
  for (size_t i = 0; i < ha.size(); ++i) fa[i] = quantise(DType::kE4M3, 0.5f + 0.5f * testbed::hash_uniform(11, i), ha.data(), i);
  for (size_t i = 0; i < hb.size(); ++i) fb[i] = quantise(DType::kE4M3, -0.5f - 0.5f * testbed::hash_uniform(12, i), hb.data(), i);
  std::vector<float> bias(M, 0.0f), one(1, 1.0f), rs(1, 0.25f);
  bias[0] = 1000.0f;
  const int64_t ld = 208;  // N rounded up to 16 bytes (TMA's rule)
  test::DeviceBuffer da = test::to_device(ha), db = test::to_device(hb), dbias = test::to_device(bias),
                     dsa = test::to_device(one), drs = test::to_device(rs), dd(M * ld), damax(sizeof(float));
  GemmArgs g;
  g.a = TensorView::matrix(da.get(), DType::kE4M3, M, K, K);
  g.b = TensorView::matrix(db.get(), DType::kE4M3, K, N, K, false);
  g.d = TensorView::matrix(dd.get(), DType::kE4M3, M, N, ld);
  g.bias = vec(dbias, DType::kFP32, M);
  g.bias_per_row = true;
  g.scale_a = vec(dsa, DType::kFP32, 1);
  g.scale_result = vec(drs, DType::kFP32, 1);
  g.amax = vec(damax, DType::kFP32, 1);
  double want = 0;  // max |x| over D, in float64
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double dot = bias[size_t(i)];
      for (int64_t k = 0; k < K; ++k) dot += double(fa[i * K + k]) * double(fb[j * K + k]);
      want = std::max(want, std::fabs(dot));
    }
  ASSERT_LT(want, 999.0);
  auto amax = [&] {
    float v = 0;
    EXPECT_EQ(cudaMemcpy(&v, damax.get(), sizeof v, cudaMemcpyDeviceToHost), cudaSuccess);
    return v;
  };
  for (bool pdl : {false, true}) {
    g.pdl = pdl;
    CUDA_ASSERT(test::poison(damax));
    const warpspec::Status s = warpspec::gemm(g);
    ASSERT_TRUE(s.ok()) << s.to_string();
    CUDA_ASSERT(cudaDeviceSynchronize());
    EXPECT_NEAR(amax(), want, 1e-4 * want) << "pdl " << pdl;
  }
  g.pdl = false;
  // Row 0 of D: e4m3(0.25 · x), x in (872, 1000): the host's rounding within one step.
  std::vector<uint8_t> hd = test::to_host<uint8_t>(dd, M * ld);
  for (int64_t j = 0; j < N; ++j) {
    double x = 1000.0;
    for (int64_t k = 0; k < K; ++k) x += double(fa[k]) * double(fb[j * K + k]);
    const float got = testbed::load_float(DType::kE4M3, hd.data(), size_t(j));
    EXPECT_GE(got, float(__nv_fp8_e4m3(float(0.25 * x * (1 - 1e-5))))) << j;
    EXPECT_LE(got, float(__nv_fp8_e4m3(float(0.25 * x * (1 + 1e-5))))) << j;
  }

  // A captured graph reads scale_result at replay and zeroes amax each time.
  cudaStream_t stream;
  CUDA_ASSERT(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_ASSERT(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const warpspec::Status cs = warpspec::gemm(g, stream);
  CUDA_ASSERT(cudaStreamEndCapture(stream, &graph));
  ASSERT_TRUE(cs.ok()) << cs.to_string();
  CUDA_ASSERT(cudaGraphInstantiate(&exec, graph, 0));
  const float rs2 = 0.125f;
  CUDA_ASSERT(cudaMemcpy(drs.get(), &rs2, sizeof rs2, cudaMemcpyHostToDevice));
  CUDA_ASSERT(test::poison(damax));
  CUDA_ASSERT(test::poison(dd));
  CUDA_ASSERT(cudaGraphLaunch(exec, stream));
  CUDA_ASSERT(cudaStreamSynchronize(stream));
  EXPECT_NEAR(amax(), want, 1e-4 * want) << "graph replay";
  hd = test::to_host<uint8_t>(dd, M * ld);
  {
    double x = 1000.0;
    for (int64_t k = 0; k < K; ++k) x += double(fa[k]) * double(fb[k]);
    const float got = testbed::load_float(DType::kE4M3, hd.data(), 0);
    EXPECT_GE(got, float(__nv_fp8_e4m3(float(0.125 * x * (1 - 1e-5))))) << "replay read the new scale_result";
    EXPECT_LE(got, float(__nv_fp8_e4m3(float(0.125 * x * (1 + 1e-5))))) << "replay read the new scale_result";
  }
  CUDA_ASSERT(cudaGraphExecDestroy(exec));
  CUDA_ASSERT(cudaGraphDestroy(graph));
  CUDA_ASSERT(cudaStreamDestroy(stream));

  // NaN: every x NaN, so D is e4m3 NaN (0x7F or 0xFF) everywhere and amax NaN.
  const float nan = NAN;
  CUDA_ASSERT(cudaMemcpy(dsa.get(), &nan, sizeof nan, cudaMemcpyHostToDevice));
  CUDA_ASSERT(test::poison(damax));
  CUDA_ASSERT(cudaMemset(dd.get(), 0, M * ld));
  ASSERT_TRUE(warpspec::gemm(g).ok());
  CUDA_ASSERT(cudaDeviceSynchronize());
  EXPECT_TRUE(std::isnan(amax()));
  hd = test::to_host<uint8_t>(dd, M * ld);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < ld; ++j)  // the row padding stays untouched
      ASSERT_EQ(hd[size_t(i * ld + j)] & 0x7F, j < N ? 0x7F : 0x00) << i << "," << j;
}

// An e4m3 D is built for one kernel: what it is not built for is refused by name before
// anything launches (D and amax untouched), and scale_result / amax are refused with any
// other D.
TEST(GemmFp8, E4m3OutputRefusedByName) {
  WARPSPEC_REQUIRE_HOPPER();
  const int64_t M = 64, N = 64, K = 64;
  test::DeviceBuffer da(M * K * 2), db(N * K * 2), dc(M * N), dd(M * N * 4), dsc(16), damax(16), dbias(N * 4);
  CUDA_ASSERT(test::poison(dd));
  CUDA_ASSERT(test::poison(damax));
  auto args = [&] {
    GemmArgs g;
    g.a = TensorView::matrix(da.get(), DType::kE4M3, M, K, K);
    g.b = TensorView::matrix(db.get(), DType::kE4M3, K, N, K, false);
    g.d = TensorView::matrix(dd.get(), DType::kE4M3, M, N, N);
    g.amax = vec(damax, DType::kFP32, 1);
    return g;
  };
  struct Refusal {
    const char* what;
    GemmArgs g;
    const char* names;
  };
  std::vector<Refusal> refusals;
  auto add = [&](const char* what, const char* names, auto&& change) {
    GemmArgs g = args();
    change(g);
    refusals.push_back({what, g, names});
  };
  add("e4m3 x e5m2", "d.dtype", [&](GemmArgs& g) { g.b.dtype = DType::kE5M2; });
  add("bf16 in", "d.dtype", [&](GemmArgs& g) { g.a.dtype = g.b.dtype = DType::kBF16; });
  add("e5m2 D", "d.dtype", [&](GemmArgs& g) { g.d.dtype = DType::kE5M2; });
  add("beta", "beta", [&](GemmArgs& g) {
    g.beta = 1.0f;
    g.c = TensorView::matrix(dc.get(), DType::kE4M3, M, N, N);
  });
  add("tile_n 256", "tile_n", [&](GemmArgs& g) { g.tile_n = 256; });
  add("ping-pong", "schedule", [&](GemmArgs& g) {
    g.schedule = warpspec::GemmSchedule::kPingPong;
    g.use_fast_accum = true;
  });
  add("e4m3 bias", "bias.dtype", [&](GemmArgs& g) { g.bias = vec(dbias, DType::kE4M3, N); });
  add("amax bf16", "amax.dtype", [&](GemmArgs& g) { g.amax.dtype = DType::kBF16; });
  add("amax two", "amax.shape", [&](GemmArgs& g) { g.amax.shape[0] = 2; });
  add("scale_result two", "scale_result.shape", [&](GemmArgs& g) { g.scale_result = vec(dsc, DType::kFP32, 2); });
  add("amax overlaps scale_result", "amax", [&](GemmArgs& g) { g.scale_result = vec(damax, DType::kFP32, 1); });
  add("amax with a bf16 D", "amax", [&](GemmArgs& g) { g.d.dtype = DType::kBF16; });
  add("scale_result with a bf16 D", "scale_result", [&](GemmArgs& g) {
    g.d.dtype = DType::kBF16;
    g.amax = TensorView{};
    g.scale_result = vec(dsc, DType::kFP32, 1);
  });
  for (const Refusal& r : refusals) {
    SCOPED_TRACE(r.what);
    const warpspec::Status s = warpspec::gemm(r.g);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find(r.names), std::string::npos) << s.to_string();
  }
  CUDA_ASSERT(cudaDeviceSynchronize());
  for (uint8_t byte : test::to_host<uint8_t>(dd, dd.bytes())) ASSERT_EQ(byte, 0xFF) << "a refused call wrote D";
  for (uint8_t byte : test::to_host<uint8_t>(damax, 4)) ASSERT_EQ(byte, 0xFF) << "a refused call wrote amax";
  EXPECT_TRUE(warpspec::gemm(args()).ok());  // and the call as built runs
  CUDA_ASSERT(cudaDeviceSynchronize());
}

}  // namespace gemm_fp8_test
