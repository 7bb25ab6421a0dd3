#pragma once
// GEMM problems for the program: device buffers with random data, our kernel and the peer
// on the same buffers (cuBLAS; cuBLASLt's FP8 matmul for e4m3, tools/cublaslt_fp8.hpp),
// timing (tools/timing.hpp: interleaved with the peer, inputs rotated past L2) and the error
// against an fp32 cuBLAS reference. Shared by `warpspec gemm`, `bench gemm` and `demo`.
#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gemm_scales.hpp"
#include "timing.hpp"
#include "warpspec/warpspec.hpp"

namespace warpspec::tools {

class CublasLtFp8;  // tools/cublaslt_fp8.hpp

struct GemmProblem {
  int64_t m = 4096, n = 4096, k = 4096, batch = 1;
  std::string layout = "tn";  // A then B: t = row-major A / K-major B... see layout_help
  DType in = DType::kBF16;  // bf16, fp16 or e4m3
  DType out = DType::kBF16;
  ScaleMode scale = ScaleMode::kNone;  // e4m3: tensor, row or block (random positive scales)
  bool fast_accum = false;             // e4m3: GemmArgs::use_fast_accum
  float alpha = 1.0f, beta = 0.0f;
  GemmRaster raster = GemmRaster::kHeuristic;
  int swizzle = 0, tile_n = 0;
  GemmDecomposition decomposition = GemmDecomposition::kHeuristic;
  int splits = 0;  // split-K only; 0 = automatic
  int cluster_m = 0, cluster_n = 0;  // GemmArgs::cluster_m/n; 0 x 0 = the library's choice
  GemmSchedule schedule = GemmSchedule::kHeuristic;  // GemmArgs::schedule
  // The fused epilogue (ours only: the peer runs the plain GEMM): a random per-column bias
  // of D's dtype, and an activation applied last.
  bool bias = false;
  GemmActivation activation = GemmActivation::kNone;
  bool fused() const { return bias || activation != GemmActivation::kNone; }
  // An e4m3 D (GemmArgs::scale_result, amax): D = e4m3(scale_result · x), 0 leaving it
  // empty (1); ours and the peer (cuBLASLt's D scale and AMAX_D) both compute amax.
  float scale_result = 0;
  // The bias's dtype: D's, or bf16 for an e4m3 D (as torch._scaled_mm takes it).
  DType bias_dtype() const { return out == DType::kE4M3 ? DType::kBF16 : out; }

  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(batch); }
  // The fewest bytes a call moves: A and B read once, C read (beta != 0), D written (FP8
  // scales, at most 1/128 of A's bytes in fp32, are left out).
  double bytes() const {
    const double in = double(dtype_size(this->in)), o = double(dtype_size(out));
    return double(batch) * ((double(m) * double(k) + double(k) * double(n)) * in +
                            double(m) * double(n) * o * (beta != 0.0f ? 2.0 : 1.0));
  }
  std::string describe() const;
};

inline constexpr const char* kLayoutHelp =
    "operand layouts, BLAS style: first letter A, second B; 't' = A row-major (K contiguous) / "
    "B row-major (N contiguous), 'n' = column-major. tn = both K-contiguous (the usual)";

// Parses "bf16"/"fp16"/"fp32"/"e4m3"; false if unknown.
bool parse_dtype(const std::string& s, DType* out);

// Activation names as warpspec.gemm's Python argument spells them: none, relu, gelu (erf),
// gelu_tanh, silu.
inline constexpr const char* kActivationNames[] = {"none", "relu", "gelu_tanh", "gelu", "silu"};
inline const char* activation_name(GemmActivation a) {
  switch (a) {
    case GemmActivation::kReLU: return "relu";
    case GemmActivation::kGeluTanh: return "gelu_tanh";
    case GemmActivation::kGeluErf: return "gelu";
    case GemmActivation::kSiLU: return "silu";
    default: return "none";
  }
}
inline bool parse_activation(const std::string& s, GemmActivation* out) {
  for (GemmActivation a : {GemmActivation::kNone, GemmActivation::kReLU, GemmActivation::kGeluTanh,
                           GemmActivation::kGeluErf, GemmActivation::kSiLU})
    if (s == activation_name(a)) {
      *out = a;
      return true;
    }
  return false;
}

// `bench gemm --versus-schedule / --versus-raster / --versus-cluster`: what the second run of
// ours changes (an empty field keeps the problem's own choice).
struct GemmVariant {
  std::optional<GemmSchedule> schedule;
  std::optional<GemmRaster> raster;
  std::optional<std::pair<int, int>> cluster;  // cluster_m, cluster_n (0 x 0: the library's choice)
  std::optional<int> swizzle;                  // GemmArgs::swizzle (0: the library's choice)
};

// Tile orders as the CLI spells them (--raster, --versus-raster): m, n, or anything else (auto).
inline GemmRaster parse_raster(const std::string& s) {
  return s == "m" ? GemmRaster::kAlongM : s == "n" ? GemmRaster::kAlongN : GemmRaster::kHeuristic;
}

// Schedule names as the CLI spells them (--schedule): auto, cooperative, pingpong.
inline const char* schedule_name(GemmSchedule s) {
  switch (s) {
    case GemmSchedule::kCooperative: return "cooperative";
    case GemmSchedule::kPingPong: return "pingpong";
    default: return "auto";
  }
}
inline bool parse_schedule(const std::string& s, GemmSchedule* out) {
  for (GemmSchedule v : {GemmSchedule::kHeuristic, GemmSchedule::kCooperative, GemmSchedule::kPingPong})
    if (s == schedule_name(v)) {
      *out = v;
      return true;
    }
  return false;
}

// The peer a GEMM of these inputs is timed against: cuBLAS, or cuBLASLt's FP8 matmul.
inline const char* gemm_peer_name(DType in) { return in == DType::kE4M3 ? "cuBLASLt" : "cuBLAS"; }

// `--check`: the relative Frobenius error (a summary) and, per element, how many of
// D's elements miss their own tolerance (one wrong row is a few hundred elements in
// millions, invisible to the Frobenius norm, so the check gates on both).
struct GemmCheck {
  double rel_error = 0;      // ||ours - ref||_F / ||ref||_F (inf with any NaN)
  double rel_error_limit = 0;  // testing/gemm_check.hpp's, plus FP8's accumulation bound
  double max_abs_error = 0;  // max |ours - ref| (inf with any NaN)
  int64_t elements = 0;
  int64_t bad = 0;           // elements over testing/gemm_check.hpp's tolerance (NaN counts)
  int64_t first_bad = -1;    // its index in D, -1 if none
  double first_bad_value = 0, first_bad_expected = 0;
  bool passes() const;
};
// One line: the errors, the count over tolerance and the first bad element, ok/FAILED;
// `peer`, when given, names whose D it was (else ours).
void print_check(const GemmCheck& c, const GemmProblem& p, const char* peer = nullptr);

class GemmRunner {
 public:
  // Allocates enough copies of A, B (and C) that cycling through them defeats L2 (FP8
  // scales: one set, tools/gemm_scales.hpp's layouts). `status()` says whether that worked.
  explicit GemmRunner(const GemmProblem& p, bool rotate = true);
  ~GemmRunner();
  GemmRunner(const GemmRunner&) = delete;
  GemmRunner& operator=(const GemmRunner&) = delete;

  const Status& status() const { return status_; }
  // Run ours with another cluster from now on (the same buffers; `bench gemm --cluster`).
  void set_cluster(int m, int n) { p_.cluster_m = m, p_.cluster_n = n; }
  void set_tile_n(int tile_n) { p_.tile_n = tile_n; }
  void set_schedule(GemmSchedule s) { p_.schedule = s; }
  Status run_ours(int set, cudaStream_t stream);
  // The configuration our call picks (warpspec::describe: the line WARPSPEC_LOG_CONFIG prints).
  Status describe_config(std::string* line) const;
  // The peer (gemm_peer_name); peer_unavailable() is empty when it runs the problem, else
  // why not (cuBLASLt has no algorithm for the combination): print "n/a".
  const char* peer_name() const { return gemm_peer_name(p_.in); }
  const std::string& peer_unavailable() const;
  // Ours (candidate 0) and, with `with_peer` (and the peer available), the peer (candidate
  // 1) interleaved with it, timed as tools/timing.hpp says, rotating input sets. With beta
  // != 0 the peer computes in place (C is its D), so before each call, outside the timed
  // events, C is copied into the buffer the call reads: the peer's D, and for ours a C
  // scratch buffer. Both then read a C that was just written, and neither call's time
  // includes a copy.
  // `control`: the peer a second time (candidate 2), in the same interleaving: how far the
  // peer's figure moves from its position alone, read beside the ratio.
  // `plain`: ours without the fused epilogue too (the last candidate), in the same
  // interleaving: what the epilogue costs (TimingResult::plain_cost).
  // `versus`: ours with that schedule and/or tile order too (before `plain`), in the same
  // interleaving: one choice against the other without a partner's clock in between
  // (TimingResult::versus_index).
  Status time(const TimingOptions& opt, bool with_peer, TimingResult* out, bool control = false, bool plain = false,
              const GemmVariant* versus = nullptr);
  // Ours against cuBLAS in fp32 (for FP8, of the dequantised inputs, testing/dequant.hpp),
  // alpha, beta*C, the bias and the activation applied on the host in double; D poisoned
  // with NaN before our launch. The peer's D (plain) is checked without the epilogue.
  // With `peer` (and the peer available), the peer's D too, against the same reference and
  // tolerance: a ratio then compares two right answers (and a scale layout the peer reads
  // otherwise than we meant shows here, not as a plausible time).
  Status check(GemmCheck* out, GemmCheck* peer = nullptr);

 private:
  GemmArgs args_for(int set, const void* c, bool fused = true) const;
  Status run_ours_reading(int set, const void* c, cudaStream_t stream, bool fused = true,
                          const GemmVariant* variant = nullptr);
  Status run_peer(int set, cudaStream_t stream);
  Status copy_c(int set, void* to, cudaStream_t stream);
  // The fp32 reference A·B into ref_ (and, for FP8, Σ|s·a·b| per element into *abs_sum).
  Status reference(std::vector<float>* abs_sum);
  // D (on the device) against the reference: alpha·ref + beta·C per element (cbytes: C's
  // host image, read when beta != 0).
  GemmCheck compare(const std::vector<float>& ref, const std::vector<float>& abs_sum,
                    const std::vector<uint8_t>& cbytes, bool fused) const;
  // FP8: the scales (filled) and cuBLASLt's matmul on them.
  void init_fp8();
  GemmProblem p_;
  Status status_;
  int sets_ = 1;
  std::vector<void*> a_, b_, c_;
  void* c_scratch_ = nullptr;  // beta != 0: the C our timed calls read
  void* d_ = nullptr;
  void* bias_ = nullptr;  // --bias: N elements of D's dtype
  void* ref_ = nullptr;  // fp32 reference
  void* cublas_ = nullptr;
  float* scale_a_ = nullptr;        // FP8: scale_a_layout
  float* scale_b_ = nullptr;        // FP8: scale_b_layout
  float* peer_scale_b_ = nullptr;   // FP8 block: peer_scale_b_layout (else scale_b_)
  std::unique_ptr<CublasLtFp8> lt_;  // FP8's peer
  float* result_scale_ = nullptr;    // e4m3 D: scale_result (1 when not given), ours and the peer's
  float* amax_ = nullptr;            // e4m3 D: [0] ours, [1] the peer's
  std::string peer_unavailable_;
};

}  // namespace warpspec::tools
