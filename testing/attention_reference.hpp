#pragma once
// Plain float32 GPU reference for attention forward (the oracle of the attention GPU
// tests and of `warpspec attention --check`), built into the warpspec_testbed library
// (attention_reference.cu). Checked against a float64 CPU loop by the GPU tests
// (AttentionReference.MatchesFloat64Cpu).
//
// One CTA per query row (batch, head, i): scores of the row into shared memory, block
// max and sum, then one thread per output column. Two flavours:
//   plain_lowp = false: everything in fp32 from the (bf16/fp16) inputs: the oracle.
//   plain_lowp = true:  the same computation done plainly in the input precision, as
//     an unfused framework would (FlashAttention-3's test rule): q·scale rounded to T,
//     scores rounded to T, probabilities rounded to T, O rounded to T (fp32
//     accumulation inside each product). Its error against the oracle is the yardstick.
// The masks are bottom-right aligned (FlashAttention's): key j is visible to query i
// iff j < sk and i + sk - sq - window_left <= j <= i + sk - sq + window_right, an edge
// of -1 unbounded, causal making window_right 0. softcap > 0 caps each scaled score,
// softcap·tanh(s / softcap). A sink (per query head, natural-log units) joins the
// denominator with no value; LSE includes it. chunk > 0 also limits query i to the keys
// of its chunk, [c, c + chunk), c = floor((i + sk - sq) / chunk) · chunk. A row with no
// visible key (and no sink)
// gives O = 0, LSE = -inf.
#include <cuda_runtime.h>

#include <cstdint>

#include "warpspec/tensor.hpp"

namespace warpspec::testbed {

struct RefTensor {
  const void* data = nullptr;
  int64_t sb = 0, ss = 0, sh = 0;  // element strides of batch, seqlen, head; head_dim contiguous
};

struct RefProblem {
  int b = 1, sq = 1, sk = 1, hq = 1, hkv = 1, d = 64;
  bool causal = false;
  float scale = 0.125f;
  DType dtype = DType::kBF16;
  int window_left = -1, window_right = -1;
  float softcap = 0.0f;
  const float* sink = nullptr;  // device (hq,) or nullptr
  int chunk = 0;                // > 0: also only keys of the query's chunk (FA3's attention_chunk)
};

// out: (b, sq, hq, d) fp32 contiguous; lse: (b, hq, sq) fp32 contiguous (or nullptr).
// Needs sk <= ~56k (the row's scores live in shared memory).
cudaError_t attention_reference(const RefProblem& p, RefTensor q, RefTensor k, RefTensor v, float* out, float* lse,
                                bool plain_lowp, cudaStream_t stream = nullptr);

}  // namespace warpspec::testbed
