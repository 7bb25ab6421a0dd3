#pragma once
// Attention problems for the program: device buffers with random data, our kernel,
// timing with CUDA events (median; two input sets alternate so L2 does not flatter),
// and the error against the float32 reference. Shared by `warpspec attention` and
// `warpspec bench attention`.
#include <cuda_runtime.h>

#include <string>

#include "gemm_runner.hpp"  // Timing, parse_dtype
#include "warpspec/warpspec.hpp"

namespace warpspec::tools {

struct AttentionProblem {
  int64_t batch = 2, seqlen_q = 8192, seqlen_k = 8192, heads = 16, heads_kv = 16, head_dim = 128;
  bool causal = false;
  DType dtype = DType::kBF16;

  // 4·b·h·sq·sk·d (two GEMMs), halved for causal, as the FlashAttention papers count.
  double flops() const {
    const double f = 4.0 * double(batch) * double(heads) * double(seqlen_q) * double(seqlen_k) * double(head_dim);
    return causal ? f / 2 : f;
  }
  std::string describe() const;
};

// FlashAttention-3's acceptance rule: the error against the fp32 reference within 2x the
// error of the same computation done plainly in the low precision, plus a small floor.
inline bool attention_check_passes(double err, double err_plain, double err_lse) {
  return err <= 2 * err_plain + 1e-4 && err_lse <= 1e-2;
}

class AttentionRunner {
 public:
  explicit AttentionRunner(const AttentionProblem& p);
  ~AttentionRunner();
  AttentionRunner(const AttentionRunner&) = delete;
  AttentionRunner& operator=(const AttentionRunner&) = delete;

  const Status& status() const { return status_; }
  Status run(int set, cudaStream_t stream);
  Status time(int warmup, int iters, Timing* out);
  // Max |O - ref32| and max |plain low-precision - ref32| (FlashAttention-3's yardstick),
  // and the max LSE error; O and LSE poisoned before our launch (NaN shows as inf).
  Status check(double* err, double* err_plain, double* err_lse);

 private:
  AttentionArgs args_for(int set) const;
  AttentionProblem p_;
  Status status_;
  int sets_ = 2;
  void* q_[2] = {};
  void* k_[2] = {};
  void* v_[2] = {};
  void* o_ = nullptr;
  float* lse_ = nullptr;
};

}  // namespace warpspec::tools
