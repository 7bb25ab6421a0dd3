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
  //     FlashAttention's): rows past it are not computed. Must be >= 0.
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
  // dense batches (their tiles cost what the static schedule expects).
  TensorView tile_counter;
  // Programmatic dependent launch (as GemmArgs::pdl): may start during the previous
  // kernel's tail, waits for it before touching global memory. Off by default.
  bool pdl = false;
};

// Can this run? Checks every argument and the device without launching anything.
Status check(const AttentionArgs& args);

// Run on `stream` (graph-capturable; no allocation, no workspace, no synchronisation).
// Refusals are check()'s; nothing is launched or written when refused.
Status attention_forward(const AttentionArgs& args, cudaStream_t stream = nullptr);

}  // namespace warpspec
