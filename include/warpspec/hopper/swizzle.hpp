#pragma once
// The shared-memory swizzle that TMA writes (and reads, for stores) and that wgmma's
// smem descriptors name: where logical byte `offset` of a swizzled tile really sits.
// Plain constexpr arithmetic, so kernels, host tests and host-side layout code share
// one definition. Includable by g++ without CUDA (the attributes are guarded).
//
// Rule (PTX ISA "tensor swizzling modes"; CuTe Swizzle<B,4,3>): memory is cut into
// 16-byte chunks; the chunk index within a span (bits [4, 4+B)) is XORed with the
// span-row index bits [7, 7+B), where B = 1, 2, 3 for 32B, 64B, 128B. So
//   SW32:  bit 4      ^= bit 7          (repeats every 256 B)
//   SW64:  bits [4:5] ^= bits [7:8]     (repeats every 512 B)
//   SW128: bits [4:6] ^= bits [7:9]     (repeats every 1024 B)
// The pattern is anchored to absolute shared-memory address bits, so the function is
// exact for offsets from a base aligned to the repeat size (align tiles to 1024 B and
// it holds for every mode). Bits below 4 and above the repeat are never touched, so a
// 16-byte chunk is never split and tiles stack repeat by repeat.
//
// XOR with bits the map leaves unchanged makes it an involution: the same function
// maps logical -> physical and physical -> logical.
#include <cstdint>

#include "warpspec/hopper/host_device.hpp"

namespace warpspec::hopper {

// The TMA swizzle modes warpspec uses; values match CUtensorMapSwizzle 0..3 (the
// wgmma descriptor numbers them differently: 128B is 1 there, see HOPPER-FACTS §10.9).
enum class TmaSwizzle : int {
  kNone = 0,
  k32B = 1,
  k64B = 2,
  k128B = 3,
};

// Bytes in one swizzled row (the span): also the largest inner box extent in bytes
// that the mode accepts. 0 for kNone (no limit from swizzling) or an unknown value.
WARPSPEC_HOST_DEVICE constexpr uint32_t swizzle_span_bytes(TmaSwizzle s) {
  switch (s) {
    case TmaSwizzle::k32B: return 32;
    case TmaSwizzle::k64B: return 64;
    case TmaSwizzle::k128B: return 128;
    default: return 0;
  }
}

// Bytes after which the pattern repeats, 2^(7+B) = 8 spans: 256, 512, 1024; the
// alignment a swizzled tile needs for swizzle_offset to be exact. 16 for kNone (the
// TMA chunk), 0 for an unknown value.
WARPSPEC_HOST_DEVICE constexpr uint32_t swizzle_repeat_bytes(TmaSwizzle s) {
  switch (s) {
    case TmaSwizzle::kNone: return 16;
    case TmaSwizzle::k32B: return 256;
    case TmaSwizzle::k64B: return 512;
    case TmaSwizzle::k128B: return 1024;
    default: return 0;
  }
}

// Number of swizzled index bits B (the `B` of CuTe's Swizzle<B,4,3>).
WARPSPEC_HOST_DEVICE constexpr uint32_t swizzle_bits(TmaSwizzle s) {
  switch (s) {
    case TmaSwizzle::k32B: return 1;
    case TmaSwizzle::k64B: return 2;
    case TmaSwizzle::k128B: return 3;
    default: return 0;
  }
}

// Physical byte offset of logical byte `offset` in a tile whose base is aligned to
// swizzle_repeat_bytes(s). kNone (and an unknown mode) is the identity.
WARPSPEC_HOST_DEVICE constexpr uint32_t swizzle_offset(TmaSwizzle s, uint32_t offset) {
  const uint32_t mask = (1u << swizzle_bits(s)) - 1u;  // 0 for kNone: identity
  return offset ^ (((offset >> 7) & mask) << 4);
}

// Where element (row, column byte `col_byte`) of a 2-D box with `row_bytes` per row
// lands: the box is dense in shared memory (row r starts at r * row_bytes), then
// swizzled. For swizzled modes use row_bytes == the span, i.e. boxes whose inner
// extent fills the span: that is the layout the GPU tests verify. Where TMA puts rows
// of a narrower box under a swizzle (dense, or padded to the span) is not verified.
WARPSPEC_HOST_DEVICE constexpr uint32_t swizzle_offset_2d(TmaSwizzle s, uint32_t row, uint32_t col_byte, uint32_t row_bytes) {
  return swizzle_offset(s, row * row_bytes + col_byte);
}

}  // namespace warpspec::hopper

