// FP8 attention's pass before the kernel: V -> the Vᵀ the consumers read
// (attention/v_pretransposed.cuh says the layout and when it pays).
#include "launch.hpp"
#include "warpspec/attention/v_pretransposed.cuh"
#include "warpspec/hopper/arch.cuh"

namespace warpspec::attention_impl {

__global__ void __launch_bounds__(kVtPassThreads) v_pretranspose_kernel(const __grid_constant__ VPretransposeParams p) {
  v_pretranspose_block(p);
}

Status launch_v_pretranspose(const VPretransposeParams& p, cudaStream_t stream) {
  const int64_t blocks = (p.layout.keys_padded + kVtPassKeys - 1) / kVtPassKeys;
  if (blocks == 0 || p.layout.heads_kv == 0 || p.layout.batch == 0) return Status::Ok();
  if (blocks > INT32_MAX || p.layout.heads_kv > 65535 || p.layout.batch > 65535)
    return internal_error("attention: V's pass before the kernel has more blocks than one launch takes");
  v_pretranspose_kernel<<<dim3(unsigned(blocks), unsigned(p.layout.heads_kv), unsigned(p.layout.batch)), kVtPassThreads,
                          0, stream>>>(p);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return cuda_error("attention: V's pass before the kernel (launch)", err);
  return Status::Ok();
}

}  // namespace warpspec::attention_impl
