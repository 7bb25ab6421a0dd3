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
// The kernels are in attention_mask_rules_test.cu.
#include <iterator>
#include <random>
#include <utility>
#include <vector>

#include "common/gpu_test.hpp"
#include "gpu/attention_mask_rules_test_kernels.hpp"
#include "warpspec/attention/config.hpp"
#include "warpspec/attention/params.hpp"
#include "warpspec/schedule/fast_divmod.hpp"

namespace mask_rules_test {  // named: the file is compiled with others in one translation unit

using namespace warpspec;
using namespace warpspec::attention_impl;

// The same random cases through apply_mask.
void check_elements(const HeadDimConfig& shape, const std::vector<RuleCase>& cases, std::mt19937_64& rng) {
  std::vector<uint32_t> draws(cases.size());
  for (uint32_t& d : draws) d = uint32_t(rng());
  test::DeviceBuffer d_cases = test::to_device(cases), d_draws = test::to_device(draws);
  test::DeviceBuffer d_out(cases.size() * sizeof(ElementResult));
  ASSERT_NE(d_out.get(), nullptr);
  CUDA_ASSERT(launch_elements(shape, d_cases.as<RuleCase>(), d_draws.as<uint32_t>(), int(cases.size()),
                              d_out.as<ElementResult>()));
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
  CUDA_ASSERT(launch_rules(kShape, d_cases.as<RuleCase>(), int(cases.size()), d_out.as<RuleResult>()));
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
  if (warpgroups_skip(kShape)) EXPECT_GT(skipped, 300);
  check_elements(kShape, cases, rng);
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
