#pragma once
// When Q's shared-memory buffer goes back to the producer (q_empty), and where the
// 16-bit epilogue stages O: two small types with the same calls, chosen per kernel.
//
// Nothing but the tile's S = Q·Kᵀ wgmmas reads Q. Where O has a buffer of its own
// (head dims 64 and 128: 16 and 32 KB beside 112 and 160 KB), or is not staged at all
// (FP8, split-KV partials: stores from registers), each consumer warp gives Q back as
// soon as its last S wgmma of the tile has completed (QReleaseEarly): the producer then
// loads the next tile's Q while the consumers run the last P·V and the epilogue, and the
// next tile starts on a resident Q instead of waiting for the store to drain and Q to
// land. Head dims 192 and 256 have no room for a second buffer (216 + 48, 224 + 64 KB):
// O is staged over Q, which goes back only once the O store has read it (QReleaseLate).
//
// The O buffer is a derived storage type, not an empty member: nvcc's host and device
// passes laid out an empty [[no_unique_address]] member differently, and the device's
// barriers then sat past the shared memory the host had sized.
#include <cstdint>
#include <type_traits>

#include "warpspec/attention/config.hpp"
#include "warpspec/hopper/limits.hpp"
#include "warpspec/hopper/mbarrier.cuh"
#include "warpspec/hopper/tma.cuh"

namespace warpspec::attention_impl {

// Q back after the tile's last S wgmma, by one lane of each consumer warp (as K's
// stages). kOwnO: O staged in its own buffer, whose TMA store is waited on (read) before
// the buffer is written again and once before the kernel ends; otherwise O is not staged.
template <class T, int kHeadDim, bool kOwnO>
struct QReleaseEarly {
  static constexpr uint32_t kArrivals = 4 * kConsumerWarpgroups;
  template <class Tiles>
  struct WithO : Tiles {
    alignas(1024) T o[kBlockM * kHeadDim];
  };
  template <class Tiles>
  using Storage = std::conditional_t<kOwnO, WithO<Tiles>, Tiles>;
  template <class S>
  __device__ __forceinline__ static T* staging(S& tiles) { return tiles.o; }
  __device__ __forceinline__ static void after_last_qk(uint64_t* q_empty, bool release) {
    if (release) hopper::mbarrier_arrive(q_empty);
  }
  __device__ __forceinline__ static void after_tma_store(uint64_t*) {}
  __device__ __forceinline__ static void after_store(uint64_t*) {}
  __device__ __forceinline__ static void wait_store_read() {
    if (kOwnO) hopper::tma_store_wait_read<0>();  // unstaged: no store to wait for
  }
};

// Q back once the warpgroup's O store, staged over Q, has read it: one thread per
// consumer warpgroup.
template <class T>
struct QReleaseLate {
  static constexpr uint32_t kArrivals = kConsumerWarpgroups;
  template <class Tiles>
  using Storage = Tiles;
  template <class S>
  __device__ __forceinline__ static T* staging(S& tiles) { return tiles.q; }
  __device__ __forceinline__ static void after_last_qk(uint64_t*, bool) {}
  // The thread that issued the store (TMA, committed).
  __device__ __forceinline__ static void after_tma_store(uint64_t* q_empty) {
    hopper::tma_store_wait_read<0>();
    hopper::mbarrier_arrive(q_empty);
  }
  // Once nothing of the warpgroup reads the staging any more (direct stores).
  __device__ __forceinline__ static void after_store(uint64_t* q_empty) { hopper::mbarrier_arrive(q_empty); }
  __device__ __forceinline__ static void wait_store_read() {}
};

// The kernel's choice: O's own buffer where shared memory (Q, the K and V rings, O and
// the barriers' share) has room for it; early release wherever O is not over Q.
template <class T, int kHeadDim, bool kStagesO, uint32_t kTileBytes>
inline constexpr bool kOwnOBuffer =
    kStagesO && kTileBytes + kBlockM * kHeadDim * sizeof(T) + 2048 <= uint32_t(hopper::kMaxSmemPerBlock);
template <class T, int kHeadDim, bool kStagesO, uint32_t kTileBytes>
using QRelease = std::conditional_t<kOwnOBuffer<T, kHeadDim, kStagesO, kTileBytes> || !kStagesO,
                                    QReleaseEarly<T, kHeadDim, kOwnOBuffer<T, kHeadDim, kStagesO, kTileBytes>>,
                                    QReleaseLate<T>>;

}  // namespace warpspec::attention_impl
