#pragma once
// Attention epilogue: normalise O, stage it in shared memory, store it with TMA (or,
// for a packed tile that runs past its sequence, with bounded 16-byte stores); write
// LSE with plain stores; and the zero tile for query blocks that see no key.
//
// O is staged over the tile's own Q slot (q_release.cuh: one of two at head dims 64 and
// 128, the only one at 192 and 256): each consumer warpgroup writes its 64 rows in the
// SW128 layout, so the O box of a warpgroup is one {64 columns, 64 rows} TMA box per
// column ({64, g, 64/g} under pack-GQA: g heads x 64/g positions, pack_gqa.cuh). The
// slot goes back to the producer (q_empty, one arrival per warpgroup) only once the
// store has read it (bulk wait_group.read), so a later tile's Q cannot overwrite O in
// flight: at once with one slot, at the next tile's first S with two.
#include "warpspec/attention/epilogue_partial.cuh"
#include "warpspec/attention/mainloop.cuh"
#include "warpspec/attention/pack_gqa.cuh"
#include "warpspec/attention/seqlen.cuh"
#include "warpspec/hopper/convert.cuh"
#include "warpspec/hopper/fragment.cuh"
#include "warpspec/hopper/smem.cuh"

namespace warpspec::attention_impl {

template <AttentionConfig kCfg>
struct Epilogue {
  using ML = Mainloop<kCfg>;
  using T = typename ML::T;
  static constexpr int kHeadDim = ML::kHeadDim;
  static constexpr int kBlockM = kCfg.shape.block_m();
  static constexpr bool kPack = packs_gqa(kCfg.shape);  // else the unpacked identity (config.hpp)
  static constexpr int kBoxCols = ML::kBoxCols;
  static constexpr int kCols = ML::kCols;

  // The sink logit of tile row `row`'s head in log2 units (−inf: none).
  __device__ __forceinline__ static float sink_log2(const AttentionParams& p, const schedule::AttentionWork& w,
                                                    int row) {
    return p.sink == nullptr ? -INFINITY : __ldg(p.sink + PackGqa::head<kPack>(p, w.head, row)) * 1.4426950408889634f;
  }

  // The start of tile row `row`'s O (its position and head: pack_gqa.cuh), row counted
  // from the sequence's first tile.
  __device__ __forceinline__ static T* o_at(const AttentionParams& p, const schedule::AttentionWork& w,
                                           const SeqInfo& sq, int row) {
    return static_cast<T*>(p.o) + sq.q_batch * p.o_stride_b + PackGqa::head<kPack>(p, w.head, row) * p.o_stride_h +
           int64_t(sq.q_offset + PackGqa::position<kPack>(p, row)) * p.o_stride_s;
  }

  __device__ __forceinline__ static void store_lse(const AttentionParams& p, const schedule::AttentionWork& w,
                                                   const SeqInfo& sq, int row, float value) {
    const int pos = PackGqa::position<kPack>(p, row);
    if (p.lse != nullptr && pos < sq.seqlen_q)
      p.lse[sq.q_batch * p.lse_stride_b + PackGqa::head<kPack>(p, w.head, row) * p.lse_stride_h +
            int64_t(sq.q_offset + pos) * p.lse_stride_s] = value;
  }

  template <class Ctx>
  __device__ __forceinline__ static void store(Ctx& c, int wg, const typename ML::Tile& tile,
                                               float (&o)[kHeadDim / 2], typename ML::Softmax& sm) {
    if constexpr (kCfg.shape.split_kv) {
      if (c.p.combine.o_partial != nullptr) {  // split-KV: this share's fp32 partial instead
        PartialEpilogue<kCfg>::store(c, wg, tile, o, sm);
        return;
      }
    }
    store_o(c, wg, tile, o, sm);
  }

  // Whether `store_o` is the store of this call's tiles (not split-KV's partials, whose
  // last share also merges them): the store that may run while the next tile's first S
  // wgmma is in flight (attention/kernel.cuh), as it needs few registers.
  __device__ __forceinline__ static bool stores_o(const AttentionParams& p) {
    return !kCfg.shape.split_kv || p.combine.o_partial == nullptr;
  }

  // The tile's normalised O through the staging buffer, and its LSE.
  template <class Ctx>
  __device__ __forceinline__ static void store_o(Ctx& c, int wg, const typename ML::Tile& tile,
                                                 float (&o)[kHeadDim / 2], typename ML::Softmax& sm) {
    const AttentionParams& p = c.p;
    const schedule::AttentionWork& w = tile.w;
    const SeqInfo& sq = tile.sq;
    const int t = threadIdx.x % hopper::kWarpgroupSize;
    const int warp = t / 32, g = (t % 32) / 4, q = t % 4;
    const uint32_t barrier = epilogue_barrier(kCfg.shape.consumers, wg);
    const int m0 = w.m_block * kBlockM;
    float inv[2], lse[2];
    {
      const int row0 = m0 + 64 * wg + 16 * warp + g;  // this thread's rows: row0, row0 + 8
      if constexpr (kPack) {
        const float sinks[2] = {sink_log2(p, w, row0), sink_log2(p, w, row0 + 8)};
        sm.finalize(inv, lse, sinks);
      } else {
        sm.finalize(inv, lse, sink_log2(p, w, row0));
      }
    }
    // Every warp's wgmmas (which read this warpgroup's rows of the tile's Q, where O is
    // staged) have been waited on.
    hopper::named_barrier_sync(barrier, hopper::kWarpgroupSize);
    // This warpgroup's rows of every column box: box b at b * kBlockM * 128 bytes.
    uint8_t* base = reinterpret_cast<uint8_t*>(ML::QRel::staging(c.s.tiles, tile.q_iter)) + 64 * wg * 128;
    const uint32_t base_addr = hopper::smem_u32(base);
    hopper::for_each_accum_pair_sw128<int(sizeof(T)), kHeadDim>(0, kBlockM * 128, [&](int i, uint32_t off) {
      const float s = inv[(i >> 1) & 1];
      hopper::st_shared_pair<T>(base_addr + off, o[i] * s, o[i + 1] * s);
    });
    if (!sq.template tile_spills<kBlockM, kPack>(p, m0)) {
      hopper::fence_proxy_async_smem();
      hopper::named_barrier_sync(barrier, hopper::kWarpgroupSize);
      if (t == 0) {
#pragma unroll
        for (int col = 0; col < kCols; ++col)
          hopper::tma_store(&p.map_o, base + col * (kBlockM * 128), col * kBoxCols, 0,
                            sq.q_offset + PackGqa::position<kPack>(p, m0 + 64 * wg), w.head, sq.q_batch);
        hopper::tma_store_commit();
        ML::QRel::after_tma_store(ML::q_empty(c, tile.q_iter));
      }
    } else {
      // A packed tile that runs past its sequence: the rows after it are the next
      // sequence's, so 16-byte stores of the rows inside it, read back from the SW128
      // staging (chunk k of row r at chunk k ^ (r % 8) of its 128-byte row).
      hopper::named_barrier_sync(barrier, hopper::kWarpgroupSize);
      const int chunks = p.head_dim / 8;
      const int rows = min(64, PackGqa::rows<kPack>(p, sq.seqlen_q) - (m0 + 64 * wg));
#pragma unroll 1
      for (int idx = t; idx < rows * chunks; idx += hopper::kWarpgroupSize) {
        const int r = idx / chunks, k = idx % chunks;
        const uint32_t src = base_addr + (k / 8) * (kBlockM * 128) + r * 128 + (((k % 8) ^ (r % 8)) * 16);
        *reinterpret_cast<uint4*>(o_at(p, w, sq, m0 + 64 * wg + r) + k * 8) = hopper::ld_shared_v4(src);
      }
      hopper::named_barrier_sync(barrier, hopper::kWarpgroupSize);  // every read of the staging is done
      if (t == 0) ML::QRel::after_store(ML::q_empty(c, tile.q_iter));
    }
    if (q == 0) {
#pragma unroll
      for (int h = 0; h < 2; ++h) store_lse(p, w, sq, m0 + 64 * wg + 16 * warp + g + 8 * h, lse[h]);
    }
  }

  // A tile none of whose rows sees a key: O = 0 and LSE = −inf (the sink, with one)
  // for this warpgroup's rows, plain 16-byte stores (rare: causal with seqlen_q >
  // seqlen_k, windows, empty sequences). Rows past the sequence are not written.
  __device__ __forceinline__ static void store_zero(const AttentionParams& p, int wg, const schedule::AttentionWork& w,
                                                    const SeqInfo& sq) {
    if constexpr (kCfg.shape.split_kv) {
      if (p.combine.o_partial != nullptr) {
        PartialEpilogue<kCfg>::store_zero(p, wg, w, sq);
        return;
      }
    }
    const int t = threadIdx.x % hopper::kWarpgroupSize;
    const int chunks = p.head_dim / 8;
    const int row_base = w.m_block * kBlockM + 64 * wg;
    const int rows = min(64, PackGqa::rows<kPack>(p, sq.seqlen_q) - row_base);
    if (rows <= 0) return;
#pragma unroll 1
    for (int idx = t; idx < rows * chunks; idx += hopper::kWarpgroupSize)
      *reinterpret_cast<uint4*>(o_at(p, w, sq, row_base + idx / chunks) + (idx % chunks) * 8) = make_uint4(0, 0, 0, 0);
    if (t < rows) {
      const float sink = sink_log2(p, w, row_base + t);
      store_lse(p, w, sq, row_base + t, sink == -INFINITY ? -INFINITY : sink * 0.6931471805599453f);
    }
  }
};

}  // namespace warpspec::attention_impl
