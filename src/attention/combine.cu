// The split-KV combine kernel (attention/combine.cuh): one warp per output row.
#include "combine.hpp"
#include "warpspec/attention/combine.cuh"

#include <string>

namespace warpspec::attention_impl {

Status launch_combine(const CombineParams& p, cudaStream_t stream, bool pdl) {
  const int64_t items = int64_t(p.batch) * p.rows * p.heads;
  if (items == 0) return Status::Ok();
  const int64_t blocks = (items + kCombineWarps - 1) / kCombineWarps;
  if (blocks > INT32_MAX) return invalid_argument("combine: too many rows for one launch");
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(blocks));
  config.blockDim = dim3(32 * kCombineWarps);
  config.stream = stream;
  config.attrs = &attr;
  config.numAttrs = pdl ? 1 : 0;
  const cudaError_t err = cudaLaunchKernelEx(&config, attention_combine_kernel, p);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return cuda_error("attention combine launch", err);
  }
  return Status::Ok();
}

}  // namespace warpspec::attention_impl
