#pragma once
// Subcommands of the warpspec program. Each returns the process exit code.
#include <CLI/CLI.hpp>

namespace warpspec::tools {

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

// One clear line on stderr and exit code 2 when no Hopper GPU is usable; 0 otherwise.
int require_hopper();

}  // namespace warpspec::tools
