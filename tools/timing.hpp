#pragma once
// Median device time of a launch sequence, measured with CUDA events around each call
// after a warm-up. Every benchmark in the program times this one way.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "warpspec/status.hpp"

namespace warpspec::tools {

// `run(i)` enqueues call i on the default stream (i lets the caller rotate inputs).
template <class Run>
Status median_event_time(Run&& run, int warmup, int iters, double* median_ms) {
  for (int i = 0; i < warmup; ++i) WARPSPEC_RETURN_IF_ERROR(run(i));
  std::vector<cudaEvent_t> ev(2 * size_t(iters));
  for (auto& e : ev) cudaEventCreate(&e);
  Status s;
  for (int i = 0; i < iters && s.ok(); ++i) {
    cudaEventRecord(ev[2 * i]);
    s = run(warmup + i);
    cudaEventRecord(ev[2 * i + 1]);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::vector<double> ms;
  for (int i = 0; i < iters && s.ok() && e == cudaSuccess; ++i) {
    float t = 0;
    cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]);
    ms.push_back(t);
  }
  for (auto& x : ev) cudaEventDestroy(x);
  WARPSPEC_RETURN_IF_ERROR(s);
  if (e != cudaSuccess) return cuda_error("timed runs", e);
  std::sort(ms.begin(), ms.end());
  *median_ms = ms[ms.size() / 2];
  return Status::Ok();
}

}  // namespace warpspec::tools
