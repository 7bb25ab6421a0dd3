#include "gemm_runner.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "../testing/convert.hpp"
#include "../testing/dequant.hpp"
#include "../testing/fill.hpp"
#include "../testing/gemm_check.hpp"
#include "shapes.hpp"
#include "../testing/gemm_cublas.hpp"
#include "cublaslt_fp8.hpp"

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

Status fill_scales(float* p, const ScaleLayout& l, uint64_t seed) {
  const cudaError_t e = testbed::fill_scales(p, l.rows, l.cols, l.stride_r, l.stride_c, seed);
  return e == cudaSuccess ? Status::Ok() : cuda_error("scale fill kernel", e);
}

testbed::ScaleMap scale_map(const float* s, const ScaleLayout& l) {
  return {s, l.block_r, l.block_c, l.stride_r, l.stride_c};
}

// Device floats for the FP8 reference, freed on scope exit.
struct DeviceFloats {
  float* p = nullptr;
  cudaError_t error;
  explicit DeviceFloats(size_t n) { error = cudaMalloc(&p, std::max<size_t>(n, 1) * 4); }
  ~DeviceFloats() { cudaFree(p); }
};

}  // namespace

std::string GemmProblem::describe() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%ldx%ldx%ld%s %s %s->%s", long(m), long(n), long(k),
                batch > 1 ? (" L=" + std::to_string(batch)).c_str() : "", layout.c_str(), dtype_name(in),
                dtype_name(out));
  std::string s = buf;  // FP8's scales and a forced decomposition are part of the problem's name
  if (scale != ScaleMode::kNone) s += std::string(" ") + scale_mode_name(scale) + (fast_accum ? " fastacc" : "");
  if (decomposition == GemmDecomposition::kDataParallel) s += " dp";
  if (decomposition == GemmDecomposition::kStreamK) s += " streamk";
  if (decomposition == GemmDecomposition::kSplitK) s += splits != 0 ? " splitk" + std::to_string(splits) : " splitk";
  if (cluster_m != 0 || cluster_n != 0) s += " c" + std::to_string(cluster_m) + "x" + std::to_string(cluster_n);
  if (tile_n != 0) s += " n" + std::to_string(tile_n);
  if (raster == GemmRaster::kAlongM) s += " along-m";
  if (raster == GemmRaster::kAlongN) s += " along-n";
  if (swizzle != 0) s += " sw" + std::to_string(swizzle);
  if (beta != 0.0f) {
    char b[32];
    std::snprintf(b, sizeof b, " beta=%g", double(beta));
    s += b;
  }
  if (schedule != GemmSchedule::kHeuristic) s += std::string(" ") + schedule_name(schedule);
  if (bias) s += " +bias";
  if (activation != GemmActivation::kNone) s += std::string(" ") + activation_name(activation);
  return s;
}

bool parse_dtype(const std::string& s, DType* out) {
  if (s == "bf16") *out = DType::kBF16;
  else if (s == "fp16") *out = DType::kFP16;
  else if (s == "fp32") *out = DType::kFP32;
  else if (s == "e4m3") *out = DType::kE4M3;
  else return false;
  return true;
}

GemmRunner::GemmRunner(const GemmProblem& p, bool rotate) : p_(p) {
  if (!fits_in_memory({p.batch, p.m, p.k}, 4) || !fits_in_memory({p.batch, p.k, p.n}, 4) ||
      !fits_in_memory({p.batch, p.m, p.n}, 4)) {  // fp32 references of each
    char why[320];
    std::snprintf(why, sizeof why, "--batch x --m x --n x --k: %lld x %lld x %lld x %lld pass 2^48 bytes in a matrix, more "
                                   "than any GPU holds",
                                   (long long)p.batch, (long long)p.m, (long long)p.n, (long long)p.k);
    status_ = invalid_argument(why);
    return;
  }
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
  if (p.bias) alloc(size_t(p.n) * dtype_size(p.bias_dtype()), &bias_);
  if (p.out == DType::kE4M3) {
    alloc(sizeof(float), reinterpret_cast<void**>(&result_scale_));
    alloc(2 * sizeof(float), reinterpret_cast<void**>(&amax_));
    const float rs = p.scale_result != 0 ? p.scale_result : 1.0f;
    if (status_.ok()) {
      const cudaError_t e = cudaMemcpy(result_scale_, &rs, sizeof rs, cudaMemcpyHostToDevice);
      if (e != cudaSuccess) status_ = cuda_error("scale_result", e);
    }
  }
  alloc(size_t(p.batch * p.m * p.n) * 4, &ref_);
  if (!status_.ok()) return;
  for (int s = 0; s < sets_ && status_.ok(); ++s) {
    status_ = fill(a_[s], p.in, a_bytes / e_in, 1000 + 3 * s);
    if (status_.ok()) status_ = fill(b_[s], p.in, b_bytes / e_in, 1001 + 3 * s);
    if (status_.ok() && c_[s]) status_ = fill(c_[s], p.out, c_bytes / e_out, 1002 + 3 * s);
  }
  if (status_.ok() && bias_) status_ = fill(bias_, p.bias_dtype(), size_t(p.n), 999);
  cublasHandle_t h = nullptr;
  if (status_.ok() && cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) status_ = internal_error("cublasCreate failed");
  cublas_ = h;
  if (status_.ok() && (p.in == DType::kE4M3) != (p.scale != ScaleMode::kNone))
    status_ = invalid_argument("GemmProblem: e4m3 inputs and only they have a scale mode");
  if (status_.ok() && p.scale != ScaleMode::kNone) init_fp8();
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
  cudaFree(bias_);
  cudaFree(result_scale_);
  cudaFree(amax_);
  cudaFree(ref_);
  cudaFree(scale_a_);
  if (peer_scale_b_ != scale_b_) cudaFree(peer_scale_b_);
  cudaFree(scale_b_);
  if (cublas_) cublasDestroy(static_cast<cublasHandle_t>(cublas_));
}

// One set of scales serves every input set (they are 1/128 of A's bytes or less), ours and
// the peer's (the peer's own copy of block scale_b holds the same values: the same seed).
void GemmRunner::init_fp8() {
  const GemmProblem& p = p_;
  const ScaleLayout la = scale_a_layout(p.scale, p.m, p.k), lb = scale_b_layout(p.scale, p.k, p.n),
                    lp = peer_scale_b_layout(p.scale, p.k, p.n);
  auto alloc = [&](const ScaleLayout& l, float** ptr) {  // zeroed: the padding is defined too
    cudaError_t e = cudaMalloc(ptr, size_t(l.elements()) * 4);
    if (e == cudaSuccess) e = cudaMemset(*ptr, 0, size_t(l.elements()) * 4);
    if (e != cudaSuccess) status_ = cuda_error("allocating scales", e);
    return e == cudaSuccess;
  };
  if (!alloc(la, &scale_a_) || !alloc(lb, &scale_b_)) return;
  peer_scale_b_ = scale_b_;
  if (!same_layout(lb, lp) && !alloc(lp, &peer_scale_b_)) return;
  status_ = fill_scales(scale_a_, la, 2000);
  if (status_.ok()) status_ = fill_scales(scale_b_, lb, 2001);
  if (status_.ok() && peer_scale_b_ != scale_b_) status_ = fill_scales(peer_scale_b_, lp, 2001);
  if (!status_.ok()) return;
  LtFp8Problem lt;
  lt.m = p.m, lt.n = p.n, lt.k = p.k, lt.batch = p.batch, lt.out = p.out, lt.alpha = p.alpha, lt.beta = p.beta;
  lt.scale = p.scale, lt.fast_accum = p.fast_accum, lt.scale_a = scale_a_, lt.scale_b = peer_scale_b_;
  if (p.out == DType::kE4M3) lt.scale_d = result_scale_, lt.amax = amax_ + 1;
  lt_ = std::make_unique<CublasLtFp8>(lt);
  status_ = lt_->status();
  peer_unavailable_ = lt_->unavailable();
  // cuBLASLt reads A row-major and B column-major only, as ours (whose refusal names the
  // layout): another layout has no FP8 peer either.
  if (p.layout != "tn") peer_unavailable_ = "cuBLASLt's FP8 matmul takes the tn layout only";
}

const std::string& GemmRunner::peer_unavailable() const { return peer_unavailable_; }

GemmArgs GemmRunner::args_for(int set, const void* c, bool fused) const {
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
  g.schedule = p.schedule;
  if (p.scale != ScaleMode::kNone) {
    g.scale_a = scale_a_layout(p.scale, p.m, p.k).view(scale_a_);
    g.scale_b = scale_b_layout(p.scale, p.k, p.n).view(scale_b_);
    g.scaling = p.scale == ScaleMode::kBlock ? GemmScaling::kBlock : GemmScaling::kTensorOrRow;
    g.use_fast_accum = p.fast_accum;
  }
  if (fused && bias_) {
    g.bias.data = bias_;
    g.bias.dtype = p.bias_dtype();
    g.bias.rank = 1;
    g.bias.shape[0] = p.n;
    g.bias.stride[0] = 1;
  }
  if (fused) g.activation = p.activation;
  if (p.out == DType::kE4M3) {
    auto scalar = [](float* x) {
      TensorView v;
      v.data = x;
      v.dtype = DType::kFP32;
      v.rank = 1;
      v.shape[0] = 1;
      v.stride[0] = 1;
      return v;
    };
    if (p.scale_result != 0) g.scale_result = scalar(result_scale_);
    g.amax = scalar(amax_);
  }
  return g;
}

Status GemmRunner::run_ours_reading(int set, const void* c, cudaStream_t stream, bool fused,
                                    const GemmVariant* variant) {
  GemmArgs g = args_for(set % sets_, c, fused);
  if (variant != nullptr && variant->schedule) g.schedule = *variant->schedule;
  if (variant != nullptr && variant->raster) g.raster = *variant->raster;
  if (variant != nullptr && variant->cluster) std::tie(g.cluster_m, g.cluster_n) = *variant->cluster;
  if (variant != nullptr && variant->swizzle) g.swizzle = *variant->swizzle;
  return gemm(g, stream);
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
Status GemmRunner::run_peer(int set, cudaStream_t stream) {
  set %= sets_;
  if (lt_) return lt_->run(a_[set], b_[set], d_, stream);
  return cublas_gemm(static_cast<cublasHandle_t>(cublas_), p_, a_[set], b_[set], d_, p_.out, p_.alpha, p_.beta, stream);
}

Status GemmRunner::time(const TimingOptions& opt, bool with_peer, TimingResult* out, bool control, bool plain,
                        const GemmVariant* versus) {
  WARPSPEC_RETURN_IF_ERROR(status_);
  if (plain && !p_.fused()) return invalid_argument("plain: ours without the epilogue needs a bias or an activation");
  TimingStream stream;
  WARPSPEC_RETURN_IF_ERROR(stream.status());
  const bool beta = p_.beta != 0.0f;
  std::vector<Candidate> cands(1);
  cands[0].run = [this, beta](int i, cudaStream_t s) { return run_ours_reading(i, beta ? c_scratch_ : c_[i % sets_], s); };
  if (beta) cands[0].prepare = [this](int i, cudaStream_t s) { return copy_c(i, c_scratch_, s); };
  if (with_peer && peer_unavailable_.empty()) {
    cands.emplace_back();
    cands[1].run = [this](int i, cudaStream_t s) { return run_peer(i, s); };
    if (beta) cands[1].prepare = [this](int i, cudaStream_t s) { return copy_c(i, d_, s); };
    if (control) cands.push_back(cands[1]);
  }
  int versus_index = -1;
  if (versus != nullptr) {
    Candidate c = cands[0];
    const GemmVariant other = *versus;
    c.run = [this, beta, other](int i, cudaStream_t s) {
      return run_ours_reading(i, beta ? c_scratch_ : c_[i % sets_], s, /*fused=*/true, &other);
    };
    versus_index = int(cands.size());
    cands.push_back(c);
  }
  if (plain) {
    Candidate c = cands[0];
    c.run = [this, beta](int i, cudaStream_t s) {
      return run_ours_reading(i, beta ? c_scratch_ : c_[i % sets_], s, /*fused=*/false);
    };
    cands.push_back(c);
  }
  WARPSPEC_RETURN_IF_ERROR(time_interleaved(cands, opt, stream.get(), out));
  out->has_plain = plain;
  out->versus_index = versus_index;
  out->input_sets = sets_;
  out->has_control = control && with_peer && peer_unavailable_.empty();
  return Status::Ok();
}

bool GemmCheck::passes() const { return bad == 0 && rel_error <= rel_error_limit; }

void print_check(const GemmCheck& c, const GemmProblem& p, const char* peer) {
  std::printf("%s%scheck against cuBLAS (fp32%s): relative error %.3g (limit %.3g), max abs error %.3g, %ld of %ld "
              "elements over their tolerance",
              peer ? peer : "", peer ? "'s D, " : "", p.in == DType::kE4M3 ? ", dequantised inputs" : "", c.rel_error,
              c.rel_error_limit, c.max_abs_error, long(c.bad), long(c.elements));
  if (c.bad > 0) {
    const int64_t mn = p.m * p.n, i = c.first_bad;
    std::printf(" (first: batch %ld row %ld col %ld = %.6g, expected %.6g)", long(i / mn), long(i % mn / p.n),
                long(i % p.n), c.first_bad_value, c.first_bad_expected);
  }
  std::printf(": %s\n", c.passes() ? "ok" : "FAILED");
}

// 16-bit: cuBLAS on the inputs themselves. FP8: cuBLAS on the inputs dequantised to fp32
// (each element times its scale), and first on their absolute values for Σ|s·a·b|.
Status GemmRunner::reference(std::vector<float>* abs_sum) {
  const GemmProblem& p = p_;
  cublasHandle_t h = static_cast<cublasHandle_t>(cublas_);
  if (p.scale == ScaleMode::kNone) return cublas_gemm(h, p, a_[0], b_[0], ref_, DType::kFP32, 1.0f, 0.0f, nullptr);
  DeviceFloats a(size_t(p.batch * p.m * p.k)), b(size_t(p.batch * p.k * p.n));
  if (a.error != cudaSuccess || b.error != cudaSuccess)
    return cuda_error("cudaMalloc(dequantised inputs)", a.error != cudaSuccess ? a.error : b.error);
  // Element (r, c) of A at r * lda + c (row-major) or c * lda + r; of B likewise with ldb.
  const testbed::E4m3Matrix ma{a_[0], p.batch, p.m, p.k, p.m * p.k, a_row_major(p) ? lda(p) : 1,
                               a_row_major(p) ? 1 : lda(p)};
  const testbed::E4m3Matrix mb{b_[0], p.batch, p.k, p.n, p.k * p.n, b_row_major(p) ? ldb(p) : 1,
                               b_row_major(p) ? 1 : ldb(p)};
  const testbed::ScaleMap sa = scale_map(scale_a_, scale_a_layout(p.scale, p.m, p.k)),
                          sb = scale_map(scale_b_, scale_b_layout(p.scale, p.k, p.n));
  GemmProblem dense = p;  // the dequantised operands: fp32, row-major
  dense.in = DType::kFP32, dense.layout = "tt";
  // Σ|s·a·b| first (copied out), then the signed reference, which stays in ref_.
  for (bool absolute : {true, false}) {
    cudaError_t e = testbed::dequantize_e4m3(ma, sa, absolute, a.p);
    if (e == cudaSuccess) e = testbed::dequantize_e4m3(mb, sb, absolute, b.p);
    if (e != cudaSuccess) return cuda_error("dequantising the inputs", e);
    WARPSPEC_RETURN_IF_ERROR(cublas_gemm(h, dense, a.p, b.p, ref_, DType::kFP32, 1.0f, 0.0f, nullptr));
    if (!absolute) break;
    abs_sum->resize(size_t(p.batch * p.m * p.n));
    e = cudaMemcpy(abs_sum->data(), ref_, abs_sum->size() * 4, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) return cuda_error("the FP8 reference", e);
  }
  return Status::Ok();
}

GemmCheck GemmRunner::compare(const std::vector<float>& ref, const std::vector<float>& abs_sum,
                              const std::vector<uint8_t>& cbytes, bool fused) const {
  const size_t n = ref.size();
  std::vector<uint8_t> got(n * dtype_size(p_.out));
  cudaMemcpy(got.data(), d_, got.size(), cudaMemcpyDeviceToHost);
  auto value = [&](const std::vector<uint8_t>& v, size_t i) { return double(testbed::load_float(p_.out, v.data(), i)); };
  const bool fp8 = !abs_sum.empty();
  GemmCheck r;
  r.elements = int64_t(n);
  std::vector<uint8_t> bias;  // the fused epilogue's bias (bias_dtype()), one per column
  const bool act = fused && p_.activation != GemmActivation::kNone;
  if (fused && bias_) {
    bias.resize(size_t(p_.n) * dtype_size(p_.bias_dtype()));
    cudaMemcpy(bias.data(), bias_, bias.size(), cudaMemcpyDeviceToHost);
  }
  auto bias_value = [&](size_t j) { return double(testbed::load_float(p_.bias_dtype(), bias.data(), j)); };
  const bool e4m3 = p_.out == DType::kE4M3;
  const double rs = p_.scale_result != 0 ? double(p_.scale_result) : 1.0;
  double num = 0, den = 0, acc = 0;  // acc: Σ of FP8's accumulation bound squared
  for (size_t i = 0; i < n; ++i) {
    const double beta_c = p_.beta != 0.0f ? double(p_.beta) * value(cbytes, i) : 0.0;
    const double linear = double(p_.alpha) * ref[i] + (bias.empty() ? 0.0 : bias_value(i % size_t(p_.n))) + beta_c;
    double expect = act ? testbed::activate(p_.activation, linear) : linear;
    if (e4m3) expect = std::clamp(rs * expect, -448.0, 448.0);  // scaled, saturated
    const double v = value(got, i), diff = v - expect;
    num += diff * diff;
    den += expect * expect;
    r.max_abs_error = std::isnan(diff) ? INFINITY : std::max(r.max_abs_error, std::fabs(diff));
    // An activation's slope is at most ~1.13 (GELU), and its formula in the kernel is an
    // approximation good to ~1e-6 of its argument: the tolerance at its output, widened so.
    double tol =
        fp8 ? testbed::gemm_fp8_element_tolerance(p_.out, p_.fast_accum, p_.alpha, beta_c, expect, abs_sum[i])
            : testbed::gemm_element_tolerance(p_.out, p_.k, p_.alpha, p_.beta, expect);
    if (act) tol = 1.2 * tol + 1e-6 * (1.0 + std::fabs(linear));
    // e4m3: the accumulation's part of tol is in x's units (times scale_result), plus the
    // subnormals' absolute step (2^-9).
    if (e4m3) tol = (tol - 2 * testbed::gemm_output_eps(p_.out) * std::fabs(expect)) * rs +
                    2 * testbed::gemm_output_eps(p_.out) * std::fabs(expect) + std::ldexp(1.0, -9);
    if (fp8) acc += std::pow(testbed::fp8_accumulation_eps(p_.fast_accum) * p_.alpha * abs_sum[i] * rs, 2);
    if (!(std::fabs(diff) <= tol)) {
      if (r.bad++ == 0) r.first_bad = int64_t(i), r.first_bad_value = v, r.first_bad_expected = expect;
    }
  }
  r.rel_error = std::isnan(num) ? INFINITY : den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  // FP8: the accumulation's bound over all of D, relative to D, on top of the output's own.
  r.rel_error_limit = testbed::gemm_frobenius_tolerance(p_.out) + (den > 0 ? std::sqrt(acc / den) : 0.0);
  return r;
}

Status GemmRunner::check(GemmCheck* out, GemmCheck* peer) {
  WARPSPEC_RETURN_IF_ERROR(status_);
  const size_t n = size_t(p_.batch * p_.m * p_.n);
  // Reference A·B in fp32; alpha and beta·C are applied on the host (compare).
  std::vector<float> abs_sum;  // FP8: Σ|s·a·b| per element
  WARPSPEC_RETURN_IF_ERROR(reference(&abs_sum));
  std::vector<float> ref(n);
  std::vector<uint8_t> cbytes;
  cudaMemcpy(ref.data(), ref_, n * 4, cudaMemcpyDeviceToHost);
  if (p_.beta != 0.0f) {
    cbytes.resize(n * dtype_size(p_.out));
    cudaMemcpy(cbytes.data(), c_[0], cbytes.size(), cudaMemcpyDeviceToHost);
  }
  for (bool ours : {true, false}) {
    if (!ours && (peer == nullptr || !peer_unavailable_.empty())) break;
    // The peer computes in place: D holds C first when beta != 0, else poison, as for ours.
    cudaError_t e = !ours && p_.beta != 0.0f ? cudaMemcpy(d_, c_[0], n * dtype_size(p_.out), cudaMemcpyDeviceToDevice)
                                             : testbed::poison(d_, n * dtype_size(p_.out));
    if (e != cudaSuccess) return cuda_error("preparing D", e);
    WARPSPEC_RETURN_IF_ERROR(ours ? run_ours(0, nullptr) : run_peer(0, nullptr));
    e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return cuda_error(ours ? "running the GEMM" : "running the peer", e);
    *(ours ? out : peer) = compare(ref, abs_sum, cbytes, /*fused=*/ours);
  }
  return Status::Ok();
}

}  // namespace warpspec::tools
