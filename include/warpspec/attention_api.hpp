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
  // v, and may be q only as the very same view (in place); lse overlaps none of them.
  TensorView q, k, v, o;
  // Optional: (batch, heads_q, seqlen_q) fp32, any non-negative strides. Natural-log
  // units: lse = log Σ_j exp(scale · q·k_j) over the visible keys; −inf for a row that
  // sees no key; NaN (with a NaN O row) when a visible score is NaN. Left empty (data == nullptr), it is not computed.
  TensorView lse;
  // Default 1/sqrt(head_dim). Must be positive and finite, and at most FLT_MAX / log2(e)
  // (the kernel scales by softmax_scale·log2(e) in fp32).
  std::optional<float> softmax_scale;
  // Causal mask aligned to the bottom-right corner (FlashAttention-2/3): query i sees
  // key j iff j <= i + seqlen_k - seqlen_q. A row that sees no key gets O = 0 and
  // LSE = −inf.
  bool causal = false;
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
