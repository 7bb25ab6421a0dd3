#include <cstdio>

#include "commands.hpp"
#include "warpspec/warpspec.hpp"

namespace warpspec::tools {

void register_demo(CLI::App& app, int& exit_code) {
  auto* demo = app.add_subcommand("demo", "GEMM and attention on a default problem, checked against a reference");
  demo->callback([&exit_code] {
    if (int rc = require_hopper()) {
      exit_code = rc;
      return;
    }
    std::printf("warpspec demo: the GEMM and attention kernels are not built yet (issues 3 and 4)\n");
    exit_code = 3;
  });
}

}  // namespace warpspec::tools
