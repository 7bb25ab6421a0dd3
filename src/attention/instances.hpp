#pragma once
// The attention kernels that are built: one explicit list. Every kernel head dim of
// kHeadDimConfigs x dtype (bf16, fp16) = 8 kernels. Other head dims run padded on the
// next one (kernel_head_dim).
#include <array>

#include "warpspec/attention/config.hpp"

namespace warpspec::attention_impl {

constexpr auto make_attention_instances() {
  std::array<AttentionConfig, std::size(kHeadDimConfigs) * 2> list{};
  int i = 0;
  for (const HeadDimConfig& shape : kHeadDimConfigs)
    for (DType dtype : {DType::kBF16, DType::kFP16}) list[i++] = AttentionConfig{shape, dtype};
  return list;
}

inline constexpr auto kAttentionInstances = make_attention_instances();

}  // namespace warpspec::attention_impl
