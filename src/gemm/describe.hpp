#pragma once
// The GEMM configuration a call picked, as one line (include/warpspec/describe.hpp).
// gemm.cpp fills a GemmChoice from its plan at the two places that need the line,
// describe() and the launch (WARPSPEC_LOG_CONFIG); the wording lives here alone.
#include <cstddef>
#include <cstdint>
#include <string>

#include "../common/launch.hpp"
#include "warpspec/gemm/config.hpp"
#include "warpspec/schedule/raster.hpp"

namespace warpspec::gemm_impl {

struct GemmChoice {
  GemmConfig config;                   // the kernel (one of kGemmInstances)
  int64_t m = 0, n = 0, k = 0, l = 1;  // the kernel's problem: after a swap, m is the caller's N
  bool swapped = false;                // D column-major, computed as Dᵀ = BᵀAᵀ
  // The schedule, as plain values (whichever scheduler type carries them).
  schedule::RasterOrder raster = schedule::RasterOrder::kAlongN;  // resolved, never kHeuristic
  int swizzle = 1;
  int tiles = 0;                                   // output tiles, all batches
  const char* decomposition = "data_parallel";     // how K is split across CTAs
  int splits = 1;                                  // K pieces per tile (split-K)
  size_t workspace_bytes = 0;                      // fixup workspace the launch uses
  // FP8: "tensor_or_row", "block", or null for 16-bit inputs; promotions per unit (fast
  // accumulation) or every k-block.
  const char* scaling = nullptr;
  bool fast_accum = false;
  LaunchShape shape;                   // grid 0: nothing to launch (an empty output)
};

std::string describe(const GemmChoice& c);

}  // namespace warpspec::gemm_impl
