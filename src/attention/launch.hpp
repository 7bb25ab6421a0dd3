#pragma once
// Between the host logic (attention.cpp) and the per-head-dim kernel instantiations
// (attention_hd<d>.cu): which kernel, with which parameters.
#include <cuda_runtime_api.h>

#include "warpspec/attention/params.hpp"
#include "warpspec/status.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec::attention_impl {

// One per kernel head dim; each dispatches bf16 / fp16.
Status launch_attention_hd64(DType dtype, const AttentionParams& p, int grid, cudaStream_t stream);
Status launch_attention_hd128(DType dtype, const AttentionParams& p, int grid, cudaStream_t stream);
Status launch_attention_hd192(DType dtype, const AttentionParams& p, int grid, cudaStream_t stream);
Status launch_attention_hd256(DType dtype, const AttentionParams& p, int grid, cudaStream_t stream);

}  // namespace warpspec::attention_impl
