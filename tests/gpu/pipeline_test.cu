// The warp-specialized pipeline: one producer warp, two consumer warpgroups after
// setmaxnreg, a few stages wrapped many times, two CTAs each with its own pipeline.
// Every item must reach every thread of each consumer warpgroup exactly once, in order,
// intact: each thread checks the word it reads against the expected payload of that
// item, and the threads that saw the right word are counted per (CTA, warpgroup, item),
// so one thread reading a stage before the producer filled it (or after it was
// refilled) makes a count fall short of 128.
#include <vector>

#include "common/gpu_test.hpp"
#include "testing/random.hpp"
#include "warpspec/hopper/warp.cuh"
#include "warpspec/pipeline.cuh"

namespace pipeline_test {  // named: the file is compiled with others in one translation unit

using namespace warpspec;
using namespace warpspec::hopper;

// The GPU binary's first check: a Hopper device is present and runs sm_90a code.
__global__ void elect_kernel(int* count) {
  if (elect_one()) atomicAdd(count, 1);
}

TEST(Smoke, ElectOnePicksOneLanePerWarp) {
  WARPSPEC_REQUIRE_HOPPER();
  test::DeviceBuffer count(sizeof(int));
  CUDA_ASSERT(cudaMemset(count.get(), 0, sizeof(int)));
  elect_kernel<<<3, 256>>>(count.as<int>());
  CUDA_ASSERT(cudaGetLastError());
  CUDA_ASSERT(cudaDeviceSynchronize());
  EXPECT_EQ(test::to_host<int>(count, 1)[0], 3 * 8);
}

constexpr int kStages = 3;
constexpr int kWords = 64;  // 32-bit words per stage
constexpr int kThreads = 384;

// Word `word` of item `item`: a hash, so a word from the wrong stage, item or lap shows.
constexpr uint32_t payload(uint64_t seed, uint32_t item, uint32_t word) {
  return uint32_t(testbed::hash64(seed, uint64_t(item) << 32 | word));
}

struct Smem {
  uint32_t data[kStages][kWords];
  PipelineStorage<kStages> barriers;
};

// Per CTA and consumer warpgroup c (0/1), g = 2 * blockIdx.x + c: out[g][item][word]
// (what the warpgroup's first 64 threads read) and count[g][item] (how many of its 128
// threads read the right word).
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
      const size_t g = size_t(blockIdx.x) * 2 + size_t(consumer);
      if (t < kWords) out[(g * items + item) * kWords + t] = v;
      const unsigned right = __ballot_sync(0xffffffffu, v == payload(seed, item, t % kWords));
      if (lane_index() == 0) atomicAdd(&count[g * items + item], __popc(right));
      st.advance();
    }
  }
}

TEST(Pipeline, ThreadProducerTwoConsumerWarpgroupsManyLaps) {
  WARPSPEC_REQUIRE_HOPPER();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  constexpr int kCtas = 2, kGroups = 2 * kCtas;
  for (int items : {1, kStages, kStages + 1, 3001}) {
    SCOPED_TRACE(testing::Message() << "items " << items);
    test::DeviceBuffer out(size_t(kGroups) * items * kWords * sizeof(uint32_t));
    test::DeviceBuffer count(size_t(kGroups) * items * sizeof(int));
    CUDA_ASSERT(test::poison(out));
    CUDA_ASSERT(cudaMemset(count.get(), 0, count.bytes()));
    thread_pipeline_kernel<<<kCtas, kThreads>>>(seed, items, out.as<uint32_t>(), count.as<int>());
    CUDA_ASSERT(cudaGetLastError());
    CUDA_ASSERT(cudaDeviceSynchronize());
    auto h_out = test::to_host<uint32_t>(out, size_t(kGroups) * items * kWords);
    auto h_count = test::to_host<int>(count, size_t(kGroups) * items);
    int64_t bad_words = 0, bad_counts = 0;
    for (int g = 0; g < kGroups; ++g)
      for (int i = 0; i < items; ++i) {
        const int c = h_count[size_t(g) * items + i];
        if (c != kWarpgroupSize && bad_counts++ < 5)
          ADD_FAILURE() << "CTA " << g / 2 << " warpgroup " << g % 2 << " item " << i << ": " << c << " of "
                        << kWarpgroupSize << " threads read the right word";
        for (int w = 0; w < kWords; ++w)
          if (h_out[(size_t(g) * items + i) * kWords + w] != payload(seed, uint32_t(i), uint32_t(w)) && bad_words++ < 5)
            ADD_FAILURE() << "CTA " << g / 2 << " warpgroup " << g % 2 << " item " << i << " word " << w << " wrong";
      }
    EXPECT_EQ(bad_counts, 0);
    EXPECT_EQ(bad_words, 0);
  }
}

}  // namespace pipeline_test
