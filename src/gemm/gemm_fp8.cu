// GEMM kernels with FP8 inputs: the e4m3 and e5m2 slices of kGemmInstances. e4m3 A: the
// 128 x 128 tile for a 16-bit D (bf16 or fp16, one kernel), an fp32 D and an e4m3 D, the
// 128 x 256 tile for a 16-bit D, the ping-pong kernel, and the 16-bit and fp32 D kernels with
// an e5m2 B. e5m2 A (x e4m3 B): the 16-bit and fp32 D kernels. Fused epilogue throughout.
// FP8 has its own translation unit so the 16-bit ones do not grow; one unit for both A
// types, since a unit pays ~5 s before its first kernel (CMakeLists.txt) and e5m2's two
// kernels took ~7 s of the ~12 s their own unit cost.
#include "launch.cuh"

namespace warpspec::gemm_impl {

Status launch_gemm_e4m3(const GemmConfig& cfg, const GemmParams& p, const LaunchShape& shape, cudaStream_t stream) {
  return launch_gemm_slice<DType::kE4M3>(cfg, p, shape, stream);
}

Status launch_gemm_e5m2(const GemmConfig& cfg, const GemmParams& p, const LaunchShape& shape, cudaStream_t stream) {
  return launch_gemm_slice<DType::kE5M2>(cfg, p, shape, stream);
}

}  // namespace warpspec::gemm_impl
