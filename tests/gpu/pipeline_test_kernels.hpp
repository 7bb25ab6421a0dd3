#pragma once
// The kernels of the pipeline tests (pipeline_test.cu) as their bodies
// (pipeline_test.cpp) launch them. Plain C++: the bodies compile with the C++ GPU tests.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "testing/random.hpp"
#include "warpspec/hopper/limits.hpp"

namespace pipeline_test {  // named: the file is compiled with others in one translation unit

constexpr int kStages = 3;
constexpr int kWords = 64;  // 32-bit words per stage
// Threads of a consumer warpgroup (hopper::kWarpgroupSize, whose header is device code).
constexpr int kWarpgroupSize = warpspec::hopper::kWarpgroupThreads;

// Word `word` of item `item`: a hash, so a word from the wrong stage, item or lap shows.
constexpr uint32_t payload(uint64_t seed, uint32_t item, uint32_t word) {
  return uint32_t(warpspec::testbed::hash64(seed, uint64_t(item) << 32 | word));
}

// 3 CTAs of 256 threads; each warp's elected lane adds 1 to *count. The launch's error.
cudaError_t launch_elect(int* count);

// `ctas` CTAs, each with its own pipeline of kStages stages that its producer warp
// fills with `items` items: out[g][item][word] and count[g][item] as the kernel
// (pipeline_test.cu) describes them, g = 2 * CTA + consumer warpgroup. The launch's error.
cudaError_t launch_thread_pipeline(int ctas, uint64_t seed, int items, uint32_t* out, int* count);

}  // namespace pipeline_test
