// `warpspec gemm` and `warpspec bench gemm`.
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "commands.hpp"
#include "gemm_runner.hpp"
#include "shapes.hpp"
#include "../testing/gemm_check.hpp"

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

constexpr const char* kClusterHelp =
    "thread-block cluster MxN: 1x1 (none), 2x1 (two CTAs along M share B by TMA multicast), 1x2 (share A), or auto "
    "(the library's choice)";

CLI::Validator cluster_validator() {
  return CLI::Validator(
      [](std::string& s) {
        int m, n;
        return parse_cluster(s, &m, &n);
      },
      "MxN", "cluster");
}

struct GemmOptions {
  GemmProblem p;
  std::string dtype = "bf16", out_dtype, raster = "auto", decomposition = "auto", cluster = "auto";
  bool check = false, peer = false;
  TimingOptions timing;
};

const char* raster_name(GemmRaster r) {
  return r == GemmRaster::kAlongM ? "m" : r == GemmRaster::kAlongN ? "n" : "auto";
}

// The problem as the command line gave it, for a --json record.
json::Object gemm_args_json(const GemmProblem& p) {
  json::Object o;
  o.num("m", p.m).num("n", p.n).num("k", p.k).num("batch", p.batch).str("layout", p.layout);
  o.str("dtype", dtype_name(p.in)).str("out_dtype", dtype_name(p.out));
  o.num("alpha", double(p.alpha)).num("beta", double(p.beta)).str("raster", raster_name(p.raster));
  o.num("swizzle", p.swizzle).num("tile_n", p.tile_n);
  const GemmDecomposition d = p.decomposition;
  o.str("decomposition", d == GemmDecomposition::kDataParallel ? "dp"
                         : d == GemmDecomposition::kSplitK      ? "splitk"
                         : d == GemmDecomposition::kStreamK     ? "streamk"
                                                                : "auto");
  o.num("splits", p.splits);
  o.str("cluster", p.cluster_m == 0 && p.cluster_n == 0 ? "auto"
                                                        : std::to_string(p.cluster_m) + "x" + std::to_string(p.cluster_n));
  return o;
}

std::string gemm_check_json(const GemmCheck& c, const GemmProblem& p) {
  json::Object o;
  o.str("against", "cuBLAS (fp32)").boolean("passed", c.passes(p.out)).num("rel_error", c.rel_error);
  o.num("rel_error_limit", testbed::gemm_frobenius_tolerance(p.out)).num("max_abs_error", c.max_abs_error);
  o.num("elements", c.elements).num("over_tolerance", c.bad);
  return o.text();
}

// `--dtype` / `--out-dtype` into the problem; false (after saying why) on a bad name.
bool gemm_dtypes(const std::string& dtype, const std::string& out_dtype, GemmProblem* p) {
  if (!parse_dtype(dtype, &p->in) || p->in == DType::kFP32) {
    std::fprintf(stderr, "warpspec: --dtype must be bf16 or fp16, got %s\n", dtype.c_str());
    return false;
  }
  p->out = p->in;
  if (!out_dtype.empty() && !parse_dtype(out_dtype, &p->out)) {
    std::fprintf(stderr, "warpspec: --out-dtype must be bf16, fp16 or fp32, got %s\n", out_dtype.c_str());
    return false;
  }
  return true;
}

int run_gemm(GemmOptions o) {
  if (int rc = require_hopper()) return rc;
  if (!gemm_dtypes(o.dtype, o.out_dtype, &o.p)) return 1;
  o.p.raster = o.raster == "m" ? GemmRaster::kAlongM : o.raster == "n" ? GemmRaster::kAlongN : GemmRaster::kHeuristic;
  o.p.decomposition = parse_decomposition(o.decomposition);
  parse_cluster(o.cluster, &o.p.cluster_m, &o.p.cluster_n);  // validated when the command line was parsed
  const bool json = common_options().json;
  GemmRunner r(o.p);
  if (int rc = report(r.status())) return rc;
  // Refusals come from the library: the same message a C++ caller gets.
  if (int rc = report(r.run_ours(0, nullptr))) return rc;
  TimingResult t;
  if (int rc = report(r.time(o.timing, o.peer, &t))) return rc;
  std::string config;
  if (int rc = report(r.describe_config(&config))) return rc;
  GemmCheck c;
  if (o.check)
    if (int rc = report(r.check(&c))) return rc;
  if (json) {
    const std::string record = make_record(record_context("gemm", o.timing), "gemm", gemm_args_json(o.p), t, o.p.flops(),
                                           o.p.bytes(), o.peer ? "cuBLAS" : "", config,
                                           o.check ? gemm_check_json(c, o.p) : "");
    std::printf("%s\n", record.c_str());
  } else {
    std::printf("%s: %s ms, %s TFLOP/s (median of %d rounds, least-largest)\n", o.p.describe().c_str(),
                format_spread(t.ms[0], 4).c_str(), format_spread(tflops_of(t.ms[0], o.p.flops()), 1).c_str(),
                o.timing.rounds);
    if (o.peer)
      std::printf("cuBLAS: %s TFLOP/s, ratio (ours / cuBLAS speed) %s\n",
                  format_spread(tflops_of(t.ms[1], o.p.flops()), 1).c_str(), format_spread(t.ratio[1], 3).c_str());
    std::printf("config: %s\n", config.c_str());
    if (o.check) print_check(c, o.p);
  }
  return o.check && !c.passes(o.p.out) ? 1 : 0;
}

struct BenchGemmOptions {
  bool quick = false;
  std::vector<std::string> shapes;  // --shape MxNxK; empty: the fixed sweep
  std::string dtype = "bf16";
  TimingOptions timing;
  std::string decomposition = "auto";
  int splits = 0;
  std::vector<std::string> clusters;  // --cluster, repeated: each shape once per cluster; empty: auto
};

int run_bench_gemm(const BenchGemmOptions& o) {
  if (int rc = require_hopper()) return rc;
  GemmProblem base;
  if (!gemm_dtypes(o.dtype, "", &base)) return 1;
  std::vector<GemmProblem> sweep;
  auto add = [&](int64_t m, int64_t n, int64_t k) {
    GemmProblem p = base;
    p.m = m, p.n = n, p.k = k;
    p.decomposition = parse_decomposition(o.decomposition);
    p.splits = o.splits;
    sweep.push_back(p);
  };
  if (!o.shapes.empty()) {
    for (const std::string& s : o.shapes) {
      GemmShape g;
      parse_gemm_shape(s, &g);  // validated when the command line was parsed
      add(g.m, g.n, g.k);
    }
  } else {
    add(8192, 8192, 8192);
    add(4096, 4096, 4096);
    add(2048, 2048, 2048);
    add(8192, 8192, 1024);
    add(128, 8192, 8192);
    add(16, 4096, 4096);
    add(4096, 14336, 4096);
    if (!o.quick) add(16384, 16384, 16384);
  }
  const bool json = common_options().json;
  const TimingOptions& timing = o.timing;
  if (!json) {
    std::printf("# ours and cuBLAS interleaved call by call (ABBA) after %.1f s of load; median of %d rounds of %d "
                "calls each, (least-largest round); ratio = ours / cuBLAS speed, per round\n",
                timing.warmup_seconds, timing.rounds, 2 * ((timing.iters + 1) / 2));
    std::printf("%-34s %9s %-22s %-22s %-22s\n", "problem", "ours ms", "ours TFLOP/s", "cuBLAS TFLOP/s", "ratio");
  }
  // Each shape once per --cluster value, on the same buffers, each run timed against
  // cuBLAS interleaved with it (so every row's ratio has its own clock conditions).
  std::vector<std::pair<int, int>> clusters;
  for (const std::string& c : o.clusters) {
    int m, n;
    parse_cluster(c, &m, &n);  // validated when the command line was parsed
    clusters.emplace_back(m, n);
  }
  if (clusters.empty()) clusters.emplace_back(0, 0);
  const RecordContext ctx = json ? record_context("bench gemm", timing) : RecordContext{};
  double log_sum = 0;
  int count = 0;
  for (const GemmProblem& shape : sweep) {
    GemmRunner r(shape);
    if (int rc = report(r.status())) return rc;
    for (const auto& [cm, cn] : clusters) {
      GemmProblem p = shape;
      p.cluster_m = cm, p.cluster_n = cn;
      r.set_cluster(cm, cn);
      TimingResult t;
      if (int rc = report(r.time(timing, true, &t))) return rc;
      // ratio[1]: cuBLAS's time / ours, per round, which is ours' speed / cuBLAS's.
      const Spread speed = t.ratio[1];
      log_sum += std::log(speed.median);
      ++count;
      if (json) {
        std::string config;
        if (int rc = report(r.describe_config(&config))) return rc;
        std::printf("%s\n", make_record(ctx, "gemm", gemm_args_json(p), t, p.flops(), p.bytes(), "cuBLAS", config).c_str());
      } else {
        std::printf("%-34s %9.4f %-22s %-22s %-22s\n", p.describe().c_str(), t.ms[0].median,
                    format_spread(tflops_of(t.ms[0], p.flops()), 1).c_str(),
                    format_spread(tflops_of(t.ms[1], p.flops()), 1).c_str(), format_spread(speed, 3).c_str());
      }
      std::fflush(stdout);
    }
  }
  if (!json)
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
  cmd->add_option("--dtype", o->dtype, "input dtype: bf16 or fp16")->check(CLI::IsMember({"bf16", "fp16"}));
  cmd->add_option("--out-dtype", o->out_dtype, "output dtype: the input's (default) or fp32")
      ->check(CLI::IsMember({"bf16", "fp16", "fp32"}));
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
  cmd->add_option("--cluster", o->cluster, kClusterHelp)->check(cluster_validator());
  cmd->add_flag("--check", o->check, "compare with cuBLAS in fp32");
  cmd->add_flag("--peer", o->peer, "time cuBLAS too, interleaved with ours, and print the ratio");
  add_timing_options(cmd, o->timing);
  add_common_options(cmd);
  cmd->callback([o, &exit_code] { exit_code = run_gemm(*o); });
}

void register_bench(CLI::App& app, int& exit_code) {
  auto* bench = app.add_subcommand("bench", "Benchmarks against the peer library in the same process");
  bench->require_subcommand(1);
  auto* g = bench->add_subcommand("gemm", "GEMM sweep, ours vs cuBLAS (tn layout), or the shapes given");
  auto o = std::make_shared<BenchGemmOptions>();
  g->add_flag("--quick", o->quick, "skip the largest problem of the fixed sweep");
  g->add_option("--shape", o->shapes, "a problem MxNxK (repeat for several) instead of the fixed sweep")
      ->check(CLI::Validator(
          [](std::string& s) {
            GemmShape shape;
            return parse_gemm_shape(s, &shape);
          },
          "MxNxK", "gemm shape"));
  g->add_option("--dtype", o->dtype, "input and output dtype: bf16 or fp16")->check(CLI::IsMember({"bf16", "fp16"}));
  g->add_option("--decomposition", o->decomposition, kDecompositionHelp)
      ->check(CLI::IsMember({"dp", "splitk", "streamk", "auto"}));
  g->add_option("--splits", o->splits, "split-K ranges per tile, 1..256 (0 = automatic; with --decomposition splitk)");
  g->add_option("--cluster", o->clusters,
                std::string(kClusterHelp) + "; repeat to run each shape once per cluster (e.g. --cluster 1x1 "
                                            "--cluster 2x1 --cluster 1x2)")
      ->check(cluster_validator());
  add_timing_options(g, o->timing);
  add_common_options(g);
  g->callback([o, &exit_code] { exit_code = run_bench_gemm(*o); });
  register_bench_attention(bench, exit_code);
}

}  // namespace warpspec::tools
