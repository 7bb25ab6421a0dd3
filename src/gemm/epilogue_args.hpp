#pragma once
// Validation of the GEMM's epilogue arguments (scales, bias, activation) and their
// translation into the kernel's EpilogueOpParams. Refusals name the argument.
#include <cstdint>

#include "warpspec/gemm/epilogue_params.hpp"
#include "warpspec/gemm/params.hpp"
#include "warpspec/gemm_api.hpp"
#include "warpspec/status.hpp"

namespace warpspec::gemm_impl {

// `m`, `n`: the user's problem (rows and columns of D); `d_dtype`: D's. `swapped`: the
// kernel computes Dᵀ (its rows are the user's columns), so row and column vectors trade
// places. Checks shapes, dtypes, strides and alignment; not where the memory lives.
Status read_epilogue_args(const GemmArgs& args, int64_t m, int64_t n, DType d_dtype, bool swapped,
                          EpilogueOpParams* out);

// GemmScaling::kBlock's scales (gemm_api.hpp has the rules): scale_a (M, ceil(K/128)) and
// scale_b (ceil(K/128), ceil(N/128)), fp32, any strides, 4-byte aligned, both given.
// Only the shapes and views; the caller checks the rest of the call (FP8, fast
// accumulation, D's layout, the batch). Refusals name the argument.
Status read_block_scales(const GemmArgs& args, int64_t m, int64_t n, int64_t k, BlockScaleParams* out);

// Does the call ask for anything beyond alpha and beta·C (a scale, a bias or an
// activation)? Then only a fused-epilogue kernel can run it (gemm/epilogue_ops.cuh).
bool wants_fused_epilogue(const GemmArgs& args);

// Every non-empty epilogue tensor is device memory of `device`.
Status check_epilogue_pointers(const GemmArgs& args, int device);

}  // namespace warpspec::gemm_impl
