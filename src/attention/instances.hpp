#pragma once
// The attention kernels that are built: one explicit list. Every configuration of
// kHeadDimConfigs x dtype (bf16, fp16) = 16 kernels (head dims 64 and 256 have two
// configurations, 128 three; other head dims run padded on the next one, kernel_head_dim);
// and e4m3 x kFp8HeadDimConfigs = 5 (head dims 64, 128 three times, 256): 21.
#include <array>

#include "warpspec/attention/config.hpp"

namespace warpspec::attention_impl {

// The FP8 kernels are built unless configured with -DWARPSPEC_FP8_ATTENTION=OFF (on by
// default; the option leaves them out of a build that does not need them); without them
// the host refuses e4m3 by name.
#if defined(WARPSPEC_FP8_ATTENTION)
inline constexpr bool kFp8AttentionBuilt = true;
#else
inline constexpr bool kFp8AttentionBuilt = false;
#endif

constexpr auto make_attention_instances() {
  std::array<AttentionConfig, std::size(kHeadDimConfigs) * 2 + (kFp8AttentionBuilt ? std::size(kFp8HeadDimConfigs) : 0)>
      list{};
  int i = 0;
  for (const HeadDimConfig& shape : kHeadDimConfigs)
    for (DType dtype : {DType::kBF16, DType::kFP16}) list[i++] = AttentionConfig{shape, dtype};
  if constexpr (kFp8AttentionBuilt)
    for (const HeadDimConfig& shape : kFp8HeadDimConfigs) list[i++] = AttentionConfig{shape, DType::kE4M3};
  return list;
}

inline constexpr auto kAttentionInstances = make_attention_instances();

}  // namespace warpspec::attention_impl
