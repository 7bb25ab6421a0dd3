#pragma once
// GEMM configurations: the one compile-time value a GEMM kernel is instantiated on,
// and the table of tiles that the kernel and the host heuristics both read.
//
// A configuration fixes the CTA tile, the mainloop depth, the epilogue staging, the
// element types, the operand majors and the cluster shape. The kernel is the
// cooperative schedule: two consumer warpgroups split the tile's rows, 64 each; a
// producer warpgroup feeds them.
#include <cstdint>

#include "warpspec/tensor.hpp"

namespace warpspec::gemm_impl {

struct TileConfig {
  int block_m;     // rows of the CTA tile: 64 per consumer warpgroup, or 64 shared by both (K in turns)
  int block_n;     // columns: the wgmma N, up to 256; a multiple of 64 unless B is K-major
  int block_k;     // K per stage: one 128-byte swizzle row (64 16-bit or 128 8-bit elements)
  int stages;      // mainloop pipeline depth
  int epi_stages;  // epilogue chunk buffers (see below); 0: the epilogue stores from registers
  constexpr bool operator==(const TileConfig&) const = default;
};

// CTAs per cluster along M and N: 1x1 (none), 2x1 (two CTAs on neighbouring M tiles
// share their B tile) or 1x2 (two on neighbouring N tiles share their A tile). A shared
// operand's stage is loaded half by each CTA of the pair and multicast into both
// (gemm/cluster_cast.cuh); the launch is a 1-D grid of clusters (size, 1, 1), and the
// CTA of cluster rank r takes the tile at offset r along the cluster's long side
// (schedule/persistent.hpp's rank convention).
struct ClusterShape {
  int m = 1, n = 1;
  constexpr int size() const { return m * n; }
  constexpr bool operator==(const ClusterShape&) const = default;
};

// CTAs that load one A tile between them: the CTAs along N (they all multiply it).
constexpr int shared_by_a(const ClusterShape& c) { return c.n; }
// CTAs that load one B tile between them: the CTAs along M.
constexpr int shared_by_b(const ClusterShape& c) { return c.m; }

// What the epilogue computes (gemm/epilogue_ops.cuh): kLinear is alpha·acc + beta·C and
// nothing else (the plain kernels); kFused adds dequantisation scales, a bias and an
// activation, chosen at run time. A kernel type of its own because the fused op costs
// registers and instructions that a plain GEMM must not pay.
enum class EpilogueKind : uint8_t { kLinear = 0, kFused = 1 };

// How the consumer warpgroups share the work (the kernel type, gemm/launch.cuh):
//   kCooperative: both multiply one tile, 64 rows each (gemm/kernel.cuh);
//   kPingPong: each owns its own tile, the CTA's units taken in turns, so one
//     warpgroup's epilogue runs beside the other's mainloop (gemm/kernel_pingpong.cuh).
enum class KernelSchedule : uint8_t { kCooperative = 0, kPingPong = 1 };

// Everything that changes registers, shared memory or instructions; nothing else.
struct GemmConfig {
  TileConfig tile;
  DType in = DType::kBF16;   // A and B
  DType out = DType::kBF16;  // C and D
  bool a_k_major = true;     // A (M x K) has K contiguous
  bool b_k_major = true;     // B (K x N) has K contiguous
  ClusterShape cluster{};
  EpilogueKind epilogue = EpilogueKind::kLinear;
  // FP8 only: B in the other 8-bit format than A (e4m3 x e5m2 either way round, which
  // wgmma takes as one instruction); false: B's dtype is A's.
  bool b_other_fp8 = false;
  KernelSchedule schedule = KernelSchedule::kCooperative;
  constexpr bool operator==(const GemmConfig&) const = default;
  constexpr DType b_dtype() const {
    return !b_other_fp8 ? in : in == DType::kE4M3 ? DType::kE5M2 : DType::kE4M3;
  }
};

inline constexpr int kConsumerWarpgroups = 2;
// Register split (setmaxnreg): 168 per thread at entry (65536 / 384).
// Producer 40 + 2 x 232 = 504 = 3 x 168: the pool balances exactly.
inline constexpr int kProducerRegs = 40;
inline constexpr int kConsumerRegs = 232;

// Named barriers (0 is __syncthreads): consumer warpgroup w's epilogue uses
// kEpilogueBarrier0 + w, its split-K / stream-K fixup kFixupBarrier0 + w; the 64-row
// tiles' hand-over of warpgroup 1's sum to warpgroup 0 (gemm/mma_k_interleaved.cuh)
// kHandOverFull and kHandOverEmpty.
// The ping-pong schedule's turn at the mainloop (gemm/kernel_pingpong.cuh): warpgroup w
// waits on kMathTurn0 + w for the other to finish its unit's mainloop.
enum NamedBarrier : uint32_t {
  kEpilogueBarrier0 = 1,
  kFixupBarrier0 = 3,
  kHandOverFull = 5,
  kHandOverEmpty = 6,
  kMathTurn0 = 7,
};

// Epilogue: output goes through shared memory in chunks of 128 bytes per row (64 bf16
// or 32 fp32 columns) so each chunk is one SW128 TMA box. With `epi_stages` chunk
// buffers, the store of one chunk overlaps the writes of the next; when the buffers
// hold a whole tile, no warpgroup ever waits for a store before the next mainloop.
// With beta != 0 the C chunk is TMA-loaded into the same buffer and overwritten in
// place with D.
inline constexpr int kEpiRowBytes = 128;

// The tiles we build, widest first. The host picks one per problem (src/gemm/gemm.cpp,
// pick_tile): the widest tile that still fills the SMs. Narrower tiles re-read A more
// often but put more SMs to work when the output has few tiles (small M, or small
// M*N), which is when the GEMM is bound by reading B.
inline constexpr TileConfig kTileConfigs[] = {
    // 2 x (64 x 256) per CTA: the most operand reuse. Three stages (144 KB) leave room for
    // four epilogue buffers, a whole bf16 tile: stores then never hold up the next mainloop.
    {128, 256, 64, 3, 4},
    {128, 128, 64, 6, 2},
    {128, 64, 64, 8, 2},
};
inline constexpr int kNumTileConfigs = int(sizeof(kTileConfigs) / sizeof(kTileConfigs[0]));

// One kernel, two D types, chosen at run time:
//   FP8 kernels write a 16-bit D as bf16 or fp16: the two differ by one conversion
//     instruction a pair, chosen per chunk (EpilogueOpParams::d_fp16), so an FP8 kernel
//     built with D bf16 also runs the calls with D fp16;
//   the plain 16-bit cooperative kernels (kTileConfigs, linear epilogue, no cluster) write D
//     in the input's type or fp32 (GemmParams::d_fp32, gemm/epilogue_d16_or_fp32.cuh): the
//     chunk buffers are the same bytes either way and only the epilogue's store code differs,
//     so one kernel serves both and the build compiles the mainloop once, not twice.
// A call's configuration (out = its D's dtype) maps to the built kernel's here, in one place:
// instances.hpp's is_built and the dispatch (launch.cuh) look kernels up through it.
constexpr bool writes_fp16_too(const GemmConfig& c) { return dtype_size(c.in) == 1 && c.out == DType::kBF16; }
constexpr bool is_plain_tile(const TileConfig& t) {
  for (const TileConfig& c : kTileConfigs)
    if (c == t) return true;
  return false;
}
constexpr bool writes_fp32_too(const GemmConfig& c) {
  return dtype_size(c.in) == 2 && c.out == c.in && c.epilogue == EpilogueKind::kLinear &&
         c.schedule == KernelSchedule::kCooperative && c.cluster.size() == 1 && is_plain_tile(c.tile);
}
constexpr GemmConfig kernel_config(GemmConfig c) {
  if (dtype_size(c.in) == 1 && c.out == DType::kFP16) c.out = DType::kBF16;
  if (dtype_size(c.in) == 2 && c.out == DType::kFP32) {
    GemmConfig narrowed = c;
    narrowed.out = c.in;
    if (writes_fp32_too(narrowed)) return narrowed;
  }
  return c;
}

// Narrow tiles for skinny problems (decode: M = 1..32 rows of activations against a
// weight of thousands): the caller's small dimension becomes the kernel's N, so a
// problem D = A·B runs as Dᵀ = Bᵀ·Aᵀ, the weight streaming through 64-row tiles that
// both consumer warpgroups multiply in turns, a stage each (gemm/mma_k_interleaved.cuh),
// and the activations a 16- or 32-wide wgmma B. 64 rows rather than 128 give a problem
// twice the tiles, so the SMs fill with half the K splitting. Built for A row-major and
// B column-major (x @ w.t(), both K-major once swapped), D of the input dtype, the linear
// epilogue. With so few columns a 128-byte chunk does not fit, so the epilogue stores
// straight from registers (epi_stages 0, gemm/epilogue_direct.cuh), which also writes the
// transposed D the swap leaves. Shared memory goes to stages: 8 KB of the weight and 2
// (4) KB of activations each, 16 (14) of them, 128 (112) KB of the weight in flight per
// SM, where the wide tiles' three to eight stages keep 48-96 KB (M <= 64 loads 64 rows of A).
inline constexpr TileConfig kNarrowTileConfigs[] = {
    {64, 16, 64, 16, 0},
    {64, 32, 64, 14, 0},
};
inline constexpr int kNumNarrowTileConfigs = int(sizeof(kNarrowTileConfigs) / sizeof(kNarrowTileConfigs[0]));

// Fused epilogues (bias, activation, scales) on 16-bit inputs: one tile, the widest (the
// one large GEMMs pick), for K-major A and B and D of the input dtype: the layout of a
// linear layer (torch: x @ w.t()). Other requests are refused by name (src/gemm/gemm.cpp).
inline constexpr TileConfig kFusedTileConfig = kTileConfigs[0];
// The ping-pong schedule's tile (gemm/kernel_pingpong.cuh): a warpgroup's own 128 x 128
// tile, two 64-row wgmma blocks sharing B; six stages.
inline constexpr TileConfig kPingPongTileConfig = kTileConfigs[1];

// A tile width between the 128 and 256 that fills the waves where neither does
// (docs/design/gemm-wave-widths.md; bf16 x @ w.t(), D bf16, linear epilogue, the
// cooperative schedule: tile_n = 224, or the heuristic's choice where the model says it
// pays, src/gemm/tile_choice.cpp wave_tile_width). 224 = three 64-column epilogue
// chunks and a 32-column tail (gemm/epilogue.cuh). Four stages of 16 + 28 KB and two
// epilogue buffers: 208 KB.
inline constexpr TileConfig kWaveTileConfig = {128, 224, 64, 4, 2};
// Its ping-pong sibling, 128 x 160 (a warpgroup's whole tile: 160 accumulators a thread),
// tile_n = 160 with the ping-pong schedule (or the heuristic's choice): two 64-column chunks and a
// 32-column tail. Five stages of 16 + 20 KB and two epilogue buffers: 212 KB.
inline constexpr TileConfig kWavePingPongTileConfig = {128, 160, 64, 5, 2};

// FP8 (e4m3) inputs, always with the fused epilogue (FP8 needs its scales). Two-level
// accumulation (gemm/mma_fp8.cuh) keeps a temporary fp32 fragment beside the main one.
//   kFp8TileConfig (the default): 128 x 128, acc 64 + two 64-register temporary
//     fragments that take turns so promotion does not drain the tensor pipe at each
//     k-block; a stage is the same 32 KB as the 16-bit 128 x 128 tile's, so the depth and
//     epilogue buffers are too. The faster of the two past K = 1024 and with block scales
//     (bench/NOTES.md v39-v40).
//   kFp8WideTileConfig (D bf16 only; tensor- or row-wise with promotion where its tiles
//     fill a wave and K <= 1024, or by tile_n = 256): 128 x 256 as two 128-wide wgmma
//     parts sharing one tmp (acc 128 + tmp 64), which leaves no room for a second: it
//     drains at each part's promotion. Per k-block it reads A once for 2x the MMAs of the
//     narrow tile. 4 stages of 48 KB + 2 epilogue buffers = 224 KB.
inline constexpr TileConfig kFp8TileConfig = {128, 128, 128, 6, 2};
inline constexpr TileConfig kFp8WideTileConfig = {128, 256, 128, 4, 2};

// The ping-pong schedule's tile for inputs of `in`: 128 x 128 with a stage of 32 KB either
// way (K 64 for 16-bit inputs, 128 for 8-bit; FP8 runs it with fast accumulation only).
constexpr TileConfig pingpong_tile(DType in) { return dtype_size(in) == 1 ? kFp8TileConfig : kPingPongTileConfig; }
// The ping-pong tile for a call asking for tile width `tile_n` (0: pingpong_tile's).
constexpr TileConfig pingpong_tile(DType in, int tile_n) {
  return tile_n == kWavePingPongTileConfig.block_n && dtype_size(in) == 2 ? kWavePingPongTileConfig : pingpong_tile(in);
}

}  // namespace warpspec::gemm_impl
