#pragma once
// Between the host logic (gemm.cpp) and the per-dtype kernel instantiations
// (gemm_<dtype>.cu): which kernel, with which parameters.
#include <cuda_runtime_api.h>

#include "warpspec/gemm/params.hpp"
#include "warpspec/status.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec::gemm_impl {


struct GemmVariant {
  DType in = DType::kBF16;
  DType out = DType::kBF16;
  bool a_k_major = true;
  bool b_k_major = true;
  int tile = 0;  // index into kTileConfigs
};

Status launch_gemm_bf16(const GemmVariant& v, const GemmParams& p, int grid, cudaStream_t stream);
Status launch_gemm_fp16(const GemmVariant& v, const GemmParams& p, int grid, cudaStream_t stream);

}  // namespace warpspec::gemm_impl
