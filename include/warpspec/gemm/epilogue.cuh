#pragma once
// GEMM epilogue: D = alpha·acc + beta·C through shared memory and TMA stores.
//
// The tile's columns go out in chunks of 128 bytes per row (kEpiCols columns): one
// SW128 box. Each consumer warpgroup writes its 64 rows of a chunk into a chunk
// buffer and one of its threads stores them with TMA. Two chunk buffers alternate.
//
// beta == 0: C is never read. Before a warpgroup writes buffer b again, its storing
//   thread waits until the store issued from b kEpiStages chunks ago has read it
//   (wait_group.read kEpiStages-1), and a named barrier tells the warpgroup.
// beta != 0: the epilogue producer warp TMA-loads the C chunk (all 128 rows) into the
//   buffer; each warpgroup waits for it, reads C and writes D in place, stores, and
//   its storing thread releases the buffer once the store has read it. The two
//   warpgroups' halves are independent, so each has its own named barrier.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "warpspec/gemm/config.hpp"
#include "warpspec/gemm/params.hpp"
#include "warpspec/hopper/tma.cuh"
#include "warpspec/hopper/warp.cuh"
#include "warpspec/pipeline.cuh"

namespace warpspec::gemm_impl {

// Named barrier ids: 0 is __syncthreads; one per consumer warpgroup's epilogue.
enum NamedBarrier : uint32_t { kEpilogueBarrier0 = 1 };

template <class T>
__device__ __forceinline__ float to_float(T v) {
  return static_cast<float>(v);
}

// Two adjacent output elements: what one thread writes per accumulator pair.
template <class T>
struct PairOf;
template <>
struct PairOf<__nv_bfloat16> {
  using type = __nv_bfloat162;
  __device__ __forceinline__ static type make(float a, float b) { return __floats2bfloat162_rn(a, b); }
};
template <>
struct PairOf<__half> {
  using type = __half2;
  __device__ __forceinline__ static type make(float a, float b) { return __floats2half2_rn(a, b); }
};

template <int kBlockM, int kBlockN, int kEpiStages, class TOut>
struct Epilogue {
  static constexpr int kEpiCols = kEpiRowBytes / int(sizeof(TOut));
  static constexpr int kChunks = kBlockN / kEpiCols;
  static constexpr int kChunkBytes = kBlockM * kEpiRowBytes;
  static constexpr uint32_t kLoadTxBytes = kChunkBytes;  // the C box: block_m rows x 128 B
  static_assert(kBlockN % kEpiCols == 0, "chunks must tile the block");
  static_assert(sizeof(TOut) == 2 || sizeof(TOut) == 4, "output is 16- or 32-bit");

  struct Storage {
    alignas(1024) uint8_t chunk[kEpiStages][kChunkBytes];
  };
  using Pipe = Pipeline<kEpiStages>;
  using State = PipelineState<kEpiStages>;

  // Epilogue producer (one thread): C chunks of one tile, only when beta != 0.
  __device__ __forceinline__ static void load(const GemmParams& p, Pipe& pipe, State& st, Storage& s, int m_block,
                                              int n_block, int l) {
    const int m0 = m_block * kBlockM;
    const int n0 = n_block * kBlockN;
    const int lc = l * p.c_l_mul;
#pragma unroll 1
    for (int j = 0; j < kChunks; ++j) {
      pipe.producer_acquire(st);
      pipe.producer_expect_tx(st, kLoadTxBytes);
      hopper::tma_load(s.chunk[st.index], &p.map_c, pipe.full_barrier(st), n0 + j * kEpiCols, m0, lc);
      st.advance();
    }
  }

  // Consumer warpgroup `wg`: write its 64 rows of the tile. `storer` is one thread of
  // the warpgroup, the same every tile (bulk groups are per thread).
  __device__ __forceinline__ static void store(const GemmParams& p, Pipe& pipe, State& st, Storage& s, int wg,
                                               int m_block, int n_block, int l, const float (&acc)[kBlockN / 2]) {
    const int t = threadIdx.x % 128;
    const bool storer = t == 0;
    const int warp = t / 32, lane = t % 32, g = lane / 4, q = lane % 4;
    const bool load_c = p.beta != 0.0f;
    const uint32_t barrier = kEpilogueBarrier0 + wg;
    const int m0 = m_block * kBlockM + 64 * wg;
    const int n0 = n_block * kBlockN;
#pragma unroll
    for (int j = 0; j < kChunks; ++j) {
      uint8_t* buf = s.chunk[st.index] + wg * 64 * kEpiRowBytes;
      if (load_c) {
        pipe.consumer_wait(st);
      } else {
        if (storer) hopper::tma_store_wait_read<kEpiStages - 1>();
        hopper::named_barrier_sync(barrier, 128);
      }
      // Accumulator register i holds row 16·warp + g + 8·((i>>1)&1), column
      // 8·(i>>2) + 2q + (i&1) (PTX wgmma D fragment). This chunk's registers are
      // those whose column falls in [j·kEpiCols, (j+1)·kEpiCols).
#pragma unroll
      for (int c8 = 0; c8 < kEpiCols / 8; ++c8) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int i = 4 * (j * kEpiCols / 8 + c8) + 2 * h;
          const int row = 16 * warp + g + 8 * h;  // row & 7 == g: the SW128 XOR term
          const int byte = (8 * c8 + 2 * q) * int(sizeof(TOut));
          uint8_t* dst = buf + row * kEpiRowBytes + ((((byte >> 4) ^ g) << 4) | (byte & 15));
          float v0 = p.alpha * acc[i], v1 = p.alpha * acc[i + 1];
          if constexpr (sizeof(TOut) == 4) {
            if (load_c) {
              const float2 c = *reinterpret_cast<const float2*>(dst);
              v0 += p.beta * c.x;
              v1 += p.beta * c.y;
            }
            *reinterpret_cast<float2*>(dst) = make_float2(v0, v1);
          } else {
            using Pair = typename PairOf<TOut>::type;
            if (load_c) {
              const Pair c = *reinterpret_cast<const Pair*>(dst);
              v0 += p.beta * to_float(c.x);
              v1 += p.beta * to_float(c.y);
            }
            *reinterpret_cast<Pair*>(dst) = PairOf<TOut>::make(v0, v1);
          }
        }
      }
      const int chunk_n0 = n0 + j * kEpiCols;
      if (p.d_ragged && chunk_n0 + kEpiCols > p.n) {
        // The chunk holding the ragged row end: copy the in-bounds part from shared
        // memory with plain stores (a TMA store would spill up to 16 bytes past it).
        hopper::named_barrier_sync(barrier, 128);
        store_ragged(p, buf, m0, chunk_n0, l, t);
        hopper::named_barrier_sync(barrier, 128);  // all reads of `buf` done before it is reused
        if (storer && load_c) pipe.consumer_release(st);
      } else {
        hopper::fence_proxy_async_smem();
        hopper::named_barrier_sync(barrier, 128);
        if (storer) {
          hopper::tma_store(&p.map_d, buf, chunk_n0, m0, l);
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
  }

  // One warpgroup's 64 rows of a chunk, from the swizzled buffer to global memory,
  // columns [chunk_n0, min(chunk_n0 + kEpiCols, n)). Consecutive threads take
  // consecutive columns of a row, so global writes coalesce.
  __device__ __forceinline__ static void store_ragged(const GemmParams& p, const uint8_t* buf, int m0, int chunk_n0,
                                                      int l, int t) {
    TOut* d = static_cast<TOut*>(p.d) + int64_t(l) * p.d_batch_stride;
#pragma unroll 1
    for (int idx = t; idx < 64 * kEpiCols; idx += 128) {
      const int r = idx / kEpiCols, c = idx % kEpiCols;
      const int row = m0 + r, col = chunk_n0 + c;
      if (row < p.m && col < p.n) {
        const int byte = c * int(sizeof(TOut));
        const TOut v = *reinterpret_cast<const TOut*>(buf + r * kEpiRowBytes + ((((byte >> 4) ^ (r & 7)) << 4) | (byte & 15)));
        d[int64_t(row) * p.ldd + col] = v;
      }
    }
  }

  // Before the CTA exits: the last stores must have read shared memory.
  __device__ __forceinline__ static void store_tail() {
    if (threadIdx.x % 128 == 0) hopper::tma_store_wait<0>();
  }
};

}  // namespace warpspec::gemm_impl
