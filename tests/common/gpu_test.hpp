#pragma once
// Shared helpers for the GPU tests: the Hopper skip, CUDA error checks, device
// buffers, and the seeds of random data (common/seed.hpp: fresh per case, printed on
// failure through SCOPED_TRACE, injectable with WARPSPEC_TEST_SEED to replay one).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/seed.hpp"
#include "testing/poison.hpp"
#include "warpspec/device.hpp"

// Skip (counted by ctest as skipped) unless the current device is a Hopper GPU.
#define WARPSPEC_REQUIRE_HOPPER()                                              \
  do {                                                                         \
    ::warpspec::Status s_ = ::warpspec::check_device();                        \
    if (!s_.ok()) GTEST_SKIP() << "needs a Hopper GPU: " << s_.message();      \
  } while (0)

#define CUDA_ASSERT(expr)                                                                      \
  do {                                                                                         \
    cudaError_t e_ = (expr);                                                                   \
    ASSERT_EQ(e_, cudaSuccess) << #expr << ": " << cudaGetErrorName(e_) << " " << cudaGetErrorString(e_); \
  } while (0)

namespace warpspec::test {

// body(i) for every i in [0, n), on every core in contiguous chunks: for host reference
// loops (a float64 GEMM of a few thousand rows takes seconds on one core). body may write
// only what row i owns.
template <class F>
void parallel_rows(int64_t n, const F& body) {
  const int64_t workers = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 64);
  const int64_t chunk = (n + workers - 1) / workers;
  std::vector<std::thread> pool;
  for (int64_t begin = 0; begin < n; begin += chunk)
    pool.emplace_back([&body, begin, end = std::min(n, begin + chunk)] {
      for (int64_t i = begin; i < end; ++i) body(i);
    });
  for (std::thread& t : pool) t.join();
}

// Device buffer that frees itself. Bytes only; typed access goes through copies.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    if (bytes && cudaMalloc(&ptr_, bytes) != cudaSuccess) ptr_ = nullptr;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; o.bytes_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~DeviceBuffer() { if (ptr_) cudaFree(ptr_); }
  void* get() const { return ptr_; }
  template <class T> T* as() const { return static_cast<T*>(ptr_); }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

template <class T>
DeviceBuffer to_device(const std::vector<T>& host) {
  DeviceBuffer d(host.size() * sizeof(T));
  if (d.get()) cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}

template <class T>
std::vector<T> to_host(const DeviceBuffer& d, size_t count) {
  std::vector<T> h(count);
  cudaMemcpy(h.data(), d.get(), count * sizeof(T), cudaMemcpyDeviceToHost);
  return h;
}

// NaN in every float format we use (testing/poison.hpp), synchronously.
inline cudaError_t poison(const DeviceBuffer& d) {
  const cudaError_t e = testbed::poison(d.get(), d.bytes());
  return e == cudaSuccess ? cudaDeviceSynchronize() : e;
}

// A paged K/V cache built from a logical one: sequence b's `rows` rows (`row_bytes` each)
// of `lk` / `lv`, read from its entry entry[b] (b without `entry`), copied page by page
// (`page` rows a page; `rows` a multiple of it) to pages in random order, with three spare
// pages. Every page is poisoned first, so a read through a wrong table entry shows.
struct PagedKv {
  int pages_per_seq = 0, num_pages = 0;
  DeviceBuffer k, v;
  std::vector<int32_t> table = {0};  // (batch, pages_per_seq), row-major; one 0 when empty
};

template <class Gen>
cudaError_t scatter_pages(const DeviceBuffer& lk, const DeviceBuffer& lv, int batch, int rows, int page,
                          size_t row_bytes, const int32_t* entry, Gen& gen, PagedKv* out) {
  PagedKv& p = *out;
  p.pages_per_seq = rows / page;
  p.num_pages = batch * p.pages_per_seq + 3;
  const size_t page_bytes = size_t(page) * row_bytes;
  p.k = DeviceBuffer(size_t(p.num_pages) * page_bytes);
  p.v = DeviceBuffer(size_t(p.num_pages) * page_bytes);
  p.table.assign(std::max<size_t>(1, size_t(batch) * p.pages_per_seq), 0);
  if (!p.k.get() || !p.v.get()) return cudaErrorMemoryAllocation;
  std::vector<int> order(p.num_pages);
  for (int i = 0; i < p.num_pages; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), gen);
  cudaError_t e = poison(p.k);
  if (e == cudaSuccess) e = poison(p.v);
  for (int b = 0; b < batch && e == cudaSuccess; ++b)
    for (int j = 0; j < p.pages_per_seq && e == cudaSuccess; ++j) {
      const int pg = order[size_t(b) * p.pages_per_seq + j];
      p.table[size_t(b) * p.pages_per_seq + j] = pg;
      const size_t src = (size_t(entry ? entry[b] : b) * rows + size_t(j) * page) * row_bytes;
      e = cudaMemcpy(p.k.as<char>() + size_t(pg) * page_bytes, lk.as<char>() + src, page_bytes,
                     cudaMemcpyDeviceToDevice);
      if (e == cudaSuccess)
        e = cudaMemcpy(p.v.as<char>() + size_t(pg) * page_bytes, lv.as<char>() + src, page_bytes,
                       cudaMemcpyDeviceToDevice);
    }
  return e;
}

}  // namespace warpspec::test
