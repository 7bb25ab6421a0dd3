// `warpspec gemm` and `warpspec bench gemm`.
#include <cmath>
#include <cstdio>
#include <vector>

#include "commands.hpp"
#include "gemm_runner.hpp"

namespace warpspec::tools {
namespace {

struct GemmOptions {
  GemmProblem p;
  std::string dtype = "bf16", out_dtype, raster = "auto";
  bool check = false;
  int iters = 50;
};

int report(const Status& s) {
  if (s.ok()) return 0;
  std::fprintf(stderr, "warpspec: %s\n", s.to_string().c_str());
  return 1;
}

int run_gemm(GemmOptions o) {
  if (int rc = require_hopper()) return rc;
  if (!parse_dtype(o.dtype, &o.p.in) || o.p.in == DType::kFP32) {
    std::fprintf(stderr, "warpspec: --dtype must be bf16 or fp16, got %s\n", o.dtype.c_str());
    return 1;
  }
  o.p.out = o.p.in;
  o.p.raster = o.raster == "m" ? GemmRaster::kAlongM : o.raster == "n" ? GemmRaster::kAlongN : GemmRaster::kHeuristic;
  if (!o.out_dtype.empty() && !parse_dtype(o.out_dtype, &o.p.out)) {
    std::fprintf(stderr, "warpspec: --out-dtype must be bf16, fp16 or fp32, got %s\n", o.out_dtype.c_str());
    return 1;
  }
  GemmRunner r(o.p);
  if (int rc = report(r.status())) return rc;
  // Refusals come from the library: the same message a C++ caller gets.
  if (int rc = report(r.run_ours(0, nullptr))) return rc;
  Timing t;
  if (int rc = report(r.time(true, 5, o.iters, &t))) return rc;
  std::printf("%s: %.4f ms, %.1f TFLOP/s\n", o.p.describe().c_str(), t.median_ms, t.tflops);
  if (o.check) {
    double rel = 0, worst = 0;
    if (int rc = report(r.check(&rel, &worst))) return rc;
    const bool ok = rel <= gemm_tolerance(o.p.out);
    std::printf("check against cuBLAS (fp32): relative error %.3g, max abs error %.3g: %s\n", rel, worst,
                ok ? "ok" : "FAILED");
    if (!ok) return 1;
  }
  return 0;
}

int run_bench_gemm(bool quick, int iters) {
  if (int rc = require_hopper()) return rc;
  std::vector<GemmProblem> sweep;
  auto add = [&](int64_t m, int64_t n, int64_t k) {
    GemmProblem p;
    p.m = m, p.n = n, p.k = k;
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
  std::printf("%-26s %10s %10s %10s %8s\n", "problem (bf16, tn)", "ours ms", "TFLOP/s", "cuBLAS", "ratio");
  double log_sum = 0;
  int count = 0;
  for (const GemmProblem& p : sweep) {
    GemmRunner r(p);
    Timing ours, peer;
    if (int rc = report(r.status())) return rc;
    if (int rc = report(r.time(true, 10, iters, &ours))) return rc;
    if (int rc = report(r.time(false, 10, iters, &peer))) return rc;
    const double ratio = ours.tflops / peer.tflops;
    log_sum += std::log(ratio);
    ++count;
    std::printf("%-26s %10.4f %10.1f %10.1f %8.3f\n", p.describe().c_str(), ours.median_ms, ours.tflops, peer.tflops,
                ratio);
    std::fflush(stdout);
  }
  std::printf("geometric mean ratio (ours / cuBLAS): %.3f over %d problems\n", std::exp(log_sum / count), count);
  return 0;
}

}  // namespace

void register_gemm(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("gemm", "Run one GEMM, D = alpha*A*B + beta*C; print time and TFLOP/s");
  auto o = std::make_shared<GemmOptions>();
  cmd->add_option("--m", o->p.m, "rows of A and D")->check(CLI::PositiveNumber);
  cmd->add_option("--n", o->p.n, "columns of B and D")->check(CLI::PositiveNumber);
  cmd->add_option("--k", o->p.k, "columns of A, rows of B")->check(CLI::PositiveNumber);
  cmd->add_option("--layout", o->p.layout, kLayoutHelp)->check(CLI::IsMember({"tn", "nt", "nn", "tt"}));
  cmd->add_option("--dtype", o->dtype, "input dtype: bf16 or fp16");
  cmd->add_option("--out-dtype", o->out_dtype, "output dtype: the input's (default) or fp32");
  cmd->add_option("--batch", o->p.batch, "batch count L")->check(CLI::PositiveNumber);
  cmd->add_option("--alpha", o->p.alpha, "scale of A*B");
  cmd->add_option("--beta", o->p.beta, "scale of C (0: C is not read)");
  cmd->add_option("--raster", o->raster, "tile order: m (along M), n (along N) or auto")
      ->check(CLI::IsMember({"m", "n", "auto"}));
  cmd->add_option("--swizzle", o->p.swizzle, "L2 grouping of tiles: 1, 2, 4, 8 (0 = automatic)");
  cmd->add_option("--tile-n", o->p.tile_n, "CTA tile width: 64, 128, 256 (0 = automatic)");
  cmd->add_flag("--check", o->check, "compare with cuBLAS in fp32");
  cmd->add_option("--iters", o->iters, "timed iterations (median reported)")->check(CLI::PositiveNumber);
  cmd->callback([o, &exit_code] { exit_code = run_gemm(*o); });
}

void register_bench(CLI::App& app, int& exit_code) {
  auto* bench = app.add_subcommand("bench", "Benchmarks against the peer library in the same process");
  bench->require_subcommand(1);
  auto* g = bench->add_subcommand("gemm", "GEMM sweep, ours vs cuBLAS (bf16, tn)");
  auto quick = std::make_shared<bool>(false);
  auto iters = std::make_shared<int>(30);
  g->add_flag("--quick", *quick, "skip the largest problem");
  g->add_option("--iters", *iters, "timed iterations per problem")->check(CLI::PositiveNumber);
  g->callback([quick, iters, &exit_code] { exit_code = run_bench_gemm(*quick, *iters); });
  register_bench_attention(bench, exit_code);
}

}  // namespace warpspec::tools
