#pragma once
// The wgmma accumulator fragment (m64 x N, fp32, one warpgroup) and where its values
// go in an SW128 tile: shared by every epilogue that stages output for a TMA store.
//
// Register i of thread t (0..127 in the warpgroup) holds row 16·(t/32) + (t%32)/4 +
// 8·((i>>1)&1) and column 8·(i>>2) + 2·(t%4) + (i&1) (PTX "wgmma D fragment";
// HOPPER-FACTS §4): registers i and i+1 (i even) are two adjacent columns of one row.
#include <cstdint>

#include "warpspec/hopper/arch.cuh"
#include "warpspec/hopper/swizzle.hpp"

namespace warpspec::hopper {

// Visit the register pairs of accumulator columns [col0, col0 + kCols) as they land in
// SW128 boxes of 128-byte rows (128 / kElemBytes columns each; box b starts
// `box_stride` bytes after box 0, row r of a box at 128·r): `visit(i, offset)` gets
// the first register of the pair and the byte offset of its two elements from box 0,
// which must be 1024-byte aligned (the swizzle is anchored to address bits). col0 is
// a multiple of 8; box 0 is the box holding column col0, so a run that starts inside a
// box (half of an e4m3 D's 128-column box) lands at its columns there. After unrolling
// col0 is a constant, so `i` indexes registers statically.
template <int kElemBytes, int kCols, class Visit>
WARPSPEC_DEVICE void for_each_accum_pair_sw128(int col0, uint32_t box_stride, Visit&& visit) {
  constexpr int kBoxCols = 128 / kElemBytes;
  static_assert(kCols % 8 == 0 && kBoxCols % 8 == 0, "whole 8-column fragment groups");
  int t = static_cast<int>(threadIdx.x) % 128;
  if constexpr (kElemBytes == 1) {
    // 1-byte elements: the offsets are read from %tid.x afresh at each use. Derived from
    // threadIdx.x they are loop-invariant, and the compiler computed an e4m3 D's offsets once
    // before the persistent tile loop and held them through the FP8 mainloop, whose
    // registers are full: 52-96 bytes of spills. (Two-byte elements fold into fewer values.)
    uint32_t tid;
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tid));
    t = int(tid % 128);
  }
  const int warp = t / 32, g = (t % 32) / 4, q = t % 4;
#pragma unroll
  for (int c8 = 0; c8 < kCols / 8; ++c8) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int i = 4 * (col0 / 8 + c8) + 2 * h;
      const uint32_t row = 16 * warp + g + 8 * h;
      const int rel = col0 % kBoxCols + 8 * c8;  // the column from box 0's first
      const uint32_t box = rel / kBoxCols;
      const uint32_t col_byte = (rel % kBoxCols + 2 * q) * kElemBytes;
      visit(i, box * box_stride + swizzle_offset_2d(TmaSwizzle::k128B, row, col_byte, 128));
    }
  }
}

}  // namespace warpspec::hopper
