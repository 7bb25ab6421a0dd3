#include <cstdio>

#include "commands.hpp"
#include "attention_runner.hpp"
#include "gemm_runner.hpp"
#include "warpspec/warpspec.hpp"

namespace warpspec::tools {

// Attention: checked against the fp32 reference at seqlen 2048 (the reference is a
// plain kernel), timed at FlashAttention-3's 8k point. Its peer, cuDNN through
// PyTorch's SDPA, is not a dependency of the library: bench/attention_vs_torch.py times
// ours against it in one process.
static bool demo_attention() {
  AttentionProblem small;
  small.batch = 2, small.seqlen_q = small.seqlen_k = 2048, small.heads = small.heads_kv = 16, small.head_dim = 128;
  AttentionProblem big = small;
  big.seqlen_q = big.seqlen_k = 8192;
  AttentionCheck c;
  TimingResult t;
  Status s;
  {
    AttentionRunner r(small);
    s = r.status();
    if (s.ok()) s = r.check(&c);
  }
  std::string config;
  if (s.ok()) {
    AttentionRunner r(big);
    s = r.status();
    if (s.ok()) s = r.time(TimingOptions{}, &t);
    if (s.ok()) s = r.describe_config(&config);
  }
  if (!s.ok()) {
    std::fprintf(stderr, "warpspec demo: attention: %s\n", s.to_string().c_str());
    return false;
  }
  if (common_options().json) {
    json::Object check;
    check.str("against", "fp32 reference").str("problem", small.describe()).boolean("passed", c.passes());
    check.num("o_error", c.errors.o).num("o_limit", c.tolerance).num("nan", c.errors.nan).num("lse_off", c.lse_bad);
    json::Object args;
    args.num("batch", big.batch).num("seqlen_q", big.seqlen_q).num("seqlen_k", big.seqlen_k).num("heads", big.heads);
    args.num("heads_kv", big.heads_kv).num("head_dim", big.head_dim).boolean("causal", big.causal);
    args.str("dtype", dtype_name(big.dtype));
    std::printf("%s\n", make_record(record_context("demo", TimingOptions{}), "attention", args, t, big.flops(),
                                    big.bytes(), "", config, check.text())
                            .c_str());
    return c.passes();
  }
  std::printf("attention %s: %s TFLOP/s (median, least-largest of %d rounds)\n", big.describe().c_str(),
              format_spread(tflops_of(t.ms[0], big.flops()), 1).c_str(), TimingOptions{}.rounds);
  std::printf("  at seqlen 2048: ");
  print_check(c, small.dtype);
  std::printf("  (peer: cuDNN SDPA through PyTorch in the same process, `python3 bench/attention_vs_torch.py`)\n");
  return c.passes();
}

// The main job: an 8192^3 bf16 GEMM checked against cuBLAS, with TFLOP/s and the
// ratio to cuBLAS timed interleaved in the same process, then attention.
static int run_demo() {
  if (int rc = require_hopper()) return rc;
  GemmProblem p;
  p.m = p.n = p.k = 8192;
  GemmRunner r(p);
  GemmCheck c;
  TimingResult t;
  const TimingOptions timing;
  Status s = r.status();
  if (s.ok()) s = r.check(&c);
  if (s.ok()) s = r.time(timing, true, &t);
  std::string config;
  if (s.ok()) s = r.describe_config(&config);
  if (!s.ok()) {
    std::fprintf(stderr, "warpspec demo: %s\n", s.to_string().c_str());
    return 1;
  }
  if (common_options().json) {
    json::Object check;
    check.str("against", "cuBLAS (fp32)").boolean("passed", c.passes()).num("rel_error", c.rel_error);
    check.num("max_abs_error", c.max_abs_error).num("elements", c.elements).num("over_tolerance", c.bad);
    json::Object args;
    args.num("m", p.m).num("n", p.n).num("k", p.k).num("batch", p.batch).str("layout", p.layout);
    args.str("dtype", dtype_name(p.in)).str("out_dtype", dtype_name(p.out));
    std::printf("%s\n", make_record(record_context("demo", timing), "gemm", args, t, p.flops(), p.bytes(), "cuBLAS",
                                    config, check.text())
                            .c_str());
    const bool attention_ok = demo_attention();
    return c.passes() && attention_ok ? 0 : 1;
  }
  std::printf("GEMM %s: %s TFLOP/s, cuBLAS %s, ratio %s (median, least-largest of %d rounds, interleaved)\n",
              p.describe().c_str(), format_spread(tflops_of(t.ms[0], p.flops()), 1).c_str(),
              format_spread(tflops_of(t.ms[1], p.flops()), 1).c_str(), format_spread(t.ratio[1], 3).c_str(),
              timing.rounds);
  std::printf("  ");
  print_check(c, p);
  const bool ok = c.passes();
  const bool attention_ok = demo_attention();
  return ok && attention_ok ? 0 : 1;
}

void register_demo(CLI::App& app, int& exit_code) {
  auto* demo = app.add_subcommand("demo", "GEMM and attention on a default problem, checked against a reference");
  add_common_options(demo);
  demo->callback([&exit_code] { exit_code = run_demo(); });
}

}  // namespace warpspec::tools
