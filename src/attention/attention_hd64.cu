// Attention forward kernels of head dim 64 (bf16 and fp16).
#include "launch.cuh"

namespace warpspec::attention_impl {

Status launch_attention_hd64(DType dtype, const AttentionParams& p, int grid, cudaStream_t stream) {
  return launch_for_head_dim<64>(dtype, p, grid, stream);
}

}  // namespace warpspec::attention_impl
