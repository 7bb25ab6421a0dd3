#pragma once
// FP8 attention's Vᵀ in global memory, written before the kernel (v_pretransposed.cuh
// says the layout and why): its extents and the pass's parameters. Host-includable.
#include <cstdint>

#include "warpspec/hopper/host_device.hpp"

namespace warpspec::attention_impl {

// The global Vᵀ's extents (host and device).
struct VtLayout {
  int64_t keys_padded;  // S_pad: seqlen_k rounded up to 16 (a row is whole 16-byte chunks)
  int64_t head_dim;
  int64_t heads_kv, batch;
  WARPSPEC_HOST_DEVICE constexpr int64_t bytes() const { return keys_padded * head_dim * heads_kv * batch; }
  WARPSPEC_HOST_DEVICE static constexpr int64_t pad_keys(int64_t seqlen_k) { return (seqlen_k + 15) / 16 * 16; }
};

// One launch over V: CTA (x, h, b) writes K positions [64x, 64x + 64) of all head-dim rows
// of (b, h)'s Vᵀ (VtLayout), from V rows [64x, 64x + 64) staged in shared memory.
struct VPretransposeParams {
  const uint8_t* v;  // e4m3 (batch, seqlen_k, heads_kv, head_dim), head dim contiguous
  int64_t v_stride_b, v_stride_s, v_stride_h;  // bytes, multiples of 16
  uint8_t* vt;       // VtLayout, dense, 16-byte aligned
  int32_t seqlen_k, head_dim;  // head_dim a multiple of 16, at most 256
  VtLayout layout;
};
inline constexpr int kVtPassKeys = 64;       // keys per CTA
inline constexpr int kVtPassThreads = 256;
inline constexpr int kVtPassMaxHeadDim = 256;

}  // namespace warpspec::attention_impl
