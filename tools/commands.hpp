#pragma once
// Subcommands of the warpspec program. Each returns the process exit code.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "record.hpp"
#include "timing.hpp"

namespace warpspec::tools {

// Options every command takes (add_common_options): where to run and how to print.
struct CommonOptions {
  int device = -1;    // --device: -1 the current device (0 unless CUDA_VISIBLE_DEVICES reorders)
  bool json = false;  // --json: one JSON record per problem on stdout (tools/record.hpp), no table
};

// The process's one set (one command runs per process).
inline CommonOptions& common_options() {
  static CommonOptions o;
  return o;
}

// --device and --json on `cmd`.
inline void add_common_options(CLI::App* cmd) {
  CommonOptions& o = common_options();
  cmd->add_option("--device", o.device, "CUDA device index to run on (-1: the current device)")
      ->check(CLI::Range(-1, 1 << 20, "DEVICE"));
  cmd->add_flag("--json", o.json,
                "print one JSON record per problem (arguments, device, commit, times, TFLOP/s and GB/s, peer and "
                "ratio, the kernel configuration) instead of the table; see README.md");
}

// What every --json record says about where and how it was measured: the device
// (require_hopper() has selected it), the library version and the commit built.
RecordContext record_context(const std::string& command, const TimingOptions& timing);

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
// `bench decode` (decode_cmd.cpp), registered from register_bench_attention.
void register_bench_decode(CLI::App* bench, int& exit_code);

// The head-dim rule, worded as everywhere else (README.md, python/README.md, attention_api.hpp).
inline constexpr const char* kHeadDimHelp =
    "a multiple of 8 from 8 to 256 (64, 128, 192 and 256 run natively, others padded up to the next)";

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

// One clear line on stderr and kExitNoGpu when no Hopper GPU is usable (the --device
// one, when given); 0 otherwise, with that device made current.
int require_hopper();

}  // namespace warpspec::tools
