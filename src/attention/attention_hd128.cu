// Attention forward kernels of head dim 128 (bf16 and fp16); also serves head dims 72..120.
#include "launch.cuh"

namespace warpspec::attention_impl {

Status launch_attention_hd128(const AttentionConfig& cfg, const AttentionParams& p, const LaunchShape& shape,
                             cudaStream_t stream) {
  return launch_attention_slice<128>(cfg, p, shape, stream);
}

}  // namespace warpspec::attention_impl
