// The device half of attention_mask_rules_test.cpp (which says what must hold): the
// kernels that check the rules against brute force, and their launchers. No GoogleTest
// here: the test is C++.
#include <cstddef>
#include <iterator>
#include <utility>

#include "gpu/attention_mask_rules_test_kernels.hpp"
#include "warpspec/attention/mask.cuh"
#include "warpspec/attention/warpgroup_rows.cuh"

namespace mask_rules_test {  // named: the file is compiled with others in one translation unit

using namespace warpspec;
using namespace warpspec::attention_impl;

__device__ bool visible(const RuleCase& c, int m, int j) {
  const int diag = c.seqlen_k - c.seqlen_q;
  if (j >= c.seqlen_k || j > m + diag + c.right || j < m + diag - c.left) return false;
  if (c.chunk > 0) {
    const int a = m + diag;
    if (a < 0) return false;
    const int start = a / c.chunk * c.chunk;
    if (j < start || j >= start + c.chunk) return false;
  }
  return true;
}

// The case's mask parameters and sequence lengths, as the kernel's would hold them; the
// case itself.
__device__ RuleCase set_up(const RuleCase& c, AttentionParams& p, SeqInfo& s) {
  p.window_left = c.left;
  p.window_right = c.right;
  p.chunk = c.chunk;
  p.chunk_mul = c.chunk_mul;
  p.chunk_shift = c.chunk_shift;
  p.pack_shift = c.pack_shift;
  s.seqlen_q = c.seqlen_q;
  s.seqlen_k = c.seqlen_k;
  return c;
}

// (Ints and bools, not the HeadDimConfig or MaskFeatures: nvcc's host stubs take no
// class-type template arguments for kernels.)
template <int kBlockM, int kBlockN, bool kPackF, bool kChunkF>
__global__ void rules_kernel(const RuleCase* cases, int n_cases, RuleResult* out) {
  constexpr MaskFeatures kF{kPackF, kChunkF, true};
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_cases) return;
  AttentionParams p;
  SeqInfo s;
  const RuleCase c = set_up(cases[i], p, s);
  constexpr bool kPack = kF.pack_gqa;
  const int r0 = c.m_block * kBlockM;
  const int rows = PackGqa::rows<kPack>(p, c.seqlen_q);
  const int r_end = min(r0 + kBlockM, rows);
  const KeyBlocks kb = key_blocks<kBlockM, kBlockN, kF>(p, s, c.m_block);
  RuleResult r{kb.lo, kb.hi, 0, 0, 0, 0, 0, 0};
  for (int row = r0; row < r_end; ++row) {
    const int m = PackGqa::position<kPack>(p, row);
    for (int j = 0; j < c.seqlen_k; ++j)
      if (visible(c, m, j) && (j / kBlockN < kb.lo || j / kBlockN >= kb.hi)) ++r.missed_visible;
  }
  const MaskedBlocks<kBlockM, kBlockN, kF, true> mb(p, s, r0);
  for (int n = kb.lo; n < kb.hi; ++n) {
    const bool named = block_needs_mask<kBlockM, kBlockN, kF>(p, s, r0, n);
    r.masked_blocks += named;
    r.disagree += named != mb.needs(n);
    bool hidden = false;
    for (int row = r0; row < r_end && !hidden; ++row) {
      const int m = PackGqa::position<kPack>(p, row);
      for (int j = n * kBlockN; j < (n + 1) * kBlockN && !hidden; ++j) hidden = !visible(c, m, j);
    }
    r.unmasked_hidden += hidden && !named;
  }
  // Each consumer warpgroup's skip (warpgroup_rows.cuh), of the tile's blocks and of a
  // split-KV share of them: every key of a skipped block hidden from all of its rows,
  // and at least one block left to compute.
  if (kb.count() > 0) {
#pragma unroll
    for (int narrow = 0; narrow < 2; ++narrow) {
      const KeyBlocks share = narrow ? KeyBlocks{kb.lo + kb.count() / 2, kb.hi - kb.count() / 4} : kb;
      for (int wg = 0; wg < kBlockM / 64; ++wg) {
        const int skip = WarpgroupRows<kBlockM, kBlockN, kF>::skip(p, s, share, c.m_block, wg);
        r.skipped += skip;
        if (skip < 0 || skip >= share.count()) ++r.skip_wrong;
        for (int row = r0 + 64 * wg; row < min(r0 + 64 * wg + 64, r_end); ++row) {
          const int m = PackGqa::position<kPack>(p, row);
          for (int j = (share.hi - skip) * kBlockN; j < share.hi * kBlockN; ++j) r.skip_wrong += visible(c, m, j);
        }
      }
    }
  }
  out[i] = r;
}

template <int kBlockM, int kBlockN, bool kPackF, bool kChunkF>
__global__ void elements_kernel(const RuleCase* cases, const uint32_t* draws, int n_cases, ElementResult* out) {
  constexpr MaskFeatures kF{kPackF, kChunkF, true};
  const int i = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (i >= n_cases) return;
  AttentionParams p;
  SeqInfo s;
  const RuleCase c = set_up(cases[i], p, s);
  constexpr bool kPack = kF.pack_gqa;
  const KeyBlocks kb = key_blocks<kBlockM, kBlockN, kF>(p, s, c.m_block);
  if (kb.count() == 0) {
    if (lane == 0) out[i] = ElementResult{0, 0, -1};
    return;
  }
  const int n = kb.lo + int(draws[i] % uint32_t(kb.count()));
  const int warp = int(draws[i] >> 16) % (kBlockM / 16);  // warpgroup wg's warp w: rows 64 wg + 16 w
  const int row0 = c.m_block * kBlockM + 16 * warp + lane / 4;
  float sc[kBlockN / 2];  // in registers: every index below is a constant
#pragma unroll
  for (int r = 0; r < kBlockN / 2; ++r) sc[r] = 1.0f;
  apply_mask<kBlockN, kF>(p, s, sc, n, row0);
  const int rows = PackGqa::rows<kPack>(p, c.seqlen_q);
  int wrong = 0, hidden = 0;
#pragma unroll
  for (int r = 0; r < kBlockN / 2; ++r) {
    const int row = row0 + 8 * ((r >> 1) & 1), col = n * kBlockN + 8 * (r >> 2) + 2 * (lane % 4) + (r & 1);
    if (row >= rows) continue;  // rows past the sequence are never stored
    const bool want_hidden = !visible(c, PackGqa::position<kPack>(p, row), col);
    const bool is_hidden = sc[r] == -INFINITY;
    wrong += want_hidden != is_hidden || (!is_hidden && sc[r] != 1.0f);
    hidden += is_hidden;
  }
  // The one-compare path's condition, as apply_mask states it.
  const int diag = c.seqlen_k - c.seqlen_q, col0 = n * kBlockN + 2 * (lane % 4);
  int begin[2], end[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int m = PackGqa::position<kPack>(p, row0 + 8 * h);
    end[h] = m + diag + min(c.seqlen_q - m, c.right + 1) - col0;
    begin[h] = m + diag - c.left - col0;
  }
  const bool paired = __all_sync(0xffffffffu, end[1] == end[0] + 8 && max(begin[0], begin[1]) <= 0);
  for (int off = 16; off > 0; off /= 2) {
    wrong += __shfl_xor_sync(0xffffffffu, wrong, off);
    hidden += __shfl_xor_sync(0xffffffffu, hidden, off);
  }
  if (lane == 0) out[i] = ElementResult{wrong, hidden, paired ? 1 : 0};
}

// ------------------------------------------------------------------ launchers

// Calls f.template operator()<kShape>() with the configuration kShape of either table that
// `shape` equals and returns its error; cudaErrorInvalidValue where `shape` is in neither.
template <class F>
cudaError_t with_shape(const HeadDimConfig& shape, const F& f) {
  cudaError_t e = cudaErrorInvalidValue;
  bool found = false;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((found = found || (shape == kHeadDimConfigs[I] && (e = f.template operator()<kHeadDimConfigs[I]>(), true))), ...);
  }(std::make_index_sequence<std::size(kHeadDimConfigs)>{});
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((found = found || (shape == kFp8HeadDimConfigs[I] && (e = f.template operator()<kFp8HeadDimConfigs[I]>(), true))),
     ...);
  }(std::make_index_sequence<std::size(kFp8HeadDimConfigs)>{});
  return e;
}

cudaError_t launch_rules(const HeadDimConfig& shape, const RuleCase* cases, int n_cases, RuleResult* out) {
  return with_shape(shape, [&]<HeadDimConfig kShape>() {
    constexpr MaskFeatures kF = mask_features(kShape);
    rules_kernel<kShape.block_m(), kShape.block_n, kF.pack_gqa, kF.chunk><<<(n_cases + 127) / 128, 128>>>(
        cases, n_cases, out);
    return cudaGetLastError();
  });
}

cudaError_t launch_elements(const HeadDimConfig& shape, const RuleCase* cases, const uint32_t* draws, int n_cases,
                            ElementResult* out) {
  return with_shape(shape, [&]<HeadDimConfig kShape>() {
    constexpr MaskFeatures kF = mask_features(kShape);
    elements_kernel<kShape.block_m(), kShape.block_n, kF.pack_gqa, kF.chunk><<<(n_cases + 3) / 4, 128>>>(
        cases, draws, n_cases, out);
    return cudaGetLastError();
  });
}

bool warpgroups_skip(const HeadDimConfig& shape) {
  bool active = false;
  with_shape(shape, [&]<HeadDimConfig kShape>() {
    active = WarpgroupRows<kShape.block_m(), kShape.block_n, mask_features(kShape)>::kActive;
    return cudaSuccess;
  });
  return active;
}

}  // namespace mask_rules_test
