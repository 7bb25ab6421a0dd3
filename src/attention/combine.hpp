#pragma once
// The split-KV combine kernel's launch (combine.cu), used by attention_forward with
// num_splits > 1 and by the public attention_combine.
#include <cuda_runtime_api.h>

#include "warpspec/status.hpp"

namespace warpspec::attention_impl {

struct CombineParams;
Status launch_combine(const CombineParams& p, cudaStream_t stream);

}  // namespace warpspec::attention_impl
