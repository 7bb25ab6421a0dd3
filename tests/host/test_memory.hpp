#pragma once
// Pointers for the validation tests. On a machine with a Hopper GPU they point into
// one real device allocation, so checks that read pointer attributes see device
// memory and a valid case is really accepted; elsewhere they are fake aligned
// addresses (validation refuses on the device check before reading them). Nothing is
// ever launched on them.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "warpspec/device.hpp"

namespace warpspec::test {

inline void* test_pointer(uintptr_t offset = 0) {
  static char* const base = [] {
    void* p = nullptr;
    if (check_device().ok() && cudaMalloc(&p, size_t(96) << 20) == cudaSuccess) return static_cast<char*>(p);
    return reinterpret_cast<char*>(uintptr_t(1) << 32);
  }();
  return base + offset;
}

}  // namespace warpspec::test
