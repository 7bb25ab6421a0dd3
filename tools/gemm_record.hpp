#pragma once
// A GEMM problem's `args` in the --json records (tools/record.hpp): the problem as the
// command line gave it. Header-only so the host tests check the exact members.
#include <string>

#include "gemm_runner.hpp"
#include "json.hpp"

namespace warpspec::tools {

inline const char* raster_name(GemmRaster r) {
  return r == GemmRaster::kAlongM ? "m" : r == GemmRaster::kAlongN ? "n" : "auto";
}

inline json::Object gemm_args_json(const GemmProblem& p) {
  json::Object o;
  o.num("m", p.m).num("n", p.n).num("k", p.k).num("batch", p.batch).str("layout", p.layout);
  o.str("dtype", dtype_name(p.in)).str("out_dtype", dtype_name(p.out));
  // FP8's scales ("none" for 16-bit inputs) and whether they accumulate fast.
  o.str("scaling", scale_mode_name(p.scale)).boolean("fast_accum", p.fast_accum);
  o.num("alpha", double(p.alpha)).num("beta", double(p.beta)).str("raster", raster_name(p.raster));
  o.num("swizzle", p.swizzle).num("tile_n", p.tile_n);
  const GemmDecomposition d = p.decomposition;
  o.str("decomposition", d == GemmDecomposition::kDataParallel ? "dp"
                         : d == GemmDecomposition::kSplitK      ? "splitk"
                         : d == GemmDecomposition::kStreamK     ? "streamk"
                                                                : "auto");
  o.num("splits", p.splits);
  o.str("cluster", p.cluster_m == 0 && p.cluster_n == 0 ? "auto"
                                                        : std::to_string(p.cluster_m) + "x" + std::to_string(p.cluster_n));
  o.str("schedule", schedule_name(p.schedule));
  // The fused epilogue (ours only): a per-column bias of D's dtype, and the activation.
  o.boolean("bias", p.bias).str("activation", activation_name(p.activation));
  return o;
}

}  // namespace warpspec::tools
