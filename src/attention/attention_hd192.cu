// Attention forward kernels of head dim 192 (bf16 and fp16).
#include "launch.cuh"

namespace warpspec::attention_impl {

Status launch_attention_hd192(DType dtype, const AttentionParams& p, int grid, cudaStream_t stream) {
  return launch_for_head_dim<192>(dtype, p, grid, stream);
}

}  // namespace warpspec::attention_impl
