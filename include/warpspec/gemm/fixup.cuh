#pragma once
// The split-K / stream-K fixup: what a consumer warpgroup does with its accumulators
// after the mainloop of a unit that covers only part of its tile's K loop. The scheduler
// (schedule/stream_k.hpp) decides who is final and which partials it sums; this type runs
// the protocol through the workspace (gemm/fixup_layout.hpp).
//
//   non-final unit: every thread stores its accumulators to the unit's partial slot
//     (.cg: through L2); a bar.sync of the warpgroup orders all 128 threads' stores
//     before one thread's st.release.gpu of the slot's flag (= 1).
//   final unit with peers, 128-row tiles (both warpgroups read every mainloop stage):
//     the partials come through the mainloop's stages. After the unit's last k-block
//     the producer thread waits for each peer slot's flag in ascending slot order
//     (ld.acquire.gpu; bounded in WARPSPEC_BOUNDED_WAITS builds), resets it to 0 for
//     the next launch, and bulk-copies the slot into the next kChunks stages' B buffers
//     (both warpgroups' halves a stage), as it would load k-blocks. The copies land
//     while the consumers finish the unit's last k-blocks; the consumers then take the
//     chunk stages in order, add them onto their accumulators from shared memory and
//     release them. (Read from global memory by the consumers after the mainloop, the
//     partials cost ~6% of a streamed launch's consumer time at 2048 x 2560 x 4096,
//     128 x 256 tiles: ncu stall samples, bench/NOTES.md stop 62.)
//   final unit with peers, 64-row tiles (the k-interleaved consumer, where each stage
//     goes to one warpgroup): the finishing warpgroup's thread 0 waits and resets the
//     flags, a bar.sync orders its threads' reads after the acquires, and each thread
//     adds the peers' partials from global memory.
//   Either way the sum is acc += p[slot] in ascending slot order, element by element,
//   then the epilogue writes alpha·acc + beta·C as usual.
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
#include "warpspec/hopper/tma.cuh"
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

  // The partials through the stages: 128-row tiles, whose two warpgroups both read every
  // stage (the consumer's kWarpgroupsPerStage; the kernel checks). A slot is kChunks
  // stages; chunk c holds vectors [c * kChunkVecs, (c + 1) * kChunkVecs) of each
  // warpgroup's half, which are contiguous in the slot (partial(): vector j of every
  // thread is one 2 KB run), in the stage's B buffer: warpgroup w's part at w * kChunkBytes.
  static constexpr bool kStaged = kHalves == 2;
  static constexpr int kChunks = 4;
  static constexpr int kChunkVecs = kVecs / kChunks;
  static constexpr uint32_t kChunkBytes = uint32_t(kChunkVecs) * 128 * 16;  // one warpgroup's part
  static_assert(!kStaged || (kVecs % kChunks == 0 && 2 * kChunkBytes <= uint32_t(kCfg.tile.block_n) * 128),
                "a chunk of both warpgroups' partials fills at most a stage's B buffer (block_n x 128 bytes)");

  // Warpgroups whose rows hold data (p.a_rows == 64: the second one's rows are all past M
  // and it publishes nothing).
  __device__ __forceinline__ static int warpgroups_with_rows(const GemmParams& p) { return p.a_rows > 64 ? 2 : 1; }

  // Producer thread, after unit u's k-block loads: a final unit with peers takes kChunks
  // stages per peer slot for their partials (the consumers' reduce() takes the same).
  template <class Pipe, class State, class Storage>
  __device__ __forceinline__ static void load_partials(const GemmParams& p, Pipe& pipe, State& st, Storage& s,
                                                       const schedule::KWorkUnit& u) {
    if constexpr (kStaged) {
      if (!p.sched.is_final(u)) return;
      int begin, count;
      p.sched.peer_slots(u, begin, count);
      const int halves = warpgroups_with_rows(p);
#pragma unroll 1
      for (int i = begin; i < begin + count; ++i) {
#pragma unroll 1
        for (int w = 0; w < halves; ++w) {
          uint32_t* f = flag(p, i, w);
          hopper::wait_flag_equals(f, 1);
          hopper::st_relaxed_gpu(f, 0);  // consumed: zero for the next launch (no memset per call)
        }
        hopper::fence_proxy_async_global();  // the acquired partial, read next by the async proxy
#pragma unroll 1
        for (int c = 0; c < kChunks; ++c) {
          pipe.producer_acquire(st);
          pipe.producer_expect_tx(st, uint32_t(halves) * kChunkBytes);
          char* dst = reinterpret_cast<char*>(s.b[st.index]);
#pragma unroll 1
          for (int w = 0; w < halves; ++w)
            hopper::bulk_load(dst + w * kChunkBytes, partial(p, i, w, 0) + c * kChunkVecs * 512, kChunkBytes,
                              pipe.full_barrier(st));
          st.advance();
        }
      }
    }
  }

  // Consumer warpgroup `wg` after unit u's mainloop. Returns whether u is final (its
  // accumulators now hold the whole K sum: run the epilogue); false: the partial is
  // published and the warpgroup moves on.
  template <class Pipe, class State, class Storage>
  __device__ __forceinline__ static bool reduce(const GemmParams& p, Pipe& pipe, State& st, const Storage& s, int wg,
                                                const schedule::KWorkUnit& u, float (&acc)[kAcc]) {
    const bool final = p.sched.is_final(u);
    const bool rows = 64 * wg < p.a_rows;  // else rows past M: nothing to add, on either side
    const int tid = threadIdx.x % 128;
    const uint32_t barrier = kFixupBarrier0 + wg;
    if (!final) {
      if (!rows) return false;
      const int slot = p.sched.partial_slot(u);
      float* dst = partial(p, slot, wg, tid);
#pragma unroll
      for (int j = 0; j < kVecs; ++j)
        hopper::st_global_cg_v4(dst + j * 512, acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]);
      if constexpr (kStaged) hopper::fence_proxy_async_global();  // a bulk copy reads it
      hopper::named_barrier_sync(barrier, 128);
      if (tid == 0) hopper::st_release_gpu(flag(p, slot, wg), 1);
      return false;
    }
    int begin, count;
    p.sched.peer_slots(u, begin, count);
    if (count == 0) return true;  // a whole tile (data-parallel, or a complete stream-K unit)
    if constexpr (kStaged) {
      // Every consumer warp takes the chunk stages (rows or not: the ring's arrivals count
      // all eight), in the producer's order.
      const bool releaser = threadIdx.x % 32 == 0;
#pragma unroll 1
      for (int i = begin; i < begin + count; ++i) {
#pragma unroll
        for (int c = 0; c < kChunks; ++c) {
          pipe.consumer_wait(st);
          if (rows) {
            const float4* src = reinterpret_cast<const float4*>(reinterpret_cast<const char*>(s.b[st.index]) +
                                                                wg * kChunkBytes) + tid;
#pragma unroll
            for (int j = 0; j < kChunkVecs; ++j) {
              const float4 v = src[j * 128];
              const int a = 4 * (c * kChunkVecs + j);
              acc[a] += v.x;
              acc[a + 1] += v.y;
              acc[a + 2] += v.z;
              acc[a + 3] += v.w;
            }
          }
          __syncwarp();  // the warp's reads of the stage are done (their sums are formed)
          if (releaser) pipe.consumer_release(st);
          st.advance();
        }
      }
      return true;
    } else {
      if (!rows) return true;
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
  }
};

}  // namespace warpspec::gemm_impl
