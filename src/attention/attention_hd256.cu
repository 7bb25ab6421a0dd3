// Attention forward kernels of head dim 256 (bf16 and fp16); also serves head dims 200..248.
#include "launch.cuh"

namespace warpspec::attention_impl {

Status launch_attention_hd256(const AttentionConfig& cfg, const AttentionParams& p, const LaunchShape& shape,
                             cudaStream_t stream) {
  return launch_attention_slice<256>(cfg, p, shape, stream);
}

}  // namespace warpspec::attention_impl
