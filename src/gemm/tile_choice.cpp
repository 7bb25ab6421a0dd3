// The GEMM host's tile and schedule heuristics (tile_choice.hpp). Each rule carries the
// measurements it was fitted to (bench/NOTES.md names the versions).
#include "tile_choice.hpp"

#include <algorithm>

#include "decomposition.hpp"
#include "warpspec/gemm/config.hpp"

namespace warpspec {

namespace {

// The tile model's cost of plain tile `c` (pick_tile's comment), in k-iterations of a
// 256-wide tile's width; < 0 where the model leaves the tile out (256 wide over one or two
// row tiles).
double plain_tile_cost(const gemm_impl::TileConfig& c, int64_t m, int64_t n, int64_t k_iters, int64_t l, int sms) {
  const int64_t k = k_iters > 0 ? k_iters : 1;  // K = 0: the epilogue alone, in waves
  const int64_t tiles_m = (m + c.block_m - 1) / c.block_m;
  if (c.block_n >= 256 && tiles_m <= 2) return -1;
  const int64_t tiles = tiles_m * ((n + c.block_n - 1) / c.block_n) * l;
  const double efficiency = c.block_n >= 256 ? 1.0 : c.block_n >= 128 ? 0.92 : tiles_m == 1 ? 0.8 : 0.6;
  return gemm_impl::heuristic_cost(tiles, k, sms) * c.block_n / efficiency;
}

int64_t tile_count(const gemm_impl::TileConfig& c, int64_t m, int64_t n, int64_t l) {
  return (m + c.block_m - 1) / c.block_m * ((n + c.block_n - 1) / c.block_n) * l;
}

}  // namespace

// The widest tile that keeps the SMs busy. Cost model: a tile's k-iterations as the K
// decomposition the heuristic would pick for it counts them (choose_decomposition: waves of
// `sms` tiles, or every tile streamed, or split), times the tile's width over its speed per
// FLOP (measured: 128x256 is the fastest per FLOP). The 64-wide tile re-reads A four
// times as often as the 256-wide one: 0.8 of its speed with one row tile (M <= 128: the
// problem streams B, measured v19), 0.6 with more (384x8192x8192: 365 TFLOP/s on 64-wide
// tiles, 536 on 256-wide ones streamed; 256x28672x8192: 420 against 545 on 128-wide,
// bench/NOTES.md v47).
// M <= 32 (what the narrow tiles do not take: other layouts, fp32 out): the kernel loads
// 64 rows of A, the problem is bound by streaming B, and a narrow tile spends as much of
// each stage on A as on B. There the widest tile that still gives a tile to at least a
// fifth of the SMs wins, and K splitting (choose_decomposition) fills the rest. Measured
// on the H200 (bench/NOTES.md v9), each against the 64-wide tile the wave model picked:
// 16x4096x4096 21.0 -> 18.0 us, 16x8192x28672 163 -> 122 us, 1x8192x8192 65 -> 44 us.
// At M = 64 that rule lost to the wave model's 64-wide tile (64x8192x8192: 0.887 of
// cuBLAS with 256 wide and 4 splits, 0.986 with 64 wide, bench/NOTES.md v19).
// One or two row tiles (M <= 256): the problem streams B past few rows of A, and the
// 128-wide tile's six stages beat the 256-wide tile's three (256x28672x8192: 0.924
// against 0.853 of cuBLAS, v19), so the model chooses among the narrower two.
// `k_iters`: k-iterations of a tile (K / 64, rounded up: every 16-bit tile's block_k).
int pick_tile(int64_t m, int64_t n, int64_t k_iters, int64_t l, int sms, double dram_bytes_per_s) {
  if (wide_split_pays(m, n, k_iters, l, sms, dram_bytes_per_s)) {
    for (int t = 0; t < gemm_impl::kNumTileConfigs; ++t)
      if (gemm_impl::kTileConfigs[t].block_n == 128) return t;
  }
  if (m <= 32) {
    for (int t = 0; t < gemm_impl::kNumTileConfigs; ++t) {  // the table is widest first
      const auto& c = gemm_impl::kTileConfigs[t];
      if ((n + c.block_n - 1) / c.block_n * l >= sms / 5 || t == gemm_impl::kNumTileConfigs - 1) return t;
    }
  }
  int best = -1;
  double best_cost = 0;
  for (int t = 0; t < gemm_impl::kNumTileConfigs; ++t) {
    const double cost = plain_tile_cost(gemm_impl::kTileConfigs[t], m, n, k_iters, l, sms);
    if (cost >= 0 && (best < 0 || cost < best_cost)) best = t, best_cost = cost;
  }
  return best;
}

// One row tile of 65-128 rows (e.g. x @ w.t() at a batch of 65-128 tokens against a weight of
// N <= SMs x 64 rows, K >= 8192) on a device whose DRAM gives at least 4 TB/s: the 128-wide
// tile, split in two along K by choose_decomposition, over the 64-wide tile the model picks.
// Each CTA of either reads all of the A rows its k range covers, so the 64-wide grid asks L2
// for A once per 64 columns of D: at 128 x 8192 x 8192 it moves 1.5x the bytes of B through
// L2 (ncu on an H200: 9.29 TB/s, 78% of L2's peak, with DRAM at 69%; cuBLAS's pair, which
// multicasts A, 7.47 TB/s with DRAM at 76%). Two splits of 128-wide tiles keep the CTA count
// and halve A's share. Where DRAM is slower, B's stream bounds both and the split's fixup
// loses. Measured (ours / cuBLAS, ABBA, 3 rounds, the library's 64-wide choice against the
// 128-wide tile split in two): H200 (4.8 TB/s, bench/NOTES.md stop 75) 128 x 8192 x 8192
// 0.769 -> 0.846, 96 x 8192 x 8192 0.834 -> 0.891, 128 x 28672 x 8192 (three and a half waves
// of 64-wide tiles: outside the rule) 1.020 -> 0.853; H100 (3.35 TB/s, stop 73) 128 x 8192^2
// 0.954 -> 0.939, 96 x 8192^2 0.970 -> 0.937, 64 x 8192^2 0.970 -> 0.959.
inline constexpr double kWideSplitMinDramBytesPerS = 4.0e12;

bool wide_split_pays(int64_t m, int64_t n, int64_t k_iters, int64_t l, int sms, double dram_bytes_per_s) {
  if (dram_bytes_per_s < kWideSplitMinDramBytesPerS || sms <= 0 || l != 1) return false;
  if (m <= 64 || m > 128 || k_iters < 128) return false;
  const int64_t tiles64 = (n + 63) / 64;  // one row tile: the 64-wide grid's CTAs
  return tiles64 * 4 > int64_t(sms) * 3 && tiles64 <= sms;
}

// FP8 with D bf16, tensor- or row-wise scales and promotion: the 128 x 256 tile where its
// tiles fill a wave and K <= 1024, else 128 x 128. The narrow tile keeps the tensor pipe fed
// across promotions with two temporary fragments (gemm/mma_fp8.cuh) where the wide one
// drains at each, but it has twice the tiles, each with its own prologue and epilogue;
// over a short K that fixed cost catches up. Measured on the H200 against cuBLASLt in one
// process (bench/NOTES.md v40), ours TFLOP/s 128 / 256: 8192^3 1143 / 1056, 4096x14336x4096
// 1071 / 987, 4096^3 1040 / 980, 8192x8192x2048 925 / 883, 8192x8192x1024 743 / 743 (v39's
// library compare there: 256 faster by 3-5%). Block scales: the narrow tile everywhere
// (8192^3 948 / 913, v39); fast accumulation: the narrow tile (0.933x against 0.828x, v11).
bool fp8_wide_tile(int64_t m, int64_t n, int64_t k, int64_t l, int sms) {
  const auto& c = gemm_impl::kFp8WideTileConfig;
  return k <= 1024 && (m + c.block_m - 1) / c.block_m * ((n + c.block_n - 1) / c.block_n) * l >= sms;
}

// The ping-pong schedule (GemmSchedule) where the heuristic picks it: at least two 128 x 128
// tiles per SM, so both warpgroups of a CTA have tiles to take turns with. Its epilogue
// runs beside the other warpgroup's mainloop, where the cooperative kernel leaves the
// tensor pipe idle. Measured on the H200 against the cooperative kernel (the library's
// tile and decomposition) in one interleaving (bench/NOTES.md v53, `bench gemm
// --versus-schedule cooperative`), ping-pong's speed over it: bias + GELU(tanh) 8192^3
// 1.041, 4096 x 14336 x 4096 1.106, 4096^3 1.129, 4096 x 28672 x 8192 1.058; plain 8192^3
// 0.990 (the cooperative run streams its ragged last wave), 4096^3 1.029, 4096 x 14336 x
// 4096 1.011, 8192 x 8192 x 1024 1.108, 4096 x 28672 x 8192 1.004, 4096 x 8192 x 28672 1.007.
// Below two tiles per SM 16-bit ping-pong loses (2048^3, 256 tiles: 0.987; 240 tiles 0.995).
// FP8 with fast accumulation (`fp8`) gains more from the hidden epilogue (its mainloop is
// half as long) and pays from 1.8 tiles per SM: 288 tiles 1.065, 256 1.079, 240 1.064,
// 192 0.973, 144 0.814 (bench/NOTES.md v64).
// The plain epilogue (`fused` false) with K > 1024 between two and three tiles per SM pays
// only where the busiest CTA's tiles are near the average (tiles / (SMs x busiest) >= 0.9):
// ping-pong runs whole tiles, the cooperative kernel streams a launch of fewer than two
// waves of its 128 x 256 tiles. Measured on an H100 (bench/NOTES.md v81), K = 4096, tiles:
// 272 0.878, 320 0.978 (0.977 with B N-major), 384 1.024, 416 1.009, 480 1.016, 544 1.031,
// 640 1.035, 704 1.010, 832 1.034; K = 1024: 320 1.072, 416 1.055, 704 1.072; bias +
// GELU(tanh) at K = 4096: 272 1.020, 320 1.087, 416 1.108, 704 1.097.
// 16-bit calls with K > kPingPongMaxK run cooperative: there the hidden epilogue is worth
// little (1.008 at K = 16384 plain) and ping-pong's 128-wide tiles, with half the operand
// reuse of the cooperative 128 x 256 and 1.6x its DRAM reads (ncu, 4096 x 8192 x 28672:
// 4.21 GB against 2.62), fell off a cliff on an H100 under sustained load, its time varying
// by 30% from run to run (bench/NOTES.md v85), ping-pong over cooperative in one
// interleaving: K = 16384: 4096 x 4096 1.008, 4096 x 8192 1.008 (bias + GELU(tanh) 1.037),
// 8192 x 8192 0.995 (1.029), 4096 x 14336 0.787, 16384^2 0.734; K = 28672: 4096 x 4096
// 0.816, 4096 x 8192 0.608 (0.663), 8192 x 8192 0.990, 4096 x 14336 0.564. FP8 with fast
// accumulation (128-deep k-blocks, half the k-iterations) held: 1.043-1.062 at K = 16384
// and 28672.
constexpr int64_t kPingPongMaxK = 8192;

bool pingpong_pays(int64_t m, int64_t n, int64_t k, int64_t l, int sms, bool fp8, bool fused) {
  const auto& c = gemm_impl::kPingPongTileConfig;  // FP8's ping-pong tile is 128 x 128 too
  const int64_t tiles = tile_count(c, m, n, l);
  if (fp8) return tiles * 5 >= int64_t(sms) * 9;
  if (k > kPingPongMaxK) return false;
  if (tiles < 2 * int64_t(sms)) return false;
  if (fused || k <= 1024 || tiles >= 3 * int64_t(sms)) return true;
  const int64_t busiest = (tiles + sms - 1) / sms;  // tiles of the CTAs with the most
  return tiles * 10 >= int64_t(sms) * busiest * 9;
}

// The wave-filling widths (docs/design/gemm-wave-widths.md). Between one and four tiles per
// SM a launch's time is its busiest SM's: the model prices each candidate as pick_tile does
// (its K decomposition's k-iterations times its width over its speed per FLOP) and the
// ping-pong schedule as the busiest CTA's whole tiles, and takes a wave width only where it
// beats the library's other choice by kWaveMargin. Speed per FLOP against the 128 x 256
// tile, fitted on an H100 (bench/NOTES.md stop 63), ours / cuBLAS with the choice the library
// made before and with the width forced, in one interleaving each:
//   128 x 224, cooperative (1.0): 256 x 28672 x 8192 0.887 -> 1.076 (model 1.14),
//     2048 x 3328 x 4096 0.843 -> 0.891 (1.14); left out: 3072 x 3072 x 4096 0.907 -> 0.808
//     (0.95), 2048 x 2560 x 4096 0.854 -> 0.795 (0.86).
//   128 x 160, ping-pong (0.9): 2048 x 2560 x 4096 0.854-0.861 -> 0.930 (1.13 at 0.9); left
//     out: 2048 x 2176 x 4096 0.872 -> 0.845 (1.02), 4096 x 14336 x 4096 1.009 -> 0.993
//     against 128 x 128 ping-pong (0.91).
//   128 x 128, ping-pong (1.0 here: its hidden epilogue makes up the 0.92 of the cooperative
//     128-wide tile, pingpong_pays's measurements).
// Ping-pong below one tile per SM leaves a warpgroup of each CTA idle, and above
// kPingPongMaxK it is not run (pingpong_pays): not priced.
namespace {
constexpr double kWaveMargin = 1.1;
constexpr double kWaveEfficiency = 1.0;
constexpr double kWavePingPongEfficiency = 0.9;
constexpr double kPingPongEfficiency = 1.0;

// The busiest CTA's whole tiles of `c` under the ping-pong schedule, in 256-wide k-iterations.
double pingpong_cost(const gemm_impl::TileConfig& c, int64_t m, int64_t n, int64_t k_iters, int64_t l, int sms,
                     double efficiency) {
  const int64_t tiles = tile_count(c, m, n, l);
  return double((tiles + sms - 1) / sms * std::max<int64_t>(k_iters, 1)) * c.block_n / efficiency;
}
}  // namespace

int wave_tile_width(int64_t m, int64_t n, int64_t k, int64_t l, int sms) {
  if (m <= 32 || sms <= 0) return 0;  // the small-M rule (pick_tile) streams B with narrow tiles
  const int64_t k_iters = (k + 63) / 64;
  const double today =
      pingpong_pays(m, n, k, l, sms, false, false)
          ? pingpong_cost(gemm_impl::kPingPongTileConfig, m, n, k_iters, l, sms, kPingPongEfficiency)
          : plain_tile_cost(gemm_impl::kTileConfigs[pick_tile(m, n, k_iters, l, sms)], m, n, k_iters, l, sms);
  const auto& wide = gemm_impl::kWaveTileConfig;
  const double wide_cost = gemm_impl::heuristic_cost(tile_count(wide, m, n, l), std::max<int64_t>(k_iters, 1), sms) *
                           wide.block_n / kWaveEfficiency;
  const auto& pp = gemm_impl::kWavePingPongTileConfig;
  const double pp_cost = tile_count(pp, m, n, l) > sms && k <= kPingPongMaxK
                             ? pingpong_cost(pp, m, n, k_iters, l, sms, kWavePingPongEfficiency)
                             : today * 2;  // not priced
  const double best = std::min(wide_cost, pp_cost);
  if (best * kWaveMargin > today) return 0;
  return wide_cost <= pp_cost ? wide.block_n : pp.block_n;
}

// The tile order where the caller leaves it to the library: along N (8-row-tile swizzle
// groups crossing N) for 16-bit calls without a cluster, whatever the shape; otherwise
// CUTLASS's rule (schedule::resolve_raster: along M where there are more N tiles than M
// tiles). Along N won on every wide problem measured and was level elsewhere (H100, ours /
// cuBLAS along M -> along N, bench/NOTES.md v86): 4096 x 14336 x 28672 0.823 -> 0.948,
// x 16384 0.867 -> 0.952, 4096 x 28672 x 8192 0.897 -> 1.006, x 4096 0.898 -> 1.026,
// 2048 x 28672 x 8192 0.773 -> 1.000, 1024 x 8192 x 8192 0.936 -> 1.002, 256 x 28672 x 8192
// 1.072 -> 1.081; level (within 0.5%): 4096 x 14336 x 4096, 4096 x 8192 x {8192, 28672},
// 2048 x 8192 x 8192, 2048 x 2560 x 4096, 8192^3, 16384^3. FP8 and 2 x 1 pairs keep CUTLASS's
// rule. (Those figures were timed after 0.3 s
// of load; again after 1 s, stop 66, H100: 4096 x 28672 x 8192 0.797 -> 0.997, 4096 x 14336
// x 28672 0.821 -> 0.945, 2048 x 28672 x 8192 0.738 -> 1.000, 1024 x 8192 x 8192 level. FP8
// in one interleaving, stop 67, H200, along M over along N: 8192^3 1.000, 4096 x 28672 x 8192
// 1.000, 4096 x 14336 x 4096 1.005: level, so FP8 keeps CUTLASS's rule.) Clusters: below.
// 16-bit 1 x 2 pairs (two N tiles sharing A) walk along M: along N they read a third more
// from DRAM than 1 x 1 (ncu, 4096 x 8192 x 28672: 3.41 GB against 2.58 for 1 x 1 and 2.08 for
// 2 x 1; why, with the same swizzled footprint counted in pairs, is not worked out). H100, ours /
// cuBLAS along N -> along M (bench/NOTES.md stop 69): 4096 x 8192 x 28672 0.924 -> 0.993,
// 4096^3 0.943 -> 0.984, 2048^3 0.947 -> 0.944. 2 x 1 pairs measured level either way (0.995
// / 0.995, 0.986 / 0.984, 0.944 / 0.937 along N / M) and keep CUTLASS's rule.
schedule::RasterOrder library_raster(int in_bytes, int cluster_m, int cluster_n) {
  if (in_bytes != 2) return schedule::RasterOrder::kHeuristic;
  if (cluster_m == 1 && cluster_n == 1) return schedule::RasterOrder::kAlongN;
  if (cluster_m == 1 && cluster_n == 2) return schedule::RasterOrder::kAlongM;
  return schedule::RasterOrder::kHeuristic;
}

}  // namespace warpspec
