#pragma once
// When Q's shared-memory buffer goes back to the producer (q_empty), and where the
// 16-bit epilogue stages O.
//
// Nothing but the tile's S = Q·Kᵀ wgmmas reads Q. Where O has a buffer of its own
// (head dims 64 and 128: 16 and 32 KB beside 112 and 160 KB), or is not staged at all
// (FP8, split-KV partials: stores from registers), each consumer warp gives Q back as
// soon as its last S wgmma of the tile has completed: the producer then loads the next
// tile's Q while the consumers run the last P·V and the epilogue, and the next tile
// starts on a resident Q instead of waiting for the store to drain and Q to land.
// Head dims 192 and 256 have no room for a second buffer (216 + 48, 224 + 64 KB): O is
// staged over Q, which goes back only once the O store has read it.
//
// `kOwnO` true: the O staging buffer is separate; its TMA store is waited on (read)
// before the buffer is written again and once at the end (drain).
#include <cstdint>
#include <type_traits>

#include "warpspec/attention/config.hpp"
#include "warpspec/hopper/mbarrier.cuh"
#include "warpspec/hopper/tma.cuh"

namespace warpspec::attention_impl {

template <class T, int kHeadDim, bool kOwnO, bool kStagesO>
struct QRelease {
  // Q goes back after the last S wgmma: by one lane of each consumer warp (as K's stages).
  static constexpr bool kEarly = kOwnO || !kStagesO;
  static constexpr uint32_t kArrivals = kEarly ? 4 * kConsumerWarpgroups : kConsumerWarpgroups;

  // The mainloop's tiles (Q, K, V), with O's own buffer after them when there is one.
  template <class Tiles>
  struct WithO : Tiles {
    alignas(1024) T o[kBlockM * kHeadDim];
  };
  template <class Tiles>
  using Storage = std::conditional_t<kOwnO, WithO<Tiles>, Tiles>;

  // Where the 16-bit epilogue stages O: its own buffer, or over Q.
  template <class S>
  __device__ __forceinline__ static T* staging(S& tiles) {
    if constexpr (kOwnO)
      return tiles.o;
    else
      return tiles.q;
  }

  // A consumer warp's releaser lane, once the tile's last S wgmma has been waited on.
  __device__ __forceinline__ static void after_last_qk(uint64_t* q_empty, bool release) {
    if constexpr (kEarly)
      if (release) hopper::mbarrier_arrive(q_empty);
  }

  // One thread per consumer warpgroup, once nothing of the warpgroup reads the buffer
  // any more (its wgmmas waited on, its O store's reads done).
  __device__ __forceinline__ static void after_store(uint64_t* q_empty) {
    if constexpr (!kEarly) hopper::mbarrier_arrive(q_empty);
  }

  // The thread that issued the warpgroup's O store (TMA, committed): over Q, once the
  // store has read the staging.
  __device__ __forceinline__ static void after_tma_store(uint64_t* q_empty) {
    if constexpr (!kEarly) {
      hopper::tma_store_wait_read<0>();
      hopper::mbarrier_arrive(q_empty);
    }
  }

  // The thread that issued the warpgroup's O store: its reads of the staging are done
  // (before the staging is written again, and before the kernel ends).
  __device__ __forceinline__ static void wait_store_read() {
    if constexpr (kOwnO) hopper::tma_store_wait_read<0>();
  }
};

}  // namespace warpspec::attention_impl
