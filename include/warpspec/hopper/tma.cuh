#pragma once
// TMA (cp.async.bulk.tensor), device side: tile loads that complete on an mbarrier,
// multicast loads across a cluster, tile stores in bulk groups, descriptor prefetch,
// and the generic->async proxy fence. The host side (tensor-map encoding and its
// checks) is in tma_map.hpp.
//
// Coordinates are element indices, innermost dimension first, and may be negative or
// past the edge: TMA fills out-of-bounds elements of a load (zeros, or NaN when asked)
// and clips stores. The barrier still counts the FULL box bytes for a partly or wholly
// out-of-bounds load (HOPPER-FACTS §3), so expect_tx is always the box size.
#include <cuda.h>
#include <cuda/ptx>

#include "warpspec/hopper/arch.cuh"

namespace warpspec::hopper {

// Load a box at `coords` into shared memory `dst` (128-byte aligned; 1024 for SW128
// tiles that wgmma reads) and complete its bytes on `bar`, a barrier of this CTA.
template <class... Coords>
WARPSPEC_DEVICE void tma_load(void* dst, const CUtensorMap* map, uint64_t* bar, Coords... coords) {
  static_assert(sizeof...(Coords) >= 1 && sizeof...(Coords) <= 5, "TMA tensors have rank 1..5");
  const int32_t c[sizeof...(Coords)] = {static_cast<int32_t>(coords)...};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map, c, bar);
}

// Multicast load: the box lands at the same shared-memory offset `dst` in every CTA of
// the cluster whose rank bit is set in `cta_mask`, and completes on the barrier at the
// same offset as `bar` in each. Every receiving CTA must expect_tx these bytes.
template <class... Coords>
WARPSPEC_DEVICE void tma_load_multicast(void* dst, const CUtensorMap* map, uint64_t* bar, uint16_t cta_mask,
                                        Coords... coords) {
  static_assert(sizeof...(Coords) >= 1 && sizeof...(Coords) <= 5, "TMA tensors have rank 1..5");
  const int32_t c[sizeof...(Coords)] = {static_cast<int32_t>(coords)...};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map, c, bar, cta_mask);
}

// Store the box in shared memory `src` to `coords` (must be >= 0). The writers of `src`
// must have run fence_proxy_async_smem() and a barrier first. Part of the issuing
// thread's current bulk group: commit, then wait before reusing `src`.
template <class... Coords>
WARPSPEC_DEVICE void tma_store(const CUtensorMap* map, const void* src, Coords... coords) {
  static_assert(sizeof...(Coords) >= 1 && sizeof...(Coords) <= 5, "TMA tensors have rank 1..5");
  const int32_t c[sizeof...(Coords)] = {static_cast<int32_t>(coords)...};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, map, c, src);
}

// Close the issuing thread's bulk group (stores issued since the last commit).
WARPSPEC_DEVICE void tma_store_commit() { cuda::ptx::cp_async_bulk_commit_group(); }

// Wait until at most N of this thread's committed store groups still READ shared
// memory: their sources may then be overwritten.
template <int N>
WARPSPEC_DEVICE void tma_store_wait_read() {
  cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<N>{});
}

// Wait until at most N of this thread's store groups are incomplete (writes visible).
template <int N>
WARPSPEC_DEVICE void tma_store_wait() {
  cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<N>{});
}

// Warm the descriptor cache with the tensor map (a generic address of a
// __grid_constant__ parameter, or of .const/.global memory).
WARPSPEC_DEVICE void tma_prefetch_descriptor(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// Make this thread's generic-proxy writes to shared memory (st.shared, stmatrix)
// visible to the async proxy (TMA store, wgmma). Each writer runs it before the
// barrier that hands the buffer over.
WARPSPEC_DEVICE void fence_proxy_async_smem() { cuda::ptx::fence_proxy_async(cuda::ptx::space_shared); }

}  // namespace warpspec::hopper
