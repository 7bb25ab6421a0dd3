// GEMM kernels with bf16 inputs (every output dtype, operand major and tile).
#include <cuda_bf16.h>

#include "launch.cuh"

namespace warpspec::gemm_impl {

Status launch_gemm_bf16(const GemmVariant& v, const GemmParams& p, int grid, cudaStream_t stream) {
  return launch_for_input<__nv_bfloat16>(v, p, grid, stream);
}

}  // namespace warpspec::gemm_impl
