#pragma once
// Attention epilogue: normalise O, stage it in shared memory, store it with TMA; write
// LSE with plain stores; and the zero tile for query blocks that see no key.
//
// O is staged in Q's buffer: each consumer warpgroup writes its 64 rows over its own
// 64 rows of Q, which only its own (finished) wgmmas read, in the same SW128 layout,
// so the O box of a warpgroup is one {64 columns, 64 rows} TMA box per column. The
// buffer goes back to the producer (q_empty, one arrival per warpgroup) only once the
// store has read it (bulk wait_group.read), so the next tile's Q cannot overwrite O
// in flight.
#include "warpspec/attention/mainloop.cuh"
#include "warpspec/hopper/convert.cuh"
#include "warpspec/hopper/fragment.cuh"
#include "warpspec/hopper/smem.cuh"

namespace warpspec::attention_impl {

template <AttentionConfig kCfg>
struct Epilogue {
  using ML = Mainloop<kCfg>;
  using T = typename ML::T;
  static constexpr int kHeadDim = ML::kHeadDim;
  static constexpr int kBoxCols = ML::kBoxCols;
  static constexpr int kCols = ML::kCols;

  template <class Ctx>
  __device__ __forceinline__ static void store(Ctx& c, int wg, const schedule::AttentionWork& w,
                                               float (&o)[kHeadDim / 2], OnlineSoftmax<ML::kBlockN>& sm) {
    const AttentionParams& p = c.p;
    const int t = threadIdx.x % hopper::kWarpgroupSize;
    const int warp = t / 32, g = (t % 32) / 4, q = t % 4;
    const uint32_t barrier = kEpilogue0 + wg;
    float inv[2], lse[2];
    sm.finalize(inv, lse);
    // Every warp's wgmmas (which read this warpgroup's Q rows) have been waited on.
    hopper::named_barrier_sync(barrier, hopper::kWarpgroupSize);
    // This warpgroup's rows of every column box: box b at b * kBlockM * 128 bytes.
    uint8_t* base = reinterpret_cast<uint8_t*>(c.s.tiles.q) + 64 * wg * 128;
    const uint32_t base_addr = hopper::smem_u32(base);
    hopper::for_each_accum_pair_sw128<int(sizeof(T)), kHeadDim>(0, kBlockM * 128, [&](int i, uint32_t off) {
      const float s = inv[(i >> 1) & 1];
      hopper::st_shared_b32(base_addr + off, hopper::pack2<T>(o[i] * s, o[i + 1] * s));
    });
    hopper::fence_proxy_async_smem();
    hopper::named_barrier_sync(barrier, hopper::kWarpgroupSize);
    if (t == 0) {
#pragma unroll
      for (int col = 0; col < kCols; ++col)
        hopper::tma_store(&p.map_o, base + col * (kBlockM * 128), col * kBoxCols, w.m_block * kBlockM + 64 * wg,
                          w.head, w.batch);
      hopper::tma_store_commit();
      hopper::tma_store_wait_read<0>();
      hopper::mbarrier_arrive(&c.s.q_empty);
    }
    if (p.lse != nullptr && q == 0) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = w.m_block * kBlockM + 64 * wg + 16 * warp + g + 8 * h;
        if (row < p.seqlen_q)
          p.lse[w.batch * p.lse_stride_b + w.head * p.lse_stride_h + row * p.lse_stride_s] = lse[h];
      }
    }
  }

  // A tile none of whose rows sees a key: O = 0 and LSE = −inf for this warpgroup's
  // rows, plain 16-byte stores (rare: causal with seqlen_q > seqlen_k).
  __device__ __forceinline__ static void store_zero(const AttentionParams& p, int wg, const schedule::AttentionWork& w) {
    const int t = threadIdx.x % hopper::kWarpgroupSize;
    const int chunks = p.head_dim / 8;
    const int row_base = w.m_block * kBlockM + 64 * wg;
    T* o = static_cast<T*>(p.o) + w.batch * p.o_stride_b + w.head * p.o_stride_h;
#pragma unroll 1
    for (int idx = t; idx < 64 * chunks; idx += hopper::kWarpgroupSize) {
      const int row = row_base + idx / chunks;
      if (row < p.seqlen_q) *reinterpret_cast<uint4*>(o + row * p.o_stride_s + (idx % chunks) * 8) = make_uint4(0, 0, 0, 0);
    }
    if (p.lse != nullptr && t < 64 && row_base + t < p.seqlen_q)
      p.lse[w.batch * p.lse_stride_b + w.head * p.lse_stride_h + (row_base + t) * p.lse_stride_s] = -INFINITY;
  }
};

}  // namespace warpspec::attention_impl
