// The warpspec program: info, demo, gemm, attention, bench. Uses the public API only.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "commands.hpp"
#include "warpspec/warpspec.hpp"

int main(int argc, char** argv) {
  CLI::App app{"warpspec: Hopper (sm_90a) GEMM and attention kernels"};
  app.require_subcommand(1);
  // Every option's default shows in --help (set before any option is added: subcommands
  // inherit it).
  app.option_defaults()->always_capture_default();
  app.footer("Exit codes: 0 success, 1 a check failed or the library refused the call, 2 a usage error, "
             "3 no Hopper GPU.");
  app.set_version_flag("--version", std::string("warpspec ") + warpspec::version());

  int exit_code = 0;
  auto* info = app.add_subcommand("info", "List CUDA devices and whether warpspec can run on each");
  warpspec::tools::add_common_options(info);
  info->callback([&] { exit_code = warpspec::tools::run_info(); });

  warpspec::tools::register_demo(app, exit_code);
  warpspec::tools::register_gemm(app, exit_code);
  warpspec::tools::register_attention(app, exit_code);
  warpspec::tools::register_bench(app, exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" that exit 0; every real one is a usage error,
    // exit 2 by convention (CLI11's own codes, 105 and up, say nothing to a script).
    const int rc = app.exit(e);
    return rc == 0 ? 0 : warpspec::tools::kExitUsage;
  }
  return exit_code;
}
