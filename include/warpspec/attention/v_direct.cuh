#pragma once
// The 16-bit V path: wgmma reads 16-bit V N-major straight from the TMA-written tile, so
// the loader fills the consumers' V ring itself and there is nothing to pump. The same
// calls as the FP8 pump (v_transpose.cuh), so the kernel's roles call one V path
// either way: init and finish do nothing, pump returns at once (producer warps 1-3 go
// idle, as they do today), load is the V half of today's K/V load.
#include <cstdint>

#include "warpspec/pipeline.cuh"

namespace warpspec::attention_impl {

// kStages: the consumers' V ring; kStageBytes: one V block as the loader's boxes land it.
template <int kStages, uint32_t kStageBytes>
struct VDirect {
  static constexpr uint32_t kVFullArrivals = 1;  // the loader's arrive.expect_tx
  struct Storage {};
  using LoadState = PipelineState<kStages>;

  __device__ __forceinline__ static void init(Storage&) {}

  // The loader thread: one V block into the next stage of the consumers' ring
  // (c.s.tiles.v, c.vpipe); `issue(dst, bar)` issues its TMA boxes.
  template <class Ctx, class Issue>
  __device__ __forceinline__ static void load(Ctx& c, LoadState& st, Issue&& issue) {
    c.vpipe.producer_acquire(st);
    c.vpipe.producer_expect_tx(st, kStageBytes);  // whole boxes, in bounds or not
    issue(static_cast<void*>(c.s.tiles.v[st.index]), c.vpipe.full_barrier(st));
    st.advance();
  }

  template <class Ctx>
  __device__ __forceinline__ static void finish(Ctx&, LoadState&) {}

  template <class Ctx>
  __device__ __forceinline__ static int pump(Ctx&, int) {
    return 0;
  }
};

}  // namespace warpspec::attention_impl
