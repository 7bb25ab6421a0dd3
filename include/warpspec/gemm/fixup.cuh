#pragma once
// The split-K / stream-K fixup: what a consumer warpgroup does with its accumulators
// after the mainloop of a unit that covers only part of its tile's K loop. The scheduler
// (schedule/stream_k.hpp) decides who is final and which partials it sums; this type runs
// the protocol through the workspace (gemm/fixup_layout.hpp).
//
//   non-final unit: every thread stores its accumulators to the unit's partial slot
//     (.cg: through L2); a bar.sync of the warpgroup orders all 128 threads' stores
//     before one thread's st.release.gpu of the slot's flag (= 1).
//   final unit with peers: one thread waits for each peer slot's flag in ascending
//     slot order (ld.acquire.gpu; bounded in WARPSPEC_BOUNDED_WAITS builds) and resets
//     it to 0 for the next launch; a bar.sync then orders every thread's reads after
//     the acquires. Each thread adds the peers' partials onto its accumulators in
//     ascending slot order, then the epilogue writes alpha·acc + beta·C as usual.
//
// Why "the finaliser reads all partials in a fixed order" rather than a turnstile where
// each contributor adds into one running tile in turn: contributors never wait (a
// turnstile would chain them), only the finaliser does, and only on units that run
// before it (see the scheduler's progress rule). The sum is
//   ((own + p[begin]) + p[begin+1]) + ...
// in one fixed order, with fixed fp32 operations per element: bitwise identical from run
// to run whatever the timing. The cost is a partial tile per contributor in the
// workspace instead of one per tile.
//
// The two consumer warpgroups are independent: each has its own flag per slot and its
// own named barrier, so neither waits for the other's half. A warpgroup whose rows are
// all past M (p.a_rows == 64) has only zeros: it skips the fixup on both sides.
#include "warpspec/gemm/config.hpp"
#include "warpspec/gemm/fixup_layout.hpp"
#include "warpspec/gemm/params.hpp"
#include "warpspec/hopper/global_flag.cuh"
#include "warpspec/hopper/warp.cuh"
#include "warpspec/schedule/stream_k.hpp"

namespace warpspec::gemm_impl {

template <GemmConfig kCfg>
struct KSplitFixup {
  static constexpr int kAcc = kCfg.tile.block_n / 2;  // fp32 accumulators per consumer thread
  static constexpr int kVecs = kAcc / 4;              // 16-byte vectors per thread
  static constexpr int kHalfFloats = kAcc * 128;      // one warpgroup's 64 rows of a partial tile
  static constexpr int kHalves = kCfg.tile.block_m / 64;  // 1 when both warpgroups share 64 rows
  static_assert(kAcc % 4 == 0, "accumulators move as 16-byte vectors");
  static_assert(kHalves * kHalfFloats * sizeof(float) == fixup_partial_bytes(kCfg.tile.block_m, kCfg.tile.block_n),
                "a partial slot holds the accumulators of the tile's rows");

  // Thread `tid`'s first float of warpgroup `wg`'s half of slot `slot`; vector j lies
  // 128 vectors further on per j, so each vector store of the warpgroup is 2 KB contiguous.
  __device__ __forceinline__ static float* partial(const GemmParams& p, int slot, int wg, int tid) {
    return p.fixup_partials + (int64_t(slot) * kHalves + wg) * kHalfFloats + tid * 4;
  }
  __device__ __forceinline__ static uint32_t* flag(const GemmParams& p, int slot, int wg) {
    return p.fixup_flags + (int64_t(slot) * kConsumerWarpgroups + wg);
  }

  // Consumer warpgroup `wg` after unit u's mainloop. Returns whether u is final (its
  // accumulators now hold the whole K sum: run the epilogue); false: the partial is
  // published and the warpgroup moves on.
  __device__ __forceinline__ static bool reduce(const GemmParams& p, int wg, const schedule::KWorkUnit& u,
                                                float (&acc)[kAcc]) {
    const bool final = p.sched.is_final(u);
    if (64 * wg >= p.a_rows) return final;  // rows past M: nothing to add, on either side
    const int tid = threadIdx.x % 128;
    const uint32_t barrier = kFixupBarrier0 + wg;
    if (!final) {
      const int slot = p.sched.partial_slot(u);
      float* dst = partial(p, slot, wg, tid);
#pragma unroll
      for (int j = 0; j < kVecs; ++j)
        hopper::st_global_cg_v4(dst + j * 512, acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]);
      hopper::named_barrier_sync(barrier, 128);
      if (tid == 0) hopper::st_release_gpu(flag(p, slot, wg), 1);
      return false;
    }
    int begin, count;
    p.sched.peer_slots(u, begin, count);
    if (count == 0) return true;  // a whole tile (data-parallel, or a complete stream-K unit)
    if (tid == 0) {
#pragma unroll 1
      for (int i = begin; i < begin + count; ++i) {
        uint32_t* f = flag(p, i, wg);
        hopper::wait_flag_equals(f, 1);
        hopper::st_relaxed_gpu(f, 0);  // consumed: zero for the next launch (no memset per call)
      }
    }
    hopper::named_barrier_sync(barrier, 128);
#pragma unroll 1
    for (int i = begin; i < begin + count; ++i) {
      const float* src = partial(p, i, wg, tid);
#pragma unroll
      for (int j = 0; j < kVecs; ++j) {
        const float4 v = hopper::ld_global_cg_v4(src + j * 512);
        acc[4 * j] += v.x;
        acc[4 * j + 1] += v.y;
        acc[4 * j + 2] += v.z;
        acc[4 * j + 3] += v.w;
      }
    }
    return true;
  }
};

}  // namespace warpspec::gemm_impl
