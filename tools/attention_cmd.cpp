// `warpspec attention` and `warpspec bench attention`.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "attention_runner.hpp"
#include "commands.hpp"
#include "warpspec/attention/config.hpp"

namespace warpspec::tools {
namespace {

struct AttentionOptions {
  AttentionProblem p;
  std::string dtype = "bf16";
  bool check = false;
  TimingOptions timing;
};

// The problem as the command line gave it, for a --json record.
json::Object attention_args_json(const AttentionProblem& p) {
  json::Object o;
  o.num("batch", p.batch).num("seqlen_q", p.seqlen_q).num("seqlen_k", p.seqlen_k).num("heads", p.heads);
  o.num("heads_kv", p.heads_kv).num("head_dim", p.head_dim).boolean("causal", p.causal).str("dtype", dtype_name(p.dtype));
  o.num("window_left", p.window_left).num("window_right", p.window_right).num("softcap", double(p.softcap));
  o.num("varlen_sequences", int64_t(p.varlen.size()));
  return o;
}

std::string attention_check_json(const AttentionCheck& c) {
  json::Object o;
  o.str("against", "fp32 reference").boolean("passed", c.passes()).num("o_error", c.errors.o);
  o.num("o_limit", c.tolerance).num("nan", c.errors.nan).num("lse_rows", c.rows).num("lse_off", c.lse_bad);
  return o.text();
}

// --dtype: bf16, fp16 or e4m3 (FP8 inputs, bf16 output, descales 1).
bool parse_attention_dtype(const std::string& s, DType* out) {
  if (s == "e4m3") return *out = DType::kE4M3, true;
  return parse_dtype(s, out) && *out != DType::kFP32;
}

int run_attention(AttentionOptions o) {
  if (int rc = require_hopper()) return rc;
  if (!parse_attention_dtype(o.dtype, &o.p.dtype)) {
    std::fprintf(stderr, "warpspec: --dtype must be bf16, fp16 or e4m3, got %s\n", o.dtype.c_str());
    return 2;
  }
  if (o.p.heads_kv == 0) o.p.heads_kv = o.p.heads;
  AttentionRunner r(o.p);
  if (int rc = report(r.status())) return rc;
  // Refusals come from the library: the same message a C++ caller gets.
  if (int rc = report(r.run(0, nullptr))) return rc;
  TimingResult t;
  if (int rc = report(r.time(o.timing, &t))) return rc;
  std::string config;
  if (int rc = report(r.describe_config(&config))) return rc;
  AttentionCheck c;
  if (o.check)
    if (int rc = report(r.check(&c))) return rc;
  if (common_options().json) {
    const std::string record =
        make_record(record_context("attention", o.timing), "attention", attention_args_json(o.p), t, o.p.flops(),
                    o.p.bytes(), "", config, o.check ? attention_check_json(c) : "");
    std::printf("%s\n", record.c_str());
  } else {
    std::printf("%s: %s ms, %s TFLOP/s (median of %d rounds, least-largest)\n", o.p.describe().c_str(),
                format_spread(t.ms[0], 4).c_str(), format_spread(tflops_of(t.ms[0], o.p.flops()), 1).c_str(),
                o.timing.rounds);
    std::printf("config: %s\n", config.c_str());
    if (o.check) print_check(c, o.p.dtype);
  }
  return o.check && !c.passes() ? 1 : 0;
}

struct BenchAttentionOptions {
  TimingOptions timing;
  std::vector<int> dims{64, 128, 256};
  std::vector<int64_t> seqlens{512, 1024, 2048, 4096, 8192, 16384};
  int64_t tokens = 16384, hidden = 2048;
  bool only_causal = false, only_full = false;
  std::string dtype = "bf16";
};

// FlashAttention-3's sweep by default: 16k tokens in all (batch = tokens / seqlen),
// hidden 2048 (heads = hidden / head_dim), head dims 64 / 128 / 256, seqlen 512 .. 16384.
int run_bench_attention(const BenchAttentionOptions& o) {
  if (int rc = require_hopper()) return rc;
  DType dtype = DType::kBF16;
  if (!parse_attention_dtype(o.dtype, &dtype)) {
    std::fprintf(stderr, "warpspec: --dtype must be bf16, fp16 or e4m3, got %s\n", o.dtype.c_str());
    return 2;
  }
  // e4m3: each problem also runs our bf16 kernel on the same shape, interleaved (ABBA),
  // and prints the speed ratio (issue 12's bar: >= 1.5x at 8k and 16k).
  const bool fp8 = dtype == DType::kE4M3;
  const bool json = common_options().json;
  const TimingOptions& timing = o.timing;
  if (!json) {
    std::printf("# after %.1f s of load; median of %d rounds of %d calls each, (least-largest round). Peer (cuDNN, "
                "flash) in the same process: bench/attention_vs_torch.py\n",
                timing.warmup_seconds, timing.rounds, 2 * ((timing.iters + 1) / 2));
    if (fp8)
      std::printf("%-6s %-7s %6s %6s %5s %9s %-22s %-22s %s\n", "hdim", "mask", "seqlen", "batch", "heads", "ms",
                  "e4m3 TFLOP/s", "bf16 TFLOP/s", "e4m3/bf16");
    else
      std::printf("%-6s %-7s %6s %6s %5s %9s %-22s\n", "hdim", "mask", "seqlen", "batch", "heads", "ms", "TFLOP/s");
  }
  const RecordContext ctx = json ? record_context("bench attention", timing) : RecordContext{};
  for (int d : o.dims)
    for (bool causal : {false, true}) {
      if ((causal && o.only_full) || (!causal && o.only_causal)) continue;
      for (int64_t s : o.seqlens) {
        AttentionProblem p;
        p.batch = std::max<int64_t>(1, o.tokens / s), p.seqlen_q = p.seqlen_k = s;
        p.heads = p.heads_kv = std::max<int64_t>(1, o.hidden / d), p.head_dim = d;
        p.causal = causal;
        p.dtype = dtype;
        AttentionRunner r(p);
        TimingResult t;
        if (int rc = report(r.status())) return rc;
        if (fp8) {
          AttentionProblem p16 = p;
          p16.dtype = DType::kBF16;
          AttentionRunner r16(p16);
          if (int rc = report(r16.status())) return rc;
          TimingStream stream;
          if (int rc = report(stream.status())) return rc;
          std::vector<Candidate> cands(2);
          cands[0].run = [&r](int i, cudaStream_t st) { return r.run(i, st); };
          cands[1].run = [&r16](int i, cudaStream_t st) { return r16.run(i, st); };
          if (int rc = report(time_interleaved(cands, timing, stream.get(), &t))) return rc;
        } else if (int rc = report(r.time(timing, &t))) {
          return rc;
        }
        if (json) {
          std::string config;
          if (int rc = report(r.describe_config(&config))) return rc;
          std::printf("%s\n", make_record(ctx, "attention", attention_args_json(p), t, p.flops(), p.bytes(), "", config)
                                  .c_str());
        } else {
          std::printf("%-6d %-7s %6ld %6ld %5ld %9.4f %-22s", d, causal ? "causal" : "full", long(s), long(p.batch),
                      long(p.heads), t.ms[0].median, format_spread(tflops_of(t.ms[0], p.flops()), 1).c_str());
          if (fp8)  // ratio[1]: bf16's time over e4m3's per round, i.e. e4m3's speed over bf16's
            std::printf(" %-22s %s", format_spread(tflops_of(t.ms[1], p.flops()), 1).c_str(),
                        format_spread(t.ratio[1], 3).c_str());
          std::printf("\n");
        }
        std::fflush(stdout);
      }
    }
  return 0;
}

// The mask rows (issue bar, FlashAttention-2/3 papers' settings, head dim 128, hidden
// 2048): variable length at 16k tokens with lengths uniform in [L/4, 7L/4] against the
// dense batch at L, timed interleaved in one process, and a causal sliding window of
// 1024 at seqlen 8192 (TFLOP/s of the visible pairs only).
// (query, key) pairs the kernel computes for one self-attention sequence of `len` tokens
// (seqlen_q = seqlen_k, no window): whole tiles of `bm` rows, each against whole key
// blocks of `block_n` up to its last row's diagonal (causal) or the sequence's end. Its
// ratio to the visible pairs is what tile padding alone leaves of the tensor cores' work.
double tile_pairs(int64_t len, bool causal, int64_t bm, int64_t block_n) {
  double pairs = 0;
  for (int64_t m0 = 0; m0 < len; m0 += bm) {
    const int64_t key_end = causal ? std::min(m0 + bm, len) : len;
    pairs += double(bm) * double((key_end + block_n - 1) / block_n * block_n);
  }
  return pairs;
}

int run_bench_attention_masks(const TimingOptions& timing) {
  if (int rc = require_hopper()) return rc;
  std::printf("# varlen: 16384 tokens, lengths uniform in [L/4, 7L/4] (fixed seed), vs the dense batch at L; "
              "timed interleaved; TFLOP/s count visible pairs only\n");
  std::printf("# padding bound: what varlen/dense would be if a computed pair cost the same in both (whole "
              "%d-row tiles against whole %d-key blocks)\n",
              attention_impl::config_for(128).block_m(), attention_impl::config_for(128).block_n);
  std::printf("%-24s %-7s %-24s %-24s %-14s %-14s\n", "problem", "mask", "dense TFLOP/s", "varlen TFLOP/s",
              "varlen/dense", "padding bound");
  for (int64_t L : {512, 2048})
    for (bool causal : {false, true}) {
      AttentionProblem dense;
      dense.batch = 16384 / L, dense.seqlen_q = dense.seqlen_k = L, dense.heads = dense.heads_kv = 16;
      dense.head_dim = 128, dense.causal = causal;
      AttentionProblem ragged = dense;
      uint64_t state = 0x5eed0000u + uint64_t(L);
      int64_t total = 0;
      while (total < 16384) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        int64_t len = L / 4 + int64_t((state >> 33) % uint64_t(3 * L / 2 + 1));
        len = std::min(len, 16384 - total);
        ragged.varlen.push_back(len);
        total += len;
      }
      AttentionRunner a(dense), b(ragged);
      if (int rc = report(a.status())) return rc;
      if (int rc = report(b.status())) return rc;
      TimingStream stream;
      if (int rc = report(stream.status())) return rc;
      std::vector<Candidate> cands(2);
      cands[0].run = [&a](int i, cudaStream_t st) { return a.run(i, st); };
      cands[1].run = [&b](int i, cudaStream_t st) { return b.run(i, st); };
      TimingResult t;
      if (int rc = report(time_interleaved(cands, timing, stream.get(), &t))) return rc;
      char name[64];
      std::snprintf(name, sizeof name, "L=%ld (%zu seqs)", long(L), ragged.varlen.size());
      // ratio[1] is varlen's time over dense's: speed is its inverse per FLOP.
      const double speed_ratio = (ragged.flops() / t.ms[1].median) / (dense.flops() / t.ms[0].median);
      // Visible over computed pairs, varlen's over dense's (the FLOP counts' common factor cancels).
      // Both sides run head dim 128's default configuration at these lengths (rows seeing
      // fewer than 3072 keys on average: config.hpp).
      const int64_t block_m = attention_impl::config_for(128).block_m(), block_n = attention_impl::config_for(128).block_n;
      double ragged_tiles = 0;
      for (int64_t len : ragged.varlen) ragged_tiles += tile_pairs(len, causal, block_m, block_n);
      const double dense_tiles = double(dense.batch) * tile_pairs(L, causal, block_m, block_n);
      const double bound = (ragged.flops() / ragged_tiles) / (dense.flops() / dense_tiles);
      std::printf("%-24s %-7s %-24s %-24s %-14.3f %-14.3f\n", name, causal ? "causal" : "full",
                  format_spread(tflops_of(t.ms[0], dense.flops()), 1).c_str(),
                  format_spread(tflops_of(t.ms[1], ragged.flops()), 1).c_str(), speed_ratio, bound);
      std::fflush(stdout);
    }
  AttentionProblem w;
  w.batch = 2, w.seqlen_q = w.seqlen_k = 8192, w.heads = w.heads_kv = 16, w.head_dim = 128, w.causal = true;
  w.window_left = 1024;
  AttentionRunner r(w);
  TimingResult t;
  if (int rc = report(r.status())) return rc;
  if (int rc = report(r.time(timing, &t))) return rc;
  std::printf("%-24s %-7s %-24s\n", "window 1024, s=8192 b=2", "causal", format_spread(tflops_of(t.ms[0], w.flops()), 1).c_str());
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
  cmd->add_option("--heads-kv", o->p.heads_kv, "key/value heads (default: --heads; GQA when fewer)")->check(positive());
  cmd->add_option("--head-dim", o->p.head_dim, kHeadDimHelp)->check(positive());
  cmd->add_flag("--causal", o->p.causal, "causal mask, aligned to the bottom-right corner");
  cmd->add_option("--window-left", o->p.window_left, "sliding window: keys this far left of the diagonal (-1: all)");
  cmd->add_option("--window-right", o->p.window_right, "sliding window: keys this far right of the diagonal (-1: all)");
  cmd->add_option("--softcap", o->p.softcap, "cap the scores at softcap*tanh(score/softcap) (0: off)");
  cmd->add_option("--dtype", o->dtype, "bf16, fp16 or e4m3 (FP8 q, k, v, bf16 out; head dims 64, 128, 256)")
      ->check(CLI::IsMember({"bf16", "fp16", "e4m3"}));
  cmd->add_flag("--check", o->check, "compare with the float32 reference (FlashAttention-3's rule)");
  add_timing_options(cmd, o->timing);
  add_common_options(cmd);
  cmd->callback([o, &exit_code] { exit_code = run_attention(*o); });
}

void register_bench_attention(CLI::App* bench, int& exit_code) {
  auto* a = bench->add_subcommand(
      "attention", "FlashAttention-3's sweep (16k tokens, hidden 2048, seqlen 512..16k), or the lengths given; TFLOP/s");
  auto o = std::make_shared<BenchAttentionOptions>();
  add_timing_options(a, o->timing);
  a->add_option("--head-dim,--head-dims", o->dims, "head dims to sweep")->check(CLI::Range(8, 256, "HEAD_DIM"));
  a->add_option("--seqlen,--seqlens", o->seqlens, "sequence lengths to sweep (queries = keys)")->check(positive());
  a->add_option("--tokens", o->tokens, "tokens per problem: batch = tokens / seqlen (at least 1)")->check(positive());
  a->add_option("--hidden", o->hidden, "hidden size: heads = hidden / head_dim (at least 1)")->check(positive());
  a->add_option("--dtype", o->dtype, "bf16, fp16 or e4m3 (e4m3: each row also times our bf16 kernel, ABBA)")
      ->check(CLI::IsMember({"bf16", "fp16", "e4m3"}));
  auto* causal = a->add_flag("--causal-only", o->only_causal, "only the causal half");
  a->add_flag("--full-only", o->only_full, "only the non-causal half")->excludes(causal);
  add_common_options(a);
  auto masks = std::make_shared<bool>(false);
  a->add_flag("--masks", *masks, "instead: variable length vs dense (L = 512, 2048) and a causal sliding window");
  a->callback([o, masks, &exit_code] { exit_code = *masks ? run_bench_attention_masks(o->timing) : run_bench_attention(*o); });
  register_bench_decode(bench, exit_code);
}

}  // namespace warpspec::tools
