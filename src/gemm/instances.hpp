#pragma once
// The GEMM kernels that are built: one explicit list.
//   16-bit: every tile of kTileConfigs x input dtype (bf16, fp16) x output (the input's,
//     fp32) x operand majors (A, B each K- or MN-major) = 3 x 2 x 2 x 4 = 48 kernels;
//   FP8: kFp8TileConfig x input (e4m3, e5m2; A and B the same) x output (bf16, fp16,
//     fp32), both operands K-major (wgmma's rule) = 6 kernels.
// No clusters. The host's choices (gemm.cpp) only ever name configurations from this
// list; tests sweep all of them.
#include <array>

#include "warpspec/gemm/config.hpp"

namespace warpspec::gemm_impl {

inline constexpr int kNum16BitInstances = kNumTileConfigs * 2 * 2 * 4;
inline constexpr int kNumFp8Instances = 2 * 3;

constexpr auto make_gemm_instances() {
  std::array<GemmConfig, kNum16BitInstances + kNumFp8Instances> list{};
  int i = 0;
  for (const TileConfig& tile : kTileConfigs)
    for (DType in : {DType::kBF16, DType::kFP16})
      for (DType out : {in, DType::kFP32})
        for (bool a_k_major : {true, false})
          for (bool b_k_major : {true, false}) list[i++] = GemmConfig{tile, in, out, a_k_major, b_k_major, {}};
  for (DType in : {DType::kE4M3, DType::kE5M2})
    for (DType out : {DType::kBF16, DType::kFP16, DType::kFP32})
      list[i++] = GemmConfig{kFp8TileConfig, in, out, true, true, {}};
  return list;
}

inline constexpr auto kGemmInstances = make_gemm_instances();

}  // namespace warpspec::gemm_impl
