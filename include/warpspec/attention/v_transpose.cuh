#pragma once
// The FP8 V pump (design note docs/design/fp8-attention.md §3.4). 8-bit wgmma reads
// P·V's B operand K-major, so it needs Vᵀ (keys contiguous); TMA lands V with keys as
// rows. V blocks therefore take two rings:
//
//   loader (warp 0, one lane) --TMA--> vload ring --pump (warps 1-3)--> Vᵀ ring --> consumers
//
//   vload ring (this type's Storage): full = 1 arrival (the loader's arrive.expect_tx,
//     or the end marker's plain arrive) and the TMA bytes; empty = 3 arrivals, lane 0
//     of each pump warp after __syncwarp, once the warp's ldmatrix reads of the stage
//     are done.
//   Vᵀ ring (the consumers' V ring, c.s.tiles.v with c.vpipe): full = kVFullArrivals =
//     96, every pump thread after its own stmatrix writes and its own proxy fence;
//     empty as for any V ring (one lane per consumer warp).
// A thread arrives only for its own writes or reads, so the pump warps need no named
// barrier among themselves (FlashAttention-3 syncs its transposing warpgroup before one
// thread releases the source stage; here each warp releases its own share).
//
// End of stream: tags start as kData (init). After its last block the loader takes one
// more vload stage, tags it kEnd and arrives without bytes (finish); the pump sees the
// tag after the full wait and returns. So the pump knows nothing of tiles, masks,
// sequence lengths, pages or splits: a stage is one whole block (TMA zero-fills keys
// past a sequence) and the stream ends when the loader says so. The tag is a plain
// store before the arrive (release) and a plain load after the wait (acquire).
//
// Proxies (HOPPER-FACTS §4 "Ordering", §10.3): stmatrix writes Vᵀ through the generic
// proxy and wgmma reads it through the async proxy, so every writing thread runs
// fence.proxy.async.shared::cta before its Vᵀ-full arrive. TMA -> ldmatrix needs only
// the vload-full wait. ldmatrix reads -> the next TMA refill of that stage rely on the
// vload-empty arrive alone, as CUTLASS and FlashAttention-3 do (HOPPER-FACTS lists it
// as unconfirmed).
//
// Work split: a block is (block_n / 32) x (head_dim / 16) units (v_transpose_unit.cuh);
// pump warp w (0..2) takes units w, w + 3, w + 6, ..., unrolled per warp, two at a time
// (both ldmatrix before either store, so the second load's latency overlaps).
// Registers: the producer warpgroup runs at 24 (config.hpp), and ptxas spilled the
// first versions of this loop. What keeps it at 0 spill bytes: one block counter gives
// both rings' stage and parity; a lane's addresses are recomputed per block from
// %laneid and each unit adds constants to them (fp8_unit_address: add, then XOR); the
// stores are stmatrix.x2 halves. Two units in flight are then 8 data registers. There
// is no slack: one more value kept live across the loop by the caller (a warp index
// used after pump returns) made ptxas spill 4 bytes again, so callers keep nothing.
#include <cstdint>

#include "warpspec/attention/fp8_layout.hpp"
#include "warpspec/attention/v_transpose_unit.cuh"
#include "warpspec/hopper/mbarrier.cuh"
#include "warpspec/hopper/tma.cuh"
#include "warpspec/hopper/warp.cuh"
#include "warpspec/pipeline.cuh"

namespace warpspec::attention_impl {

template <int kBlockN, int kHeadDim, int kLoadStages, int kVtStages>
struct VTransposePump {
  // The stages' layouts (functions: device code may not odr-use a static member of
  // class type; callers take constexpr local copies).
  static constexpr hopper::WgmmaOperandLayout layout_v() { return fp8_v_layout(kBlockN, kHeadDim); }
  static constexpr hopper::WgmmaOperandLayout layout_vt() { return fp8_vt_layout(kBlockN, kHeadDim); }
  static constexpr uint32_t kBlockBytes = uint32_t(kBlockN) * uint32_t(kHeadDim);
  static constexpr int kPumpWarps = 3;  // producer warps 1-3; warp 0 loads
  static constexpr uint32_t kVFullArrivals = kPumpWarps * hopper::kWarpSize;
  static constexpr int kDcs = kHeadDim / kVtUnitCols;
  static constexpr int kUnits = (kBlockN / kVtUnitKeys) * kDcs;
  static_assert(kBlockN % kVtUnitKeys == 0 && kHeadDim % kVtUnitCols == 0, "a block is whole 32-key x 16-byte units");
  static_assert(layout_v().bytes() == kBlockBytes && layout_vt().bytes() == kBlockBytes,
                "V and Vᵀ are dense block_n x head_dim bytes");
  static_assert(kBlockBytes % 1024 == 0, "stages stay 1024-byte aligned: the swizzle is on absolute address bits");
  static_assert(fp8_unit_split_holds(kBlockN, kHeadDim), "unit addresses must split into lane part + unit constant");

  enum Tag : uint32_t { kData = 0, kEnd = 1 };

  struct Storage {
    alignas(1024) uint8_t vload[kLoadStages][kBlockBytes];
    PipelineStorage<kLoadStages> barriers;
    uint32_t tag[kLoadStages];
  };
  using LoadState = PipelineState<kLoadStages>;

  // One thread, with the kernel's other barriers (then the skeleton's fence and sync).
  // The kernel inits its V ring with kVFullArrivals producer arrivals.
  __device__ __forceinline__ static void init(Storage& s) {
    Pipeline<kLoadStages>(s.barriers).init(1, kPumpWarps);
#pragma unroll
    for (int i = 0; i < kLoadStages; ++i) s.tag[i] = kData;
  }

  // The loader thread: one V block into the next vload stage. `issue(dst, bar)` issues
  // the block's TMA boxes into `dst` (1024-aligned, fp8_v_layout) completing on `bar`;
  // the block is always kBlockBytes, in bounds or not.
  template <class Ctx, class Issue>
  __device__ __forceinline__ static void load(Ctx& c, LoadState& st, Issue&& issue) {
    Pipeline<kLoadStages> ring(c.s.vpath.barriers);
    ring.producer_acquire(st);
    ring.producer_expect_tx(st, kBlockBytes);
    issue(static_cast<void*>(c.s.vpath.vload[st.index]), ring.full_barrier(st));
    st.advance();
  }

  // The loader thread, after its last block: the end marker.
  template <class Ctx>
  __device__ __forceinline__ static void finish(Ctx& c, LoadState& st) {
    Pipeline<kLoadStages> ring(c.s.vpath.barriers);
    ring.producer_acquire(st);
    c.s.vpath.tag[st.index] = kEnd;
    ring.producer_commit(st);  // a plain arrive: the phase completes with no bytes
  }

  // Producer warps 1-3 (`warp` = warp index in the producer warpgroup), whole warps:
  // every vload stage into the next Vᵀ stage until the end marker. Returns the blocks
  // moved (tests count them).
  template <class Ctx>
  __device__ __forceinline__ static int pump(Ctx& c, int warp) {
    switch (warp) {  // warp-uniform; one loop per warp's share, each fully unrolled
      case 1: return pump_share<0>(c);
      case 2: return pump_share<1>(c);
      default: return pump_share<2>(c);
    }
  }

 private:
  template <int kFirst, class Ctx>
  __device__ __forceinline__ static int pump_share(Ctx& c) {
    Storage& s = c.s.vpath;
    Pipeline<kLoadStages> ring(s.barriers);
    const bool releaser = hopper::lane_index() == 0;
    // One counter for both rings: block i sits in stage i % stages of each, on lap
    // i / stages (three fewer live registers than two ring states and a count).
    int blocks = 0;
#pragma unroll 1
    for (;; ++blocks) {
      const LoadState ld = LoadState{}.advanced(blocks);
      ring.consumer_wait(ld);
      // Lane 0 reads the tag and broadcasts it: the lane that releases the stage is the
      // only reader, so the loader's kEnd store into it later is ordered after the read
      // by that lane's own arrive (racecheck does not carry other lanes' reads through
      // __syncwarp to lane 0's arrive).
      if (__shfl_sync(0xffffffffu, releaser ? s.tag[ld.index] : 0u, 0) == kEnd) break;
      const PipelineState<kVtStages> vt = PipelineState<kVtStages>{}.advanced(blocks);
      c.vpipe.producer_acquire(vt);
      {
        // This lane's addresses in unit (0, 0) of the two stages, from a fresh %laneid:
        // kept across the loop they cost the registers that let two units be in flight
        // at 24 per thread (ptxas spilled); recomputing them is a few integer ops.
        constexpr hopper::WgmmaOperandLayout kV = layout_v(), kVt = layout_vt();
        const int lane = hopper::lane_index_fresh();
        transpose_share<kFirst>(
            fp8_vt_load_offset(kV, 0, 0, lane) + hopper::smem_u32(s.vload[ld.index]),
            fp8_vt_store_offset(kVt, 0, 0, lane) + hopper::smem_u32(c.s.tiles.v[vt.index]));
      }
      hopper::fence_proxy_async_smem();  // this thread's stmatrix writes -> wgmma
      c.vpipe.producer_commit(vt);
      __syncwarp();  // the warp's ldmatrix reads are done before lane 0 frees the stage
      if (releaser) ring.consumer_release(ld);
    }
    return blocks;
  }

  // Units kFirst, kFirst + 3, ... of one block. `v` / `vt`: this lane's addresses in
  // unit (0, 0) of the source and destination stages (the lane parts; a stage base is a
  // multiple of 1024, so it adds like a unit's high bits).
  template <int kFirst>
  __device__ __forceinline__ static void transpose_share(uint32_t v, uint32_t vt) {
    constexpr hopper::WgmmaOperandLayout kV = layout_v(), kVt = layout_vt();
#pragma unroll
    for (int u = kFirst; u < kUnits; u += 2 * kPumpWarps) {
      constexpr int kStep = kPumpWarps;
      uint32_t a[4], b[4];
      load_v_unit(fp8_unit_address(v, fp8_v_unit_origin(kV, u / kDcs, u % kDcs)), a);
      if (u + kStep < kUnits)
        load_v_unit(fp8_unit_address(v, fp8_v_unit_origin(kV, (u + kStep) / kDcs, (u + kStep) % kDcs)), b);
      store_vt_unit(fp8_unit_address(vt, fp8_vt_unit_origin(kVt, u / kDcs, u % kDcs)), a);
      if (u + kStep < kUnits)
        store_vt_unit(fp8_unit_address(vt, fp8_vt_unit_origin(kVt, (u + kStep) / kDcs, (u + kStep) % kDcs)), b);
    }
  }
};

}  // namespace warpspec::attention_impl
