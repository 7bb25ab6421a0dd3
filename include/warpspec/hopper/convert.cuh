#pragma once
// Number formats: the element type of each DType, and packing fp32 pairs (16-bit) or
// quads (8-bit) into the 32-bit registers that outputs and wgmma A fragments are made of.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <type_traits>

#include "warpspec/hopper/arch.cuh"
#include "warpspec/hopper/smem.cuh"
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

// One 16-bit value's bits as fp32 (exact).
template <class T>
WARPSPEC_DEVICE float bits_to_float(unsigned short u) {
  static_assert(kIs16Bit<T>, "bits_to_float: bf16 or fp16");
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return __uint_as_float(uint32_t(u) << 16);
  else return __half2float(__ushort_as_half(u));
}

// Element i of a read-only global vector of T (fp32, bf16 or fp16) as fp32.
template <class T>
WARPSPEC_DEVICE float ldg_as_float(const void* v, int64_t i) {
  if constexpr (std::is_same_v<T, float>) return __ldg(static_cast<const float*>(v) + i);
  else return bits_to_float<T>(__ldg(static_cast<const unsigned short*>(v) + i));
}

// Two fp32 values as two e4m3 bytes, `lo` in the lower one, rounded to nearest and
// saturated to the largest finite (±448; NaN stays NaN): cuda_fp8.h's conversion, whose
// float2 .x is the lower byte. And back (exact).
WARPSPEC_DEVICE uint16_t pack2_e4m3(float lo, float hi) {
  return uint16_t(__nv_cvt_float2_to_fp8x2(make_float2(lo, hi), __NV_SATFINITE, __NV_E4M3));
}
WARPSPEC_DEVICE float2 unpack2_e4m3(uint16_t v) {
  const __half2 h(__nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t(v), __NV_E4M3));
  return __half22float2(h);
}

// Two fp32 values at shared address `addr` as a pair of T: fp32 (8 bytes), bf16/fp16
// (one 32-bit word, `lo` first) or e4m3 (two bytes, saturated), rounded to nearest; and
// the pair read back as fp32.
template <class T>
WARPSPEC_DEVICE void st_shared_pair(uint32_t addr, float lo, float hi) {
  if constexpr (std::is_same_v<T, float>) st_shared_v2_f32(addr, lo, hi);
  else st_shared_b32(addr, pack2<T>(lo, hi));
}
template <class T>
WARPSPEC_DEVICE float2 ld_shared_pair(uint32_t addr) {
  if constexpr (std::is_same_v<T, float>) return ld_shared_v2_f32(addr);
  else return unpack2<T>(ld_shared_b32(addr));
}
template <>
WARPSPEC_DEVICE void st_shared_pair<__nv_fp8_e4m3>(uint32_t addr, float lo, float hi) {
  st_shared_b16(addr, pack2_e4m3(lo, hi));
}
template <>
WARPSPEC_DEVICE float2 ld_shared_pair<__nv_fp8_e4m3>(uint32_t addr) {
  return unpack2_e4m3(ld_shared_b16(addr));
}

}  // namespace warpspec::hopper
