#pragma once
// The FP8 V transpose on the CPU, instruction by instruction, over byte images of the
// shared-memory tiles: what attention_impl::transpose_v_unit does on the GPU, with each
// instruction written from its PTX ISA description (ldmatrix, prmt, stmatrix), so the
// host tests can check that the sequence produces Vᵀ = V∘(σ, δ) under every swizzle.
// Also the two images the tests start from: V as TMA writes it, and the Vᵀ the
// transpose must produce (built straight from the fp8_layout.hpp formula).
#include <cstdint>
#include <vector>

#include "warpspec/attention/fp8_layout.hpp"

namespace warpspec::testbed {

using Fp8Layout = hopper::WgmmaOperandLayout;

// prmt.b32 d, a, b, sel: byte i of d is byte (sel >> 4i) & 7 of {b:a} (a = bytes 0-3).
inline uint32_t prmt_model(uint32_t a, uint32_t b, uint32_t sel) {
  const uint64_t ab = uint64_t(a) | (uint64_t(b) << 32);
  uint32_t d = 0;
  for (int i = 0; i < 4; ++i) d |= uint32_t((ab >> (8 * ((sel >> (4 * i)) & 7))) & 0xFF) << (8 * i);
  return d;
}

// The b16 element at byte offset `at` of an image (lower address = lower byte).
inline uint32_t load_b16(const std::vector<uint8_t>& img, uint32_t at) {
  return img[at] | (uint32_t(img[at + 1]) << 8);
}

// ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16: row j of matrix m starts at the
// address lane 8m + j gives; with .trans lane l receives, in register m, the elements
// (row 2(l%4), column l/4) in the low half and (row 2(l%4)+1, column l/4) in the high.
inline void ldmatrix_x4_trans_model(const std::vector<uint8_t>& smem, const uint32_t (&addr)[32],
                                    uint32_t (&r)[32][4]) {
  for (int l = 0; l < 32; ++l)
    for (int m = 0; m < 4; ++m) {
      const uint32_t row0 = addr[8 * m + 2 * (l % 4)], row1 = addr[8 * m + 2 * (l % 4) + 1];
      r[l][m] = load_b16(smem, row0 + 2 * (l / 4)) | (load_b16(smem, row1 + 2 * (l / 4)) << 16);
    }
}

// stmatrix.sync.aligned.m8n8.x2.shared.b16: lane l's register j holds row l/4,
// elements 2(l%4), 2(l%4)+1 of matrix j (0, 1), whose row l/4 starts at lane 8j + l/4's
// address (lanes 0-15 give addresses).
inline void stmatrix_x2_model(std::vector<uint8_t>& smem, const uint32_t (&addr)[32], const uint32_t (&x)[32][2]) {
  for (int l = 0; l < 32; ++l)
    for (int j = 0; j < 2; ++j)
      for (int b = 0; b < 4; ++b) smem[addr[8 * j + l / 4] + 4 * (l % 4) + b] = uint8_t(x[l][j] >> (8 * b));
}

// One unit, as transpose_v_unit issues it (same lane addresses, same selectors, the
// store as two .x2, the second at each address XOR kVtHighKeysXor).
inline void transpose_v_unit_model(const std::vector<uint8_t>& v_img, std::vector<uint8_t>& vt_img, const Fp8Layout& v,
                                   const Fp8Layout& vt, int kc, int dc) {
  namespace ai = attention_impl;
  uint32_t load_addr[32], store_addr[32], high_addr[32], r[32][4], lo[32][2], hi[32][2];
  for (int l = 0; l < 32; ++l) {
    load_addr[l] = ai::fp8_vt_load_offset(v, kc, dc, l);
    store_addr[l] = ai::fp8_vt_store_offset(vt, kc, dc, l);
    high_addr[l] = store_addr[l] ^ ai::kVtHighKeysXor;
  }
  ldmatrix_x4_trans_model(v_img, load_addr, r);
  for (int l = 0; l < 32; ++l) {
    lo[l][0] = prmt_model(r[l][0], r[l][1], ai::kVtEvenColumn);
    lo[l][1] = prmt_model(r[l][0], r[l][1], ai::kVtOddColumn);
    hi[l][0] = prmt_model(r[l][2], r[l][3], ai::kVtEvenColumn);
    hi[l][1] = prmt_model(r[l][2], r[l][3], ai::kVtOddColumn);
  }
  stmatrix_x2_model(vt_img, store_addr, lo);
  stmatrix_x2_model(vt_img, high_addr, hi);
}

// Every unit of a block (v.mn keys x v.k head-dim bytes) into `vt_img` (vt.bytes()).
inline void transpose_v_model(const std::vector<uint8_t>& v_img, std::vector<uint8_t>& vt_img, const Fp8Layout& v,
                              const Fp8Layout& vt) {
  for (int kc = 0; kc < int(v.mn) / attention_impl::kVtUnitKeys; ++kc)
    for (int dc = 0; dc < int(v.k) / attention_impl::kVtUnitCols; ++dc)
      transpose_v_unit_model(v_img, vt_img, v, vt, kc, dc);
}

// V (row-major block_n x head_dim bytes) as TMA writes it into fp8_v_layout.
inline std::vector<uint8_t> v_tile_image(const std::vector<uint8_t>& v_rows, uint32_t block_n, uint32_t head_dim) {
  const Fp8Layout v = attention_impl::fp8_v_layout(block_n, head_dim);
  std::vector<uint8_t> img(v.bytes(), 0);
  for (uint32_t key = 0; key < block_n; ++key)
    for (uint32_t c = 0; c < head_dim; ++c) img[v.offset(key, c)] = v_rows[key * head_dim + c];
  return img;
}

// The Vᵀ the transpose must produce, in fp8_vt_layout: Vᵀ(n, p) = V(σ-key(p), δ-column(n)).
inline std::vector<uint8_t> vt_tile_image(const std::vector<uint8_t>& v_rows, uint32_t block_n, uint32_t head_dim) {
  namespace ai = attention_impl;
  const Fp8Layout vt = ai::fp8_vt_layout(block_n, head_dim);
  std::vector<uint8_t> img(vt.bytes(), 0);
  for (uint32_t n = 0; n < head_dim; ++n)
    for (uint32_t p = 0; p < block_n; ++p)
      img[vt.offset(n, p)] = v_rows[uint32_t(ai::fp8_vt_key(int(p))) * head_dim + uint32_t(ai::fp8_vt_column(int(n)))];
  return img;
}

}  // namespace warpspec::testbed
