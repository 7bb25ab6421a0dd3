#pragma once
// The mask-rule kernels (attention_mask_rules_test.cu) as the test
// (attention_mask_rules_test.cpp) launches them. Plain C++: the test compiles with the
// C++ attention tests. A tile shape is a configuration of the tables (config.hpp:
// kHeadDimConfigs, kFp8HeadDimConfigs); its block_m, block_n and mask features pick
// the kernel instance.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "warpspec/attention/config.hpp"

namespace mask_rules_test {  // named: the file is compiled with others in one translation unit

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

// One warp per case: key block `n` of the case's tile (drawn among the blocks it reads),
// the rows of warp `warp` of one consumer warpgroup, scores of 1 masked by apply_mask.
struct ElementResult {
  int wrong;       // scores of valid rows hidden when visible or kept when hidden
  int hidden;      // scores of valid rows hidden (to see that cases exercise the mask)
  int paired;      // 1 where the warp met the condition of the one-compare path
};

// The rules of tiles of `shape` over cases[0, n_cases), one thread per case, into
// out[0, n_cases). The launch's error; cudaErrorInvalidValue where `shape` is in
// neither table.
cudaError_t launch_rules(const warpspec::attention_impl::HeadDimConfig& shape, const RuleCase* cases, int n_cases,
                         RuleResult* out);

// apply_mask on tiles of `shape`, one warp per case, its block and warp drawn from
// draws[i]. The launch's error, as launch_rules.
cudaError_t launch_elements(const warpspec::attention_impl::HeadDimConfig& shape, const RuleCase* cases,
                            const uint32_t* draws, int n_cases, ElementResult* out);

// Whether consumer warpgroups of tiles of `shape` skip blocks (WarpgroupRows::kActive).
bool warpgroups_skip(const warpspec::attention_impl::HeadDimConfig& shape);

}  // namespace mask_rules_test
