// Introspection (warpspec/describe.hpp, WARPSPEC_LOG_CONFIG): describe() refuses exactly
// what check() refuses, the C ABI guards its buffer, the log switch reads its values as
// documented, and the line reports what the heuristics choose. Without a Hopper GPU the
// library refuses before planning, so the heuristic cases check the wording on a
// choice built here, and the same cases run through describe() on a Hopper machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "host/expect_status.hpp"
#include "host/test_memory.hpp"
#include "src/gemm/tile_choice.hpp"
#include "src/gemm/decomposition.hpp"
#include "testing/views.hpp"
#include "src/attention/describe.hpp"
#include "src/common/config_log.hpp"
#include "src/gemm/describe.hpp"
#include "warpspec/attention/config.hpp"
#include "warpspec/gemm/config.hpp"
#include "warpspec/schedule/persistent.hpp"
#include "warpspec/warpspec.h"
#include "warpspec/warpspec.hpp"


// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace describe_test {

using warpspec::DType;
using warpspec::StatusCode;
using warpspec::TensorView;

// key=value words of a described line.
std::map<std::string, std::string> words(const std::string& line) { return warpspec::test::described_words(line); }

int device_sms() {
  std::vector<warpspec::DeviceInfo> devices;
  int current = 0;
  if (!warpspec::list_devices(&devices).ok() || cudaGetDevice(&current) != cudaSuccess) return 0;
  for (const auto& d : devices)
    if (d.ordinal == current) return d.sm_count;
  return 0;
}

// M x K row-major A, K x N column-major B (both K-major), M x N row-major D.
warpspec::GemmArgs gemm_args(int64_t m, int64_t n, int64_t k) {
  warpspec::GemmArgs g;
  g.a = TensorView::matrix(warpspec::test::test_pointer(0), DType::kBF16, m, k, k);
  g.b = TensorView::matrix(warpspec::test::test_pointer(uintptr_t(32) << 20), DType::kBF16, k, n, k, false);
  g.d = TensorView::matrix(warpspec::test::test_pointer(uintptr_t(64) << 20), DType::kBF16, m, n, n);
  return g;
}

TEST(Describe, LogSwitchReadsItsValues) {
  using warpspec::ConfigLog;
  EXPECT_EQ(warpspec::parse_config_log(nullptr), ConfigLog::kOff);
  EXPECT_EQ(warpspec::parse_config_log(""), ConfigLog::kOff);
  EXPECT_EQ(warpspec::parse_config_log("0"), ConfigLog::kOff);
  EXPECT_EQ(warpspec::parse_config_log("1"), ConfigLog::kEveryCall);
  EXPECT_EQ(warpspec::parse_config_log("yes"), ConfigLog::kEveryCall);
  EXPECT_EQ(warpspec::parse_config_log("once"), ConfigLog::kOnce);
}

// describe() validates as check() does: the same code and message for bad input, and
// the device refusal where there is no Hopper GPU; the output is untouched when refused.
TEST(Describe, RefusesExactlyWhatCheckRefuses) {
  warpspec::GemmArgs bad_gemm[4] = {gemm_args(256, 256, 128), gemm_args(256, 256, 128), gemm_args(256, 256, 128),
                                    gemm_args(256, 256, 128)};
  bad_gemm[0].a.data = nullptr;
  bad_gemm[1].b.dtype = DType::kFP16;
  bad_gemm[2].tile_n = 96;
  // bad_gemm[3] is valid: refused only without a Hopper GPU.
  for (const auto& g : bad_gemm) {
    std::string line = "untouched";
    const warpspec::Status s = warpspec::describe(g, &line), c = warpspec::check(g);
    EXPECT_EQ(s.code(), c.code()) << s.to_string();
    EXPECT_EQ(s.message(), c.message());
    if (!s.ok()) EXPECT_EQ(line, "untouched");
  }
  warpspec::AttentionArgs a;
  a.q = a.o = warpspec::testbed::bshd_contiguous(warpspec::test::test_pointer(0), DType::kBF16, 1, 128, 2, 100);
  a.k = a.v = warpspec::testbed::bshd_contiguous(warpspec::test::test_pointer(uintptr_t(1) << 20), DType::kBF16, 1, 128, 2, 100);
  std::string line = "untouched";
  const warpspec::Status s = warpspec::describe(a, &line), c = warpspec::check(a);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported) << s.to_string();  // head_dim 100 is not a multiple of 8
  EXPECT_EQ(s.message(), c.message());
  EXPECT_EQ(line, "untouched");
}

TEST(Describe, CAbiGuardsItsBuffer) {
  warpspec_gemm_args g = warpspec_gemm_args_default();
  char buf[WARPSPEC_DESCRIPTION_SIZE];
  EXPECT_EQ(warpspec_gemm_describe(&g, nullptr, sizeof buf), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_STREQ(warpspec_last_error(), "invalid argument: out: must not be null");
  EXPECT_EQ(warpspec_gemm_describe(&g, buf, 0), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(warpspec_last_error()).find("out_size"), std::string::npos) << warpspec_last_error();
  EXPECT_EQ(warpspec_gemm_describe(nullptr, buf, sizeof buf), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_STREQ(warpspec_last_error(), "invalid argument: warpspec_gemm_args: must not be null");
  warpspec_attention_args a = warpspec_attention_args_default();
  EXPECT_EQ(warpspec_attention_describe(&a, buf, sizeof buf), WARPSPEC_INVALID_ARGUMENT);  // q missing
  EXPECT_NE(std::string(warpspec_last_error()).find("q.data"), std::string::npos) << warpspec_last_error();
}

// FP8 -> bf16 with promotion: the 128 x 256 tile where its tiles fill a wave of 132 SMs and
// K <= 1024; past that the 128 x 128 tile's undrained promotion wins (bench/NOTES.md v40).
TEST(Describe, Fp8PicksTheWideTileForShortKWhenItFillsAWave) {
  EXPECT_TRUE(warpspec::fp8_wide_tile(8192, 8192, 1024, 1, 132));    // 2048 tiles
  EXPECT_TRUE(warpspec::fp8_wide_tile(4096, 14336, 512, 1, 132));    // 1792
  EXPECT_FALSE(warpspec::fp8_wide_tile(8192, 8192, 2048, 1, 132));   // K past 1024
  EXPECT_FALSE(warpspec::fp8_wide_tile(4096, 4096, 4096, 1, 132));
  EXPECT_FALSE(warpspec::fp8_wide_tile(4096, 4096, 1152, 1, 132));   // one k-block past
  EXPECT_TRUE(warpspec::fp8_wide_tile(1024, 4096, 1024, 3, 132));    // 8 x 16 x 3 = 384
  EXPECT_FALSE(warpspec::fp8_wide_tile(1024, 2048, 1024, 1, 132));   // 64: half a wave
  EXPECT_TRUE(warpspec::fp8_wide_tile(1408, 3072, 512, 1, 132));     // 11 x 12 = 132: exactly a wave
  EXPECT_FALSE(warpspec::fp8_wide_tile(1408, 2816, 512, 1, 132));    // 11 x 11 = 121
}

// M <= 32: the widest tile that still covers a fifth of the SMs (132 on the H200), as
// measured there (bench/NOTES.md v9); larger M keeps the wave model (4096^3: 128x256),
// without the 256-wide tile for one or two row tiles (v19).
TEST(Describe, SmallMPicksTheWidestTileThatStillSpreads) {
  namespace gi = warpspec::gemm_impl;
  const auto width = [](int64_t m, int64_t n, int64_t l, int64_t k = 8192) {
    return gi::kTileConfigs[warpspec::pick_tile(m, n, (k + 63) / 64, l, 132)].block_n;
  };
  EXPECT_EQ(width(1, 8192, 1), 256);    // 32 tiles
  EXPECT_EQ(width(16, 8192, 1), 256);
  EXPECT_EQ(width(16, 4096, 1), 128);   // 256 wide would leave 16 tiles
  EXPECT_EQ(width(16, 512, 1), 64);     // too few at any width: the narrowest
  EXPECT_EQ(width(16, 1024, 4), 128);   // the batch counts: 32 tiles
  EXPECT_EQ(width(64, 2048, 1), 64);    // M > 32: the wave model
  EXPECT_EQ(width(64, 8192, 1), 64);    // one wave of 128 tiles
  EXPECT_EQ(width(128, 8192, 1), 64);
  EXPECT_EQ(width(256, 28672, 1), 128); // two row tiles: not 256 wide
  EXPECT_EQ(width(4096, 4096, 1), 256);
  EXPECT_EQ(width(1024, 8192, 1), 256); // eight row tiles: the whole table
}

// The tile and the K decomposition chosen together (bench/NOTES.md v47, the H200): where
// the wide tile's ragged waves are streamed, it beats the 64-wide tile's whole waves, which
// re-read A four times as often.
TEST(Describe, TileCostCountsTheDecompositionItWouldRun) {
  namespace gi = warpspec::gemm_impl;
  const auto width = [](int64_t m, int64_t n, int64_t k) {
    return gi::kTileConfigs[warpspec::pick_tile(m, n, (k + 63) / 64, 1, 132)].block_n;
  };
  EXPECT_EQ(width(384, 8192, 8192), 256);    // 96 tiles, streamed (was 64 wide: 365 -> 536 TFLOP/s)
  EXPECT_EQ(width(640, 8192, 8192), 256);    // 160 tiles, streamed
  EXPECT_EQ(width(512, 14336, 4096), 256);   // 224 tiles, data-parallel (streaming them lost 8%)
  EXPECT_EQ(width(256, 28672, 8192), 128);   // two row tiles: 448 tiles, data-parallel
  EXPECT_EQ(width(256, 14336, 4096), 128);
  EXPECT_EQ(width(768, 8192, 8192), 128);    // 384 tiles in 2.9 waves
  EXPECT_EQ(width(128, 8192, 8192), 64);     // one row tile: the 64-wide tile's whole wave
  EXPECT_EQ(width(64, 2048, 4096), 64);
  // K = 0 (beta * C alone): waves of tiles, as without the decomposition.
  EXPECT_EQ(width(4096, 4096, 0), 256);
  // What each runs, as the host plans it.
  const auto choice = [](int64_t tiles, int64_t k) {
    return gi::choose_decomposition(warpspec::GemmDecomposition::kHeuristic, 0, tiles, (k + 63) / 64, 132, true);
  };
  EXPECT_EQ(choice(96, 8192).decomposition, warpspec::schedule::KDecomposition::kStreamK);
  EXPECT_EQ(choice(160, 8192).decomposition, warpspec::schedule::KDecomposition::kStreamK);
  EXPECT_EQ(choice(224, 4096).decomposition, warpspec::schedule::KDecomposition::kDataParallel);
  EXPECT_EQ(choice(448, 8192).decomposition, warpspec::schedule::KDecomposition::kDataParallel);
}

// One row tile of 65-128 rows over one wave of 64-wide tiles, on a device whose DRAM gives
// at least 4 TB/s (the H200's 4.8): the 128-wide tile, which the decomposition splits in two
// (half the A rows through L2, the same CTA count; bench/NOTES.md stop 75). Elsewhere, and
// on the H100's 3.35 TB/s or a device that does not report its bandwidth, pick_tile's choice
// is unchanged.
TEST(Describe, SmallMOnFastDramTakesTheWideTileSplitInTwo) {
  namespace gi = warpspec::gemm_impl;
  constexpr double kH200 = 4.8e12, kH100 = 3.35e12;
  const auto width = [](int64_t m, int64_t n, int64_t k, double dram, int64_t l = 1, int sms = 132) {
    return gi::kTileConfigs[warpspec::pick_tile(m, n, (k + 63) / 64, l, sms, dram)].block_n;
  };
  EXPECT_EQ(width(128, 8192, 8192, kH200), 128);
  EXPECT_EQ(width(96, 8192, 8192, kH200), 128);
  EXPECT_EQ(width(65, 8192, 16384, kH200), 128);
  EXPECT_EQ(width(128, 8192, 8192, kH100), 64);   // DRAM bounds both: the 64-wide tile's wave
  EXPECT_EQ(width(128, 8192, 8192, 0), 64);       // bandwidth unknown
  EXPECT_EQ(width(64, 8192, 8192, kH200), 64);    // A is half as large: not L2-bound
  EXPECT_EQ(width(129, 8192, 8192, kH200), width(129, 8192, 8192, 0));  // two row tiles: the model's own
  EXPECT_EQ(width(128, 8192, 4096, kH200), width(128, 8192, 4096, 0));  // K below the measured 8192
  EXPECT_EQ(width(128, 8192, 8192, kH200, 2), width(128, 8192, 8192, 0, 2));  // batched: the model's own choice
  EXPECT_EQ(width(128, 28672, 8192, kH200), 128);   // several waves: pick_tile's own 128-wide choice
  EXPECT_EQ(width(128, 28672, 8192, kH200), width(128, 28672, 8192, 0));
  EXPECT_EQ(width(128, 4096, 8192, kH200), width(128, 4096, 8192, 0));   // half a wave of 64-wide tiles
  EXPECT_EQ(width(128, 8512, 8192, kH200), width(128, 8512, 8192, 0));   // 133 tiles: past one wave
  EXPECT_EQ(width(128, 8192, 8192, kH200, 1, 114), width(128, 8192, 8192, 0, 1, 114));  // 128 tiles > 114 SMs
  // The rule itself at its edges: 99 of 132 SMs is not enough, 100 is (more than three quarters).
  EXPECT_FALSE(warpspec::wide_split_pays(128, 99 * 64, 128, 1, 132, kH200));
  EXPECT_TRUE(warpspec::wide_split_pays(128, 100 * 64, 128, 1, 132, kH200));
  EXPECT_TRUE(warpspec::wide_split_pays(128, 132 * 64, 128, 1, 132, kH200));
  EXPECT_FALSE(warpspec::wide_split_pays(128, 132 * 64 + 1, 128, 1, 132, kH200));
  EXPECT_FALSE(warpspec::wide_split_pays(128, 8192, 127, 1, 132, kH200));
  EXPECT_FALSE(warpspec::wide_split_pays(128, 8192, 128, 1, 132, 3.99e12));
  // What the 128-wide tile then runs: its 64 tiles of 128 k-iterations in two splits.
  const gi::KChoice c =
      gi::choose_decomposition(warpspec::GemmDecomposition::kHeuristic, 0, 64, 8192 / 64, 132, true);
  EXPECT_EQ(c.decomposition, warpspec::schedule::KDecomposition::kSplitK);
  EXPECT_EQ(c.splits, 2);
}

// The wording of a GEMM choice as gemm.cpp builds it for 4096 x 4096 x 4096 on 132 SMs:
// the tile is the heuristic's, the tile count and the schedule follow from it.
TEST(Describe, GemmLineReportsTheHeuristicsChoice) {
  namespace gi = warpspec::gemm_impl;
  namespace sch = warpspec::schedule;
  const int64_t m = 4096, n = 4096, k = 4096;
  const int sms = 132;
  const gi::TileConfig tile = gi::kTileConfigs[warpspec::pick_tile(m, n, k / 64, 1, sms)];
  gi::GemmChoice c;
  c.config.tile = tile;
  c.m = m, c.n = n, c.k = k;
  sch::PersistentArguments sa;
  sa.tiles_m = int((m + tile.block_m - 1) / tile.block_m);
  sa.tiles_n = int((n + tile.block_n - 1) / tile.block_n);
  sa.swizzle = 8;
  sa.grid_size = sch::persistent_grid_size(sa.tiles_m, sa.tiles_n, 1, sms);
  const sch::PersistentScheduler sched(sa);
  c.raster = sched.raster(), c.swizzle = sched.swizzle(), c.tiles = sched.total_tiles();
  c.shape.grid = sa.grid_size;
  const std::string line = gi::describe(c);
  auto w = words(line);
  EXPECT_EQ(line.rfind("gemm ", 0), 0u) << line;
  EXPECT_EQ(w["tile"], std::to_string(tile.block_m) + "x" + std::to_string(tile.block_n) + "x" +
                           std::to_string(tile.block_k)) << line;
  EXPECT_EQ(w["stages"], std::to_string(tile.stages)) << line;
  EXPECT_EQ(w["tiles"], std::to_string(sa.tiles_m * sa.tiles_n)) << line;
  EXPECT_EQ(w["grid"], std::to_string(sms)) << line;  // more tiles than SMs: one CTA per SM
  EXPECT_EQ(w["k_tiles"], std::to_string(k / tile.block_k)) << line;
  // Square problem, square tile counts? The resolved raster is the scheduler's.
  EXPECT_EQ(w["raster"], "along_n") << line;  // 32 x 16 tiles: no more N tiles than M tiles (CUTLASS's rule)
  EXPECT_EQ(w["decomposition"], "data_parallel") << line;
  EXPECT_EQ(w["splits"], "1") << line;
  EXPECT_EQ(w.count("workspace"), 0u) << line;
  EXPECT_EQ(w["swizzle"], "8") << line;
  EXPECT_EQ(w["cluster"], "1x1") << line;
  EXPECT_EQ(line.find('\n'), std::string::npos) << "one line";
  c.decomposition = "split_k", c.splits = 4, c.workspace_bytes = 65536;
  w = words(gi::describe(c));
  EXPECT_EQ(w["decomposition"], "split_k");
  EXPECT_EQ(w["splits"], "4");
  EXPECT_EQ(w["workspace"], "65536");
  EXPECT_EQ(w.count("scaling"), 0u) << "16-bit inputs have no FP8 scaling";
  c.scaling = "block";  // FP8: how the scales are read and how often the accumulator is promoted
  w = words(gi::describe(c));
  EXPECT_EQ(w["scaling"], "block");
  EXPECT_EQ(w["promote"], "per_k_block");
  c.scaling = "tensor_or_row", c.fast_accum = true;
  w = words(gi::describe(c));
  EXPECT_EQ(w["scaling"], "tensor_or_row");
  EXPECT_EQ(w["promote"], "per_unit");
  // An empty output says that nothing launches.
  c.shape.grid = 0;
  EXPECT_NE(gi::describe(c).find("launch=none"), std::string::npos);
}

TEST(Describe, AttentionLineNamesTheHeadDimKernel) {
  namespace ai = warpspec::attention_impl;
  namespace sch = warpspec::schedule;
  ai::AttentionChoice c;
  c.batch = 2, c.seqlen_q = 1000, c.seqlen_k = 3000, c.heads_q = 16, c.heads_kv = 4, c.head_dim = 96;
  c.window_right = 0;  // causal
  c.kernel = ai::config_for(ai::kernel_head_dim(c.head_dim));
  sch::AttentionSchedulerArguments sa;
  const int bm = c.kernel.block_m();
  sa.tiles_m = int((c.seqlen_q + bm - 1) / bm);
  sa.heads = 16, sa.batch = 2;
  sa.order = sch::AttentionOrder::kLongestFirst;
  sa.grid_size = sch::attention_grid_size(sa.tiles_m, sa.heads, sa.batch, 132);
  c.sched = sch::AttentionScheduler(sa);
  c.shape.grid = sa.grid_size;
  auto w = words(ai::describe(c));
  EXPECT_EQ(w["head_dim"], "96");
  EXPECT_EQ(w["kernel_head_dim"], "128");  // 96 rides on the 128 kernel, padded
  EXPECT_EQ(w["block_n"], std::to_string(ai::config_for(128).block_n));
  EXPECT_EQ(w["mask"], "causal");
  EXPECT_EQ(w["order"], "longest_first");
  EXPECT_EQ(w["tiles"], std::to_string(8 * 16 * 2));
  EXPECT_EQ(w["heads_kv"], "4");
  EXPECT_EQ(w["schedule"], "static");
  EXPECT_EQ(w.count("v_stages"), 0u);  // V's ring is K's
  EXPECT_EQ(w.count("turns"), 0u);     // hd128's consumers take turns (ping-pong)
  c.kernel = ai::config_for(64);
  w = words(ai::describe(c));
  EXPECT_EQ(w["block_m"], "192");  // hd64's three consumer warpgroups, taking turns
  EXPECT_EQ(w.count("turns"), 0u);
  c.kernel = ai::config_for(64, warpspec::DType::kE4M3);
  EXPECT_EQ(words(ai::describe(c))["turns"], "free");  // FP8 hd64's issue without turns
  c.dtype = warpspec::DType::kE4M3, c.head_dim = 256;
  c.kernel = ai::config_for(256, warpspec::DType::kE4M3);
  w = words(ai::describe(c));
  EXPECT_EQ(w["stages"], std::to_string(c.kernel.stages));
  EXPECT_EQ(w["block_n"], "128");        // FP8 hd256 on FlashAttention-3's FP8 tile (v72)
  EXPECT_EQ(w.count("v_stages"), 0u);    // and V's ring is K's
  {
    ai::AttentionChoice deeper = c;      // a V ring deeper than K's is named (config.hpp: v_stages)
    deeper.kernel.v_stages = c.kernel.stages + 1;
    EXPECT_EQ(words(ai::describe(deeper))["v_stages"], std::to_string(c.kernel.stages + 1));
  }
  EXPECT_EQ(w.count("window_left"), 0u) << "causal is not a window";
  EXPECT_EQ(w.count("softcap"), 0u);
  c.window_right = -1;
  EXPECT_EQ(words(ai::describe(c))["mask"], "none");
  c.window_left = 1024, c.window_right = 0, c.softcap = 30, c.varlen = true, c.dynamic = true;  // a causal sliding window
  w = words(ai::describe(c));
  EXPECT_EQ(w["mask"], "window");
  EXPECT_EQ(w["window_left"], "1024");
  EXPECT_EQ(w["window_right"], "0");
  EXPECT_EQ(w["softcap"], "30");
  EXPECT_EQ(w["varlen"], "1");
  EXPECT_EQ(w["schedule"], "dynamic");
  c.shape.grid = 0;  // an empty output: nothing launches, and no kernel is named
  const std::string empty = ai::describe(c);
  EXPECT_NE(empty.find("launch=none"), std::string::npos) << empty;
  EXPECT_EQ(empty.find("kernel_head_dim="), std::string::npos) << empty;
}

// On a Hopper machine, through the public API: describe() of real arguments reports the
// heuristic's tile for this device's SM count, a forced tile width, and the operand swap
// for a column-major D; the C ABI returns the same line.
// The wave-filling widths as describe() plans them on this device: the tile and schedule
// wave_tile_width picks (224 cooperative, 160 ping-pong), and neither where the call asks
// for a tile, a schedule the width is not built with, a cluster, or a kernel not built
// (fp16, B N-major). On 132 SMs (H100 SXM, H200) the two rows take their widths.
TEST(Describe, PublicDescribeTakesTheWaveTileWhereTheModelDoes) {
  if (!warpspec::check_device().ok()) GTEST_SKIP() << "needs a Hopper GPU (describe() plans for the device)";
  const int sms = device_sms();
  ASSERT_GT(sms, 0);
  // K = 64 keeps the views inside test_pointer's 96 MB (ping-pong pays at K <= 1024).
  const std::tuple<int64_t, int64_t, int64_t, int> rows[] = {{256, 28672, 64, 224}, {2048, 2560, 4096, 160},
                                                             {3072, 3072, 64, 0}};
  for (const auto& [m, n, k, on_132] : rows) {
    const int width = warpspec::wave_tile_width(m, n, k, 1, sms);
    if (sms == 132) EXPECT_EQ(width, on_132) << m << "x" << n << "x" << k;
    std::string line;
    ASSERT_TRUE(warpspec::describe(gemm_args(m, n, k), &line).ok());
    auto w = words(line);
    if (width == 224) {
      EXPECT_EQ(w["tile"], "128x224x64") << line;
      EXPECT_EQ(w.count("schedule"), 0u) << line;
    } else if (width == 160) {
      EXPECT_EQ(w["tile"], "128x160x64") << line;
      EXPECT_EQ(w["schedule"], "pingpong") << line;
      EXPECT_EQ(w["decomposition"], "data_parallel") << line;
    } else {
      EXPECT_NE(w["tile"], "128x224x64") << line;
      EXPECT_NE(w["tile"], "128x160x64") << line;
    }
    if (width == 0) continue;
    // What keeps the library's other rules: a tile or a cluster asked for, fp16 (not
    // built), B N-major (not built), the other schedule by name (160: any named schedule).
    warpspec::GemmArgs g = gemm_args(m, n, k);
    g.tile_n = 128;
    ASSERT_TRUE(warpspec::describe(g, &line).ok());
    EXPECT_EQ(words(line)["tile"].rfind("128x128", 0), 0u) << line;
    g = gemm_args(m, n, k);
    g.cluster_m = 2, g.cluster_n = 1;
    ASSERT_TRUE(warpspec::describe(g, &line).ok());
    EXPECT_EQ(words(line)["tile"], "128x256x64") << line;
    g = gemm_args(m, n, k);
    g.a.dtype = g.b.dtype = g.d.dtype = DType::kFP16;
    ASSERT_TRUE(warpspec::describe(g, &line).ok());
    EXPECT_NE(words(line)["tile"], width == 224 ? "128x224x64" : "128x160x64") << line;
    g = gemm_args(m, n, k);
    g.b = TensorView::matrix(g.b.data, DType::kBF16, k, n, n);
    ASSERT_TRUE(warpspec::describe(g, &line).ok());
    EXPECT_NE(words(line)["tile"], width == 224 ? "128x224x64" : "128x160x64") << line;
    g = gemm_args(m, n, k);
    g.schedule = width == 224 ? warpspec::GemmSchedule::kPingPong : warpspec::GemmSchedule::kCooperative;
    ASSERT_TRUE(warpspec::describe(g, &line).ok());
    EXPECT_NE(words(line)["tile"], width == 224 ? "128x224x64" : "128x160x64") << line;
  }
}

TEST(Describe, PublicDescribeMatchesTheHeuristicOnHopper) {
  if (!warpspec::check_device().ok()) GTEST_SKIP() << "needs a Hopper GPU (describe() plans for the device)";
  const int sms = device_sms();
  ASSERT_GT(sms, 0);
  for (const auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{2048, 2048, 2048}, {16, 2048, 2048},
                               {2048, 64, 512}, {1000, 1000, 520}}) {
    std::string line;
    ASSERT_TRUE(warpspec::describe(gemm_args(m, n, k), &line).ok());
    auto w = words(line);
    if (m <= 32) {  // a skinny linear layer: the narrow tile, D computed as D^T
      EXPECT_EQ(w["tile"], "64x16x64") << line;
      EXPECT_EQ(w["swapped"], "1") << line;
      EXPECT_EQ(w["m"], std::to_string(n)) << line;
      continue;
    }
    const auto& tile = warpspec::gemm_impl::kTileConfigs[warpspec::pick_tile(m, n, (k + 63) / 64, 1, sms)];
    EXPECT_EQ(w["tile"], std::to_string(tile.block_m) + "x" + std::to_string(tile.block_n) + "x64") << line;
    EXPECT_EQ(w["m"], std::to_string(m)) << line;
    EXPECT_EQ(w["swapped"], "0") << line;
    const int64_t tiles = (m + tile.block_m - 1) / tile.block_m * ((n + tile.block_n - 1) / tile.block_n);
    EXPECT_EQ(w["tiles"], std::to_string(tiles)) << line;
    // Data-parallel: a CTA per tile up to the SMs. Split-K (the heuristic's choice for
    // the small-M shapes): a CTA per (tile, split) up to the SMs. Stream-K: the SMs.
    const int64_t splits = w["decomposition"] == "split_k" ? std::stoll(w["splits"]) : 1;
    if (w["decomposition"] == "stream_k")
      EXPECT_TRUE(std::stoll(w["grid"]) >= 1 && std::stoll(w["grid"]) <= sms) << line;
    else
      EXPECT_EQ(w["grid"], std::to_string(std::min<int64_t>(tiles * splits, sms))) << line;
  }
  warpspec::GemmArgs forced = gemm_args(2048, 2048, 2048);
  forced.tile_n = 64;
  std::string line;
  ASSERT_TRUE(warpspec::describe(forced, &line).ok());
  EXPECT_EQ(words(line)["tile"], "128x64x64") << line;
  warpspec::GemmArgs col = gemm_args(512, 256, 128);
  col.d = TensorView::matrix(warpspec::test::test_pointer(uintptr_t(64) << 20), DType::kBF16, 512, 256, 512, false);
  ASSERT_TRUE(warpspec::describe(col, &line).ok());
  EXPECT_EQ(words(line)["swapped"], "1") << line;
  EXPECT_EQ(words(line)["m"], "256") << "the kernel's M is the caller's N after the swap: " << line;
  // The library runs without clusters (2 x 1 measured level with 1 x 1); a cluster the
  // caller asks for runs the 128 x 256 TN kernel on a grid of whole pairs.
  ASSERT_TRUE(warpspec::describe(gemm_args(4096, 4096, 64), &line).ok());
  EXPECT_EQ(words(line)["cluster"], "1x1") << line;
  for (const auto& [cm, cn] : std::vector<std::pair<int, int>>{{1, 1}, {1, 2}, {2, 1}}) {
    warpspec::GemmArgs given = gemm_args(4096, 4096, 64);
    given.cluster_m = cm, given.cluster_n = cn;
    ASSERT_TRUE(warpspec::describe(given, &line).ok());
    EXPECT_EQ(words(line)["cluster"], std::to_string(cm) + "x" + std::to_string(cn)) << line;
    if (cm * cn > 1) {
      EXPECT_EQ(words(line)["tile"], "128x256x64") << line;
      EXPECT_EQ(std::stoll(words(line)["grid"]) % 2, 0) << line;
      EXPECT_LE(std::stoll(words(line)["grid"]), sms) << line;
    }
  }
}

}  // namespace describe_test
