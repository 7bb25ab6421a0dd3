#pragma once
// The slice of kAttentionInstances with kernel head dim kHeadDim, 16-bit or FP8 (kFp8):
// included by exactly one .cu per (head dim, kind), so the instantiations build in
// parallel.
#include "../common/dispatch.hpp"
#include "../common/launch.cuh"
#include "instances.hpp"
#include "launch.hpp"
#include "warpspec/attention/kernel.cuh"

namespace warpspec::attention_impl {

// The kernel of kAttentionInstances[I], named by its index (dispatch.hpp says why).
template <std::size_t I>
struct AttentionInstance : AttentionKernel<kAttentionInstances[I]> {};

template <int kHeadDim, bool kFp8>
struct AttentionSlice {
  static constexpr const char* kFamily = "attention";
  static constexpr bool keep(const AttentionConfig& c) {
    return c.shape.head_dim == kHeadDim && is_fp8(c.dtype) == kFp8;
  }
  template <std::size_t I>
  static Status launch(const AttentionParams& p, const LaunchShape& shape, cudaStream_t stream) {
    return warpspec::launch<AttentionInstance<I>>(p, shape, stream, "attention");
  }
};

template <int kHeadDim, bool kFp8 = false>
Status launch_attention_slice(const AttentionConfig& cfg, const AttentionParams& p, const LaunchShape& shape,
                              cudaStream_t stream) {
  return launch_built<kAttentionInstances, AttentionSlice<kHeadDim, kFp8>>(cfg, p, shape, stream);
}

}  // namespace warpspec::attention_impl
