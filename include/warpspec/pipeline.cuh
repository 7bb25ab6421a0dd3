#pragma once
// The staged producer/consumer ring that every warp-specialized kernel here runs on.
//
// kStages buffers, each guarded by two mbarriers:
//   full[s]  — the producer fills stage s; consumers wait on it.
//              TMA producers: one arrive.expect_tx (the stage's bytes) per phase; the
//              copies complete the transactions. Thread producers: `producer_arrivals`
//              plain arrives after their stores.
//   empty[s] — consumers release stage s; the producer waits on it before refilling.
//              `consumer_arrivals` arrives per phase (e.g. one elected thread per
//              consumer warpgroup, times the CTAs that multicast into this one).
//
// Phase bookkeeping lives in a PipelineState each role keeps in registers: the stage
// index and the parity of the lap. Consumers wait full[s] on the lap parity; producers
// wait empty[s] on the opposite parity, so their first lap passes at once (a fresh
// barrier reads parity 1 as complete: HOPPER-FACTS §2).
#include <cstdint>

#include "warpspec/hopper/mbarrier.cuh"

namespace warpspec {

template <int kStages>
struct PipelineState {
  static_assert(kStages >= 1, "a pipeline needs at least one stage");
  int index = 0;
  uint32_t phase = 0;  // parity of the current lap over the ring

  __device__ __forceinline__ void advance() {
    if (++index == kStages) {
      index = 0;
      phase ^= 1u;
    }
  }
  // State after `n` more advances (for starting a role part-way into the ring).
  __device__ __forceinline__ PipelineState advanced(int n) const {
    PipelineState s;
    const int total = index + n;
    s.index = total % kStages;
    s.phase = phase ^ static_cast<uint32_t>((total / kStages) & 1);
    return s;
  }
};

// Barrier storage; place it in shared memory (8-byte aligned by type).
template <int kStages>
struct PipelineStorage {
  uint64_t full[kStages];
  uint64_t empty[kStages];
};

template <int kStages>
class Pipeline {
 public:
  using State = PipelineState<kStages>;
  static constexpr int stages = kStages;

  __device__ __forceinline__ explicit Pipeline(PipelineStorage<kStages>& storage) : s_(storage) {}

  // One thread of the CTA; then fence_barrier_init() and a CTA (or cluster) sync
  // before any role touches the barriers.
  __device__ __forceinline__ void init(uint32_t producer_arrivals, uint32_t consumer_arrivals) {
#pragma unroll
    for (int i = 0; i < kStages; ++i) {
      hopper::mbarrier_init(&s_.full[i], producer_arrivals);
      hopper::mbarrier_init(&s_.empty[i], consumer_arrivals);
    }
  }

  // ---- producer side
  // Wait until consumers have released this stage (free on the first lap).
  __device__ __forceinline__ void producer_acquire(const State& st) {
    hopper::mbarrier_wait(&s_.empty[st.index], st.phase ^ 1u);
  }
  // Same, when the releases come from other CTAs of the cluster (multicast consumers).
  __device__ __forceinline__ void producer_acquire_cluster(const State& st) {
    hopper::mbarrier_wait_cluster(&s_.empty[st.index], st.phase ^ 1u);
  }
  // TMA producer: announce the stage's bytes and arrive (one thread). The copies for
  // the stage complete on full_barrier(st).
  __device__ __forceinline__ void producer_expect_tx(const State& st, uint32_t bytes) {
    hopper::mbarrier_arrive_expect_tx(&s_.full[st.index], bytes);
  }
  // Thread producer: arrive after this thread's stores into the stage.
  __device__ __forceinline__ void producer_commit(const State& st) { hopper::mbarrier_arrive(&s_.full[st.index]); }
  __device__ __forceinline__ uint64_t* full_barrier(const State& st) { return &s_.full[st.index]; }

  // ---- consumer side
  __device__ __forceinline__ bool consumer_try_wait(const State& st) {
    return hopper::mbarrier_try_wait(&s_.full[st.index], st.phase);
  }
  __device__ __forceinline__ void consumer_wait(const State& st) {
    hopper::mbarrier_wait(&s_.full[st.index], st.phase);
  }
  // Release the stage to this CTA's producer: `consumer_arrivals` of these per phase.
  __device__ __forceinline__ void consumer_release(const State& st) {
    hopper::mbarrier_arrive(&s_.empty[st.index]);
  }
  // Release the stage to the producer of cluster CTA `cta_rank` (multicast pipelines).
  __device__ __forceinline__ void consumer_release_cluster(const State& st, uint32_t cta_rank) {
    hopper::mbarrier_arrive_cluster(&s_.empty[st.index], cta_rank);
  }

  // Producer tail: wait until consumers have released every stage the producer filled,
  // so the CTA (or a cluster peer) does not exit while its barriers are still in use.
  __device__ __forceinline__ void producer_drain(State st) {
#pragma unroll 1
    for (int i = 0; i < kStages; ++i) {
      producer_acquire(st);
      st.advance();
    }
  }

 private:
  PipelineStorage<kStages>& s_;
};

}  // namespace warpspec
