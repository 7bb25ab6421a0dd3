#pragma once
// GEMM configurations: one constexpr table that the kernel and the host heuristics
// both read. A configuration fixes the CTA tile, the mainloop depth and the epilogue
// staging; the kernel is the cooperative schedule (two consumer warpgroups split the
// tile's rows, 64 each, a producer warpgroup feeds them).
#include <cstdint>

namespace warpspec::gemm_impl {

struct TileConfig {
  int block_m;  // rows of the CTA tile: 64 per consumer warpgroup
  int block_n;  // columns: the wgmma N (8..256, multiple of 8... here of 64, the TMA box)
  int block_k;  // K per stage: 64 16-bit elements = one 128-byte swizzle atom row
  int stages;   // mainloop pipeline depth
};

// Shared memory per block on sm_90 after opt-in (227 KB).
inline constexpr int kMaxSmemPerBlock = 232448;

inline constexpr int kConsumerWarpgroups = 2;
inline constexpr int kThreads = 128 * (1 + kConsumerWarpgroups);
// Register split (setmaxnreg): 168 per thread at entry (65536 / 384, rounded down to
// 8). Producer 40 + 2 x 232 = 504 = 3 x 168: the pool balances exactly.
inline constexpr int kProducerRegs = 40;
inline constexpr int kConsumerRegs = 232;
static_assert(kProducerRegs + kConsumerWarpgroups * kConsumerRegs <= 3 * 168,
              "setmaxnreg budget exceeds the registers the CTA starts with: the inc would block forever");

// Epilogue: output goes through shared memory in chunks of 128 bytes per row (64 bf16
// or 32 fp32 columns) so each chunk is one SW128 TMA box; two chunk buffers per CTA
// let the store of one overlap the writes of the next. With beta != 0 the C tile is
// TMA-loaded into the same buffer and overwritten in place with D.
inline constexpr int kEpiRowBytes = 128;
inline constexpr int kEpiStages = 2;

template <int kBlockM, int kBlockN, int kBlockK, int kStages, int kInBytes, int kOutBytes>
struct SmemPlan {
  static constexpr int kBytesA = kBlockM * kBlockK * kInBytes;
  static constexpr int kBytesB = kBlockN * kBlockK * kInBytes;
  static constexpr int kStageBytes = kBytesA + kBytesB;
  static constexpr int kEpiCols = kEpiRowBytes / kOutBytes;
  static constexpr int kEpiChunks = kBlockN / kEpiCols;
  static constexpr int kEpiBytes = kBlockM * kEpiRowBytes;
  // Tiles, then epilogue buffers, then barriers; +1024 to align the dynamic base.
  static constexpr int kBarrierBytes = 8 * (2 * kStages + 2 * kEpiStages + 1);
  static constexpr int kTotal = kStages * kStageBytes + kEpiStages * kEpiBytes + kBarrierBytes + 1024;
  static_assert(kTotal <= kMaxSmemPerBlock, "the configuration does not fit in 227 KB of shared memory");
  static_assert(kBytesA % 1024 == 0 && kBytesB % 1024 == 0, "SW128 tiles must stay 1024-byte aligned");
  static_assert(kBlockN % kEpiCols == 0, "the epilogue chunk must divide the tile width");
};

// The configurations we build, widest first. The host picks one per problem
// (src/gemm/gemm.cpp, pick_tile): the widest tile that still fills the SMs. Narrower
// tiles re-read A more often but put more SMs to work when the output has few tiles
// (small M, or small M*N), which is when the GEMM is bound by reading B.
inline constexpr TileConfig kTileConfigs[] = {
    {128, 256, 64, 4},  // 2 x (64 x 256) per CTA: the most operand reuse
    {128, 128, 64, 6},
    {128, 64, 64, 8},
};
inline constexpr int kNumTileConfigs = int(sizeof(kTileConfigs) / sizeof(kTileConfigs[0]));

}  // namespace warpspec::gemm_impl
