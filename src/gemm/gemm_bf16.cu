// GEMM kernels with bf16 inputs: the bf16 slice of kGemmInstances (12 plain, 1 fused, 2 clustered, 2 narrow,
// 4 ping-pong).
#include "launch.cuh"

namespace warpspec::gemm_impl {

Status launch_gemm_bf16(const GemmConfig& cfg, const GemmParams& p, const LaunchShape& shape, cudaStream_t stream) {
  return launch_gemm_slice<DType::kBF16>(cfg, p, shape, stream);
}

}  // namespace warpspec::gemm_impl
