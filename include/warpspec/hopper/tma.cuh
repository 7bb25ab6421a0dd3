#pragma once
// TMA (cp.async.bulk.tensor), device side: tile loads that complete on an mbarrier,
// multicast loads across a cluster, tile stores in bulk groups, descriptor prefetch,
// and the generic->async proxy fence. The host side (tensor-map encoding and its
// checks) is in tma_map.hpp.
//
// Coordinates are element indices (int32), innermost dimension first.
//  - The INNERMOST coordinate times the element size must be a multiple of 16 bytes
//    (bf16/fp16: a multiple of 8 elements, fp32: 4, fp8: 16), for loads and stores
//    alike. Anything else, an odd element offset say, is not clipped or rounded: the
//    cp.async.bulk.tensor faults with an illegal instruction (cudaErrorIllegalInstruction),
//    which is sticky and ends the process's CUDA context. The tensor map cannot catch
//    this; the caller's coordinates must. Negative multiples of 16 B are fine.
//  - The other coordinates may be any value, negative or past the edge.
//  - Loads fill exactly the out-of-bounds ELEMENTS (zeros, or NaN when asked), however
//    far outside the box lies. The barrier still counts the FULL box bytes for a partly
//    or wholly out-of-bounds load (HOPPER-FACTS §3), so expect_tx is always the box size.
//  - Stores are clipped exactly in every dimension but the innermost, which is written
//    in whole 16-byte chunks: when the tensor's innermost extent in bytes is not a
//    multiple of 16, a store reaching that edge also writes the box's bytes past the
//    last element up to the next 16-byte boundary (the row's padding, or whatever lies
//    there; never further). Keep the innermost extent a multiple of 16 bytes, or own
//    the bytes up to that boundary, when storing.
#include <cuda.h>
#include "warpspec/hopper/cuda_ptx.hpp"

#include "warpspec/hopper/arch.cuh"

namespace warpspec::hopper {

// Load a box at `coords` into shared memory `dst` (128-byte aligned; 1024 for SW128
// tiles that wgmma reads) and complete its bytes on `bar`, a barrier of this CTA.
// coords[0] * element size must be a multiple of 16 bytes (else an illegal-instruction
// fault, see above); the other coordinates may be anything. Out-of-bounds elements are
// filled exactly, per element; expect_tx the whole box.
template <class... Coords>
WARPSPEC_DEVICE void tma_load(void* dst, const CUtensorMap* map, uint64_t* bar, Coords... coords) {
  static_assert(sizeof...(Coords) >= 1 && sizeof...(Coords) <= 5, "TMA tensors have rank 1..5");
  const int32_t c[sizeof...(Coords)] = {static_cast<int32_t>(coords)...};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map, c, bar);
}

// Multicast load: the box lands at the same shared-memory offset `dst` in every CTA of
// the cluster whose rank bit is set in `cta_mask`, and completes on the barrier at the
// same offset as `bar` in each. Every receiving CTA must expect_tx these bytes. Same
// coordinate rules as tma_load.
template <class... Coords>
WARPSPEC_DEVICE void tma_load_multicast(void* dst, const CUtensorMap* map, uint64_t* bar, uint16_t cta_mask,
                                        Coords... coords) {
  static_assert(sizeof...(Coords) >= 1 && sizeof...(Coords) <= 5, "TMA tensors have rank 1..5");
  const int32_t c[sizeof...(Coords)] = {static_cast<int32_t>(coords)...};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map, c, bar, cta_mask);
}

// Copy `bytes` contiguous bytes of global memory `src` into shared memory `dst` (both
// 16-byte aligned, bytes a multiple of 16; no tensor map) and complete them on `bar`, a
// barrier of this CTA (expect_tx them). Reads through the async proxy: data other threads
// wrote with generic stores needs their release, this thread's acquire, then
// fence_proxy_async_global() before the copy.
WARPSPEC_DEVICE void bulk_load(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, src, bytes, bar);
}

// Store the box in shared memory `src` to `coords` (must be >= 0; coords[0] * element
// size a multiple of 16 bytes, else an illegal-instruction fault). Out-of-bounds parts
// are clipped, but the innermost dimension only to 16-byte granularity: at the edge of
// a tensor whose innermost extent is not a multiple of 16 bytes, the bytes up to the
// next 16-byte boundary past the last element are written too (see above). The
// writers of `src` must have run fence_proxy_async_smem() and a barrier first. Part of
// the issuing thread's current bulk group: commit, then wait before reusing `src`.
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

// Order this thread's generic-proxy accesses to global memory (its own stores, and what
// its acquires made visible) before its later async-proxy ones (bulk_load of that data).
WARPSPEC_DEVICE void fence_proxy_async_global() { cuda::ptx::fence_proxy_async(cuda::ptx::space_global); }

}  // namespace warpspec::hopper
