#pragma once
// Warp-wide 8x8 matrix loads and stores between shared memory and registers (ldmatrix,
// stmatrix), and the byte permute that regroups their 16-bit elements as bytes.
// The FP8 V transpose is built from these (attention/v_transpose_unit.cuh): on sm_90
// both matrix instructions move .b16 elements only (the .b8 forms are sm_100 family),
// so 8-bit data is moved as byte pairs and split with prmt.
//
// Rules (PTX ISA "warp-level-matrix-instructions-ldmatrix" / "-stmatrix"):
// - .sync.aligned: every lane of the warp runs the same instruction; never under a
//   lane-divergent branch.
// - .x4: four 8x8 matrices of b16. Lane l supplies the shared address of row l&7 of
//   matrix l>>3; each row is 16 contiguous bytes, 16-byte aligned (one swizzle chunk).
//   .x2: two matrices, addresses from lanes 0-15; it holds two registers live where .x4
//   holds four (what let the FP8 V pump keep two units in flight at 24 registers).
// - Register j of a lane belongs to matrix j. Without .trans lane l holds row l/4,
//   elements 2(l%4) and 2(l%4)+1 (lower element in the lower half). ldmatrix .trans
//   reads the matrix column-major: lane l holds rows 2(l%4) and 2(l%4)+1 of column l/4.
// - stmatrix writes through the generic proxy: a wgmma (async proxy) that reads the
//   data needs fence_proxy_async_smem() in every writer, then a barrier (HOPPER-FACTS
//   §10.3).
#include "warpspec/hopper/cuda_ptx.hpp"

#include <cstdint>

#include "warpspec/hopper/arch.cuh"

namespace warpspec::hopper {

// Four 8x8 b16 matrices, transposed on the way in. `addr` is this lane's row address
// (smem_u32 form).
WARPSPEC_DEVICE void ldmatrix_x4_trans_b16(uint32_t addr, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

// Four 8x8 b16 matrices stored as they are held (no transpose). `addr` is this lane's
// row address (smem_u32 form).
WARPSPEC_DEVICE void stmatrix_x4_b16(uint32_t addr, const uint32_t (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(r[0]),
               "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}

// Two 8x8 b16 matrices stored as they are held. Lanes 0-15 give the row addresses (row
// l&7 of matrix l>>3); lanes 16-31's `addr` is ignored. Register j of lane l is row l/4,
// elements 2(l%4), 2(l%4)+1 of matrix j.
WARPSPEC_DEVICE void stmatrix_x2_b16(uint32_t addr, uint32_t r0, uint32_t r1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n" ::"r"(addr), "r"(r0), "r"(r1) : "memory");
}

// prmt.b32 (CUDA's __byte_perm): byte i of the result is byte ((sel >> 4i) & 7) of the
// 8-byte value {b:a}, a = bytes 0-3, b = bytes 4-7. Selector bit 4i+3 (sign replicate)
// is never set by warpspec.
WARPSPEC_DEVICE uint32_t byte_perm(uint32_t a, uint32_t b, uint32_t sel) { return cuda::ptx::prmt(a, b, sel); }

}  // namespace warpspec::hopper
