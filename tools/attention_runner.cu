#include "attention_runner.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "../tests/gpu/attention_reference.cuh"

namespace warpspec::tools {
namespace {

__device__ __forceinline__ float attn_hash_normalish(uint64_t seed, uint64_t i) {
  // Sum of two uniforms in [-1, 1): a cheap bell shape, variance 2/3, no cuRAND state.
  uint64_t x = seed ^ (i * 0x9E3779B97F4A7C15ull);
  x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 29; x *= 0x94D049BB133111EBull; x ^= x >> 32;
  const float a = float(uint32_t(x) >> 8) * (2.0f / 16777216.0f) - 1.0f;
  const float b = float(uint32_t(x >> 32) >> 8) * (2.0f / 16777216.0f) - 1.0f;
  return (a + b) * 1.2247449f;  // unit variance
}

template <class T>
__global__ void attn_fill_kernel(T* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = T(attn_hash_normalish(seed, i));
}

Status fill16(void* p, DType t, size_t n, uint64_t seed) {
  if (t == DType::kBF16) attn_fill_kernel<<<132 * 8, 256>>>(static_cast<__nv_bfloat16*>(p), n, seed);
  else attn_fill_kernel<<<132 * 8, 256>>>(static_cast<__half*>(p), n, seed);
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? Status::Ok() : cuda_error("fill kernel", e);
}

TensorView bshd(void* data, DType t, int64_t b, int64_t s, int64_t h, int64_t d) {
  TensorView v;
  v.data = data;
  v.dtype = t;
  v.rank = 4;
  v.shape[0] = b, v.shape[1] = s, v.shape[2] = h, v.shape[3] = d;
  v.stride[3] = 1, v.stride[2] = d, v.stride[1] = h * d, v.stride[0] = s * h * d;
  return v;
}

}  // namespace

std::string AttentionProblem::describe() const {
  char buf[200];
  std::snprintf(buf, sizeof buf, "b=%ld sq=%ld sk=%ld h=%ld hkv=%ld d=%ld %s %s", long(batch), long(seqlen_q),
                long(seqlen_k), long(heads), long(heads_kv), long(head_dim), causal ? "causal" : "full",
                dtype_name(dtype));
  return buf;
}

AttentionRunner::AttentionRunner(const AttentionProblem& p) : p_(p) {
  const size_t nq = size_t(p.batch * p.seqlen_q * p.heads * p.head_dim);
  const size_t nk = size_t(p.batch * p.seqlen_k * p.heads_kv * p.head_dim);
  auto alloc = [&](size_t bytes, void** ptr) {
    if (!status_.ok()) return;
    cudaError_t e = cudaMalloc(ptr, std::max<size_t>(bytes, 16));
    if (e != cudaSuccess) status_ = cuda_error("cudaMalloc(" + std::to_string(bytes) + ")", e);
  };
  for (int s = 0; s < sets_; ++s) {
    alloc(nq * 2, &q_[s]);
    alloc(nk * 2, &k_[s]);
    alloc(nk * 2, &v_[s]);
  }
  alloc(nq * 2, &o_);
  alloc(size_t(p.batch * p.heads * p.seqlen_q) * 4, reinterpret_cast<void**>(&lse_));
  for (int s = 0; s < sets_ && status_.ok(); ++s) {
    status_ = fill16(q_[s], p.dtype, nq, 7000 + 3 * s);
    if (status_.ok()) status_ = fill16(k_[s], p.dtype, nk, 7001 + 3 * s);
    if (status_.ok()) status_ = fill16(v_[s], p.dtype, nk, 7002 + 3 * s);
  }
  if (status_.ok()) {
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) status_ = cuda_error("initialising inputs", e);
  }
}

AttentionRunner::~AttentionRunner() {
  for (int s = 0; s < 2; ++s) cudaFree(q_[s]), cudaFree(k_[s]), cudaFree(v_[s]);
  cudaFree(o_);
  cudaFree(lse_);
}

AttentionArgs AttentionRunner::args_for(int set) const {
  const AttentionProblem& p = p_;
  AttentionArgs a;
  a.q = bshd(q_[set], p.dtype, p.batch, p.seqlen_q, p.heads, p.head_dim);
  a.k = bshd(k_[set], p.dtype, p.batch, p.seqlen_k, p.heads_kv, p.head_dim);
  a.v = bshd(v_[set], p.dtype, p.batch, p.seqlen_k, p.heads_kv, p.head_dim);
  a.o = bshd(o_, p.dtype, p.batch, p.seqlen_q, p.heads, p.head_dim);
  a.lse.data = lse_;
  a.lse.dtype = DType::kFP32;
  a.lse.rank = 3;
  a.lse.shape[0] = p.batch, a.lse.shape[1] = p.heads, a.lse.shape[2] = p.seqlen_q;
  a.lse.stride[0] = p.heads * p.seqlen_q, a.lse.stride[1] = p.seqlen_q, a.lse.stride[2] = 1;
  a.causal = p.causal;
  return a;
}

Status AttentionRunner::run(int set, cudaStream_t stream) { return attention_forward(args_for(set % sets_), stream); }

Status AttentionRunner::time(const TimingOptions& opt, TimingResult* out) {
  WARPSPEC_RETURN_IF_ERROR(status_);
  TimingStream stream;
  WARPSPEC_RETURN_IF_ERROR(stream.status());
  std::vector<Candidate> cands(1);
  cands[0].run = [this](int i, cudaStream_t s) { return run(i, s); };
  return time_interleaved(cands, opt, stream.get(), out);
}

Status AttentionRunner::check(double* err, double* err_plain, double* err_lse) {
  WARPSPEC_RETURN_IF_ERROR(status_);
  const AttentionProblem& p = p_;
  if (p.seqlen_k > 50000) return invalid_argument("--check: the reference holds a row of scores in shared memory; seqlen_k <= 50000");
  const size_t rows = size_t(p.batch * p.heads * p.seqlen_q), n = rows * size_t(p.head_dim);
  float *ref = nullptr, *plain = nullptr, *ref_lse = nullptr;
  cudaError_t e = cudaMalloc(&ref, n * 4);
  if (e == cudaSuccess) e = cudaMalloc(&plain, n * 4);
  if (e == cudaSuccess) e = cudaMalloc(&ref_lse, rows * 4);
  if (e == cudaSuccess) e = cudaMemset(o_, 0xFF, n * 2);
  if (e == cudaSuccess) e = cudaMemset(lse_, 0xFF, rows * 4);
  Status s = e == cudaSuccess ? Status::Ok() : cuda_error("reference buffers", e);
  if (s.ok()) s = run(0, nullptr);
  const test::RefProblem rp{int(p.batch), int(p.seqlen_q), int(p.seqlen_k), int(p.heads), int(p.heads_kv),
                            int(p.head_dim), p.causal, float(1.0 / std::sqrt(double(p.head_dim))), p.dtype};
  const test::RefTensor rq{q_[0], p.seqlen_q * p.heads * p.head_dim, p.heads * p.head_dim, p.head_dim};
  const test::RefTensor rk{k_[0], p.seqlen_k * p.heads_kv * p.head_dim, p.heads_kv * p.head_dim, p.head_dim};
  const test::RefTensor rv{v_[0], p.seqlen_k * p.heads_kv * p.head_dim, p.heads_kv * p.head_dim, p.head_dim};
  if (s.ok() && (e = test::attention_reference(rp, rq, rk, rv, ref, ref_lse, false)) != cudaSuccess) s = cuda_error("reference", e);
  if (s.ok() && (e = test::attention_reference(rp, rq, rk, rv, plain, nullptr, true)) != cudaSuccess) s = cuda_error("reference", e);
  if (s.ok() && (e = cudaDeviceSynchronize()) != cudaSuccess) s = cuda_error("running attention and the reference", e);
  if (s.ok()) {
    std::vector<float> r(n), pl(n), rl(rows), gl(rows);
    std::vector<uint16_t> o(n);
    cudaMemcpy(r.data(), ref, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(pl.data(), plain, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(rl.data(), ref_lse, rows * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(gl.data(), lse_, rows * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(o.data(), o_, n * 2, cudaMemcpyDeviceToHost);
    double worst = 0, worst_plain = 0, worst_lse = 0;
    for (size_t i = 0; i < n; ++i) {
      float got;
      if (p.dtype == DType::kBF16) got = __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(o.data())[i]);
      else got = __half2float(reinterpret_cast<const __half*>(o.data())[i]);
      worst = std::isnan(got) ? INFINITY : std::max(worst, double(std::fabs(got - r[i])));
      worst_plain = std::max(worst_plain, double(std::fabs(pl[i] - r[i])));
      if (std::isinf(worst)) break;
    }
    // LSE is laid out (b, h, sq) in both.
    for (size_t i = 0; i < rows; ++i) {
      const double d = std::isinf(rl[i]) ? (gl[i] == rl[i] ? 0.0 : INFINITY) : std::fabs(double(gl[i]) - rl[i]);
      worst_lse = std::isnan(gl[i]) ? INFINITY : std::max(worst_lse, d);
    }
    *err = worst, *err_plain = worst_plain, *err_lse = worst_lse;
  }
  cudaFree(ref), cudaFree(plain), cudaFree(ref_lse);
  return s;
}

}  // namespace warpspec::tools
