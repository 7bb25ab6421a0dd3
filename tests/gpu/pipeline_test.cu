// The kernels of the warp-specialized pipeline tests (pipeline_test.cpp says what they
// check), with their launchers. No GoogleTest here: the bodies are C++.
#include "gpu/pipeline_test_kernels.hpp"
#include "warpspec/hopper/warp.cuh"
#include "warpspec/pipeline.cuh"

namespace pipeline_test {  // named: the file is compiled with others in one translation unit

using namespace warpspec;
using namespace warpspec::hopper;

static_assert(pipeline_test::kWarpgroupSize == hopper::kWarpgroupSize);

constexpr int kThreads = 384;

// The GPU binary's first check: a Hopper device is present and runs sm_90a code.
__global__ void elect_kernel(int* count) {
  if (elect_one()) atomicAdd(count, 1);
}

cudaError_t launch_elect(int* count) {
  elect_kernel<<<3, 256>>>(count);
  return cudaGetLastError();
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

cudaError_t launch_thread_pipeline(int ctas, uint64_t seed, int items, uint32_t* out, int* count) {
  thread_pipeline_kernel<<<ctas, kThreads>>>(seed, items, out, count);
  return cudaGetLastError();
}

}  // namespace pipeline_test
