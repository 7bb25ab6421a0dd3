#pragma once
// GEMM epilogue: D = alpha·acc + beta·C (or, fused, act(alpha·scales·acc + bias + beta·C))
// through shared memory and TMA stores. What happens to each element before it is rounded
// is the configuration's epilogue op (gemm/epilogue_ops.cuh); this file only moves data.
//
// The tile's columns go out in chunks of 128 bytes per row (kEpiCols columns): one
// SW128 box. Each consumer warpgroup writes its 64 rows of a chunk into a chunk
// buffer and one of its threads stores them with TMA. kEpiStages chunk buffers
// rotate (the tile configuration's epi_stages).
//
// beta == 0: C is never read. Before a warpgroup writes buffer b again, its storing
//   thread waits until the store issued from b kEpiStages chunks ago has read it
//   (wait_group.read kEpiStages-1), and a named barrier tells the warpgroup.
// beta != 0: the epilogue producer warp TMA-loads the C chunk (all 128 rows) into the
//   buffer; each warpgroup waits for it, reads C and writes D in place, stores, and
//   its storing thread releases the buffer once the store has read it. The two
//   warpgroups' halves are independent, so each has its own named barrier.
#include "warpspec/gemm/config.hpp"
#include "warpspec/gemm/epilogue_ops.cuh"
#include "warpspec/gemm/params.hpp"
#include "warpspec/hopper/convert.cuh"
#include "warpspec/hopper/fragment.cuh"
#include "warpspec/hopper/smem.cuh"
#include "warpspec/hopper/tma.cuh"
#include "warpspec/hopper/warp.cuh"
#include "warpspec/pipeline.cuh"
#include "warpspec/schedule/stream_k.hpp"

namespace warpspec::gemm_impl {

// The chunk buffers: the same bytes for every D type (a chunk is 128 bytes a row), so
// epilogues of one tile writing different types share one storage type
// (gemm/epilogue_d16_or_fp32.cuh).
template <int kBlockM, int kEpiStages>
struct EpilogueChunkStorage {
  alignas(1024) uint8_t chunk[kEpiStages][kBlockM * kEpiRowBytes];
};

template <GemmConfig kCfg>
struct Epilogue {
  using TOut = hopper::element_t<kCfg.out>;
  static constexpr int kBlockM = kCfg.tile.block_m, kBlockN = kCfg.tile.block_n;
  static constexpr int kEpiStages = kCfg.tile.epi_stages;
  static constexpr int kEpiCols = kEpiRowBytes / int(sizeof(TOut));
  static constexpr int kChunks = kBlockN / kEpiCols;  // whole chunks
  // A width that is not a whole number of chunks ends in a tail chunk of kTailCols columns
  // (128 x 224: three chunks and 32 columns): written into the first kTailCols columns of a
  // chunk buffer, stored with plain stores (a TMA box of the chunk would write the next
  // tile's columns). C's box is loaded whole (the columns past the tile are read, unused).
  static constexpr int kTailCols = kBlockN % kEpiCols;
  static constexpr int kAllChunks = kChunks + (kTailCols != 0 ? 1 : 0);
  static constexpr int kChunkBytes = kBlockM * kEpiRowBytes;
  static constexpr uint32_t kLoadTxBytes = kChunkBytes;  // the C box: block_m rows x 128 B
  static_assert(kTailCols % 8 == 0 && (kTailCols == 0 || kCfg.epilogue == EpilogueKind::kLinear),
                "a tail chunk is whole 8-column fragment groups, on the linear epilogue");
  static_assert(sizeof(TOut) == 2 || sizeof(TOut) == 4 || (sizeof(TOut) == 1 && kCfg.epilogue == EpilogueKind::kFused),
                "output is 16- or 32-bit, or e4m3 through the fused epilogue's quantisation");
  static_assert((64 * kEpiRowBytes) % 1024 == 0, "each warpgroup's half of a chunk must stay SW128-aligned");
  // The op's columns a call: a chunk's, or for an e4m3 D half of its 128. The op holds a
  // call's values, addresses and column factors at once, beside the accumulators and, in the
  // FP8 kernels' carried loop, the next tile's MMAs in flight: with a whole 128-column e4m3
  // chunk's, ptxas serialized that loop's wgmmas (C7515); half is a 16-bit D's chunk.
  static constexpr int kOpCols = sizeof(TOut) == 1 ? kEpiCols / 2 : kEpiCols;
  static constexpr int kOpsPerChunk = kEpiCols / kOpCols;
  // The per-element math (an FP8 kernel's 16-bit D: bf16 or fp16 at run time, config.hpp).
  using Op = EpilogueOpOf<kCfg.epilogue, EpilogueChunkIo<TOut, kOpCols, writes_fp16_too(kCfg)>>;
  // The tail chunk's: its columns start at kChunks * kEpiCols = (kChunks * kEpiCols / kTailCols)
  // chunks of kTailCols.
  using TailOp = EpilogueOpOf<kCfg.epilogue, EpilogueChunkIo<TOut, (kTailCols != 0 ? kTailCols : kEpiCols)>>;

  using Storage = EpilogueChunkStorage<kBlockM, kEpiStages>;
  using Pipe = Pipeline<kEpiStages>;
  using State = PipelineState<kEpiStages>;

  // Epilogue producer (one thread): C chunks of one tile, only when beta != 0.
  __device__ __forceinline__ static void load(const GemmParams& p, Pipe& pipe, State& st, Storage& s,
                                              const schedule::KWorkUnit& t) {
    const int m0 = t.m_block * kBlockM;
    const int n0 = t.n_block * kBlockN;
    const int lc = t.l * p.c_l_mul;
#pragma unroll 1
    for (int j = 0; j < kAllChunks; ++j) {
      pipe.producer_acquire(st);
      pipe.producer_expect_tx(st, kLoadTxBytes);
      hopper::tma_load(s.chunk[st.index], &p.map_c, pipe.full_barrier(st), n0 + j * kEpiCols, m0, lc);
      st.advance();
    }
  }

  // Epilogue producer (one thread), the ping-pong schedule's C: the 64 tile rows from
  // `row0` into warpgroup `wg`'s half of each chunk buffer, through that warpgroup's own
  // ring (gemm/kernel_pingpong.cuh); map_c's box is 64 rows there (src/gemm/gemm.cpp).
  __device__ __forceinline__ static void load_rows(const GemmParams& p, Pipe& pipe, State& st, Storage& s, int wg,
                                                   int row0, const schedule::KWorkUnit& t) {
    const int m0 = t.m_block * kBlockM + row0;
    const int n0 = t.n_block * kBlockN;
    const int lc = t.l * p.c_l_mul;
#pragma unroll 1
    for (int j = 0; j < kAllChunks; ++j) {
      pipe.producer_acquire(st);
      pipe.producer_expect_tx(st, 64 * kEpiRowBytes);
      hopper::tma_load(s.chunk[st.index] + wg * 64 * kEpiRowBytes, &p.map_c, pipe.full_barrier(st),
                       n0 + j * kEpiCols, m0, lc);
      st.advance();
    }
  }

  // Consumer warpgroup `wg`: write its 64 rows of the tile. `storer` is one thread of
  // the warpgroup, the same every tile (bulk groups are per thread).
  __device__ __forceinline__ static void store(const GemmParams& p, Pipe& pipe, State& st, Storage& s, int wg,
                                               const schedule::KWorkUnit& t, const float (&acc)[kBlockN / 2]) {
    store_rows(p, pipe, st, s, wg, 64 * wg, t, acc);
  }

  // Warpgroup `wg` writes the 64 tile rows from `row0` through its half of the chunk
  // buffers and its named barrier (a ping-pong warpgroup calls it once per 64 rows of its
  // own tile; gemm/kernel_pingpong.cuh).
  __device__ __forceinline__ static void store_rows(const GemmParams& p, Pipe& pipe, State& st, Storage& s, int wg,
                                                    int row0, const schedule::KWorkUnit& t,
                                                    const float (&acc)[kBlockN / 2]) {
    const int tid = threadIdx.x % 128;
    const bool storer = tid == 0;
    const float beta = p.beta;  // read once (alpha: in the op): the shared stores below clobber memory
    const bool load_c = beta != 0.0f;
    const uint32_t barrier = kEpilogueBarrier0 + wg;
    const int m0 = t.m_block * kBlockM + row0;
    const int n0 = t.n_block * kBlockN;
    // The thread's first row: tile row 16·warp + g (hopper/fragment.cuh).
    Op op(p, int64_t(m0) + 16 * (tid / 32) + (tid % 32) / 4, int64_t(t.n_block) * kBlockN);
#pragma unroll
    for (int j = 0; j < kChunks; ++j) {
      uint8_t* buf = s.chunk[st.index] + wg * 64 * kEpiRowBytes;
      typename Op::ChunkValues cv = op.chunk_values(j * kOpsPerChunk);  // global loads in flight during the wait
      if (load_c) {
        pipe.consumer_wait(st);
      } else {
        if (storer) hopper::tma_store_wait_read<kEpiStages - 1>();
        hopper::named_barrier_sync(barrier, 128);
      }
      op.write(cv, j * kOpsPerChunk, hopper::smem_u32(buf), acc, beta, load_c);
#pragma unroll
      for (int part = 1; part < kOpsPerChunk; ++part) {  // the chunk's other op columns (an e4m3 D)
        cv = op.chunk_values(j * kOpsPerChunk + part);
        op.write(cv, j * kOpsPerChunk + part, hopper::smem_u32(buf), acc, beta, load_c);
      }
      const int chunk_n0 = n0 + j * kEpiCols;  // may wrap past 2^31 for chunks beyond n: TMA clips those
      // In 64 bits: near n = 2^31 an int32 chunk end wraps and would pass for in bounds.
      if (p.d_ragged && int64_t(t.n_block) * kBlockN + j * kEpiCols + kEpiCols > p.n) {
        // The chunk holding the ragged row end: copy the in-bounds part from shared
        // memory with plain stores (a TMA store would spill up to 16 bytes past it).
        hopper::named_barrier_sync(barrier, 128);
        store_ragged(p, buf, int64_t(t.m_block) * kBlockM + row0, int64_t(t.n_block) * kBlockN + j * kEpiCols, t.l,
                     tid);
        // This chunk commits no bulk group, so the next chunk's wait_read<kEpiStages - 1>
        // would let the group of the buffer it reuses still be reading: wait for all of
        // them here (ragged chunks only; back to back in the ping-pong schedule, where a
        // warpgroup's next 64 rows reuse the buffers at once). And the generic-proxy
        // writes of `buf` are ordered before the C load's async-proxy refill.
        if (storer) hopper::tma_store_wait_read<0>();
        hopper::fence_proxy_async_smem();
        hopper::named_barrier_sync(barrier, 128);  // all reads of `buf` done before it is reused
        if (storer && load_c) pipe.consumer_release(st);
      } else {
        hopper::fence_proxy_async_smem();
        hopper::named_barrier_sync(barrier, 128);
        if (storer) {
          hopper::tma_store(&p.map_d, buf, chunk_n0, m0, t.l);
          hopper::tma_store_commit();
          if (load_c) {
            // The C producer refills this buffer next: its reads must be done.
            hopper::tma_store_wait_read<0>();
            pipe.consumer_release(st);
          }
        }
      }
      st.advance();
    }
    op.finish();  // the tile's last word on its values (an e4m3 D's amax)
    if constexpr (kTailCols != 0) {  // the tail chunk: plain stores of its kTailCols columns
      uint8_t* buf = s.chunk[st.index] + wg * 64 * kEpiRowBytes;
      TailOp tail_op(p, int64_t(m0) + 16 * (tid / 32) + (tid % 32) / 4, int64_t(t.n_block) * kBlockN);
      const typename TailOp::ChunkValues cv = tail_op.chunk_values(kChunks * kEpiCols / kTailCols);
      if (load_c) {
        pipe.consumer_wait(st);
      } else {
        if (storer) hopper::tma_store_wait_read<kEpiStages - 1>();
        hopper::named_barrier_sync(barrier, 128);
      }
      tail_op.write(cv, kChunks * kEpiCols / kTailCols, hopper::smem_u32(buf), acc, beta, load_c);
      hopper::named_barrier_sync(barrier, 128);
      store_ragged<kTailCols>(p, buf, int64_t(t.m_block) * kBlockM + row0,
                              int64_t(t.n_block) * kBlockN + kChunks * kEpiCols, t.l, tid);
      // As a ragged chunk: no bulk group of its own, so wait for every earlier one before
      // the buffers rotate on; generic writes ordered before the C load's refill.
      if (storer) hopper::tma_store_wait_read<0>();
      hopper::fence_proxy_async_smem();
      hopper::named_barrier_sync(barrier, 128);
      if (storer && load_c) pipe.consumer_release(st);
      st.advance();
    }
  }

  // One warpgroup's 64 rows of a chunk, from the swizzled buffer to global memory,
  // columns [chunk_n0, min(chunk_n0 + kCols, n)) (kCols: a whole chunk, or the tail's).
  // Consecutive threads take consecutive columns of a row, so global writes coalesce.
  // Row and column origins in 64 bits: near 2^31 their int32 sums wrap.
  template <int kCols = kEpiCols>
  __device__ __forceinline__ static void store_ragged(const GemmParams& p, const uint8_t* buf, int64_t m0,
                                                      int64_t chunk_n0, int l, int tid) {
    TOut* d = static_cast<TOut*>(p.d) + int64_t(l) * p.d_batch_stride;
#pragma unroll 1
    for (int idx = tid; idx < 64 * kCols; idx += 128) {
      const int r = idx / kCols, c = idx % kCols;
      const int64_t row = m0 + r, col = chunk_n0 + c;
      if (row < p.m && col < p.n) {
        const uint32_t off = hopper::swizzle_offset_2d(hopper::TmaSwizzle::k128B, r, c * sizeof(TOut), kEpiRowBytes);
        d[row * p.ldd + col] = *reinterpret_cast<const TOut*>(buf + off);
      }
    }
  }

  // Before the CTA exits: the last stores must have read shared memory.
  __device__ __forceinline__ static void store_tail() {
    if (threadIdx.x % 128 == 0) hopper::tma_store_wait<0>();
  }
};

}  // namespace warpspec::gemm_impl
