#pragma once
// The GEMM kernels that are built: one explicit list.
//   plain 16-bit: every tile of kTileConfigs x input dtype (bf16, fp16) x operand majors
//     (A, B each K- or MN-major) = 3 x 2 x 4 = 24 kernels with the linear epilogue (alpha,
//     beta·C), each writing D in the input's type or fp32 (a runtime value: config.hpp
//     writes_fp32_too; listed with D of the input's type);
//   fused 16-bit: kFusedTileConfig x input (bf16, fp16), output the input's, A and B
//     K-major = 2 kernels with the fused epilogue (scales, bias, activation);
//   FP8: kFp8TileConfig x e4m3 x output (16-bit, fp32), A and B K-major (wgmma's
//     rule), fused epilogue (FP8 always has scales) = 2 kernels, and kFp8WideTileConfig
//     for a 16-bit D (tile_n = 256) = 1 kernel. A "16-bit" FP8 kernel is listed with D
//     bf16 and writes fp16 too (config.hpp kernel_config: the type is a runtime value).
//     e5m2 x e5m2 is not built (torch._scaled_mm refuses it too); it is refused by name;
//   mixed FP8: kFp8TileConfig x (e4m3 A, e5m2 B) and (e5m2 A, e4m3 B) x output (16-bit,
//     fp32), K-major, fused epilogue = 4 kernels (the e5m2-A ones in their own unit);
//   clusters: kTileConfigs[0] (128 x 256) x bf16 in and out, A and B K-major (a linear
//     layer's layout, "TN"), the linear epilogue, 2x1 (the pair shares B) and 1x2 (shares
//     A) = 2 kernels: what `--cluster` (GemmArgs::cluster_m/n) asks for; the library picks
//     1x1 itself. Other cluster requests are refused by name;
//   narrow: kNarrowTileConfigs x input (bf16, fp16), D of the input dtype, A and B K-major
//     (the swapped operands of x @ w.t()), the linear epilogue = 4 kernels: what skinny
//     problems (M <= 32) run;
//   ping-pong: kPingPongTileConfig (128 x 128) x input (bf16, fp16), D of the input dtype,
//     A and B K-major, the linear and the fused epilogue = 4 kernels
//     (gemm/kernel_pingpong.cuh): GemmSchedule's kPingPong, and the heuristic's choice
//     from two tiles per SM (gemm.cpp pingpong_pays says where);
//   FP8 ping-pong: kFp8TileConfig (128 x 128 x 128) x e4m3 -> 16-bit, K-major, the fused
//     epilogue = 1 kernel: fast accumulation only (a warpgroup's 128 x 128 tile holds 128
//     accumulator registers, with no room for promotion's second fragment);
//   MN-major ping-pong: kPingPongTileConfig x input (bf16, fp16) x (A K-major, B N-major:
//     both row-major, torch's a @ b, `bench gemm --layout tt`; A M-major, B K-major:
//     `--layout nn`), D of the input dtype, the linear epilogue = 4 kernels: the ping-pong
//     schedule for the other layouts of a plain GEMM (bench/NOTES.md v80).
//   wave tile: kWaveTileConfig (128 x 224) x bf16, D bf16, A and B K-major, linear, cooperative
//     and kWavePingPongTileConfig (128 x 160) x the same, ping-pong = 2 kernels: widths
//     that fill the waves (docs/design/gemm-wave-widths.md, tile_choice.cpp);
//   FP8 out: kFp8TileConfig x e4m3 x e4m3 -> e4m3, K-major, fused epilogue with the output's
//     scale and amax (gemm/epilogue_quant.cuh) = 1 kernel: torch._scaled_mm's FP8 output.
// The host's choices (gemm.cpp) only ever name configurations from this list; tests
// sweep all of them. Each group is appended after the ones before it, so the older
// kernels keep their indices (and kernel names: dispatch.hpp names kernels by index).
#include <array>

#include "warpspec/gemm/config.hpp"

namespace warpspec::gemm_impl {

inline constexpr int kNumPlainInstances = kNumTileConfigs * 2 * 4;
inline constexpr int kNumFusedInstances = 2 + 2 + 1;
inline constexpr ClusterShape kClusterShapes[] = {{2, 1}, {1, 2}};
inline constexpr int kNumClusterInstances = int(sizeof(kClusterShapes) / sizeof(kClusterShapes[0]));
inline constexpr int kNumNarrowInstances = kNumNarrowTileConfigs * 2;
inline constexpr int kNumMixedFp8Instances = 2 * 2;
inline constexpr int kNumPingPongInstances = 2 * 2;
inline constexpr int kNumFp8PingPongInstances = 1;
inline constexpr int kNumMNMajorPingPongInstances = 4;
inline constexpr int kNumWaveTileInstances = 2;
inline constexpr int kNumFp8OutInstances = 1;

// The one configuration built with clusters, less its cluster shape.
inline constexpr GemmConfig kClusterBase{kTileConfigs[0], DType::kBF16, DType::kBF16, true, true, {}};

constexpr auto make_gemm_instances() {
  std::array<GemmConfig, kNumPlainInstances + kNumFusedInstances + kNumClusterInstances + kNumNarrowInstances +
                             kNumMixedFp8Instances + kNumPingPongInstances + kNumFp8PingPongInstances +
                             kNumMNMajorPingPongInstances + kNumWaveTileInstances + kNumFp8OutInstances>
      list{};
  int i = 0;
  for (const TileConfig& tile : kTileConfigs)
    for (DType in : {DType::kBF16, DType::kFP16})
      for (bool a_k_major : {true, false})
        for (bool b_k_major : {true, false}) list[i++] = GemmConfig{tile, in, in, a_k_major, b_k_major, {}};
  for (DType in : {DType::kBF16, DType::kFP16})
    list[i++] = GemmConfig{kFusedTileConfig, in, in, true, true, {}, EpilogueKind::kFused};
  for (DType out : {DType::kBF16, DType::kFP32})
    list[i++] = GemmConfig{kFp8TileConfig, DType::kE4M3, out, true, true, {}, EpilogueKind::kFused};
  list[i++] = GemmConfig{kFp8WideTileConfig, DType::kE4M3, DType::kBF16, true, true, {}, EpilogueKind::kFused};
  for (const ClusterShape& cluster : kClusterShapes) {
    GemmConfig c = kClusterBase;
    c.cluster = cluster;
    list[i++] = c;
  }
  for (const TileConfig& tile : kNarrowTileConfigs)
    for (DType in : {DType::kBF16, DType::kFP16}) list[i++] = GemmConfig{tile, in, in, true, true, {}};
  for (DType in : {DType::kE4M3, DType::kE5M2})
    for (DType out : {DType::kBF16, DType::kFP32})
      list[i++] = GemmConfig{kFp8TileConfig, in, out, true, true, {}, EpilogueKind::kFused, true};
  for (DType in : {DType::kBF16, DType::kFP16})
    for (EpilogueKind e : {EpilogueKind::kLinear, EpilogueKind::kFused})
      list[i++] = GemmConfig{kPingPongTileConfig, in, in, true, true, {}, e, false, KernelSchedule::kPingPong};
  list[i++] = GemmConfig{kFp8TileConfig, DType::kE4M3, DType::kBF16, true, true, {}, EpilogueKind::kFused, false,
                         KernelSchedule::kPingPong};
  for (DType in : {DType::kBF16, DType::kFP16})
    for (bool a_k_major : {true, false})
      list[i++] = GemmConfig{kPingPongTileConfig, in, in, a_k_major, !a_k_major, {}, EpilogueKind::kLinear, false,
                             KernelSchedule::kPingPong};
  list[i++] = GemmConfig{kWaveTileConfig, DType::kBF16, DType::kBF16, true, true, {}};
  list[i++] = GemmConfig{kWavePingPongTileConfig, DType::kBF16, DType::kBF16, true, true, {}, EpilogueKind::kLinear,
                         false, KernelSchedule::kPingPong};
  list[i++] = GemmConfig{kFp8TileConfig, DType::kE4M3, DType::kE4M3, true, true, {}, EpilogueKind::kFused};
  return list;
}

inline constexpr auto kGemmInstances = make_gemm_instances();

// Whether the kernel that runs a call of configuration `cfg` (kernel_config) is in the
// list (the host refuses what is not before anything launches).
constexpr bool is_built(const GemmConfig& cfg) {
  for (const GemmConfig& c : kGemmInstances)
    if (c == kernel_config(cfg)) return true;
  return false;
}

}  // namespace warpspec::gemm_impl
