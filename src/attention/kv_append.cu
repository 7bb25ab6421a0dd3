// The KV-cache append kernel (attention/kv_append.cuh), bf16 and fp16.
#include "kv_append.hpp"
#include "warpspec/attention/kv_append.cuh"

namespace warpspec::attention_impl {

Status launch_kv_append(const KvAppendParams& p, DType dtype, cudaStream_t stream) {
  const int64_t items = 2 * int64_t(p.batch) * p.seqlen_new * p.heads_kv +
                        (p.q != nullptr ? int64_t(p.batch) * p.seqlen_q * p.heads_q : 0);
  if (items == 0) return Status::Ok();
  const int64_t blocks = (items + kAppendWarps - 1) / kAppendWarps;
  if (blocks > INT32_MAX)
    return invalid_argument("k_new.shape: batch x seqlen_new x heads_kv is too many rows for one launch");
  if (dtype == DType::kBF16)
    kv_append_kernel<__nv_bfloat16><<<unsigned(blocks), 32 * kAppendWarps, 0, stream>>>(p);
  else
    kv_append_kernel<__half><<<unsigned(blocks), 32 * kAppendWarps, 0, stream>>>(p);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return cuda_error("kvcache_append launch", err);
  return Status::Ok();
}

}  // namespace warpspec::attention_impl
