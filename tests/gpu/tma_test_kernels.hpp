#pragma once
// The TMA test kernels (tma_test.cu) as the tests (tma_test.cpp) launch them. Plain
// C++: the tests compile with the C++ GPU tests. Each launcher returns the first error
// of the shared-memory opt-in and the launch.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "warpspec/hopper/swizzle.hpp"

namespace tma_test {  // named: the file is compiled with others in one translation unit

struct Coords {
  int32_t v[5];
};

// One box of the rank-`rank` map at `c` into shared memory (the barrier expecting the
// full `box_bytes`), then `read_bytes` of it copied to out, logical byte i read from
// swizzle_offset(read_swizzle, i).
cudaError_t launch_load(int rank, const CUtensorMap& map, const Coords& c, uint32_t box_bytes, uint32_t read_bytes,
                        warpspec::hopper::TmaSwizzle read_swizzle, uint8_t* out);

// The dense box `box_in` (`box_bytes`) written into shared memory in the `swizzle`
// layout and stored by TMA at (c0, c1) of the 2-D map.
cudaError_t launch_store(const CUtensorMap& map, int32_t c0, int32_t c1, uint32_t box_bytes,
                         warpspec::hopper::TmaSwizzle swizzle, const uint8_t* box_in);

// `clusters` clusters of 2 CTAs; the CTAs of cluster q multicast the two halves (rows
// [rank * half_rows, +half_rows)) of the map's tile at row 2 * q * half_rows into both,
// and CTA b copies the tile it received to out + b * 2 * half_rows * row_bytes, byte i
// read from swizzle_offset(swizzle, i).
cudaError_t launch_multicast(const CUtensorMap& map, uint32_t clusters, uint32_t half_rows, uint32_t row_bytes,
                             warpspec::hopper::TmaSwizzle swizzle, uint8_t* out);

// Two bulk copies (no tensor map) of `run_bytes` from src + off0 and src + off1 into
// shared memory one after the other, on one barrier; the 2 * run_bytes copied to out.
cudaError_t launch_bulk_load(const uint8_t* src, uint32_t off0, uint32_t off1, uint32_t run_bytes, uint8_t* out);

}  // namespace tma_test
