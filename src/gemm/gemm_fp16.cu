// GEMM kernels with fp16 inputs (every output dtype, operand major and tile).
#include <cuda_fp16.h>

#include "launch.cuh"

namespace warpspec::gemm_impl {

Status launch_gemm_fp16(const GemmVariant& v, const GemmParams& p, int grid, cudaStream_t stream) {
  return launch_for_input<__half>(v, p, grid, stream);
}

}  // namespace warpspec::gemm_impl
