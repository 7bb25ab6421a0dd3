#pragma once
// Attention problems for the program: device buffers with random data, our kernel,
// timing (tools/timing.hpp; two input sets alternate so L2 does not flatter),
// and the error against the float32 reference. Shared by `warpspec attention` and
// `warpspec bench attention`.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "../testing/attention_check.hpp"
#include "../testing/mask_count.hpp"
#include "gemm_runner.hpp"  // parse_dtype
#include "timing.hpp"
#include "warpspec/warpspec.hpp"

namespace warpspec::tools {

struct AttentionProblem {
  int64_t batch = 2, seqlen_q = 8192, seqlen_k = 8192, heads = 16, heads_kv = 16, head_dim = 128;
  bool causal = false;
  DType dtype = DType::kBF16;
  int64_t window_left = -1, window_right = -1;  // -1: unbounded
  float softcap = 0.0f;
  // Variable length: one self-attention sequence of each length, packed (batch, seqlen_q
  // and seqlen_k are then ignored). Empty: the dense batch.
  std::vector<int64_t> varlen;

  // 4·d FLOPs (two GEMMs) per visible (query, key) pair, per sequence and head: sq·sk
  // pairs, or those the causal mask and the window leave (bottom-right aligned).
  double flops() const {
    const double per_pair = 4.0 * double(heads) * double(head_dim);
    if (varlen.empty())
      return per_pair * double(batch) * testbed::attention_pairs(seqlen_q, seqlen_k, causal, window_left, window_right);
    double pairs = 0;
    for (int64_t s : varlen) pairs += testbed::attention_pairs(s, s, causal, window_left, window_right);
    return per_pair * pairs;
  }
  int64_t total_tokens() const {
    int64_t t = 0;
    for (int64_t s : varlen) t += s;
    return t;
  }
  // The fewest bytes a call moves: Q, K and V read once, O (bf16 for e4m3) and the fp32
  // LSE written.
  double bytes() const {
    const double e = double(dtype_size(dtype)), eo = dtype == DType::kE4M3 ? 2.0 : e;
    return double(batch) * ((e + eo) * double(seqlen_q) * double(heads) * double(head_dim) +
                            2.0 * double(seqlen_k) * double(heads_kv) * double(head_dim) * e +
                            4.0 * double(heads) * double(seqlen_q));
  }
  std::string describe() const;
};

// `--check`: O and LSE against the fp32 reference, by testing/attention_check.hpp's rule
// (FlashAttention-3's 2x the plain low-precision error, capped by the kernel's own bound).
struct AttentionCheck {
  testbed::AttentionErrors errors;
  double tolerance = 0;  // the largest |O error| allowed
  int64_t rows = 0;      // LSE values checked
  int64_t lse_bad = 0, lse_first_bad = -1;
  float lse_got = 0, lse_want = 0;
  bool passes() const;
};
// One line: the errors against their limits, ok/FAILED.
void print_check(const AttentionCheck& c, DType t);

class AttentionRunner {
 public:
  explicit AttentionRunner(const AttentionProblem& p);
  ~AttentionRunner();
  AttentionRunner(const AttentionRunner&) = delete;
  AttentionRunner& operator=(const AttentionRunner&) = delete;

  const Status& status() const { return status_; }
  Status run(int set, cudaStream_t stream);
  // The configuration our call picks (warpspec::describe: the line WARPSPEC_LOG_CONFIG prints).
  Status describe_config(std::string* line) const;
  // Ours alone (attention has no peer in this program: bench/attention_vs_torch.py times
  // ours against cuDNN in one process), with the same warm-up, rounds and spread.
  Status time(const TimingOptions& opt, TimingResult* out);
  // O and LSE poisoned before our launch, then compared with the references (input set 0).
  Status check(AttentionCheck* out);

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
  int32_t* cu_seqlens_ = nullptr;  // varlen: the prefix sums of p_.varlen
};

}  // namespace warpspec::tools
