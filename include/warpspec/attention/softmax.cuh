#pragma once
// Online softmax over key blocks, FlashAttention-3 style (HOPPER-FACTS §9), for one
// warpgroup's 64 query rows: each thread owns two rows (g and g + 8 of its warp's 16).
//
// Scores stay raw in the S accumulator; the scale is folded into the exponent:
// p = 2^(s·scale_log2 − m), one FFMA and one ex2 per element, m the running row max in
// log2 units, m = max(m, round(rowmax S · scale_log2)). Per block: α = 2^(m_old − m_new);
// l = α·l + Σ p; the caller rescales O by α. The row sum stays per thread (un-reduced
// across the quad) until finalize. Rows with no visible key so far have m = −inf: the
// subtracted max is then 0 so every p is 2^−inf = 0, never NaN.
// m is kept as the rounded product, so an unchanged max gives α = 2^0 = 1 exactly.
// (Kept raw and scaled on use, the old max's product was contracted into an FMA, left
// unrounded, and α = 2^(that rounding error) ≠ 1 on every block: a bias of ~10 ulp per
// block in l, 5e-3 in the LSE after 2^20 keys. LongContext checks it.)
// Requires scale_log2 > 0 (the host refuses other scales): then rounding the product
// keeps the order of the raw scores, and the max of the products is the product of the max.
#include <cmath>

#include "warpspec/hopper/arch.cuh"
#include "warpspec/hopper/mufu.cuh"
#include "warpspec/hopper/warp_reduce.cuh"

namespace warpspec::attention_impl {

// 2^x with the MUFU unit (hopper/mufu.cuh: 2 ulp; 2^-inf = +0, flushes subnormals).
using hopper::exp2_approx;

// kOffset (FP8 kernels: 8, design note §4): p = 2^(s·scale_log2 − m + kOffset), so P
// fills e4m3's range up to 256 (fewer underflows to 0). O and l both carry 2^kOffset,
// so 1/l normalises O unchanged; only the LSE (and the sink term) use l·2^−kOffset.
// kOffset 0 compiles to exactly the 16-bit kernels' arithmetic.
//
// kThreshold (log2 units, tenths: kThresholdTenths / 10; < 0: off): the row max that p is
// taken against is raised only when a block's max exceeds it by more than the threshold
// (a stale max leaves p ≤ 2^(kOffset + threshold), l and O carry the same reference, so
// the result is unchanged). Then α = 1 on almost every block, and `rescale` skips O's
// multiply when every row of the warp has α = 1 (a vote; exact, not approximate).
// Off, the max follows every increase and O is multiplied on every block, as before.
// The max of N values in order, one dependent FMNMX each: fewer live registers than the
// tree, which cost head dim 256 (the lazy-max kernel, the one with no registers to
// spare) 2% at 16k (bench/NOTES.md v21).
template <int N>
WARPSPEC_DEVICE float chain_max(const float (&v)[N]) {
  float m = v[0];
#pragma unroll
  for (int i = 1; i < N; ++i) m = fmaxf(m, v[i]);
  return m;
}

// The max of N values as a pairwise tree (every index a constant: one level per call).
template <int N>
WARPSPEC_DEVICE float tree_max(const float (&v)[N]) {
  if constexpr (N == 1) {
    return v[0];
  } else {
    constexpr int kHalf = (N + 1) / 2;
    float w[kHalf];
#pragma unroll
    for (int i = 0; i < kHalf; ++i) w[i] = i + kHalf < N ? fmaxf(v[i], v[i + kHalf]) : v[i];
    return tree_max(w);
  }
}

template <int kBlockN, int kOffset = 0, int kThresholdTenths = -1>
struct OnlineSoftmax {
  static_assert(kOffset >= 0 && kOffset < 32, "the offset is a small power-of-two exponent");
  static constexpr bool kLazy = kThresholdTenths >= 0;
  static constexpr float kThreshold = kLazy ? float(kThresholdTenths) / 10.0f : 0.0f;
  static constexpr float kUnscale = 1.0f / float(1u << kOffset);  // exact
  static constexpr int kRegs = kBlockN / 2;  // S accumulator registers per thread
  float row_max[2];  // log2 units: the rounded product of the raw max and scale_log2
  float row_sum[2];  // this thread's share of Σ p
  float scale_log2;

  WARPSPEC_DEVICE explicit OnlineSoftmax(float scale) : scale_log2(scale) {
    row_max[0] = row_max[1] = -INFINITY;
    row_sum[0] = row_sum[1] = 0.0f;
  }

  // Exponentiate one block of scores in place; alpha[h] is the factor O's row h must
  // be multiplied by (1 on the first block, whose O is not accumulated yet).
  template <bool kFirst>
  WARPSPEC_DEVICE void update(float (&s)[kRegs], float (&alpha)[2]) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      // This block's raw max over the thread's kBlockN / 4 scores of row h: a pairwise
      // tree, log2 deep, not a chain of kBlockN / 8 dependent FMNMX (the chain sat
      // between S's wait and the first exp: SASS of the head dim 128 mainloop); the
      // lazy-max kernel (head dim 256) keeps the chain.
      float v[kBlockN / 8];
#pragma unroll
      for (int j = 0; j < kBlockN / 8; ++j) v[j] = fmaxf(s[4 * j + 2 * h], s[4 * j + 2 * h + 1]);
      const float m_blk = __fmul_rn(hopper::quad_max(kLazy ? chain_max(v) : tree_max(v)), scale_log2);
      // Lazy: keep the old max unless this block's exceeds it by more than the threshold
      // (−inf stays −inf: −inf > −inf + t is false; a NaN block max keeps the old, as fmaxf).
      const float m_new = kLazy ? (m_blk > row_max[h] + kThreshold ? m_blk : row_max[h]) : fmaxf(row_max[h], m_blk);
      const float m_sub = m_new == -INFINITY ? 0.0f : m_new;
      // A row with no key so far subtracts 0 (not −kOffset): its p stay 2^−inf = 0.
      const float m_scaled = (kOffset == 0 || m_new == -INFINITY) ? m_sub : m_sub - float(kOffset);
      alpha[h] = kFirst || (kLazy && m_new == row_max[h]) ? 1.0f : exp2_approx(row_max[h] - m_sub);
      row_max[h] = m_new;
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < kBlockN / 8; ++j) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float& x = s[4 * j + 2 * h + e];
          x = exp2_approx(fmaf(x, scale_log2, -m_scaled));
          sum += x;
        }
      }
      row_sum[h] = kFirst ? sum : fmaf(row_sum[h], alpha[h], sum);
    }
  }

  // O's rows times α (after `update`, once the block's P·V is done). Lazy: skipped when
  // every row of the warp keeps its max (the branch is warp-uniform).
  template <int kN>
  WARPSPEC_DEVICE static void rescale(float (&o)[kN], const float (&alpha)[2]) {
    if constexpr (kLazy) {
      if (!__any_sync(0xffffffffu, alpha[0] != 1.0f || alpha[1] != 1.0f)) return;
    }
#pragma unroll
    for (int i = 0; i < kN; ++i) o[i] *= alpha[(i >> 1) & 1];
  }

  // 1/l for O and the natural-log LSE, with an optional sink per row (under pack-GQA
  // the two rows may be different heads): a logit (log2 units,
  // −inf for none) that joins the denominator but adds no value (gpt-oss's learnable
  // sink): l' = l + 2^(sink − m), with the common max M = max(m, sink) taken out first
  // so neither term overflows. LSE = ln(Σ exp(scores) + exp(sink)), the normaliser the
  // output used. A row that saw no key gets O = 0 and LSE = −inf (= the sink with a
  // sink). A NaN score makes l NaN, and then O and LSE are NaN: never "saw no key",
  // which a later LSE merge (split-KV, ring attention) would read as zero weight.
  WARPSPEC_DEVICE void finalize(float (&inv)[2], float (&lse)[2], float sink_log2) {
    const float both[2] = {sink_log2, sink_log2};
    finalize(inv, lse, both);
  }
  WARPSPEC_DEVICE void finalize(float (&inv)[2], float (&lse)[2], const float (&sink_log2)[2]) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float l = hopper::quad_sum(row_sum[h]) * kUnscale;  // without the offset's 2^kOffset
      const float m = row_max[h];  // without a sink m − top is exactly 0
      // The running max skips NaN scores (fmaxf), but their 2^NaN made l NaN; with only
      // NaN scores m is still −inf, and 2^(m − top) is then 2^NaN: NaN all the way.
      const float top = fmaxf(m, sink_log2[h]);
      if (top == -INFINITY && l == 0.0f) {  // no key and no sink (a NaN l goes on: NaN out)
        inv[h] = 0.0f;
        lse[h] = -INFINITY;
        continue;
      }
      const float keys = exp2_approx(m - top);        // 1 without a sink; 0 with no key
      const float sink = exp2_approx(sink_log2[h] - top);  // 0 without a sink
      const float total = fmaf(l, keys, sink);         // >= 1: the larger term is 1
      inv[h] = keys * kUnscale / total;  // O carries 2^kOffset too
      lse[h] = (top + __log2f(total)) * 0.6931471805599453f;
    }
  }
};

}  // namespace warpspec::attention_impl
