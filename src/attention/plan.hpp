#pragma once
// What attention.cpp's plan picks for a call, without a device: the kernel head dim and
// its key block (config.hpp's configuration), the pack-GQA shift and the split count on a
// GPU of a given size. The host tests check the
// plan's choices through it on machines without a GPU (attention_forward and describe
// need one).
#include "warpspec/attention_api.hpp"
#include "warpspec/status.hpp"

namespace warpspec::attention_impl {

struct PlanSummary {
  int kernel_d = 0;    // the kernel that runs (config.hpp: kernel_head_dim, split_config_for)
  int block_n = 0;     // its configuration's key block (config.hpp: config_for)
  int block_m = 0;     // and query rows per tile (attention.cpp: plan_config)
  int pack_shift = 0;  // log2 of the query heads per tile row group; 0: unpacked
  int splits = 1;      // split-KV shares per query tile; 1: none
  bool pack_gqa = true;  // its kernel has pack-GQA's rows, the chunk mask and split-KV's
  bool chunk = true;     // partial epilogue (config.hpp: packs_gqa, chunks, split_kv; none:
  bool split_kv = true;  // a lean configuration)
};

// The call's refusal, as attention_forward would give it, or its plan on `sm_count` SMs.
Status plan_summary(const AttentionArgs& args, int sm_count, PlanSummary* out);

}  // namespace warpspec::attention_impl
