#pragma once
// Hopper's per-block resource limits and the register arithmetic of setmaxnreg, in
// one place: every kernel's static_asserts and the host's checks read these.
// Includable by g++ (no CUDA headers).
namespace warpspec::hopper {

// Dynamic shared memory per block on sm_90 after the opt-in
// (cudaFuncAttributeMaxDynamicSharedMemorySize): 227 KB.
inline constexpr int kMaxSmemPerBlock = 232448;

// 64K 32-bit registers per SM. With __launch_bounds__(threads, 1) each thread starts
// with 65536 / threads registers, rounded down to the allocation granule of 8.
inline constexpr int kRegistersPerSm = 65536;
inline constexpr int kWarpgroupThreads = 128;

constexpr int entry_registers(int threads) { return kRegistersPerSm / threads / 8 * 8; }

// setmaxnreg moves registers between warpgroups through the CTA's pool: `dec` returns
// them, `inc` blocks until the pool can grant them. A split whose total exceeds what
// the CTA started with makes the consumers' inc wait forever (HOPPER-FACTS §5).
constexpr bool register_split_fits(int producer_wgs, int producer_regs, int consumer_wgs, int consumer_regs) {
  const int wgs = producer_wgs + consumer_wgs;
  return producer_wgs * producer_regs + consumer_wgs * consumer_regs <=
         wgs * entry_registers(wgs * kWarpgroupThreads);
}

}  // namespace warpspec::hopper
