#pragma once
// FP8 block scaling (DeepSeek-V3 §3.3; DeepGEMM's layout): A's rows carry one fp32 scale
// per 128 K (1 x 128 blocks), B one per 128 x 128 block. A k-block of the FP8 GEMM is 128
// K (one SW128 row of 8-bit values), so each k-block's partial product, which the FP8
// consumer (mma_fp8.cuh) promotes into the fp32 accumulator anyway, is multiplied by its
// scales as it is promoted: acc += tmp · (s_a[row, kb] · s_b[kb, nb]). The product's
// scales then never reach the epilogue.
//
// Where the scales come from: a loader warp of the producer warpgroup (warp 2) walks the
// same units as the TMA warp and, per k-block, copies the tile's kBlockM A scales and its
// kParts B scales (one per 128-column part) into a ring of kDepth slots by cp.async
// (4 bytes each, so any strides), each lane arriving on the slot's full barrier when its
// copies land (cp.async.mbarrier.arrive.noinc: 32 arrivals a phase). The consumers wait on
// it, read their factors with ld.shared at the promotion, and release the slot (every
// consumer thread arrives: no warp-level sync, whose divergence checks cost the wgmma
// loop its uniform registers). Nothing is held in registers ahead of use, and the copies
// run kDepth - 1 k-blocks ahead, so their L2 latency hides on any tile. (On the H200,
// scales loaded into registers at each k-block's start ran block scaling at 0.67-0.76 of
// tensor-wise on the 128 x 256 tile, which has no registers to load a k-block ahead.)
//
// Without block scales the loader warp idles and the consumer runs UnitScale: factors
// are a constant 1 and fmaf(tmp, 1, acc) is the plain add, so tensor- and row-wise calls
// carry none of this.
#include <cuda/ptx>

#include "warpspec/gemm/config.hpp"
#include "warpspec/gemm/params.hpp"
#include "warpspec/hopper/arch.cuh"
#include "warpspec/hopper/smem.cuh"
#include "warpspec/pipeline.cuh"
#include "warpspec/schedule/stream_k.hpp"

namespace warpspec::gemm_impl {

// kDepth 3: copies two k-blocks (~2 µs of wgmmas on the H200) ahead of their use; the
// 128 x 256 tile's ring (3 x 130 floats and 6 barriers) fits the shared memory its
// stages leave (under 2 KB).
template <int kParts, int kPartN, int kBlockM, int kBlockN, int kConsumerThreads, int kDepth = 3>
struct BlockScales {
  static constexpr int kScaleBlock = 128;  // K per A scale; K and N per B scale
  static_assert(kPartN <= kScaleBlock && kScaleBlock % kPartN == 0, "a part lies in one column block");
  static_assert(kBlockM % 32 == 0 && kParts <= 32, "whole lanes' shares of a slot");
  static constexpr int kSlot = kBlockM + kParts;  // floats per k-block: A's rows, then B's parts
  using Pipe = Pipeline<kDepth>;
  using State = PipelineState<kDepth>;

  struct Storage {
    float slot[kDepth][kSlot];
    PipelineStorage<kDepth> bars;
  };

  // One thread, with the kernel's other barriers: 32 cp.async arrivals fill a slot,
  // every consumer thread releases it.
  __device__ __forceinline__ static void init(Storage& s) { Pipe(s.bars).init(32, kConsumerThreads); }

  // The loader warp (all lanes), for unit `t`: its k-blocks' scales into the ring.
  // Rows past M (TMA zero-filled them: their products are 0) and column blocks past N
  // read the last row or block, inside the tensors.
  __device__ __forceinline__ static void load(const GemmParams& p, Storage& s, State& st,
                                              const schedule::KWorkUnit& t) {
    const BlockScaleParams& b = p.block_scale;
    Pipe pipe(s.bars);
    const int lane = int(threadIdx.x) % 32;
    const float* a_rows[kBlockM / 32];
#pragma unroll
    for (int j = 0; j < kBlockM / 32; ++j)
      a_rows[j] = b.a + int64_t(min(t.m_block * kBlockM + 32 * j + lane, b.m_last)) * b.a_stride_m;
    const float* b_col =
        b.b + int64_t(min((t.n_block * kBlockN + min(lane, kParts - 1) * kPartN) / kScaleBlock, b.n_block_last)) *
                  b.b_stride_n;
#pragma unroll 1
    for (int kb = t.k_begin; kb < t.k_end; ++kb) {
      pipe.producer_acquire(st);
      const uint32_t slot = hopper::smem_u32(s.slot[st.index]);
#pragma unroll
      for (int j = 0; j < kBlockM / 32; ++j)
        hopper::cp_async_4(slot + (32 * j + lane) * 4u, a_rows[j] + int64_t(kb) * b.a_stride_k);
      if (lane < kParts) hopper::cp_async_4(slot + (kBlockM + lane) * 4u, b_col + int64_t(kb) * b.b_stride_k);
      cuda::ptx::cp_async_mbarrier_arrive_noinc(pipe.full_barrier(st));
      st.advance();
    }
  }

  // A consumer thread's view, per unit (`st` persists across units like the stages').
  class Reader {
   public:
    __device__ __forceinline__ Reader(Storage& s, State& st, int wg) : s_(s), st_(st), wg_(wg) {}
    // At each k-block's start: wait until its scales have landed.
    __device__ __forceinline__ void begin_kblock() const { Pipe(s_.bars).consumer_wait(st_); }
    // The factor of part `part`, row r (half 0) or r + 8 (half 1) of the thread's m64
    // fragment (warp w of the warpgroup holds rows 16w + lane / 4 and + 8).
    __device__ __forceinline__ float factor(int part, int half) const {
      const int lane = int(threadIdx.x) % 32, warp = (int(threadIdx.x) / 32) % 4;
      const uint32_t slot = hopper::smem_u32(s_.slot[st_.index]);
      const int row = 64 * wg_ + 16 * warp + lane / 4 + 8 * half;
      return __uint_as_float(hopper::ld_shared_b32(slot + row * 4u)) *
             __uint_as_float(hopper::ld_shared_b32(slot + (kBlockM + part) * 4u));
    }
    // After the k-block's last factor was read: release its slot (every consumer thread
    // arrives: a warp-level sync first measured 1.5% slower on the 128 x 256 tile).
    __device__ __forceinline__ void end_kblock() const {
      Pipe(s_.bars).consumer_release(st_);
      st_.advance();
    }

   private:
    Storage& s_;
    State& st_;
    int wg_;
  };
};

// No block scales (tensor- or row-wise, applied in the epilogue): the Reader's calls,
// doing nothing.
struct UnitScale {
  template <class Storage, class State>
  __device__ __forceinline__ UnitScale(Storage&, State&, int) {}
  __device__ __forceinline__ void begin_kblock() const {}
  __device__ __forceinline__ float factor(int, int) const { return 1.0f; }
  __device__ __forceinline__ void end_kblock() const {}
};

}  // namespace warpspec::gemm_impl
