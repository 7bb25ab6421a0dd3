#pragma once
// How the CTAs of a GEMM cluster share a stage: who loads which part of each operand,
// who must release the stage before its producer may refill it, and how the CTAs walk
// their tiles. The roles call one of these types (ClusterCast<kCfg>); they hold no
// cluster branches of their own.
//
//   SoloCta (1x1): every operand loaded whole by plain TMA into this CTA; the stage
//     goes back to this CTA's producer (one arrival per consumer warp); units from
//     KSplitScheduler (data-parallel, split-K or stream-K).
//
//   CtaPair (2x1 or 1x2): the shared operand (B for 2x1: the pair's tiles are
//     neighbours along M and multiply the same B tile; A for 1x2) is loaded in two
//     parts, CTA rank r loading part r and multicasting it into both CTAs. Hence:
//     * the data and the complete_tx of a part land at the same shared-memory offsets in
//       both CTAs, so both have one layout (one kernel) and each CTA's full barrier
//       expects the whole stage's bytes: half of the shared operand from itself, half
//       from its peer, and its own operand (Mainloop::kStageTxBytes, unchanged);
//     * a stage may be refilled only when the consumers of BOTH CTAs are done with it:
//       the producer of either CTA writes into both. Each consumer warp releases the
//       stage on both CTAs' empty barriers (lane r arrives on CTA r's, by its
//       cluster-mapped address), so an empty barrier counts 2 x 8 arrivals per phase,
//       and the producer's wait acquires at cluster scope (the peer's arrivals release
//       at cluster scope);
//     * both CTAs must run the same stages in the same order: units from ClusterUnits
//       (schedule/cluster_units.hpp), data-parallel, the pair's tiles in lock-step; the
//       tile past the problem's edge of an odd pair still loads its part (zero-filled
//       where its own boxes are out of bounds) and just does not store;
//     * no CTA may exit while its peer can still arrive on its barriers or multicast into
//       its shared memory: the kernel skeleton (ws_kernel.cuh) ends with a cluster
//       barrier (its WsRoles cluster size is the configuration's).
//   Why pairs and not 2x2: the host builds 2x1 and 1x2 only (src/gemm/instances.hpp);
//   a 2x2 cluster needs per-operand masks and a 3-CTA release (HOPPER-FACTS §7).
//
// Rank convention: %cluster_ctarank, which for the 1-D grid of (2, 1, 1) clusters is
// blockIdx.x % 2, the rank PersistentScheduler::first(blockIdx.x) places at offset 1
// along the pair (m_block odd for 2x1, n_block odd for 1x2). The multicast mask bit i is
// cluster rank i (HOPPER-FACTS §3, the probe).
#include <cuda.h>

#include <cstdint>
#include <type_traits>

#include "warpspec/gemm/config.hpp"
#include "warpspec/hopper/cluster.cuh"
#include "warpspec/hopper/tma.cuh"
#include "warpspec/schedule/cluster_units.hpp"
#include "warpspec/schedule/stream_k.hpp"

namespace warpspec::gemm_impl {

struct SoloCta {
  static constexpr int kCtas = 1;
  // Parts each operand's stage is loaded in (one per CTA that shares it).
  static constexpr int kPartsA = 1, kPartsB = 1;

  __device__ __forceinline__ SoloCta() {}
  // The part of each operand this CTA loads. Constants, not member calls: the 1x1
  // kernels compile to the PTX they had before clusters (a call folded only after
  // inlining reorders LLVM's address arithmetic; bench/NOTES.md v13).
  __device__ __forceinline__ static constexpr int part_a() { return 0; }
  __device__ __forceinline__ static constexpr int part_b() { return 0; }

  template <class... Coords>
  __device__ __forceinline__ void load_a(void* dst, const CUtensorMap* map, uint64_t* bar, Coords... c) const {
    hopper::tma_load(dst, map, bar, c...);
  }
  template <class... Coords>
  __device__ __forceinline__ void load_b(void* dst, const CUtensorMap* map, uint64_t* bar, Coords... c) const {
    hopper::tma_load(dst, map, bar, c...);
  }

  // Producer: wait until the stage may be refilled.
  template <class Pipe, class State>
  __device__ __forceinline__ void acquire(Pipe& pipe, const State& st) const {
    pipe.producer_acquire(st);
  }
  // Consumer: the threads that release a stage (one lane per consumer warp), and the release.
  __device__ __forceinline__ bool releaser() const { return (threadIdx.x % 32) == 0; }
  template <class Pipe, class State>
  __device__ __forceinline__ void release(Pipe& pipe, const State& st) const {
    pipe.consumer_release(st);
  }

  // The unit walk: the scheduler itself.
  __device__ __forceinline__ static const schedule::KSplitScheduler& units(const schedule::KSplitScheduler& s) {
    return s;
  }
};

template <bool kSharesA>  // true: 1x2 (A shared); false: 2x1 (B shared)
struct CtaPair {
  static constexpr int kCtas = 2;
  static constexpr int kPartsA = kSharesA ? 2 : 1, kPartsB = kSharesA ? 1 : 2;
  static constexpr uint16_t kBothCtas = 0x3;  // multicast mask: cluster ranks 0 and 1

  uint32_t rank;  // %cluster_ctarank: 0 or 1

  __device__ __forceinline__ CtaPair() : rank(hopper::cluster_cta_rank()) {}
  __device__ __forceinline__ int part_a() const { return kSharesA ? int(rank) : 0; }
  __device__ __forceinline__ int part_b() const { return kSharesA ? 0 : int(rank); }

  template <class... Coords>
  __device__ __forceinline__ void load_a(void* dst, const CUtensorMap* map, uint64_t* bar, Coords... c) const {
    if constexpr (kSharesA) hopper::tma_load_multicast(dst, map, bar, kBothCtas, c...);
    else hopper::tma_load(dst, map, bar, c...);
  }
  template <class... Coords>
  __device__ __forceinline__ void load_b(void* dst, const CUtensorMap* map, uint64_t* bar, Coords... c) const {
    if constexpr (kSharesA) hopper::tma_load(dst, map, bar, c...);
    else hopper::tma_load_multicast(dst, map, bar, kBothCtas, c...);
  }

  // The peer's consumers release this CTA's stages too: acquire at cluster scope.
  template <class Pipe, class State>
  __device__ __forceinline__ void acquire(Pipe& pipe, const State& st) const {
    pipe.producer_acquire_cluster(st);
  }
  // Lane r of each consumer warp releases the stage to cluster CTA r (itself included,
  // through the cluster address): the two arrivals go out from two lanes in parallel.
  __device__ __forceinline__ bool releaser() const { return (threadIdx.x % 32) < kCtas; }
  template <class Pipe, class State>
  __device__ __forceinline__ void release(Pipe& pipe, const State& st) const {
    pipe.consumer_release_cluster(st, threadIdx.x % 32);
  }

  __device__ __forceinline__ static schedule::ClusterUnits units(const schedule::KSplitScheduler& s) {
    return schedule::ClusterUnits(s);
  }
};

template <GemmConfig kCfg>
using ClusterCast = std::conditional_t<kCfg.cluster.size() == 1, SoloCta, CtaPair<shared_by_a(kCfg.cluster) == 2>>;

// What the roles rely on, stated once per configuration.
template <GemmConfig kCfg>
constexpr bool cluster_cast_supported() {
  return kCfg.cluster.size() == 1 || (kCfg.cluster.size() == 2 && (kCfg.cluster.m == 2 || kCfg.cluster.n == 2));
}

}  // namespace warpspec::gemm_impl
