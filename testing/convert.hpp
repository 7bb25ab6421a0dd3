#pragma once
// Host access to device images of 16- and 32-bit float tensors: element i of a byte
// buffer of dtype t as a float, and back (round to nearest even).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstddef>
#include <cstring>

#include "warpspec/tensor.hpp"

namespace warpspec::testbed {

inline float load_float(DType t, const void* base, size_t i) {
  const auto* p = static_cast<const unsigned char*>(base);
  switch (t) {
    case DType::kBF16: { __nv_bfloat16 v; std::memcpy(&v, p + 2 * i, 2); return __bfloat162float(v); }
    case DType::kFP16: { __half v; std::memcpy(&v, p + 2 * i, 2); return __half2float(v); }
    case DType::kE4M3: { __nv_fp8_e4m3 v; std::memcpy(&v, p + i, 1); return float(v); }
    default: { float v; std::memcpy(&v, p + 4 * i, 4); return v; }
  }
}

inline void store_float(DType t, void* base, size_t i, float f) {
  auto* p = static_cast<unsigned char*>(base);
  switch (t) {
    case DType::kBF16: { const __nv_bfloat16 v = __float2bfloat16(f); std::memcpy(p + 2 * i, &v, 2); break; }
    case DType::kFP16: { const __half v = __float2half(f); std::memcpy(p + 2 * i, &v, 2); break; }
    default: std::memcpy(p + 4 * i, &f, 4);
  }
}

}  // namespace warpspec::testbed
