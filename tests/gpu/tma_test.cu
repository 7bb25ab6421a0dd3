// The TMA test kernels (tma_test.cpp says what the tests check), with their launchers.
// No GoogleTest here: the tests are C++.
#include <cuda.h>

#include <algorithm>
#include <cstdint>

#include "gpu/tma_test_kernels.hpp"
#include "warpspec/hopper/cluster.cuh"
#include "warpspec/hopper/mbarrier.cuh"
#include "warpspec/hopper/swizzle.hpp"
#include "warpspec/hopper/tma.cuh"

namespace tma_test {  // named: the file is compiled with others in one translation unit

using warpspec::hopper::TmaSwizzle;
namespace hw = warpspec::hopper;

constexpr int kThreads = 128;
// Swizzled tiles sit on 1024-B boundaries so swizzle_offset (anchored to address bits
// up to 9) is exact for every mode; the dynamic-smem base is rounded up at run time
// and 1 KB extra requested (HOPPER-FACTS §10.13).
constexpr uint32_t kTileAlign = 1024;

__device__ uint8_t* align_tile(uint8_t* raw) {
  const uint32_t addr = hw::smem_u32(raw);
  return raw + ((kTileAlign - addr % kTileAlign) % kTileAlign);
}

// Poison the first `bytes` of the tile so a fill TMA failed to write cannot pass as stale
// zeros, and make `full` ready for one arrival. The generic-proxy writes are ordered before
// TMA's async-proxy writes: proxy fence, then the CTA barrier.
__device__ void poison_and_init(uint8_t* tile, uint32_t bytes, uint64_t* full) {
  for (uint32_t i = threadIdx.x; i < bytes; i += blockDim.x) tile[i] = 0xA5;
  hw::fence_proxy_async_smem();
  if (threadIdx.x == 0) {
    hw::mbarrier_init(full, 1);
    hw::fence_barrier_init();
  }
  __syncthreads();
}

template <int kRank>
__device__ void issue_load(void* dst, const CUtensorMap* map, uint64_t* bar, const Coords& c) {
  if constexpr (kRank == 1) hw::tma_load(dst, map, bar, c.v[0]);
  if constexpr (kRank == 2) hw::tma_load(dst, map, bar, c.v[0], c.v[1]);
  if constexpr (kRank == 3) hw::tma_load(dst, map, bar, c.v[0], c.v[1], c.v[2]);
  if constexpr (kRank == 4) hw::tma_load(dst, map, bar, c.v[0], c.v[1], c.v[2], c.v[3]);
  if constexpr (kRank == 5) hw::tma_load(dst, map, bar, c.v[0], c.v[1], c.v[2], c.v[3], c.v[4]);
}

// One box into shared memory, then plain threads copy `read_bytes` of it out, logical
// byte i read from swizzle_offset(read_swizzle, i). The barrier expects the FULL box
// (`box_bytes`) whatever part of it is out of bounds.
template <int kRank>
__global__ void __launch_bounds__(kThreads) load_box_kernel(const __grid_constant__ CUtensorMap map, Coords coords,
                                                            uint32_t box_bytes, uint32_t read_bytes,
                                                            TmaSwizzle read_swizzle, uint8_t* out) {
  extern __shared__ uint8_t smem_raw[];
  __shared__ uint64_t full;
  uint8_t* tile = align_tile(smem_raw);
  poison_and_init(tile, read_bytes, &full);
  if (threadIdx.x == 0) {
    hw::mbarrier_arrive_expect_tx(&full, box_bytes);
    issue_load<kRank>(tile, &map, &full, coords);
  }
  hw::mbarrier_wait(&full, 0);
  for (uint32_t i = threadIdx.x; i < read_bytes; i += blockDim.x) out[i] = tile[hw::swizzle_offset(read_swizzle, i)];
}

// A dense box (logical layout) written into shared memory in the swizzled layout, then
// stored by one thread. Every writer fences its generic writes for the async proxy
// before the barrier that hands the tile to the issuer.
__global__ void __launch_bounds__(kThreads) store_box_kernel(const __grid_constant__ CUtensorMap map, int32_t c0,
                                                             int32_t c1, uint32_t box_bytes, TmaSwizzle swizzle,
                                                             const uint8_t* box_in) {
  extern __shared__ uint8_t smem_raw[];
  uint8_t* tile = align_tile(smem_raw);
  for (uint32_t i = threadIdx.x; i < box_bytes; i += blockDim.x) tile[hw::swizzle_offset(swizzle, i)] = box_in[i];
  hw::fence_proxy_async_smem();
  __syncthreads();
  if (threadIdx.x == 0) {
    hw::tma_store(&map, tile, c0, c1);
    hw::tma_store_commit();
    // Full completion (not just .read): the writes must be done before the CTA exits
    // and the host reads them.
    hw::tma_store_wait<0>();
  }
}

// A 2-CTA cluster; each CTA multicasts one half (rows [rank*half_rows, +half_rows)) of
// its cluster's tile into both CTAs, so each CTA's barrier receives the whole tile's
// bytes: half from itself, half from its peer.
__global__ void __launch_bounds__(kThreads) multicast_kernel(const __grid_constant__ CUtensorMap map,
                                                             uint32_t half_rows, uint32_t row_bytes,
                                                             TmaSwizzle swizzle, uint8_t* out) {
  extern __shared__ uint8_t smem_raw[];
  __shared__ uint64_t full;
  uint8_t* tile = align_tile(smem_raw);
  const uint32_t rank = hw::cluster_cta_rank();
  const uint32_t half_bytes = half_rows * row_bytes;
  const uint32_t tile_bytes = 2 * half_bytes;
  for (uint32_t i = threadIdx.x; i < tile_bytes; i += blockDim.x) tile[i] = 0xA5;
  hw::fence_proxy_async_smem();
  if (threadIdx.x == 0) {
    hw::mbarrier_init(&full, 1);
    hw::fence_barrier_init();
  }
  // Both barriers initialised (and the poison ordered) before any CTA multicasts into
  // its peer: a release/acquire cluster barrier.
  hw::cluster_sync();
  // Grid is 1-D with cluster {2,1,1}: clusters are consecutive pairs of blocks.
  const uint32_t cluster = blockIdx.x / 2;
  if (threadIdx.x == 0) {
    hw::mbarrier_arrive_expect_tx(&full, tile_bytes);
    hw::tma_load_multicast(tile + rank * half_bytes, &map, &full, static_cast<uint16_t>(0x3), 0,
                           static_cast<int32_t>((2 * cluster + rank) * half_rows));
  }
  hw::mbarrier_wait(&full, 0);
  for (uint32_t i = threadIdx.x; i < tile_bytes; i += blockDim.x)
    out[blockIdx.x * tile_bytes + i] = tile[hw::swizzle_offset(swizzle, i)];
  // No CTA leaves while its peer may still be writing into it.
  hw::cluster_sync();
}

// Bulk copies without a tensor map (hopper::bulk_load; branch fixup-staged moves the GEMM
// fixup's partials with it, bench/NOTES.md v83): two runs of `run_bytes` from global offsets `off0` and `off1` into shared memory
// one after the other, both completing on one barrier; then plain threads copy the tile out.
__global__ void __launch_bounds__(kThreads) bulk_load_kernel(const uint8_t* src, uint32_t off0, uint32_t off1,
                                                             uint32_t run_bytes, uint8_t* out) {
  extern __shared__ uint8_t smem_raw[];
  __shared__ uint64_t full;
  uint8_t* tile = align_tile(smem_raw);
  poison_and_init(tile, 2 * run_bytes, &full);
  if (threadIdx.x == 0) {
    hw::mbarrier_arrive_expect_tx(&full, 2 * run_bytes);
    hw::bulk_load(tile, src + off0, run_bytes, &full);
    hw::bulk_load(tile + run_bytes, src + off1, run_bytes, &full);
  }
  hw::mbarrier_wait(&full, 0);
  for (uint32_t i = threadIdx.x; i < 2 * run_bytes; i += blockDim.x) out[i] = tile[i];
}

// ------------------------------------------------------------------ launchers

cudaError_t launch_load(int rank, const CUtensorMap& map, const Coords& c, uint32_t box_bytes, uint32_t read_bytes,
                        TmaSwizzle read_swizzle, uint8_t* out) {
  const uint32_t smem = std::max(box_bytes, read_bytes) + kTileAlign;
  auto go = [&](auto kernel) {
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (e != cudaSuccess) return e;
    kernel<<<1, kThreads, smem>>>(map, c, box_bytes, read_bytes, read_swizzle, out);
    return cudaGetLastError();
  };
  switch (rank) {
    case 1: return go(load_box_kernel<1>);
    case 2: return go(load_box_kernel<2>);
    case 3: return go(load_box_kernel<3>);
    case 4: return go(load_box_kernel<4>);
    default: return go(load_box_kernel<5>);
  }
}

cudaError_t launch_store(const CUtensorMap& map, int32_t c0, int32_t c1, uint32_t box_bytes, TmaSwizzle swizzle,
                         const uint8_t* box_in) {
  const uint32_t smem = box_bytes + kTileAlign;
  if (cudaError_t e = cudaFuncSetAttribute(store_box_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem))
    return e;
  store_box_kernel<<<1, kThreads, smem>>>(map, c0, c1, box_bytes, swizzle, box_in);
  return cudaGetLastError();
}

cudaError_t launch_multicast(const CUtensorMap& map, uint32_t clusters, uint32_t half_rows, uint32_t row_bytes,
                             TmaSwizzle swizzle, uint8_t* out) {
  const uint32_t smem = 2 * half_rows * row_bytes + kTileAlign;
  if (cudaError_t e = cudaFuncSetAttribute(multicast_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem))
    return e;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(2 * clusters);
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 2;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, multicast_kernel, map, half_rows, row_bytes, swizzle, out);
}

cudaError_t launch_bulk_load(const uint8_t* src, uint32_t off0, uint32_t off1, uint32_t run_bytes, uint8_t* out) {
  const uint32_t smem = 2 * run_bytes + kTileAlign;
  if (cudaError_t e = cudaFuncSetAttribute(bulk_load_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem))
    return e;
  bulk_load_kernel<<<1, kThreads, smem>>>(src, off0, off1, run_bytes, out);
  return cudaGetLastError();
}

}  // namespace tma_test
