#pragma once
// Runtime -> template dispatch for one input dtype: output dtype x operand majors x
// tile. Included by exactly one .cu per input dtype, so instantiations build in
// parallel.
#include <string>

#include "../launch_kernel.cuh"
#include "launch.hpp"
#include "warpspec/gemm/kernel.cuh"

namespace warpspec::gemm_impl {

template <class Kernel>
Status launch_kernel(const GemmParams& p, int grid, cudaStream_t stream) {
  return warpspec::launch_kernel<gemm_kernel<Kernel>>(p, grid, kThreads, Kernel::kSmemBytes, stream, "gemm");
}

template <TileConfig kTile, class TIn, class TOut>
Status launch_majors(const GemmVariant& v, const GemmParams& p, int grid, cudaStream_t stream) {
  constexpr int M = kTile.block_m, N = kTile.block_n, K = kTile.block_k, S = kTile.stages, E = kTile.epi_stages;
  if (v.a_k_major && v.b_k_major) return launch_kernel<GemmKernel<M, N, K, S, E, TIn, TOut, true, true>>(p, grid, stream);
  if (v.a_k_major) return launch_kernel<GemmKernel<M, N, K, S, E, TIn, TOut, true, false>>(p, grid, stream);
  if (v.b_k_major) return launch_kernel<GemmKernel<M, N, K, S, E, TIn, TOut, false, true>>(p, grid, stream);
  return launch_kernel<GemmKernel<M, N, K, S, E, TIn, TOut, false, false>>(p, grid, stream);
}

template <int kTile, class TIn>
Status launch_tile(const GemmVariant& v, const GemmParams& p, int grid, cudaStream_t stream) {
  if constexpr (kTile < kNumTileConfigs) {
    if (v.tile != kTile) return launch_tile<kTile + 1, TIn>(v, p, grid, stream);
    return v.out == DType::kFP32 ? launch_majors<kTileConfigs[kTile], TIn, float>(v, p, grid, stream)
                                 : launch_majors<kTileConfigs[kTile], TIn, TIn>(v, p, grid, stream);
  } else {
    return internal_error("gemm: no tile configuration " + std::to_string(v.tile));
  }
}

template <class TIn>
Status launch_for_input(const GemmVariant& v, const GemmParams& p, int grid, cudaStream_t stream) {
  return launch_tile<0, TIn>(v, p, grid, stream);
}

}  // namespace warpspec::gemm_impl
