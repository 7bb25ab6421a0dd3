#pragma once
// The attention kernel's operand table: everything that differs between the 16-bit
// and the FP8 (e4m3) kernels in what shared memory holds and what wgmma reads, as
// constexpr values read by the mainloop, the epilogue choice and the host's TMA maps
// (design note docs/design/fp8-attention.md §1, §7.1). Host-includable.
//
//             Q, K (K-major)         P·V's B operand                  P·V k-step  softmax  O
//   16-bit    SW128, 64-col boxes    V, N-major (imm-trans), SW128    16 keys     2^0      T
//   e4m3      SW128 (SW64 at d 64),  Vᵀ, K-major (8-bit operands       32 keys     2^8      bf16
//             128 (64)-col boxes     must be), written by the V pump
// V itself lands by TMA exactly as K does in both (the pump reads it from its vload ring).
#include <cstdint>

#include "warpspec/attention/config.hpp"
#include "warpspec/attention/fp8_layout.hpp"
#include "warpspec/hopper/wgmma_desc.hpp"

namespace warpspec::attention_impl {

// Q and K's swizzle (also TMA'd V's): 16-bit head dims are whole 128-byte spans; 8-bit
// rows are d bytes, so head dim 64 is one 64-byte span (fp8_swizzle_for).
constexpr hopper::WgmmaSwizzle qk_swizzle(int kernel_d, DType dtype) {
  return is_fp8(dtype) ? fp8_swizzle_for(uint32_t(kernel_d)) : hopper::WgmmaSwizzle::k128B;
}
// Elements per TMA box column of Q, K, V (and O for 16-bit): one swizzle span.
constexpr int qk_box_cols(int kernel_d, DType dtype) {
  return int(hopper::wgmma_row_bytes(qk_swizzle(kernel_d, dtype)) / dtype_size(dtype));
}
// The output's dtype: FP8 kernels write bf16.
constexpr DType out_dtype(DType dtype) { return is_fp8(dtype) ? DType::kBF16 : dtype; }

template <AttentionConfig kCfg>
struct AttentionOperands {
  static constexpr bool kFp8 = is_fp8(kCfg.dtype);
  static constexpr int kHeadDim = kCfg.shape.head_dim;
  static constexpr int kBlockN = kCfg.shape.block_n;
  static constexpr int kConsumers = kCfg.shape.consumers;
  static constexpr int kBlockM = kCfg.shape.block_m();
  static constexpr uint32_t kElemBytes = uint32_t(dtype_size(kCfg.dtype));
  static constexpr hopper::WgmmaSwizzle kQkSwizzle = qk_swizzle(kHeadDim, kCfg.dtype);
  static constexpr int kBoxCols = qk_box_cols(kHeadDim, kCfg.dtype);
  static constexpr int kCols = kHeadDim / kBoxCols;
  static_assert(kHeadDim % kBoxCols == 0, "kernel head dims are whole swizzle spans");
  // P·V: the B operand's major-ness and layout, and keys per wgmma k-step.
  static constexpr hopper::Major kPvMajor = kFp8 ? hopper::Major::kK : hopper::Major::kMN;
  static constexpr int kPvKStep = int(32 / kElemBytes);
  static constexpr int kPvSteps = kBlockN / kPvKStep;
  static_assert(kBlockN % kPvKStep == 0, "block_n is whole P·V k-steps");
  // p = 2^(s·scale − m + kSoftmaxOffset). Head dim 256 keeps a lazy max (softmax.cuh:
  // raised only past a threshold, O rescaled only when some row's max moves): there O's
  // multiply is 128 FMULs a thread a block, more than the softmax itself, and skipping it
  // gained 10% (FP8) and 5% (bf16) at 16k; at 64 and 128 the warp vote's branch cost more
  // than it saved (-7% and -2.5% FP8, bf16 -5% and -1%; bench/NOTES.md v18). FP8 P stays
  // ≤ 2^(offset + threshold): 2^8 eager, 2^(7 + 1.8) = 445.7 lazy, both below e4m3's 448.
  static constexpr bool kLazyMax = kHeadDim >= 256;
  static constexpr int kRescaleThresholdTenths = !kLazyMax ? -1 : kFp8 ? 18 : 80;
  static constexpr int kSoftmaxOffset = !kFp8 ? 0 : kLazyMax ? 7 : 8;
  static_assert(!kFp8 || kSoftmaxOffset * 10 + (kLazyMax ? kRescaleThresholdTenths : 0) <= 88, "e4m3 P must stay below 448 = 2^8.8");
  static constexpr DType kOutDType = out_dtype(kCfg.dtype);
  // The register split (config.hpp: 24 / 240 = 504 = 3 x 168). The FP8 producer runs
  // the V pump in warps 1-3; inside this kernel it spilled at 24 (68-124 bytes, with one
  // or two units in flight), so FP8 takes the design note's budget-neutral 32 / 232.
  static constexpr int kProducerRegs = kFp8 ? 24 : attention_impl::kProducerRegs;
  static constexpr int kConsumerRegs = consumer_regs(kConsumers);

  static constexpr hopper::WgmmaOperandLayout layout_q() {
    return {hopper::Major::kK, kQkSwizzle, kElemBytes, uint32_t(kBlockM), uint32_t(kHeadDim)};
  }
  static constexpr hopper::WgmmaOperandLayout layout_k() {
    return {hopper::Major::kK, kQkSwizzle, kElemBytes, uint32_t(kBlockN), uint32_t(kHeadDim)};
  }
  // The tile P·V reads: 16-bit V (keys as rows, N-major), or the pump's Vᵀ.
  static constexpr hopper::WgmmaOperandLayout layout_pv() {
    if constexpr (kFp8) return fp8_vt_layout(uint32_t(kBlockN), uint32_t(kHeadDim));
    return {hopper::Major::kMN, hopper::WgmmaSwizzle::k128B, kElemBytes, uint32_t(kHeadDim), uint32_t(kBlockN)};
  }
  static_assert(!kFp8 || (fp8_v_layout(kBlockN, kHeadDim).swizzle == layout_k().swizzle &&
                          fp8_v_layout(kBlockN, kHeadDim).bytes() == layout_k().bytes()),
                "TMA'd V lands exactly as K (the pump reads it with fp8_v_layout)");
};

}  // namespace warpspec::attention_impl
