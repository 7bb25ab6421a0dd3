#pragma once
// Kernel parameters of the GEMM, built on the host (src/gemm/gemm.cpp) and passed to
// the kernel by value as a __grid_constant__ parameter (the tensor maps must live in
// parameter, constant or global memory for TMA).
#include <cuda.h>

#include <cstdint>

#include "warpspec/gemm/epilogue_params.hpp"
#include "warpspec/schedule/stream_k.hpp"

namespace warpspec::gemm_impl {

// FP8 block scaling (gemm/block_scale.cuh; GemmScaling::kBlock): the kernel's A rows
// carry one fp32 scale per 128 K (a[row * a_stride_m + kb * a_stride_k]), B one per 128 x
// 128 block (b[kb * b_stride_k + nb * b_stride_n]); a null: none (every factor 1).
struct BlockScaleParams {
  const float* a = nullptr;
  int64_t a_stride_m = 0, a_stride_k = 0;
  const float* b = nullptr;
  int64_t b_stride_k = 0, b_stride_n = 0;
  int32_t m_last = 0, n_block_last = 0;  // clamps for the tile's rows and 128-column blocks past M, N
};

// The narrow tiles' epilogue (gemm/epilogue_direct.cuh) addresses D and C element (i, j)
// of the kernel's problem at i·row_stride + j·col_stride elements from the batch's base
// (GemmParams::d + l·d_batch_stride; c + l·c_l_mul·c_batch_stride): either orientation.
struct DirectStoreParams {
  const void* c = nullptr;  // null when beta == 0
  int64_t c_row_stride = 0, c_col_stride = 0, c_batch_stride = 0;
  int64_t d_row_stride = 0, d_col_stride = 0;
};

struct GemmParams {
  CUtensorMap map_a;  // A tiles: K-major {K, M, L} or M-major {M, K, L}
  CUtensorMap map_b;  // B tiles: K-major {K, N, L} or N-major {N, K, L}
  CUtensorMap map_c;  // C chunks, {N, M, L}, box {epi cols, block_m}; unused if beta == 0
  CUtensorMap map_d;  // D chunks, {N, M, L}, box {epi cols, 64}: one consumer's rows
  CUtensorMap map_a8;  // K-major A in 8-row boxes, {K, M, L}: a tile's rows up to M (gemm/mainloop.cuh)
  // Work units: a tile and a range of its k-iterations (ceil(K / block_k) per tile; TMA
  // zero-fills the K tail). Data-parallel, split-K or stream-K, decided on the host.
  schedule::KSplitScheduler sched;
  // The fixup workspace (gemm/fixup_layout.hpp), null when sched needs none: per slot a
  // flag per consumer warpgroup (zero between launches) and an fp32 partial tile.
  uint32_t* fixup_flags;
  float* fixup_partials;
  // Rows of A loaded per tile: block_m, or 64 when M <= 64. A skinny problem (M = 16,
  // say) then moves half the A bytes per stage, and the second consumer warpgroup,
  // whose rows are all past M, idles instead of multiplying zeros.
  int32_t a_rows;
  // 1 when the operand has a batch dimension, 0 when one matrix is broadcast over L:
  // its tensor map has L = 1 and the kernel loads batch coordinate l * mul.
  int32_t a_l_mul, b_l_mul, c_l_mul;
  float alpha;
  float beta;          // 0: C is never loaded
  // TMA stores write whole 16-byte chunks of the innermost dimension. When a row of
  // D is not a multiple of 16 bytes long, the chunk that holds column n-1 would spill
  // past the row's end, so that chunk is written with plain stores from shared
  // memory, bounds-checked, through this raw view instead.
  bool d_ragged;
  int32_t m, n;        // the kernel's problem extents (after a possible swap)
  void* d;             // row-major D: element (l, i, j) at d + l*d_batch_stride + i*ldd + j
  int64_t ldd;
  int64_t d_batch_stride;
  // Last, so the fields above sit where the plain kernels have always read them.
  EpilogueOpParams epilogue;  // scales, bias, activation: fused-epilogue kernels only (gemm/epilogue_ops.cuh)
  // FP8 two-level accumulation (gemm/mma_fp8.cuh): the wgmma accumulator is added into
  // the fp32 main accumulator every `promote_every` k-blocks; a large value (fast
  // accumulation) promotes only at the unit's end. Unused by 16-bit kernels.
  int32_t promote_every;
  BlockScaleParams block_scale;  // FP8 only; promote_every is 1 with block scales
  DirectStoreParams direct;       // narrow tiles only (epi_stages 0)
  // D (and C) fp32 rather than the input's 16-bit type: read by the kernels that write
  // either (config.hpp writes_fp32_too); the others have their D type built in.
  bool d_fp32;
};

}  // namespace warpspec::gemm_impl
