#pragma once
// GEMM epilogue of the narrow tiles (TileConfig::epi_stages == 0): D = alpha·acc + beta·C
// stored straight from the accumulator registers, no chunk buffers, no TMA.
//
// A narrow tile is 16 or 32 columns wide: less than the 128-byte row a chunk box needs.
// It runs a swapped problem (Dᵀ = Bᵀ·Aᵀ, config.hpp), so the kernel's D is usually the
// caller's row-major D read column-major: element (i, j) of the kernel's problem lies at
// i·row_stride + j·col_stride (GemmParams::direct), either orientation, and C likewise.
// The output of such a problem is small against the operand it streams (16 x 8192 bf16
// D = 256 KB for a 128 MB weight), so scalar stores cost little: in the column-major
// case each store instruction of a warp writes four runs of 16 contiguous bytes (8 rows
// of one column per lane quad).
//
// The per-element math is LinearOp's (gemm/epilogue_ops.cuh): v = alpha·acc, then
// fma(beta, C, v), rounded once. In place (C is D) each element is read and written by
// the same thread. Elements past M or N are not written.
#include "warpspec/gemm/config.hpp"
#include "warpspec/gemm/params.hpp"
#include "warpspec/hopper/arch.cuh"
#include "warpspec/hopper/convert.cuh"
#include "warpspec/pipeline.cuh"
#include "warpspec/schedule/stream_k.hpp"

namespace warpspec::gemm_impl {

template <GemmConfig kCfg>
struct DirectEpilogue {
  using TOut = hopper::element_t<kCfg.out>;
  static constexpr int kBlockM = kCfg.tile.block_m, kBlockN = kCfg.tile.block_n;
  static_assert(kCfg.tile.epi_stages == 0, "the direct epilogue is the one without chunk buffers");
  static_assert(kCfg.epilogue == EpilogueKind::kLinear, "narrow tiles are built with the linear epilogue");
  static_assert(kBlockN % 8 == 0, "whole 8-column accumulator groups");

  struct Storage {};
  using Pipe = Pipeline<1>;  // the kernel's epilogue ring, unused: C is read from global memory
  using State = PipelineState<1>;

  __device__ __forceinline__ static void load(const GemmParams&, Pipe&, State&, Storage&, const schedule::KWorkUnit&) {}

  __device__ __forceinline__ static float to_float(TOut x) {
    if constexpr (sizeof(TOut) == 4) return x;
    else return float(x);
  }

  // Consumer warpgroup `wg`: its 64 rows of the tile. Thread layout of the accumulator
  // (hopper/fragment.cuh): acc[4·c8 + 2·h + e] is row 16·warp + g + 8·h, column
  // 8·c8 + 2·q + e.
  __device__ __forceinline__ static void store(const GemmParams& p, Pipe&, State&, Storage&, int wg,
                                               const schedule::KWorkUnit& t, const float (&acc)[kBlockN / 2]) {
    const int tid = threadIdx.x % 128;
    const int warp = tid / 32, g = (tid % 32) / 4, q = tid % 4;
    const DirectStoreParams& s = p.direct;
    const int64_t row0 = int64_t(t.m_block) * kBlockM + 64 * wg + 16 * warp + g;
    const int64_t col0 = int64_t(t.n_block) * kBlockN + 2 * q;
    TOut* d = static_cast<TOut*>(p.d) + int64_t(t.l) * p.d_batch_stride;
    const TOut* c = static_cast<const TOut*>(s.c) + int64_t(t.l) * p.c_l_mul * s.c_batch_stride;
    const float alpha = p.alpha, beta = p.beta;
#pragma unroll
    for (int c8 = 0; c8 < kBlockN / 8; ++c8) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int64_t row = row0 + 8 * h, col = col0 + 8 * c8 + e;
          if (row < p.m && col < p.n) {
            float v = alpha * acc[4 * c8 + 2 * h + e];
            if (beta != 0.0f) v = fmaf(beta, to_float(c[row * s.c_row_stride + col * s.c_col_stride]), v);
            d[row * s.d_row_stride + col * s.d_col_stride] = TOut(v);
          }
        }
      }
    }
  }

  __device__ __forceinline__ static void store_tail() {}
};

}  // namespace warpspec::gemm_impl
