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
// The price is registers: acc and a whole-width tmp are both N/2 per thread, so the
// default FP8 tile is 128 x 128 (64 + 64 accumulators); 128 x 256 would need 256 of the
// 232. The wide tile (config.hpp) multiplies its two 128-column halves one after the
// other into one 64-register tmp instead (acc 128 + tmp 64).
// Loads and shared-memory layouts are the 16-bit mainloop's (gemm/mainloop.cuh).
//
// NOTES (speed: 0.74x cuBLASLt on the H200 with the 128 x 128 tile; what to try next).
// - The promotion drains the tensor pipe: after each k-block both consumer warpgroups
//   wait for all their wgmmas (wait_group 0), add 64 registers, then issue the next
//   block. Both wait on the same stage barrier, so they tend to drain together. The
//   fast-accumulation path keeps a group in flight (wait_group 1) and never drains: if
//   --fast-accum closes most of the gap to cuBLASLt, the drain is the cost.
// - Keeping one batch in flight across the promotion (two temporary fragments, k-block
//   kt into one while kt-1's is added: acc 64 + 2 x 64 registers) was built and fails
//   the ptxas gate: C7514 (wgmma serialized: ptxas sees non-wgmma reads of accumulator
//   registers inside an open wgmma pipeline stage) and spills. Staggering the two
//   warpgroups (one promotes while the other's wgmmas run) needs no extra registers.
// - Operand reuse: the 128 x 128 tile reads both operands from shared memory for half the
//   MMAs a 128 x 256 tile gets from them; the wide tile (config.hpp) tests that.
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
  // Block scales (block_scale.cuh): their ring, its loader (producer warp 2) and the
  // consumers' reader, whose ring position persists across units as the stages' does.
  using Scales = BlockScales<kParts, kPartN, kCfg.tile.block_m, kBlockN, kConsumerWarpgroups * 128>;
  using ConsumerStorage = typename Scales::Storage;
  using SideState = typename Scales::State;
  __device__ __forceinline__ static void init_side(ConsumerStorage& s) { Scales::init(s); }
  __device__ __forceinline__ static bool side_loads(const GemmParams& p) { return p.block_scale.a != nullptr; }
  __device__ __forceinline__ static void load_side(const GemmParams& p, ConsumerStorage& s, SideState& st,
                                                   const schedule::KWorkUnit& t) {
    Scales::load(p, s, st, t);
  }
  __device__ __forceinline__ static bool combine(int, float (&)[kAcc], ConsumerStorage&) { return true; }

  // Consumer warpgroup `wg`: acc = A[rows 64wg..] · B over unit t's k-iterations
  // (block-scaled: each k-block's product times its scales, block_scale.cuh).
  // Pipeline protocol as the 16-bit consumer's (one wgmma group in flight between
  // promotions; stage k-1 released once stage k's wait shows its reads are done).
  // The loop is built twice, with and without block scales (one kernel still: the
  // choice is the runtime p.block_scale.a), so the tensor-wise loop has no scale code.
  __device__ __forceinline__ static void mma(const GemmParams& p, Pipe& pipe, State& st, Storage& s, int wg,
                                             const schedule::KWorkUnit& t, float (&acc)[kAcc],
                                             ConsumerStorage& own, SideState& side) {
    if (p.block_scale.a != nullptr)
      run<typename Scales::Reader>(p, pipe, st, s, wg, t, acc, own, side);
    else
      run<UnitScale>(p, pipe, st, s, wg, t, acc, own, side);
  }

 private:
  template <class Scale>
  __device__ __forceinline__ static void run(const GemmParams& p, Pipe& pipe, State& st, Storage& s, int wg,
                                             const schedule::KWorkUnit& t, float (&acc)[kAcc],
                                             ConsumerStorage& own, SideState& side) {
    const Scale scale(own, side, wg);
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
      scale.begin_kblock();  // idle warpgroups too: every consumer thread releases the scales
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
            // Registers 4j, 4j + 1 are row r, 4j + 2, 4j + 3 row r + 8 (m64 layout).
#pragma unroll
            for (int half = 0; half < 2; ++half) {
              const float f = scale.factor(part, half);  // 1 unless block-scaled
#pragma unroll
              for (int i = 2 * half; i < kPartAcc; i += 4) {
                acc[kPartAcc * part + i] = fmaf(tmp[i], f, acc[kPartAcc * part + i]);
                acc[kPartAcc * part + i + 1] = fmaf(tmp[i + 1], f, acc[kPartAcc * part + i + 1]);
              }
            }
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
