// The warp-specialized pipeline: one producer warp, two consumer warpgroups after
// setmaxnreg, a few stages wrapped many times, two CTAs each with its own pipeline.
// Every item must reach every thread of each consumer warpgroup exactly once, in order,
// intact: each thread checks the word it reads against the expected payload of that
// item, and the threads that saw the right word are counted per (CTA, warpgroup, item),
// so one thread reading a stage before the producer filled it (or after it was
// refilled) makes a count fall short of 128.
// The kernels are in pipeline_test.cu.
#include <vector>

#include "common/gpu_test.hpp"
#include "gpu/pipeline_test_kernels.hpp"

namespace pipeline_test {  // named: the file is compiled with others in one translation unit

using namespace warpspec;

// The GPU binary's first check: a Hopper device is present and runs sm_90a code.
TEST(Smoke, ElectOnePicksOneLanePerWarp) {
  WARPSPEC_REQUIRE_HOPPER();
  test::DeviceBuffer count(sizeof(int));
  CUDA_ASSERT(cudaMemset(count.get(), 0, sizeof(int)));
  CUDA_ASSERT(launch_elect(count.as<int>()));
  CUDA_ASSERT(cudaDeviceSynchronize());
  EXPECT_EQ(test::to_host<int>(count, 1)[0], 3 * 8);
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
    CUDA_ASSERT(launch_thread_pipeline(kCtas, seed, items, out.as<uint32_t>(), count.as<int>()));
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
