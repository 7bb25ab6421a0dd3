#pragma once
// FP8 block scaling (DeepSeek-V3 §3.3; DeepGEMM's layout): A's rows carry one fp32 scale
// per 128 K (1 x 128 blocks), B one per 128 x 128 block. A k-block of the FP8 GEMM is 128
// K (one SW128 row of 8-bit values), so each k-block's partial product, which the FP8
// consumer (mma_fp8.cuh) promotes into the fp32 accumulator anyway, is multiplied by its
// scales as it is promoted: acc += tmp · (s_a[row, kb] · s_b[kb, nb]). The product's
// scales then never reach the epilogue.
//
// Where the scales come from: each consumer thread loads its own, from global memory
// (ld.global.nc), two k-blocks ahead: the two rows of A it holds (r and r + 8 of its m64
// fragment) and B's block of each 128-column part. begin_kblock() at k-block u's
// promotion takes the factors loaded at u - 2's and issues u + 2's loads, so their L2
// latency hides behind two k-blocks of wgmmas (one was not enough for row-major A scales,
// whose 8 rows a warp reads are 8 sectors: -4.8% against the shared ring there, +2.5%
// M-major; bench/NOTES.md v66); only a unit's first k-block waits for its loads (issued
// when the reader is made, before the unit's first stage wait). Nothing is shared: no
// ring, no barriers, no loader warp. Registers: 3 x (2 + kParts) values and 2 + kParts
// pointers a thread.
//
// (Until v66 a loader warp copied each k-block's scales into a shared ring of 3 slots by
// cp.async and the consumers waited on its barriers and released its slots: on the H200
// that ran block-scaled at 0.76-0.81 of tensor-wise at 8192^3, ncu putting 12% of the
// consumers' stall samples on the ring's waits; bench/NOTES.md v66.)
//
// Without block scales the consumer runs UnitScale: factors are a constant 1 and
// fmaf(tmp, 1, acc) is the plain add, so tensor- and row-wise calls carry none of this.
#include <type_traits>

#include "warpspec/gemm/config.hpp"
#include "warpspec/gemm/params.hpp"
#include "warpspec/schedule/stream_k.hpp"

namespace warpspec::gemm_impl {

template <int kParts, int kPartN, int kBlockM, int kBlockN>
struct BlockScales {
  static constexpr int kScaleBlock = 128;  // K per A scale; K and N per B scale
  static_assert(kPartN <= kScaleBlock && kScaleBlock % kPartN == 0, "a part lies in one column block");

  // Where a consumer thread's scales start for unit t (both readers): A's rows r and r + 8
  // of its m64 fragment (warp w of the warpgroup holds rows 16w + lane / 4 and + 8) and B's
  // column block of each part, at the unit's first k-block; the steps to the next k-block.
  __device__ __forceinline__ static void start(const GemmParams& p, const schedule::KWorkUnit& t, int wg,
                                               const float* (&a)[2], const float* (&bp)[kParts], int64_t& a_step,
                                               int64_t& b_step) {
    const BlockScaleParams& b = p.block_scale;
    const int lane = int(threadIdx.x) % 32, warp = (int(threadIdx.x) / 32) % 4;
    const int row = t.m_block * kBlockM + 64 * wg + 16 * warp + lane / 4;
    a[0] = b.a + int64_t(min(row, b.m_last)) * b.a_stride_m + int64_t(t.k_begin) * b.a_stride_k;
    a[1] = b.a + int64_t(min(row + 8, b.m_last)) * b.a_stride_m + int64_t(t.k_begin) * b.a_stride_k;
#pragma unroll
    for (int part = 0; part < kParts; ++part)
      bp[part] = b.b + int64_t(min((t.n_block * kBlockN + part * kPartN) / kScaleBlock, b.n_block_last)) * b.b_stride_n +
                 int64_t(t.k_begin) * b.b_stride_k;
    a_step = b.a_stride_k;
    b_step = b.b_stride_k;
  }

  // A consumer thread's scales for unit t, k-block by k-block in order from t.k_begin:
  // begin_kblock() once per k-block (before its factors are read), factor() any number
  // of times, end_kblock() after. Rows past M (TMA zero-filled them: their products are
  // 0) and column blocks past N read the last row or block, inside the tensors.
  // AheadReader: A's and B's factors loaded two k-blocks ahead, each thread its own.
  class AheadReader {
   public:
    __device__ __forceinline__ AheadReader(const GemmParams& p, const schedule::KWorkUnit& t, int wg) {
      start(p, t, wg, a_, b_, a_step_, b_step_);
      left_ = t.k_end - t.k_begin - 1;  // k-blocks after the one the pointers are at
      if (left_ >= 0) {  // an empty unit (k_begin == k_end) reads nothing
        load(next_);
        advance();
        load(after_);
      }
    }
    // At each k-block's start: its factors (loaded two k-blocks ago) in hand, the loads
    // of the k-block two ahead issued (past the unit's last, its last again: no branch
    // per load).
    __device__ __forceinline__ void begin_kblock() {
      cur_ = next_;
      next_ = after_;
      advance();
      load(after_);
    }
    // The factor of part `part`, row r (half 0) or r + 8 (half 1) of the thread's m64
    // fragment (warp w of the warpgroup holds rows 16w + lane / 4 and + 8).
    __device__ __forceinline__ float factor(int part, int half) const { return cur_.a[half] * cur_.b[part]; }
    __device__ __forceinline__ void end_kblock() const {}

   private:
    struct Factors {
      float a[2], b[kParts];
    };
    __device__ __forceinline__ void load(Factors& f) const {
#pragma unroll
      for (int h = 0; h < 2; ++h) f.a[h] = __ldg(a_[h]);
#pragma unroll
      for (int part = 0; part < kParts; ++part) f.b[part] = __ldg(b_[part]);
    }
    __device__ __forceinline__ void advance() {
      if (left_ > 0) {
        --left_;
#pragma unroll
        for (int h = 0; h < 2; ++h) a_[h] += a_step_;
#pragma unroll
        for (int part = 0; part < kParts; ++part) b_[part] += b_step_;
      }
    }
    const float* a_[2];
    const float* b_[kParts];
    int64_t a_step_, b_step_;
    int left_;
    Factors cur_, next_, after_;  // k-blocks u (being promoted), u + 1, u + 2
  };

  // BatchReader (the 128 x 128 tile): A's factors as AheadReader's; B's (one address for
  // the whole warp, which ptxas moves into a uniform register one k-block after its load,
  // stalling there: ncu, bench/NOTES.md stop 52) from a batch of 32 k-blocks' B scales, one
  // a lane, loaded 32 k-blocks ahead and read by shuffle (v68: +6.3% at 8192^3). The
  // 128 x 256 tile (kParts 2) has no registers for it and keeps AheadReader.
  class BatchReader {
   public:
    __device__ __forceinline__ BatchReader(const GemmParams& p, const schedule::KWorkUnit& t, int wg) {
      start(p, t, wg, a_, b_, a_step_, b_step_);
      last_ = t.k_end - t.k_begin - 1;  // the unit's last k-block, from its first
      i_ = 0;                           // the k-block begun next
      if (last_ >= 0) {  // an empty unit (k_begin == k_end) reads nothing
        load_a(next_);
        if (last_ >= 1) advance_a();
        load_a(after_);
        load_b(batch_, 0);
        load_b(batch_next_, 32);
      }
    }
    // At each k-block's start: A's factors (loaded two k-blocks ago) in hand, the loads
    // of the k-block two ahead issued; B's factor from the lane of the batch that holds
    // it (a batch: 32 k-blocks' B scales, one a lane, loaded 32 k-blocks ahead).
    __device__ __forceinline__ void begin_kblock() {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        cur_[h] = next_[h];
        next_[h] = after_[h];
      }
      if (i_ + 2 <= last_) advance_a();  // A's pointers at k-block min(i_ + 2, last_)
      load_a(after_);
      if ((i_ & 31) == 0 && i_ > 0) {
#pragma unroll
        for (int part = 0; part < kParts; ++part) batch_[part] = batch_next_[part];
        load_b(batch_next_, i_ + 32);
      }
#pragma unroll
      for (int part = 0; part < kParts; ++part) cur_b_[part] = __shfl_sync(0xffffffffu, batch_[part], i_ & 31);
      ++i_;
    }
    // The factor of part `part`, row r (half 0) or r + 8 (half 1) of the thread's m64
    // fragment (warp w of the warpgroup holds rows 16w + lane / 4 and + 8).
    __device__ __forceinline__ float factor(int part, int half) const { return cur_[half] * cur_b_[part]; }
    __device__ __forceinline__ void end_kblock() const {}

   private:
    __device__ __forceinline__ void load_a(float (&f)[2]) const {
#pragma unroll
      for (int h = 0; h < 2; ++h) f[h] = __ldg(a_[h]);
    }
    // Lane l: k-block `first` + l of the unit (past its last: the last), every part.
    __device__ __forceinline__ void load_b(float (&f)[kParts], int first) const {
      const int k = min(first + int(threadIdx.x) % 32, last_);
#pragma unroll
      for (int part = 0; part < kParts; ++part) f[part] = __ldg(b_[part] + int64_t(k) * b_step_);
    }
    __device__ __forceinline__ void advance_a() {
#pragma unroll
      for (int h = 0; h < 2; ++h) a_[h] += a_step_;
    }
    const float* a_[2];
    const float* b_[kParts];  // B's column block of each part, at the unit's first k-block
    int64_t a_step_, b_step_;
    int last_, i_;
    float cur_[2], next_[2], after_[2];  // A's factors of k-blocks u, u + 1, u + 2
    float batch_[kParts], batch_next_[kParts], cur_b_[kParts];
  };

  using Reader = std::conditional_t<kParts == 1, BatchReader, AheadReader>;
};

// No block scales (tensor- or row-wise, applied in the epilogue): the Reader's calls,
// doing nothing.
struct UnitScale {
  __device__ __forceinline__ UnitScale(const GemmParams&, const schedule::KWorkUnit&, int) {}
  __device__ __forceinline__ UnitScale() = default;
  __device__ __forceinline__ void begin_kblock() const {}
  __device__ __forceinline__ float factor(int, int) const { return 1.0f; }
  __device__ __forceinline__ void end_kblock() const {}
};

}  // namespace warpspec::gemm_impl
