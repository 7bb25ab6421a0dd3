#pragma once
// Outputs are poisoned before every launch under test: an element the kernel fails to
// write then reads as NaN, which no check passes.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace warpspec::testbed {

// The byte 0xFF everywhere: NaN in bf16, fp16, fp32 and e4m3 (and e5m2), whatever the
// element alignment.
inline constexpr uint8_t kPoisonByte = 0xFF;

inline cudaError_t poison(void* p, size_t bytes, cudaStream_t stream = nullptr) {
  return cudaMemsetAsync(p, kPoisonByte, bytes, stream);
}

}  // namespace warpspec::testbed
