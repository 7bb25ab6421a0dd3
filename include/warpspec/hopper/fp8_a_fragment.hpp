#pragma once
// Which fp32 accumulator register feeds each byte of an 8-bit wgmma A fragment, when
// the accumulator of one wgmma (S = Q·Kᵀ, m64nN) becomes the register A operand of
// the next (P·V, m64nNk32 e4m3): the index map of accum_to_a_fragment (wgmma.cuh).
// Plain constexpr arithmetic, so the device packing and the host tests share it.
//
// The two layouts (t = thread of the warpgroup, w = t/32, g = (t%32)/4, q = t%4):
//   accumulator d[i]: row 16w + g + 8((i>>1)&1), column 8(i>>2) + 2q + (i&1)
//     (PTX ISA §9.7.15.5.1.1 "Register Fragments", the m64nN f32 D figure; CuTe
//     CLayout_64xN; HOPPER-FACTS §4, probe-verified);
//   A fragment a[r], byte b (byte 0 lowest): row 16w + g + 8(r&1),
//     k = 16(r>>1) + 4q + b (same section, the m64nNk32 .e4m3/.e5m2 A figure; CuTe
//     ALayout_64x32; the RS e4m3 cases of tests/gpu/wgmma_test.cu load A this way).
// A register needs 4 consecutive k of one row; the accumulator gives a thread column
// pairs 2q, 2q+1 eight apart. Without shuffles a thread can only fill a[r] from its own
// registers, so byte b of a[r] takes the accumulator of the same row whose column is
// the b-th of {2q, 2q+1, 8+2q, 9+2q} (+16 for r >= 2). The A operand then holds, at k
// position k of each 16-group, the key fp8_a_key(k) (σ below): P·V stays exact as long
// as B (= Vᵀ) holds at K position k the row of V for key σ(k) too, which the in-kernel
// V transpose gives for free (attention/fp8_layout.hpp; design note fp8-attention §2.3).
#include "warpspec/hopper/host_device.hpp"

namespace warpspec::hopper {

// σ: the key (column of S inside a 16-column group) that A's k position k (0..15)
// holds. k = 4q + b: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 -> 0 1 8 9 2 3 10 11 4 5 12 13
// 6 7 14 15.
WARPSPEC_HOST_DEVICE constexpr int fp8_a_key(int k) { return 2 * (k >> 2) + (k & 1) + 8 * ((k >> 1) & 1); }

// σ⁻¹: the A k position (0..15) that holds key `key` (0..15) of a 16-group.
WARPSPEC_HOST_DEVICE constexpr int fp8_a_position(int key) {
  return 4 * ((key >> 1) & 3) + 2 * (key >> 3) + (key & 1);
}

// The accumulator register (index into d[]) whose value becomes byte b of A register r
// in k-slice s (accumulator columns 32s .. 32s+31, registers 16s .. 16s+15):
//   r = 0: d[16s + {0, 1, 4, 5}]    r = 1: d[16s + {2, 3, 6, 7}]      (rows g, g+8)
//   r = 2: d[16s + {8, 9, 12, 13}]  r = 3: d[16s + {10, 11, 14, 15}]  (k + 16)
WARPSPEC_HOST_DEVICE constexpr int fp8_a_source(int s, int r, int b) {
  return 16 * s + 8 * (r >> 1) + 2 * (r & 1) + 4 * (b >> 1) + (b & 1);
}

}  // namespace warpspec::hopper
