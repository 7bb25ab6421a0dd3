// The warp-specialized pipeline: one producer warp, two consumer warpgroups after
// setmaxnreg, a few stages wrapped many times. Every item must reach each consumer
// warpgroup exactly once, in order, intact.
#include <vector>

#include "common/gpu_test.hpp"
#include "warpspec/hopper/warp.cuh"
#include "warpspec/pipeline.cuh"

namespace {

using namespace warpspec;
using namespace warpspec::hopper;

constexpr int kStages = 3;
constexpr int kWords = 64;  // 32-bit words per stage
constexpr int kThreads = 384;

__host__ __device__ inline uint32_t payload(uint64_t seed, uint32_t item, uint32_t word) {
  uint64_t x = seed ^ (uint64_t(item) * 0x9E3779B97F4A7C15ull) ^ (uint64_t(word) << 40 | word);
  x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 29; x *= 0x94D049BB133111EBull; x ^= x >> 32;
  return static_cast<uint32_t>(x);
}

struct Smem {
  uint32_t data[kStages][kWords];
  PipelineStorage<kStages> barriers;
};

// out[wg][item][word] and count[wg][item]; wg = consumer warpgroup 0/1.
__global__ void __launch_bounds__(kThreads, 1)
thread_pipeline_kernel(uint64_t seed, int items, uint32_t* out, int* count) {
  __shared__ Smem smem;
  Pipeline<kStages> pipe(smem.barriers);
  if (threadIdx.x == 0) {
    // Producer: every lane of the producer warp arrives (32), after its own stores.
    // Consumers: every thread of both consumer warpgroups (256), after its own read.
    pipe.init(32, 256);
    fence_barrier_init();
  }
  __syncthreads();

  const int wg = warpgroup_index();
  if (wg == 0) {
    setmaxnreg_dec<40>();
    if (warp_index() == 0) {
      PipelineState<kStages> st;
      const int lane = lane_index();
#pragma unroll 1
      for (int item = 0; item < items; ++item) {
        pipe.producer_acquire(st);
        smem.data[st.index][lane] = payload(seed, item, lane);
        smem.data[st.index][lane + 32] = payload(seed, item, lane + 32);
        pipe.producer_commit(st);
        st.advance();
      }
    }
  } else {
    setmaxnreg_inc<232>();
    const int consumer = wg - 1;
    const int t = threadIdx.x % kWarpgroupSize;
    PipelineState<kStages> st;
#pragma unroll 1
    for (int item = 0; item < items; ++item) {
      pipe.consumer_wait(st);
      const uint32_t v = smem.data[st.index][t % kWords];
      pipe.consumer_release(st);
      if (t < kWords) out[(size_t(consumer) * items + item) * kWords + t] = v;
      if (t == 0) atomicAdd(&count[consumer * items + item], 1);
      st.advance();
    }
  }
}

TEST(Pipeline, ThreadProducerTwoConsumerWarpgroupsManyLaps) {
  WARPSPEC_REQUIRE_HOPPER();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  for (int items : {1, kStages, kStages + 1, 3001}) {
    SCOPED_TRACE(testing::Message() << "items " << items);
    test::DeviceBuffer out(size_t(2) * items * kWords * sizeof(uint32_t));
    test::DeviceBuffer count(size_t(2) * items * sizeof(int));
    CUDA_ASSERT(test::poison(out));
    CUDA_ASSERT(cudaMemset(count.get(), 0, count.bytes()));
    thread_pipeline_kernel<<<2, kThreads>>>(seed, items, out.as<uint32_t>(), count.as<int>());
    CUDA_ASSERT(cudaGetLastError());
    CUDA_ASSERT(cudaDeviceSynchronize());
    auto h_out = test::to_host<uint32_t>(out, size_t(2) * items * kWords);
    auto h_count = test::to_host<int>(count, size_t(2) * items);
    // Both CTAs ran the same sequence; the last writer wins on `out`, so counts are 2.
    int bad = 0;
    for (int c = 0; c < 2; ++c)
      for (int i = 0; i < items; ++i) {
        if (h_count[c * items + i] != 2) ++bad;
        for (int w = 0; w < kWords; ++w)
          if (h_out[(size_t(c) * items + i) * kWords + w] != payload(seed, i, w)) ++bad;
      }
    EXPECT_EQ(bad, 0);
  }
}

}  // namespace
