#pragma once
// Softcapping of the scores (Gemma 2, FlashAttention-3's `softcap`):
//   score = softcap · tanh(softmax_scale · q·k / softcap)
// The consumer applies tanh(s · softmax_scale / softcap) to the raw accumulator before
// the mask; the online softmax then scales by softcap (AttentionParams::scale_log2 is
// softcap·log2(e)), so the row max and the LSE are in capped units.
//
// tanh.approx.f32 (one MUFU op, as ex2): relative error about 2^-11 of tanh, so the
// capped score's error is at most |uncapped score|·2^-11, below the error bf16 inputs
// already put into the score; the accurate tanh would cost ~20 instructions per score.
#include "warpspec/hopper/arch.cuh"
#include "warpspec/hopper/mufu.cuh"

namespace warpspec::attention_impl {

using hopper::tanh_approx;

struct Softcap {
  // No-op unless a softcap was given (prescale = softmax_scale / softcap, else 0).
  template <int kRegs>
  WARPSPEC_DEVICE static void apply(float prescale, float (&s)[kRegs]) {
    if (prescale == 0.0f) return;
#pragma unroll
    for (int i = 0; i < kRegs; ++i) s[i] = tanh_approx(s[i] * prescale);
  }
};

}  // namespace warpspec::attention_impl
