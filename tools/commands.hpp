#pragma once
// Subcommands of the warpspec program. Each returns the process exit code.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "timing.hpp"

namespace warpspec::tools {

// Exit codes of the program (also in `warpspec --help`): 0 success; 1 a check failed or
// the library refused a call; 2 a usage error (the command line); 3 no Hopper GPU.
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNoGpu = 3;

// Exit 0 when at least one device can run warpspec; 1 (with one clear line) otherwise.
int run_info();

// `warpspec demo`: the main job. Registers itself; sets exit_code when run.
void register_demo(CLI::App& app, int& exit_code);

// `warpspec gemm` and `warpspec bench ...`.
void register_gemm(CLI::App& app, int& exit_code);
void register_bench(CLI::App& app, int& exit_code);

// `warpspec attention`, and `bench attention` (registered from register_bench).
void register_attention(CLI::App& app, int& exit_code);
void register_bench_attention(CLI::App* bench, int& exit_code);

// Range checks with a message a person can read: CLI11's PositiveNumber reports a bad
// value against a 309-digit upper bound.
inline CLI::Range positive() { return CLI::Range(int64_t(1), int64_t(1) << 40, "POSITIVE"); }
inline CLI::Range non_negative_seconds() { return CLI::Range(0.0, 3600.0, "SECONDS"); }

// --warmup-s, --rounds, --iters on a command that times (tools/timing.hpp).
inline void add_timing_options(CLI::App* cmd, TimingOptions& o) {
  cmd->add_option("--warmup-s", o.warmup_seconds, "seconds of sustained load (every candidate) before timing")
      ->check(non_negative_seconds());
  cmd->add_option("--rounds", o.rounds, "timed rounds; the median and spread are over their medians")
      ->check(positive());
  cmd->add_option("--iters", o.iters, "timed calls per candidate per round (ABBA-interleaved)")
      ->check(positive());
}

// The exit code of a step: 0 if `s` is OK, else 1 after printing its message.
inline int report(const Status& s) {
  if (s.ok()) return 0;
  std::fprintf(stderr, "warpspec: %s\n", s.to_string().c_str());
  return 1;
}

// One clear line on stderr and kExitNoGpu when no Hopper GPU is usable; 0 otherwise.
int require_hopper();

}  // namespace warpspec::tools
