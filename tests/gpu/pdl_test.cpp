// Programmatic dependent launch (GemmArgs::pdl, AttentionArgs::pdl): chains of
// dependent launches on one stream, each allowed to start during its predecessor's
// tail, must give bit for bit what the same chain gives with a host synchronisation
// between launches. Each chain has a read-after-write (a kernel reads what the
// previous one wrote) and a write-after-read (a kernel overwrites what the previous
// one was reading): the two hazards griddepcontrol.wait guards. Problems are large
// enough that a kernel's tail and the next one's start overlap, and every chain runs
// several times with its outputs poisoned in the stream first.
#include <cuda_bf16.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "common/gpu_test.hpp"
#include "testing/views.hpp"
#include "warpspec/warpspec.hpp"

namespace pdl_test {  // named: the C++ GPU test files are one unity translation unit

using warpspec::DType;
using warpspec::TensorView;
namespace test = warpspec::test;

constexpr int kRepeats = 4;

std::vector<__nv_bfloat16> random_bf16(size_t n, uint64_t seed, float scale) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<__nv_bfloat16> v(n);
  for (auto& x : v) x = __float2bfloat16(dist(rng));
  return v;
}

TensorView matrix(const test::DeviceBuffer& b, int64_t rows, int64_t cols) {
  return TensorView::matrix(b.get(), DType::kBF16, rows, cols, cols);
}

TensorView bshd(const test::DeviceBuffer& b, int64_t batch, int64_t s, int64_t h, int64_t d) {
  return warpspec::testbed::bshd_contiguous(b.get(), DType::kBF16, batch, s, h, d);
}

std::vector<uint8_t> bytes_of(const test::DeviceBuffer& b) { return test::to_host<uint8_t>(b, b.bytes()); }

bool has_nan_bf16(const std::vector<uint8_t>& bytes) {
  for (size_t i = 0; i + 1 < bytes.size(); i += 2) {
    __nv_bfloat16 v;
    std::memcpy(&v, &bytes[i], 2);
    if (std::isnan(__bfloat162float(v))) return true;
  }
  return false;
}

// A chain's steps; `sync_between` puts a host synchronisation after each launch (the
// reference), otherwise the launches are queued back to back with `pdl`.
using Step = std::function<warpspec::Status(bool pdl)>;

void run_chain(const std::vector<Step>& steps, bool pdl, bool sync_between) {
  for (const Step& s : steps) {
    const warpspec::Status st = s(pdl);
    ASSERT_TRUE(st.ok()) << st.to_string();
    if (sync_between) CUDA_ASSERT(cudaDeviceSynchronize());
  }
  CUDA_ASSERT(cudaDeviceSynchronize());
}

// GEMM -> GEMM: D1 = A·B, then A = D1·B2 (reads D1: RAW; overwrites A while the first
// GEMM may still read it: WAR), then D3 = A·B (reads the new A: RAW).
TEST(Pdl, GemmChainMatchesSerialised) {
  WARPSPEC_REQUIRE_HOPPER();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int64_t M = 2048, N = 2048, K = 2048;
  test::DeviceBuffer a(M * K * 2), b(K * N * 2), b2(N * K * 2), d1(M * N * 2), d3(M * N * 2);
  const auto a_host = random_bf16(M * K, seed, 1.0f);
  const auto b_host = random_bf16(K * N, seed + 1, 0.03f);
  const auto b2_host = random_bf16(N * K, seed + 2, 0.03f);
  CUDA_ASSERT(cudaMemcpy(b.get(), b_host.data(), b.bytes(), cudaMemcpyHostToDevice));
  CUDA_ASSERT(cudaMemcpy(b2.get(), b2_host.data(), b2.bytes(), cudaMemcpyHostToDevice));
  auto gemm = [](const test::DeviceBuffer& x, const test::DeviceBuffer& y, const test::DeviceBuffer& out, int64_t m,
                 int64_t n, int64_t k) {
    return [&x, &y, &out, m, n, k](bool pdl) {
      warpspec::GemmArgs g;
      g.a = matrix(x, m, k);
      g.b = matrix(y, k, n);
      g.d = matrix(out, m, n);
      g.pdl = pdl;
      return warpspec::gemm(g);
    };
  };
  const std::vector<Step> chain = {gemm(a, b, d1, M, N, K), gemm(d1, b2, a, M, K, N), gemm(a, b, d3, M, N, K)};
  auto reset = [&] {
    CUDA_ASSERT(cudaMemcpy(a.get(), a_host.data(), a.bytes(), cudaMemcpyHostToDevice));
    CUDA_ASSERT(test::poison(d1));
    CUDA_ASSERT(test::poison(d3));
  };
  reset();
  run_chain(chain, false, true);
  const auto want_a = bytes_of(a), want_d1 = bytes_of(d1), want_d3 = bytes_of(d3);
  ASSERT_FALSE(has_nan_bf16(want_d3)) << "the serialised chain left poison in D3";
  for (int r = 0; r < kRepeats; ++r) {
    SCOPED_TRACE("repeat " + std::to_string(r));
    reset();
    run_chain(chain, true, false);
    EXPECT_TRUE(bytes_of(d1) == want_d1) << "D1 differs from the serialised chain";
    EXPECT_TRUE(bytes_of(a) == want_a) << "A (rewritten by the second GEMM) differs";
    EXPECT_TRUE(bytes_of(d3) == want_d3) << "D3 differs from the serialised chain";
  }
}

// GEMM -> attention -> attention: q = X·W (RAW into attention), o = attn(q, k, v),
// then q = attn(o, k, v) (reads o: RAW; overwrites q, which the first attention may
// still read: WAR).
TEST(Pdl, GemmAttentionChainMatchesSerialised) {
  WARPSPEC_REQUIRE_HOPPER();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int64_t B = 2, S = 2048, H = 8, D = 128;
  const int64_t rows = B * S * H;  // q as a (rows, D) matrix
  test::DeviceBuffer x(rows * D * 2), w(D * D * 2), q(rows * D * 2), k(rows * D * 2), v(rows * D * 2),
      o(rows * D * 2);
  const auto x_host = random_bf16(rows * D, seed, 1.0f);
  const auto w_host = random_bf16(D * D, seed + 1, 0.09f);
  const auto k_host = random_bf16(rows * D, seed + 2, 1.0f);
  const auto v_host = random_bf16(rows * D, seed + 3, 1.0f);
  CUDA_ASSERT(cudaMemcpy(x.get(), x_host.data(), x.bytes(), cudaMemcpyHostToDevice));
  CUDA_ASSERT(cudaMemcpy(w.get(), w_host.data(), w.bytes(), cudaMemcpyHostToDevice));
  CUDA_ASSERT(cudaMemcpy(k.get(), k_host.data(), k.bytes(), cudaMemcpyHostToDevice));
  CUDA_ASSERT(cudaMemcpy(v.get(), v_host.data(), v.bytes(), cudaMemcpyHostToDevice));
  auto attention = [&](const test::DeviceBuffer& in, const test::DeviceBuffer& out, bool causal) {
    return [&, causal](bool pdl) {
      warpspec::AttentionArgs at;
      at.q = bshd(in, B, S, H, D);
      at.k = bshd(k, B, S, H, D);
      at.v = bshd(v, B, S, H, D);
      at.o = bshd(out, B, S, H, D);
      at.causal = causal;
      at.pdl = pdl;
      return warpspec::attention_forward(at);
    };
  };
  const std::vector<Step> chain = {
      [&](bool pdl) {
        warpspec::GemmArgs g;
        g.a = matrix(x, rows, D);
        g.b = matrix(w, D, D);
        g.d = matrix(q, rows, D);
        g.pdl = pdl;
        return warpspec::gemm(g);
      },
      attention(q, o, false), attention(o, q, true)};
  auto reset = [&] {
    CUDA_ASSERT(test::poison(q));
    CUDA_ASSERT(test::poison(o));
  };
  reset();
  run_chain(chain, false, true);
  const auto want_q = bytes_of(q), want_o = bytes_of(o);
  ASSERT_FALSE(has_nan_bf16(want_o) || has_nan_bf16(want_q)) << "the serialised chain left poison";
  for (int r = 0; r < kRepeats; ++r) {
    SCOPED_TRACE("repeat " + std::to_string(r));
    reset();
    run_chain(chain, true, false);
    EXPECT_TRUE(bytes_of(o) == want_o) << "o differs from the serialised chain";
    EXPECT_TRUE(bytes_of(q) == want_q) << "q (rewritten by the second attention) differs";
  }
}

}  // namespace pdl_test
