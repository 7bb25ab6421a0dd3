#pragma once
// The FP8 P·V kernel (fp8_pv_test.cu) as its tests (fp8_pv_test.cpp) launch it, and
// the cases both sides instantiate. Plain C++: the tests compile with the C++ GPU tests.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "warpspec/attention/fp8_layout.hpp"

namespace fp8_pv_test {  // named: the file is compiled with others in one translation unit

constexpr int kM = 64;  // one warpgroup's wgmma M

template <int kBlockN, int kD>
constexpr uint32_t smem_bytes() {
  namespace ai = warpspec::attention_impl;
  constexpr warpspec::hopper::WgmmaOperandLayout vt = ai::fp8_vt_layout(kBlockN, kD), v = ai::fp8_v_layout(kBlockN, kD);
  return (vt.bytes() + 1023u) / 1024u * 1024u + v.bytes() + 1024u;  // + re-alignment slack
}

// One warpgroup, smem_bytes<kBlockN, kD>() of dynamic shared memory. p: 64 x kBlockN
// fp32 (S, row-major). src: kDeviceTranspose ? V row-major (kBlockN x kD e4m3 bytes) :
// the Vᵀ tile image (fp8_vt_layout bytes). out: 64 x kD fp32. The first error of the
// shared-memory opt-in and the launch.
template <int kBlockN, int kD, bool kDeviceTranspose>
cudaError_t launch_pv(const float* p, const uint8_t* src, float* out);

// Name, then block_n (P·V's K), head dim (its N), Vᵀ transposed on the device?
// Vᵀ swizzle: SW128 at block_n 128, SW64 at 64, SW32 at 96; V: SW64 at d 64, else SW128.
#define FP8_PV_CASES(X)                           \
  X(CpuVt_BlockN128_D64, 128, 64, false)          \
  X(CpuVt_BlockN128_D128, 128, 128, false)        \
  X(DeviceVt_BlockN128_D64, 128, 64, true)        \
  X(DeviceVt_BlockN128_D128, 128, 128, true)      \
  X(DeviceVt_BlockN64_D128_VtSw64, 64, 128, true) \
  X(DeviceVt_BlockN96_D64_VtSw32, 96, 64, true)

}  // namespace fp8_pv_test
