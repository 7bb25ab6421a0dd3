// The split-KV combine kernel (attention/combine.cuh): one warp per output row.
#include "combine.hpp"
#include "warpspec/attention/combine.cuh"

#include <string>

namespace warpspec::attention_impl {

Status launch_combine(const CombineParams& p, cudaStream_t stream) {
  const int64_t items = int64_t(p.batch) * p.rows * p.heads;
  if (items == 0) return Status::Ok();
  const int64_t blocks = (items + kCombineWarps - 1) / kCombineWarps;
  if (blocks > INT32_MAX) return invalid_argument("combine: too many rows for one launch");
  attention_combine_kernel<<<unsigned(blocks), 32 * kCombineWarps, 0, stream>>>(p);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return cuda_error("attention combine launch", err);
  return Status::Ok();
}

}  // namespace warpspec::attention_impl
