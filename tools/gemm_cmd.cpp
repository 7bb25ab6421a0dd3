// `warpspec gemm` and `warpspec bench gemm`.
#include <cmath>
#include <cstdio>
#include <vector>

#include "commands.hpp"
#include "gemm_runner.hpp"

namespace warpspec::tools {
namespace {

// --decomposition: the CLI's names for GemmDecomposition.
constexpr const char* kDecompositionHelp =
    "K-loop decomposition: dp (data-parallel), splitk, streamk, or auto (the cost model)";

GemmDecomposition parse_decomposition(const std::string& s) {
  return s == "dp" ? GemmDecomposition::kDataParallel
         : s == "splitk" ? GemmDecomposition::kSplitK
         : s == "streamk" ? GemmDecomposition::kStreamK
                          : GemmDecomposition::kHeuristic;
}

struct GemmOptions {
  GemmProblem p;
  std::string dtype = "bf16", out_dtype, raster = "auto", decomposition = "auto";
  bool check = false;
  TimingOptions timing;
};

int run_gemm(GemmOptions o) {
  if (int rc = require_hopper()) return rc;
  if (!parse_dtype(o.dtype, &o.p.in) || o.p.in == DType::kFP32) {
    std::fprintf(stderr, "warpspec: --dtype must be bf16 or fp16, got %s\n", o.dtype.c_str());
    return 1;
  }
  o.p.out = o.p.in;
  o.p.raster = o.raster == "m" ? GemmRaster::kAlongM : o.raster == "n" ? GemmRaster::kAlongN : GemmRaster::kHeuristic;
  o.p.decomposition = parse_decomposition(o.decomposition);
  if (!o.out_dtype.empty() && !parse_dtype(o.out_dtype, &o.p.out)) {
    std::fprintf(stderr, "warpspec: --out-dtype must be bf16, fp16 or fp32, got %s\n", o.out_dtype.c_str());
    return 1;
  }
  GemmRunner r(o.p);
  if (int rc = report(r.status())) return rc;
  // Refusals come from the library: the same message a C++ caller gets.
  if (int rc = report(r.run_ours(0, nullptr))) return rc;
  TimingResult t;
  if (int rc = report(r.time(o.timing, false, &t))) return rc;
  std::printf("%s: %s ms, %s TFLOP/s (median of %d rounds, least-largest)\n", o.p.describe().c_str(),
              format_spread(t.ms[0], 4).c_str(), format_spread(tflops_of(t.ms[0], o.p.flops()), 1).c_str(),
              o.timing.rounds);
  if (o.check) {
    GemmCheck c;
    if (int rc = report(r.check(&c))) return rc;
    print_check(c, o.p);
    if (!c.passes(o.p.out)) return 1;
  }
  return 0;
}

struct BenchGemmOptions {
  bool quick = false;
  std::string decomposition = "auto";
  int splits = 0;
};

int run_bench_gemm(const BenchGemmOptions& o, const TimingOptions& timing) {
  const bool quick = o.quick;
  if (int rc = require_hopper()) return rc;
  std::vector<GemmProblem> sweep;
  auto add = [&](int64_t m, int64_t n, int64_t k) {
    GemmProblem p;
    p.m = m, p.n = n, p.k = k;
    p.decomposition = parse_decomposition(o.decomposition);
    p.splits = o.splits;
    sweep.push_back(p);
  };
  add(8192, 8192, 8192);
  add(4096, 4096, 4096);
  add(2048, 2048, 2048);
  add(8192, 8192, 1024);
  add(128, 8192, 8192);
  add(16, 4096, 4096);
  add(4096, 14336, 4096);
  if (!quick) add(16384, 16384, 16384);
  std::printf("# ours and cuBLAS interleaved call by call (ABBA) after %.1f s of load; median of %d rounds of %d calls "
              "each, (least-largest round); ratio = ours / cuBLAS speed, per round\n",
              timing.warmup_seconds, timing.rounds, 2 * ((timing.iters + 1) / 2));
  std::printf("%-24s %9s %-22s %-22s %-22s\n", "problem", "ours ms", "ours TFLOP/s", "cuBLAS TFLOP/s", "ratio");
  double log_sum = 0;
  int count = 0;
  for (const GemmProblem& p : sweep) {
    GemmRunner r(p);
    TimingResult t;
    if (int rc = report(r.status())) return rc;
    if (int rc = report(r.time(timing, true, &t))) return rc;
    // ratio[1]: cuBLAS's time / ours, per round, which is ours' speed / cuBLAS's.
    const Spread speed = t.ratio[1];
    log_sum += std::log(speed.median);
    ++count;
    std::printf("%-24s %9.4f %-22s %-22s %-22s\n", p.describe().c_str(), t.ms[0].median,
                format_spread(tflops_of(t.ms[0], p.flops()), 1).c_str(),
                format_spread(tflops_of(t.ms[1], p.flops()), 1).c_str(), format_spread(speed, 3).c_str());
    std::fflush(stdout);
  }
  std::printf("geometric mean ratio (ours / cuBLAS speed): %.3f over %d problems\n", std::exp(log_sum / count), count);
  return 0;
}

}  // namespace

void register_gemm(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("gemm", "Run one GEMM, D = alpha*A*B + beta*C; print time and TFLOP/s");
  auto o = std::make_shared<GemmOptions>();
  cmd->add_option("--m", o->p.m, "rows of A and D")->check(positive());
  cmd->add_option("--n", o->p.n, "columns of B and D")->check(positive());
  cmd->add_option("--k", o->p.k, "columns of A, rows of B")->check(positive());
  cmd->add_option("--layout", o->p.layout, kLayoutHelp)->check(CLI::IsMember({"tn", "nt", "nn", "tt"}));
  cmd->add_option("--dtype", o->dtype, "input dtype: bf16 or fp16");
  cmd->add_option("--out-dtype", o->out_dtype, "output dtype: the input's (default) or fp32");
  cmd->add_option("--batch", o->p.batch, "batch count L")->check(positive());
  cmd->add_option("--alpha", o->p.alpha, "scale of A*B");
  cmd->add_option("--beta", o->p.beta, "scale of C (0: C is not read)");
  cmd->add_option("--raster", o->raster, "tile order: m (along M), n (along N) or auto")
      ->check(CLI::IsMember({"m", "n", "auto"}));
  cmd->add_option("--swizzle", o->p.swizzle, "L2 grouping of tiles: 1, 2, 4, 8 (0 = automatic)");
  cmd->add_option("--tile-n", o->p.tile_n, "CTA tile width: 64, 128, 256 (0 = automatic)");
  cmd->add_option("--decomposition", o->decomposition, kDecompositionHelp)
      ->check(CLI::IsMember({"dp", "splitk", "streamk", "auto"}));
  cmd->add_option("--splits", o->p.splits, "split-K ranges per tile, 1..256 (0 = automatic; with --decomposition splitk)");
  cmd->add_flag("--check", o->check, "compare with cuBLAS in fp32");
  add_timing_options(cmd, o->timing);
  cmd->callback([o, &exit_code] { exit_code = run_gemm(*o); });
}

void register_bench(CLI::App& app, int& exit_code) {
  auto* bench = app.add_subcommand("bench", "Benchmarks against the peer library in the same process");
  bench->require_subcommand(1);
  auto* g = bench->add_subcommand("gemm", "GEMM sweep, ours vs cuBLAS (bf16, tn)");
  auto bo = std::make_shared<BenchGemmOptions>();
  auto timing = std::make_shared<TimingOptions>();
  g->add_flag("--quick", bo->quick, "skip the largest problem");
  g->add_option("--decomposition", bo->decomposition, kDecompositionHelp)
      ->check(CLI::IsMember({"dp", "splitk", "streamk", "auto"}));
  g->add_option("--splits", bo->splits, "split-K ranges per tile, 1..256 (0 = automatic; with --decomposition splitk)");
  add_timing_options(g, *timing);
  g->callback([bo, timing, &exit_code] { exit_code = run_bench_gemm(*bo, *timing); });
  register_bench_attention(bench, exit_code);
}

}  // namespace warpspec::tools
