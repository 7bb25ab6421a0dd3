#pragma once
// FP8 promotion carried across tiles: the consumer loop of a data-parallel FP8 launch
// whose tensor pipe does not empty between one tile and the next.
//
// Per unit, MmaFp8Promote::run_overlapped keeps a wgmma group in flight from k-block to
// k-block, but drains at the unit's end (wait_group 0, the last promotion), then the
// epilogue stores acc, then the next unit's first k-block is issued: the tensor pipe idles
// for all of that. On the H200 that fixed cost a tile was worth 2.3-3.9 k-blocks' time
// against cuBLASLt at every K (bench/NOTES.md v41). Here the next tile's first k-block is
// issued into the free fragment before the old tile's last one is waited for, so it runs
// while the old tile's last promotion and its epilogue do.
//
//   tile t:  f0 <- k-block 0 (issued at the end of tile t-1, or before the loop)
//            acc = 0; k-blocks 1 .. K-1 as in run_overlapped, the fragments taking turns
//   K even:  the last k-block lands in f1: f0 <- tile t+1's k-block 0; wait_group 1;
//            acc += f1 (promotion); the epilogue stores acc (its shared-memory writes and
//            TMA issue) while f0 runs.
//   K odd:   the last k-block lands in f0: drained, stored, and only then tile t+1's
//            k-block 0 issued into f0 (no overlap; the fragments keep their names).
//
// What it needs, checked by eligible(): data-parallel units (every unit a whole tile,
// final, nothing to reduce), both warpgroups with rows (p.a_rows > 64), promotion every
// k-block, a one-part tile, no block scales. Other launches run the per-unit loop. Block
// scales would need their reader (block_scale.cuh, made per unit) to look ahead across
// tiles, and their instance of this loop cost as much build time as the first (one
// e4m3 kernel's compile, three runs each: 10 s without the loop, 17.5 s with it for tensor-
// and row-wise scales, 24 s with the block-scaled instance too), and the whole build must
// stay under two minutes; block-scaled launches keep the per-unit loop (bench/NOTES.md v45).
// For the same reason the loop is built into the kernels of a 16-bit D (bf16 or fp16, one kernel:
// config.hpp kernel_config) and e4m3 (FP8 output) only: the fp32 D kernels run the per-unit loop,
// 0-3% slower where the loop applies (v42 measured it at -0.2% to +3.2% on e4m3 -> bf16), and each
// builds in ~2 s less (v98).
//
// Stage protocol as run_overlapped's: stage u-1 released once wait_group shows its reads
// are done; every stage released exactly once, in order.
#include "warpspec/gemm/mma_fp8.cuh"
#include "warpspec/schedule/stream_k.hpp"

namespace warpspec::gemm_impl {

template <GemmConfig kCfg>
struct Fp8Carried {
  using Mma = MmaFp8Promote<kCfg>;
  static constexpr bool kBuilt = Mma::kParts == 1 && (kCfg.out == DType::kBF16 || kCfg.out == DType::kE4M3);  // above (bf16: fp16 too)

  __device__ __forceinline__ static bool eligible(const GemmParams& p) {
    const int k = p.sched.k_iters();
    return kBuilt && p.promote_every == 1 && p.a_rows > 64 && p.block_scale.a == nullptr &&
           p.sched.decomposition() == schedule::KDecomposition::kDataParallel && k >= 1;
  }

  // Consumer warpgroup `wg`, every unit of this CTA: the mainloop and the epilogue.
  template <class Epi, class Units, class EpiPipe, class EpiState>
  __device__ __forceinline__ static void run(const GemmParams& p, const Units& units, int wg,
                                             typename Mma::Pipe& pipe, typename Mma::State& st,
                                             typename Mma::Storage& s, EpiPipe& epi, EpiState& epi_st,
                                             typename Epi::Storage& es) {
    if constexpr (kBuilt) {
      loop<UnitScale, Epi>(p, units, wg, pipe, st, s, epi, epi_st, es);
    }
  }

 private:
  template <class Scale, class Epi, class Units, class EpiPipe, class EpiState>
  __device__ __forceinline__ static void loop(const GemmParams& p, const Units& units, int wg,
                                              typename Mma::Pipe& pipe, typename Mma::State& st,
                                              typename Mma::Storage& s, EpiPipe& epi, EpiState& epi_st,
                                              typename Epi::Storage& es) {
    Scale scale;
    const typename Mma::Loads::Cast cast;
    const bool releaser = cast.releaser();
    const int k_count = p.sched.k_iters();  // every unit's (data-parallel)
    auto t = units.first(blockIdx.x);
    if (!t.valid) return;
    float acc[Mma::kAcc], f0[Mma::kPartAcc], f1[Mma::kPartAcc];
    pipe.consumer_wait(st);
    Mma::issue_kblock(f0, s, st, wg);
    typename Mma::State prev = st;
    st.advance();
#pragma unroll 1
    while (true) {
#pragma unroll
      for (int i = 0; i < Mma::kAcc; ++i) acc[i] = 0.0f;
      int kt = 1;
#pragma unroll 1
      for (; kt + 2 <= k_count; kt += 2) {
        Mma::step(pipe, st, prev, s, wg, releaser, cast, scale, acc, f1, f0);
        Mma::step(pipe, st, prev, s, wg, releaser, cast, scale, acc, f0, f1);
      }
      const auto next = units.next(t);
      // Each way out of a tile ends in `continue` with k-block 0 of the next tile in f0, or
      // in return; the two drained ways share one epilogue (no wgmma group in flight on
      // either). Where two paths join with different groups in flight, ptxas serializes
      // every wgmma of the kernel (C7514).
      if (kt < k_count) {  // K even: the last k-block into f1
        Mma::step(pipe, st, prev, s, wg, releaser, cast, scale, acc, f1, f0);
        if (next.valid) {  // the next tile's k-block 0 into f0, under the promotion and the epilogue
          pipe.consumer_wait(st);
          Mma::issue_kblock(f0, s, st, wg);
          hopper::wgmma_wait_group<1>();
          Mma::promote(acc, f1, scale);
          if (releaser) cast.release(pipe, prev);
          if (t.in_bounds) Epi::store(p, epi, epi_st, es, wg, t, acc);
          prev = st;
          st.advance();
          t = next;
          continue;
        }
        hopper::wgmma_wait_group<0>();  // the last tile: drained
        Mma::promote(acc, f1, scale);
      } else {  // K odd: the last k-block is in f0, drained; the next tile's first is issued
                // after the epilogue (no overlap)
        hopper::wgmma_wait_group<0>();
        Mma::promote(acc, f0, scale);
      }
      if (releaser) cast.release(pipe, prev);
      if (t.in_bounds) Epi::store(p, epi, epi_st, es, wg, t, acc);
      if (!next.valid) return;
      pipe.consumer_wait(st);
      Mma::issue_kblock(f0, s, st, wg);
      prev = st;
      st.advance();
      t = next;
    }
  }
};

// The 16-bit consumers' stand-in: no loop across tiles.
struct NoCarriedLoop {
  static constexpr bool kBuilt = false;
  template <class Epi, class... Args>
  __device__ __forceinline__ static void run(Args&&...) {}
  __device__ __forceinline__ static bool eligible(const GemmParams&) { return false; }
};

}  // namespace warpspec::gemm_impl
