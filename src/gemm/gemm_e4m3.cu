// GEMM kernels with e4m3 inputs: the e4m3 slice of kGemmInstances (3 kernels, one per
// output dtype, fused epilogue). FP8 has its own translation unit so the 16-bit ones do
// not grow. (e5m2 is not built: src/gemm/instances.hpp.)
#include "launch.cuh"

namespace warpspec::gemm_impl {

Status launch_gemm_e4m3(const GemmConfig& cfg, const GemmParams& p, const LaunchShape& shape, cudaStream_t stream) {
  return launch_gemm_slice<DType::kE4M3>(cfg, p, shape, stream);
}

}  // namespace warpspec::gemm_impl
