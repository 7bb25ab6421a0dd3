#pragma once
// FP8 descales (design note §4), one small type per kernel kind, chosen by the
// mainloop from the operand table: the 16-bit kernels' inputs are unscaled, so their
// score scale is the host's and O's row scale 1 (constants: no loads, no registers).
// FP8: Q, K, V hold x / descale per (batch, KV head); the consumers multiply the score
// scale (log2 units) by q_descale·k_descale per tile, and 1/l by v_descale at finalize.
// A null descale is 1.
#include "warpspec/attention/params.hpp"
#include "warpspec/hopper/arch.cuh"

namespace warpspec::attention_impl {

struct UnitDescale {
  WARPSPEC_DEVICE static float scale_log2(const AttentionParams& p, const schedule::AttentionWork&) {
    return p.scale_log2;
  }
  WARPSPEC_DEVICE static float v(const AttentionParams&, const schedule::AttentionWork&) { return 1.0f; }
};

struct Fp8Descale {
  // The KV head of the work head (pack-GQA is off for FP8: a work head is a query head).
  WARPSPEC_DEVICE static float at(const DescaleView& d, const AttentionParams& p, const schedule::AttentionWork& w) {
    return d.data == nullptr ? 1.0f : __ldg(d.data + w.batch * d.stride_b + (w.head / p.group) * d.stride_h);
  }
  WARPSPEC_DEVICE static float scale_log2(const AttentionParams& p, const schedule::AttentionWork& w) {
    return p.scale_log2 * (at(p.q_descale, p, w) * at(p.k_descale, p, w));
  }
  WARPSPEC_DEVICE static float v(const AttentionParams& p, const schedule::AttentionWork& w) {
    return at(p.v_descale, p, w);
  }
};

}  // namespace warpspec::attention_impl
