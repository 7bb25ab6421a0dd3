// The split-KV combine kernel: one warp per output row, combine_row (attention/combine.cuh).
#include "combine.hpp"
#include "warpspec/attention/combine.cuh"

#include <string>

namespace warpspec::attention_impl {

__global__ void __launch_bounds__(32 * kCombineWarps) attention_combine_kernel(const __grid_constant__ CombineParams p) {
  // Launched as a programmatic dependent of the split attention: wait until it has
  // completed and its partials are visible (at once without that launch attribute).
  hopper::griddep_wait();
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int64_t item = int64_t(blockIdx.x) * kCombineWarps + warp;  // (batch, row, head), head fastest
  if (item >= int64_t(p.batch) * p.rows * p.heads) return;
  const int h = int(item % p.heads);
  const int r = int((item / p.heads) % p.rows);
  const int b = int(item / (int64_t(p.heads) * p.rows));
  int32_t offset, length, batch;
  SeqInfo::span(p.cu_seqlens_q, p.seqused_q, p.total_rows, b, offset, length, batch);
  if (r >= length) return;
  combine_row(p, batch, int64_t(offset) + r, h, lane);
}


Status launch_combine(const CombineParams& p, cudaStream_t stream, bool pdl) {
  const int64_t items = int64_t(p.batch) * p.rows * p.heads;
  if (items == 0) return Status::Ok();
  const int64_t blocks = (items + kCombineWarps - 1) / kCombineWarps;
  if (blocks > INT32_MAX)
    return invalid_argument("out.shape: batch x seqlen x heads is too many rows for one launch (4 x (2^31 - 1))");
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
