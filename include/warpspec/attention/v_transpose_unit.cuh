#pragma once
// One unit of the FP8 V transpose: a warp turns keys 32kc .. +31 x head-dim bytes
// 16dc .. +15 of a V block (rows = keys, as TMA writes it) into Vᵀ rows 16dc .. +15 x K
// positions 32kc .. +31, permuted as P·V needs (fp8_layout.hpp: Vᵀ(n, p) =
// V(fp8_vt_key(p), fp8_vt_column(n))). A block is (block_n / 32) x (head_dim / 16)
// units; which warp runs which unit, and the barriers around them, belong to the caller.
//
// Both tiles are 1024-byte aligned (the swizzle is applied to absolute address bits,
// wgmma_desc.hpp). After its last unit every writing thread must run
// fence_proxy_async_smem() before the barrier that hands Vᵀ to wgmma (stmatrix writes
// through the generic proxy; HOPPER-FACTS §10.3). Reading V needs only the barrier that
// says TMA landed it.
#include <cstdint>

#include "warpspec/attention/fp8_layout.hpp"
#include "warpspec/hopper/ldsm_stsm.cuh"

namespace warpspec::attention_impl {

// The unit's two halves on this lane's addresses: ldmatrix from V, then prmt and
// stmatrix into Vᵀ. Apart so a warp can issue a second unit's load before the first
// unit's store (the V pump, v_transpose.cuh); warp-collective like the whole unit.
// The store is two stmatrix.x2 (keys +0..15, then +16..31: the .x4's matrices 0, 1 and
// 2, 3): two registers live at a time instead of four. Lanes 0-15 address both halves;
// the second half's rows are the first's next 16-byte chunk (kVtHighKeysXor).
WARPSPEC_DEVICE void load_v_unit(uint32_t src, uint32_t (&r)[4]) { hopper::ldmatrix_x4_trans_b16(src, r); }
WARPSPEC_DEVICE void store_vt_unit(uint32_t dst, const uint32_t (&r)[4]) {
  hopper::stmatrix_x2_b16(dst, hopper::byte_perm(r[0], r[1], kVtEvenColumn),
                          hopper::byte_perm(r[0], r[1], kVtOddColumn));
  hopper::stmatrix_x2_b16(dst ^ kVtHighKeysXor, hopper::byte_perm(r[2], r[3], kVtEvenColumn),
                          hopper::byte_perm(r[2], r[3], kVtOddColumn));
}

// `v_base` / `vt_base`: smem_u32 addresses of the two tiles. Warp-collective
// (.sync.aligned): every lane runs it with the same kc, dc.
WARPSPEC_DEVICE void transpose_v_unit(uint32_t v_base, uint32_t vt_base, const hopper::WgmmaOperandLayout& v,
                                      const hopper::WgmmaOperandLayout& vt, int kc, int dc, int lane) {
  uint32_t r[4];
  load_v_unit(v_base + fp8_vt_load_offset(v, kc, dc, lane), r);
  store_vt_unit(vt_base + fp8_vt_store_offset(vt, kc, dc, lane), r);
}

}  // namespace warpspec::attention_impl
