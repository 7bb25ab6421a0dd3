#pragma once
// Number formats: the element type of each DType, and packing fp32 pairs (16-bit) or
// quads (8-bit) into the 32-bit registers that outputs and wgmma A fragments are made of.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <type_traits>

#include "warpspec/hopper/arch.cuh"
#include "warpspec/tensor.hpp"

namespace warpspec::hopper {

// The CUDA element type of a DType (what kernels are instantiated on).
template <DType>
struct ElementOf;
template <>
struct ElementOf<DType::kBF16> {
  using type = __nv_bfloat16;
};
template <>
struct ElementOf<DType::kFP16> {
  using type = __half;
};
template <>
struct ElementOf<DType::kFP32> {
  using type = float;
};
template <>
struct ElementOf<DType::kE4M3> {
  using type = __nv_fp8_e4m3;
};
template <>
struct ElementOf<DType::kE5M2> {
  using type = __nv_fp8_e5m2;
};
template <DType kType>
using element_t = typename ElementOf<kType>::type;

template <class T>
inline constexpr bool kIs16Bit = std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>;
template <class T>
inline constexpr bool kIs8Bit = std::is_same_v<T, __nv_fp8_e4m3> || std::is_same_v<T, __nv_fp8_e5m2>;

// Two fp32 values rounded to nearest into one 32-bit register of two 16-bit values,
// `lo` in the lower half (the lower address once stored). cvt.rn.{bf16,f16}x2.f32
// puts its first source in the upper half.
template <class T>
WARPSPEC_DEVICE uint32_t pack2(float lo, float hi) {
  static_assert(kIs16Bit<T>, "pack2: bf16 or fp16");
  uint32_t r;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  } else {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  }
  return r;
}

// Four fp32 values rounded to nearest into one 32-bit register of four 8-bit values,
// x0 in byte 0 (the lowest address once stored; the lowest k of a wgmma A register).
// cvt.rn.satfinite.{e4m3,e5m2}x2.f32 d, a, b puts a in the UPPER byte of d and b in the
// lower (PTX ISA "data-movement-and-conversion-instructions-cvt"), so each pair is
// passed high value first. Swapping them would silently swap adjacent k. .satfinite is
// required by the f32 form: out-of-range values clamp to the largest finite (±448 in
// e4m3), NaN stays NaN.
template <class T>
WARPSPEC_DEVICE uint32_t pack4(float x0, float x1, float x2, float x3) {
  static_assert(kIs8Bit<T>, "pack4: e4m3 or e5m2");
  uint16_t lo, hi;
  if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) {
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;\n" : "=h"(lo) : "f"(x1), "f"(x0));
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;\n" : "=h"(hi) : "f"(x3), "f"(x2));
  } else {
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;\n" : "=h"(lo) : "f"(x1), "f"(x0));
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;\n" : "=h"(hi) : "f"(x3), "f"(x2));
  }
  return uint32_t(lo) | (uint32_t(hi) << 16);
}

// The inverse: two 16-bit values (lower half first) as fp32.
template <class T>
WARPSPEC_DEVICE float2 unpack2(uint32_t v) {
  static_assert(kIs16Bit<T>, "unpack2: bf16 or fp16");
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&v));
  } else {
    return __half22float2(*reinterpret_cast<const __half2*>(&v));
  }
}

}  // namespace warpspec::hopper
