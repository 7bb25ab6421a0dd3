#pragma once
// FP8 block scaling (DeepSeek-V3 §3.3; DeepGEMM's layout): A's rows carry one fp32 scale
// per 128 K (1 x 128 blocks), B one per 128 x 128 block. A k-block of the FP8 GEMM is 128
// K (one SW128 row of 8-bit values), so each k-block's partial product, which the FP8
// consumer (mma_fp8.cuh) promotes into the fp32 accumulator anyway, is multiplied by its
// scales as it is promoted: acc += tmp · (s_a[row, kb] · s_b[kb, nb]). The product's
// scales then never reach the epilogue.
//
// Each consumer thread holds accumulators of two rows (r and r + 8 of its warp's 16 in
// the m64 wgmma layout: registers 4j, 4j+1 are row r, 4j+2, 4j+3 row r + 8) and, per
// 128-column part of its tile, one column block: two A scales and one B scale per part
// and k-block. Loaded at the k-block's own start, their L2 latency outlasted the
// k-block's wgmmas and stalled its promotion (block scaling ran at 0.72 of tensor-wise at
// 8192³ on the H200, the 128 x 256 tile), so where registers allow they are loaded a
// k-block ahead (kAhead). Without block scales every factor is 1 and nothing is loaded:
// fmaf(tmp, 1, acc) is the plain add's bits.
#include "warpspec/gemm/config.hpp"
#include "warpspec/gemm/params.hpp"
#include "warpspec/hopper/arch.cuh"
#include "warpspec/schedule/stream_k.hpp"

namespace warpspec::gemm_impl {

// kAhead: load a k-block's scales while the previous k-block is multiplied (2 + kParts
// more live registers); else at the k-block's own start. The 128 x 256 FP8 tile (acc 128
// + tmp 64 of 232 registers) spills with the look-ahead, so it loads at the start.
template <int kParts, int kPartN, int kBlockM, int kBlockN, bool kAhead = (kParts == 1)>
class BlockScale {
 public:
  static constexpr int kScaleBlock = 128;  // K per A scale; K and N per B scale
  static_assert(kPartN <= kScaleBlock && kScaleBlock % kPartN == 0, "a part lies in one column block");

  // Consumer warpgroup `wg`'s thread, on work unit `t`.
  __device__ __forceinline__ BlockScale(const GemmParams& p, const schedule::KWorkUnit& t, int wg) : s_(p.block_scale) {
    const int lane = int(threadIdx.x) % 32, warp = (int(threadIdx.x) / 32) % 4;
    const int r = t.m_block * kBlockM + 64 * wg + 16 * warp + lane / 4;
    row0_ = min(r, s_.m_last);  // rows past M: TMA zero-filled, their products are 0
    row1_ = min(r + 8, s_.m_last);  // (a clamped read stays inside scale_a)
#pragma unroll
    for (int part = 0; part < kParts; ++part)
      nb_[part] = min((t.n_block * kBlockN + part * kPartN) / kScaleBlock, s_.n_block_last);
  }

  // Before the unit's first k-block `kb0`.
  __device__ __forceinline__ void start(int kb0) {
    if constexpr (kAhead) load(kb0, next_row_, next_col_);
  }

  // At the start of k-block `kb` (`more`: another follows in this unit).
  __device__ __forceinline__ void begin_kblock(int kb, bool more) {
    if constexpr (kAhead) {
      row_[0] = next_row_[0], row_[1] = next_row_[1];
#pragma unroll
      for (int part = 0; part < kParts; ++part) col_[part] = next_col_[part];
      if (more) load(kb + 1, next_row_, next_col_);
    } else {
      load(kb, row_, col_);
    }
  }

  // The factor of accumulator register i of part `part`, for the current k-block.
  __device__ __forceinline__ float factor(int i, int part) const { return row_[(i >> 1) & 1] * col_[part]; }

 private:
  const BlockScaleParams& s_;
  int32_t row0_, row1_;
  int32_t nb_[kParts];
  // The scales of k-block kb into `row`, `col` (1 without block scales).
  __device__ __forceinline__ void load(int kb, float (&row)[2], float (&col)[kParts]) const {
    if (s_.a == nullptr) {
      row[0] = row[1] = 1.0f;
#pragma unroll
      for (int part = 0; part < kParts; ++part) col[part] = 1.0f;
      return;
    }
    const int64_t ka = int64_t(kb) * s_.a_stride_k, kb_off = int64_t(kb) * s_.b_stride_k;
    row[0] = __ldg(s_.a + row0_ * s_.a_stride_m + ka);
    row[1] = __ldg(s_.a + row1_ * s_.a_stride_m + ka);
#pragma unroll
    for (int part = 0; part < kParts; ++part) col[part] = __ldg(s_.b + kb_off + nb_[part] * s_.b_stride_n);
  }

  float row_[2], col_[kParts];
  // kAhead: the next k-block's, loaded while this one is multiplied (unused otherwise).
  float next_row_[2], next_col_[kParts];
};

}  // namespace warpspec::gemm_impl
