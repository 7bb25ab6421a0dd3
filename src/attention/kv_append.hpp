#pragma once
// The KV-cache append kernel's launch (kv_append.cu), from kvcache_append (kv_append.cpp).
#include <cuda_runtime_api.h>

#include "warpspec/attention/kv_append_params.hpp"
#include "warpspec/status.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec::attention_impl {

Status launch_kv_append(const KvAppendParams& p, DType dtype, cudaStream_t stream);

}  // namespace warpspec::attention_impl
