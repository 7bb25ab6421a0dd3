#pragma once
// GEMM: D = alpha · (A·B) + beta · C, batched. Part of the public API (warpspec.hpp).
#include <cuda_runtime_api.h>

#include "warpspec/status.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec {

// Order in which the persistent grid walks output tiles.
enum class GemmRaster : int { kHeuristic = 0, kAlongM = 1, kAlongN = 2 };

struct GemmArgs {
  // A: (M, K) or (L, M, K). B: (K, N) or (L, K, N). C, D: (M, N) or (L, M, N).
  // Each matrix is row- or column-major (a unit stride in one of its last two dims)
  // with a leading dimension whose byte size is a multiple of 16; data 16-byte
  // aligned. The batch L is D's; an operand of rank 2, or with batch stride 0,
  // broadcasts across it. A and B: bf16 or fp16, the same. D: A's dtype or fp32; C:
  // D's dtype and D's majorness. With beta == 0, C is never read and may be left empty.
  // Memory: device memory of the current device (or managed). D must not overlap A or
  // B; C may be exactly D (the same view: in place), and must not otherwise overlap it.
  // Extents may be 0: M, N or L = 0 computes nothing (every rule is still checked);
  // K = 0 gives D = beta·C (zeros when beta == 0), as torch.addmm does. Pointers of
  // empty views are not read.
  TensorView a, b, c, d;
  float alpha = 1.0f;
  float beta = 0.0f;
  GemmRaster raster = GemmRaster::kHeuristic;
  int swizzle = 0;  // L2 grouping of tiles: 1, 2, 4 or 8; 0 picks one
  int tile_n = 0;   // CTA tile width: 64, 128 or 256; 0 picks one (tuning and tests)
  // Programmatic dependent launch: the kernel may start while the previous kernel in
  // the stream is finishing (its set-up overlaps that kernel's tail) and waits for it
  // before reading or writing global memory, so results are the same. Off by default.
  bool pdl = false;
};

// Can this run? Checks every argument and the device without launching anything.
Status check(const GemmArgs& args);

// Run on `stream` (graph-capturable; no allocation, no synchronisation). Refusals are
// the same as gemm_check's and nothing is launched or written when refused.
Status gemm(const GemmArgs& args, cudaStream_t stream = nullptr);

}  // namespace warpspec
