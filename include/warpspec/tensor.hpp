#pragma once
// Element types and the strided view every tensor crosses the API as.
#include <cstddef>
#include <cstdint>

namespace warpspec {

enum class DType : int {
  kBF16 = 0,
  kFP16 = 1,
  kFP32 = 2,
  kE4M3 = 3,
  kE5M2 = 4,
};

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::kBF16: return 2;
    case DType::kFP16: return 2;
    case DType::kFP32: return 4;
    case DType::kE4M3: return 1;
    case DType::kE5M2: return 1;
  }
  return 0;
}

constexpr const char* dtype_name(DType t) {
  switch (t) {
    case DType::kBF16: return "bf16";
    case DType::kFP16: return "fp16";
    case DType::kFP32: return "fp32";
    case DType::kE4M3: return "e4m3";
    case DType::kE5M2: return "e5m2";
  }
  return "unknown";
}

constexpr bool dtype_valid(DType t) { return dtype_size(t) != 0; }

}  // namespace warpspec
