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

// Per element type, one specialisation each (a type no format has fails to compile):
//   Format16<T>  bf16, fp16: a pair packed into / unpacked from one 32-bit word, and one
//                value's bits as fp32;
//   Format8<T>   e4m3, e5m2: a pair packed into 16 bits;
//   Pair<T>      fp32, bf16, fp16: a pair stored at / loaded from a shared address, and
//                a read-only global element as fp32.
//
// Format16::pack: two fp32 values rounded to nearest into one 32-bit register, `lo` in
// the lower half (the lower address once stored). cvt.rn.{bf16,f16}x2.f32 puts its first
// source in the upper half.
template <class T>
struct Format16;
template <>
struct Format16<__nv_bfloat16> {
  WARPSPEC_DEVICE static uint32_t pack(float lo, float hi) {
    uint32_t r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
  }
  WARPSPEC_DEVICE static float2 unpack(uint32_t v) {
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&v));
  }
  WARPSPEC_DEVICE static float from_bits(unsigned short u) { return __uint_as_float(uint32_t(u) << 16); }
};
template <>
struct Format16<__half> {
  WARPSPEC_DEVICE static uint32_t pack(float lo, float hi) {
    uint32_t r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
  }
  WARPSPEC_DEVICE static float2 unpack(uint32_t v) { return __half22float2(*reinterpret_cast<const __half2*>(&v)); }
  WARPSPEC_DEVICE static float from_bits(unsigned short u) { return __half2float(__ushort_as_half(u)); }
};

// Format8::pack: cvt.rn.satfinite.{e4m3,e5m2}x2.f32 d, a, b puts a in the UPPER byte of d
// and b in the lower (PTX ISA "data-movement-and-conversion-instructions-cvt"), so each
// pair is passed high value first. Swapping them would silently swap adjacent k.
// .satfinite is required by the f32 form: out-of-range values clamp to the largest
// finite (±448 in e4m3), NaN stays NaN.
template <class T>
struct Format8;
template <>
struct Format8<__nv_fp8_e4m3> {
  WARPSPEC_DEVICE static uint16_t pack(float lo, float hi) {
    uint16_t r;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;\n" : "=h"(r) : "f"(hi), "f"(lo));
    return r;
  }
};
template <>
struct Format8<__nv_fp8_e5m2> {
  WARPSPEC_DEVICE static uint16_t pack(float lo, float hi) {
    uint16_t r;
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;\n" : "=h"(r) : "f"(hi), "f"(lo));
    return r;
  }
};

// Two fp32 values into one 32-bit register of two 16-bit values (Format16::pack).
template <class T>
WARPSPEC_DEVICE uint32_t pack2(float lo, float hi) {
  return Format16<T>::pack(lo, hi);
}

// Four fp32 values rounded to nearest into one 32-bit register of four 8-bit values,
// x0 in byte 0 (the lowest address once stored; the lowest k of a wgmma A register).
template <class T>
WARPSPEC_DEVICE uint32_t pack4(float x0, float x1, float x2, float x3) {
  return uint32_t(Format8<T>::pack(x0, x1)) | (uint32_t(Format8<T>::pack(x2, x3)) << 16);
}

// The inverse of pack2: two 16-bit values (lower half first) as fp32.
template <class T>
WARPSPEC_DEVICE float2 unpack2(uint32_t v) {
  return Format16<T>::unpack(v);
}

// One 16-bit value's bits as fp32 (exact).
template <class T>
WARPSPEC_DEVICE float bits_to_float(unsigned short u) {
  return Format16<T>::from_bits(u);
}

// Pair<T>: two fp32 values at shared address `addr` as a pair of T (fp32: 8 bytes;
// bf16/fp16: one 32-bit word, `lo` first, rounded to nearest), the pair read back as
// fp32, and element i of a read-only global vector of T as fp32.
template <class T>
struct Pair {
  WARPSPEC_DEVICE static void st_shared(uint32_t addr, float lo, float hi) { st_shared_b32(addr, pack2<T>(lo, hi)); }
  WARPSPEC_DEVICE static float2 ld_shared(uint32_t addr) { return unpack2<T>(ld_shared_b32(addr)); }
  WARPSPEC_DEVICE static float ldg(const void* v, int64_t i) {
    return bits_to_float<T>(__ldg(static_cast<const unsigned short*>(v) + i));
  }
};
template <>
struct Pair<float> {
  WARPSPEC_DEVICE static void st_shared(uint32_t addr, float lo, float hi) { st_shared_v2_f32(addr, lo, hi); }
  WARPSPEC_DEVICE static float2 ld_shared(uint32_t addr) { return ld_shared_v2_f32(addr); }
  WARPSPEC_DEVICE static float ldg(const void* v, int64_t i) { return __ldg(static_cast<const float*>(v) + i); }
};
template <class T>
WARPSPEC_DEVICE void st_shared_pair(uint32_t addr, float lo, float hi) {
  Pair<T>::st_shared(addr, lo, hi);
}
template <class T>
WARPSPEC_DEVICE float2 ld_shared_pair(uint32_t addr) {
  return Pair<T>::ld_shared(addr);
}
template <class T>
WARPSPEC_DEVICE float ldg_as_float(const void* v, int64_t i) {
  return Pair<T>::ldg(v, i);
}

}  // namespace warpspec::hopper
