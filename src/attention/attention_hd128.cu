// Attention forward kernels of head dim 128 (bf16 and fp16); also serves head dim 96.
#include "launch.cuh"

namespace warpspec::attention_impl {

Status launch_attention_hd128(DType dtype, const AttentionParams& p, int grid, cudaStream_t stream) {
  return launch_for_head_dim<128>(dtype, p, grid, stream);
}

}  // namespace warpspec::attention_impl
