// Attention forward kernels of head dim 256 (bf16 and fp16).
#include "launch.cuh"

namespace warpspec::attention_impl {

Status launch_attention_hd256(DType dtype, const AttentionParams& p, int grid, cudaStream_t stream) {
  return launch_for_head_dim<256>(dtype, p, grid, stream);
}

}  // namespace warpspec::attention_impl
