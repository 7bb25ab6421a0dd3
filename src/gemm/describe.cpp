#include "describe.hpp"

#include <cinttypes>

#include "../common/format.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec::gemm_impl {

std::string describe(const GemmChoice& c) {
  const GemmConfig& g = c.config;
  std::string line = fmt("gemm m=%" PRId64 " n=%" PRId64 " k=%" PRId64 " l=%" PRId64
                         " in=%s out=%s a=%s b=%s swapped=%d",
                         c.m, c.n, c.k, c.l, dtype_name(g.in), dtype_name(g.out), g.a_k_major ? "k-major" : "m-major",
                         g.b_k_major ? "k-major" : "n-major", c.swapped ? 1 : 0);
  if (g.b_other_fp8) line += fmt(" in_b=%s", dtype_name(g.b_dtype()));  // the kernel's B, mixed FP8
  if (g.epilogue == EpilogueKind::kFused) line += " epilogue=fused";
  if (g.schedule == KernelSchedule::kPingPong) line += " schedule=pingpong";
  if (c.scaling != nullptr) line += fmt(" scaling=%s promote=%s", c.scaling, c.fast_accum ? "per_unit" : "per_k_block");
  if (c.shape.grid == 0) return line + " launch=none (empty output)";
  const int block_k = g.tile.block_k;
  const int64_t k_tiles = (c.k + block_k - 1) / block_k;
  line += fmt(" tile=%dx%dx%d stages=%d epi_stages=%d cluster=%dx%d", g.tile.block_m, g.tile.block_n, block_k,
              g.tile.stages, g.tile.epi_stages, g.cluster.m, g.cluster.n);
  line += fmt(" raster=%s swizzle=%d decomposition=%s splits=%d tiles=%d grid=%d k_tiles=%" PRId64 " pdl=%d",
              c.raster == schedule::RasterOrder::kAlongM ? "along_m" : "along_n", c.swizzle, c.decomposition,
              c.splits, c.tiles, c.shape.grid, k_tiles, c.shape.pdl ? 1 : 0);
  if (c.workspace_bytes > 0) line += fmt(" workspace=%zu", c.workspace_bytes);
  return line;
}

}  // namespace warpspec::gemm_impl
