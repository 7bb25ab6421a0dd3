#pragma once
// The FP8 V pump's test kernel (fp8_v_transpose_test.cu) as its tests
// (fp8_v_transpose_test.cpp) launch it, and the cases both sides instantiate. Plain
// C++: the tests compile with the C++ GPU tests.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "warpspec/attention/fp8_layout.hpp"

namespace fp8_v_transpose_test {  // named: the file is compiled with others in one translation unit

struct PumpParams {
  CUtensorMap map_v;  // V: source_blocks x block_n rows of head_dim bytes
  int blocks;         // V blocks each CTA streams
  int source_blocks;  // CTA c's block i is source block (c * blocks + i) % source_blocks
  uint8_t* out;       // per CTA and block, the stage read back (row-major); null: timing
  int* pumped;        // per CTA: {fewest, most} blocks a pump warp moved (VPath::pump)
};

// A block of V and the consumer stage it becomes, the kernel's and the tests' view.
template <int kBlockN, int kD, bool kTranspose>
struct PumpLayout {
  static constexpr uint32_t kBlockBytes = uint32_t(kBlockN) * kD;
  // What a consumer stage holds: Vᵀ (d rows x block_n keys), or V as TMA wrote it.
  static constexpr warpspec::hopper::WgmmaOperandLayout stage_layout() {
    return kTranspose ? warpspec::attention_impl::fp8_vt_layout(kBlockN, kD)
                      : warpspec::attention_impl::fp8_v_layout(kBlockN, kD);
  }
};

// The pump kernel (VTransposePump, or VDirect when !kTranspose) on `ctas` CTAs: the
// first error of the shared-memory opt-in and the launch.
template <int kBlockN, int kD, int kLoadStages, int kVtStages, bool kTranspose>
cudaError_t launch_pump(const PumpParams& p, int ctas);

// Name, block_n, head dim, vload stages, Vᵀ stages, transposed (pump) or direct.
// Vᵀ swizzle: SW128 at block_n 128, SW64 at 192, SW32 at 96; V: SW64 at d 64, else
// SW128. The head dim 128 and 256 kernels' own blocks (config.hpp: 192 x 128, 128 x 128 and
// 96 x 128, 128 x 256), the other swizzles (192 x 64, 96 x 256) and one SW128 Vᵀ with a third stage. (The
// pump's speed is measured inside the kernel, by `warpspec bench attention --dtype e4m3`,
// not by a test.)
#define FP8_V_PUMP_CASES(X)                                 \
  X(Pump_BlockN192_D64_VtSw64, 192, 64, 2, 2, true)         \
  X(Pump_BlockN192_D128_VtSw64, 192, 128, 2, 2, true)       \
  X(Pump_BlockN128_D128_VtSw128, 128, 128, 2, 2, true)      \
  X(Pump_BlockN128_D128_Vt3Stages, 128, 128, 2, 3, true)    \
  X(Pump_BlockN96_D128_VtSw32, 96, 128, 2, 2, true)         \
  X(Pump_BlockN96_D256_VtSw32, 96, 256, 2, 2, true)         \
  X(Pump_BlockN128_D256_VtSw128, 128, 256, 2, 2, true)      \
  X(Direct_BlockN128_D256, 128, 256, 2, 2, false)

}  // namespace fp8_v_transpose_test
