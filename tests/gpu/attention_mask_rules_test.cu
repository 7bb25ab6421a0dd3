// The rules that decide, per tile, which key blocks are read (key_blocks) and which of
// those need the element mask (block_needs_mask, and MaskedBlocks, its once-per-tile
// form at head dims <= 192), checked on the device against brute force over every
// (row, key) pair of random tiles: causal and sliding windows, seqlen_q != seqlen_k,
// chunks, pack-GQA. What must hold:
//   - every visible key of every row of the tile lies in a block key_blocks returns;
//   - every block with a hidden (row, key) pair, keys past seqlen_k included, is one
//     block_needs_mask names (it may name more: rows past the sequence widen it);
//   - MaskedBlocks names exactly the blocks block_needs_mask names (one rule written
//     twice; the head dim 256 consumer still asks block_needs_mask per block);
//   - a consumer warpgroup skips only blocks none of its rows sees a key of, and never
//     all of them (warpgroup_rows.cuh), of the tile's blocks and of a split-KV share;
//   - apply_mask hides exactly the hidden scores of a valid row in a block, one warp's
//     share of the accumulator at a time, on both its paths (one compare for two rows
//     8 apart, and each score against its own row's edges).
#include <iterator>
#include <random>
#include <utility>
#include <vector>

#include "common/gpu_test.hpp"
#include "warpspec/attention/mask.cuh"
#include "warpspec/attention/warpgroup_rows.cuh"
#include "warpspec/schedule/fast_divmod.hpp"

namespace mask_rules_test {  // named: the file is compiled with others in one translation unit

using namespace warpspec;
using namespace warpspec::attention_impl;

struct RuleCase {
  int seqlen_q, seqlen_k, left, right, chunk, pack_shift, m_block;
  uint32_t chunk_mul, chunk_shift;
};

// Per case: the blocks read, and counts of each kind of violation (all must be 0).
struct RuleResult {
  int lo, hi;
  int missed_visible;   // a visible key outside [lo, hi)
  int unmasked_hidden;  // a block with a hidden pair that block_needs_mask does not name
  int disagree;         // MaskedBlocks and block_needs_mask differ on a block
  int masked_blocks;    // blocks block_needs_mask names (to see that cases exercise it)
  int skip_wrong;       // a warpgroup skips a block with a key one of its rows sees, or every block
  int skipped;          // blocks warpgroups skip (to see that cases exercise it)
};

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

// One warp per case: key block `n` of the case's tile (drawn among the blocks it reads),
// the rows of warp `warp` of one consumer warpgroup, scores of 1 masked by apply_mask.
struct ElementResult {
  int wrong;       // scores of valid rows hidden when visible or kept when hidden
  int hidden;      // scores of valid rows hidden (to see that cases exercise the mask)
  int paired;      // 1 where the warp met the condition of the one-compare path
};

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

// The same random cases through apply_mask.
template <int kBlockM, int kBlockN, bool kPackF, bool kChunkF>
void check_elements(const std::vector<RuleCase>& cases, std::mt19937_64& rng) {
  std::vector<uint32_t> draws(cases.size());
  for (uint32_t& d : draws) d = uint32_t(rng());
  test::DeviceBuffer d_cases = test::to_device(cases), d_draws = test::to_device(draws);
  test::DeviceBuffer d_out(cases.size() * sizeof(ElementResult));
  ASSERT_NE(d_out.get(), nullptr);
  elements_kernel<kBlockM, kBlockN, kPackF, kChunkF><<<int(cases.size() + 3) / 4, 128>>>(
      d_cases.as<RuleCase>(), d_draws.as<uint32_t>(), int(cases.size()), d_out.as<ElementResult>());
  CUDA_ASSERT(cudaGetLastError());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<ElementResult> out = test::to_host<ElementResult>(d_out, cases.size());
  int failures = 0, paired = 0, unpaired_hiding = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const RuleCase& c = cases[i];
    const ElementResult& r = out[i];
    paired += r.paired == 1 && r.hidden > 0;
    unpaired_hiding += r.paired == 0 && r.hidden > 0;
    if (r.wrong != 0 && ++failures <= 5)
      ADD_FAILURE() << "apply_mask: seqlen_q " << c.seqlen_q << " seqlen_k " << c.seqlen_k << " window (" << c.left
                    << ", " << c.right << ") chunk " << c.chunk << " pack_shift " << c.pack_shift << " m_block "
                    << c.m_block << " draw " << draws[i] << ": " << r.wrong << " scores wrong";
  }
  EXPECT_EQ(failures, 0);
  // Both paths must have hidden scores, or the check above says little of one of them.
  EXPECT_GT(paired, 100);
  EXPECT_GT(unpaired_hiding, 100);
}

template <HeadDimConfig kShape>
void check_rules(uint64_t seed) {
  constexpr int kBlockM = kShape.block_m(), kBlockN = kShape.block_n, kHeadDim = kShape.head_dim;
  constexpr MaskFeatures kF = mask_features(kShape);
  SCOPED_TRACE(testing::Message() << "block_m " << kBlockM << ", block_n " << kBlockN << ", head dim " << kHeadDim
                                  << ", pack-GQA " << kF.pack_gqa << ", chunks " << kF.chunk);
  std::mt19937_64 rng(seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<RuleCase> cases(3000);
  for (RuleCase& c : cases) {
    c.seqlen_q = uni(1, 3) == 1 ? uni(1, 8) : uni(1, 700);
    c.seqlen_k = uni(1, 3) == 1 ? uni(1, 8) : uni(1, 700);
    const int kind = uni(0, 4);  // full, causal, left window, both edges, right only
    c.left = kind == 2 || kind == 3 ? uni(0, 300) : kUnboundedWindow;
    c.right = kind == 1 || kind == 2 ? 0 : kind == 3 || kind == 4 ? uni(0, 300) : kUnboundedWindow;
    c.chunk = kF.chunk && uni(0, 3) == 0 ? uni(2, 300) : 0;
    c.pack_shift = kF.pack_gqa && uni(0, 2) == 0 ? uni(1, 3) : 0;
    const int rows = c.seqlen_q << c.pack_shift;
    c.m_block = uni(0, (rows - 1) / kBlockM);
    const schedule::FastDivmod div(uint32_t(c.chunk >= 2 ? c.chunk : 2));
    c.chunk_mul = div.multiplier();
    c.chunk_shift = div.high_shift();
  }
  test::DeviceBuffer d_cases = test::to_device(cases);
  test::DeviceBuffer d_out(cases.size() * sizeof(RuleResult));
  ASSERT_NE(d_out.get(), nullptr);
  rules_kernel<kBlockM, kBlockN, kF.pack_gqa, kF.chunk><<<int(cases.size() + 127) / 128, 128>>>(d_cases.as<RuleCase>(), int(cases.size()),
                                                                           d_out.as<RuleResult>());
  CUDA_ASSERT(cudaGetLastError());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<RuleResult> out = test::to_host<RuleResult>(d_out, cases.size());
  int masked = 0, reading = 0, skipped = 0, failures = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const RuleCase& c = cases[i];
    const RuleResult& r = out[i];
    masked += r.masked_blocks;
    reading += r.hi > r.lo;
    skipped += r.skipped;
    if ((r.missed_visible | r.unmasked_hidden | r.disagree | r.skip_wrong) != 0 && ++failures <= 5)
      ADD_FAILURE() << "seqlen_q " << c.seqlen_q << " seqlen_k " << c.seqlen_k << " window (" << c.left << ", "
                    << c.right << ") chunk " << c.chunk << " pack_shift " << c.pack_shift << " m_block " << c.m_block
                    << ": blocks [" << r.lo << ", " << r.hi << "), visible keys outside them " << r.missed_visible
                    << ", blocks with hidden pairs not masked " << r.unmasked_hidden
                    << ", blocks where MaskedBlocks and block_needs_mask differ " << r.disagree
                    << ", warpgroup skips wrong " << r.skip_wrong;
  }
  EXPECT_EQ(failures, 0);
  // The draw must reach both kinds of block, or the checks above say little; where the
  // kernel skips, some blocks must be skipped.
  EXPECT_GT(masked, 1000);
  EXPECT_GT(reading, 1500);
  if (WarpgroupRows<kBlockM, kBlockN, kF>::kActive) EXPECT_GT(skipped, 300);
  check_elements<kBlockM, kBlockN, kF.pack_gqa, kF.chunk>(cases, rng);
}

TEST(AttentionMaskRules, KeyBlocksAndMaskedBlocksAgreeWithBruteForce) {
  WARPSPEC_REQUIRE_HOPPER();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  // Every configuration's (head dim, block_n) from the tables, 16-bit and FP8 (the same
  // rules; the FP8 kernels take causal masks).
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (check_rules<kHeadDimConfigs[I]>(seed + I), ...);
  }(std::make_index_sequence<std::size(kHeadDimConfigs)>{});
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (check_rules<kFp8HeadDimConfigs[I]>(seed + 100 + I), ...);
  }(std::make_index_sequence<std::size(kFp8HeadDimConfigs)>{});
}

}  // namespace mask_rules_test
