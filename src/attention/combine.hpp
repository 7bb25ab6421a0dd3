#pragma once
// The split-KV combine kernel's launch (combine.cu), used by attention_forward with
// num_splits > 1 and by the public attention_combine.
#include <cuda_runtime_api.h>

#include "warpspec/status.hpp"

namespace warpspec::attention_impl {

struct CombineParams;
// pdl: launched as a programmatic dependent of the kernel before it on the stream (the
// split-KV attention, which allows it once its loads are issued): its blocks start
// while that kernel drains, and wait for it to complete before reading.
Status launch_combine(const CombineParams& p, cudaStream_t stream, bool pdl = false);

}  // namespace warpspec::attention_impl
