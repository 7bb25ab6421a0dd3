#pragma once
// The sequence of tiles the roles of one CTA walk, static or dynamic.
//
// Static (the default): every role computes the same sequence on its own, CTA c taking
// work indices c, c+G, c+2G, ... (schedule/attention.hpp); nothing is shared.
//
// Dynamic (AttentionParams::tile_counter set; used for variable-length batches, whose
// tile costs the host cannot see): CTA c starts with position c of the work list
// (longest first); each later tile is the next free position, G + atomicAdd(counter,
// 1), taken by the producer thread when it starts that tile, so a CTA that finishes
// early takes more: greedy longest-processing-time balancing. The producer hands each
// position to the consumer warps through a two-slot ring in shared memory (a thread
// pipeline: the producer arrives after writing a slot, every consumer thread releases
// it after reading it). The end is position -1 in the ring.
//
// The counter pair {next, done} is zero at launch and zero again when the kernel ends:
// each CTA's producer, after its last (past-the-end) ticket, counts itself done, and the
// last one resets both. So a caller may reuse one counter for launches that run one
// after another (one stream), never for launches that may overlap.
#include "warpspec/attention/params.hpp"
#include "warpspec/hopper/arch.cuh"
#include "warpspec/pipeline.cuh"

namespace warpspec::attention_impl {

struct TileRing {
  PipelineStorage<2> barriers;
  int32_t position[2];
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
  __device__ __forceinline__ static schedule::AttentionWork producer_first(const AttentionParams& p, TileRing& r,
                                                                          uint32_t& n) {
    if (p.tile_counter == nullptr) return p.sched.first(int(blockIdx.x));
    return publish(p, r, n, int(blockIdx.x));
  }
  __device__ __forceinline__ static schedule::AttentionWork producer_next(const AttentionParams& p, TileRing& r,
                                                                         uint32_t& n, const schedule::AttentionWork& w) {
    if (p.tile_counter == nullptr) return p.sched.next(w);
    return publish(p, r, n, p.sched.grid_size() + atomicAdd(p.tile_counter, 1));
  }

  // ---- every consumer thread
  __device__ __forceinline__ static schedule::AttentionWork consumer_first(const AttentionParams& p, TileRing& r,
                                                                          uint32_t& n) {
    if (p.tile_counter == nullptr) return p.sched.first(int(blockIdx.x));
    return receive(p, r, n);
  }
  __device__ __forceinline__ static schedule::AttentionWork consumer_next(const AttentionParams& p, TileRing& r,
                                                                         uint32_t& n, const schedule::AttentionWork& w) {
    if (p.tile_counter == nullptr) return p.sched.next(w);
    return receive(p, r, n);
  }

 private:
  __device__ __forceinline__ static PipelineState<2> state(uint32_t n) {
    PipelineState<2> st;
    st.index = int(n & 1u);
    st.phase = (n >> 1) & 1u;
    return st;
  }

  __device__ __forceinline__ static schedule::AttentionWork publish(const AttentionParams& p, TileRing& r, uint32_t& n,
                                                                   int pos) {
    const schedule::AttentionWork w = p.sched.at(uint32_t(pos));
    Pipeline<2> pipe(r.barriers);
    const PipelineState<2> st = state(n++);
    pipe.producer_acquire(st);
    r.position[st.index] = w.valid ? pos : -1;
    pipe.producer_commit(st);  // arrive: releases the slot write to the consumers' wait
    if (!w.valid) {
      // Every ticket of this CTA is taken: order that before counting it done, and let
      // the last CTA reset the pair for the next launch.
      __threadfence();
      if (atomicAdd(p.tile_counter + 1, 1) == int(gridDim.x) - 1) {
        atomicExch(p.tile_counter, 0);
        atomicExch(p.tile_counter + 1, 0);
      }
    }
    return w;
  }

  __device__ __forceinline__ static schedule::AttentionWork receive(const AttentionParams& p, TileRing& r, uint32_t& n) {
    Pipeline<2> pipe(r.barriers);
    const PipelineState<2> st = state(n++);
    pipe.consumer_wait(st);
    const int32_t pos = r.position[st.index];
    pipe.consumer_release(st);
    schedule::AttentionWork w = p.sched.at(uint32_t(pos < 0 ? 0 : pos));
    w.valid = pos >= 0;
    return w;
  }
};

}  // namespace warpspec::attention_impl
