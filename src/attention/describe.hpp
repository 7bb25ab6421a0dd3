#pragma once
// The attention configuration a call picked, as one line (include/warpspec/describe.hpp).
// attention.cpp fills an AttentionChoice from its plan at describe() and at the launch
// (WARPSPEC_LOG_CONFIG); the wording lives here alone.
#include <cstdint>
#include <string>

#include "../common/launch.hpp"
#include "warpspec/attention/config.hpp"
#include "warpspec/schedule/attention.hpp"

namespace warpspec::attention_impl {

struct AttentionChoice {
  DType dtype = DType::kBF16;
  int64_t batch = 0, seqlen_q = 0, seqlen_k = 0, heads_q = 0, heads_kv = 0, head_dim = 0;
  // The mask as a window around the bottom-right diagonal: key j is visible to query i
  // iff i + diag - window_left <= j <= i + diag + window_right; a negative edge is
  // unbounded. Causal is {-1, 0}; no mask {-1, -1}.
  int32_t window_left = -1, window_right = -1;
  float softcap = 0;     // > 0: scores capped at softcap·tanh(score / softcap)
  bool varlen = false;   // packed sequences (cu_seqlens / seqused)
  bool dynamic = false;  // tiles handed out at run time (a tile counter) instead of statically
  HeadDimConfig kernel{};                // the head-dim kernel that runs (head_dim padded up to it)
  int page_size = 0;  // paged KV: the cache's page size; 0: contiguous
  int pack_gqa = 1;   // query heads per tile row group (pack-GQA); 1: unpacked
  schedule::AttentionScheduler sched;   // tile order, tiles, grid
  LaunchShape shape;                     // grid 0: nothing to launch (an empty output)
};

std::string describe(const AttentionChoice& c);

}  // namespace warpspec::attention_impl
