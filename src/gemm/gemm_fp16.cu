// GEMM kernels with fp16 inputs: the fp16 slice of kGemmInstances (12 plain, 1 fused, 2 narrow, 4 ping-pong).
#include "launch.cuh"

namespace warpspec::gemm_impl {

Status launch_gemm_fp16(const GemmConfig& cfg, const GemmParams& p, const LaunchShape& shape, cudaStream_t stream) {
  return launch_gemm_slice<DType::kFP16>(cfg, p, shape, stream);
}

}  // namespace warpspec::gemm_impl
