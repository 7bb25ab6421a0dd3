#pragma once
// The GEMM configuration a call picked, as one line (include/warpspec/describe.hpp).
// gemm.cpp fills a GemmChoice from its plan at the two places that need the line,
// describe() and the launch (WARPSPEC_LOG_CONFIG); the wording lives here alone.
#include <cstdint>
#include <string>

#include "../common/launch.hpp"
#include "warpspec/gemm/config.hpp"
#include "warpspec/schedule/persistent.hpp"

namespace warpspec::gemm_impl {

struct GemmChoice {
  GemmConfig config;                     // the kernel (one of kGemmInstances)
  schedule::PersistentScheduler sched;  // the schedule it walks (raster resolved, swizzle, grid)
  int64_t m = 0, n = 0, k = 0, l = 1;    // the kernel's problem: after a swap, m is the caller's N
  bool swapped = false;                  // D column-major, computed as Dᵀ = BᵀAᵀ
  LaunchShape shape;                     // grid 0: nothing to launch (an empty output)
};

std::string describe(const GemmChoice& c);

}  // namespace warpspec::gemm_impl
