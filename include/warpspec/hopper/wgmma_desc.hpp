#pragma once
// wgmma shared-memory matrix descriptors, and the canonical operand layouts they name.
// Plain constexpr arithmetic: kernels, host tests and host-side layout code share one
// definition, and g++ can include it without CUDA (the attributes are guarded).
//
// Descriptor (PTX ISA "asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-
// descriptor"; HOPPER-FACTS §4), a 64-bit value, every other bit 0:
//   bits  0-13  enc(start address)     enc(x) = (x & 0x3FFFF) >> 4
//   bits 16-29  enc(leading dimension byte offset, LBO)
//   bits 32-45  enc(stride dimension byte offset, SBO)
//   bits 49-51  base offset (0 for tiles whose swizzle pattern is anchored to absolute
//               address bits, which is every TMA-written tile: HOPPER-FACTS §4 probe)
//   bits 62-63  swizzle: 0 none, 1 = 128B, 2 = 64B, 3 = 32B (NOT CUtensorMap numbering)
#include <cstdint>

#include "warpspec/hopper/host_device.hpp"

namespace warpspec::hopper {

// Swizzle mode in the wgmma descriptor's numbering (bits 62-63).
enum class WgmmaSwizzle : uint32_t {
  kNone = 0,
  k128B = 1,
  k64B = 2,
  k32B = 3,
};

// Which dimension is contiguous in shared memory. kK: K-major (imm-trans = 0). kMN:
// M-major A / N-major B (imm-trans = 1), allowed only for 16-bit inputs.
enum class Major : uint32_t { kK = 0, kMN = 1 };

// Bytes of one swizzled row (the swizzle span): 32/64/128; 16 for kNone, whose "row" is
// one 16-byte core-matrix row.
WARPSPEC_HOST_DEVICE constexpr uint32_t wgmma_row_bytes(WgmmaSwizzle s) {
  return s == WgmmaSwizzle::k128B ? 128u : s == WgmmaSwizzle::k64B ? 64u : s == WgmmaSwizzle::k32B ? 32u : 16u;
}

// The descriptor field encoding: byte address or offset, 16-byte units, 14 bits.
WARPSPEC_HOST_DEVICE constexpr uint64_t wgmma_desc_encode(uint32_t bytes) { return (bytes & 0x3FFFFu) >> 4; }

// A descriptor from its fields (byte values; the encoding is applied here).
WARPSPEC_HOST_DEVICE constexpr uint64_t make_wgmma_desc(uint32_t smem_addr, uint32_t lbo_bytes, uint32_t sbo_bytes,
                                          WgmmaSwizzle swizzle, uint32_t base_offset = 0) {
  return wgmma_desc_encode(smem_addr) | (wgmma_desc_encode(lbo_bytes) << 16) |
         (wgmma_desc_encode(sbo_bytes) << 32) | (uint64_t(base_offset & 7u) << 49) |
         (uint64_t(static_cast<uint32_t>(swizzle)) << 62);
}

// Move a descriptor's start address by `bytes` (a multiple of 16). The start field is
// the low 14 bits, so an add is exact while the address stays below 256 KB, which all
// of shared memory (228 KB) is; LBO/SBO/swizzle are untouched.
// The add is on the low word only (the start and LBO fields), so it folds into one
// 32-bit add of an immediate.
WARPSPEC_HOST_DEVICE constexpr uint64_t wgmma_desc_advance(uint64_t desc, uint32_t bytes) {
  return (desc & 0xFFFFFFFF00000000ull) | uint32_t(uint32_t(desc) + (bytes >> 4));
}

// Field readers (tests, debugging): bytes for addresses and offsets.
WARPSPEC_HOST_DEVICE constexpr uint32_t wgmma_desc_start(uint64_t d) { return uint32_t(d & 0x3FFFu) << 4; }
WARPSPEC_HOST_DEVICE constexpr uint32_t wgmma_desc_lbo(uint64_t d) { return uint32_t((d >> 16) & 0x3FFFu) << 4; }
WARPSPEC_HOST_DEVICE constexpr uint32_t wgmma_desc_sbo(uint64_t d) { return uint32_t((d >> 32) & 0x3FFFu) << 4; }
WARPSPEC_HOST_DEVICE constexpr uint32_t wgmma_desc_base_offset(uint64_t d) { return uint32_t(d >> 49) & 7u; }
WARPSPEC_HOST_DEVICE constexpr WgmmaSwizzle wgmma_desc_swizzle(uint64_t d) { return WgmmaSwizzle(uint32_t(d >> 62)); }

// One wgmma operand tile (A: M x K, or B: N x K) in shared memory, in the layout TMA
// writes and wgmma reads. The tile is a row of "columns" side by side, each column
// `rows` rows of `row_bytes` bytes (row_bytes = the swizzle span, 16 B unswizzled):
//   K-major:  a row is one M/N index, a column covers row_bytes of K;
//   MN-major: a row is one K index,   a column covers row_bytes of M/N.
// That is exactly one TMA box per column (inner box extent = row_bytes), and the
// canonical layouts of PTX ISA "asynchronous-warpgroup-level-canonical-layouts" with
//   K-major  none: ((8,m),(T,2k)) : ((1T,SBO),(1,LBO))   LBO = column, SBO = 8 rows
//   K-major  swz : ((8,m),(T,2k)) : ((sT,SBO),(1,T))      LBO unused (16), SBO = 8 rows
//   MN-major none: ((T,1,m),(8,k)) : ((1,T,SBO),(1T,LBO)) LBO = 8 rows, SBO = column
//   MN-major swz : ((T,s,m),(8,k)) : ((1,T,LBO),(sT,SBO)) LBO = column, SBO = 8 rows
// (T = 16 B of elements, s = span / 16 B). Note the unswizzled MN-major case swaps the
// roles: there the 8-row (8-deep K) step is LBO and the column step is SBO.
// The tile base must be aligned to 1024 B (covers every swizzle's repeat) so the XOR
// pattern computed here from offsets matches the one wgmma applies to absolute
// addresses, with base offset 0.
struct WgmmaOperandLayout {
  Major major = Major::kK;
  WgmmaSwizzle swizzle = WgmmaSwizzle::k128B;
  uint32_t elem_bytes = 2;  // 2 (bf16/fp16) or 1 (e4m3/e5m2)
  uint32_t mn = 64;         // M (A) or N (B) extent, elements
  uint32_t k = 64;          // K extent, elements

  WARPSPEC_HOST_DEVICE constexpr uint32_t row_bytes() const { return wgmma_row_bytes(swizzle); }
  // Rows per column, padded to the 8-row core-matrix height.
  WARPSPEC_HOST_DEVICE constexpr uint32_t rows() const { return ((major == Major::kK ? mn : k) + 7u) / 8u * 8u; }
  WARPSPEC_HOST_DEVICE constexpr uint32_t column_bytes() const { return rows() * row_bytes(); }
  WARPSPEC_HOST_DEVICE constexpr uint32_t columns() const {
    const uint32_t contiguous_bytes = (major == Major::kK ? k : mn) * elem_bytes;
    return (contiguous_bytes + row_bytes() - 1u) / row_bytes();
  }
  WARPSPEC_HOST_DEVICE constexpr uint32_t bytes() const { return columns() * column_bytes(); }

  // Byte offset from the tile base of element (mn_idx, k_idx), swizzle applied.
  WARPSPEC_HOST_DEVICE constexpr uint32_t offset(uint32_t mn_idx, uint32_t k_idx) const {
    const uint32_t row = major == Major::kK ? mn_idx : k_idx;
    const uint32_t along = (major == Major::kK ? k_idx : mn_idx) * elem_bytes;  // bytes on the contiguous dim
    const uint32_t logical = (along / row_bytes()) * column_bytes() + row * row_bytes() + along % row_bytes();
    // CuTe Swizzle<B,4,3>: the 16-B chunk index (bits 4..) XOR the 128-B line index
    // (bits 7..), B = 1/2/3 bits for 32/64/128B. Unswizzled: B = 0, identity.
    const uint32_t b = swizzle == WgmmaSwizzle::k128B ? 3u : swizzle == WgmmaSwizzle::k64B ? 2u
                     : swizzle == WgmmaSwizzle::k32B  ? 1u : 0u;
    return logical ^ (((logical >> 7) & ((1u << b) - 1u)) << 4);
  }

  // LBO / SBO for this layout (table above).
  WARPSPEC_HOST_DEVICE constexpr uint32_t lbo() const {
    if (major == Major::kK) return swizzle == WgmmaSwizzle::kNone ? column_bytes() : 16u;
    return swizzle == WgmmaSwizzle::kNone ? 8u * row_bytes() : column_bytes();
  }
  WARPSPEC_HOST_DEVICE constexpr uint32_t sbo() const {
    if (major == Major::kMN && swizzle == WgmmaSwizzle::kNone) return column_bytes();
    return 8u * row_bytes();
  }

  // One instruction consumes 32 bytes of K (k16 of 16-bit, k32 of 8-bit).
  WARPSPEC_HOST_DEVICE constexpr uint32_t k_per_instr() const { return 32u / elem_bytes; }
  WARPSPEC_HOST_DEVICE constexpr uint32_t k_steps() const { return k / k_per_instr(); }

  // Start offset of the sub-tile that k-step `j` reads, rows from M/N index `mn0`
  // (a multiple of 8 for K-major, of a whole column's worth for MN-major, e.g. 64 for
  // the second consumer warpgroup's half of a 128-row A tile). These points all sit
  // on swizzle-row 0 of an 8-row group, where the XOR is the identity, so the start is
  // the unswizzled address and wgmma applies the pattern itself:
  //   K-major:  +32 B per k-step inside a span, then the next column (HOPPER-FACTS §4);
  //   MN-major: +16 rows (two 8-deep K groups) per k-step.
  WARPSPEC_HOST_DEVICE constexpr uint32_t k_step_offset(uint32_t j, uint32_t mn0 = 0) const { return offset(mn0, j * k_per_instr()); }

  // The descriptor for k-step `j` of a tile whose base is at shared address `base`:
  // the base's descriptor advanced by the (compile-time) offset, which equals encoding
  // base + offset because shared memory lies below 256 KB (wgmma_desc_advance). Encoding
  // the sum instead masks it first, and the compiler then rebuilt every k-step's
  // descriptor from scratch (four dependent ALU ops and a move each, between the
  // wgmmas of one batch: SASS of the attention mainloop, 2026-12-01).
  WARPSPEC_HOST_DEVICE constexpr uint64_t desc(uint32_t base, uint32_t j = 0, uint32_t mn0 = 0) const {
    return wgmma_desc_advance(make_wgmma_desc(base, lbo(), sbo(), swizzle), k_step_offset(j, mn0));
  }
};

}  // namespace warpspec::hopper
