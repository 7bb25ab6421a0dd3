#include "attention_runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "../testing/attention_check.hpp"
#include "../testing/attention_reference.hpp"
#include "../testing/fill.hpp"
#include "../testing/views.hpp"
#include "shapes.hpp"

namespace warpspec::tools {
namespace {

Status fill_normal(void* p, DType t, size_t n, uint64_t seed) {
  const cudaError_t e = testbed::fill_normalish(p, t, n, seed);
  return e == cudaSuccess ? Status::Ok() : cuda_error("fill kernel", e);
}

// O's dtype: the inputs', or bf16 for e4m3 (FlashAttention-3's FP8 output).
DType out_dtype(DType in) { return in == DType::kE4M3 ? DType::kBF16 : in; }

}  // namespace

std::string AttentionProblem::describe() const {
  char buf[260];
  std::string shape;
  if (varlen.empty()) {
    std::snprintf(buf, sizeof buf, "b=%ld sq=%ld sk=%ld", long(batch), long(seqlen_q), long(seqlen_k));
    shape = buf;
  } else {
    std::snprintf(buf, sizeof buf, "varlen %zu sequences, %ld tokens", varlen.size(), long(total_tokens()));
    shape = buf;
  }
  std::string extra;
  if (window_left >= 0 || window_right >= 0)
    extra += " window=(" + std::to_string(window_left) + "," + std::to_string(window_right) + ")";
  if (softcap > 0) extra += " softcap=" + std::to_string(softcap);
  std::snprintf(buf, sizeof buf, "%s h=%ld hkv=%ld d=%ld %s %s%s", shape.c_str(), long(heads), long(heads_kv),
                long(head_dim), causal ? "causal" : "full", dtype_name(dtype), extra.c_str());
  return buf;
}

AttentionRunner::AttentionRunner(const AttentionProblem& p) : p_(p) {
  if (!p.varlen.empty()) {  // one packed batch of all tokens: rows = total, batch 1
    p_.batch = 1;
    p_.seqlen_q = p_.seqlen_k = p.total_tokens();
  }
  if (!fits_in_memory({p_.batch, p_.seqlen_q, p.heads, p.head_dim}, 2) ||
      !fits_in_memory({p_.batch, p_.seqlen_k, p.heads_kv, p.head_dim}, 2)) {
    char why[320];
    std::snprintf(why, sizeof why, "--batch x --seqlen-q/--seqlen-k x --heads/--heads-kv x --head-dim: %lld x %lld/%lld x "
                                   "%lld/%lld x %lld elements pass 2^48 bytes, more than any GPU holds",
                                   (long long)p_.batch, (long long)p_.seqlen_q, (long long)p_.seqlen_k,
                                   (long long)p.heads, (long long)p.heads_kv, (long long)p.head_dim);
    status_ = invalid_argument(why);
    return;
  }
  const size_t nq = size_t(p_.batch * p_.seqlen_q * p.heads * p.head_dim);
  const size_t nk = size_t(p_.batch * p_.seqlen_k * p.heads_kv * p.head_dim);
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
  alloc(size_t(p_.batch * p.heads * p_.seqlen_q) * 4, reinterpret_cast<void**>(&lse_));
  if (!p.varlen.empty()) {
    std::vector<int32_t> cu(1, 0);
    for (int64_t s : p.varlen) cu.push_back(int32_t(cu.back() + s));
    cu.push_back(0), cu.push_back(0);  // then the tile counter pair, zero (the kernel leaves it zero)
    alloc(cu.size() * 4, reinterpret_cast<void**>(&cu_seqlens_));
    if (status_.ok()) cudaMemcpy(cu_seqlens_, cu.data(), cu.size() * 4, cudaMemcpyHostToDevice);
  }
  for (int s = 0; s < sets_ && status_.ok(); ++s) {
    status_ = fill_normal(q_[s], p.dtype, nq, 7000 + 3 * s);
    if (status_.ok()) status_ = fill_normal(k_[s], p.dtype, nk, 7001 + 3 * s);
    if (status_.ok()) status_ = fill_normal(v_[s], p.dtype, nk, 7002 + 3 * s);
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
  cudaFree(cu_seqlens_);
}

AttentionArgs AttentionRunner::args_for(int set) const {
  const AttentionProblem& p = p_;
  AttentionArgs a;
  a.q = testbed::bshd_contiguous(q_[set], p.dtype, p.batch, p.seqlen_q, p.heads, p.head_dim);
  a.k = testbed::bshd_contiguous(k_[set], p.dtype, p.batch, p.seqlen_k, p.heads_kv, p.head_dim);
  a.v = testbed::bshd_contiguous(v_[set], p.dtype, p.batch, p.seqlen_k, p.heads_kv, p.head_dim);
  a.o = testbed::bshd_contiguous(o_, out_dtype(p.dtype), p.batch, p.seqlen_q, p.heads, p.head_dim);
  a.lse = testbed::lse_contiguous(lse_, p.batch, p.heads, p.seqlen_q);
  a.causal = p.causal;
  a.window_left = p.window_left;
  a.window_right = p.window_right;
  a.softcap = p.softcap;
  if (!p.varlen.empty()) {  // the same memory as (total, heads, d) packed views
    auto packed = [](TensorView v) {
      for (int i = 0; i < 3; ++i) v.shape[i] = v.shape[i + 1], v.stride[i] = v.stride[i + 1];
      v.rank = 3;
      return v;
    };
    a.q = packed(a.q), a.k = packed(a.k), a.v = packed(a.v), a.o = packed(a.o);
    a.lse.rank = 2;  // (heads, total)
    a.lse.shape[0] = a.lse.shape[1], a.lse.shape[1] = a.lse.shape[2];
    a.lse.stride[0] = a.lse.stride[1], a.lse.stride[1] = a.lse.stride[2];
    TensorView cu;
    cu.data = cu_seqlens_, cu.dtype = DType::kI32, cu.rank = 1;
    cu.shape[0] = int64_t(p.varlen.size()) + 1, cu.stride[0] = 1;
    a.cu_seqlens_q = a.cu_seqlens_k = cu;
    a.tile_counter = cu;
    a.tile_counter.data = cu_seqlens_ + cu.shape[0];
    a.tile_counter.shape[0] = 2;
    a.max_seqlen_q = *std::max_element(p.varlen.begin(), p.varlen.end());
  }
  return a;
}

Status AttentionRunner::describe_config(std::string* line) const {
  WARPSPEC_RETURN_IF_ERROR(status_);
  return warpspec::describe(args_for(0), line);
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

bool AttentionCheck::passes() const { return errors.nan == 0 && errors.o <= tolerance && lse_bad == 0; }

void print_check(const AttentionCheck& c, DType t) {
  if (t == DType::kE4M3)
    std::printf("check against the fp32 reference of the e4m3 values: max |O err| %.3g (limit %.3g: "
                "(2^-4 + 2^-9 + 2^-10) max|v|, P rounded to e4m3 and O to bf16), %ld NaN, %ld of %ld LSE values off",
                c.errors.o, c.tolerance, long(c.errors.nan), long(c.lse_bad), long(c.rows));
  else
    std::printf("check against the fp32 reference: max |O err| %.3g (limit %.3g: 2x plain %s's %.3g, capped), "
                "%ld NaN, %ld of %ld LSE values off",
                c.errors.o, c.tolerance, dtype_name(t), c.errors.o_plain, long(c.errors.nan), long(c.lse_bad),
                long(c.rows));
  if (c.lse_bad > 0) std::printf(" (first: row %ld = %.6g, expected %.6g)", long(c.lse_first_bad), c.lse_got, c.lse_want);
  std::printf(": %s\n", c.passes() ? "ok" : "FAILED");
}

Status AttentionRunner::check(AttentionCheck* out) {
  WARPSPEC_RETURN_IF_ERROR(status_);
  const AttentionProblem& p = p_;
  if (!p.varlen.empty()) return unsupported("--check: not for variable-length problems (the GPU tests check those)");
  if (p.seqlen_k > 50000) return invalid_argument("--check: the reference holds a row of scores in shared memory; seqlen_k <= 50000");
  const size_t rows = size_t(p.batch * p.heads * p.seqlen_q), n = rows * size_t(p.head_dim);
  const size_t nk = size_t(p.batch * p.seqlen_k * p.heads_kv * p.head_dim);
  float *ref = nullptr, *plain = nullptr, *ref_lse = nullptr;
  cudaError_t e = cudaMalloc(&ref, n * 4);
  if (e == cudaSuccess) e = cudaMalloc(&plain, n * 4);
  if (e == cudaSuccess) e = cudaMalloc(&ref_lse, rows * 4);
  if (e == cudaSuccess) e = testbed::poison(o_, n * 2);
  if (e == cudaSuccess) e = testbed::poison(lse_, rows * 4);
  Status s = e == cudaSuccess ? Status::Ok() : cuda_error("reference buffers", e);
  if (s.ok()) s = run(0, nullptr);
  // A window past every distance is unbounded (the reference counts in int).
  const auto window = [&](int64_t w) { return w < 0 || w > p.seqlen_q + p.seqlen_k ? -1 : int(w); };
  const testbed::RefProblem rp{int(p.batch), int(p.seqlen_q), int(p.seqlen_k), int(p.heads), int(p.heads_kv),
                               int(p.head_dim), p.causal, float(1.0 / std::sqrt(double(p.head_dim))), p.dtype,
                               window(p.window_left), window(p.window_right), p.softcap};
  const testbed::RefTensor rq{q_[0], p.seqlen_q * p.heads * p.head_dim, p.heads * p.head_dim, p.head_dim};
  const testbed::RefTensor rk{k_[0], p.seqlen_k * p.heads_kv * p.head_dim, p.heads_kv * p.head_dim, p.head_dim};
  const testbed::RefTensor rv{v_[0], p.seqlen_k * p.heads_kv * p.head_dim, p.heads_kv * p.head_dim, p.head_dim};
  if (s.ok() && (e = testbed::attention_reference(rp, rq, rk, rv, ref, ref_lse, false)) != cudaSuccess) s = cuda_error("reference", e);
  const bool fp8 = p.dtype == DType::kE4M3;  // no plain low-precision computation: a direct bound
  if (s.ok() && !fp8 && (e = testbed::attention_reference(rp, rq, rk, rv, plain, nullptr, true)) != cudaSuccess)
    s = cuda_error("reference", e);
  if (s.ok() && fp8 && (e = cudaMemcpy(plain, ref, n * 4, cudaMemcpyDeviceToDevice)) != cudaSuccess)
    s = cuda_error("reference", e);
  if (s.ok() && (e = cudaDeviceSynchronize()) != cudaSuccess) s = cuda_error("running attention and the reference", e);
  if (s.ok()) {
    std::vector<float> r(n), pl(n), rl(rows), gl(rows);
    std::vector<uint16_t> o(n), v(nk);  // v: 2 bytes an element at most (e4m3 uses the first half)
    cudaMemcpy(r.data(), ref, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(pl.data(), plain, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(rl.data(), ref_lse, rows * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(gl.data(), lse_, rows * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(o.data(), o_, n * 2, cudaMemcpyDeviceToHost);
    cudaMemcpy(v.data(), v_[0], nk * dtype_size(p.dtype), cudaMemcpyDeviceToHost);
    AttentionCheck c;
    c.errors = testbed::compare_attention_o(out_dtype(p.dtype), o.data(), p.seqlen_q * p.heads * p.head_dim, p.heads * p.head_dim,
                                            p.head_dim, int(p.batch), int(p.seqlen_q), int(p.heads), int(p.head_dim),
                                            r.data(), pl.data());
    const double max_v = testbed::max_abs(p.dtype, v.data(), nk);
    c.tolerance = fp8 ? testbed::attention_o_tolerance_fp8(max_v)
                      : testbed::attention_o_tolerance(p.dtype, c.errors.o_plain, c.errors.max_ref, max_v, p.seqlen_k);
    // LSE is laid out (b, h, sq) in both.
    c.rows = int64_t(rows);
    for (size_t i = 0; i < rows; ++i)
      if (!testbed::lse_matches(gl[i], rl[i]) && c.lse_bad++ == 0)
        c.lse_first_bad = int64_t(i), c.lse_got = gl[i], c.lse_want = rl[i];
    *out = c;
  }
  cudaFree(ref), cudaFree(plain), cudaFree(ref_lse);
  return s;
}

}  // namespace warpspec::tools
