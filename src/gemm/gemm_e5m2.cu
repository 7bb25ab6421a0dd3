// GEMM kernels with e5m2 inputs: the e5m2 slice of kGemmInstances (3 kernels, one per
// output dtype). FP8 has its own translation units so the 16-bit ones do not grow.
#include "launch.cuh"

namespace warpspec::gemm_impl {

Status launch_gemm_e5m2(const GemmConfig& cfg, const GemmParams& p, const LaunchShape& shape, cudaStream_t stream) {
  return launch_gemm_slice<DType::kE5M2>(cfg, p, shape, stream);
}

}  // namespace warpspec::gemm_impl
