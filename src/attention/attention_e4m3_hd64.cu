// The FP8 attention forward kernel of head dim 64 (e4m3 Q, K, V; bf16 O).
#include "launch.cuh"

namespace warpspec::attention_impl {

Status launch_attention_e4m3_hd64(const AttentionConfig& cfg, const AttentionParams& p, const LaunchShape& shape,
                                  cudaStream_t stream) {
  return launch_attention_slice<64, true>(cfg, p, shape, stream);
}

}  // namespace warpspec::attention_impl
