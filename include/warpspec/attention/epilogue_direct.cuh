#pragma once
// The FP8 kernels' epilogue (design note §7.2): bf16 O straight from registers to
// global memory, no staging. bf16 O is twice the bytes of the e4m3 Q buffer that the
// 16-bit epilogue stages it in, and head dim 256 has no other shared memory left.
//
// P·V against the pump's Vᵀ leaves O's columns permuted by δ (fp8_layout.hpp): a
// thread's registers o[8c + 2h + {0, 4, 1, 5}] hold row half h's columns 16c + 4q ..
// 16c + 4q + 3 (fp8_o_register), so each is one 8-byte store of 4 bf16, and a quad
// writes 32 contiguous bytes (one sector). Rows past the sequence and column groups
// past head_dim are not written (FP8 head dims are whole kernels: 64, 128, 256).
// LSE as the 16-bit epilogue writes it. Q's buffer went back to the producer after the
// tile's last S wgmma (q_release.cuh: nothing stages O here).
// Pack-GQA, split-KV and sinks are refused on the host for FP8, so none appear here.
#include <cuda_bf16.h>

#include "warpspec/attention/fp8_layout.hpp"
#include "warpspec/attention/mainloop.cuh"
#include "warpspec/attention/seqlen.cuh"
#include "warpspec/hopper/convert.cuh"

namespace warpspec::attention_impl {

template <AttentionConfig kCfg>
struct DirectEpilogue {
  using ML = Mainloop<kCfg>;
  using OutT = __nv_bfloat16;
  static constexpr int kHeadDim = ML::kHeadDim;
  static constexpr int kBlockM = kCfg.shape.block_m();
  static constexpr int kGroups = kHeadDim / 16;  // 16-column groups of a row
  static_assert(ML::Ops::kOutDType == DType::kBF16, "FP8 kernels write bf16 O");
  static_assert(fp8_o_column(3, fp8_o_register(2, 1, 2)) == 16 * 2 + 4 * 3 + 2, "o register map");

  // Row `row` of the tile (from the sequence's first row), column 0, of this work head.
  __device__ __forceinline__ static OutT* o_row(const AttentionParams& p, const schedule::AttentionWork& w,
                                               const SeqInfo& sq, int row) {
    return static_cast<OutT*>(p.o) + sq.q_batch * p.o_stride_b + w.head * p.o_stride_h +
           int64_t(sq.q_offset + row) * p.o_stride_s;
  }

  __device__ __forceinline__ static void store_lse(const AttentionParams& p, const schedule::AttentionWork& w,
                                                   const SeqInfo& sq, int row, float value) {
    if (p.lse != nullptr && row < sq.seqlen_q)
      p.lse[sq.q_batch * p.lse_stride_b + w.head * p.lse_stride_h + int64_t(sq.q_offset + row) * p.lse_stride_s] =
          value;
  }

  template <class Ctx>
  __device__ __forceinline__ static void store_o(Ctx& c, int wg, const typename ML::Tile& tile,
                                                 float (&o)[kHeadDim / 2], typename ML::Softmax& sm) {
    const AttentionParams& p = c.p;
    const schedule::AttentionWork& w = tile.w;
    const SeqInfo& sq = tile.sq;
    const int t = threadIdx.x % hopper::kWarpgroupSize;
    const int warp = t / 32, g = (t % 32) / 4, q = t % 4;
    float inv[2], lse[2];
    sm.finalize(inv, lse, -INFINITY);
    const float v_descale = ML::Descale::v(p, w);
    inv[0] *= v_descale;
    inv[1] *= v_descale;
    // Every warp's wgmmas (the last readers of this warpgroup's Q rows) are waited on.
    hopper::named_barrier_sync(epilogue_barrier(kCfg.shape.consumers, wg), hopper::kWarpgroupSize);
    if (t == 0) ML::QRel::after_store(ML::q_empty(c, tile.q_iter));
    const int row0 = w.m_block * kBlockM + 64 * wg + 16 * warp + g;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + 8 * h;
      if (row < sq.seqlen_q) {
        OutT* out = o_row(p, w, sq, row) + 4 * q;
#pragma unroll
        for (int cg = 0; cg < kGroups; ++cg) {
          if (16 * cg + 4 * q >= p.head_dim) break;  // whole groups of 4 (head_dim % 16 == 0)
          const float s = inv[h];
          uint2 v;
          v.x = hopper::pack2<OutT>(o[fp8_o_register(cg, h, 0)] * s, o[fp8_o_register(cg, h, 1)] * s);
          v.y = hopper::pack2<OutT>(o[fp8_o_register(cg, h, 2)] * s, o[fp8_o_register(cg, h, 3)] * s);
          *reinterpret_cast<uint2*>(out + 16 * cg) = v;
        }
      }
      if (q == 0) store_lse(p, w, sq, row, lse[h]);
    }
  }

  // Every tile's O goes straight from registers (no split-KV partials for FP8).
  __device__ __forceinline__ static bool stores_o(const AttentionParams&) { return true; }
  template <class Ctx>
  __device__ __forceinline__ static void store(Ctx& c, int wg, const typename ML::Tile& tile,
                                               float (&o)[kHeadDim / 2], typename ML::Softmax& sm) {
    store_o(c, wg, tile, o, sm);
  }

  // A tile none of whose rows sees a key: O = 0 and LSE = −inf for this warpgroup's
  // rows, plain 16-byte stores. Rows past the sequence are not written.
  __device__ __forceinline__ static void store_zero(const AttentionParams& p, int wg, const schedule::AttentionWork& w,
                                                    const SeqInfo& sq) {
    const int t = threadIdx.x % hopper::kWarpgroupSize;
    const int chunks = p.head_dim / 8;
    const int row_base = w.m_block * kBlockM + 64 * wg;
    const int rows = min(64, sq.seqlen_q - row_base);
    if (rows <= 0) return;
#pragma unroll 1
    for (int idx = t; idx < rows * chunks; idx += hopper::kWarpgroupSize)
      *reinterpret_cast<uint4*>(o_row(p, w, sq, row_base + idx / chunks) + (idx % chunks) * 8) = make_uint4(0, 0, 0, 0);
    if (t < rows) store_lse(p, w, sq, row_base + t, -INFINITY);
  }
};

}  // namespace warpspec::attention_impl
