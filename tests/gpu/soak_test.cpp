// Soak: many mixed GEMM and attention launches from several host threads, each on its
// own stream, every output compared bit for bit with the same case run alone on one
// thread first. Catches state shared between calls or threads (cached opt-ins, tensor
// map encoding, the device cache, the C++ API's statics), and races between streams.
//
// WARPSPEC_SOAK_LAUNCHES sets the total number of launches (default 4000; the issue's
// soak is 100000), WARPSPEC_SOAK_THREADS the host threads (default 8).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/gpu_test.hpp"
#include "src/common/workspace.hpp"
#include "testing/views.hpp"
#include "warpspec/warpspec.hpp"

namespace soak_test {  // named: the C++ GPU test files are one unity translation unit

using warpspec::DType;
using warpspec::TensorView;
namespace test = warpspec::test;

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

std::vector<uint16_t> random_16bit(size_t n, DType t, std::mt19937_64& rng) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<uint16_t> v(n);
  for (auto& x : v) {
    const float f = dist(rng);
    if (t == DType::kBF16) {
      const __nv_bfloat16 b = __float2bfloat16(f);
      std::memcpy(&x, &b, 2);
    } else {
      const __half h = __float2half(f);
      std::memcpy(&x, &h, 2);
    }
  }
  return v;
}

using warpspec::testbed::bshd_contiguous;
using warpspec::testbed::lse_contiguous;

// One problem: inputs on the device (read-only, shared by every thread), and a
// function that runs it into a given output buffer on a given stream.
struct Case {
  std::string what;
  size_t out_bytes = 0;
  std::vector<test::DeviceBuffer> inputs;
  std::function<warpspec::Status(void* out, cudaStream_t)> run;
};

std::vector<Case> make_cases(uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::initializer_list<int64_t> xs) { return *(xs.begin() + rng() % xs.size()); };
  std::vector<Case> cases{size_t(count)};
  for (int i = 0; i < count; ++i) {
    Case& c = cases[size_t(i)];
    const DType t = rng() % 2 ? DType::kBF16 : DType::kFP16;
    if (i % 2 == 0) {
      const int64_t m = pick({1, 64, 127, 200, 333}), n = pick({8, 64, 136, 264, 520}), k = pick({8, 64, 72, 192});
      const bool fp32_out = rng() % 3 == 0, with_c = rng() % 3 == 0;
      const DType out = fp32_out ? DType::kFP32 : t;
      c.inputs.emplace_back(test::to_device(random_16bit(size_t(m * k), t, rng)));
      c.inputs.emplace_back(test::to_device(random_16bit(size_t(k * n), t, rng)));
      if (with_c) {
        if (fp32_out) {
          std::vector<float> cc(size_t(m * n));
          std::normal_distribution<float> d(0.0f, 1.0f);
          for (auto& x : cc) x = d(rng);
          c.inputs.emplace_back(test::to_device(cc));
        } else {
          c.inputs.emplace_back(test::to_device(random_16bit(size_t(m * n), t, rng)));
        }
      }
      c.out_bytes = size_t(m * n) * warpspec::dtype_size(out);
      c.what = "gemm " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
      void* a = c.inputs[0].get();
      void* b = c.inputs[1].get();
      void* cin = with_c ? c.inputs[2].get() : nullptr;
      const bool b_k_major = rng() % 2;
      c.run = [=](void* d, cudaStream_t s) {
        warpspec::GemmArgs g;
        g.a = TensorView::matrix(a, t, m, k, k);
        g.b = b_k_major ? TensorView::matrix(b, t, k, n, k, false) : TensorView::matrix(b, t, k, n, n);
        g.d = TensorView::matrix(d, out, m, n, n);
        if (cin) {
          g.c = TensorView::matrix(cin, out, m, n, n);
          g.beta = 0.75f;
        }
        g.alpha = 1.25f;
        return warpspec::gemm(g, s);
      };
    } else {
      const int64_t b = pick({1, 2}), sq = pick({1, 77, 128, 300}), sk = pick({1, 64, 129, 300});
      const int64_t hkv = pick({1, 2}), h = hkv * pick({1, 2}), d = pick({64, 96, 128});
      const bool causal = rng() % 2;
      c.inputs.emplace_back(test::to_device(random_16bit(size_t(b * sq * h * d), t, rng)));
      c.inputs.emplace_back(test::to_device(random_16bit(size_t(b * sk * hkv * d), t, rng)));
      c.inputs.emplace_back(test::to_device(random_16bit(size_t(b * sk * hkv * d), t, rng)));
      const size_t o_bytes = size_t(b * sq * h * d) * 2;
      c.out_bytes = o_bytes + size_t(b * h * sq) * 4;  // O, then LSE
      c.what = "attention b" + std::to_string(b) + " sq" + std::to_string(sq) + " sk" + std::to_string(sk) + " d" +
               std::to_string(d) + (causal ? " causal" : "");
      void* q = c.inputs[0].get();
      void* kk = c.inputs[1].get();
      void* v = c.inputs[2].get();
      c.run = [=](void* out, cudaStream_t s) {
        warpspec::AttentionArgs at;
        at.q = bshd_contiguous(q, t, b, sq, h, d);
        at.k = bshd_contiguous(kk, t, b, sk, hkv, d);
        at.v = bshd_contiguous(v, t, b, sk, hkv, d);
        at.o = bshd_contiguous(out, t, b, sq, h, d);
        at.lse = lse_contiguous(reinterpret_cast<float*>(static_cast<char*>(out) + o_bytes), b, h, sq);
        at.causal = causal;
        return warpspec::attention_forward(at, s);
      };
    }
  }
  return cases;
}

TEST(Soak, ThreadsAndStreamsMatchSingleThreadedRunsBitwise) {
  WARPSPEC_REQUIRE_HOPPER();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int launches = env_int("WARPSPEC_SOAK_LAUNCHES", 4000);
  const int threads = env_int("WARPSPEC_SOAK_THREADS", 8);
  std::vector<Case> cases = make_cases(seed, 24);

  // References: each case alone, on the legacy stream, from this thread.
  std::vector<std::vector<uint8_t>> want(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    test::DeviceBuffer out(cases[i].out_bytes);
    CUDA_ASSERT(test::poison(out));
    const warpspec::Status s = cases[i].run(out.get(), nullptr);
    ASSERT_TRUE(s.ok()) << cases[i].what << ": " << s.to_string();
    CUDA_ASSERT(cudaDeviceSynchronize());
    want[i] = test::to_host<uint8_t>(out, out.bytes());
  }

  std::atomic<int> mismatches{0}, errors{0}, done{0};
  std::vector<std::string> first_problem{size_t(threads)};
  auto worker = [&](int tid) {
    cudaStream_t stream;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
      ++errors;
      return;
    }
    std::mt19937_64 rng(seed ^ (0x9E3779B97F4A7C15ull * uint64_t(tid + 1)));
    std::vector<test::DeviceBuffer> outs;
    for (const Case& c : cases) outs.emplace_back(c.out_bytes);
    std::vector<uint8_t> host;
    const int mine = launches / threads + (tid < launches % threads ? 1 : 0);
    for (int n = 0; n < mine; ++n) {
      const size_t i = rng() % cases.size();
      cudaMemsetAsync(outs[i].get(), 0xFF, outs[i].bytes(), stream);
      const warpspec::Status s = cases[i].run(outs[i].get(), stream);
      if (!s.ok()) {
        if (errors++ == 0) first_problem[size_t(tid)] = cases[i].what + ": " + s.to_string();
        continue;
      }
      host.resize(outs[i].bytes());
      cudaMemcpyAsync(host.data(), outs[i].get(), host.size(), cudaMemcpyDeviceToHost, stream);
      if (cudaStreamSynchronize(stream) != cudaSuccess) {
        ++errors;
        break;
      }
      if (host != want[i] && mismatches++ == 0) first_problem[size_t(tid)] = cases[i].what + ": output differs";
      ++done;
    }
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker, t);
  for (auto& t : pool) t.join();
  CUDA_ASSERT(cudaDeviceSynchronize());
  std::string problems;
  for (const auto& p : first_problem)
    if (!p.empty()) problems += p + "; ";
  EXPECT_EQ(errors.load(), 0) << problems;
  EXPECT_EQ(mismatches.load(), 0) << problems;
  EXPECT_EQ(done.load(), launches) << "launches completed";
  std::printf("soak: %d launches from %d threads on %d streams over %zu cases; %d outputs differed\n", done.load(),
              threads, threads, cases.size(), mismatches.load());
}

// The library's cached workspaces (src/common/workspace.hpp): one per (kind, device,
// stream), and for cudaStreamPerThread one per calling thread, whose per-thread streams
// may run at the same time: two threads must never get the same buffer there, one thread
// always its own.
TEST(Soak, PerThreadStreamWorkspacesAreThreadsOwn) {
  WARPSPEC_REQUIRE_HOPPER();
  int device = 0;
  CUDA_ASSERT(cudaGetDevice(&device));
  void* got[2] = {nullptr, nullptr};
  void* again[2] = {nullptr, nullptr};
  void* shared[2] = {nullptr, nullptr};
  cudaStream_t stream = nullptr;
  CUDA_ASSERT(cudaStreamCreate(&stream));
  auto take = [&](int t) {
    CUDA_ASSERT(cudaSetDevice(device));
    bool capturing = false;
    ASSERT_TRUE(warpspec::cached_workspace(warpspec::WorkspaceKind::kSplitKvCounters, device, cudaStreamPerThread, 64,
                                           &got[t], &capturing).ok());
    ASSERT_TRUE(warpspec::cached_workspace(warpspec::WorkspaceKind::kSplitKvCounters, device, cudaStreamPerThread, 64,
                                           &again[t], &capturing).ok());
    ASSERT_TRUE(warpspec::cached_workspace(warpspec::WorkspaceKind::kSplitKvCounters, device, stream, 64, &shared[t],
                                           &capturing).ok());
    CUDA_ASSERT(cudaStreamSynchronize(cudaStreamPerThread));
  };
  std::thread a(take, 0), b(take, 1);
  a.join();
  b.join();
  ASSERT_TRUE(got[0] && got[1]);
  EXPECT_NE(got[0], got[1]) << "two threads' per-thread streams share a cached buffer";
  EXPECT_EQ(got[0], again[0]);
  EXPECT_EQ(got[1], again[1]);
  EXPECT_EQ(shared[0], shared[1]) << "one explicit stream: one buffer, whichever thread asks";
  CUDA_ASSERT(cudaStreamSynchronize(stream));
  CUDA_ASSERT(cudaStreamDestroy(stream));
}

}  // namespace soak_test
