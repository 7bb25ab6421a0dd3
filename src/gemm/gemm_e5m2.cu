// GEMM kernels with an e5m2 A: the mixed-format slice of kGemmInstances (e5m2 A x e4m3
// B, 2 kernels: a 16-bit D (bf16 or fp16) and fp32; fused epilogue; instances.hpp). Its own
// translation unit so the e4m3 one does not grow by them.
#include "launch.cuh"

namespace warpspec::gemm_impl {

Status launch_gemm_e5m2(const GemmConfig& cfg, const GemmParams& p, const LaunchShape& shape, cudaStream_t stream) {
  return launch_gemm_slice<DType::kE5M2>(cfg, p, shape, stream);
}

}  // namespace warpspec::gemm_impl
