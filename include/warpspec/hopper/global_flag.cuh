#pragma once
// Flags and data in global memory shared between CTAs of one grid (the GEMM's split-K /
// stream-K fixup): acquire/release flag accesses at GPU scope and L2-coherent vector
// loads and stores.
//
// Memory model (PTX ISA, memory consistency model): a st.release.gpu that a
// ld.acquire.gpu of another CTA observes makes every write ordered before the release
// visible after the acquire. The writes of a whole warpgroup are ordered before one
// thread's release by a bar.sync among them first (the barrier is morally strong at CTA
// scope and release is cumulative); symmetrically, one thread acquires and a bar.sync
// then orders the other threads' reads after it.
//
// Data goes through L2 (.cg: cache global, not L1): L1 is not coherent between SMs, so a
// line cached there could be stale.
#include "warpspec/hopper/arch.cuh"

namespace warpspec::hopper {

WARPSPEC_DEVICE uint32_t ld_acquire_gpu(const uint32_t* flag) {
  uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  return v;
}

WARPSPEC_DEVICE void st_release_gpu(uint32_t* flag, uint32_t v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(v) : "memory");
}

WARPSPEC_DEVICE void st_relaxed_gpu(uint32_t* flag, uint32_t v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(v) : "memory");
}

// Spin (one thread) until *flag == value. Bounded in WARPSPEC_BOUNDED_WAITS builds, like
// the mbarrier waits: a flag that is never published traps instead of hanging.
WARPSPEC_DEVICE void wait_flag_equals(const uint32_t* flag, uint32_t value) {
  WARPSPEC_HANG_COUNTER(spins);
  while (ld_acquire_gpu(flag) != value) {
    __nanosleep(32);
    WARPSPEC_HANG_CHECK(spins, "wait_flag_equals");
  }
}

WARPSPEC_DEVICE void st_global_cg_v4(float* p, float a, float b, float c, float d) {
  asm volatile("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(a), "f"(b), "f"(c), "f"(d) : "memory");
}

WARPSPEC_DEVICE float4 ld_global_cg_v4(const float* p) {
  float4 v;
  asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

}  // namespace warpspec::hopper
