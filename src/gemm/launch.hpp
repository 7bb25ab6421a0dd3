#pragma once
// Between the host logic (gemm.cpp) and the per-dtype kernel instantiations
// (gemm_<dtype>.cu): which kernel, with which parameters.
#include <cuda_runtime_api.h>

#include "warpspec/gemm/params.hpp"
#include "warpspec/status.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec::gemm_impl {

enum class TileChoice : int { kLarge = 0, kNarrow = 1 };

struct GemmVariant {
  DType in = DType::kBF16;
  DType out = DType::kBF16;
  bool a_k_major = true;
  bool b_k_major = true;
  TileChoice tile = TileChoice::kLarge;
};

// Tile sizes of a choice (host side; the same numbers as config.hpp's table).
int tile_block_m(TileChoice t);
int tile_block_n(TileChoice t);
int tile_block_k(TileChoice t);

Status launch_gemm_bf16(const GemmVariant& v, const GemmParams& p, int grid, cudaStream_t stream);
Status launch_gemm_fp16(const GemmVariant& v, const GemmParams& p, int grid, cudaStream_t stream);

}  // namespace warpspec::gemm_impl
