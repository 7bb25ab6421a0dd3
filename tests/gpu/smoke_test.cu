// The GPU binary's first check: a Hopper device is present and runs sm_90a code.
#include "common/gpu_test.hpp"
#include "warpspec/hopper/warp.cuh"

namespace {

__global__ void elect_kernel(int* count) {
  if (warpspec::hopper::elect_one()) atomicAdd(count, 1);
}

TEST(Smoke, ElectOnePicksOneLanePerWarp) {
  WARPSPEC_REQUIRE_HOPPER();
  warpspec::test::DeviceBuffer count(sizeof(int));
  CUDA_ASSERT(cudaMemset(count.get(), 0, sizeof(int)));
  elect_kernel<<<3, 256>>>(count.as<int>());
  CUDA_ASSERT(cudaGetLastError());
  CUDA_ASSERT(cudaDeviceSynchronize());
  EXPECT_EQ(warpspec::test::to_host<int>(count, 1)[0], 3 * 8);
}

}  // namespace
