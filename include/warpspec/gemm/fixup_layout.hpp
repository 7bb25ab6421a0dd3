#pragma once
// The split-K / stream-K fixup workspace, as host and kernel both see it:
//
//   [flags]     slots x kConsumerWarpgroups uint32, padded to 256 bytes. Flag (slot, w) is
//               1 while consumer warpgroup w's half of the slot's partial is published and
//               not yet consumed, 0 otherwise. The finaliser resets it to 0 as it consumes
//               the partial, so a launch that completes leaves every flag 0: the workspace
//               is zeroed once when it is allocated, never per call.
//   [partials]  slots x block_m x block_n fp32: one partial tile per slot, each consumer
//               warpgroup's half in its accumulator-register order (only the kernel reads
//               it back, with the same thread mapping, so no matrix layout is needed and
//               every access is a coalesced 16-byte vector per thread).
#include <cstddef>
#include <cstdint>

#include "warpspec/gemm/config.hpp"

namespace warpspec::gemm_impl {

inline constexpr size_t kFixupFlagAlign = 256;

constexpr size_t fixup_flag_bytes(int64_t slots) {
  const size_t raw = size_t(slots) * kConsumerWarpgroups * sizeof(uint32_t);
  return (raw + kFixupFlagAlign - 1) / kFixupFlagAlign * kFixupFlagAlign;
}

constexpr size_t fixup_partial_bytes(int block_m, int block_n) { return size_t(block_m) * block_n * sizeof(float); }

// Bytes for `slots` partial tiles of block_m x block_n; 0 when there are none.
constexpr size_t fixup_workspace_bytes(int64_t slots, int block_m, int block_n) {
  return slots <= 0 ? 0 : fixup_flag_bytes(slots) + size_t(slots) * fixup_partial_bytes(block_m, block_n);
}

}  // namespace warpspec::gemm_impl
