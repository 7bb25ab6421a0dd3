#pragma once
// The MUFU unit's approximations, one instruction each (16 results a clock per SM), as the
// softmax, the softcap and the GEMM epilogue's activations use them:
//   exp2_approx  2^x, ex2.approx.ftz: 2 ulp; 2^-inf = +0, 2^+inf = +inf, subnormals flushed;
//   rcp_approx   1/x, rcp.approx.ftz: 1 ulp; 1/inf = +0, 1/0 = +inf, subnormals flushed;
//   tanh_approx  tanh(x), tanh.approx.f32: relative error about 2^-11.
// (CUDA's __expf / __fdividef put range fix-ups around the same MUFU op: the non-ftz
// forms, a compare and two multiplies each.)
#include "warpspec/hopper/arch.cuh"

namespace warpspec::hopper {

WARPSPEC_DEVICE float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

WARPSPEC_DEVICE float rcp_approx(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

WARPSPEC_DEVICE float tanh_approx(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace warpspec::hopper
