#pragma once
// FP8 attention's P·V operand layouts (design note docs/design/fp8-attention.md §2-3):
// the Vᵀ tile the in-kernel transpose writes, the lane addresses of its instructions,
// and the output column each P·V accumulator register ends up holding. Plain constexpr
// arithmetic: the device transpose (v_transpose_unit.cuh), the future epilogue and the
// host tests share one definition.
//
// Why Vᵀ is permuted. 8-bit wgmma operands in shared memory must be K-major, so P·V
// needs B = Vᵀ with keys contiguous; TMA writes V with keys as rows, so the kernel
// transposes each V block. P comes from registers, packed from S with the key
// permutation σ inside each 16-key group (hopper/fp8_a_fragment.hpp). P·V sums over
// keys, so it stays exact when Vᵀ's K position p holds key fp8_vt_key(p) with the same
// σ. The transpose produces exactly that, and also permutes head-dim rows inside each
// group of 16 (δ): Vᵀ row n holds head-dim column fp8_vt_column(n). So P·V's
// accumulator column n is output column fp8_vt_column(n); fp8_o_column gives it per
// register, and the four columns 16c + 4q .. +3 of a thread sit in four registers
// (fp8_o_register), ready for one 8-byte store with no shuffles.
#include <cstdint>

#include "warpspec/hopper/fp8_a_fragment.hpp"
#include "warpspec/hopper/host_device.hpp"
#include "warpspec/hopper/wgmma_desc.hpp"

namespace warpspec::attention_impl {

// δ: the head-dim column (inside a 16-group) that Vᵀ row n (0..15) holds:
// n 0..7 -> 0 2 4 6 8 10 12 14, n 8..15 -> 1 3 5 7 9 11 13 15.
WARPSPEC_HOST_DEVICE constexpr int fp8_vt_dim(int n) { return 2 * (n & 7) + (n >> 3); }
// δ⁻¹: the Vᵀ row (inside a 16-group) that holds head-dim column c (0..15).
WARPSPEC_HOST_DEVICE constexpr int fp8_vt_dim_inverse(int c) { return 8 * (c & 1) + (c >> 1); }

// Vᵀ(n, p) = V(fp8_vt_key(p), fp8_vt_column(n)): n = head-dim row (wgmma N), p = K
// position (0 .. block_n-1).
WARPSPEC_HOST_DEVICE constexpr int fp8_vt_key(int p) { return 16 * (p >> 4) + hopper::fp8_a_key(p & 15); }
WARPSPEC_HOST_DEVICE constexpr int fp8_vt_column(int n) { return 16 * (n >> 4) + fp8_vt_dim(n & 15); }

// The output column that P·V accumulator register i of a thread with q = t%4 holds
// (its row is the accumulator's: 16w + g + 8((i>>1)&1)). = fp8_vt_column of the
// accumulator column 8(i>>2) + 2q + (i&1).
WARPSPEC_HOST_DEVICE constexpr int fp8_o_column(int q, int i) {
  return 16 * (i >> 3) + 4 * q + 2 * (i & 1) + ((i >> 2) & 1);
}
// The register holding output column 16c + 4q + j (j = 0..3) of row half h (row
// g + 8h): o[8c + 2h + {0, 4, 1, 5}[j]].
WARPSPEC_HOST_DEVICE constexpr int fp8_o_register(int c, int h, int j) {
  return 8 * c + 2 * h + 4 * (j & 1) + (j >> 1);
}

// The swizzle of an 8-bit K-major tile with rows of `k_bytes`: the widest span that
// divides the row (CUTLASS's choice for K-major operands): 128B, else 64B, else 32B.
WARPSPEC_HOST_DEVICE constexpr hopper::WgmmaSwizzle fp8_swizzle_for(uint32_t k_bytes) {
  return k_bytes % 128 == 0  ? hopper::WgmmaSwizzle::k128B
         : k_bytes % 64 == 0 ? hopper::WgmmaSwizzle::k64B
         : k_bytes % 32 == 0 ? hopper::WgmmaSwizzle::k32B
                             : hopper::WgmmaSwizzle::kNone;
}
// A V block as TMA writes it, the same layout as K: rows = keys, head dim contiguous
// (SW128 at head dims 128/256, SW64 at 64).
WARPSPEC_HOST_DEVICE constexpr hopper::WgmmaOperandLayout fp8_v_layout(uint32_t block_n, uint32_t head_dim) {
  return {hopper::Major::kK, fp8_swizzle_for(head_dim), 1, block_n, head_dim};
}
// Vᵀ, P·V's B operand: N = head dim rows, K = keys contiguous (SW128 at block_n 128).
WARPSPEC_HOST_DEVICE constexpr hopper::WgmmaOperandLayout fp8_vt_layout(uint32_t block_n, uint32_t head_dim) {
  return {hopper::Major::kK, fp8_swizzle_for(block_n), 1, head_dim, block_n};
}

// ------------------------------------------------------------------ the transpose
// One warp moves one unit (kc, dc) = keys 32kc .. +31 x head-dim bytes 16dc .. +15 with
// ldmatrix.x4.trans.b16 -> 4 prmt -> stmatrix.x4.b16 (v_transpose_unit.cuh):
// - ldmatrix: matrix m = keys 32kc + 8m .. +7, 16 bytes at 16dc (8 byte pairs). With
//   .trans lane l (g = l/4, q = l%4) gets in r[m] the pair at column c = 16dc + 2g of
//   keys k = 32kc + 8m + 2q and k+1: bytes V(k,c), V(k,c+1), V(k+1,c), V(k+1,c+1).
// - prmt(r[0], r[1], kVtEvenColumn) = column c of keys 2q, 2q+1, 8+2q, 9+2q (relative
//   to 32kc) = keys σ(4q + 0..3); kVtOddColumn the same keys at column c+1; likewise
//   r[2], r[3] for keys +16.
// - stmatrix: register j of lane l goes to row l/4 = g of matrix j, bytes 4q..4q+3:
//   matrices 0/1 = Vᵀ rows 16dc + g / 16dc + 8 + g (columns c = 16dc + δ(g), c+1 =
//   16dc + δ(8+g)) at K positions 32kc + 4q + b, matrices 2/3 the same at +16.
inline constexpr int kVtUnitKeys = 32;  // keys per unit (two 16-key σ groups)
inline constexpr int kVtUnitCols = 16;  // head-dim bytes per unit (one 16-byte chunk)
inline constexpr uint32_t kVtEvenColumn = 0x6420;  // bytes 0, 2 of a, then 0, 2 of b
inline constexpr uint32_t kVtOddColumn = 0x7531;   // bytes 1, 3 of a, then 1, 3 of b

// Byte offset (from the V tile base) of the row whose address lane `lane` gives
// ldmatrix: row lane&7 of matrix lane>>3.
WARPSPEC_HOST_DEVICE constexpr uint32_t fp8_vt_load_offset(const hopper::WgmmaOperandLayout& v, int kc, int dc,
                                                         int lane) {
  return v.offset(uint32_t(kVtUnitKeys * kc + 8 * (lane >> 3) + (lane & 7)), uint32_t(kVtUnitCols * dc));
}
// Byte offset (from the Vᵀ tile base) of the row whose address lane `lane` gives
// stmatrix.x4: matrix lane>>3 = (row half, key half), row lane&7. Stored as two .x2
// (v_transpose_unit.cuh), lanes 0-15 give matrices 0, 1 and then, XOR kVtHighKeysXor,
// matrices 2, 3 (lanes 16-31's rows): K positions +16 are the next 16-byte chunk of the
// same Vᵀ row, i.e. chunk index bit 0 (32kc has it clear) under every swizzle, which
// flips address bit 4 (fp8_unit_split_holds checks this too).
inline constexpr uint32_t kVtHighKeysXor = 16;
WARPSPEC_HOST_DEVICE constexpr uint32_t fp8_vt_store_offset(const hopper::WgmmaOperandLayout& vt, int kc, int dc,
                                                          int lane) {
  return vt.offset(uint32_t(kVtUnitCols * dc + 8 * ((lane >> 3) & 1) + (lane & 7)),
                   uint32_t(kVtUnitKeys * kc + 16 * (lane >> 4)));
}

// The lane addresses above, split so the pump computes the lane's part once per block
// and each unit adds constants: offset(unit, lane) = fp8_unit_address(lane part, unit
// origin), with the lane part the lane's offset in unit (0, 0) and the origin the
// unit's first byte (V: key 32kc, column 16dc; Vᵀ: row 16dc, K position 32kc). It holds
// because unit origins sit on 8-row boundaries of 1024-byte swizzle periods: the rows
// that feed the XOR (address bits 7-9) come from the lane alone, the origin's chunk
// bits (4-6) only XOR in, and its bits 7 and up only add, so a 1024-aligned stage base
// added to the lane part changes nothing. fp8_unit_split_holds checks it exhaustively.
// Add first, XOR last: XOR first would give at most 8 distinct lane ^ chunk values that
// the compiler keeps live across a block's units (register pressure at 24 per thread).
WARPSPEC_HOST_DEVICE constexpr uint32_t fp8_unit_address(uint32_t lane_part, uint32_t origin) {
  return (lane_part + (origin & ~0x7Fu)) ^ (origin & 0x70u);
}
WARPSPEC_HOST_DEVICE constexpr uint32_t fp8_v_unit_origin(const hopper::WgmmaOperandLayout& v, int kc, int dc) {
  return v.offset(uint32_t(kVtUnitKeys * kc), uint32_t(kVtUnitCols * dc));
}
WARPSPEC_HOST_DEVICE constexpr uint32_t fp8_vt_unit_origin(const hopper::WgmmaOperandLayout& vt, int kc, int dc) {
  return vt.offset(uint32_t(kVtUnitCols * dc), uint32_t(kVtUnitKeys * kc));
}
// Every unit and lane of a (block_n, head_dim) block, loads and stores, and the .x2
// halves' address relation (host tests, and the pump's static_assert for its shape).
WARPSPEC_HOST_DEVICE constexpr bool fp8_unit_split_holds(uint32_t block_n, uint32_t head_dim) {
  const hopper::WgmmaOperandLayout v = fp8_v_layout(block_n, head_dim), vt = fp8_vt_layout(block_n, head_dim);
  for (int kc = 0; kc < int(block_n) / kVtUnitKeys; ++kc)
    for (int dc = 0; dc < int(head_dim) / kVtUnitCols; ++dc)
      for (int lane = 0; lane < 32; ++lane) {
        if (fp8_unit_address(fp8_vt_load_offset(v, 0, 0, lane), fp8_v_unit_origin(v, kc, dc)) !=
            fp8_vt_load_offset(v, kc, dc, lane))
          return false;
        if (fp8_unit_address(fp8_vt_store_offset(vt, 0, 0, lane), fp8_vt_unit_origin(vt, kc, dc)) !=
            fp8_vt_store_offset(vt, kc, dc, lane))
          return false;
        if (lane < 16 &&
            (fp8_vt_store_offset(vt, kc, dc, lane) ^ kVtHighKeysXor) != fp8_vt_store_offset(vt, kc, dc, lane + 16))
          return false;
      }
  return true;
}

static_assert(fp8_v_layout(128, 64).swizzle == hopper::WgmmaSwizzle::k64B, "V at head dim 64: 64-byte rows, SW64");
static_assert(fp8_vt_layout(128, 256).swizzle == hopper::WgmmaSwizzle::k128B, "Vᵀ at block_n 128: SW128");
static_assert(fp8_o_column(0, fp8_o_register(1, 0, 3)) == 19, "o[8c + 2h + 5] holds column 16c + 4q + 3");

}  // namespace warpspec::attention_impl
