// GEMM kernels with an e4m3 A: the e4m3 slice of kGemmInstances (the 128 x 128 tile for a
// 16-bit D (bf16 or fp16, one kernel), an fp32 D and an e4m3 D, the 128 x 256 tile for a 16-bit
// D, the ping-pong kernel, and the 16-bit and fp32 D kernels with an e5m2 B; fused epilogue).
// FP8 has its own translation units so the 16-bit ones do not grow.
#include "launch.cuh"

namespace warpspec::gemm_impl {

Status launch_gemm_e4m3(const GemmConfig& cfg, const GemmParams& p, const LaunchShape& shape, cudaStream_t stream) {
  return launch_gemm_slice<DType::kE4M3>(cfg, p, shape, stream);
}

}  // namespace warpspec::gemm_impl
