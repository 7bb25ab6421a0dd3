// `warpspec attention` and `warpspec bench attention`.
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "attention_runner.hpp"
#include "commands.hpp"

namespace warpspec::tools {
namespace {

struct AttentionOptions {
  AttentionProblem p;
  std::string dtype = "bf16";
  bool check = false;
  TimingOptions timing;
};

int run_attention(AttentionOptions o) {
  if (int rc = require_hopper()) return rc;
  if (!parse_dtype(o.dtype, &o.p.dtype) || o.p.dtype == DType::kFP32) {
    std::fprintf(stderr, "warpspec: --dtype must be bf16 or fp16, got %s\n", o.dtype.c_str());
    return 1;
  }
  if (o.p.heads_kv == 0) o.p.heads_kv = o.p.heads;
  AttentionRunner r(o.p);
  if (int rc = report(r.status())) return rc;
  // Refusals come from the library: the same message a C++ caller gets.
  if (int rc = report(r.run(0, nullptr))) return rc;
  TimingResult t;
  if (int rc = report(r.time(o.timing, &t))) return rc;
  std::printf("%s: %s ms, %s TFLOP/s (median of %d rounds, least-largest)\n", o.p.describe().c_str(),
              format_spread(t.ms[0], 4).c_str(), format_spread(tflops_of(t.ms[0], o.p.flops()), 1).c_str(),
              o.timing.rounds);
  if (o.check) {
    AttentionCheck c;
    if (int rc = report(r.check(&c))) return rc;
    print_check(c, o.p.dtype);
    if (!c.passes()) return 1;
  }
  return 0;
}

// FlashAttention-3's sweep: 16k tokens in all (batch = 16384 / seqlen), hidden 2048
// (heads = 2048 / head_dim), head dims 64 / 128 / 256, seqlen 512 .. 16384.
int run_bench_attention(const TimingOptions& timing, const std::vector<int>& dims, bool with_causal, bool with_full) {
  if (int rc = require_hopper()) return rc;
  std::printf("# after %.1f s of load; median of %d rounds of %d calls each, (least-largest round). Peer (cuDNN, "
              "flash) in the same process: bench/attention_vs_torch.py\n",
              timing.warmup_seconds, timing.rounds, 2 * ((timing.iters + 1) / 2));
  std::printf("%-6s %-7s %6s %6s %5s %9s %-22s\n", "hdim", "mask", "seqlen", "batch", "heads", "ms", "TFLOP/s");
  for (int d : dims)
    for (bool causal : {false, true}) {
      if ((causal && !with_causal) || (!causal && !with_full)) continue;
      for (int64_t s = 512; s <= 16384; s *= 2) {
        AttentionProblem p;
        p.batch = 16384 / s, p.seqlen_q = p.seqlen_k = s, p.heads = p.heads_kv = 2048 / d, p.head_dim = d;
        p.causal = causal;
        AttentionRunner r(p);
        TimingResult t;
        if (int rc = report(r.status())) return rc;
        if (int rc = report(r.time(timing, &t))) return rc;
        std::printf("%-6d %-7s %6ld %6ld %5ld %9.4f %-22s\n", d, causal ? "causal" : "full", long(s), long(p.batch),
                    long(p.heads), t.ms[0].median, format_spread(tflops_of(t.ms[0], p.flops()), 1).c_str());
        std::fflush(stdout);
      }
    }
  return 0;
}

}  // namespace

void register_attention(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("attention", "Run one attention forward; print time and TFLOP/s");
  auto o = std::make_shared<AttentionOptions>();
  o->p.heads_kv = 0;  // default: heads
  cmd->add_option("--batch", o->p.batch, "batch size")->check(positive());
  cmd->add_option("--seqlen-q", o->p.seqlen_q, "query length")->check(positive());
  cmd->add_option("--seqlen-k", o->p.seqlen_k, "key/value length")->check(positive());
  cmd->add_option("--heads", o->p.heads, "query heads")->check(positive());
  cmd->add_option("--heads-kv", o->p.heads_kv, "key/value heads (default: --heads; GQA when fewer)");
  cmd->add_option("--head-dim", o->p.head_dim, "a multiple of 8 up to 256 (64/128/192/256 native)");
  cmd->add_flag("--causal", o->p.causal, "causal mask, aligned to the bottom-right corner");
  cmd->add_option("--dtype", o->dtype, "bf16 or fp16");
  cmd->add_flag("--check", o->check, "compare with the float32 reference (FlashAttention-3's rule)");
  add_timing_options(cmd, o->timing);
  cmd->callback([o, &exit_code] { exit_code = run_attention(*o); });
}

void register_bench_attention(CLI::App* bench, int& exit_code) {
  auto* a = bench->add_subcommand("attention", "FlashAttention-3 paper sweep (16k tokens, hidden 2048), TFLOP/s");
  auto timing = std::make_shared<TimingOptions>();
  auto dims = std::make_shared<std::vector<int>>(std::vector<int>{64, 128, 256});
  auto only_causal = std::make_shared<bool>(false);
  auto only_full = std::make_shared<bool>(false);
  add_timing_options(a, *timing);
  a->add_option("--head-dims", *dims, "head dims to sweep (default 64 128 256)");
  a->add_flag("--causal-only", *only_causal, "only the causal half");
  a->add_flag("--full-only", *only_full, "only the non-causal half");
  a->callback([=, &exit_code] { exit_code = run_bench_attention(*timing, *dims, !*only_full, !*only_causal); });
}

}  // namespace warpspec::tools
