#pragma once
// GEMM: D = act(alpha · s_a · s_b · (A·B) + bias + beta · C), batched. Part of the public
// API (warpspec.hpp).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "warpspec/status.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec {

// Order in which the persistent grid walks output tiles.
enum class GemmRaster : int { kHeuristic = 0, kAlongM = 1, kAlongN = 2 };

// How the K loop is shared between CTAs.
//   kDataParallel: one CTA computes a whole output tile (all of K).
//   kSplitK: each tile's K loop is cut into `splits` ranges computed by different CTAs.
//   kStreamK: the persistent grid shares the k-iterations of the last partial wave of
//     tiles (plus one full wave) evenly; the other tiles run data-parallel.
//   kHeuristic: a cost model picks one (split-K when there are fewer tiles than SMs and
//     K is long, stream-K for a ragged last wave, else data-parallel).
// Partial tiles are summed in fp32 through a workspace (see gemm_workspace_size) in a
// fixed order: every decomposition is deterministic, bitwise identical from run to run
// (results differ from data-parallel's in the last bits: the sums are grouped
// differently). K = 0 always runs data-parallel.
enum class GemmDecomposition : int { kHeuristic = 0, kDataParallel = 1, kSplitK = 2, kStreamK = 3 };

// How a CTA's two consumer warpgroups share its work.
//   kCooperative: both multiply one tile (128 rows, 64 each), then both write it; the
//     tensor cores idle during the epilogue.
//   kPingPong: each multiplies a 128 x 128 tile of its own, the CTA's tiles taken in
//     turns, so one warpgroup's epilogue (bias, activation, the store) runs while the
//     other multiplies. Built for bf16 or fp16 A row-major and B column-major (K
//     contiguous in both: x @ w.t()), D of their dtype either way round, with or without
//     scales, bias, activation and beta·C; and for e4m3 A and B with D bf16 and fast
//     accumulation (use_fast_accum, tensor- or row-wise scales: promotion's second
//     fragment does not fit beside a whole tile's accumulators); and for bf16 or fp16
//     without scales, bias or activation with one of A and B MN-major (A and B row-major:
//     a @ b; or both column-major; a column-major D swaps them); data-parallel, no
//     cluster, tile_n 0 or 128 (or 160 for bf16 x @ w.t(), D bf16, no epilogue operands
//     but beta·C). Anything else asked with kPingPong is refused by name.
//   kHeuristic: ping-pong where it is built for the call (tile_n 0, or 128 without scales,
//     bias and activation; decomposition kHeuristic or kDataParallel; no cluster asked
//     for) and there are at least two 128 x 128 tiles per SM (FP8: 1.8; 16-bit without a
//     fused epilogue and with K > 1024, below three a SM only where they spread within
//     10% of evenly over the SMs); cooperative otherwise. Where tile_n is 0 and the
//     128- and 256-wide tiles leave a ragged last wave, the 128 x 224 cooperative or
//     128 x 160 ping-pong tile instead, where built for the call (bf16 x @ w.t()) and the
//     model prices it 10% under the other choice (src/gemm/tile_choice.cpp).
//     Measured on the H200 against the cooperative kernel in one interleaving: bias +
//     GELU(tanh) 4-13% faster, beta·C 2-17%, plain GEMMs -1% (8192^3) to +11% (8192 x 8192
//     x 1024); FP8 with fast accumulation 4-16% (bench/NOTES.md v53, v55, v62).
// Ping-pong gives the same bits as the cooperative kernel run data-parallel (one tile's sums
// are grouped the same way); the cooperative heuristic's split-K and stream-K group them
// otherwise (see GemmDecomposition), so a call that moves between them changes in the last bits.
enum class GemmSchedule : int { kHeuristic = 0, kCooperative = 1, kPingPong = 2 };

// The activation applied last in the epilogue (GemmArgs::activation).
//   kReLU      max(x, 0) (NaN stays NaN, as torch.relu)
//   kGeluTanh  0.5·x·(1 + tanh(sqrt(2/pi)·(x + 0.044715·x^3)))  (torch gelu, approximate="tanh")
//   kGeluErf   0.5·x·(1 + erf(x / sqrt(2)))                      (torch gelu, approximate="none")
//   kSiLU      x · sigmoid(x)
enum class GemmActivation : int { kNone = 0, kReLU = 1, kGeluTanh = 2, kGeluErf = 3, kSiLU = 4 };

// How GemmArgs::scale_a / scale_b are read (the values of warpspec_gemm_scaling).
enum class GemmScaling : int { kTensorOrRow = 0, kBlock = 1 };

struct GemmArgs {
  // A: (M, K) or (L, M, K). B: (K, N) or (L, K, N). C, D: (M, N) or (L, M, N).
  // Each matrix is row- or column-major (a unit stride in one of its last two dims)
  // with a leading dimension whose byte size is a multiple of 16; data 16-byte
  // aligned. The batch L is D's; an operand of rank 2, or with batch stride 0,
  // broadcasts across it. A and B: bf16 or fp16, the same; D: A's dtype or fp32. Or
  // FP8: A and B e4m3, or one of them e5m2 and the other e4m3 (e5m2 x e5m2 is not built:
  // refused, as by torch._scaled_mm; the 128 x 256 tile is e4m3 x e4m3 only), A row-major (M x K with K contiguous) and B
  // column-major (K contiguous), as wgmma reads 8-bit operands only K-major and as
  // torch._scaled_mm requires (other layouts are refused, not transposed); D bf16, fp16
  // or fp32, or e4m3 for e4m3 x e4m3 (scale_result and amax, below); fp32 accumulation with
  // promotion (use_fast_accum). C:
  // D's dtype and D's majorness. With beta == 0, C is never read and may be left empty.
  // Memory: device memory of the current device (or managed). D must not overlap A or
  // B; C may be exactly D (the same view: in place), and must not otherwise overlap it.
  // Extents may be 0: M, N or L = 0 computes nothing (every rule is still checked);
  // K = 0 gives D = beta·C (zeros when beta == 0), as torch.addmm does. Pointers of
  // empty views are not read.
  TensorView a, b, c, d;
  float alpha = 1.0f;
  float beta = 0.0f;
  GemmRaster raster = GemmRaster::kHeuristic;
  int swizzle = 0;  // L2 grouping of tiles: 1, 2, 4, 8 or 16; 0 picks one (8 at most)
  // CTA tile width: 64, 128 or 256, or a narrow 16 or 32 (D computed as Dᵀ); 0 picks one.
  // 224 (cooperative) and 160 (with schedule kPingPong) fill the waves where 128 and 256
  // leave a ragged last one: built for bf16 x @ w.t() with D bf16 and no epilogue
  // operands but beta·C; the heuristic takes them there (bench/NOTES.md stop 63).
  int tile_n = 0;
  // Programmatic dependent launch: the kernel may start while the previous kernel in
  // the stream is finishing (its set-up overlaps that kernel's tail) and waits for it
  // before reading or writing global memory, so results are the same. Off by default.
  bool pdl = false;
  // Work decomposition of the K loop (above). `splits`: split-K's ranges per tile,
  // 1..256, or 0 for the heuristic's choice; must be 0 unless decomposition is kSplitK.
  // More splits than K has 64-element steps is allowed (the extra ranges are empty).
  GemmDecomposition decomposition = GemmDecomposition::kHeuristic;
  int splits = 0;
  // Fixup workspace for split-K / stream-K: device memory of the current device,
  // 16-byte aligned, at least gemm_workspace_size() bytes, ZEROED ONCE before its first
  // use (e.g. cudaMemset); every call that completes leaves it zeroed again, so it can be
  // reused without a memset. One workspace must not serve two GEMMs that may run at the
  // same time (other streams); a call that was aborted (a kernel fault) leaves it
  // undefined: zero it again.
  // Null: the library uses its own, one per device and stream, grown (stream-ordered
  // cudaMallocAsync + cudaMemsetAsync) when a call needs more, and then reused with no
  // allocation per call; buffers are kept until the process exits (a captured graph may
  // still refer to them). CUDA graph capture: a call being captured cannot allocate. It
  // reuses the stream's cached workspace if that is large enough. Otherwise: with
  // kHeuristic the call runs data-parallel (no workspace; the bits then differ from an
  // uncaptured split run's in the last place); with an explicit kSplitK / kStreamK it is
  // refused (kUnsupported, nothing captured) with a message saying so: run the same GEMM
  // once on the capturing stream before capturing, or pass a workspace. (PyTorch captures
  // on its own stream, not the warm-up one: pass a workspace there.)
  void* workspace = nullptr;
  size_t workspace_bytes = 0;

  // ---- epilogue: D = act(alpha · s_a · s_b · (A·B) + bias + beta · C) ----
  // Any of them runs a fused-epilogue kernel. On bf16/fp16 inputs those are built for
  // one layout, a linear layer's: A row-major, B column-major (w.t() of a row-major w),
  // D of the input dtype, tile_n 0 or 256; other requests are refused by name.
  // Scales (torch._scaled_mm's scale_a / scale_b): fp32 device tensors, read by the
  // kernel (so a captured graph uses their values at replay). Empty: 1.
  //   tensor-wise: one element (any rank <= 2, every extent 1);
  //   row-wise:    scale_a (M, 1) or (M,): one per row of A; scale_b (1, N) or (N,): one
  //                per column of B; the vector's dimension contiguous (stride 1).
  // The same scales serve every batch entry. NaN and Inf propagate (0 · Inf = NaN).
  TensorView scale_a, scale_b;
  // Bias: empty, or a contiguous 1-D tensor of D's dtype or fp32 with N elements (one
  // per column of D) or, with bias_per_row, M elements (one per row); element-aligned.
  // The same bias serves every batch entry.
  TensorView bias;
  bool bias_per_row = false;
  GemmActivation activation = GemmActivation::kNone;
  // FP8 only: add the tensor-core accumulator into the fp32 one only at the end of each
  // K range instead of every 128 K (faster, less accurate over long K; torch's flag).
  bool use_fast_accum = false;
  // How scale_a and scale_b are read. kBlock (FP8 only): DeepSeek-V3's and DeepGEMM's block
  // scaling, both scales given: scale_a (M, ceil(K/128)), one per row of A and 128 K (1 x
  // 128 blocks); scale_b (ceil(K/128), ceil(N/128)), one per 128 x 128 block of B (for a
  // weight w (N, K) with B = w.t(), its (N/128, K/128) scales transposed); fp32, any
  // strides, 4-byte aligned; scale_a is read fastest M-major (stride (1, M), DeepGEMM's
  // layout; row-major costs ~3.5% on the H200). Each 128-K partial product is scaled as it is promoted into
  // the fp32 accumulator, so use_fast_accum is refused; D row-major and no batch (L = 1).
  GemmScaling scaling = GemmScaling::kTensorOrRow;

  // ---- FP8 output: D e4m3 (torch._scaled_mm's out_dtype float8_e4m3fn, cuBLASLt's D scale
  // and amax) ----
  // D = e4m3(scale_result · x) with x = act(alpha · s_a · s_b · (A·B) + bias), rounded to
  // nearest and saturated to ±448 (NaN stays NaN). Built for e4m3 A and B (K-major, as every
  // FP8 GEMM), any scaling, with or without fast accumulation, the cooperative schedule,
  // tile_n 0 or 128, no cluster; beta must be 0 (C would need a scale of its own); the bias,
  // if any, bf16, fp16 or fp32. Other requests with an e4m3 D are refused by name; an e5m2 D
  // is not built.
  // scale_result: fp32, one element (any rank <= 2, every extent 1), device memory, read
  //   by the kernel (a captured graph uses its value at replay); empty: 1.
  // amax: fp32, one element, device memory: set to max |x| over D's elements, before
  //   scale_result (what delayed scaling derives the next scale from; NaN if any x is NaN).
  //   The call zeroes it on the stream before the kernel and the kernel raises it with
  //   atomicMax. It must not overlap any other argument. Empty: not computed.
  // Both only with an e4m3 D.
  TensorView scale_result;
  TensorView amax;

  // ---- thread-block clusters (tuning and tests) ----
  // CTAs per cluster along M and N of D as the caller sees it: 0 x 0 lets the library
  // choose; 1 x 1 none; 2 x 1 two CTAs on neighbouring row tiles load one B tile between
  // them (TMA multicast); 1 x 2 two on neighbouring column tiles share an A tile. Results
  // are the same bits whatever the cluster. Clusters are built for one kernel: bf16 A
  // row-major and B column-major (both K contiguous), D bf16, the 128 x 256 tile (tile_n 0
  // or 256), no scales, bias or activation, M > 64 (N > 64 for a column-major D), and
  // data-parallel (decomposition kHeuristic or kDataParallel); anything else with a
  // cluster is refused by name. The choice (0 x 0) is no cluster: on the H200 the pairs
  // measured level with one CTA (bench/NOTES.md v13).
  int cluster_m = 0;
  int cluster_n = 0;

  // ---- the consumer warpgroups' schedule (above) ----
  GemmSchedule schedule = GemmSchedule::kHeuristic;
};

// Can this run? Checks every argument and the device without launching anything.
Status check(const GemmArgs& args);

// The workspace bytes the call would need (0 for data-parallel): checks the arguments
// as check() does (except the workspace's own size) and sets *bytes. The figure depends on the
// problem, the decomposition and the device (its SM count).
Status gemm_workspace_size(const GemmArgs& args, size_t* bytes);

// Run on `stream` (graph-capturable; no allocation, no synchronisation). Refusals are
// the same as gemm_check's and nothing is launched or written when refused.
Status gemm(const GemmArgs& args, cudaStream_t stream = nullptr);

}  // namespace warpspec
