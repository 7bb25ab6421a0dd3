#include "gemm_runner.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "../testing/convert.hpp"
#include "../testing/fill.cuh"
#include "../testing/gemm_check.hpp"
#include "../testing/gemm_cublas.hpp"

namespace warpspec::tools {
namespace {

// Layout letters: A 't' = row-major M x K; B 't' = row-major K x N.
bool a_row_major(const GemmProblem& p) { return p.layout[0] == 't'; }
bool b_row_major(const GemmProblem& p) { return p.layout[1] == 't'; }
int64_t lda(const GemmProblem& p) { return a_row_major(p) ? p.k : p.m; }
int64_t ldb(const GemmProblem& p) { return b_row_major(p) ? p.n : p.k; }

testbed::CublasOperand operand_a(const GemmProblem& p, const void* a) {
  return {a, a_row_major(p), lda(p), p.m * p.k};
}
testbed::CublasOperand operand_b(const GemmProblem& p, const void* b) {
  return {b, b_row_major(p), ldb(p), p.k * p.n};
}

Status cublas_gemm(cublasHandle_t h, const GemmProblem& p, const void* a, const void* b, void* d, DType out,
                   float alpha, float beta, cudaStream_t stream) {
  const cublasStatus_t s = testbed::cublas_gemm_row_major(h, p.in, out, p.m, p.n, p.k, p.batch, operand_a(p, a),
                                                          operand_b(p, b), d, alpha, beta, stream);
  if (s != CUBLAS_STATUS_SUCCESS) return internal_error(std::string("cuBLAS: ") + cublasGetStatusString(s));
  return Status::Ok();
}

Status fill(void* p, DType t, size_t n, uint64_t seed) {
  const cudaError_t e = testbed::fill_uniform(p, t, n, seed);
  return e == cudaSuccess ? Status::Ok() : cuda_error("fill kernel", e);
}

}  // namespace

std::string GemmProblem::describe() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%ldx%ldx%ld%s %s %s->%s", long(m), long(n), long(k),
                batch > 1 ? (" L=" + std::to_string(batch)).c_str() : "", layout.c_str(), dtype_name(in),
                dtype_name(out));
  std::string s = buf;  // a forced decomposition is part of the problem's name
  if (decomposition == GemmDecomposition::kDataParallel) s += " dp";
  if (decomposition == GemmDecomposition::kStreamK) s += " streamk";
  if (decomposition == GemmDecomposition::kSplitK) s += splits != 0 ? " splitk" + std::to_string(splits) : " splitk";
  if (cluster_m != 0 || cluster_n != 0) s += " c" + std::to_string(cluster_m) + "x" + std::to_string(cluster_n);
  return s;
}

bool parse_dtype(const std::string& s, DType* out) {
  if (s == "bf16") *out = DType::kBF16;
  else if (s == "fp16") *out = DType::kFP16;
  else if (s == "fp32") *out = DType::kFP32;
  else return false;
  return true;
}

GemmRunner::GemmRunner(const GemmProblem& p, bool rotate) : p_(p) {
  const size_t e_in = dtype_size(p.in), e_out = dtype_size(p.out);
  const size_t a_bytes = size_t(p.batch * p.m * p.k) * e_in, b_bytes = size_t(p.batch * p.k * p.n) * e_in;
  const size_t c_bytes = size_t(p.batch * p.m * p.n) * e_out;
  const size_t set_bytes = a_bytes + b_bytes + (p.beta != 0.0f ? c_bytes : 0);
  int device = 0;
  cudaGetDevice(&device);
  int l2 = 0;
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
  // Enough sets that one pass over them is at least 3x the L2.
  sets_ = rotate ? int(std::clamp<size_t>((3 * size_t(l2) + set_bytes - 1) / std::max<size_t>(set_bytes, 1), 1, 32)) : 1;
  auto alloc = [&](size_t bytes, void** ptr) {
    if (!status_.ok()) return;
    cudaError_t e = cudaMalloc(ptr, std::max<size_t>(bytes, 16));
    if (e != cudaSuccess) status_ = cuda_error("cudaMalloc(" + std::to_string(bytes) + ")", e);
  };
  a_.assign(sets_, nullptr), b_.assign(sets_, nullptr), c_.assign(sets_, nullptr);
  for (int s = 0; s < sets_; ++s) {
    alloc(a_bytes, &a_[s]);
    alloc(b_bytes, &b_[s]);
    if (p.beta != 0.0f) alloc(c_bytes, &c_[s]);
  }
  alloc(c_bytes, &d_);
  if (p.beta != 0.0f) alloc(c_bytes, &c_scratch_);
  alloc(size_t(p.batch * p.m * p.n) * 4, &ref_);
  if (!status_.ok()) return;
  for (int s = 0; s < sets_ && status_.ok(); ++s) {
    status_ = fill(a_[s], p.in, a_bytes / e_in, 1000 + 3 * s);
    if (status_.ok()) status_ = fill(b_[s], p.in, b_bytes / e_in, 1001 + 3 * s);
    if (status_.ok() && c_[s]) status_ = fill(c_[s], p.out, c_bytes / e_out, 1002 + 3 * s);
  }
  cublasHandle_t h = nullptr;
  if (status_.ok() && cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) status_ = internal_error("cublasCreate failed");
  cublas_ = h;
  if (status_.ok()) {
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) status_ = cuda_error("initialising inputs", e);
  }
}

GemmRunner::~GemmRunner() {
  for (void* x : a_) cudaFree(x);
  for (void* x : b_) cudaFree(x);
  for (void* x : c_) cudaFree(x);
  cudaFree(c_scratch_);
  cudaFree(d_);
  cudaFree(ref_);
  if (cublas_) cublasDestroy(static_cast<cublasHandle_t>(cublas_));
}

GemmArgs GemmRunner::args_for(int set, const void* c) const {
  const GemmProblem& p = p_;
  GemmArgs g;
  g.a = TensorView::batched_matrix(a_[set], p.in, p.batch, p.m, p.k, lda(p), p.m * p.k, a_row_major(p));
  g.b = TensorView::batched_matrix(b_[set], p.in, p.batch, p.k, p.n, ldb(p), p.k * p.n, b_row_major(p));
  g.d = TensorView::batched_matrix(d_, p.out, p.batch, p.m, p.n, p.n, p.m * p.n, true);
  if (p.beta != 0.0f) g.c = TensorView::batched_matrix(c, p.out, p.batch, p.m, p.n, p.n, p.m * p.n, true);
  g.alpha = p.alpha;
  g.beta = p.beta;
  g.raster = p.raster;
  g.swizzle = p.swizzle;
  g.tile_n = p.tile_n;
  g.decomposition = p.decomposition;
  g.splits = p.splits;
  g.cluster_m = p.cluster_m;
  g.cluster_n = p.cluster_n;
  return g;
}

Status GemmRunner::run_ours_reading(int set, const void* c, cudaStream_t stream) {
  return gemm(args_for(set % sets_, c), stream);
}

Status GemmRunner::describe_config(std::string* line) const {
  WARPSPEC_RETURN_IF_ERROR(status_);
  return warpspec::describe(args_for(0, c_[0]), line);
}

Status GemmRunner::run_ours(int set, cudaStream_t stream) { return run_ours_reading(set, c_[set % sets_], stream); }

Status GemmRunner::copy_c(int set, void* to, cudaStream_t stream) {
  const cudaError_t e = cudaMemcpyAsync(to, c_[set % sets_], size_t(p_.batch * p_.m * p_.n) * dtype_size(p_.out),
                                        cudaMemcpyDeviceToDevice, stream);
  return e == cudaSuccess ? Status::Ok() : cuda_error("copying C", e);
}

// In place: with beta != 0, D must already hold C (copy_c, outside the timed events).
Status GemmRunner::run_cublas(int set, cudaStream_t stream) {
  set %= sets_;
  return cublas_gemm(static_cast<cublasHandle_t>(cublas_), p_, a_[set], b_[set], d_, p_.out, p_.alpha, p_.beta, stream);
}

Status GemmRunner::time(const TimingOptions& opt, bool with_peer, TimingResult* out) {
  WARPSPEC_RETURN_IF_ERROR(status_);
  TimingStream stream;
  WARPSPEC_RETURN_IF_ERROR(stream.status());
  const bool beta = p_.beta != 0.0f;
  std::vector<Candidate> cands(1);
  cands[0].run = [this, beta](int i, cudaStream_t s) { return run_ours_reading(i, beta ? c_scratch_ : c_[i % sets_], s); };
  if (beta) cands[0].prepare = [this](int i, cudaStream_t s) { return copy_c(i, c_scratch_, s); };
  if (with_peer) {
    cands.emplace_back();
    cands[1].run = [this](int i, cudaStream_t s) { return run_cublas(i, s); };
    if (beta) cands[1].prepare = [this](int i, cudaStream_t s) { return copy_c(i, d_, s); };
  }
  return time_interleaved(cands, opt, stream.get(), out);
}

bool GemmCheck::passes(DType out) const { return bad == 0 && rel_error <= testbed::gemm_frobenius_tolerance(out); }

void print_check(const GemmCheck& c, const GemmProblem& p) {
  std::printf("check against cuBLAS (fp32): relative error %.3g (limit %.3g), max abs error %.3g, %ld of %ld elements "
              "over their tolerance",
              c.rel_error, testbed::gemm_frobenius_tolerance(p.out), c.max_abs_error, long(c.bad), long(c.elements));
  if (c.bad > 0) {
    const int64_t mn = p.m * p.n, i = c.first_bad;
    std::printf(" (first: batch %ld row %ld col %ld = %.6g, expected %.6g)", long(i / mn), long(i % mn / p.n),
                long(i % p.n), c.first_bad_value, c.first_bad_expected);
  }
  std::printf(": %s\n", c.passes(p.out) ? "ok" : "FAILED");
}

Status GemmRunner::check(GemmCheck* out) {
  WARPSPEC_RETURN_IF_ERROR(status_);
  const size_t n = size_t(p_.batch * p_.m * p_.n);
  // Reference A·B in fp32; alpha and beta·C are applied on the host below.
  WARPSPEC_RETURN_IF_ERROR(cublas_gemm(static_cast<cublasHandle_t>(cublas_), p_, a_[0], b_[0], ref_, DType::kFP32,
                                       1.0f, 0.0f, nullptr));
  cudaError_t e = testbed::poison(d_, n * dtype_size(p_.out));
  if (e != cudaSuccess) return cuda_error("poisoning D", e);
  WARPSPEC_RETURN_IF_ERROR(run_ours(0, nullptr));
  e = cudaDeviceSynchronize();
  if (e != cudaSuccess) return cuda_error("running the GEMM", e);
  std::vector<float> ref(n);
  std::vector<uint8_t> got(n * dtype_size(p_.out)), cbytes;
  cudaMemcpy(ref.data(), ref_, n * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(got.data(), d_, got.size(), cudaMemcpyDeviceToHost);
  if (p_.beta != 0.0f) {
    cbytes.resize(got.size());
    cudaMemcpy(cbytes.data(), c_[0], cbytes.size(), cudaMemcpyDeviceToHost);
  }
  auto value = [&](const std::vector<uint8_t>& v, size_t i) { return double(testbed::load_float(p_.out, v.data(), i)); };
  GemmCheck r;
  r.elements = int64_t(n);
  double num = 0, den = 0;
  for (size_t i = 0; i < n; ++i) {
    const double expect = double(p_.alpha) * ref[i] + (p_.beta != 0.0f ? double(p_.beta) * value(cbytes, i) : 0.0);
    const double v = value(got, i), diff = v - expect;
    num += diff * diff;
    den += expect * expect;
    r.max_abs_error = std::isnan(diff) ? INFINITY : std::max(r.max_abs_error, std::fabs(diff));
    if (!(std::fabs(diff) <= testbed::gemm_element_tolerance(p_.out, p_.k, p_.alpha, p_.beta, expect))) {
      if (r.bad++ == 0) r.first_bad = int64_t(i), r.first_bad_value = v, r.first_bad_expected = expect;
    }
  }
  r.rel_error = std::isnan(num) ? INFINITY : den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  *out = r;
  return Status::Ok();
}

}  // namespace warpspec::tools
