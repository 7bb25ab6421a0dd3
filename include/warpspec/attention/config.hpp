#pragma once
// Attention forward configurations: one constexpr table read by the kernel and the
// host alike. A configuration fixes, per kernel head dim, the key/value block and the
// depth of the K and V pipelines, and the consumer warpgroups: the query block is 64 rows
// (the wgmma M) per consumer warpgroup, beside one producer warpgroup.
#include <cstdint>
#include <span>

#include "warpspec/tensor.hpp"

namespace warpspec::attention_impl {

// Register split (setmaxnreg): 65536 / threads per thread at entry. The producer needs
// almost nothing (one thread issues TMA); the consumers hold O (head_dim / 2 fp32), S
// (block_n / 2 fp32) and P (block_n / 4 x 32-bit) per thread. Two consumer warpgroups:
// 24 + 2 x 240 = 504 = 3 x 168, the pool balances exactly (HOPPER-FACTS §5); three:
// 24 + 3 x 160 = 504 <= 4 x 128.
inline constexpr int kProducerRegs = 24;
constexpr int consumer_regs(int consumers) { return consumers == 2 ? 240 : 160; }

// Named barriers (0 is __syncthreads), one table for the kernel: consumer warpgroup w
// waits on kPingPong0 + w for its turn on the tensor cores, and its epilogue syncs on
// epilogue_barrier(consumers, w), after the turn barriers.
enum NamedBarrier : uint32_t {
  kPingPong0 = 1,
};
constexpr uint32_t epilogue_barrier(int consumers, int wg) { return uint32_t(kPingPong0 + consumers + wg); }

struct HeadDimConfig {
  int head_dim;  // the kernel's head dim: a multiple of 64 (128-byte SW128 columns)
  int block_n;   // keys per K/V block: the QK^T wgmma N and the P·V wgmma K
  int stages;    // K and V pipeline depth (each)
  int v_stages = 0;  // the consumers' V ring, when deeper than K's (0: `stages`)
  // The two consumer warpgroups take turns on the tensor cores (ping-pong: one's softmax
  // while the other's GEMMs run), or issue whenever each is ready (false). Where a
  // warpgroup's softmax takes longer than the other's GEMMs (head dim 64; FP8 head dims
  // 64 and 256) the turns leave the tensor cores idle: without them, 16-bit hd64 +4% and
  // FP8 hd64 +3-4%, hd256 +2-5% at 16k; with them, 16-bit hd128/256 +2-4% and FP8 hd128
  // +2% at 16k (bench/NOTES.md v23).
  bool pingpong = true;
  // O's rescale by the softmax's α between the next turn's S and P·V issues, while the S
  // runs (FlashAttention-3's order), instead of right after the P·V wait (turns.cuh:
  // OScale). Measured per kernel (bench/NOTES.md v23): FP8 hd128 +7%; 16-bit hd64 -5 to
  // -10%, hd128 -1 to -2.5% at 16k, the others within ±1%.
  bool rescale_beside_s = false;
  int consumers = 2;  // consumer warpgroups, 64 query rows each
  // Split-KV's partial epilogue (epilogue_partial.cuh) is built in; without it the host
  // runs split-KV calls on another configuration (split_config_for).
  bool split_kv = true;
  // Of a head dim's configurations, a call runs one with the largest min_keys that its
  // query rows see on average (0: the head dim's default, config_for without keys).
  int min_keys = 0;
  // Speed per computed (query, key) pair against the head dim's other configurations at
  // the same min_keys, measured at long rows (bench/NOTES.md). Where the host knows the
  // lengths it runs, of those, the one with the most visible work per unit of time:
  // speed x the fraction of its whole tiles' pairs that are visible (attention.cpp:
  // visible_fraction); where it does not, the fastest.
  float speed = 1.0f;
  // Pack-GQA's row mapping and chunked attention's mask are built in (where the head dim
  // has them at all: kPackGqaHeadDim, kChunkHeadDim). A lean configuration leaves both
  // out, and split-KV's partial epilogue: for calls that use none of the three, the same
  // tiles in less code (head dim 128: +2.6-4.2% at 512-2k, bench/NOTES.md v33). The host
  // runs a call that needs one on a sibling that has it.
  bool pack_gqa = true;
  bool chunk = true;
  constexpr bool operator==(const HeadDimConfig&) const = default;
  constexpr int v_depth() const { return v_stages > 0 ? v_stages : stages; }
  constexpr int block_m() const { return 64 * consumers; }  // query rows per tile
};

// Shared memory: Q (block_m x d) + stages x (K + V) (block_n x d each), bf16/fp16.
//   d  64: 24 KB + 3 x 32 KB  = 120 KB   (three consumers: 192 query rows)
//   d 128: 32 KB + 2 x 64 KB  = 160 KB   (long rows: 32 KB + 2 x 96 KB = 224 KB)
//   d 192: 48 KB + 2 x 84 KB  = 216 KB   (block_n 112, as FlashAttention-3)
//   d 256: 64 KB + 2 x 80 KB  = 224 KB   (block_n 80, as FlashAttention-3; short calls
//          64 KB + 2 x 64 KB = 192 KB with block_n 64)
// Registers bound block_n for the large head dims: d 256 holds 128 O + 40 S + 20 P.
// Head dim 64 runs three consumer warpgroups taking turns: its softmax is as long as its
// GEMMs (bench/NOTES.md v23), and a third warpgroup's GEMMs fill the gap that two leave
// (v26: +13-16% at 4k-16k). 160 registers hold 32 O + 64 S + 32 P. Short causal
// sequences lose 8-9% to the 192-row tile's masked rows, and short query sides to its
// padded rows: those run two warpgroups without turns on 128-row tiles (v32), chosen by
// the speeds (1.15: v26's 16k and 8k) and the calls' padding; that kernel is lean (v65).
// Head dim 128 has two: 128-key blocks, and 192-key blocks for rows that see 3072 keys
// or more on average (dense lengths known to the host; with seqused_k or a page table the
// default), where each block's fixed cost (the row max, the turn, the barrier
// waits) spreads over 1.5x the MMA: +5-6% at 8k-16k, full and causal, but -10 to -14%
// at 512 (the last block's masked keys; v29). The 192-key kernel has no registers for
// split-KV's partial epilogue (68 bytes of spills with it at 176 keys), so split-KV runs
// on the 128-key one. The 128-key blocks come twice: with pack-GQA, chunks and split-KV,
// and lean, without them (+2.5-5.5% at 512-2k, v33), which plain calls run.
// Split-KV's partial epilogue: head dims 64 (three consumers at 160 registers: 184 bytes
// of spills) and 256 (4 bytes at 240) leave it out; head dim 64 splits on the head dim 128
// kernel (split_config_for; split-KV serves decoding, bound by the K/V reads, which the
// padded columns do not add to: TMA zero-fills them), head dim 256 refuses num_splits > 1.
inline constexpr HeadDimConfig kHeadDimConfigs[] = {
    {.head_dim = 64, .block_n = 128, .stages = 3, .consumers = 3, .split_kv = false, .speed = 1.15f},
    {.head_dim = 128, .block_n = 128, .stages = 2},
    {.head_dim = 128, .block_n = 192, .stages = 2, .split_kv = false, .min_keys = 3072},
    {.head_dim = 192, .block_n = 112, .stages = 2},
    {.head_dim = 256, .block_n = 80, .stages = 2, .split_kv = false},
    // Appended (the list's order names the kernels): head dim 64's short calls, lean (no
    // pack-GQA or chunks: +1.6-2.2% at 512 and 1k, full and causal, bench/NOTES.md v65);
    // calls that pack or chunk run on the three-warpgroup kernel, which has both. Its
    // speed per computed pair, 1.03, is the lean gain measured on head dim 128 (v33): full
    // 512 and 1k now run 128-row tiles (1.03 against 0.889 x 1.15 = 1.022: +2.4% at 512
    // through Python).
    {.head_dim = 64, .block_n = 128, .stages = 3, .pingpong = false, .split_kv = false, .speed = 1.03f,
     .pack_gqa = false, .chunk = false},
    // Head dim 128's lean sibling of its 128-key configuration (no pack-GQA, chunks or
    // split-KV): the one a plain call under 3072 keys a row runs.
    {.head_dim = 128, .block_n = 128, .stages = 2, .split_kv = false, .speed = 1.03f, .pack_gqa = false, .chunk = false},
    // Head dim 256's short calls: 64-key blocks, where 80-key ones compute too many masked
    // keys (the causal diagonal at 512: 1440 keys per four 128-row tiles against 1280; a
    // row of 512 in 7 blocks of 80). Speed 0.94 of the 80-key kernel at long rows (v34:
    // 0.948 full and 0.953 causal at 16k, 0.939 causal at 8k).
    {.head_dim = 256, .block_n = 64, .stages = 2, .split_kv = false, .speed = 0.94f},
};

// The kernel that runs head dim d: the smallest built one that holds it. A smaller d
// rides on it padded: the loads zero-fill columns d.. (zeros add nothing to Q·Kᵀ and
// give zero columns of O) and the O store is clipped at d. d must be a multiple of 8,
// so a row of O ends on a 16-byte boundary: TMA stores write whole 16-byte chunks, and
// a ragged row end would spill into the next head.
constexpr int kernel_head_dim(int64_t d) {
  if (d < 8 || d > 256 || d % 8 != 0) return 0;
  return d <= 64 ? 64 : d <= 128 ? 128 : d <= 192 ? 192 : 256;
}

// Head dims whose kernels may implement chunked attention (mask.cuh: MaskFeatures::chunk).
constexpr bool kChunkHeadDim(int kernel_d) { return kernel_d <= 192; }

// Kernels that run pack-GQA (pack_gqa.cuh): the head dim 256 consumer has no registers
// for the packed row → position shift in its mask (8 bytes of spills), so its masks
// keep the unpacked rows (mask.cuh: MaskFeatures::pack_gqa) and the host never packs there.
constexpr bool kPackGqaHeadDim(int kernel_d) { return kernel_d <= 192; }

// What configuration `c`'s kernel has built in: pack-GQA's packed rows, the chunk mask
// (its head dim may have them, and it does not leave them out).
constexpr bool packs_gqa(const HeadDimConfig& c) { return c.pack_gqa && kPackGqaHeadDim(c.head_dim); }
constexpr bool chunks(const HeadDimConfig& c) { return c.chunk && kChunkHeadDim(c.head_dim); }

// The mask code's compile-time switches for one kernel (mask.cuh): the packed row ->
// position mapping, the chunk edges, and whether the tile's masked blocks are computed
// once per tile (MaskedBlocks) or asked per block (head dim 256: no two registers for them).
struct MaskFeatures {
  bool pack_gqa;
  bool chunk;
  bool once;
  constexpr bool operator==(const MaskFeatures&) const = default;
};
constexpr MaskFeatures mask_features(const HeadDimConfig& c) { return {packs_gqa(c), chunks(c), c.head_dim <= 192}; }

// FP8 (e4m3 Q, K, V; bf16 O): design note docs/design/fp8-attention.md §5, §7.1.
// Shared memory: Q (block_m x d) + stages x (K + vload + Vᵀ) (block_n x d bytes each):
//   d  64: 12 KB + 2 x 24 KB =  60 KB   (three consumers, 192 query rows; block_n 128)
//   d 128: 16 KB + 2 x 72 KB = 160 KB   (block_n 192; short rows 16 KB + 2 x 48 KB = 112 KB
//          with block_n 128)
//   d 256: 32 KB + 2 x 64 KB + 2 x 32 KB = 224 KB   (block_n 128, FlashAttention-3's
//          FP8 tile; direct stores)
// Registers: d 256 holds 128 O + 64 S + 16 P at block_n 128, without spills since the
// consumer's tile state shrank (ptxas, 2026-12-04; it spilled 40 B at 2026-11-30, when
// d 256 took 96-key blocks and a third Vᵀ stage).
// d 64 runs three consumer warpgroups without turns (as 16-bit hd64, its softmax outlasts
// its GEMMs): 160 registers hold 32 O + 64 S + 16 P at block_n 128 (at 192 they would
// not); +10-18% over two warpgroups at block_n 192 (bench/NOTES.md v27).
// Only these head dims are built; the host refuses the others by name.
// All three are lean: the host refuses split-KV, pack-GQA and chunks for e4m3 calls
// (attention.cpp: check_fp8_options), so their code is left out (+1-7% at head dims 64
// and 128, most at 512-1k; bench/NOTES.md v73). A feature that comes to FP8 comes with a
// sibling configuration that has it, as for 16-bit.
inline constexpr HeadDimConfig kFp8HeadDimConfigs[] = {
    {.head_dim = 64, .block_n = 128, .stages = 2, .pingpong = false, .consumers = 3, .split_kv = false, .pack_gqa = false,
     .chunk = false},
    {.head_dim = 128, .block_n = 192, .stages = 2, .rescale_beside_s = true, .split_kv = false, .pack_gqa = false, .chunk = false},
    {.head_dim = 256, .block_n = 128, .stages = 2, .pingpong = false, .split_kv = false, .pack_gqa = false, .chunk = false},
    // Appended (the list's order names the kernels): head dim 128 on 128-key blocks for short
    // rows, where 192-key ones compute 11% padding (512 and 1k keys: 3 and 6 blocks of 192).
    // The host runs it where its visible fraction makes up for its speed per computed pair
    // against the 192-key kernel (attention.cpp: plan_config): full and causal 512 and 1k,
    // +8-17% there; 2k and 16k keep 192 (bench/NOTES.md v74). The 0.95 is an estimate (the
    // 16-bit 128-key kernel's 5-6% behind its 192-key one at 8k-16k, v29), not a measurement.
    {.head_dim = 128, .block_n = 128, .stages = 2, .rescale_beside_s = true, .split_kv = false, .speed = 0.95f,
     .pack_gqa = false, .chunk = false},
    // Appended: head dim 128 with three consumer warpgroups (192-row tiles) taking turns on
    // 96-key blocks, O's rescale beside S. Three warpgroups at 128 keys spill 192 B (ptxas);
    // at 96 they hold 64 O + 48 S + 12 P without spills. Its speed per computed pair against
    // the 192-key kernel, from stop 58's probe at 16k tokens (bench/NOTES.md v77; the
    // ratios over the visible and busy fractions, attention.cpp: plan_config): 1.05 and
    // 1.07 full at 8k and 16k, 1.11 and 1.08 causal. Its 192-row tiles pad more and fill
    // fewer SMs, so the host weighs them per call.
    {.head_dim = 128, .block_n = 96, .stages = 2, .pingpong = true, .rescale_beside_s = true, .consumers = 3,
     .split_kv = false, .speed = 1.06f, .pack_gqa = false, .chunk = false},
};

constexpr bool is_fp8(DType t) { return t == DType::kE4M3; }

// The configurations of one kind (16-bit or FP8).
constexpr std::span<const HeadDimConfig> configs_of(DType dtype) {
  if (is_fp8(dtype)) return kFp8HeadDimConfigs;
  return kHeadDimConfigs;
}

// The configuration that runs kernel head dim `kernel_d` for query rows that see `keys`
// keys on average, the padding aside: of that head dim's, one with the largest min_keys
// <= keys, the fastest of those; {0, 0, 0} where none is built. Its siblings (same head
// dim and min_keys) are the host's alternatives where it knows the padding.
constexpr HeadDimConfig config_for(int kernel_d, DType dtype = DType::kBF16, int64_t keys = 0) {
  HeadDimConfig best{0, 0, 0};
  for (const auto& c : configs_of(dtype))
    if (c.head_dim == kernel_d && c.min_keys <= keys &&
        (best.head_dim == 0 || c.min_keys > best.min_keys || (c.min_keys == best.min_keys && c.speed > best.speed)))
      best = c;
  return best;
}

// The configuration that runs split-KV for kernel head dim `kernel_d`: the first with the
// partial epilogue at that head dim or the next one up that is built; {0, 0, 0}: none
// (the call is refused).
constexpr HeadDimConfig split_config_for(int kernel_d, DType dtype = DType::kBF16) {
  if (kernel_d <= 0) return {0, 0, 0};  // no kernel head dim: nothing runs it
  for (const auto& c : configs_of(dtype))
    if (c.head_dim >= kernel_d && c.split_kv) return c;
  return {0, 0, 0};
}

// Whether `c` is one of the built configurations (the kernel's static check).
constexpr bool is_configured(const HeadDimConfig& c, DType dtype) {
  for (const auto& x : configs_of(dtype))
    if (x == c) return true;
  return false;
}

// The one compile-time value an attention kernel is instantiated on: what changes
// registers, shared memory or instructions. Masks, lengths and scales are runtime.
struct AttentionConfig {
  HeadDimConfig shape;
  DType dtype = DType::kBF16;  // Q, K and V; also O, except e4m3 (O bf16)
  constexpr bool operator==(const AttentionConfig&) const = default;
};

}  // namespace warpspec::attention_impl
