#pragma once
// The GEMM host's tile and schedule heuristics (tile_choice.cpp): pure functions of the
// problem's shape and the SM count, so the host tests call them directly.
#include "warpspec/schedule/raster.hpp"
#include <cstdint>

namespace warpspec {

// The 16-bit plain tile (an index into gemm_impl::kTileConfigs): the widest tile that keeps
// the SMs busy. `k_iters`: k-iterations of a tile (K / 64, rounded up). `dram_bytes_per_s`:
// the device's DRAM bandwidth (DeviceProps; 0 = unknown), which decides one small-M case
// (wide_split_pays).
int pick_tile(int64_t m, int64_t n, int64_t k_iters, int64_t l, int sms, double dram_bytes_per_s = 0);

// Whether one row tile of 65-128 rows over a single wave of 64-wide tiles runs faster on
// the 128-wide tile (which the K decomposition then splits in two) because DRAM outruns
// L2's re-reads of A there (tile_choice.cpp).
bool wide_split_pays(int64_t m, int64_t n, int64_t k_iters, int64_t l, int sms, double dram_bytes_per_s);

// FP8 with D bf16: the 128 x 256 tile (kFp8WideTileConfig) rather than 128 x 128.
bool fp8_wide_tile(int64_t m, int64_t n, int64_t k, int64_t l, int sms);

// The ping-pong schedule where the heuristic picks it (its 128 x 128 tile).
bool pingpong_pays(int64_t m, int64_t n, int64_t k, int64_t l, int sms, bool fp8, bool fused);

// A wave-filling tile width for a 16-bit plain GEMM whose 128- and 256-wide tiles leave a
// ragged last wave: 224 (kWaveTileConfig, the cooperative schedule), 160
// (kWavePingPongTileConfig, ping-pong), or 0 (keep pick_tile's and pingpong_pays's choice).
// The caller checks that the kernel is built for the call.
int wave_tile_width(int64_t m, int64_t n, int64_t k, int64_t l, int sms);

// The tile order where the caller leaves it to the library: along N or along M, or
// kHeuristic for CUTLASS's rule (schedule::resolve_raster). `in_bytes`: the input dtype's
// size; the cluster in the kernel's orientation (after a swap).
schedule::RasterOrder library_raster(int in_bytes, int cluster_m, int cluster_n);

}  // namespace warpspec
