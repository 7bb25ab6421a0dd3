#pragma once
// Attention forward (FlashAttention-3 style): O = softmax(scale · Q·Kᵀ + mask) · V per
// batch and head, with the row log-sum-exp on request. Part of the public API
// (warpspec.hpp).
#include <cuda_runtime_api.h>

#include <optional>

#include "warpspec/status.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec {

struct AttentionArgs {
  // q: (batch, seqlen_q, heads_q, head_dim); k, v: (batch, seqlen_k, heads_kv, head_dim);
  // o: like q. Rank-4 views, bf16 or fp16, all the same dtype. The last dimension is
  // contiguous (stride 1); the other three may have any strides whose byte sizes are
  // multiples of 16 (TMA addresses them), data 16-byte aligned.
  //   head_dim: a multiple of 8 from 8 to 256. 64, 128, 192 and 256 run natively;
  //             others run the next larger kernel (96 runs the 128 one): the loads
  //             zero-fill the missing columns and nothing past head_dim is written.
  //   heads_q a multiple of heads_kv (MQA / GQA: query head h reads kv head
  //             h / (heads_q / heads_kv); K and V are never copied).
  //   seqlen_q, seqlen_k may differ and may be 0: seqlen_k = 0 gives O = 0 and
  //   LSE = −inf (no key); batch, seqlen_q or heads_q = 0 computes nothing. heads_kv
  //   >= 1. Pointers of empty views are not read.
  // Memory: device memory of the current device (or managed). o must not overlap k or
  // v, and may be q only as the very same view (in place); lse overlaps none of them;
  // neither overlaps sink or the varlen arrays.
  TensorView q, k, v, o;
  // Optional: (batch, heads_q, seqlen_q) fp32 ((heads_q, total_q) with cu_seqlens_q),
  // any non-negative strides. Natural-log
  // units: lse = log Σ_j exp(scale · q·k_j) over the visible keys; −inf for a row that
  // sees no key; NaN (with a NaN O row) when a visible score is NaN. Left empty (data == nullptr), it is not computed.
  TensorView lse;
  // Default 1/sqrt(head_dim). Must be positive and finite, and at most FLT_MAX / log2(e)
  // (the kernel scales by softmax_scale·log2(e) in fp32).
  std::optional<float> softmax_scale;
  // Causal mask aligned to the bottom-right corner (FlashAttention-2/3): query i sees
  // key j iff j <= i + seqlen_k - seqlen_q (unlike SDPA's is_causal, which aligns to
  // the top-left). A row that sees no key gets O = 0 and LSE = −inf. Same as
  // window_right = 0; causal with a window_left is a causal sliding window.
  bool causal = false;
  // Sliding window (FlashAttention's window_size): query i sees key j iff
  //   i + seqlen_k - seqlen_q - window_left <= j <= i + seqlen_k - seqlen_q + window_right,
  // each edge -1 for unbounded (both -1: no window). Each must be -1 or >= 0; causal
  // sets window_right to 0. Key blocks wholly outside the window are never read.
  int64_t window_left = -1;
  int64_t window_right = -1;
  // Chunked attention (FlashAttention-3's attention_chunk, Llama 4): > 0 also limits
  // query i to the keys of its chunk, [c, c + chunk) with c = floor((i + seqlen_k -
  // seqlen_q) / chunk) · chunk (so a row left of the corner, i + seqlen_k - seqlen_q < 0,
  // sees none); combines with causal and the window. 0: off; at most 2^30 - 1. Head dims
  // up to 192 (the head dim 256 kernel refuses it: kUnsupported).
  int64_t attention_chunk = 0;
  // Softcapping (Gemma 2): score = softcap · tanh(softmax_scale · q·k / softcap) before
  // the softmax; 0 turns it off. Must be finite and >= 0. LSE is then in capped units.
  float softcap = 0.0f;
  // Learnable attention sinks (gpt-oss; FlashAttention-4's learnable_sink): fp32
  // (heads_q,), contiguous. sink[h] is a logit (natural-log units, like the scaled
  // scores) that joins each row's softmax denominator but contributes no value:
  // O = Σ_j exp(s_j)·v_j / (Σ_j exp(s_j) + exp(sink[h])), and LSE includes it (a row
  // that sees no key gets O = 0 and LSE = sink[h]). Left empty: no sink.
  TensorView sink;
  // Variable length (FlashAttention-3's flash_attn_varlen_func). All optional; the
  // arrays are int32, rank 1, contiguous, device memory, read by the kernel (no host
  // synchronisation: graph-safe).
  //   cu_seqlens_q (batch + 1,): q and o are packed, rank 3 (total_q, heads_q,
  //     head_dim), sequence b at rows [cu_seqlens_q[b], cu_seqlens_q[b+1]); lse is then
  //     (heads_q, total_q). Needs max_seqlen_q.
  //   cu_seqlens_k (batch + 1,): k and v packed the same way, (total_k, heads_kv,
  //     head_dim). Either side may be packed without the other; batch is then the
  //     dense side's shape[0], or cu_seqlens' length - 1.
  //   seqused_q, seqused_k (batch,): only the first seqused[b] rows of sequence b (dense
  //     or packed) take part; output rows past seqused_q[b] are not written.
  //   max_seqlen_q: with cu_seqlens_q, at least the longest query sequence (as
  //     FlashAttention's): rows past it are not computed. At least 1 where q has rows
  //     (0 would compute nothing; it is what a zero-filled struct holds), else 0.
  // Masks (causal, window) use each sequence's own lengths. The array contents are
  // the caller's contract: a value out of range (not increasing, past the tensor) is
  // clamped into the packed tensor on the device, so it gives wrong rows but never a
  // read or write outside the views.
  TensorView cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k;
  int64_t max_seqlen_q = 0;
  // Optional, for variable-length batches: int32 (2,), contiguous, device memory, all
  // zero before the first call. With it, CTAs take the next query tile from a counter
  // when they finish one (longest first), which balances sequences of unequal length;
  // without it the schedule is static (each CTA a fixed list of tiles). The kernel
  // leaves it zero again, so one counter serves calls that run one after another on a
  // stream; it must not be shared by calls that may run at the same time. Ignored for
  // dense batches. (Dense causal calls whose heads' K/V outgrow half of L2 run in L2
  // sections, describe's l2_sections, 16-bit only, on the dynamic schedule with a counter
  // the library keeps per stream, allocated once; while the stream is being captured they
  // run the static schedule without sections.)
  TensorView tile_counter;
  // Programmatic dependent launch (as GemmArgs::pdl): may start during the previous
  // kernel's tail, waits for it before touching global memory. Off by default.
  bool pdl = false;

  // ---- serving (FlashAttention-3's flash_attn_with_kvcache) ----
  // Split-KV (flash-decoding): the key blocks of each query tile are dealt to num_splits
  // CTAs, which write fp32 partial O and LSE to a workspace; a combine kernel merges them
  // (attention_combine's rule). 1: no split (the default). 0: a heuristic splits when the
  // grid would leave SMs idle (few query tiles, long keys); any value from 2 to 128 is
  // honoured (splits past the key blocks just see no key). Deterministic: a fixed
  // num_splits gives the same bits every run (a different count may differ in the last
  // bits). Works with every option above (the sink joins in the combine).
  int num_splits = 1;
  // The split-KV workspace: device memory of the current device, 16-byte aligned, at least
  // attention_workspace_size() bytes; need not be zeroed; must not serve two calls that
  // may run at the same time. Null: the library's cached workspace for the stream (as
  // GemmArgs::workspace: allocated on first use, graph capture cannot allocate; with
  // num_splits = 0 a capture that would need to grow it runs without splitting instead).
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  // Pack-GQA: the g = heads_q / heads_kv query heads of one KV head share one query tile
  // (tile row r is query position r / g of the group's head r % g), so a decode step
  // fills g rows of a tile instead of one and reads each K/V block once per KV head.
  // Results are the same as unpacked up to the split-KV merge order (with one split and
  // no mask the same bits). true: pack (needs g a power of two up to 16, head_dim up to
  // 192; g = 1 runs unpacked); false: never; unset: pack when that fills the query tiles
  // better (FlashAttention-3's rule: unpacked tiles less than 90% as full as packed) and
  // the rules above allow it.
  std::optional<bool> pack_gqa;
  // KV cache, optional, int32 (batch,) contiguous device vectors read by the kernel:
  //   cache_batch_idx: batch entry b reads k/v entry cache_batch_idx[b] (k and v may
  //     then have any batch count; an index outside it reads zeros). Dense k/v only.
  //   cache_leftpad: sequence b's keys start at row cache_leftpad[b]: its keys are rows
  //     [leftpad, seqused_k) (seqused_k, the cache_seqlens, counts from row 0). Dense
  //     k/v without cu_seqlens_k, not with page_table.
  //   page_table: int32 (batch, max_pages), last dim contiguous: k and v are
  //     (num_pages, page_size, heads_kv, head_dim) and key j of sequence b is row
  //     j % page_size of page page_table[b][j / page_size] (a page outside
  //     [0, num_pages) reads zeros); the sequence's length is seqused_k[b] (required),
  //     at most max_pages * page_size. page_size: any multiple of 16 (each key block is
  //     loaded as TMA boxes of gcd(page_size, block_n) rows, block_n the kernel's key
  //     block: 128 up to head_dim 128 (with a page table always 128; dense calls whose
  //     rows see 3072 keys or more take 192), 112 at 192, 80 at 256; 16-row boxes are slower
  //     than whole blocks). Not with cu_seqlens_k, cache_batch_idx or cache_leftpad.
  TensorView cache_batch_idx, cache_leftpad, page_table;

  // ---- FP8 (e4m3) ----
  // q, k and v may all be e4m3 (FlashAttention-3's FP8 forward); o is then bf16. Head
  // dims 64, 128 and 256 only, and none of: varlen (cu_seqlens_*, seqused_*), paged or
  // cached KV (page_table, cache_batch_idx, cache_leftpad), num_splits other than 1 (0
  // runs unsplit), window_left / window_right (causal is fine), attention_chunk,
  // softcap, sink, pack_gqa = true: each is refused by name (kUnsupported).
  // Descales: optional fp32 (batch, heads_kv) views, any non-negative strides, device
  // memory; the inputs hold x / descale, so the kernel computes with q·q_descale etc.
  // (q_descale is per KV head, as FlashAttention-3's). Values must be positive and
  // finite (read on the device, not checked). Left empty: 1. Only with e4m3 inputs.
  TensorView q_descale, k_descale, v_descale;
};

// Can this run? Checks every argument and the device without launching anything.
Status check(const AttentionArgs& args);

// Run on `stream` (graph-capturable; no synchronisation; the only allocations are, with
// num_splits != 1, the cached workspace's first growth (AttentionArgs::workspace), and for
// a dense causal call in L2 sections without tile_counter, an 8-byte counter once per
// stream; neither while the stream is being captured).
// Refusals are check()'s; nothing is launched or written when refused.
Status attention_forward(const AttentionArgs& args, cudaStream_t stream = nullptr);

// The split-KV workspace bytes the call would use (0 without splitting): checks the
// arguments as check() does, except the workspace's own size.
Status attention_workspace_size(const AttentionArgs& args, size_t* bytes);

// FlashAttention-3's flash_attn_combine: merge split partials,
//   lse = log Σ_s exp(lse_partial[s]),  out = Σ_s exp(lse_partial[s] − lse) · out_partial[s].
// A split whose lse is −inf saw no key: it adds nothing (its out_partial is not read);
// every split −inf gives out = 0 and lse = −inf; a NaN lse gives NaN (out and lse).
// Splits are summed in order with fixed reductions: deterministic.
struct CombineArgs {
  // Split s of out_partial is out_partial.data + s * out_partial_split_stride (elements):
  // each a (batch, seqlen, heads, head_dim) fp32 view, last dim contiguous, other strides
  // multiples of 4, data 16-byte aligned; head_dim a multiple of 4.
  TensorView out_partial;
  int64_t num_splits = 0;  // 1 to 128
  int64_t out_partial_split_stride = 0;
  // (batch, seqlen, heads) fp32 per split, lse_partial_split_stride elements apart.
  TensorView lse_partial;
  int64_t lse_partial_split_stride = 0;
  // (batch, seqlen, heads, head_dim) bf16, fp16 or fp32; last dim contiguous, other
  // strides multiples of 4, data 16-byte aligned. Must not overlap the partials.
  TensorView out;
  // Optional (batch, heads, seqlen) fp32, any strides: the merged natural-log LSE.
  TensorView lse;
};
Status attention_combine(const CombineArgs& args, cudaStream_t stream = nullptr);

// The append half of flash_attn_with_kvcache: write k_new / v_new into the cache in place
// at each sequence's cache_seqlens, with rotary embeddings on the new keys and on q.
// Run it before attention_forward over the cache with seqused_k = cache_seqlens +
// seqlen_new. Everything per step (lengths, indices, pages) is read on the device.
struct KvAppendArgs {
  // The cache as AttentionArgs::k / v take it: dense (batch_cache, seqlen_cache,
  // heads_kv, head_dim), or paged (num_pages, page_size, heads_kv, head_dim) with
  // page_table. bf16 or fp16, last dim contiguous.
  TensorView k_cache, v_cache;
  // (batch, seqlen_new, heads_kv, head_dim), the cache's dtype, last dim contiguous.
  TensorView k_new, v_new;
  // int32 (batch,): rows already in each sequence (from row 0, a left pad included).
  // Token t goes to row cache_seqlens[b] + t; rows outside the cache are dropped.
  TensorView cache_seqlens;
  // As AttentionArgs: int32 (batch,) vectors, page_table (batch, max_pages).
  // cache_leftpad is checked as attention's but moves nothing here: rows and rotary
  // positions count from row 0, the pad included (as FlashAttention-3).
  TensorView cache_batch_idx, cache_leftpad, page_table;
  // Rotary (optional): cos and sin (seqlen_ro, rotary_dim / 2), the cache's dtype, last
  // dim contiguous; rotary_dim even and <= head_dim; seqlen_ro at least the rows a
  // sequence's cache holds (seqlen_cache, or max_pages * page_size). New key t is
  // rotated at position cache_seqlens[b] + t, its cache row (FlashAttention-3's
  // convention: a left pad shifts positions too).
  TensorView rotary_cos, rotary_sin;
  bool rotary_interleaved = true;  // pairs (2i, 2i+1); false: (i, i + rotary_dim / 2)
  // Optional, with rotary: q (batch, seqlen_q, heads_q, head_dim) rotated into q_out
  // (the same shape; may be q itself), at the new keys' positions when q_per_token
  // (causal or local attention), else all at the first new position.
  TensorView q, q_out;
  bool q_per_token = false;
};
Status kvcache_append(const KvAppendArgs& args, cudaStream_t stream = nullptr);

}  // namespace warpspec
