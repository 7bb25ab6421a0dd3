#pragma once
// Common ground for the Hopper primitive layer: the sm_90a guard, the shared-memory
// address conversion every PTX wrapper needs, and the debug trap for bounded waits.
#include <cuda_runtime.h>

#include <cstdint>

#include "warpspec/hopper/host_device.hpp"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "warpspec device code needs the sm_90a target: -gencode arch=compute_90a,code=sm_90a (the -arch=sm_90a shorthand also runs a compute_90 pass that rejects wgmma/setmaxnreg)"
#endif

#define WARPSPEC_DEVICE __device__ __forceinline__

namespace warpspec::hopper {

// 32-bit shared-window address of a generic pointer into shared memory, the form
// every `.shared` PTX operand takes.
WARPSPEC_DEVICE uint32_t smem_u32(const void* ptr) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(ptr));
}

#if defined(WARPSPEC_BOUNDED_WAITS)
// Spins of a failed try_wait before a wait is declared hung. try_wait itself suspends
// for a while each time, so 2^26 retries is many seconds: far past any real wait.
inline constexpr uint32_t kWaitSpinLimit = 1u << 26;
#endif

}  // namespace warpspec::hopper

// In bounded-wait builds a hung barrier wait prints where it was and traps, which the
// host sees as a launch failure instead of a stuck process.
#if defined(WARPSPEC_BOUNDED_WAITS)
#include <cstdio>
#define WARPSPEC_HANG_COUNTER(counter) uint32_t counter = 0
#define WARPSPEC_HANG_CHECK(counter, what)                                                       \
  do {                                                                                           \
    if (++(counter) == ::warpspec::hopper::kWaitSpinLimit) {                                     \
      printf("warpspec: %s hung at %s:%d (block %d,%d,%d thread %d)\n", what, __FILE__, __LINE__, \
             blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x);                                   \
      __trap();                                                                                  \
    }                                                                                            \
  } while (0)
#else
#define WARPSPEC_HANG_COUNTER(counter) \
  do {                                 \
  } while (0)
#define WARPSPEC_HANG_CHECK(counter, what) \
  do {                                     \
  } while (0)
#endif
