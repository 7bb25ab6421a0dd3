#pragma once
// Warp- and warpgroup-level controls: register reallocation (setmaxnreg), named
// barriers, elect-one, warpgroup indices.
#include "warpspec/hopper/arch.cuh"

namespace warpspec::hopper {

inline constexpr int kWarpSize = 32;
inline constexpr int kWarpgroupSize = 128;  // 4 consecutive warps, first warp rank % 4 == 0

// Which warpgroup of the CTA this thread is in, as a warp-uniform value (the compiler
// can keep role branches uniform).
WARPSPEC_DEVICE int warpgroup_index() {
  return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x) / kWarpgroupSize, 0);
}
WARPSPEC_DEVICE int warp_index() { return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x) / kWarpSize, 0); }
WARPSPEC_DEVICE int warp_index_in_warpgroup() { return warp_index() % 4; }
WARPSPEC_DEVICE int lane_index() { return static_cast<int>(threadIdx.x) % kWarpSize; }
// The lane, read from %laneid at every call (asm volatile): the compiler neither hoists
// it out of a loop nor keeps what is derived from it live across iterations. For loops
// at the 24-register floor, where a recomputed address is cheaper than a spill.
WARPSPEC_DEVICE int lane_index_fresh() {
  uint32_t lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return static_cast<int>(lane);
}

// Register reallocation between warpgroups (needs a register cap at kernel entry:
// __launch_bounds__(threads, 1)). Immediate in 24..256, multiple of 8. `dec` returns
// registers to the CTA pool; `inc` blocks until the pool can grant them. Every warp of
// the warpgroup must run the same one.
template <int kRegs>
WARPSPEC_DEVICE void setmaxnreg_dec() {
  static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegs));
}
template <int kRegs>
WARPSPEC_DEVICE void setmaxnreg_inc() {
  static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegs));
}

// Named barriers (ids 0..15; 0 is __syncthreads). `threads` counts every participant,
// arrivers and syncers, and is a multiple of 32. Whole warps only (.aligned).
WARPSPEC_DEVICE void named_barrier_sync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
WARPSPEC_DEVICE void named_barrier_arrive(uint32_t id, uint32_t threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
// bar.sync that also ORs a predicate over the participants: true in every thread when
// any passed true (a sync and a broadcast in one instruction).
WARPSPEC_DEVICE bool named_barrier_sync_or(uint32_t id, uint32_t threads, bool pred) {
  uint32_t any;
  asm volatile(
      "{\n .reg .pred p, q;\n setp.ne.u32 p, %1, 0;\n bar.red.or.pred q, %2, %3, p;\n selp.u32 %0, 1, 0, q;\n}"
      : "=r"(any)
      : "r"(uint32_t(pred)), "r"(id), "r"(threads)
      : "memory");
  return any != 0;
}

// True in exactly one lane of the (fully active) warp; the same lane in every call.
WARPSPEC_DEVICE bool elect_one() {
  uint32_t pred = 0;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "elect.sync _|p, 0xffffffff;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(pred));
  return pred != 0;
}

}  // namespace warpspec::hopper
