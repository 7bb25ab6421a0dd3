#pragma once
// Reductions inside a quad (the 4 lanes that share an accumulator row in the wgmma
// D fragment: lanes 4g..4g+3 hold row g, HOPPER-FACTS §4). Two XOR shuffles each.
#include "warpspec/hopper/arch.cuh"

namespace warpspec::hopper {

WARPSPEC_DEVICE float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}

WARPSPEC_DEVICE float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

}  // namespace warpspec::hopper
