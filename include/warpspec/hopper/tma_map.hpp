#pragma once
// TMA, host side: encoding a tiled CUtensorMap, with every rule of
// cuTensorMapEncodeTiled checked first so a bad request is refused with a message that
// names the argument, its value and the rule (HOPPER-FACTS §3) instead of reaching the
// driver. The device side (loads, stores, multicast) is in tma.cuh.
//
// The driver function is reached through the runtime's entry-point query, so nothing
// links against libcuda; a process without a driver gets a non-OK Status, not a crash.
// Usable from .cpp and .cu files, and from any host thread: the driver's encode needs a
// current context, so a thread without one (one that never made a CUDA runtime call)
// gets the primary context of the device owning `base` pushed for the call and popped
// after; a thread's own current context is used and left as it is.
#include <cuda.h>  // CUtensorMap (a plain struct; no libcuda symbol is referenced)

#include <cstdint>
#include <span>

#include "warpspec/hopper/swizzle.hpp"
#include "warpspec/status.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec::hopper {

// L2 fill granularity from DRAM for the box's lines; values match CUtensorMapL2promotion.
enum class TmaL2Promotion : int {
  kNone = 0,
  k64B = 1,
  k128B = 2,
  k256B = 3,
};

// What a load puts in out-of-bounds elements; values match CUtensorMapFloatOOBfill.
// kNaN (NAN_REQUEST_ZERO_FMA) is for floating-point encodings only: fp8 travels as
// UINT8, so it is refused there.
enum class TmaOobFill : int {
  kZero = 0,
  kNaN = 1,
};

inline constexpr int kTmaMaxRank = 5;
inline constexpr uint32_t kTmaMaxBoxDim = 256;             // per dimension, elements
inline constexpr uint64_t kTmaMaxGlobalDim = 1ull << 32;   // per dimension, elements
inline constexpr uint64_t kTmaStrideLimit = 1ull << 40;    // strides are < this, bytes
inline constexpr uint32_t kTmaGlobalAlign = 16;            // base address, strides, inner box bytes
inline constexpr uint32_t kTmaMapAlign = 64;               // the CUtensorMap object itself

// Encode a tiled tensor map.
//   out      where the map goes: non-null, 64-byte aligned (CUtensorMap is declared
//            alignas(128), so a plain variable qualifies; a map inside a packed or
//            heap buffer may not). Untouched on any failure.
//   dtype    element type; fp8 (e4m3, e5m2) is encoded as UINT8 (TMA only moves bytes).
//   base     global address of element (0, ..., 0): non-null, 16-byte aligned.
//   dims     extent of each dimension in elements, innermost first (row-major R×C is
//            {C, R}); 1..5 entries, each 1..2^32.
//   strides  byte stride of dimensions 1..rank-1 (dimension 0 is dense): rank-1
//            entries, each a multiple of 16 and < 2^40.
//   box      elements per dimension moved by one load/store: rank entries, each
//            1..256; box[0]·elemsize a multiple of 16 bytes and, when swizzled, at most
//            the span (32/64/128 B). A box larger than the tensor is allowed: the
//            out-of-bounds part is filled on load and clipped on store.
// Refusals: kInvalidArgument (values), kMisaligned (pointers and strides). A missing
// driver gives kNoDevice; a driver refusal gives kCudaError with its CUresult.
Status make_tma_map(CUtensorMap* out, DType dtype, const void* base, std::span<const uint64_t> dims,
                    std::span<const uint64_t> strides, std::span<const uint32_t> box, TmaSwizzle swizzle,
                    TmaL2Promotion l2 = TmaL2Promotion::k256B, TmaOobFill oob = TmaOobFill::kZero);

// The common case: a row-major rows×cols matrix whose rows are `ld` elements apart
// (ld >= cols; ld·elemsize a multiple of 16), moved in boxes of box_rows×box_cols.
// Same rules and codes as make_tma_map; messages name rows/cols/ld/box_rows/box_cols.
Status make_tma_map_2d(CUtensorMap* out, DType dtype, const void* base, uint64_t rows, uint64_t cols, uint64_t ld,
                       uint32_t box_rows, uint32_t box_cols, TmaSwizzle swizzle,
                       TmaL2Promotion l2 = TmaL2Promotion::k256B, TmaOobFill oob = TmaOobFill::kZero);

// Bytes one load of this box lands in shared memory, in-bounds or not: what the
// barrier's expect_tx must announce (HOPPER-FACTS §3, "Bytes counted").
constexpr uint32_t tma_box_bytes(DType dtype, std::span<const uint32_t> box) {
  uint64_t bytes = dtype_size(dtype);
  for (uint32_t b : box) bytes *= b;
  return static_cast<uint32_t>(bytes);
}

}  // namespace warpspec::hopper
