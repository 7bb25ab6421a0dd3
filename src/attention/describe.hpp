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
  bool causal = false;
  HeadDimConfig kernel{};                // the head-dim kernel that runs (head_dim padded up to it)
  schedule::AttentionScheduler sched;   // tile order, tiles, grid
  LaunchShape shape;                     // grid 0: nothing to launch (an empty output)
};

std::string describe(const AttentionChoice& c);

}  // namespace warpspec::attention_impl
