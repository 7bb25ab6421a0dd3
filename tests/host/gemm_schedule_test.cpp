// The consumer warpgroups' schedule (GemmArgs::schedule): the ping-pong kernels the list
// builds, the heuristic's rule, what an explicit kPingPong accepts and what it refuses
// by name (before any launch, nothing written), the C ABI's version 5 field, and on a
// Hopper machine what describe() reports for each.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>

#include "host/expect_status.hpp"
#include "host/test_memory.hpp"
#include "src/gemm/tile_choice.hpp"
#include "src/gemm/instances.hpp"
#include "warpspec/warpspec.h"
#include "warpspec/warpspec.hpp"


// A named namespace: the host tests build as one unity translation unit.
namespace gemm_schedule_test {

using warpspec::DType;
using warpspec::GemmArgs;
using warpspec::GemmSchedule;
using warpspec::StatusCode;
using warpspec::TensorView;
namespace gi = warpspec::gemm_impl;

void* fake(uintptr_t offset = 0) { return warpspec::test::test_pointer(offset); }

// x @ w.t(): M x K row-major A, K x N column-major B, M x N row-major D, bf16.
GemmArgs linear(int64_t m = 256, int64_t n = 512, int64_t k = 64) {
  GemmArgs g;
  g.a = TensorView::matrix(fake(), DType::kBF16, m, k, k);
  g.b = TensorView::matrix(fake(uintptr_t(16) << 20), DType::kBF16, k, n, k, /*row_major=*/false);
  g.d = TensorView::matrix(fake(uintptr_t(32) << 20), DType::kBF16, m, n, n);
  return g;
}

GemmArgs pingpong(GemmArgs g) {
  g.schedule = GemmSchedule::kPingPong;
  return g;
}

GemmArgs with_bias(GemmArgs g, int64_t n) {
  TensorView bias;  // a contiguous fp32 vector of N
  bias.data = fake(uintptr_t(90) << 20), bias.dtype = DType::kFP32, bias.rank = 1;
  bias.shape[0] = n, bias.stride[0] = 1;
  g.bias = bias;
  g.activation = warpspec::GemmActivation::kGeluTanh;
  return g;
}

using warpspec::test::accepted;
using warpspec::test::expect_refused;

// The plain 16-bit cooperative kernels write D in the input's type or fp32 (config.hpp
// writes_fp32_too): every tile, input and layout runs D fp32 on the kernel listed with D of
// the input's type, and only those: a ping-pong, cluster, fused, wave-width or narrow
// configuration with D fp32 stays unbuilt (the host refuses or picks another kernel).
TEST(GemmSchedule, PlainKernelsWriteTheirDTypeOrFp32) {
  int mapped = 0;
  for (const gi::TileConfig& tile : gi::kTileConfigs)
    for (DType in : {DType::kBF16, DType::kFP16})
      for (bool a_k : {true, false})
        for (bool b_k : {true, false}) {
          const gi::GemmConfig fp32{tile, in, DType::kFP32, a_k, b_k, {}};
          gi::GemmConfig own = fp32;
          own.out = in;
          EXPECT_TRUE(gi::is_built(fp32));
          EXPECT_TRUE(gi::is_built(own));
          EXPECT_TRUE(gi::kernel_config(fp32) == own);
          EXPECT_TRUE(gi::writes_fp32_too(own));
          ++mapped;
          // No kernel is listed with D fp32 for these: the one kernel serves both.
          for (const gi::GemmConfig& c : gi::kGemmInstances) EXPECT_FALSE(c == fp32);
        }
  EXPECT_EQ(mapped, gi::kNumPlainInstances);
  auto unbuilt_fp32 = [](gi::GemmConfig c) {
    c.out = DType::kFP32;
    return !gi::is_built(c) && gi::kernel_config(c) == c;
  };
  gi::GemmConfig pp{gi::kPingPongTileConfig, DType::kBF16, DType::kBF16, true, true, {}};
  pp.schedule = gi::KernelSchedule::kPingPong;
  EXPECT_TRUE(gi::is_built(pp));
  EXPECT_TRUE(unbuilt_fp32(pp));
  gi::GemmConfig cluster = gi::kClusterBase;
  cluster.cluster = {2, 1};
  EXPECT_TRUE(gi::is_built(cluster));
  EXPECT_TRUE(unbuilt_fp32(cluster));
  gi::GemmConfig fused{gi::kFusedTileConfig, DType::kFP16, DType::kFP16, true, true, {}, gi::EpilogueKind::kFused};
  EXPECT_TRUE(gi::is_built(fused));
  EXPECT_TRUE(unbuilt_fp32(fused));
  const gi::GemmConfig wave{gi::kWaveTileConfig, DType::kBF16, DType::kBF16, true, true, {}};
  EXPECT_TRUE(gi::is_built(wave));
  EXPECT_TRUE(unbuilt_fp32(wave));
  const gi::GemmConfig narrow{gi::kNarrowTileConfigs[0], DType::kBF16, DType::kBF16, true, true, {}};
  EXPECT_TRUE(gi::is_built(narrow));
  EXPECT_TRUE(unbuilt_fp32(narrow));
  // FP8 kernels keep their own fp32 D kernel.
  const gi::GemmConfig fp8{gi::kFp8TileConfig, DType::kE4M3, DType::kFP32, true, true, {}, gi::EpilogueKind::kFused};
  EXPECT_TRUE(gi::is_built(fp8));
  EXPECT_TRUE(gi::kernel_config(fp8) == fp8);
}

TEST(GemmSchedule, PingPongKernelsAreBuiltForLinearLayers) {
  int built = 0, fp8 = 0, mn_major = 0, wave = 0;
  for (const gi::GemmConfig& c : gi::kGemmInstances) {
    if (c.schedule != gi::KernelSchedule::kPingPong) continue;
    if (c.tile == gi::kWavePingPongTileConfig) {  // the 160-wide probe: bf16 x @ w.t(), linear, by name
      ++wave;
      EXPECT_EQ(c.in, DType::kBF16);
      EXPECT_EQ(c.out, DType::kBF16);
      EXPECT_TRUE(c.a_k_major && c.b_k_major);
      EXPECT_EQ(c.epilogue, gi::EpilogueKind::kLinear);
      EXPECT_EQ(gi::pingpong_tile(c.in, 160), c.tile);
      continue;
    }
    ++built;
    if (c.in == DType::kE4M3) {  // FP8: e4m3 -> bf16, the fused epilogue (its scales), 128 K a stage
      ++fp8;
      EXPECT_EQ(c.tile, gi::kFp8TileConfig);
      EXPECT_EQ(c.out, DType::kBF16);
      EXPECT_EQ(c.epilogue, gi::EpilogueKind::kFused);
      EXPECT_FALSE(c.b_other_fp8);
    } else {
      EXPECT_EQ(c.tile, gi::kPingPongTileConfig);
      EXPECT_TRUE(c.in == DType::kBF16 || c.in == DType::kFP16);
      EXPECT_EQ(c.out, c.in);
    }
    EXPECT_EQ(c.tile, gi::pingpong_tile(c.in));
    EXPECT_TRUE(c.a_k_major || c.b_k_major);
    if (!c.a_k_major || !c.b_k_major) {  // one operand MN-major: 16-bit, the linear epilogue
      ++mn_major;
      EXPECT_TRUE(c.in == DType::kBF16 || c.in == DType::kFP16);
      EXPECT_EQ(c.epilogue, gi::EpilogueKind::kLinear);
    }
    EXPECT_EQ(c.cluster.size(), 1);
  }
  // bf16 and fp16, each with the linear and the fused epilogue (x @ w.t()) and the linear
  // one with B N-major (a @ b) and with A M-major; e4m3.
  EXPECT_EQ(built, 9);
  EXPECT_EQ(wave, 1);
  EXPECT_EQ(fp8, 1);
  EXPECT_EQ(mn_major, 4);
  EXPECT_EQ(gi::kFp8TileConfig.block_m, 128);
  EXPECT_EQ(gi::kFp8TileConfig.block_n, 128);
  EXPECT_EQ(gi::kPingPongTileConfig.block_m, 128);
  EXPECT_EQ(gi::kPingPongTileConfig.block_n, 128);
}

// The heuristic: at least two 128 x 128 tiles per SM, so both warpgroups have tiles.
TEST(GemmSchedule, HeuristicTakesPingPongWithTilesForBothWarpgroups) {
  EXPECT_TRUE(warpspec::pingpong_pays(4096, 14336, 1024, 1, 132, false, false));  // 3584 tiles
  EXPECT_TRUE(warpspec::pingpong_pays(4096, 4096, 1024, 1, 132, false, false));   // 1024
  EXPECT_TRUE(warpspec::pingpong_pays(2048, 2112, 1024, 1, 132, false, false));   // 16 x 17 = 272 >= 264
  EXPECT_FALSE(warpspec::pingpong_pays(2048, 2048, 1024, 1, 132, false, false));  // 256 < 264
  EXPECT_TRUE(warpspec::pingpong_pays(1024, 1024, 1024, 5, 132, false, false));   // 320 over the batch
  EXPECT_FALSE(warpspec::pingpong_pays(128, 8192, 1024, 1, 132, false, false));   // one row tile: 64
  EXPECT_FALSE(warpspec::pingpong_pays(2048, 2048, 1024, 1, 148, false, false));  // more SMs, fewer tiles each
  // FP8 (fast accumulation): from 1.8 tiles per SM, 238 at 132 SMs.
  EXPECT_TRUE(warpspec::pingpong_pays(2048, 2048, 1024, 1, 132, true, false));   // 256
  EXPECT_TRUE(warpspec::pingpong_pays(1920, 2048, 1024, 1, 132, true, false));   // 240
  EXPECT_TRUE(warpspec::pingpong_pays(1904, 2048, 1024, 1, 132, true, false));   // 15 x 16 = 240 (last row tile partial)
  EXPECT_FALSE(warpspec::pingpong_pays(1792, 2048, 1024, 1, 132, true, false));  // 224
  EXPECT_FALSE(warpspec::pingpong_pays(1536, 2048, 1024, 1, 132, true, false));  // 192
  EXPECT_FALSE(warpspec::pingpong_pays(1920, 2048, 1024, 1, 148, true, false));  // 240 < 266.4 at 148 SMs
  // 16-bit, the plain epilogue, K > 1024, between two and three tiles per SM: only where the
  // busiest CTA's tiles are within 10% of the average (tiles / (SMs x busiest) >= 0.9).
  EXPECT_FALSE(warpspec::pingpong_pays(2048, 2176, 4096, 1, 132, false, false));  // 272: 3 a CTA, 0.69
  EXPECT_FALSE(warpspec::pingpong_pays(2048, 2560, 4096, 1, 132, false, false));  // 320: 0.81
  EXPECT_FALSE(warpspec::pingpong_pays(2048, 2560, 1025, 1, 132, false, false));
  EXPECT_TRUE(warpspec::pingpong_pays(2048, 2560, 1024, 1, 132, false, false));   // K <= 1024: the epilogue's share
  EXPECT_TRUE(warpspec::pingpong_pays(2048, 2560, 4096, 1, 132, false, true));    // a fused epilogue hides more
  EXPECT_TRUE(warpspec::pingpong_pays(2048, 3072, 4096, 1, 132, false, false));   // 384: 0.97
  EXPECT_TRUE(warpspec::pingpong_pays(1536, 2816, 4096, 1, 132, false, false));   // 12 x 22 = 264: two each, 1.0
  EXPECT_FALSE(warpspec::pingpong_pays(2048, 2112, 4096, 1, 132, false, false));  // 16 x 17 = 272
  EXPECT_TRUE(warpspec::pingpong_pays(2048, 3328, 4096, 1, 132, false, false));   // 416: three tiles a SM or more
  EXPECT_TRUE(warpspec::pingpong_pays(8192, 8192, 8192, 1, 132, false, false));   // 4096
  EXPECT_FALSE(warpspec::pingpong_pays(2048, 2048, 128, 1, 132, false, true));    // 256 < 264, whatever the epilogue
}

// 16-bit calls with K > 8192 stay cooperative whatever the tile count or epilogue (the
// H100's sustained-load cliff, tile_choice.cpp kPingPongMaxK); FP8 keeps its rule.
TEST(GemmSchedule, HeuristicKeepsLongK16BitCallsCooperative) {
  EXPECT_TRUE(warpspec::pingpong_pays(4096, 8192, 8192, 1, 132, false, false));
  EXPECT_TRUE(warpspec::pingpong_pays(4096, 8192, 8192, 1, 132, false, true));
  EXPECT_FALSE(warpspec::pingpong_pays(4096, 8192, 8193, 1, 132, false, false));
  EXPECT_FALSE(warpspec::pingpong_pays(4096, 8192, 16384, 1, 132, false, true));
  EXPECT_FALSE(warpspec::pingpong_pays(4096, 8192, 28672, 1, 132, false, false));
  EXPECT_FALSE(warpspec::pingpong_pays(16384, 16384, 16384, 1, 132, false, false));
  EXPECT_TRUE(warpspec::pingpong_pays(4096, 8192, 28672, 1, 132, true, false));
  // Nor does the wave model take the 160-wide ping-pong tile there: 2048 x 2560 takes it at
  // K = 4096 (its design row) and, priced alone, at K = 12288, where it is not run.
  EXPECT_EQ(warpspec::wave_tile_width(2048, 2560, 4096, 1, 132), 160);
  EXPECT_NE(warpspec::wave_tile_width(2048, 2560, 12288, 1, 132), 160);
}

// The tile order the library picks (tile_choice.cpp library_raster): along N for 16-bit
// calls without a cluster, along M for 16-bit 1 x 2 pairs; FP8 and 2 x 1 pairs keep
// CUTLASS's rule.
TEST(GemmSchedule, HeuristicWalks16BitTilesAlongN) {
  using warpspec::schedule::RasterOrder;
  EXPECT_EQ(warpspec::library_raster(2, 1, 1), RasterOrder::kAlongN);
  EXPECT_EQ(warpspec::library_raster(2, 1, 2), RasterOrder::kAlongM);
  EXPECT_EQ(warpspec::library_raster(2, 2, 1), RasterOrder::kHeuristic);
  EXPECT_EQ(warpspec::library_raster(1, 1, 1), RasterOrder::kHeuristic);
  EXPECT_EQ(warpspec::library_raster(1, 1, 2), RasterOrder::kHeuristic);
}

TEST(GemmSchedule, PingPongAcceptsWhatItIsBuiltFor) {
  for (const GemmArgs& g : {pingpong(linear()), pingpong(linear(16, 4096, 1024)), pingpong(with_bias(linear(), 512))}) {
    EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  }
  GemmArgs g = pingpong(linear());
  g.a.dtype = g.b.dtype = g.d.dtype = DType::kFP16;
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  // 1 x 1 x 1: B reads as either layout; ping-pong takes it K-major, as the fused kernels do.
  g = pingpong(linear(1, 1, 1));
  g.b = TensorView::matrix(fake(uintptr_t(16) << 20), DType::kBF16, 1, 1, 8);
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g = pingpong(linear());
  g.tile_n = 128;
  g.decomposition = warpspec::GemmDecomposition::kDataParallel;
  g.cluster_m = g.cluster_n = 1;
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g = pingpong(with_bias(linear(), 512));
  g.tile_n = 128;  // the fused 16-bit calls' other width, with ping-pong only
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g.schedule = GemmSchedule::kHeuristic;
  expect_refused(g, StatusCode::kUnsupported, "tile_n: scales, bias and activation on 16-bit GEMMs");
  // a @ b: B row-major (N contiguous), bf16 and fp16, with beta·C.
  g = pingpong(linear());
  g.b = TensorView::matrix(fake(uintptr_t(16) << 20), DType::kBF16, 64, 512, 512);
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g.a.dtype = g.b.dtype = g.d.dtype = DType::kFP16;
  g.beta = 0.5f, g.c = g.d;
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  // A column-major (M contiguous), B column-major (K contiguous).
  g = pingpong(linear());
  g.a = TensorView::matrix(fake(), DType::kBF16, 256, 64, 256, /*row_major=*/false);
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  // A column-major D swaps A and B, which stay K-major.
  g = pingpong(linear());
  g.d = TensorView::matrix(fake(uintptr_t(32) << 20), DType::kBF16, 256, 512, 256, /*row_major=*/false);
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  // Cooperative by name: any call.
  g = linear();
  g.schedule = GemmSchedule::kCooperative;
  g.beta = 0.5f, g.c = g.d;
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
}

TEST(GemmSchedule, PingPongRefusesWhatItIsNotBuiltForByName) {
  GemmArgs g = linear();
  g.schedule = GemmSchedule(7);
  expect_refused(g, StatusCode::kInvalidArgument, "schedule: unknown value 7");
  const char* built = "schedule: ping-pong is built for bf16 or fp16 A and B with D of their dtype, and for e4m3";
  g = pingpong(linear());
  g.d.dtype = DType::kFP32;
  expect_refused(g, StatusCode::kUnsupported, built);
  g = pingpong(linear());  // both MN-major: column-major A (M contiguous), row-major B (N contiguous)
  g.a = TensorView::matrix(fake(), DType::kBF16, 256, 64, 256, /*row_major=*/false);
  g.b = TensorView::matrix(fake(uintptr_t(16) << 20), DType::kBF16, 64, 512, 512);
  expect_refused(g, StatusCode::kUnsupported, "this call has bf16 A (column-major), bf16 B (row-major)");
  // a @ b with a bias: the N-major ping-pong kernel has the linear epilogue only (and the
  // fused kernels read B K-major).
  g = pingpong(with_bias(linear(), 512));
  g.b = TensorView::matrix(fake(uintptr_t(16) << 20), DType::kBF16, 64, 512, 512);  // row-major B (N contiguous)
  expect_refused(g, StatusCode::kUnsupported, "b.stride: scales, bias and activation on bf16 GEMMs are built for column-major B");
  g = pingpong(linear());
  g.tile_n = 256;
  expect_refused(g, StatusCode::kUnsupported, "tile_n: the ping-pong schedule is built with tile width 128");
  g.tile_n = 16;
  expect_refused(g, StatusCode::kUnsupported, "tile_n: the ping-pong schedule");
  g = pingpong(linear());
  g.beta = 0.5f, g.c = g.d;  // beta·C runs (each warpgroup's own C ring): accepted
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g = pingpong(linear());
  g.decomposition = warpspec::GemmDecomposition::kSplitK;
  expect_refused(g, StatusCode::kUnsupported, "decomposition: the ping-pong schedule runs data-parallel");
  g.decomposition = warpspec::GemmDecomposition::kStreamK;
  expect_refused(g, StatusCode::kUnsupported, "decomposition: the ping-pong schedule runs data-parallel");
  g = pingpong(linear());
  g.cluster_m = 2, g.cluster_n = 1;
  expect_refused(g, StatusCode::kUnsupported, "cluster_m, cluster_n: the ping-pong schedule runs without clusters");
  // FP8: e4m3 -> bf16 with fast accumulation only (no registers for promotion).
  g = pingpong(linear());
  g.a.dtype = g.b.dtype = DType::kE4M3;
  g.scale_a = TensorView::matrix(fake(uintptr_t(80) << 20), DType::kFP32, 1, 1, 1);
  g.scale_b = TensorView::matrix(fake(uintptr_t(81) << 20), DType::kFP32, 1, 1, 1);
  expect_refused(g, StatusCode::kUnsupported, "schedule: the FP8 ping-pong kernel accumulates in the tensor cores only");
  g.use_fast_accum = true;
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g.d.dtype = DType::kFP16;  // e4m3 -> fp16: the same kernel (config.hpp kernel_config)
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g.d.dtype = DType::kFP32;  // e4m3 -> fp32: not built
  expect_refused(g, StatusCode::kUnsupported, built);
  g.d.dtype = DType::kBF16;
  g.b.dtype = DType::kE5M2;  // mixed formats: not built
  expect_refused(g, StatusCode::kUnsupported, built);
}

TEST(GemmSchedule, CAbiVersionFiveCarriesTheSchedule) {
  EXPECT_EQ(offsetof(warpspec_gemm_args, scale_result), 648u);  // version 5 ends there
  warpspec_gemm_args a = warpspec_gemm_args_default();
  EXPECT_EQ(a.schedule, WARPSPEC_GEMM_SCHEDULE_HEURISTIC);
  const GemmArgs cpp = linear();
  const auto tensor = [](const TensorView& v) {
    warpspec_tensor t{};
    t.data = v.data, t.dtype = int32_t(v.dtype), t.rank = v.rank;
    for (int i = 0; i < v.rank; ++i) t.shape[i] = v.shape[i], t.stride[i] = v.stride[i];
    return t;
  };
  a.a = tensor(cpp.a), a.b = tensor(cpp.b), a.d = tensor(cpp.d);
  a.beta = 0.5f, a.c = a.d;
  a.schedule = WARPSPEC_GEMM_SCHEDULE_PING_PONG;
  a.tile_n = 256;
  EXPECT_EQ(warpspec_gemm_check(&a), WARPSPEC_UNSUPPORTED);
  EXPECT_NE(std::string(warpspec_last_error()).find("tile_n: the ping-pong schedule"), std::string::npos)
      << warpspec_last_error();
  a.tile_n = 0;
  a.schedule = 9;
  EXPECT_EQ(warpspec_gemm_check(&a), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(warpspec_last_error()).find("schedule: unknown value 9"), std::string::npos);
  // A version 4 caller (640 bytes) never set the field: whatever lies there is not read.
  a.struct_size = 640;
  const warpspec_status s = warpspec_gemm_check(&a);
  EXPECT_TRUE(s == WARPSPEC_OK || s == WARPSPEC_NO_DEVICE) << warpspec_last_error();
  a.struct_size = sizeof(warpspec_gemm_args);
  a.schedule = WARPSPEC_GEMM_SCHEDULE_COOPERATIVE;
  a.reserved5 = 1;
  EXPECT_EQ(warpspec_gemm_check(&a), WARPSPEC_UNSUPPORTED);
  EXPECT_NE(std::string(warpspec_last_error()).find("reserved5: must be 0"), std::string::npos);
}

std::map<std::string, std::string> words(const std::string& line) { return warpspec::test::described_words(line); }

// On a Hopper machine: describe() reports ping-pong where the heuristic takes it (a fused
// bf16 linear layer with two tiles per SM or more), data-parallel on 128 x 128 tiles, and
// where it is asked for; cooperative elsewhere and where asked for.
TEST(GemmSchedule, DescribeReportsTheScheduleOnHopper) {
  if (!warpspec::check_device().ok()) GTEST_SKIP() << "needs a Hopper GPU (describe() plans for the device)";
  std::string line;
  // The tile order: 16-bit calls walk along N where CUTLASS's rule walks along M (more N
  // tiles than M tiles; tile_choice.cpp library_raster); an order asked for is kept.
  // (256 x 4096: 2 M tiles, 16 or more N tiles; the operands fit linear()'s disjoint fake views.)
  warpspec::Status st = warpspec::describe(linear(256, 4096, 64), &line);
  ASSERT_TRUE(st.ok()) << st.to_string();
  EXPECT_EQ(words(line)["raster"], "along_n") << line;
  GemmArgs along_m = linear(256, 4096, 64);
  along_m.raster = warpspec::GemmRaster::kAlongM;
  st = warpspec::describe(along_m, &line);
  ASSERT_TRUE(st.ok()) << st.to_string();
  EXPECT_EQ(words(line)["raster"], "along_m") << line;
  // 16 x 20 = 320 tiles (>= 2 x 132): ping-pong.
  ASSERT_TRUE(warpspec::describe(with_bias(linear(2048, 2560, 64), 2560), &line).ok());
  EXPECT_EQ(words(line)["schedule"], "pingpong") << line;
  EXPECT_EQ(words(line)["tile"], "128x128x64") << line;
  EXPECT_EQ(words(line)["decomposition"], "data_parallel") << line;
  EXPECT_EQ(words(line)["epilogue"], "fused") << line;
  // 8 x 8 = 64 tiles: cooperative (no schedule word), its fused 128 x 256 tile.
  ASSERT_TRUE(warpspec::describe(with_bias(linear(1024, 1024, 64), 1024), &line).ok());
  EXPECT_EQ(words(line).count("schedule"), 0u) << line;
  EXPECT_EQ(words(line)["tile"], "128x256x64") << line;
  // A plain GEMM: ping-pong too with two tiles per SM, with beta·C too; not with fewer tiles.
  ASSERT_TRUE(warpspec::describe(linear(2048, 2560, 64), &line).ok());
  EXPECT_EQ(words(line)["schedule"], "pingpong") << line;
  GemmArgs beta = linear(2048, 2560, 64);
  beta.beta = 0.5f, beta.c = beta.d;
  ASSERT_TRUE(warpspec::describe(beta, &line).ok());
  EXPECT_EQ(words(line)["schedule"], "pingpong") << line;
  ASSERT_TRUE(warpspec::describe(linear(1024, 1024, 64), &line).ok());
  EXPECT_EQ(words(line).count("schedule"), 0u) << line;
  // a @ b (B row-major): ping-pong with two tiles per SM, not with fewer.
  GemmArgs nn = linear(2048, 2560, 64);
  nn.b = TensorView::matrix(fake(uintptr_t(16) << 20), DType::kBF16, 64, 2560, 2560);
  ASSERT_TRUE(warpspec::describe(nn, &line).ok());
  EXPECT_EQ(words(line)["schedule"], "pingpong") << line;
  EXPECT_EQ(words(line)["tile"], "128x128x64") << line;
  nn = linear(1024, 1024, 64);
  nn.b = TensorView::matrix(fake(uintptr_t(16) << 20), DType::kBF16, 64, 1024, 1024);
  ASSERT_TRUE(warpspec::describe(nn, &line).ok());
  EXPECT_EQ(words(line).count("schedule"), 0u) << line;
  ASSERT_TRUE(warpspec::describe(pingpong(linear(1024, 1024, 64)), &line).ok());
  EXPECT_EQ(words(line)["schedule"], "pingpong") << line;
  // A skinny call asked for ping-pong runs it, not the narrow tiles.
  ASSERT_TRUE(warpspec::describe(pingpong(linear(16, 2560, 64)), &line).ok());
  EXPECT_EQ(words(line)["schedule"], "pingpong") << line;
  EXPECT_EQ(words(line)["swapped"], "0") << line;
  // The fused call with cooperative by name.
  GemmArgs g = with_bias(linear(2048, 2560, 64), 2560);
  g.schedule = GemmSchedule::kCooperative;
  ASSERT_TRUE(warpspec::describe(g, &line).ok());
  EXPECT_EQ(words(line).count("schedule"), 0u) << line;
}

// The 224-wide tile (a probe: docs/design/gemm-wave-widths.md) is accepted for bf16 x @ w.t()
// with the linear epilogue, by name only, and refused by name for everything else.
TEST(GemmWaveTile, AcceptedForOneCallRefusedForTheRest) {
  GemmArgs g = linear();
  g.tile_n = 224;
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g.beta = 0.5f, g.c = g.d;
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g = linear();
  g.tile_n = 224;
  g.a.dtype = g.b.dtype = g.d.dtype = DType::kFP16;
  expect_refused(g, StatusCode::kUnsupported, "tile_n: 224");
  g = linear();
  g.tile_n = 224;
  g.b = TensorView::matrix(fake(uintptr_t(16) << 20), DType::kBF16, 64, 512, 512);  // B N-major (a @ b)
  expect_refused(g, StatusCode::kUnsupported, "tile_n: 224");
  g = with_bias(linear(), 512);
  g.tile_n = 224;
  expect_refused(g, StatusCode::kUnsupported, "tile_n: ");
  g = linear();
  g.tile_n = 224;
  g.schedule = GemmSchedule::kPingPong;
  expect_refused(g, StatusCode::kUnsupported, "tile_n: ");
  g = linear();
  g.tile_n = 200;
  expect_refused(g, StatusCode::kInvalidArgument, "tile_n: must be");
  // 160: the ping-pong sibling, with the schedule named only.
  g = pingpong(linear());
  g.tile_n = 160;
  EXPECT_TRUE(accepted(warpspec::check(g))) << warpspec::check(g).to_string();
  g.schedule = GemmSchedule::kHeuristic;
  expect_refused(g, StatusCode::kUnsupported, "tile_n: 160");
  g = pingpong(linear());
  g.tile_n = 160;
  g.a.dtype = g.b.dtype = g.d.dtype = DType::kFP16;
  expect_refused(g, StatusCode::kUnsupported, "tile_n: 160");
}

// The wave-filling widths (tile_choice.cpp wave_tile_width): 224 (cooperative) or 160
// (ping-pong) where the model's busiest SM gains 10% on the library's other choice, on the
// rows measured on an H100 (bench/NOTES.md stop 63) and on what the rule says for others.
TEST(GemmWaveTile, ModelTakesAWidthWhereItFillsTheWaves) {
  const auto width = [](int64_t m, int64_t n, int64_t k, int64_t l = 1, int sms = 132) {
    return warpspec::wave_tile_width(m, n, k, l, sms);
  };
  // Measured gains: 448 ping-pong tiles in 4 waves -> 256 in 2 (+21%); 416 -> 240 (+6%);
  // 160 tiles streamed -> 256 ping-pong tiles, 2 a CTA (+9%).
  EXPECT_EQ(width(256, 28672, 8192), 224);
  EXPECT_EQ(width(2048, 3328, 4096), 224);
  EXPECT_EQ(width(2048, 2560, 4096), 160);
  // Measured losses, left alone: 224 over 3072^3's 576 ping-pong tiles (-11%), 160 at
  // 2048 x 2176 (-3%) and 4096 x 14336 (-2%).
  EXPECT_EQ(width(3072, 3072, 4096), 0);
  EXPECT_EQ(width(2048, 2176, 4096), 0);
  EXPECT_EQ(width(4096, 14336, 4096), 0);
  // Whole waves already, or many of them: nothing to fill.
  for (const auto& [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{2048, 2048, 2048}, {4096, 4096, 4096},
                                {8192, 8192, 8192}, {4096, 8192, 28672}, {1024, 8192, 8192}, {8192, 8192, 1024}})
    EXPECT_EQ(width(m, n, k), 0) << m << "x" << n << "x" << k;
  // Small M: the narrow tiles' and the K decomposition's rows (pick_tile), never a wave width.
  EXPECT_EQ(width(16, 8192, 8192), 0);
  EXPECT_EQ(width(1, 28672, 8192), 0);
  EXPECT_EQ(width(128, 8192, 8192), 0);
  // The batch counts as tiles: two batches of 128 rows are 256 rows' worth.
  EXPECT_EQ(width(128, 28672, 8192, 2), 224);
  // The SM count moves the waves: on 148 SMs 2048 x 3328's 416 ping-pong tiles fill 2.8 of
  // their 3 waves, which the model prices below 224's 240 tiles in 2.
  EXPECT_EQ(width(2048, 3328, 4096, 1, 148), 0);
  // K = 0 (beta * C alone) is priced as one k-iteration, as pick_tile does.
  EXPECT_EQ(width(256, 28672, 0), width(256, 28672, 64));
}

}  // namespace gemm_schedule_test
