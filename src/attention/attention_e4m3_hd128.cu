// The FP8 attention forward kernel of head dim 128 (e4m3 Q, K, V; bf16 O).
#include "launch.cuh"

namespace warpspec::attention_impl {

Status launch_attention_e4m3_hd128(const AttentionConfig& cfg, const AttentionParams& p, const LaunchShape& shape,
                                  cudaStream_t stream) {
  return launch_attention_slice<128, true>(cfg, p, shape, stream);
}

}  // namespace warpspec::attention_impl
