#pragma once
// The split-KV epilogue: a work tile that covers one share of its query tile's key
// blocks (schedule/split_kv.hpp) writes fp32 O normalised by its own row sums and its
// own natural-log LSE to the partial buffers (AttentionParams::combine.o_partial, lse_partial);
// the tile's last share (split_combine.cuh) or the combine kernel (combine.cuh) merges
// the splits. No sink here: it joins once, in the merge. A share that sees no key
// writes O = 0 and LSE = −inf (weight zero).
//
// Stores go straight from the accumulator registers (two adjacent fp32 columns per
// register pair, 8-byte stores): no shared-memory staging, so Q's buffer never waits for
// a store (q_release.cuh). Partials are small next to
// the K/V they summarise (split-KV runs when seqlen_q is short and the cache long).
#include "warpspec/attention/mainloop.cuh"
#include "warpspec/attention/pack_gqa.cuh"
#include "warpspec/attention/seqlen.cuh"
#include "warpspec/attention/softmax.cuh"
#include "warpspec/attention/split_combine.cuh"
#include "warpspec/hopper/mbarrier.cuh"
#include "warpspec/hopper/warp.cuh"

namespace warpspec::attention_impl {

template <AttentionConfig kCfg>
struct PartialEpilogue {
  using ML = Mainloop<kCfg>;
  static constexpr int kHeadDim = ML::kHeadDim;
  static constexpr int kBlockM = kCfg.shape.block_m();
  static constexpr bool kPack = packs_gqa(kCfg.shape);  // else the unpacked identity (config.hpp)

  // Tile row `row`'s partial O (its position and query head: pack_gqa.cuh; the
  // workspace is laid out by query head, so the combine never knows), split w.split.
  __device__ __forceinline__ static float* o_row(const AttentionParams& p, const schedule::AttentionWork& w,
                                                const SeqInfo& sq, int row) {
    const CombineParams& c = p.combine;
    return c.o_partial + w.split * c.op_stride_split + sq.q_batch * c.op_stride_b +
           PackGqa::head<kPack>(p, w.head, row) * c.op_stride_h + int64_t(sq.q_offset + PackGqa::position<kPack>(p, row)) * c.op_stride_s;
  }
  __device__ __forceinline__ static void store_lse(const AttentionParams& p, const schedule::AttentionWork& w,
                                                   const SeqInfo& sq, int row, float value) {
    const int pos = PackGqa::position<kPack>(p, row);
    const CombineParams& c = p.combine;
    if (pos < sq.seqlen_q)
      c.lse_partial[w.split * c.lp_stride_split + sq.q_batch * c.lp_stride_b +
                    PackGqa::head<kPack>(p, w.head, row) * c.lp_stride_h + int64_t(sq.q_offset + pos) * c.lp_stride_s] = value;
  }

  template <class Ctx>
  __device__ __forceinline__ static void store(Ctx& c, int wg, const typename ML::Tile& tile,
                                               float (&o)[kHeadDim / 2], typename ML::Softmax& sm) {
    const AttentionParams& p = c.p;
    const schedule::AttentionWork& w = tile.w;
    const SeqInfo& sq = tile.sq;
    const int t = threadIdx.x % hopper::kWarpgroupSize;
    const int warp = t / 32, g = (t % 32) / 4, q = t % 4;
    float inv[2], lse[2];
    const float no_sink[2] = {-INFINITY, -INFINITY};
    sm.finalize(inv, lse, no_sink);
    // Every warp's wgmmas (which read this warpgroup's Q rows) have been waited on: where
    // Q goes back after the store (q_release.cuh: head dim 192), it goes back now.
    hopper::named_barrier_sync(epilogue_barrier(kCfg.shape.consumers, wg), hopper::kWarpgroupSize);
    if (t == 0) ML::QRel::after_store(ML::q_empty(c, tile.q_iter));
    const int row_base = w.m_block * kBlockM + 64 * wg + 16 * warp + g;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row_base + 8 * h;
      if (PackGqa::position<kPack>(p, row) < sq.seqlen_q) {
        float* dst = o_row(p, w, sq, row);
#pragma unroll
        for (int j = 0; j < kHeadDim / 8; ++j) {
          const int col = 8 * j + 2 * q;
          const int i = 4 * j + 2 * h;
          if (col < p.head_dim)
            *reinterpret_cast<float2*>(dst + col) = make_float2(o[i] * inv[h], o[i + 1] * inv[h]);
        }
        if (q == 0) store_lse(p, w, sq, row, lse[h]);
      }
    }
    SplitCombine<kCfg>::arrive(p, wg, w, sq);
  }

  // A share with no visible key: O = 0, LSE = −inf for this warpgroup's rows.
  __device__ __forceinline__ static void store_zero(const AttentionParams& p, int wg, const schedule::AttentionWork& w,
                                                    const SeqInfo& sq) {
    const int t = threadIdx.x % hopper::kWarpgroupSize;
    const int chunks = p.head_dim / 4;  // float4s per row
    const int row_base = w.m_block * kBlockM + 64 * wg;
    const int rows = min(64, PackGqa::rows<kPack>(p, sq.seqlen_q) - row_base);
#pragma unroll 1
    for (int idx = t; idx < rows * chunks; idx += hopper::kWarpgroupSize)
      *reinterpret_cast<float4*>(o_row(p, w, sq, row_base + idx / chunks) + (idx % chunks) * 4) =
          make_float4(0.f, 0.f, 0.f, 0.f);
    if (t < rows) store_lse(p, w, sq, row_base + t, -INFINITY);
    SplitCombine<kCfg>::arrive(p, wg, w, sq);  // this share counts too
  }
};

}  // namespace warpspec::attention_impl
