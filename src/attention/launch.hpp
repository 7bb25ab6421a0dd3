#pragma once
// Between the host logic (attention.cpp) and the kernel instantiations
// (attention_hd<d>.cu): which kernel (a configuration from instances.hpp), with which
// parameters.
#include <cuda_runtime_api.h>

#include "../common/launch.hpp"
#include "warpspec/attention/config.hpp"
#include "warpspec/attention/params.hpp"
#include "warpspec/status.hpp"

namespace warpspec::attention_impl {

// One per kernel head dim, each instantiating that head dim's kernels (bf16, fp16).
Status launch_attention_hd64(const AttentionConfig& cfg, const AttentionParams& p, const LaunchShape& shape,
                             cudaStream_t stream);
Status launch_attention_hd128(const AttentionConfig& cfg, const AttentionParams& p, const LaunchShape& shape,
                              cudaStream_t stream);
Status launch_attention_hd192(const AttentionConfig& cfg, const AttentionParams& p, const LaunchShape& shape,
                              cudaStream_t stream);
Status launch_attention_hd256(const AttentionConfig& cfg, const AttentionParams& p, const LaunchShape& shape,
                              cudaStream_t stream);
// The FP8 kernels (e4m3 Q, K, V; bf16 O), per head dim (128 has three), nothing padded.
Status launch_attention_e4m3_hd64(const AttentionConfig& cfg, const AttentionParams& p, const LaunchShape& shape,
                                  cudaStream_t stream);
Status launch_attention_e4m3_hd128(const AttentionConfig& cfg, const AttentionParams& p, const LaunchShape& shape,
                                   cudaStream_t stream);
Status launch_attention_e4m3_hd256(const AttentionConfig& cfg, const AttentionParams& p, const LaunchShape& shape,
                                   cudaStream_t stream);

}  // namespace warpspec::attention_impl
