#pragma once
// The FP8 MMA consumer: wgmma m64nNk32 on e4m3/e5m2 tiles with two-level accumulation.
//
// Why two levels: Hopper's FP8 wgmma does not keep a full fp32 accumulator; it adds each
// product into the accumulator with reduced precision (DeepSeek-V3 §3.3.2 measured ~14
// bits kept), so over a long K the error grows with K. CUTLASS's default scheme (its
// fp8_accumulation helper), which DeepGEMM also follows: wgmma accumulates into a
// temporary fragment `tmp` for `promote_every` k-blocks (128 K each, one SW128 row), then
// the consumer waits for it and adds it into the fp32 main accumulator `acc` with
// ordinary FADDs, and restarts `tmp` (scale-d = 0). promote_every = 1 is the accurate
// default; use_fast_accum sets it past any K so promotion happens once, at the end.
//
// The price is registers. The 128 x 128 tile (acc 64) keeps two 64-register temporary
// fragments that take turns (run_overlapped: k-block u's wgmmas run while u-1's fragment is
// promoted), so the tensor pipe drains once per work unit instead of once per k-block. The
// wide tile (config.hpp, acc 128) has room for one: it multiplies its two 128-column halves
// one after the other into one 64-register tmp, each promoted as soon as it is done (run),
// and drains at every part.
// Loads and shared-memory layouts are the 16-bit mainloop's (gemm/mainloop.cuh).
//
// NOTES (H200, 8192^3 e4m3 -> bf16 against cuBLASLt, bench/NOTES.md v39-v40): draining every
// k-block, the 128 x 128 tile ran at 0.74 and the wide one at 0.83; runs of 16 k-blocks each
// drained once, 0.90; the loop-carried run_overlapped, 0.94; fast accumulation (no
// promotion), 0.96.
#include <type_traits>

#include "warpspec/gemm/block_scale.cuh"
#include "warpspec/gemm/config.hpp"
#include "warpspec/gemm/mainloop.cuh"
#include "warpspec/gemm/params.hpp"
#include "warpspec/hopper/wgmma.cuh"
#include "warpspec/pipeline.cuh"

namespace warpspec::gemm_impl {

template <GemmConfig kCfg>
struct MmaFp8Promote {
  using Loads = Mainloop<kCfg>;
  using TIn = typename Loads::TIn;
  using TB = hopper::element_t<kCfg.b_dtype()>;  // B's format: A's, or the other 8-bit one
  static constexpr int kBlockN = kCfg.tile.block_n;
  static constexpr int kAcc = kBlockN / 2;
  // The wgmma N: the whole tile up to 128; a 256-wide tile is multiplied as two 128-wide
  // parts that share one temporary fragment (acc 128 + tmp 64 registers), each part
  // promoted as soon as it is done. Such a tile promotes every k-block, fast
  // accumulation or not (one tmp cannot hold two parts across k-blocks).
  static constexpr int kPartN = kBlockN < 128 ? kBlockN : 128;
  static constexpr int kParts = kBlockN / kPartN;
  static constexpr int kPartAcc = kPartN / 2;
  static constexpr int kKSteps = Loads::kKSteps;
  static_assert(sizeof(TIn) == 1, "the FP8 consumer multiplies 8-bit inputs");
  static_assert(kKSteps == 4, "one k-block is 128 fp8 = four k32 wgmmas");
  static_assert(kBlockN % kPartN == 0 && kParts <= 2, "one or two parts");
  static_assert(kAcc + kPartAcc <= 192, "acc and tmp must leave registers for addressing (232 per consumer thread)");
  using Pipe = typename Loads::Pipe;
  using State = typename Loads::State;
  using Storage = typename Loads::Storage;
  static constexpr int kWarpgroupsPerStage = kConsumerWarpgroups;
  // Block scales (block_scale.cuh): each consumer thread loads its own factors, so the
  // consumer keeps nothing beside the stages.
  using Scales = BlockScales<kParts, kPartN, kCfg.tile.block_m, kBlockN>;
  using ConsumerStorage = typename Loads::ConsumerStorage;
  __device__ __forceinline__ static bool combine(int, float (&)[kAcc], ConsumerStorage&) { return true; }
  // The loop carried across tiles (gemm/mma_fp8_carried.cuh) runs this consumer's k-block steps.
  template <GemmConfig>
  friend struct Fp8Carried;

  // Consumer warpgroup `wg`: acc = A[rows 64wg..] · B over unit t's k-iterations
  // (block-scaled: each k-block's product times its scales, block_scale.cuh).
  // Pipeline protocol as the 16-bit consumer's (one wgmma group in flight between
  // promotions; stage k-1 released once stage k's wait shows its reads are done).
  // The loop is built twice, with and without block scales (one kernel still: the
  // choice is the runtime p.block_scale.a), so the tensor-wise loop has no scale code.
  __device__ __forceinline__ static void mma(const GemmParams& p, Pipe& pipe, State& st, Storage& s, int wg,
                                             const schedule::KWorkUnit& t, float (&acc)[kAcc], ConsumerStorage&) {
    if constexpr (kParts == 1) {
      if (p.block_scale.a != nullptr)
        run_overlapped<typename Scales::Reader>(p, pipe, st, s, wg, t, acc);
      else if (p.promote_every == 1)
        run_overlapped<UnitScale>(p, pipe, st, s, wg, t, acc);
      else
        run<UnitScale>(p, pipe, st, s, wg, t, acc);
    } else {
      if (p.block_scale.a != nullptr)
        run<typename Scales::Reader>(p, pipe, st, s, wg, t, acc);
      else
        run<UnitScale>(p, pipe, st, s, wg, t, acc);
    }
  }

 private:
  // One k-block's four wgmmas into `frag` (restarted), committed as one group.
  __device__ __forceinline__ static void issue_kblock(float (&frag)[kPartAcc], const Storage& s, const State& st,
                                                      int wg) {
    constexpr hopper::WgmmaOperandLayout la = Loads::layout_a(), lb = Loads::layout_b();
    const uint32_t a_base = hopper::smem_u32(s.a[st.index]);
    const uint32_t b_base = hopper::smem_u32(s.b[st.index]);
    hopper::wgmma_fence();
#pragma unroll
    for (int j = 0; j < kKSteps; ++j)
      hopper::mma_async<kPartN, TIn, hopper::Major::kK, hopper::Major::kK, TB>(frag, la.desc(a_base, j, 64 * wg),
                                                                                lb.desc(b_base, j, 0), j > 0);
    hopper::wgmma_commit_group();
  }

  // acc += frag x the k-block's factors, once frag's group is retired (the caller's
  // wait_group). The scales' reader goes through its k-blocks in order, as the promotions do.
  template <class Scale>
  __device__ __forceinline__ static void promote(float (&acc)[kAcc], float (&frag)[kPartAcc], Scale& scale) {
    scale.begin_kblock();
    hopper::wgmma_fence_operands(frag);
    add_scaled(acc, 0, frag, scale);
    hopper::wgmma_fence_operands(frag);
    scale.end_kblock();
  }

  // The promotion's arithmetic: part `part` of acc += frag x the k-block's factor of each
  // row. Registers 4j, 4j + 1 are row r, 4j + 2, 4j + 3 row r + 8 (m64 layout).
  template <class Scale>
  __device__ __forceinline__ static void add_scaled(float (&acc)[kAcc], int part, const float (&frag)[kPartAcc],
                                                    const Scale& scale) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const float f = scale.factor(part, half);  // 1 unless block-scaled
#pragma unroll
      for (int i = 2 * half; i < kPartAcc; i += 4) {
        acc[kPartAcc * part + i] = fmaf(frag[i], f, acc[kPartAcc * part + i]);
        acc[kPartAcc * part + i + 1] = fmaf(frag[i + 1], f, acc[kPartAcc * part + i + 1]);
      }
    }
  }

  // Promotion every k-block without draining the tensor pipe (one-part tiles, every scaling
  // but fast accumulation): two temporary fragments take turns, k-block u's wgmmas going
  // into one while u-1's, retired by wait_group 1, are added into acc from the other; the
  // pipe drains once, after the unit's last k-block. Registers: acc 64 + 2 x 64 on the
  // 128 x 128 tile. What ptxas accepts (no C7514 serialization, no spills): the two
  // fragments as two named arrays (one float[2][64] indexed by a parity spilled), the idle
  // warpgroup on a loop of its own (an idle test inside the loop made ptxas serialize the
  // wgmmas), and the loop's body two k-blocks long so each fragment keeps its name.
  // Stage u-1 is released once the wait shows its reads are done (bench/NOTES.md v39).
  // Mixed formats too: the loop is four k-block bodies, not the runs' 21.
  //
  // step: the next k-block (stage st) into `next`; then the one before it, in `done`,
  // promoted once retired, and its stage (prev) released.
  template <class Scale>
  __device__ __forceinline__ static void step(Pipe& pipe, State& st, State& prev, const Storage& s, int wg,
                                              bool releaser, const typename Loads::Cast& cast, Scale& scale,
                                              float (&acc)[kAcc], float (&next)[kPartAcc], float (&done)[kPartAcc]) {
    pipe.consumer_wait(st);
    issue_kblock(next, s, st, wg);
    hopper::wgmma_wait_group<1>();
    promote(acc, done, scale);
    if (releaser) cast.release(pipe, prev);
    prev = st;
    st.advance();
  }

  template <class Scale>
  __device__ __forceinline__ static void run_overlapped(const GemmParams& p, Pipe& pipe, State& st, Storage& s, int wg,
                                                        const schedule::KWorkUnit& t, float (&acc)[kAcc]) {
    Scale scale(p, t, wg);
    const typename Loads::Cast cast;
    const bool releaser = cast.releaser();
    const int k_count = t.k_end - t.k_begin;
#pragma unroll
    for (int i = 0; i < kAcc; ++i) acc[i] = 0.0f;
    if (k_count == 0) return;
    if (64 * wg >= p.a_rows) {  // idle warpgroup: every stage still waited for and released
#pragma unroll 1
      for (int kt = 0; kt < k_count; ++kt) {
        pipe.consumer_wait(st);
        if (releaser) cast.release(pipe, st);
        st.advance();
      }
      return;
    }
    float f0[kPartAcc], f1[kPartAcc];
    pipe.consumer_wait(st);
    issue_kblock(f0, s, st, wg);
    State prev = st;
    st.advance();
    int kt = 1;
#pragma unroll 1
    for (; kt + 2 <= k_count; kt += 2) {
      step(pipe, st, prev, s, wg, releaser, cast, scale, acc, f1, f0);
      step(pipe, st, prev, s, wg, releaser, cast, scale, acc, f0, f1);
    }
    if (kt < k_count) {
      step(pipe, st, prev, s, wg, releaser, cast, scale, acc, f1, f0);
      hopper::wgmma_wait_group<0>();
      promote(acc, f1, scale);
    } else {
      hopper::wgmma_wait_group<0>();
      promote(acc, f0, scale);
    }
    if (releaser) cast.release(pipe, prev);
  }

  template <class Scale>
  __device__ __forceinline__ static void run(const GemmParams& p, Pipe& pipe, State& st, Storage& s, int wg,
                                             const schedule::KWorkUnit& t, float (&acc)[kAcc]) {
    Scale scale(p, t, wg);
    constexpr hopper::WgmmaOperandLayout la = Loads::layout_a(), lb = Loads::layout_b();
    const typename Loads::Cast cast;
    const bool releaser = cast.releaser();
    const bool idle = 64 * wg >= p.a_rows;
    const int k_count = t.k_end - t.k_begin;
    const int promote_every = kParts == 1 ? p.promote_every : 1;
#pragma unroll
    for (int i = 0; i < kAcc; ++i) acc[i] = 0.0f;
    if (k_count == 0) return;
    float tmp[kPartAcc];
    State prev = st;
    int since = 0;  // k-blocks accumulated in tmp since the last promotion
#pragma unroll 1
    for (int kt = 0; kt < k_count; ++kt) {
      scale.begin_kblock();
      pipe.consumer_wait(st);
      const uint32_t a_base = hopper::smem_u32(s.a[st.index]);
      const uint32_t b_base = hopper::smem_u32(s.b[st.index]);
      if (!idle) {
#pragma unroll
        for (int part = 0; part < kParts; ++part) {
          hopper::wgmma_fence();
#pragma unroll
          for (int j = 0; j < kKSteps; ++j) {
            const uint64_t da = la.desc(a_base, j, 64 * wg);
            const uint64_t db = lb.desc(b_base, j, kPartN * part);
            hopper::mma_async<kPartN, TIn, hopper::Major::kK, hopper::Major::kK, TB>(tmp, da, db, since > 0 || j > 0);
          }
          hopper::wgmma_commit_group();
          if (++since >= promote_every || kt + 1 == k_count || kParts > 1) {
            // Promotion: every wgmma on tmp must be finished before it is read. (Reading
            // the factors before this wait measured 3% slower on the 128 x 256 tile.)
            hopper::wgmma_wait_group<0>();
            hopper::wgmma_fence_operands(tmp);
            add_scaled(acc, part, tmp, scale);
            hopper::wgmma_fence_operands(tmp);
            since = 0;
          } else {
            hopper::wgmma_wait_group<1>();
          }
        }
      }
      scale.end_kblock();
      if (kt > 0 && releaser) cast.release(pipe, prev);
      prev = st;
      st.advance();
    }
    hopper::wgmma_wait_group<0>();
    if (releaser) cast.release(pipe, prev);
  }
};

}  // namespace warpspec::gemm_impl
