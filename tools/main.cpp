// The warpspec program: info, demo, gemm, attention, bench. Uses the public API only.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "commands.hpp"
#include "warpspec/warpspec.hpp"

int main(int argc, char** argv) {
  CLI::App app{"warpspec: Hopper (sm_90a) GEMM and attention kernels"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("warpspec ") + warpspec::version());

  int exit_code = 0;
  auto* info = app.add_subcommand("info", "List CUDA devices and whether warpspec can run on each");
  info->callback([&] { exit_code = warpspec::tools::run_info(); });

  warpspec::tools::register_demo(app, exit_code);
  warpspec::tools::register_gemm(app, exit_code);
  warpspec::tools::register_attention(app, exit_code);
  warpspec::tools::register_bench(app, exit_code);

  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
