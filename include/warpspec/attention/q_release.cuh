#pragma once
// Q's shared-memory buffers: how many, when each goes back to the producer (its q_empty
// barrier), and where the 16-bit epilogue stages O. Small types with the same calls,
// chosen per kernel by QRelease.
//
// Tile i of a CTA (counting the tiles that load Q) uses slot i % kSlots; the producer
// loads tile i's Q once slot i % kSlots is empty again.
//
//   QReleaseEarly (O not staged: FP8, whose epilogue stores from registers): one slot,
//     given back by each consumer warp as soon as its last S wgmma of the tile has
//     completed, so the next tile's Q loads during this tile's last P·V and epilogue.
//   QReleaseNextTile (head dims 64 and 128, 16-bit): two slots, O staged over the
//     tile's own Q once its S wgmmas are done. The slot goes back when the O store has
//     read it, checked once the next tile's first S has completed (by then it has), so
//     nothing waits on the store: tile i + 2's Q loads during tile i + 1, and tile i + 1's
//     Q is resident when tile i's last P·V issues. The second slot costs no more shared
//     memory than a separate O buffer did.
//   QReleaseAfterStore (head dims 192 and 256: no room for a second Q): O over the one
//     Q, given back when the O store has read it (the storing thread waits for that).
//
// Split-KV partials (fp32, from registers) use the 16-bit kernels' type: a direct store
// "reads the staging" at once.
#include <cstdint>
#include <type_traits>

#include "warpspec/attention/config.hpp"
#include "warpspec/hopper/limits.hpp"
#include "warpspec/hopper/mbarrier.cuh"
#include "warpspec/hopper/tma.cuh"

namespace warpspec::attention_impl {

// The Q slots beside the K and V tiles.
template <class T, int kSlots, class Tiles>
struct WithQ : Tiles {
  alignas(1024) T q[kSlots][Tiles::kBlockM * Tiles::kHeadDim];
};

// Slot of tile `iter` and the parity of its use of that slot.
template <int kSlots>
struct QSlots {
  static constexpr int kCount = kSlots;
  __device__ __forceinline__ static uint32_t slot(uint32_t iter) { return iter % kSlots; }
  __device__ __forceinline__ static uint32_t phase(uint32_t iter) { return (iter / kSlots) & 1u; }
};

template <class T, int kConsumers>
struct QReleaseEarly : QSlots<1> {
  static constexpr uint32_t kArrivals = 4 * kConsumers;  // one lane of each consumer warp
  static constexpr bool kNextQBeside = true;  // the next tile's Q lands during this tile's epilogue
  template <class Tiles>
  using Storage = WithQ<T, 1, Tiles>;
  __device__ __forceinline__ static void after_last_qk(uint64_t* q_empty, bool release) {
    if (release) hopper::mbarrier_arrive(q_empty);
  }
  __device__ __forceinline__ static void after_first_qk(uint64_t*) {}
  __device__ __forceinline__ static void after_tma_store(uint64_t*) {}
  __device__ __forceinline__ static void after_store(uint64_t*) {}
  __device__ __forceinline__ static void drain() {}
};

// O staged over the one Q slot, which goes back when the O store has read it: one
// thread per consumer warpgroup, the one that issued the store (it waits for the read).
template <class T, int kConsumers>
struct QReleaseAfterStore : QSlots<1> {
  static constexpr uint32_t kArrivals = kConsumers;
  static constexpr bool kNextQBeside = false;  // O is staged in the next tile's Q buffer
  template <class Tiles>
  using Storage = WithQ<T, 1, Tiles>;
  template <class S>
  __device__ __forceinline__ static T* staging(S& tiles, uint32_t) { return tiles.q[0]; }
  __device__ __forceinline__ static void after_last_qk(uint64_t*, bool) {}
  __device__ __forceinline__ static void after_first_qk(uint64_t*) {}
  // The thread that issued the O store (TMA, committed).
  __device__ __forceinline__ static void after_tma_store(uint64_t* q_empty) {
    hopper::tma_store_wait_read<0>();
    hopper::mbarrier_arrive(q_empty);
  }
  // Once nothing of the warpgroup reads the staging any more (direct stores).
  __device__ __forceinline__ static void after_store(uint64_t* q_empty) { hopper::mbarrier_arrive(q_empty); }
  __device__ __forceinline__ static void drain() {}
};

// Two Q slots, O staged over its tile's own; the slot goes back once the next tile's
// first S has completed (by then the O store has read it), so nothing waits on the store.
template <class T, int kConsumers>
struct QReleaseNextTile : QSlots<2> {
  static constexpr uint32_t kArrivals = kConsumers;  // one thread per consumer warpgroup
  static constexpr bool kNextQBeside = true;
  template <class Tiles>
  using Storage = WithQ<T, 2, Tiles>;
  template <class S>
  __device__ __forceinline__ static T* staging(S& tiles, uint32_t iter) {
    return tiles.q[QSlots<2>::slot(iter)];
  }
  __device__ __forceinline__ static void after_last_qk(uint64_t*, bool) {}
  // One thread per consumer warpgroup, once the next tile's first S has completed: the
  // previous tile's slot (whose O store, if any, this thread issued).
  __device__ __forceinline__ static void after_first_qk(uint64_t* prev_q_empty) {
    hopper::tma_store_wait_read<0>();
    hopper::mbarrier_arrive(prev_q_empty);
  }
  __device__ __forceinline__ static void after_tma_store(uint64_t*) {}
  __device__ __forceinline__ static void after_store(uint64_t*) {}
  // Before the kernel ends: the last O store has read its staging.
  __device__ __forceinline__ static void drain() { hopper::tma_store_wait_read<0>(); }
};

// The kernel's choice: two slots where shared memory (two Q, the K and V rings and the
// barriers' share) has room; early release wherever O is not staged.
template <class T, int kHeadDim, uint32_t kKVTileBytes, int kConsumers>
inline constexpr bool kTwoQSlots =
    kKVTileBytes + 2 * (64 * kConsumers) * kHeadDim * sizeof(T) + 2048 <= uint32_t(hopper::kMaxSmemPerBlock);
template <class T, int kHeadDim, bool kStagesO, uint32_t kKVTileBytes, int kConsumers>
using QRelease =
    std::conditional_t<!kStagesO, QReleaseEarly<T, kConsumers>,
                       std::conditional_t<kTwoQSlots<T, kHeadDim, kKVTileBytes, kConsumers>,
                                          QReleaseNextTile<T, kConsumers>, QReleaseAfterStore<T, kConsumers>>>;

}  // namespace warpspec::attention_impl
