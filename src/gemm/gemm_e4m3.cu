// GEMM kernels with an e4m3 A: the e4m3 slice of kGemmInstances (the 128 x 128 tile per
// output dtype, the 128 x 256 tile for bf16, and the same three with an e5m2 B; fused
// epilogue). FP8 has its own translation units so the 16-bit ones do not grow.
#include "launch.cuh"

namespace warpspec::gemm_impl {

Status launch_gemm_e4m3(const GemmConfig& cfg, const GemmParams& p, const LaunchShape& shape, cudaStream_t stream) {
  return launch_gemm_slice<DType::kE4M3>(cfg, p, shape, stream);
}

}  // namespace warpspec::gemm_impl
