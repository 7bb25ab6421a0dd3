#pragma once
// The GEMM kernels that are built: one explicit list. Every tile of kTileConfigs x
// input dtype (bf16, fp16) x output (the input's, fp32) x operand majors (A, B each
// K- or MN-major) = 3 x 2 x 2 x 4 = 48 kernels, no clusters. The host's choices
// (gemm.cpp) only ever name configurations from this list; tests sweep all of them.
#include <array>

#include "warpspec/gemm/config.hpp"

namespace warpspec::gemm_impl {

constexpr auto make_gemm_instances() {
  std::array<GemmConfig, kNumTileConfigs * 2 * 2 * 4> list{};
  int i = 0;
  for (const TileConfig& tile : kTileConfigs)
    for (DType in : {DType::kBF16, DType::kFP16})
      for (DType out : {in, DType::kFP32})
        for (bool a_k_major : {true, false})
          for (bool b_k_major : {true, false}) list[i++] = GemmConfig{tile, in, out, a_k_major, b_k_major, {}};
  return list;
}

inline constexpr auto kGemmInstances = make_gemm_instances();

}  // namespace warpspec::gemm_impl
