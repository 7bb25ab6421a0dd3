#include <cstdio>

#include "commands.hpp"
#include "attention_runner.hpp"
#include "gemm_runner.hpp"
#include "warpspec/warpspec.hpp"

namespace warpspec::tools {

// Attention: checked against the fp32 reference at seqlen 2048 (the reference is a
// plain kernel), timed at FlashAttention-3's 8k point. Its peer, cuDNN through
// PyTorch's SDPA, is not a dependency of the library: bench/attention_sdpa.py times it.
static bool demo_attention() {
  AttentionProblem small;
  small.batch = 2, small.seqlen_q = small.seqlen_k = 2048, small.heads = small.heads_kv = 16, small.head_dim = 128;
  AttentionProblem big = small;
  big.seqlen_q = big.seqlen_k = 8192;
  double err = 0, err_plain = 0, err_lse = 0;
  Timing t;
  Status s;
  {
    AttentionRunner r(small);
    s = r.status();
    if (s.ok()) s = r.check(&err, &err_plain, &err_lse);
  }
  if (s.ok()) {
    AttentionRunner r(big);
    s = r.status();
    if (s.ok()) s = r.time(3, 10, &t);
  }
  if (!s.ok()) {
    std::fprintf(stderr, "warpspec demo: attention: %s\n", s.to_string().c_str());
    return false;
  }
  const bool ok = attention_check_passes(err, err_plain, err_lse);
  std::printf("attention %s: %.1f TFLOP/s; at seqlen 2048 max error vs fp32 reference %.2e (plain %s %.2e): %s\n",
              big.describe().c_str(), t.tflops, err, dtype_name(small.dtype), err_plain, ok ? "ok" : "FAILED");
  std::printf("  (peer: cuDNN SDPA through PyTorch, `python3 bench/attention_sdpa.py`)\n");
  return ok;
}

// The main job: an 8192^3 bf16 GEMM checked against cuBLAS, with TFLOP/s and the
// ratio to cuBLAS from the same process, then attention.
static int run_demo() {
  if (int rc = require_hopper()) return rc;
  GemmProblem p;
  p.m = p.n = p.k = 8192;
  GemmRunner r(p);
  double rel = 0, worst = 0;
  Timing ours, peer;
  Status s = r.status();
  if (s.ok()) s = r.check(&rel, &worst);
  if (s.ok()) s = r.time(true, 5, 20, &ours);
  if (s.ok()) s = r.time(false, 5, 20, &peer);
  if (!s.ok()) {
    std::fprintf(stderr, "warpspec demo: %s\n", s.to_string().c_str());
    return 1;
  }
  const bool ok = rel <= gemm_tolerance(p.out);
  std::printf("GEMM %s: %.1f TFLOP/s, cuBLAS %.1f TFLOP/s, ratio %.3f; error vs cuBLAS (fp32) %.2e: %s\n",
              p.describe().c_str(), ours.tflops, peer.tflops, ours.tflops / peer.tflops, rel, ok ? "ok" : "FAILED");
  const bool attention_ok = demo_attention();
  return ok && attention_ok ? 0 : 1;
}

void register_demo(CLI::App& app, int& exit_code) {
  auto* demo = app.add_subcommand("demo", "GEMM and attention on a default problem, checked against a reference");
  demo->callback([&exit_code] { exit_code = run_demo(); });
}

}  // namespace warpspec::tools
