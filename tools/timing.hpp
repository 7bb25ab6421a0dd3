#pragma once
// How every benchmark in the program times: CUDA events around each call, all calls of
// every candidate queued on one stream the same way (no synchronisation between calls for
// anyone), candidates interleaved call by call in ABBA order after at least a second of
// sustained load, several rounds, and the median with the spread of the rounds.
//
// Why: the H200 is power-limited. Whoever runs first after idle runs at boost clocks,
// worth 7-16% at 8192^3, so timing ours in one loop and the peer in the next measures the
// clock as much as the kernel. The warm-up (every candidate, interleaved) brings the GPU
// to its sustained clock; ABBA blocks (BAAB on odd rounds) give every candidate the same
// share of whatever the clock does during a round; the per-round medians say how much the
// figure moves from one round to the next.
//
// One caveat for tiny calls: an event is timed from when the GPU reaches it, so when the
// host cannot launch as fast as the GPU runs (calls of a few microseconds), a call's time
// includes the launch cost of whoever is timed. Both candidates pay their own.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "warpspec/status.hpp"

namespace warpspec::tools {

// One thing to time. `run(i, stream)` enqueues call i (i lets the caller rotate inputs)
// on `stream`. `prepare(i, stream)`, when set, enqueues work call i needs first that is
// not part of what is measured (restoring an output the call overwrites in place): it is
// queued before the call's start event.
struct Candidate {
  std::function<Status(int, cudaStream_t)> run;
  std::function<Status(int, cudaStream_t)> prepare;
};

struct TimingOptions {
  double warmup_seconds = 1.0;  // of sustained load, every candidate running, before timing
  int rounds = 5;
  int iters = 20;  // timed calls per candidate per round, rounded up to even (ABBA blocks)
};

// A figure over the rounds: the median of the per-round medians, their least and largest.
struct Spread {
  double median = 0, lo = 0, hi = 0;
};

// A figure over every timed call of every round (the --json records): the median, the
// least and the 90th percentile (nearest rank), milliseconds.
struct CallStats {
  double median = 0, min = 0, p90 = 0;
  int count = 0;
};

inline CallStats call_stats_of(std::vector<double> v) {
  CallStats c;
  if (v.empty()) return c;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  c.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  c.min = v.front();
  c.p90 = v[(9 * n + 9) / 10 - 1];  // the ceil(0.9 n)-th smallest
  c.count = int(n);
  return c;
}

struct TimingResult {
  std::vector<Spread> ms;  // per candidate, milliseconds per call
  // Per candidate c: c's time / candidate 0's time, taken per round, then over rounds
  // (ratio[0] is 1). With ours first, ratio[1] is ours' speed relative to the peer.
  std::vector<Spread> ratio;
  std::vector<CallStats> calls;  // per candidate, over all timed calls

  // bench gemm --control: with the peer timed twice (candidates 1 and 2), the first run's
  // speed over the second's (medians); 0 when there is no second run.
  bool has_control = false;
  double control() const { return has_control && ms.size() > 2 && ms[2].median > 0 ? ms[1].median / ms[2].median : 0.0; }
  // bench gemm --plain: ours without the fused epilogue as the last candidate; the fused
  // call's time over the plain one's (1.07: the epilogue costs 7%); 0 when not timed.
  bool has_plain = false;
  double plain_cost() const { return has_plain && ms.back().median > 0 ? ms[0].median / ms.back().median : 0.0; }
  // bench gemm --versus-schedule: ours with the other schedule as candidate versus_index, in
  // the same interleaving; ratio[versus_index] is ours' speed over it, per round (1.03:
  // ours 3% faster); -1 when not timed.
  int versus_index = -1;
  // How many input sets the calls rotated through (bench gemm: enough to pass 3x the L2;
  // 1 with --no-rotate, the inputs the same every call); 0 where the timer does not say.
  int input_sets = 0;
};

inline Spread spread_of(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.lo = v.front();
  s.hi = v.back();
  return s;
}

// `f` applied to a spread of times: a decreasing f (a rate) swaps the ends.
template <class F>
Spread map_spread(const Spread& s, F&& f) {
  const double a = f(s.lo), b = f(s.hi);
  return {f(s.median), std::min(a, b), std::max(a, b)};
}

// Milliseconds per call as TFLOP/s.
inline Spread tflops_of(const Spread& ms, double flops) {
  return map_spread(ms, [flops](double m) { return flops / (m * 1e-3) / 1e12; });
}

// "652.1 (648.0-655.3)": the median, then the least and largest round.
inline std::string format_spread(const Spread& s, int decimals) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.*f (%.*f-%.*f)", decimals, s.median, decimals, s.lo, decimals, s.hi);
  return buf;
}

namespace detail {

// The candidates' order in one block: forward then backward (ABBA), or on odd rounds
// backward then forward (BAAB), so neither is always the first after a round starts.
inline std::vector<int> block_order(int n, bool reversed) {
  std::vector<int> o;
  for (int pass = 0; pass < 2; ++pass)
    for (int j = 0; j < n; ++j) o.push_back((pass == 0) != reversed ? j : n - 1 - j);
  return o;
}

}  // namespace detail

inline Status time_interleaved(const std::vector<Candidate>& cands, const TimingOptions& opt, cudaStream_t stream,
                               TimingResult* out) {
  const int n = int(cands.size());
  if (n == 0 || opt.rounds < 1 || opt.iters < 1) return invalid_argument("timing: nothing to time");
  std::vector<int> calls(size_t(n), 0);
  auto enqueue = [&](int c, cudaEvent_t start, cudaEvent_t end) -> Status {
    const Candidate& k = cands[size_t(c)];
    const int i = calls[size_t(c)]++;
    if (k.prepare) WARPSPEC_RETURN_IF_ERROR(k.prepare(i, stream));
    if (start) cudaEventRecord(start, stream);
    WARPSPEC_RETURN_IF_ERROR(k.run(i, stream));
    if (end) cudaEventRecord(end, stream);
    return Status::Ok();
  };

  // Warm-up: whole blocks until the wall clock says enough, in batches sized from the
  // time a block took so far, so the GPU idles only for a synchronisation per batch.
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  long blocks = 0;
  for (long batch = 1;;) {
    for (long b = 0; b < batch; ++b, ++blocks)
      for (int c : detail::block_order(n, blocks % 2 == 1)) WARPSPEC_RETURN_IF_ERROR(enqueue(c, nullptr, nullptr));
    const cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return cuda_error("warm-up runs", e);
    const double elapsed = std::chrono::duration<double>(clock::now() - t0).count();
    if (elapsed >= opt.warmup_seconds) break;
    const double per_block = elapsed / double(blocks);
    batch = std::clamp(long((opt.warmup_seconds - elapsed) / std::max(per_block, 1e-7)) + 1, 1L, 2048L);
  }

  // Timed rounds, all queued before one synchronisation at the end.
  const int blocks_per_round = (opt.iters + 1) / 2;
  struct Call {
    int round, cand;
  };
  std::vector<Call> timed;
  std::vector<cudaEvent_t> ev;
  Status s;
  for (int r = 0; r < opt.rounds && s.ok(); ++r)
    for (int b = 0; b < blocks_per_round && s.ok(); ++b)
      for (int c : detail::block_order(n, r % 2 == 1)) {
        cudaEvent_t e0 = nullptr, e1 = nullptr;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        ev.push_back(e0);
        ev.push_back(e1);
        timed.push_back({r, c});
        s = enqueue(c, e0, e1);
        if (!s.ok()) break;
      }
  const cudaError_t e = cudaStreamSynchronize(stream);
  std::vector<std::vector<std::vector<double>>> ms(size_t(n), std::vector<std::vector<double>>(size_t(opt.rounds)));
  for (size_t t = 0; t < timed.size() && s.ok() && e == cudaSuccess; ++t) {
    float x = 0;
    cudaEventElapsedTime(&x, ev[2 * t], ev[2 * t + 1]);
    ms[size_t(timed[t].cand)][size_t(timed[t].round)].push_back(x);
  }
  for (cudaEvent_t x : ev) cudaEventDestroy(x);
  WARPSPEC_RETURN_IF_ERROR(s);
  if (e != cudaSuccess) return cuda_error("timed runs", e);

  std::vector<std::vector<double>> round_median(cands.size());
  for (int c = 0; c < n; ++c)
    for (int r = 0; r < opt.rounds; ++r) round_median[size_t(c)].push_back(spread_of(ms[size_t(c)][size_t(r)]).median);
  out->ms.clear();
  out->ratio.clear();
  out->calls.clear();
  for (int c = 0; c < n; ++c) {
    std::vector<double> all;
    for (const auto& round : ms[size_t(c)]) all.insert(all.end(), round.begin(), round.end());
    out->calls.push_back(call_stats_of(std::move(all)));
    std::vector<double> ratio;
    for (int r = 0; r < opt.rounds; ++r) ratio.push_back(round_median[size_t(c)][size_t(r)] / round_median[0][size_t(r)]);
    out->ms.push_back(spread_of(round_median[size_t(c)]));
    out->ratio.push_back(spread_of(ratio));
  }
  return Status::Ok();
}

// A stream for timing that frees itself (non-blocking: nothing else on the legacy
// default stream interleaves with the timed calls).
class TimingStream {
 public:
  TimingStream() { err_ = cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking); }
  ~TimingStream() {
    if (s_) cudaStreamDestroy(s_);
  }
  TimingStream(const TimingStream&) = delete;
  TimingStream& operator=(const TimingStream&) = delete;
  Status status() const { return err_ == cudaSuccess ? Status::Ok() : cuda_error("creating a stream", err_); }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
  cudaError_t err_ = cudaSuccess;
};

}  // namespace warpspec::tools
