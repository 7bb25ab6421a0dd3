#pragma once
// The sequence of tiles the roles of one CTA walk, static or dynamic.
//
// Static (the default): every role computes the same sequence on its own, CTA c taking
// work indices c, c+G, c+2G, ... (schedule/attention.hpp); nothing is shared.
//
// Dynamic (AttentionParams::tile_counter set; used for variable-length batches, whose
// tile costs the host cannot see): CTA c starts with position c of the work list
// (longest first); each later tile is the next free position, G + atomicAdd(counter,
// 1), taken by the producer thread when it has issued the previous tile's loads, so a
// CTA that finishes early takes more: greedy longest-processing-time balancing. The
// producer hands each tile to the consumer warps through a two-slot ring in shared
// memory (a thread pipeline: the producer arrives after writing a slot, every consumer
// thread releases it after reading it): not its position but the work it decodes to and
// the key blocks it reads, which the producer works out for its own loads anyway; the
// consumers would otherwise redo the schedule's divisions and key_blocks' arithmetic, a
// chain of dependent scalar instructions, between two tiles (bench/NOTES.md v36). The
// end is a tile whose work is not valid.
//
// The counter pair {next, done} is zero at launch and zero again when the kernel ends:
// each CTA's producer, after its last (past-the-end) ticket, counts itself done, and the
// last one resets both. So a caller may reuse one counter for launches that run one
// after another (one stream), never for launches that may overlap.
#include "warpspec/attention/mask.cuh"
#include "warpspec/attention/params.hpp"
#include "warpspec/hopper/arch.cuh"
#include "warpspec/hopper/smem.cuh"
#include "warpspec/pipeline.cuh"

namespace warpspec::attention_impl {

// A tile as handed over: work and key blocks, two 16-byte words.
struct alignas(16) TileSlot {
  int32_t m_block, head, batch, split, lo, hi, valid, unused;
};

struct TileRing {
  PipelineStorage<2> barriers;
  TileSlot slot[2];
};

// Each role keeps one register of state: how many tiles it has passed through the ring
// (its slot is the count's low bit, the slot's lap parity the next bit).
class TileStream {
 public:
  // Every consumer thread releases the slot after its own read (once per tile: cheap),
  // so each read is ordered before the producer's next write by the barrier alone.
  __device__ __forceinline__ static void init(TileRing& r, uint32_t consumer_threads) {
    Pipeline<2>(r.barriers).init(1, consumer_threads);
  }

  // ---- the producer thread
  __device__ __forceinline__ static schedule::AttentionWork first(const AttentionParams& p) {
    return p.tile_counter == nullptr ? p.sched.first(int(blockIdx.x)) : take(p, int(blockIdx.x));
  }
  // Call only while w.valid.
  __device__ __forceinline__ static schedule::AttentionWork next(const AttentionParams& p,
                                                                const schedule::AttentionWork& w) {
    return p.tile_counter == nullptr ? p.sched.next(w) : take(p, p.sched.grid_size() + atomicAdd(p.tile_counter, 1));
  }
  // Dynamic: hand tile (w, kb) to the consumers (kb: nothing where w is not valid).
  __device__ __forceinline__ static void publish(const AttentionParams& p, TileRing& r, uint32_t& n,
                                                 const schedule::AttentionWork& w, const KeyBlocks& kb) {
    if (p.tile_counter == nullptr) return;
    Pipeline<2> pipe(r.barriers);
    const PipelineState<2> st = state(n++);
    pipe.producer_acquire(st);
    r.slot[st.index] = TileSlot{w.m_block, w.head, w.batch, w.split, kb.lo, kb.hi, int32_t(w.valid), 0};
    pipe.producer_commit(st);  // arrive: releases the slot's writes to the consumers' wait
  }

  // ---- every consumer thread: whether tiles come through the ring, and the next one.
  __device__ __forceinline__ static bool handed_over(const AttentionParams& p) { return p.tile_counter != nullptr; }
  __device__ __forceinline__ static void receive(TileRing& r, uint32_t& n, schedule::AttentionWork& w, KeyBlocks& kb) {
    Pipeline<2> pipe(r.barriers);
    const PipelineState<2> st = state(n++);
    pipe.consumer_wait(st);
    const uint32_t a = hopper::smem_u32(&r.slot[st.index]);
    const uint4 x = hopper::ld_shared_v4(a), y = hopper::ld_shared_v4(a + 16);
    pipe.consumer_release(st);
    w.m_block = int32_t(x.x);
    w.head = int32_t(x.y);
    w.batch = int32_t(x.z);
    w.split = int32_t(x.w);
    kb.lo = int32_t(y.x);
    kb.hi = int32_t(y.y);
    w.valid = y.z != 0u;
    w.linear = 0;  // the static schedule's; not used here
  }

 private:
  __device__ __forceinline__ static PipelineState<2> state(uint32_t n) {
    PipelineState<2> st;
    st.index = int(n & 1u);
    st.phase = (n >> 1) & 1u;
    return st;
  }

  // Dynamic: the tile at position `pos`. Past the end, this CTA's tickets are all taken:
  // order that before counting it done, and let the last CTA reset the pair for the next
  // launch.
  __device__ __forceinline__ static schedule::AttentionWork take(const AttentionParams& p, int pos) {
    const schedule::AttentionWork w = p.sched.at(uint32_t(pos));
    if (!w.valid) {
      __threadfence();
      if (atomicAdd(p.tile_counter + 1, 1) == int(gridDim.x) - 1) {
        atomicExch(p.tile_counter, 0);
        atomicExch(p.tile_counter + 1, 0);
      }
    }
    return w;
  }
};

}  // namespace warpspec::attention_impl
