// Hostile and edge input on the GPU: nothing is written outside an output's view
// (guard bands of poison around every output kind stay poison), zero extents give the
// defined results, NaN propagates instead of reading as "no key", and pointers that
// are not device memory of the current device are refused before any launch.
#include <cuda_bf16.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "common/gpu_test.hpp"
#include "testing/views.hpp"
#include "warpspec/warpspec.hpp"

namespace hostile_test {  // named: the C++ GPU test files are one unity translation unit

using warpspec::DType;
using warpspec::StatusCode;
using warpspec::TensorView;
namespace test = warpspec::test;

std::vector<__nv_bfloat16> random_bf16(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<__nv_bfloat16> v(n);
  for (auto& x : v) x = __float2bfloat16(dist(rng));
  return v;
}

float bf(const std::vector<uint8_t>& bytes, size_t i) {
  __nv_bfloat16 v;
  std::memcpy(&v, &bytes[2 * i], 2);
  return __bfloat162float(v);
}

// Indices (in elements of `elem` bytes) that a strided view covers.
std::vector<bool> covered(size_t total, const TensorView& v, const void* base) {
  std::vector<bool> in(total, false);
  const size_t e = warpspec::dtype_size(v.dtype);
  const int64_t off = (static_cast<const char*>(v.data) - static_cast<const char*>(base)) / int64_t(e);
  int64_t idx[4] = {0, 0, 0, 0};
  int64_t n = 1;
  for (int i = 0; i < v.rank; ++i) n *= v.shape[i];
  for (int64_t lin = 0; lin < n; ++lin) {
    int64_t rem = lin, pos = off;
    for (int i = v.rank - 1; i >= 0; --i) {
      idx[i] = rem % v.shape[i];
      rem /= v.shape[i];
      pos += idx[i] * v.stride[i];
    }
    in[size_t(pos)] = true;
  }
  return in;
}

// Every byte of `bytes` outside the view's elements is still 0xFF.
void expect_guard_intact(const std::vector<uint8_t>& bytes, const TensorView& v, const void* base, const char* what) {
  const size_t e = warpspec::dtype_size(v.dtype);
  const std::vector<bool> in = covered(bytes.size() / e, v, base);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i]) continue;
    for (size_t b = 0; b < e; ++b)
      if (bytes[i * e + b] != 0xFF) {
        if (bad++ == 0) first = i;
        break;
      }
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " elements outside the view were written, first at " << first;
}

// GEMM outputs (bf16 with a ragged row end, fp32, and a column-major D) inside a
// poisoned buffer with gaps between rows and bands before and after.
TEST(Hostile, GemmWritesNothingOutsideD) {
  WARPSPEC_REQUIRE_HOPPER();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  struct Shape {
    int64_t m, n, k, ld;
    DType out;
    bool row_major;
  };
  for (const Shape& c : {Shape{200, 301, 96, 320, DType::kBF16, true}, Shape{130, 72, 64, 88, DType::kFP32, true},
                         Shape{77, 150, 80, 96, DType::kBF16, false}}) {
    SCOPED_TRACE("m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) + " ld=" + std::to_string(c.ld));
    const auto a = random_bf16(size_t(c.m * c.k), seed);
    const auto b = random_bf16(size_t(c.k * c.n), seed + 1);
    test::DeviceBuffer da = test::to_device(a), db = test::to_device(b);
    const int64_t outer = c.row_major ? c.m : c.n;
    const size_t e = warpspec::dtype_size(c.out);
    const int64_t band = 64;  // elements of poison before and after the view
    test::DeviceBuffer out(size_t(2 * band + outer * c.ld) * e);
    CUDA_ASSERT(test::poison(out));
    warpspec::GemmArgs g;
    g.a = TensorView::matrix(da.get(), DType::kBF16, c.m, c.k, c.k);
    g.b = TensorView::matrix(db.get(), DType::kBF16, c.k, c.n, c.k, /*row_major=*/false);  // K-major: ld = K
    g.d = TensorView::matrix(out.as<char>() + band * e, c.out, c.m, c.n, c.ld, c.row_major);
    const warpspec::Status s = warpspec::gemm(g);
    ASSERT_TRUE(s.ok()) << s.to_string();
    CUDA_ASSERT(cudaDeviceSynchronize());
    const auto bytes = test::to_host<uint8_t>(out, out.bytes());
    expect_guard_intact(bytes, g.d, out.get(), "D");
  }
}

// N next to 2^31 with a ragged row end (N odd, rows 2^31 apart): the last chunk's edge
// test once summed in int32 and wrapped, and the store went one element past the row.
// Every column of both rows is written (A and B are constant, so every element is the
// same number), and the gap after each row and the band after D stay poison. Needs
// ~41 GiB free (B alone is 2^31 x 8 bf16 = 32 GiB); skipped on a smaller GPU.
TEST(Hostile, GemmNextToInt32LimitWritesNothingPastD) {
  WARPSPEC_REQUIRE_HOPPER();
  const int64_t M = 2, N = (int64_t(1) << 31) - 3, K = 8, ld = int64_t(1) << 31, band = 4096;
  const size_t b_bytes = size_t(N * K) * 2, d_bytes = size_t(M * ld + band) * 2;
  size_t free_bytes = 0, total = 0;
  CUDA_ASSERT(cudaMemGetInfo(&free_bytes, &total));
  if (free_bytes < b_bytes + d_bytes + (size_t(1) << 30)) GTEST_SKIP() << "needs " << ((b_bytes + d_bytes) >> 30) << " GiB free";
  test::DeviceBuffer a(size_t(M * K) * 2), b(b_bytes), d(d_bytes);
  ASSERT_TRUE(a.get() && b.get() && d.get());
  CUDA_ASSERT(cudaMemset(a.get(), 0x3F, a.bytes()));  // every bf16 is 0x3F3F = 0.74609375
  CUDA_ASSERT(cudaMemset(b.get(), 0x3F, b.bytes()));
  CUDA_ASSERT(test::poison(d));
  warpspec::GemmArgs g;
  g.a = TensorView::matrix(a.get(), DType::kBF16, M, K, K);
  g.b = TensorView::matrix(b.get(), DType::kBF16, K, N, K, /*row_major=*/false);  // K-major
  g.d = TensorView::matrix(d.get(), DType::kBF16, M, N, ld);
  const warpspec::Status s = warpspec::gemm(g);
  ASSERT_TRUE(s.ok()) << s.to_string();
  CUDA_ASSERT(cudaDeviceSynchronize());
  __nv_bfloat16 x;
  const uint16_t bits = 0x3F3F;
  std::memcpy(&x, &bits, 2);
  const float want = __bfloat162float(__float2bfloat16(float(K) * __bfloat162float(x) * __bfloat162float(x)));
  // Each row's first and last 2^20 columns, the row's gap, and (after row 1) the band.
  const int64_t span = int64_t(1) << 20;
  for (int64_t r = 0; r < M; ++r) {
    for (int64_t start : {int64_t(0), N - span}) {
      const int64_t extra = start == 0 ? 0 : (r + 1 < M ? ld - N : ld - N + band);
      std::vector<uint16_t> h(size_t(span + extra));
      CUDA_ASSERT(cudaMemcpy(h.data(), d.as<uint16_t>() + r * ld + start, h.size() * 2, cudaMemcpyDeviceToHost));
      int64_t wrong = 0, first_wrong = -1, written = 0, first_written = -1;
      for (int64_t i = 0; i < span; ++i) {
        __nv_bfloat16 v;
        std::memcpy(&v, &h[size_t(i)], 2);
        if (__bfloat162float(v) != want && wrong++ == 0) first_wrong = start + i;
      }
      for (int64_t i = span; i < span + extra; ++i)
        if (h[size_t(i)] != 0xFFFF && written++ == 0) first_written = start + i;
      EXPECT_EQ(wrong, 0) << "row " << r << ": " << wrong << " columns not " << want << ", first " << first_wrong;
      EXPECT_EQ(written, 0) << "row " << r << ": " << written << " elements past the row's end written, first at column "
                            << first_written << " (N = " << N << ")";
    }
  }
}

// Runs g (K = 0, D bf16 in dd) and expects D = beta·C exactly: alpha·0 + beta·c rounded once
// to bf16, zeros with beta 0 (C is then not read).
void expect_beta_c(const warpspec::GemmArgs& g, const test::DeviceBuffer& dd, const std::vector<__nv_bfloat16>& c) {
  const warpspec::Status s = warpspec::gemm(g);
  ASSERT_TRUE(s.ok()) << s.to_string();
  CUDA_ASSERT(cudaDeviceSynchronize());
  const auto got = test::to_host<uint8_t>(dd, dd.bytes());
  size_t bad = 0;
  for (size_t i = 0; i < size_t(g.d.shape[0] * g.d.shape[1]); ++i) {
    const float want = __bfloat162float(__float2bfloat16(g.beta * __bfloat162float(c[i])));
    if (!(bf(got, i) == want)) ++bad;
  }
  EXPECT_EQ(bad, 0u) << "elements of D differing from beta*C";
}

// K = 0: D = beta·C exactly (alpha·0 + beta·c, one rounding), and zeros with beta 0; on
// the library's tile and on a narrow one (D^T, stored from registers).
TEST(Hostile, GemmWithKZeroIsBetaC) {
  WARPSPEC_REQUIRE_HOPPER();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int64_t M = 190, N = 136;
  const auto c = random_bf16(size_t(M * N), seed);
  test::DeviceBuffer dc = test::to_device(c), dd(size_t(M * N) * 2);
  for (int tile_n : {0, 16})
  for (float beta : {0.0f, 0.5f, -3.0f}) {
    SCOPED_TRACE("beta " + std::to_string(beta) + " tile_n " + std::to_string(tile_n));
    CUDA_ASSERT(test::poison(dd));
    warpspec::GemmArgs g;
    g.a = TensorView::matrix(nullptr, DType::kBF16, M, 0, 0);
    g.b = TensorView::matrix(nullptr, DType::kBF16, 0, N, N);
    g.c = TensorView::matrix(dc.get(), DType::kBF16, M, N, N);
    g.d = TensorView::matrix(dd.get(), DType::kBF16, M, N, N);
    g.alpha = 2.0f;
    g.beta = beta;
    g.tile_n = tile_n;
    expect_beta_c(g, dd, c);
  }
}

// K = 0 on the ping-pong schedule (K-major B): each warpgroup's tiles are beta·C (zero with
// beta 0), stored through its own epilogue and, with C, read through its own ring of C
// chunks; with more tiles than SMs both warpgroups take turns.
TEST(Hostile, GemmWithKZeroOnPingPongIsBetaC) {
  WARPSPEC_REQUIRE_HOPPER();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto [M, N] : {std::pair<int64_t, int64_t>{190, 136}, {2304, 4352}})
    for (float beta : {0.0f, 0.5f, -3.0f}) {
      SCOPED_TRACE(std::to_string(M) + " x " + std::to_string(N) + " beta " + std::to_string(beta));
      const auto c = random_bf16(size_t(M * N), seed + uint64_t(M));
      test::DeviceBuffer dc = test::to_device(c), dd(size_t(M * N) * 2);
      CUDA_ASSERT(test::poison(dd));
      warpspec::GemmArgs g;
      g.a = TensorView::matrix(nullptr, DType::kBF16, M, 0, 8);
      g.b = TensorView::matrix(nullptr, DType::kBF16, 0, N, 8, /*row_major=*/false);
      if (beta != 0.0f) g.c = TensorView::matrix(dc.get(), DType::kBF16, M, N, N);
      g.d = TensorView::matrix(dd.get(), DType::kBF16, M, N, N);
      g.alpha = 2.0f;
      g.beta = beta;
      g.schedule = warpspec::GemmSchedule::kPingPong;
      std::string line;
      ASSERT_TRUE(warpspec::describe(g, &line).ok());
      EXPECT_NE(line.find("schedule=pingpong"), std::string::npos) << line;
      expect_beta_c(g, dd, c);
    }
}

// An empty output (M = 0) launches nothing: the buffer behind it stays poison.
TEST(Hostile, GemmWithEmptyOutputWritesNothing) {
  WARPSPEC_REQUIRE_HOPPER();
  test::DeviceBuffer buf(4096);
  CUDA_ASSERT(test::poison(buf));
  warpspec::GemmArgs g;
  g.a = TensorView::matrix(buf.get(), DType::kBF16, 0, 64, 64);
  g.b = TensorView::matrix(buf.as<char>() + 1024, DType::kBF16, 64, 8, 8);
  g.d = TensorView::matrix(buf.as<char>() + 2048, DType::kBF16, 0, 8, 8);
  const warpspec::Status s = warpspec::gemm(g);
  ASSERT_TRUE(s.ok()) << s.to_string();
  CUDA_ASSERT(cudaDeviceSynchronize());
  const auto bytes = test::to_host<uint8_t>(buf, buf.bytes());
  for (size_t i = 0; i < bytes.size(); ++i) ASSERT_EQ(bytes[i], 0xFF) << "byte " << i;
}

// bf16 (b, s, h, d); `head_stride` elements between heads (d when 0).
TensorView bshd(void* data, int64_t b, int64_t s, int64_t h, int64_t d, int64_t head_stride = 0) {
  const int64_t hs = head_stride ? head_stride : d;
  return warpspec::testbed::bshd_view(data, DType::kBF16, b, s, h, d, s * h * hs, h * hs, hs);
}

// O with gaps between heads (head dim 40 run padded on the 64 kernel, rows 48 apart)
// and a strided LSE, each inside poison: only their elements change.
TEST(Hostile, AttentionWritesNothingOutsideOAndLse) {
  WARPSPEC_REQUIRE_HOPPER();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int64_t B = 2, SQ = 150, SK = 333, H = 4, HKV = 2, D = 40, OS = 48;
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "full");
    const auto q = random_bf16(size_t(B * SQ * H * D), seed);
    const auto k = random_bf16(size_t(B * SK * HKV * D), seed + 1);
    const auto v = random_bf16(size_t(B * SK * HKV * D), seed + 2);
    test::DeviceBuffer dq = test::to_device(q), dk = test::to_device(k), dv = test::to_device(v);
    const int64_t band = 64;
    test::DeviceBuffer o(size_t(2 * band + B * SQ * H * OS) * 2), lse(size_t(2 * band + B * H * SQ * 3) * 4);
    CUDA_ASSERT(test::poison(o));
    CUDA_ASSERT(test::poison(lse));
    warpspec::AttentionArgs at;
    at.q = bshd(dq.get(), B, SQ, H, D);
    at.k = bshd(dk.get(), B, SK, HKV, D);
    at.v = bshd(dv.get(), B, SK, HKV, D);
    at.o = bshd(o.as<char>() + band * 2, B, SQ, H, D, OS);
    at.lse = warpspec::testbed::lse_view(reinterpret_cast<float*>(lse.as<char>() + band * 4), B, H, SQ, H * SQ * 3,
                                         SQ * 3, 3);  // every third float
    at.causal = causal;
    const warpspec::Status s = warpspec::attention_forward(at);
    ASSERT_TRUE(s.ok()) << s.to_string();
    CUDA_ASSERT(cudaDeviceSynchronize());
    expect_guard_intact(test::to_host<uint8_t>(o, o.bytes()), at.o, o.get(), "O");
    expect_guard_intact(test::to_host<uint8_t>(lse, lse.bytes()), at.lse, lse.get(), "LSE");
  }
}

// seqlen_k = 0: O = 0 and LSE = −inf everywhere (FlashAttention's and SDPA's answer).
TEST(Hostile, AttentionWithNoKeysIsZeroWithMinusInfLse) {
  WARPSPEC_REQUIRE_HOPPER();
  const int64_t B = 2, SQ = 200, H = 3, D = 128;
  const auto q = random_bf16(size_t(B * SQ * H * D), test::fresh_seed());
  test::DeviceBuffer dq = test::to_device(q), o(size_t(B * SQ * H * D) * 2), lse(size_t(B * H * SQ) * 4);
  for (bool causal : {false, true}) {
    CUDA_ASSERT(test::poison(o));
    CUDA_ASSERT(test::poison(lse));
    warpspec::AttentionArgs at;
    at.q = bshd(dq.get(), B, SQ, H, D);
    at.k = bshd(nullptr, B, 0, 1, D);
    at.v = bshd(nullptr, B, 0, 1, D);
    at.o = bshd(o.get(), B, SQ, H, D);
    at.lse = warpspec::testbed::lse_contiguous(lse.as<float>(), B, H, SQ);
    at.causal = causal;
    const warpspec::Status s = warpspec::attention_forward(at);
    ASSERT_TRUE(s.ok()) << s.to_string();
    CUDA_ASSERT(cudaDeviceSynchronize());
    const auto ob = test::to_host<uint8_t>(o, o.bytes());
    const auto lb = test::to_host<float>(lse, size_t(B * H * SQ));
    for (size_t i = 0; i < size_t(B * SQ * H * D); ++i) ASSERT_EQ(bf(ob, i), 0.0f) << "O element " << i;
    for (size_t i = 0; i < lb.size(); ++i) ASSERT_TRUE(std::isinf(lb[i]) && lb[i] < 0) << "LSE " << i << " = " << lb[i];
  }
}

// A NaN in one query row makes that row's O and LSE NaN; other rows stay finite. A
// NaN row must never read as "saw no key" (O = 0, LSE = −inf): merging LSEs would
// then give it zero weight.
TEST(Hostile, AttentionNanPropagates) {
  WARPSPEC_REQUIRE_HOPPER();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int64_t B = 1, S = 300, H = 2, D = 64, kRow = 137, kHead = 1;
  auto q = random_bf16(size_t(B * S * H * D), seed);
  q[size_t((kRow * H + kHead) * D + 5)] = __float2bfloat16(NAN);
  const auto k = random_bf16(size_t(B * S * H * D), seed + 1);
  const auto v = random_bf16(size_t(B * S * H * D), seed + 2);
  test::DeviceBuffer dq = test::to_device(q), dk = test::to_device(k), dv = test::to_device(v),
                     o(size_t(B * S * H * D) * 2), lse(size_t(B * H * S) * 4);
  CUDA_ASSERT(test::poison(o));
  CUDA_ASSERT(test::poison(lse));
  warpspec::AttentionArgs at;
  at.q = bshd(dq.get(), B, S, H, D);
  at.k = bshd(dk.get(), B, S, H, D);
  at.v = bshd(dv.get(), B, S, H, D);
  at.o = bshd(o.get(), B, S, H, D);
  at.lse = warpspec::testbed::lse_contiguous(lse.as<float>(), B, H, S);
  const warpspec::Status s = warpspec::attention_forward(at);
  ASSERT_TRUE(s.ok()) << s.to_string();
  CUDA_ASSERT(cudaDeviceSynchronize());
  const auto ob = test::to_host<uint8_t>(o, o.bytes());
  const auto lb = test::to_host<float>(lse, size_t(B * H * S));
  for (int64_t h = 0; h < H; ++h)
    for (int64_t r = 0; r < S; ++r) {
      const bool nan_row = h == kHead && r == kRow;
      const float l = lb[size_t(h * S + r)];
      EXPECT_EQ(std::isnan(l), nan_row) << "LSE row " << r << " head " << h << " = " << l;
      if (!nan_row) EXPECT_TRUE(std::isfinite(l)) << "row " << r << " head " << h;
      for (int64_t d = 0; d < D; d += 9) {
        const float x = bf(ob, size_t((r * H + h) * D + d));
        EXPECT_EQ(std::isnan(x), nan_row) << "O row " << r << " head " << h << " col " << d;
      }
    }
}

// Pointers the device cannot address are refused before anything is launched: pinned
// and pageable host memory (a kernel touching them would kill the context).
TEST(Hostile, HostPointersAreRefused) {
  WARPSPEC_REQUIRE_HOPPER();
  test::DeviceBuffer a(64 * 64 * 2), b(64 * 64 * 2);
  std::vector<__nv_bfloat16> pageable(64 * 64 + 16);
  void* pageable_aligned = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(pageable.data()) + 15) & ~uintptr_t(15));
  void* pinned = nullptr;
  CUDA_ASSERT(cudaMallocHost(&pinned, 64 * 64 * 2));
  for (void* host : {pageable_aligned, pinned}) {
    warpspec::GemmArgs g;
    g.a = TensorView::matrix(a.get(), DType::kBF16, 64, 64, 64);
    g.b = TensorView::matrix(b.get(), DType::kBF16, 64, 64, 64);
    g.d = TensorView::matrix(host, DType::kBF16, 64, 64, 64);
    const warpspec::Status s = warpspec::gemm(g);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
    EXPECT_NE(s.message().find("d.data"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("host memory"), std::string::npos) << s.message();
    test::DeviceBuffer o(32 * 128 * 2);
    warpspec::AttentionArgs at;
    at.q = bshd(host, 1, 32, 1, 128);
    at.k = bshd(a.get(), 1, 32, 1, 128);
    at.v = bshd(b.get(), 1, 32, 1, 128);
    at.o = bshd(o.get(), 1, 32, 1, 128);
    const warpspec::Status t = warpspec::attention_forward(at);
    EXPECT_EQ(t.code(), StatusCode::kInvalidArgument) << t.to_string();
    EXPECT_NE(t.message().find("q.data"), std::string::npos) << t.message();
  }
  CUDA_ASSERT(cudaDeviceSynchronize());
  CUDA_ASSERT(cudaFreeHost(pinned));
}

}  // namespace hostile_test
