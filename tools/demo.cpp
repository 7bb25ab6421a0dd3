#include <cstdio>

#include "commands.hpp"
#include "gemm_runner.hpp"
#include "warpspec/warpspec.hpp"

namespace warpspec::tools {

// The main job: an 8192^3 bf16 GEMM checked against cuBLAS, with TFLOP/s and the
// ratio to cuBLAS from the same process.
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
  std::printf("attention: not built yet\n");
  return ok ? 0 : 1;
}

void register_demo(CLI::App& app, int& exit_code) {
  auto* demo = app.add_subcommand("demo", "GEMM and attention on a default problem, checked against a reference");
  demo->callback([&exit_code] { exit_code = run_demo(); });
}

}  // namespace warpspec::tools
