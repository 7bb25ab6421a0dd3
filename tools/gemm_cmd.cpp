// `warpspec gemm` and `warpspec bench gemm`.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "gemm_record.hpp"
#include "gemm_runner.hpp"
#include "shapes.hpp"

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

constexpr const char* kScheduleHelp =
    "the consumer warpgroups' schedule: cooperative (both multiply one tile), pingpong (each its own 128 x 128 tile, "
    "in turns: one's epilogue beside the other's mainloop; bf16 / fp16 x @ w.t(), and without a fused epilogue layouts "
    "tt and nn), or auto (the library's choice)";

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

// --dtype, --out-dtype, --scaling and --fast-accum: the element types and FP8's scales, the
// same on `gemm` and `bench gemm`.
struct DtypeOptions {
  std::string dtype = "bf16", out_dtype, scaling = "tensor";
  bool fast_accum = false;
  float scale_result = 0;  // e4m3 D only; 0: not given
  CLI::Option* scaling_option = nullptr;  // count() > 0: --scaling was given
  // The fused epilogue (ours; the peer runs the plain GEMM).
  bool bias = false;
  std::string activation = "none";
};

void add_dtype_options(CLI::App* cmd, DtypeOptions& o) {
  cmd->add_option("--dtype", o.dtype, "input dtype: bf16, fp16, or e4m3 (FP8, with scales)")
      ->check(CLI::IsMember({"bf16", "fp16", "e4m3"}));
  cmd->add_option("--out-dtype", o.out_dtype,
                  "output dtype: bf16, fp16 or fp32 (default: the input's; bf16 for e4m3), or e4m3 with --dtype e4m3 "
                  "(saturated, amax computed)")
      ->check(CLI::IsMember({"bf16", "fp16", "fp32", "e4m3"}));
  cmd->add_option("--scale-result", o.scale_result,
                  "--out-dtype e4m3 only: D = e4m3(scale_result * x) (torch._scaled_mm's scale_result; default 1)")
      ->check(CLI::Validator(
          [](std::string& s) {
            char* end = nullptr;
            const double v = std::strtod(s.c_str(), &end);
            const bool ok = end != s.c_str() && *end == '\0' && v > 0 && std::isfinite(v);
            return ok ? std::string() : "must be a positive finite number, got " + s;
          },
          "POSITIVE"));
  o.scaling_option =
      cmd->add_option("--scaling", o.scaling,
                      "e4m3 only: random positive fp32 scales, tensor (one for A, one for B), row (one per row of A "
                      "and per column of B) or block (DeepSeek-V3's: per 1x128 of A, per 128x128 of B)")
          ->check(CLI::IsMember({"tensor", "row", "block"}));
  cmd->add_flag("--fast-accum", o.fast_accum,
                "e4m3 only: accumulate in the tensor core over all of K, not promoted to fp32 every 128 (faster, "
                "less accurate)");
  cmd->add_flag("--bias", o.bias,
                "fused epilogue: add a random bias per column of D (D's dtype); ours only, the peer runs the plain "
                "GEMM");
  cmd->add_option("--activation", o.activation,
                  "fused epilogue: none, relu, gelu (erf), gelu_tanh or silu, applied last; ours only, the peer runs "
                  "the plain GEMM")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(kActivationNames), std::end(kActivationNames))));
}

// The dtype options into the problem: 0, or kExitUsage after one line saying what is wrong
// (names were checked when the command line was parsed; the library refuses the rest).
int apply_dtype_options(const DtypeOptions& o, GemmProblem* p) {
  parse_dtype(o.dtype, &p->in);
  const bool fp8 = p->in == DType::kE4M3;
  if (!fp8 && (o.scaling_option->count() > 0 || o.fast_accum)) {
    std::fprintf(stderr, "warpspec: --scaling and --fast-accum apply to --dtype e4m3 only (%s inputs take no scales)\n",
                 o.dtype.c_str());
    return kExitUsage;
  }
  p->out = fp8 ? DType::kBF16 : p->in;
  if (!o.out_dtype.empty()) parse_dtype(o.out_dtype, &p->out);
  if (o.scale_result != 0 && p->out != DType::kE4M3) {
    std::fprintf(stderr, "warpspec: --scale-result applies to --out-dtype e4m3 only\n");
    return kExitUsage;
  }
  p->scale_result = o.scale_result;
  p->scale = ScaleMode::kNone;
  if (fp8) parse_scale_mode(o.scaling, &p->scale);
  p->fast_accum = o.fast_accum;
  p->bias = o.bias;
  parse_activation(o.activation, &p->activation);  // validated when the command line was parsed
  return 0;
}

struct GemmOptions {
  GemmProblem p;
  DtypeOptions types;
  std::string raster = "auto", decomposition = "auto", cluster = "auto", schedule = "auto";
  bool check = false, peer = false;
  TimingOptions timing;
};

json::Object& add_check(json::Object& o, const GemmCheck& c) {
  o.boolean("passed", c.passes()).num("rel_error", c.rel_error);
  o.num("rel_error_limit", c.rel_error_limit).num("max_abs_error", c.max_abs_error);
  return o.num("elements", c.elements).num("over_tolerance", c.bad);
}

// Ours' check, and the peer's (its D against the same reference) when it ran.
std::string gemm_check_json(const GemmCheck& c, const GemmProblem& p, const GemmCheck* peer) {
  json::Object o;
  o.str("against", p.in == DType::kE4M3 ? "cuBLAS (fp32, dequantised inputs)" : "cuBLAS (fp32)");
  add_check(o, c);
  if (peer) {
    json::Object q;
    q.str("name", gemm_peer_name(p.in));
    o.obj("peer", add_check(q, *peer));
  }
  return o.text();
}

int run_gemm(GemmOptions o) {
  if (int rc = apply_dtype_options(o.types, &o.p)) return rc;
  if (int rc = require_hopper()) return rc;
  o.p.raster = parse_raster(o.raster);
  o.p.decomposition = parse_decomposition(o.decomposition);
  parse_cluster(o.cluster, &o.p.cluster_m, &o.p.cluster_n);  // validated when the command line was parsed
  parse_schedule(o.schedule, &o.p.schedule);                  // likewise
  const bool json = common_options().json;
  GemmRunner r(o.p);
  if (int rc = report(r.status())) return rc;
  // Refusals come from the library: the same message a C++ caller gets.
  if (int rc = report(r.run_ours(0, nullptr))) return rc;
  TimingResult t;
  if (int rc = report(r.time(o.timing, o.peer, &t))) return rc;
  std::string config;
  if (int rc = report(r.describe_config(&config))) return rc;
  const bool timed_peer = o.peer && r.peer_unavailable().empty();
  GemmCheck c, pc;  // ours, and with --peer the peer's D against the same reference
  if (o.check)
    if (int rc = report(r.check(&c, timed_peer ? &pc : nullptr))) return rc;
  const bool passed = c.passes() && (!timed_peer || pc.passes());
  if (json) {
    const std::string record =
        make_record(record_context("gemm", o.timing), "gemm", gemm_args_json(o.p), t, o.p.flops(), o.p.bytes(),
                    timed_peer ? r.peer_name() : "", config,
                    o.check ? gemm_check_json(c, o.p, timed_peer ? &pc : nullptr) : "",
                    o.peer ? r.peer_unavailable() : "");
    std::printf("%s\n", record.c_str());
  } else {
    std::printf("%s: %s ms, %s TFLOP/s (median of %d rounds, least-largest)\n", o.p.describe().c_str(),
                format_spread(t.ms[0], 4).c_str(), format_spread(tflops_of(t.ms[0], o.p.flops()), 1).c_str(),
                o.timing.rounds);
    if (timed_peer)
      std::printf("%s%s: %s TFLOP/s, ratio (ours / %s speed) %s\n", r.peer_name(),
                  o.p.fused() ? " (plain GEMM, no epilogue)" : "", format_spread(tflops_of(t.ms[1], o.p.flops()), 1).c_str(),
                  r.peer_name(), format_spread(t.ratio[1], 3).c_str());
    else if (o.peer)
      std::printf("%s: n/a (%s)\n", r.peer_name(), r.peer_unavailable().c_str());
    std::printf("config: %s\n", config.c_str());
    if (o.check) print_check(c, o.p);
    if (o.check && timed_peer) print_check(pc, o.p, r.peer_name());
  }
  // A peer that misses the reference fails too: its ratio would compare against a wrong answer.
  return o.check && !passed ? 1 : 0;
}

struct BenchGemmOptions {
  bool quick = false;
  float beta = 0.0f;  // --beta: D = A*B + beta*C for ours and the peer (C read)
  std::vector<std::string> shapes;  // --shape MxNxK; empty: the fixed sweep
  DtypeOptions types;
  TimingOptions timing;
  std::string decomposition = "auto";
  int splits = 0;
  std::vector<std::string> clusters;  // --cluster, repeated: each shape once per cluster; empty: auto
  std::vector<int> tile_ns;           // --tile-n, repeated: each shape once per width; empty: auto
  std::vector<std::string> schedules;  // --schedule, repeated: each shape once per schedule; empty: auto
  std::string versus;                  // --versus-schedule: ours with it too, in the same interleaving
  std::string raster = "auto";         // --raster: ours' tile order
  std::string versus_raster;           // --versus-raster: ours with that order too, in the same interleaving
  std::string versus_cluster;          // --versus-cluster: ours with that cluster too, in the same interleaving
  int swizzle = 0;                     // --swizzle: ours' L2 grouping of tiles (0: the library's)
  int versus_swizzle = 0;              // --versus-swizzle: ours with that grouping too, in the same interleaving
  std::string layout = "tn";
  bool control = false;  // --control: the peer against itself in the same interleaving
  bool plain = false;    // --plain: ours without the fused epilogue in the same interleaving
  bool no_rotate = false;  // --no-rotate: the same inputs every call (CUTLASS's profiler's way)
};

int run_bench_gemm(const BenchGemmOptions& o) {
  GemmProblem base;
  if (int rc = apply_dtype_options(o.types, &base)) return rc;
  // The second run of ours (validated when parsed): another schedule, another tile order, or both.
  GemmVariant versus;
  GemmSchedule versus_schedule{};
  if (!o.versus.empty() && parse_schedule(o.versus, &versus_schedule)) versus.schedule = versus_schedule;
  if (!o.versus_raster.empty()) versus.raster = parse_raster(o.versus_raster);
  if (!o.versus_cluster.empty()) {
    std::pair<int, int> c;
    parse_cluster(o.versus_cluster, &c.first, &c.second);  // validated when the command line was parsed
    versus.cluster = c;
  }
  if (o.versus_swizzle != 0) versus.swizzle = o.versus_swizzle;
  const bool has_versus = versus.schedule || versus.raster || versus.cluster || versus.swizzle;
  if (o.plain && !base.fused()) {
    std::fprintf(stderr, "warpspec: --plain times ours without the fused epilogue: give --bias or --activation too\n");
    return kExitUsage;
  }
  base.layout = o.layout;
  base.beta = o.beta;
  if (int rc = require_hopper()) return rc;
  std::vector<GemmProblem> sweep;
  auto add = [&](int64_t m, int64_t n, int64_t k) {
    GemmProblem p = base;
    p.m = m, p.n = n, p.k = k;
    p.decomposition = parse_decomposition(o.decomposition);
    p.raster = parse_raster(o.raster);
    p.swizzle = o.swizzle;
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
    if (!o.quick) {
      add(16384, 16384, 16384);
      // Decode and LLM layers (issue 10's rows).
      add(1, 8192, 8192);
      add(16, 8192, 28672);
      add(64, 8192, 8192);
      add(256, 28672, 8192);
      add(4096, 28672, 8192);
      add(4096, 8192, 28672);
      // One fp16 row and one NN row, when the sweep is the default bf16 tn one.
      if (base.in == DType::kBF16 && base.out == DType::kBF16 && base.layout == "tn") {
        add(16, 8192, 28672);
        sweep.back().in = sweep.back().out = DType::kFP16;
        add(4096, 4096, 4096);
        sweep.back().layout = "nn";
      }
    }
  }
  const bool json = common_options().json;
  const TimingOptions& timing = o.timing;
  const char* peer = gemm_peer_name(base.in);
  int width = 34;  // the problem column: as wide as the longest name
  for (const GemmProblem& p : sweep) width = std::max(width, int(p.describe().size()) + 1);
  if (!json) {
    std::printf("# ours and %s interleaved call by call (ABBA) after %.1f s of load; median of %d rounds of %d "
                "calls each, (least-largest round); ratio = ours / %s speed, per round\n",
                peer, timing.warmup_seconds, timing.rounds, 2 * ((timing.iters + 1) / 2), peer);
    std::printf("# inputs %s\n", o.no_rotate ? "the same every call (--no-rotate: what L2 holds stays there, as CUTLASS's "
                                               "profiler times; not the default)"
                                             : "rotated through sets that pass 3x the L2 between reuses");
    if (base.fused())
      std::printf("# ours with the fused epilogue (%s%s%s), %s without it%s\n", base.bias ? "bias" : "",
                  base.bias && base.activation != GemmActivation::kNone ? " + " : "",
                  base.activation != GemmActivation::kNone ? activation_name(base.activation) : "", peer,
                  o.plain ? "; plain: ours without it in the same interleaving, cost = fused time / plain time" : "");
    if (has_versus)
      std::printf("# versus: ours with%s%s%s%s%s%s%s%s in the same interleaving, its TFLOP/s and ours' speed over it\n",
                  versus.schedule ? " schedule " : "", versus.schedule ? schedule_name(*versus.schedule) : "",
                  versus.raster ? " tiles along " : "", versus.raster ? o.versus_raster.c_str() : "",
                  versus.cluster ? " cluster " : "", versus.cluster ? o.versus_cluster.c_str() : "",
                  versus.swizzle ? " swizzle " : "", versus.swizzle ? std::to_string(*versus.swizzle).c_str() : "");
    std::printf("%-*s %9s %-22s %-22s %-22s%s%s%s\n", width, "problem", "ours ms", "ours TFLOP/s",
                (std::string(peer) + " TFLOP/s").c_str(), "ratio", o.control ? " control" : "",
                has_versus ? " versus TFLOP/s         ours/versus" : "", o.plain ? " plain TFLOP/s          cost" : "");
  }
  // Each shape once per --cluster value, on the same buffers, each run timed against
  // the peer interleaved with it (so every row's ratio has its own clock conditions).
  std::vector<std::pair<int, int>> clusters;
  for (const std::string& c : o.clusters) {
    int m, n;
    parse_cluster(c, &m, &n);  // validated when the command line was parsed
    clusters.emplace_back(m, n);
  }
  if (clusters.empty()) clusters.emplace_back(0, 0);
  std::vector<int> tile_ns = o.tile_ns;
  if (tile_ns.empty()) tile_ns.push_back(0);
  std::vector<GemmSchedule> schedules;
  for (const std::string& s : o.schedules) parse_schedule(s, &schedules.emplace_back());  // validated when parsed
  if (schedules.empty()) schedules.push_back(GemmSchedule::kHeuristic);
  const RecordContext ctx = json ? record_context("bench gemm", timing) : RecordContext{};
  double log_sum = 0;
  int count = 0;
  std::string unavailable;  // the last reason the peer could not run a problem
  for (const GemmProblem& shape : sweep) {
    GemmRunner r(shape, /*rotate=*/!o.no_rotate);
    if (int rc = report(r.status())) return rc;
    // Where the peer cannot run the problem (cuBLASLt has no algorithm for it): ours alone,
    // and "n/a" in its columns, never a number.
    const bool timed_peer = r.peer_unavailable().empty();
    if (!timed_peer) unavailable = r.peer_unavailable();
    for (const auto& [cm, cn] : clusters)
    for (const int tile_n : tile_ns)
    for (const GemmSchedule schedule : schedules) {
      GemmProblem p = shape;
      p.cluster_m = cm, p.cluster_n = cn;
      p.tile_n = tile_n;
      p.schedule = schedule;
      r.set_cluster(cm, cn);
      r.set_tile_n(tile_n);
      r.set_schedule(schedule);
      TimingResult t;
      if (int rc = report(r.time(timing, true, &t, o.control, o.plain, has_versus ? &versus : nullptr))) return rc;
      // ratio[1]: the peer's time / ours, per round, which is ours' speed / the peer's.
      const Spread speed = timed_peer ? t.ratio[1] : Spread{};
      if (timed_peer) log_sum += std::log(speed.median), ++count;
      if (json) {
        std::string config;
        if (int rc = report(r.describe_config(&config))) return rc;
        std::printf("%s\n", make_record(ctx, "gemm", gemm_args_json(p), t, p.flops(), p.bytes(), timed_peer ? peer : "",
                                        config, "", r.peer_unavailable())
                                .c_str());
      } else {
        char control[32] = "", plain[64] = "", vs[64] = "";
        if (t.control() > 0) std::snprintf(control, sizeof control, " %.3f", t.control());
        if (t.versus_index >= 0)
          std::snprintf(vs, sizeof vs, " %-22s %s", format_spread(tflops_of(t.ms[t.versus_index], p.flops()), 1).c_str(),
                        format_spread(t.ratio[t.versus_index], 3).c_str());
        if (t.plain_cost() > 0)
          std::snprintf(plain, sizeof plain, " %-22s %.3f", format_spread(tflops_of(t.ms.back(), p.flops()), 1).c_str(),
                        t.plain_cost());
        std::printf("%-*s %9.4f %-22s %-22s %-22s%s%s%s\n", width, p.describe().c_str(), t.ms[0].median,
                    format_spread(tflops_of(t.ms[0], p.flops()), 1).c_str(),
                    timed_peer ? format_spread(tflops_of(t.ms[1], p.flops()), 1).c_str() : "n/a",
                    timed_peer ? format_spread(speed, 3).c_str() : "n/a", control, vs, plain);
      }
      std::fflush(stdout);
    }
  }
  if (!json && count > 0)
    std::printf("geometric mean ratio (ours / %s speed): %.3f over %d problems\n", peer, std::exp(log_sum / count),
                count);
  if (!json && !unavailable.empty()) std::printf("%s n/a: %s\n", peer, unavailable.c_str());
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
  add_dtype_options(cmd, o->types);
  cmd->add_option("--batch", o->p.batch, "batch count L")->check(positive());
  cmd->add_option("--alpha", o->p.alpha, "scale of A*B");
  cmd->add_option("--beta", o->p.beta, "scale of C (0: C is not read)");
  cmd->add_option("--raster", o->raster, "tile order: m (along M), n (along N) or auto")
      ->check(CLI::IsMember({"m", "n", "auto"}));
  cmd->add_option("--swizzle", o->p.swizzle, "L2 grouping of tiles: 1, 2, 4, 8, 16 (0 = automatic, 8 at most)")
      ->check(CLI::IsMember({0, 1, 2, 4, 8, 16}));
  cmd->add_option("--tile-n", o->p.tile_n, "CTA tile width: 64, 128, 256, 224 (bf16 x @ w.t() only), 160 (the same, with --schedule pingpong), or 16, 32 (narrow: D computed as D^T; 0 = automatic)");
  cmd->add_option("--decomposition", o->decomposition, kDecompositionHelp)
      ->check(CLI::IsMember({"dp", "splitk", "streamk", "auto"}));
  cmd->add_option("--splits", o->p.splits, "split-K ranges per tile, 1..256 (0 = automatic; with --decomposition splitk)");
  cmd->add_option("--cluster", o->cluster, kClusterHelp)->check(cluster_validator());
  cmd->add_option("--schedule", o->schedule, kScheduleHelp)->check(CLI::IsMember({"auto", "cooperative", "pingpong"}));
  cmd->add_flag("--check", o->check, "compare with cuBLAS in fp32 (e4m3: of the inputs dequantised with their scales)");
  cmd->add_flag("--peer", o->peer,
                "time the peer too (cuBLAS; cuBLASLt's FP8 matmul for e4m3), interleaved with ours, and print the "
                "ratio");
  add_timing_options(cmd, o->timing);
  add_common_options(cmd);
  cmd->callback([o, &exit_code] { exit_code = run_gemm(*o); });
}

void register_bench(CLI::App& app, int& exit_code) {
  auto* bench = app.add_subcommand("bench", "Benchmarks against the peer library in the same process");
  bench->require_subcommand(1);
  auto* g = bench->add_subcommand(
      "gemm", "GEMM sweep, ours vs cuBLAS (cuBLASLt's FP8 matmul for e4m3), or the shapes given");
  auto o = std::make_shared<BenchGemmOptions>();
  g->add_flag("--quick", o->quick, "skip the largest problem of the fixed sweep");
  g->add_option("--shape", o->shapes, "a problem MxNxK (repeat for several) instead of the fixed sweep")
      ->check(CLI::Validator(
          [](std::string& s) {
            GemmShape shape;
            return parse_gemm_shape(s, &shape);
          },
          "MxNxK", "gemm shape"));
  add_dtype_options(g, o->types);
  g->add_option("--layout", o->layout, kLayoutHelp)->check(CLI::IsMember({"tn", "nt", "nn", "tt"}));
  g->add_option("--beta", o->beta, "scale of C, for ours and the peer alike (0: C is not read)");
  g->add_option("--decomposition", o->decomposition, kDecompositionHelp)
      ->check(CLI::IsMember({"dp", "splitk", "streamk", "auto"}));
  g->add_option("--splits", o->splits, "split-K ranges per tile, 1..256 (0 = automatic; with --decomposition splitk)");
  g->add_option("--cluster", o->clusters,
                std::string(kClusterHelp) + "; repeat to run each shape once per cluster (e.g. --cluster 1x1 "
                                            "--cluster 2x1 --cluster 1x2)")
      ->check(cluster_validator());
  g->add_option("--tile-n", o->tile_ns,
                "CTA tile width (64, 128, 256, or narrow 16, 32; 224, and 160 with --schedule pingpong: bf16 x @ w.t() "
                "only; 0 = automatic); repeat to run each shape once per width, each against the peer")
      ->check(CLI::IsMember({0, 16, 32, 64, 128, 160, 224, 256}));
  g->add_option("--schedule", o->schedules,
                std::string(kScheduleHelp) + "; repeat to run each shape once per schedule, each against the peer")
      ->check(CLI::IsMember({"auto", "cooperative", "pingpong"}));
  g->add_option("--versus-schedule", o->versus,
                "time ours with this schedule too, in the same interleaving, and print ours' speed over it (a "
                "schedule against another without the peer's clock between them; JSON: \"versus\")")
      ->check(CLI::IsMember({"auto", "cooperative", "pingpong"}));
  g->add_option("--raster", o->raster, "tile order of ours: m (along M), n (along N) or auto")
      ->check(CLI::IsMember({"m", "n", "auto"}));
  g->add_option("--versus-raster", o->versus_raster,
                "time ours with this tile order too (m or n), in the same interleaving, and print ours' speed over it "
                "(with --versus-schedule: both changed in the second run; JSON: \"versus\")")
      ->check(CLI::IsMember({"m", "n"}));
  g->add_option("--swizzle", o->swizzle, "L2 grouping of ours' tiles: 1, 2, 4, 8, 16 (0 = automatic, 8 at most)")
      ->check(CLI::IsMember({0, 1, 2, 4, 8, 16}));
  g->add_option("--versus-swizzle", o->versus_swizzle,
                "time ours with this L2 grouping of tiles too (1, 2, 4, 8, 16), in the same interleaving, and print "
                "ours' speed over it (with the other --versus options: all changed in the second run; JSON: "
                "\"versus\")")
      ->check(CLI::IsMember({1, 2, 4, 8, 16}));
  g->add_option("--versus-cluster", o->versus_cluster,
                "time ours with this cluster too (MxN: 1x1, 2x1, 1x2, or auto), in the same interleaving, and print "
                "ours' speed over it (with the other --versus options: all changed in the second run; JSON: "
                "\"versus\")")
      ->check(cluster_validator());
  g->add_flag("--plain", o->plain,
              "with --bias or --activation: time ours without the fused epilogue too, in the same interleaving, and "
              "print the epilogue's cost (fused time / plain time; JSON: \"plain\", \"epilogue_cost\")");
  g->add_flag("--control", o->control,
              "time the peer twice, both interleaved with ours, and print the first's speed over the second's "
              "(a control: how far the peer's figure moves from its position alone; JSON: \"control\")");
  g->add_flag("--no-rotate", o->no_rotate,
              "time every call on the same inputs (what fits in L2 stays there), as CUTLASS's profiler does; the "
              "default rotates input sets past L2 (JSON: timing.input_sets)");
  add_timing_options(g, o->timing);
  add_common_options(g);
  g->callback([o, &exit_code] { exit_code = run_bench_gemm(*o); });
  register_bench_attention(bench, exit_code);
}

}  // namespace warpspec::tools
