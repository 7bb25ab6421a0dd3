// GEMM host side: argument validation, layout normalisation, tensor maps, tile and
// schedule choice, dispatch. Nothing is launched or written unless every check passes.
#include <cuda_runtime_api.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string>
#include <utility>

#include "../common/config_log.hpp"
#include "../common/device_props.hpp"
#include "../common/entry.hpp"
#include "../common/format.hpp"
#include "../common/views.hpp"
#include "../common/workspace.hpp"
#include "decomposition.hpp"
#include "describe.hpp"
#include "epilogue_args.hpp"
#include "instances.hpp"
#include "launch.hpp"
#include "tile_choice.hpp"
#include "warpspec/describe.hpp"
#include "warpspec/device.hpp"
#include "warpspec/gemm/config.hpp"
#include "warpspec/gemm/fixup_layout.hpp"
#include "warpspec/gemm_api.hpp"
#include "warpspec/hopper/tma_map.hpp"
#include "warpspec/schedule/persistent.hpp"
#include "warpspec/schedule/stream_k.hpp"

namespace warpspec {
namespace {

using gemm_impl::GemmParams;
using gemm_impl::GemmConfig;

// One operand after normalisation: a batch of rows x cols matrices, contiguous along
// columns (row-major) or rows, `ld` elements between the other dimension's indices.
struct Mat {
  void* data = nullptr;
  DType dtype = DType::kBF16;
  int64_t batch = 1;         // 1: one matrix (broadcast when the problem's L > 1)
  int64_t batch_stride = 0;  // elements
  int64_t rows = 0, cols = 0;
  bool row_major = true;
  int64_t ld = 0;
  bool empty() const { return batch == 0 || rows == 0 || cols == 0; }
};

constexpr int64_t kMaxExtent = INT32_MAX;  // TMA coordinates are signed 32-bit

int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// Split-K and stream-K write partials and flags to `bytes` of the workspace while the kernel
// reads and writes the views: they share no memory (C only where beta reads it).
Status workspace_shares_nothing(const GemmArgs& args, size_t bytes) {
  const TensorView unread{};
  const TensorView* views[] = {&args.a,       &args.b,       &(args.beta != 0.0f ? args.c : unread), &args.d,
                               &args.scale_a, &args.scale_b, &args.bias, &args.amax, &args.scale_result};
  const char* names[] = {"a", "b", "c", "d", "scale_a", "scale_b", "bias", "amax", "scale_result"};
  static_assert(std::size(views) == std::size(names));
  return check_workspace_disjoint(args.workspace, bytes, views, names, int(std::size(views)));
}

// Shape/stride/alignment checks and normalisation of one matrix operand. `L` is the
// problem's batch (D's), or -1 while reading D itself. `prefer_row_major` breaks the
// tie for matrices with a unit dimension, where both readings are valid.
Status read_matrix(const TensorView& v, const char* name, int64_t L, bool prefer_row_major, Mat* out) {
  // A default (absent) view: say what is missing rather than that its rank is 0.
  if (v.data == nullptr && v.rank == 0) return invalid_argument(fmt("%s.data: must not be null", name));
  if (v.rank != 2 && v.rank != 3)
    return invalid_argument(fmt("%s.rank: must be 2 (rows, cols) or 3 (batch, rows, cols), got %d", name, v.rank));
  if (!dtype_valid(v.dtype)) return invalid_argument(fmt("%s.dtype: unknown dtype %d", name, int(v.dtype)));
  const int64_t e = int64_t(dtype_size(v.dtype));
  const int r = v.rank - 2, c = v.rank - 1;  // indices of the matrix dims
  bool empty = false;
  for (int i = 0; i < v.rank; ++i) {
    if (v.shape[i] < 0) return invalid_argument(fmt("%s.shape[%d]: must be >= 0, got %" PRId64, name, i, v.shape[i]));
    if (v.stride[i] < 0)
      return invalid_argument(fmt("%s.stride[%d]: negative strides are not supported, got %" PRId64, name, i, v.stride[i]));
    // TMA strides are below 2^40 bytes; checking first keeps stride * e from overflowing.
    if (v.shape[i] > 1 && v.stride[i] >= (int64_t(1) << 40) / e)
      return invalid_argument(fmt("%s.stride[%d]: %" PRId64 " elements is 2^40 bytes or more (TMA's limit)", name, i,
                                  v.stride[i]));
    empty = empty || v.shape[i] == 0;
  }
  for (int i = r; i <= c; ++i)
    if (v.shape[i] > kMaxExtent)
      return invalid_argument(fmt("%s.shape[%d]: at most 2^31-1 (TMA coordinates), got %" PRId64, name, i, v.shape[i]));
  Mat m;
  m.data = v.data;
  m.dtype = v.dtype;
  m.rows = v.shape[r];
  m.cols = v.shape[c];
  if (!empty) {
    if (v.data == nullptr) return invalid_argument(fmt("%s.data: must not be null", name));
    if (reinterpret_cast<uintptr_t>(v.data) % 16 != 0)
      return misaligned(fmt("%s.data: must be 16-byte aligned for TMA (got %p)", name, v.data));
  }
  if (v.rank == 3) {
    const int64_t b = v.shape[0];
    if (L < 0) {  // D defines L
      m.batch = b;
      m.batch_stride = v.stride[0];
      if (b > 1 && m.batch_stride == 0 && !empty)
        return invalid_argument(fmt("%s.stride[0]: the output cannot broadcast over the batch (stride 0 with batch %" PRId64 ")", name, b));
    } else if (b == L && v.stride[0] != 0) {
      m.batch = b;
      m.batch_stride = v.stride[0];
    } else if (b != 1 && b != L) {
      return invalid_argument(fmt("%s.shape[0]: batch must be 1 or the output's %" PRId64 ", got %" PRId64, name, L, b));
    }
    // An empty view (K = 0's A and B, an empty D) addresses nothing: its batch stride is
    // whatever its maker computed (torch: 5 for a (3, 5, 0) tensor) and is never used.
    if (m.batch > 1 && !empty && (m.batch_stride * e) % 16 != 0)
      return misaligned(fmt("%s.stride[0]: the batch stride (%" PRId64 " elements = %" PRId64 " bytes) must be a multiple of 16 bytes", name, m.batch_stride, m.batch_stride * e));
    if (b == 0) m.batch = 0;  // an empty batch: nothing to read or write
  }
  if (empty) {  // no element is ever addressed: layout and pointer rules do not apply
    m.row_major = prefer_row_major;
    *out = m;
    return Status::Ok();
  }
  // Unit dimensions have no meaningful stride: either reading may be used.
  const int64_t sr = v.stride[r], sc = v.stride[c];
  const bool can_row = (sc == 1 || m.cols == 1);
  const bool can_col = (sr == 1 || m.rows == 1);
  const int64_t ld_row = m.rows == 1 ? round_up(m.cols, 16 / e) : sr;
  const int64_t ld_col = m.cols == 1 ? round_up(m.rows, 16 / e) : sc;
  const bool ok_row = can_row && ld_row >= 1 && (ld_row * e) % 16 == 0;
  const bool ok_col = can_col && ld_col >= 1 && (ld_col * e) % 16 == 0;
  if (!can_row && !can_col)
    return invalid_argument(fmt("%s.stride: one of the last two dimensions must be contiguous (stride 1); got strides (%" PRId64 ", %" PRId64 ")", name, sr, sc));
  if (!ok_row && !ok_col) {
    const int64_t ld = can_row ? ld_row : ld_col;
    const int dim = can_row ? r : c;
    if (ld == 0)
      return invalid_argument(fmt("%s.stride[%d]: 0 (broadcast rows/columns) is not supported; pass a materialised matrix", name, dim));
    return misaligned(fmt("%s.stride[%d]: the leading dimension (%" PRId64 " elements = %" PRId64 " bytes) must be a multiple of 16 bytes for TMA", name, dim, ld, ld * e));
  }
  m.row_major = ok_row && (prefer_row_major || !ok_col);
  m.ld = m.row_major ? ld_row : ld_col;
  *out = m;
  return Status::Ok();
}

// Everything the launch needs, derived from validated arguments.
struct Plan {
  GemmConfig config;  // the kernel: one of gemm_impl::kGemmInstances
  int64_t m = 0, n = 0, k = 0, l = 1;  // the kernel's problem (after a possible swap)
  Mat a, b, c, d;                       // the kernel's operands: a is M x K, b is K x N
  bool swapped = false;
  int narrow = 0;  // a narrow tile's width (gemm_impl::kNarrowTileConfigs), or 0
  // The caller's cluster in the kernel's orientation (a swap exchanges M and N), or
  // 0 x 0 for the library's choice (prepare()).
  gemm_impl::ClusterShape cluster_request{0, 0};
  float alpha = 1, beta = 0;
  gemm_impl::EpilogueOpParams epilogue;  // scales, bias, activation (kernel orientation)
  gemm_impl::BlockScaleParams block_scale;  // GemmScaling::kBlock (FP8); a null otherwise
  int device = 0;
  size_t workspace_bytes = 0;  // the fixup workspace the launch needs (0: none)
};

// A cluster the caller asked for (p.cluster_request, kernel orientation): refused by
// name unless the kernel it needs is built (src/gemm/instances.hpp) and the call fits
// the pair schedule. `a` and `b` are the caller's operands (for the message).
Status check_cluster_request(const GemmArgs& args, const Plan& p, const Mat& a, const Mat& b) {
  if (p.cluster_request.size() == 1) return Status::Ok();
  const gemm_impl::GemmConfig& base = gemm_impl::kClusterBase;
  gemm_impl::GemmConfig want = p.config;
  want.tile = base.tile;
  want.cluster = p.cluster_request;
  const char* what = args.cluster_m == 2 ? "2 x 1" : "1 x 2";
  if (!gemm_impl::is_built(want))
    return unsupported(fmt("cluster_m, cluster_n: %s clusters are built for one kernel: %s A and B with K contiguous "
                           "(A row-major, B column-major), D %s, no scales, bias or activation; this call has %s A "
                           "(%s-major), %s B (%s-major), D %s%s",
                           what, dtype_name(base.in), dtype_name(base.out), dtype_name(a.dtype),
                           a.row_major ? "row" : "column", dtype_name(b.dtype), b.row_major ? "row" : "column",
                           dtype_name(p.d.dtype), p.config.epilogue == gemm_impl::EpilogueKind::kFused ? " and a fused epilogue" : ""));
  if (args.tile_n != 0 && args.tile_n != base.tile.block_n)
    return unsupported(fmt("tile_n: %s clusters are built with tile width %d (or 0), got %d", what, base.tile.block_n,
                           args.tile_n));
  if (args.decomposition == GemmDecomposition::kSplitK || args.decomposition == GemmDecomposition::kStreamK)
    return unsupported(fmt("decomposition: split-K and stream-K run without clusters (a multicast pair runs its tiles' "
                           "k-loops in lock-step); with cluster %s use data-parallel or the heuristic", what));
  // The kernel loads 64 rows of A when M <= 64, which a shared A box of half the rows
  // cannot be; and a pair of M tiles there would be half padding.
  if (p.m <= 64)
    return unsupported(fmt("cluster_m, cluster_n: clusters need more than 64 rows in the kernel's M (%s = %" PRId64 ")",
                           p.swapped ? "N, as D is column-major" : "M", p.m));
  return Status::Ok();
}

// GemmSchedule::kPingPong asked for: refused by name unless its kernel is built for the
// call (src/gemm/instances.hpp) and the call fits the schedule (p: the plan so far, kernel
// orientation; `a` and `b` the caller's operands, for the message).
Status check_schedule_request(const GemmArgs& args, const Plan& p, const Mat& a, const Mat& b) {
  if (args.schedule != GemmSchedule::kPingPong) return Status::Ok();
  gemm_impl::GemmConfig want = p.config;
  want.tile = gemm_impl::pingpong_tile(p.config.in, args.tile_n);
  want.schedule = gemm_impl::KernelSchedule::kPingPong;
  if (!gemm_impl::is_built(want))
    return unsupported(fmt("schedule: ping-pong is built for bf16 or fp16 A and B with D of their dtype, and for e4m3 A "
                           "and B with D bf16 or fp16, K contiguous in both (A row-major, B column-major: x @ w.t()), and, "
                           "without scales, bias or activation, for bf16 or fp16 with one of A and B MN-major (A and B "
                           "row-major: a @ b; or A and B column-major; for a row-major D, a column-major one swaps A and B); "
                           "this call has %s A (%s-major), %s B (%s-major), D %s",
                           dtype_name(a.dtype), a.row_major ? "row" : "column", dtype_name(b.dtype),
                           b.row_major ? "row" : "column", dtype_name(p.d.dtype)));
  if (dtype_size(p.config.in) == 1 && (!args.use_fast_accum || args.scaling == GemmScaling::kBlock))
    return unsupported("schedule: the FP8 ping-pong kernel accumulates in the tensor cores only (use_fast_accum "
                       "true, tensor- or row-wise scales): a warpgroup's 128 x 128 tile leaves no registers for "
                       "promotion's second fragment; use the cooperative schedule or the heuristic");
  if (args.tile_n != 0 && args.tile_n != want.tile.block_n)
    return unsupported(fmt("tile_n: the ping-pong schedule is built with tile width %d (or 0), got %d",
                           want.tile.block_n, args.tile_n));
  if (args.decomposition == GemmDecomposition::kSplitK || args.decomposition == GemmDecomposition::kStreamK)
    return unsupported("decomposition: the ping-pong schedule runs data-parallel (each warpgroup a whole tile's K "
                       "loop); use data-parallel or the heuristic with it");
  if (p.cluster_request.size() > 1)
    return unsupported(fmt("cluster_m, cluster_n: the ping-pong schedule runs without clusters (0 x 0 or 1 x 1), got "
                           "%d x %d", args.cluster_m, args.cluster_n));
  return Status::Ok();
}

Status make_plan(const GemmArgs& args, Plan* plan) {
  Mat a, b, c, d;
  WARPSPEC_RETURN_IF_ERROR(read_matrix(args.d, "d", -1, true, &d));
  const int64_t L = d.batch;
  WARPSPEC_RETURN_IF_ERROR(read_matrix(args.a, "a", L, true, &a));
  const bool fp8 = a.dtype == DType::kE4M3 || a.dtype == DType::kE5M2;
  // Scales, bias or an activation: the fused-epilogue kernels (gemm/epilogue_ops.cuh),
  // built for K-major A and B only, as are all FP8 kernels.
  const bool fused = fp8 || gemm_impl::wants_fused_epilogue(args);
  // K-major B (column-major K x N) where both readings are valid, for the fused and FP8
  // kernels and the narrow tiles (tile_n 16 or 32), which are built for it.
  const bool narrow_asked = args.tile_n == 16 || args.tile_n == 32;
  const bool pingpong_asked = args.schedule == GemmSchedule::kPingPong;
  const bool wave_asked = args.tile_n == gemm_impl::kWaveTileConfig.block_n ||
                          args.tile_n == gemm_impl::kWavePingPongTileConfig.block_n;  // built for K-major B only
  WARPSPEC_RETURN_IF_ERROR(read_matrix(args.b, "b", L, !fused && !narrow_asked && !pingpong_asked && !wave_asked, &b));
  if (a.dtype != DType::kBF16 && a.dtype != DType::kFP16 && !fp8)
    return unsupported(fmt("a.dtype: %s is not supported; A and B must be bf16, fp16, e4m3 or e5m2", dtype_name(a.dtype)));
  // FP8: e4m3 x e4m3, or one operand e5m2 and the other e4m3 (wgmma's mixed formats,
  // what torch._scaled_mm takes); e5m2 x e5m2 is not built (torch refuses it too).
  const bool mixed = fp8 && (b.dtype == DType::kE4M3 || b.dtype == DType::kE5M2) && b.dtype != a.dtype;
  if (b.dtype != a.dtype && !mixed)
    return invalid_argument(fmt("b.dtype: must equal a.dtype (%s)%s, got %s", dtype_name(a.dtype),
                                fp8 ? " or be the other 8-bit format" : "", dtype_name(b.dtype)));
  if (fp8 && a.dtype == DType::kE5M2 && b.dtype == DType::kE5M2)
    return unsupported("a.dtype, b.dtype: e5m2 x e5m2 GEMMs are not built (as torch._scaled_mm); one operand must be e4m3");
  if (fp8) {
    if (d.dtype != DType::kBF16 && d.dtype != DType::kFP16 && d.dtype != DType::kFP32 && d.dtype != DType::kE4M3)
      return unsupported(fmt("d.dtype: with %s inputs D must be bf16, fp16, fp32 or e4m3, got %s", dtype_name(a.dtype), dtype_name(d.dtype)));
    // An e4m3 D (gemm/epilogue_quant.cuh): one kernel, e4m3 x e4m3, no beta·C.
    if (d.dtype == DType::kE4M3 && (a.dtype != DType::kE4M3 || b.dtype != DType::kE4M3))
      return unsupported(fmt("d.dtype: an e4m3 D is built for e4m3 A and B only, got %s x %s", dtype_name(a.dtype),
                             dtype_name(b.dtype)));
    if (d.dtype == DType::kE4M3 && args.beta != 0.0f)
      return unsupported(fmt("beta: an e4m3 D takes no beta·C (C would need a scale of its own); pass 0, got %g",
                             args.beta));
    // wgmma reads 8-bit operands only K-major (no transpose), the rule torch._scaled_mm
    // states as "mat2 must be column-major": refused rather than transposed behind the caller's back.
    if (!a.empty() && !a.row_major)
      return unsupported("a.stride: FP8 A must be row-major (M x K with K contiguous, stride (ld, 1)): wgmma reads 8-bit operands only K-major");
    if (!b.empty() && b.row_major)
      return unsupported("b.stride: FP8 B must be column-major (K x N with K contiguous, stride (1, ld)): wgmma reads 8-bit operands only K-major");
  } else if (d.dtype != a.dtype && d.dtype != DType::kFP32) {
    return unsupported(fmt("d.dtype: must be a.dtype (%s) or fp32, got %s", dtype_name(a.dtype), dtype_name(d.dtype)));
  }
  const int64_t M = a.rows, K = a.cols, N = b.cols;
  if (b.rows != K)
    return invalid_argument(fmt("b.shape: B must be K x N with K = a's columns = %" PRId64 ", got %" PRId64 " rows", K, b.rows));
  if (d.rows != M || d.cols != N)
    return invalid_argument(fmt("d.shape: D must be M x N = %" PRId64 " x %" PRId64 ", got %" PRId64 " x %" PRId64, M, N, d.rows, d.cols));
  // Rows (or columns) of D must not overlap: two tiles would write the same element.
  if (!d.empty() && d.ld < (d.row_major ? N : M))
    return invalid_argument(fmt("d.stride: the leading dimension %" PRId64 " is smaller than the %s %" PRId64 ": rows would overlap", d.ld, d.row_major ? "column count" : "row count", d.row_major ? N : M));
  if (!std::isfinite(args.alpha) || !std::isfinite(args.beta))
    return invalid_argument(fmt("alpha/beta: must be finite (got %g, %g)", args.alpha, args.beta));
  if (args.beta != 0.0f) {
    WARPSPEC_RETURN_IF_ERROR(read_matrix(args.c, "c", L, d.row_major, &c));
    if (c.dtype != d.dtype)
      return invalid_argument(fmt("c.dtype: must equal d.dtype (%s), got %s", dtype_name(d.dtype), dtype_name(c.dtype)));
    if (c.rows != M || c.cols != N)
      return invalid_argument(fmt("c.shape: C must be M x N = %" PRId64 " x %" PRId64 ", got %" PRId64 " x %" PRId64, M, N, c.rows, c.cols));
    if (!c.empty() && !d.empty() && c.row_major != d.row_major)
      return unsupported(fmt("c.stride: C must have D's layout (%s-major); mixed C/D layouts are not supported", d.row_major ? "row" : "column"));
  }
  // D shares no memory with A or B, and with C only as the very same view (in place,
  // element by element).
  WARPSPEC_RETURN_IF_ERROR(check_no_self_overlap(args.d, "d"));  // batches too: rows are checked above
  WARPSPEC_RETURN_IF_ERROR(check_disjoint(args.d, "d", args.a, "a", false));
  WARPSPEC_RETURN_IF_ERROR(check_disjoint(args.d, "d", args.b, "b", false));
  if (args.beta != 0.0f) WARPSPEC_RETURN_IF_ERROR(check_disjoint(args.d, "d", args.c, "c", true));
  if (args.raster != GemmRaster::kHeuristic && args.raster != GemmRaster::kAlongM && args.raster != GemmRaster::kAlongN)
    return invalid_argument(fmt("raster: unknown value %d", int(args.raster)));
  if (args.swizzle != 0 && !schedule::is_valid_swizzle(args.swizzle))
    return invalid_argument(fmt("swizzle: must be 0 (automatic), 1, 2, 4, 8 or 16, got %d", args.swizzle));

  if (args.decomposition != GemmDecomposition::kHeuristic && args.decomposition != GemmDecomposition::kDataParallel &&
      args.decomposition != GemmDecomposition::kSplitK && args.decomposition != GemmDecomposition::kStreamK)
    return invalid_argument(fmt("decomposition: unknown value %d (heuristic 0, data-parallel 1, split-K 2, stream-K 3)",
                                int(args.decomposition)));
  if (args.splits < 0 || args.splits > schedule::kMaxSplits)
    return invalid_argument(fmt("splits: must be 0 (automatic) or 1..%d, got %d", schedule::kMaxSplits, args.splits));
  if (args.schedule != GemmSchedule::kHeuristic && args.schedule != GemmSchedule::kCooperative &&
      args.schedule != GemmSchedule::kPingPong)
    return invalid_argument(fmt("schedule: unknown value %d (heuristic 0, cooperative 1, ping-pong 2)", int(args.schedule)));
  if (args.splits != 0 && args.decomposition != GemmDecomposition::kSplitK)
    return invalid_argument(fmt("splits: %d given, but splits apply only with decomposition kSplitK", args.splits));
  if (args.workspace == nullptr && args.workspace_bytes != 0)
    return invalid_argument(fmt("workspace: null with workspace_bytes %zu; pass both or neither", args.workspace_bytes));
  if (args.workspace != nullptr && reinterpret_cast<uintptr_t>(args.workspace) % 16 != 0)
    return misaligned(fmt("workspace: must be 16-byte aligned (got %p)", args.workspace));

  if (args.use_fast_accum && !fp8)
    return invalid_argument(fmt("use_fast_accum: applies to FP8 inputs only (a.dtype is %s)", dtype_name(a.dtype)));
  const bool block_scaled = args.scaling == GemmScaling::kBlock;
  if (args.scaling != GemmScaling::kTensorOrRow && !block_scaled)
    return invalid_argument(fmt("scaling: unknown value %d (tensor- or row-wise 0, block-wise 1)", int(args.scaling)));
  if (block_scaled) {
    if (!fp8)
      return unsupported(fmt("scaling: block scales are built for FP8 (e4m3, e5m2) inputs only; a.dtype is %s", dtype_name(a.dtype)));
    if (args.use_fast_accum)
      return invalid_argument("use_fast_accum: block scales multiply each 128-K partial product as it is promoted into "
                              "the fp32 accumulator, so fast accumulation (one promotion per K range) does not apply; "
                              "pass false");
    if (!d.empty() && !d.row_major)
      return unsupported("d.stride: block-scaled GEMMs write a row-major D (M x N with N contiguous)");
    if (L > 1) return unsupported(fmt("d.shape: block-scaled GEMMs are not batched (L = 1), got L = %" PRId64, L));
  }
  if (fp8 && args.tile_n != 0 && args.tile_n != gemm_impl::kFp8TileConfig.block_n &&
      !(args.tile_n == gemm_impl::kFp8WideTileConfig.block_n && dtype_size(d.dtype) == 2 && !mixed))
    return unsupported(fmt("tile_n: FP8 GEMMs are built with tile width %d (or 0), and %d for e4m3 x e4m3 with D bf16 or fp16; "
                           "got %d with %s x %s, D %s",
                           gemm_impl::kFp8TileConfig.block_n, gemm_impl::kFp8WideTileConfig.block_n, args.tile_n,
                           dtype_name(a.dtype), dtype_name(b.dtype), dtype_name(d.dtype)));
  if (args.tile_n != 0) {
    bool known = false;
    for (const auto& c : gemm_impl::kTileConfigs) known = known || c.block_n == args.tile_n;
    for (const auto& c : gemm_impl::kNarrowTileConfigs) known = known || c.block_n == args.tile_n;
    known = known || args.tile_n == gemm_impl::kWaveTileConfig.block_n ||
            args.tile_n == gemm_impl::kWavePingPongTileConfig.block_n;
    if (!known)
      return invalid_argument(
          fmt("tile_n: must be 0 (automatic), 16, 32, 64, 128, 160, 224 or 256, got %d", args.tile_n));
    // 160 is the ping-pong schedule's (asked for by name) on the same one call as 224.
    if (args.tile_n == gemm_impl::kWavePingPongTileConfig.block_n &&
        (a.dtype != DType::kBF16 || b.dtype != DType::kBF16 || d.dtype != DType::kBF16 || fused ||
         (!a.empty() && !a.row_major) || (!b.empty() && b.row_major) || args.schedule != GemmSchedule::kPingPong))
      return unsupported(fmt("tile_n: 160 is built for bf16 x @ w.t() with the ping-pong schedule only (A row-major, "
                             "B column-major: K contiguous in both; D bf16; the linear epilogue; schedule kPingPong); "
                             "got %s (%s) x %s (%s) -> %s",
                             dtype_name(a.dtype), a.row_major ? "row" : "column", dtype_name(b.dtype),
                             b.row_major ? "row" : "column", dtype_name(d.dtype)));
    // The 224-wide tile is built for one call (gemm/config.hpp kWaveTileConfig); a column-major
    // D swaps A and B, which keeps both K-contiguous.
    if (args.tile_n == gemm_impl::kWaveTileConfig.block_n &&
        (a.dtype != DType::kBF16 || b.dtype != DType::kBF16 || d.dtype != DType::kBF16 || fused ||
         (!a.empty() && !a.row_major) || (!b.empty() && b.row_major) || args.cluster_m > 1 || args.cluster_n > 1 ||
         args.schedule == GemmSchedule::kPingPong))
      return unsupported(fmt("tile_n: 224 is built for bf16 x @ w.t() only (A row-major, B column-major: K contiguous "
                             "in both; D bf16; the linear epilogue; no cluster; the cooperative schedule); got %s (%s) "
                             "x %s (%s) -> %s",
                             dtype_name(a.dtype), a.row_major ? "row" : "column", dtype_name(b.dtype),
                             b.row_major ? "row" : "column", dtype_name(d.dtype)));
  }
  const bool cluster_given = args.cluster_m != 0 || args.cluster_n != 0;
  // The narrow tiles (gemm/config.hpp): built for x @ w.t() with D of the input dtype and
  // the linear epilogue; the caller's M becomes the kernel's N. The library picks them for
  // M <= 32 where they are built (16 wide up to 16 rows, else 32).
  const bool narrow_fits = !fp8 && !fused && !cluster_given && d.dtype == a.dtype && (a.empty() || a.row_major) &&
                           (b.empty() || !b.row_major);
  if (narrow_asked && !narrow_fits)
    return unsupported(fmt("tile_n: the narrow tiles (16, 32) are built for row-major A and column-major B (K contiguous "
                           "in both: x @ w.t()), D of the input dtype, no scales, bias, activation or cluster; this call "
                           "has %s-major A, %s-major B, %s in, %s out%s%s",
                           a.row_major ? "row" : "column", b.row_major ? "row" : "column", dtype_name(a.dtype),
                           dtype_name(d.dtype), fused ? ", a fused epilogue" : "", cluster_given ? ", a cluster" : ""));
  const int narrow = narrow_asked ? args.tile_n
                     : args.tile_n == 0 && narrow_fits && !pingpong_asked && M <= 32 && K > 0 ? (M <= 16 ? 16 : 32)
                                                                            : 0;
  if (cluster_given) {
    if (args.cluster_m < 1 || args.cluster_m > 2 || args.cluster_n < 1 || args.cluster_n > 2)
      return invalid_argument(fmt("cluster_m, cluster_n: each must be 1 or 2, or both 0 (automatic), got %d x %d",
                                  args.cluster_m, args.cluster_n));
    if (args.cluster_m * args.cluster_n > 2)
      return unsupported("cluster_m, cluster_n: 2 x 2 clusters are not built; use 1 x 1, 2 x 1 or 1 x 2");
  }

  // The kernel writes D row-major. A column-major D is the row-major D^T = B^T A^T:
  // swap the operands; transposing a view only swaps which dimension is contiguous.
  // A narrow tile runs D^T = B^T A^T whatever D's layout (its epilogue writes either).
  Plan p;
  p.narrow = narrow;
  p.swapped = narrow != 0 || !d.row_major;
  auto transpose = [](Mat x) {
    std::swap(x.rows, x.cols);
    x.row_major = !x.row_major;
    return x;
  };
  if (p.swapped) {
    p.a = transpose(b);
    p.b = transpose(a);
    p.c = args.beta != 0.0f ? transpose(c) : c;
    p.d = transpose(d);
  } else {
    p.a = a, p.b = b, p.c = c, p.d = d;
  }
  p.m = p.a.rows, p.k = p.a.cols, p.n = p.b.cols, p.l = L;
  // Tiles are counted (and priced by the tile and K heuristics) in 64 bits: bounded here, at
  // the smallest tile (64 x 16), before any of that. Past it lie 2^41 outputs, 4 TB of D.
  if (__int128((p.m + 63) / 64) * ((p.n + 15) / 16) * L >= (__int128(1) << 31))
    return invalid_argument(fmt("d.shape: M x N x L = %" PRId64 " x %" PRId64 " x %" PRId64
                                " is more output tiles than one launch takes (2^31 of 64 x 16)",
                                M, N, L));
  p.alpha = args.alpha, p.beta = args.beta;
  WARPSPEC_RETURN_IF_ERROR(gemm_impl::read_epilogue_args(args, M, N, d.dtype, p.swapped, &p.epilogue));
  // Block scales before the overlap checks below, which take their spans (validated first).
  if (block_scaled) WARPSPEC_RETURN_IF_ERROR(gemm_impl::read_block_scales(args, M, N, K, &p.block_scale));
  // amax is written (atomically, by every tile) while the other arguments are read or written.
  if (!args.amax.empty()) {
    const std::pair<const TensorView*, const char*> others[] = {{&args.a, "a"}, {&args.b, "b"}, {&args.d, "d"},
                                                                {&args.scale_a, "scale_a"}, {&args.scale_b, "scale_b"},
                                                                {&args.bias, "bias"}, {&args.scale_result, "scale_result"}};
    for (const auto& [v, name] : others)
      if (!v->empty()) WARPSPEC_RETURN_IF_ERROR(check_disjoint(args.amax, "amax", *v, name, false));
  }
  // D is written while every tile's epilogue reads its scales and bias: they share no memory.
  {
    const std::pair<const TensorView*, const char*> read[] = {
        {&args.scale_a, "scale_a"}, {&args.scale_b, "scale_b"}, {&args.bias, "bias"}, {&args.scale_result, "scale_result"}};
    for (const auto& [v, name] : read)
      if (!v->empty()) WARPSPEC_RETURN_IF_ERROR(check_disjoint(args.d, "d", *v, name, false));
  }
  if (!workspace_wraps(args.workspace, args.workspace_bytes))  // else after planning, on the bytes the plan writes
    WARPSPEC_RETURN_IF_ERROR(workspace_shares_nothing(args, args.workspace_bytes));
  if (fused && !fp8) {  // after the epilogue arguments' own checks: a malformed one is named first
    // One fused kernel per 16-bit dtype: a linear layer's layout (x @ w.t()). Either
    // orientation of D works (a column-major D swaps A and B, which stay K-major).
    if (d.dtype != a.dtype)
      return unsupported(fmt("d.dtype: scales, bias and activation on %s GEMMs are built for D of the input dtype, got %s", dtype_name(a.dtype), dtype_name(d.dtype)));
    if (!a.empty() && !a.row_major)
      return unsupported(fmt("a.stride: scales, bias and activation on %s GEMMs are built for row-major A (M x K with K contiguous) only", dtype_name(a.dtype)));
    if (!b.empty() && b.row_major)
      return unsupported(fmt("b.stride: scales, bias and activation on %s GEMMs are built for column-major B (K x N with K contiguous, as w.t() of a row-major w) only", dtype_name(a.dtype)));
    if (args.tile_n != 0 && args.tile_n != gemm_impl::kFusedTileConfig.block_n && !pingpong_asked)
      return unsupported(fmt("tile_n: scales, bias and activation on 16-bit GEMMs are built with one tile width, %d (or 0; %d with schedule kPingPong), got %d", gemm_impl::kFusedTileConfig.block_n, gemm_impl::kPingPongTileConfig.block_n, args.tile_n));
  }
  p.config.in = p.a.dtype;  // the kernel's A: the caller's B when swapped
  p.config.b_other_fp8 = mixed;
  p.config.out = d.dtype;
  p.config.a_k_major = p.a.row_major;   // A (M x K) row-major: K contiguous
  p.config.b_k_major = !p.b.row_major;  // B (K x N) column-major: K contiguous
  p.config.epilogue = fused ? gemm_impl::EpilogueKind::kFused : gemm_impl::EpilogueKind::kLinear;
  if (cluster_given) {
    p.cluster_request = p.swapped ? gemm_impl::ClusterShape{args.cluster_n, args.cluster_m}
                                  : gemm_impl::ClusterShape{args.cluster_m, args.cluster_n};
    WARPSPEC_RETURN_IF_ERROR(check_cluster_request(args, p, a, b));
  }
  WARPSPEC_RETURN_IF_ERROR(check_schedule_request(args, p, a, b));
  *plan = p;
  return Status::Ok();
}

// The batch stride of a matrix's map in bytes. One batch is never stepped over: a dense
// stride (past the matrix), or the row stride where that would pass TMA's 2^40-byte bound,
// so a large unbatched matrix is not refused for a stride the caller never gave.
uint64_t batch_stride_bytes(const Mat& x, uint64_t outer) {
  const uint64_t e = dtype_size(x.dtype);
  if (x.batch > 1) return uint64_t(x.batch_stride) * e;
  const unsigned __int128 dense = static_cast<unsigned __int128>(uint64_t(x.ld) * e) * outer;
  return dense < (static_cast<unsigned __int128>(1) << 40) ? uint64_t(dense) : uint64_t(x.ld) * e;
}

// Tensor map of a mainloop operand: the contiguous dimension first.
Status operand_map(CUtensorMap* map, const Mat& x, bool k_major, int64_t mn_extent, int64_t k_extent,
                   uint32_t box_mn, uint32_t box_k, const char* name) {
  const uint64_t e = dtype_size(x.dtype);
  const uint64_t inner = k_major ? k_extent : mn_extent, outer = k_major ? mn_extent : k_extent;
  const uint64_t dims[3] = {inner, outer, uint64_t(x.batch)};
  const uint64_t strides[2] = {uint64_t(x.ld) * e, batch_stride_bytes(x, outer)};
  const uint32_t box[3] = {k_major ? box_k : box_mn, k_major ? box_mn : box_k, 1};
  Status s = hopper::make_tma_map(map, x.dtype, x.data, dims, strides, box, hopper::TmaSwizzle::k128B);
  if (!s.ok()) return Status(s.code(), std::string(name) + ": " + s.message());
  return s;
}

// Tensor map of C or D: row-major {N, M, L}, boxes of 128 bytes x box_rows.
Status output_map(CUtensorMap* map, const Mat& x, int64_t m, int64_t n, uint32_t box_rows, const char* name) {
  const uint64_t e = dtype_size(x.dtype);
  const uint64_t dims[3] = {uint64_t(n), uint64_t(m), uint64_t(x.batch)};
  const uint64_t strides[2] = {uint64_t(x.ld) * e, batch_stride_bytes(x, uint64_t(m))};
  const uint32_t box[3] = {uint32_t(gemm_impl::kEpiRowBytes / e), box_rows, 1};
  Status s = hopper::make_tma_map(map, x.dtype, x.data, dims, strides, box, hopper::TmaSwizzle::k128B);
  if (!s.ok()) return Status(s.code(), std::string(name) + ": " + s.message());
  return s;
}

int pick_swizzle(int requested, int minor_tiles) {
  if (requested != 0) return requested;
  int s = 8;
  while (s > 1 && s > minor_tiles) s /= 2;
  return s;
}

// The call is one the ping-pong kernel is built for and can run (check_schedule_request
// names what is not).
bool pingpong_fits(const GemmArgs& args, const Plan& p) {
  gemm_impl::GemmConfig want = p.config;
  want.tile = gemm_impl::pingpong_tile(p.config.in, args.tile_n);
  want.schedule = gemm_impl::KernelSchedule::kPingPong;
  const bool fp8 = dtype_size(p.config.in) == 1;
  return p.narrow == 0 && p.cluster_request.size() <= 1 && (args.tile_n == 0 || args.tile_n == want.tile.block_n) &&
         (!fp8 || (args.use_fast_accum && args.scaling != GemmScaling::kBlock)) &&
         (args.decomposition == GemmDecomposition::kHeuristic ||
          args.decomposition == GemmDecomposition::kDataParallel) &&
         gemm_impl::is_built(want);
}

// The wave-filling tile (tile_choice.cpp wave_tile_width) for a call that leaves the tile
// to the library (tile_n 0, no cluster) and that its kernel is built for: 224 wide with the
// cooperative schedule (any K decomposition), 160 wide with ping-pong (data-parallel; the
// schedule and decomposition left to the heuristic). Else nothing: the other rules choose.
std::optional<gemm_impl::GemmConfig> wave_tile(const GemmArgs& args, const Plan& p, int sms) {
  if (args.tile_n != 0 || p.narrow != 0 || p.cluster_request.size() > 1 || dtype_size(p.config.in) != 2 ||
      p.config.epilogue != gemm_impl::EpilogueKind::kLinear)
    return std::nullopt;
  const int width = wave_tile_width(p.m, p.n, p.k, p.l, sms);
  gemm_impl::GemmConfig want = p.config;
  if (width == gemm_impl::kWaveTileConfig.block_n && args.schedule != GemmSchedule::kPingPong) {
    want.tile = gemm_impl::kWaveTileConfig;
    want.schedule = gemm_impl::KernelSchedule::kCooperative;
  } else if (width == gemm_impl::kWavePingPongTileConfig.block_n && args.schedule == GemmSchedule::kHeuristic &&
             (args.decomposition == GemmDecomposition::kHeuristic ||
              args.decomposition == GemmDecomposition::kDataParallel)) {
    want.tile = gemm_impl::kWavePingPongTileConfig;
    want.schedule = gemm_impl::KernelSchedule::kPingPong;
  } else {
    return std::nullopt;
  }
  if (!gemm_impl::is_built(want)) return std::nullopt;
  return want;
}
}  // namespace

using Prepared = PreparedLaunch<Plan, GemmParams>;

// Pointers are device memory of the current device (empty views are never read).
static Status check_pointers(const GemmArgs& args, int device) {
  const std::pair<const TensorView*, const char*> views[] = {{&args.a, "a"}, {&args.b, "b"}, {&args.c, "c"}, {&args.d, "d"}};
  for (const auto& [v, name] : views) {
    if (v == &args.c && args.beta == 0.0f) continue;
    ByteSpan span;
    WARPSPEC_RETURN_IF_ERROR(view_span(*v, name, &span));
    if (!span.empty()) WARPSPEC_RETURN_IF_ERROR(check_device_memory(v->data, name, device));
  }
  return gemm_impl::check_epilogue_pointers(args, device);
}

static Status prepare(const GemmArgs& args, Prepared* out) {
  WARPSPEC_RETURN_IF_ERROR(make_plan(args, &out->plan));
  DeviceProps device;
  WARPSPEC_RETURN_IF_ERROR(current_device_props(&device));
  Plan* plan = &out->plan;
  GemmParams* params = &out->params;
  LaunchShape* shape = &out->shape;
  WARPSPEC_RETURN_IF_ERROR(check_pointers(args, device.ordinal));
  plan->device = device.ordinal;
  if (plan->d.empty()) {  // nothing to compute (M, N or L is 0): every rule was still checked
    shape->grid = 0;
    return Status::Ok();
  }

  if (dtype_size(plan->config.in) == 1) {
    // tile_n was checked: 256 only for a 16-bit D; 0 picks by fp8_wide_tile there.
    const bool wide = args.tile_n == gemm_impl::kFp8WideTileConfig.block_n ||
                      (args.tile_n == 0 && dtype_size(plan->d.dtype) == 2 && !args.use_fast_accum &&
                       !plan->config.b_other_fp8 && args.scaling != GemmScaling::kBlock &&
                       fp8_wide_tile(plan->m, plan->n, plan->k, plan->l, device.sm_count));
    plan->config.tile = wide ? gemm_impl::kFp8WideTileConfig : gemm_impl::kFp8TileConfig;
  } else if (plan->narrow != 0) {
    for (const auto& t : gemm_impl::kNarrowTileConfigs)
      if (t.block_n == plan->narrow) plan->config.tile = t;
  } else if (plan->config.epilogue == gemm_impl::EpilogueKind::kFused) {
    plan->config.tile = gemm_impl::kFusedTileConfig;  // the one fused 16-bit tile (tile_n was checked)
  } else {
    // The small-M rule on fast DRAM (wide_split_pays) takes a tile the K decomposition
    // splits: only where the decomposition is the library's to choose.
    const double dram = args.decomposition == GemmDecomposition::kHeuristic ? device.dram_bytes_per_s : 0;
    int tile = pick_tile(plan->m, plan->n, (plan->k + 63) / 64, plan->l, device.sm_count, dram);
    for (int t = 0; t < gemm_impl::kNumTileConfigs; ++t)
      if (gemm_impl::kTileConfigs[t].block_n == args.tile_n) tile = t;
    plan->config.tile = gemm_impl::kTileConfigs[tile];
    // The 224-wide tile (gemm/config.hpp): asked for by name, built for one layout.
    if (args.tile_n == gemm_impl::kWaveTileConfig.block_n) {
      plan->config.tile = gemm_impl::kWaveTileConfig;
      if (!gemm_impl::is_built(plan->config))
        return unsupported(fmt("tile_n: 224 is built for bf16 A and B, both K-major (x @ w.t()), D bf16, the linear "
                               "epilogue; got %s x %s -> %s", dtype_name(plan->config.in), dtype_name(plan->config.in),
                               dtype_name(plan->d.dtype)));
    }
    // A cluster the caller asked for runs the one tile built with clusters (tile_n was checked).
    if (plan->cluster_request.size() > 1) plan->config.tile = gemm_impl::kClusterBase.tile;
  }
  // A wave-filling tile width where the model picks one (wave_tile): its tile and schedule.
  const std::optional<gemm_impl::GemmConfig> wave = wave_tile(args, *plan, device.sm_count);
  if (wave) plan->config = *wave;
  // The ping-pong schedule: asked for (make_plan checked that it is built for the call), the
  // wave tile's, or the heuristic's choice where it pays (pingpong_pays).
  const bool pingpong =
      args.schedule == GemmSchedule::kPingPong || (wave && wave->schedule == gemm_impl::KernelSchedule::kPingPong) ||
      (!wave && args.schedule == GemmSchedule::kHeuristic && pingpong_fits(args, *plan) &&
       pingpong_pays(plan->m, plan->n, plan->k, plan->l, device.sm_count, dtype_size(plan->config.in) == 1,
                     plan->config.epilogue == gemm_impl::EpilogueKind::kFused));
  if (pingpong && !wave) {
    plan->config.tile = gemm_impl::pingpong_tile(plan->config.in, args.tile_n);
    plan->config.schedule = gemm_impl::KernelSchedule::kPingPong;
  }
  const int bm = plan->config.tile.block_m, bn = plan->config.tile.block_n, bk = plan->config.tile.block_k;
  const int64_t tiles_m = (plan->m + bm - 1) / bm, tiles_n = (plan->n + bn - 1) / bn;
  if (tiles_m * tiles_n * plan->l >= (int64_t(1) << 30))
    return invalid_argument(fmt("d.shape: %" PRId64 " output tiles of %d x %d is too many for one launch (2^30)",
                                tiles_m * tiles_n * plan->l, bm, bn));
  const int64_t k_iters = (plan->k + bk - 1) / bk;
  const int64_t tiles = tiles_m * tiles_n * plan->l;
  // A requested cluster runs data-parallel (split-K and stream-K were refused with it).
  const bool cluster_requested = plan->cluster_request.size() > 1;
  // A ragged last wave is streamed on 16-bit launches only (decomposition.hpp).
  const bool stream_tail = dtype_size(plan->config.in) == 2;
  const gemm_impl::KChoice kc = gemm_impl::choose_decomposition(
      cluster_requested || pingpong ? GemmDecomposition::kDataParallel : args.decomposition, args.splits, tiles, k_iters,
      device.sm_count, stream_tail);
  // The library's choice is 1 x 1: 2 x 1 with B multicast measured level with it on the
  // H200 (8192^3, 4096^3, 4096 x 14336 x 4096, 8192 x 8192 x 1024: -0.3% to +0.9%,
  // bench/NOTES.md v13), so clusters run only when the caller asks for them.
  plan->config.cluster = plan->cluster_request.size() >= 1 ? plan->cluster_request : gemm_impl::ClusterShape{1, 1};
  const Plan& p = *plan;
  const gemm_impl::ClusterShape cluster = p.config.cluster;
  GemmParams& q = *params;
  q.a_rows = p.m <= 64 ? 64 : bm;
  // The narrow tiles' epilogue stores from registers (gemm/epilogue_direct.cuh), through
  // q.direct, in either orientation; their map of D is never read, but is a valid map of
  // D's memory all the same (the kernel prefetches it).
  const bool direct = p.config.tile.epi_stages == 0;
  if (direct && !p.d.row_major) WARPSPEC_RETURN_IF_ERROR(output_map(&q.map_d, p.d, p.n, p.m, 64, "d"));
  else WARPSPEC_RETURN_IF_ERROR(output_map(&q.map_d, p.d, p.m, p.n, 64, "d"));
  if (p.k > 0) {
    // A's boxes are 64 rows (a warpgroup's; the kernel leaves boxes past M unloaded,
    // gemm/mainloop.cuh tile_rows_a), K- or M-major. A K-major B that a cluster shares is
    // loaded in one box per sharing CTA; MN-major boxes are 64 wide either way.
    const uint32_t box_a = 64;
    const uint32_t box_b = p.config.b_k_major ? uint32_t(bn / gemm_impl::shared_by_b(cluster)) : 64;
    WARPSPEC_RETURN_IF_ERROR(operand_map(&q.map_a, p.a, p.config.a_k_major, p.m, p.k, box_a, uint32_t(bk), "a"));
    // K-major A's 8-row boxes: the rows of a tile's last box up to M.
    if (p.config.a_k_major) WARPSPEC_RETURN_IF_ERROR(operand_map(&q.map_a8, p.a, true, p.m, p.k, 8, uint32_t(bk), "a"));
    else q.map_a8 = q.map_a;
    WARPSPEC_RETURN_IF_ERROR(operand_map(&q.map_b, p.b, p.config.b_k_major, p.n, p.k, box_b, uint32_t(bk), "b"));
  } else {  // K = 0: D = beta·C; A and B are never loaded (no k-iterations)
    q.map_a = q.map_a8 = q.map_b = q.map_d;
  }
  // C's box: a tile's rows (the cooperative epilogue loads both warpgroups' halves at once),
  // 64 for the ping-pong schedule (each warpgroup's ring takes 64 rows at a time).
  const bool pingpong_c = p.config.schedule == gemm_impl::KernelSchedule::kPingPong;
  if (p.beta != 0.0f && !direct)
    WARPSPEC_RETURN_IF_ERROR(output_map(&q.map_c, p.c, p.m, p.n, uint32_t(pingpong_c ? 64 : bm), "c"));
  else q.map_c = q.map_d;  // never read
  q.direct = gemm_impl::DirectStoreParams{};
  if (direct) {
    // Element (i, j) of the kernel's row-major or column-major view.
    const auto strides = [](const Mat& x, int64_t* row, int64_t* col) {
      *row = x.row_major ? x.ld : 1;
      *col = x.row_major ? 1 : x.ld;
    };
    strides(p.d, &q.direct.d_row_stride, &q.direct.d_col_stride);
    if (p.beta != 0.0f) {
      q.direct.c = p.c.data;
      strides(p.c, &q.direct.c_row_stride, &q.direct.c_col_stride);
      q.direct.c_batch_stride = p.c.batch > 1 ? p.c.batch_stride : 0;
    }
  }

  schedule::PersistentArguments sa;
  sa.tiles_m = int(tiles_m);
  sa.tiles_n = int(tiles_n);
  sa.batch = int(p.l);
  sa.cluster_m = cluster.m;
  sa.cluster_n = cluster.n;
  GemmRaster raster = args.raster;
  if (p.swapped && raster != GemmRaster::kHeuristic)  // the user's M is the kernel's N
    raster = raster == GemmRaster::kAlongM ? GemmRaster::kAlongN : GemmRaster::kAlongM;
  sa.raster = raster == GemmRaster::kAlongM   ? schedule::RasterOrder::kAlongM
              : raster == GemmRaster::kAlongN ? schedule::RasterOrder::kAlongN
              : library_raster(dtype_size(p.config.in), cluster.m, cluster.n);
  const schedule::RasterOrder resolved =
      schedule::resolve_raster(sa.raster, sa.tiles_m, sa.tiles_n, cluster.m, cluster.n);
  // The swizzle groups scheduling units: cluster pairs when clustered.
  const int units_m = (sa.tiles_m + cluster.m - 1) / cluster.m, units_n = (sa.tiles_n + cluster.n - 1) / cluster.n;
  sa.swizzle = pick_swizzle(args.swizzle, resolved == schedule::RasterOrder::kAlongM ? units_n : units_m);
  // Clusters: one pair per two SMs. That every SM can hold half a pair at once is the
  // H200's case (two SMs per TPC; bench/NOTES.md): if fewer pairs were co-resident, the
  // rest would run after them, slower but right (pairs never wait on other pairs).
  sa.grid_size = cluster.size() > 1 ? schedule::persistent_grid_size(sa.tiles_m, sa.tiles_n, sa.batch, device.sm_count,
                                                                      cluster.m, cluster.n)
                                    : schedule::k_split_grid_size(int(tiles), int(k_iters), kc.decomposition,
                                                                  kc.splits, device.sm_count);
  schedule::KSplitArguments ka;
  ka.tiles = sa;
  ka.k_iters = int(k_iters);
  ka.decomposition = kc.decomposition;
  ka.splits = kc.splits;
  if (const char* why = schedule::KSplitScheduler::check(ka)) {
    // Explicit requests the scheduler cannot index are the caller's to change.
    if (args.decomposition == GemmDecomposition::kSplitK || args.decomposition == GemmDecomposition::kStreamK)
      return invalid_argument(fmt("decomposition: %s", why));
    // The heuristic's split or streamed choice past what the scheduler indexes (tiles x
    // k-iterations near 2^31): data-parallel, which has no such bound.
    if (cluster.size() > 1 || ka.decomposition == schedule::KDecomposition::kDataParallel)
      return internal_error(fmt("scheduler: %s", why));
    ka.decomposition = schedule::KDecomposition::kDataParallel;
    ka.splits = 1;
    ka.tiles.grid_size = sa.grid_size = schedule::k_split_grid_size(int(tiles), int(k_iters), ka.decomposition, 1,
                                                                    device.sm_count);
    if (const char* still = schedule::KSplitScheduler::check(ka)) return internal_error(fmt("scheduler: %s", still));
  }
  q.sched = schedule::KSplitScheduler(ka);
  plan->workspace_bytes = gemm_impl::fixup_workspace_bytes(q.sched.workspace_slots(), bm, bn);
  if (args.workspace != nullptr && plan->workspace_bytes > 0) {
    if (args.workspace_bytes < plan->workspace_bytes)
      return invalid_argument(fmt("workspace_bytes: %zu is less than the %zu bytes this GEMM needs (gemm_workspace_size)",
                                  args.workspace_bytes, plan->workspace_bytes));
    WARPSPEC_RETURN_IF_ERROR(workspace_shares_nothing(args, plan->workspace_bytes));
    WARPSPEC_RETURN_IF_ERROR(check_device_memory(args.workspace, "workspace", device.ordinal));
  }
  q.fixup_flags = nullptr;
  q.fixup_partials = nullptr;
  q.a_l_mul = p.a.batch > 1 ? 1 : 0;
  q.b_l_mul = p.b.batch > 1 ? 1 : 0;
  q.c_l_mul = p.c.batch > 1 ? 1 : 0;
  q.alpha = p.alpha;
  q.beta = p.beta;
  q.epilogue = p.epilogue;
  // Promote every k-block (128 K), or, with fast accumulation, once per unit.
  q.promote_every = args.use_fast_accum ? INT32_MAX : 1;
  q.block_scale = p.block_scale;
  q.d_ragged = (uint64_t(p.n) * dtype_size(p.d.dtype)) % 16 != 0;
  q.d_fp32 = p.d.dtype == DType::kFP32;
  q.m = int32_t(p.m);
  q.n = int32_t(p.n);
  q.d = p.d.data;
  q.ldd = p.d.ld;
  q.d_batch_stride = p.d.batch > 1 ? p.d.batch_stride : 0;
  shape->grid = sa.grid_size;
  shape->cluster_x = cluster.size();  // a 1-D grid of (size, 1, 1) clusters: ranks are blockIdx.x % size
  shape->pdl = args.pdl;
  return Status::Ok();
}

// The line describe() returns and WARPSPEC_LOG_CONFIG prints (worded in describe.cpp).
static std::string describe_plan(const Prepared& p) {
  gemm_impl::GemmChoice c;
  c.config = p.plan.config;
  c.m = p.plan.m, c.n = p.plan.n, c.k = p.plan.k, c.l = p.plan.l;
  c.swapped = p.plan.swapped;
  const auto& s = p.params.sched;
  c.raster = s.tile_order().raster(), c.swizzle = s.tile_order().swizzle(), c.tiles = s.total_tiles();
  c.decomposition = s.decomposition() == schedule::KDecomposition::kSplitK    ? "split_k"
                    : s.decomposition() == schedule::KDecomposition::kStreamK ? "stream_k"
                                                                               : "data_parallel";
  c.splits = s.splits();
  c.workspace_bytes = p.plan.workspace_bytes;
  if (dtype_size(p.plan.config.in) == 1) {
    c.scaling = p.params.block_scale.a != nullptr ? "block" : "tensor_or_row";
    c.fast_accum = p.params.promote_every > 1;
  }
  c.shape = p.shape;
  return gemm_impl::describe(c);
}

// The caller's workspace or the library's cached one (allocated here, before the
// launch: a refusal still launches nothing).
static Status launch(const Prepared& p, const GemmArgs& args, cudaStream_t stream) {
  // An e4m3 D's amax: the kernel raises it with atomicMax, so it starts at 0 (stream-ordered;
  // a memset node in a captured graph). An empty D leaves it 0.
  if (float* amax = p.params.epilogue.amax; amax != nullptr) {
    const cudaError_t err = cudaMemsetAsync(amax, 0, sizeof(float), stream);
    if (err != cudaSuccess) return cuda_error("cudaMemsetAsync (amax)", err);
  }
  if (p.shape.grid == 0) return Status::Ok();  // an empty output
  GemmParams params = p.params;
  if (p.plan.workspace_bytes > 0) {
    void* ws = args.workspace;
    if (ws == nullptr) {
      bool capturing = false;
      const Status s = cached_workspace(WorkspaceKind::kGemmFixup, p.plan.device, stream, p.plan.workspace_bytes, &ws, &capturing);
      if (capturing && args.decomposition == GemmDecomposition::kHeuristic) {
        // The heuristic's choice needs a workspace the capture cannot allocate: run
        // data-parallel instead (no workspace) rather than refuse a call that did not
        // ask for a split. Explicit split-K / stream-K requests are refused (s).
        GemmArgs dp = args;
        dp.decomposition = GemmDecomposition::kDataParallel;
        return gemm(dp, stream);
      }
      WARPSPEC_RETURN_IF_ERROR(s);
    }
    const int slots = params.sched.workspace_slots();
    params.fixup_flags = static_cast<uint32_t*>(ws);
    params.fixup_partials = reinterpret_cast<float*>(static_cast<uint8_t*>(ws) + gemm_impl::fixup_flag_bytes(slots));
  }
  log_config_if_enabled([&] { return describe_plan(p); });
  const DType in = p.plan.config.in;
  const auto slice = in == DType::kBF16   ? gemm_impl::launch_gemm_bf16
                     : in == DType::kFP16 ? gemm_impl::launch_gemm_fp16
                     : in == DType::kE4M3 ? gemm_impl::launch_gemm_e4m3
                                          : gemm_impl::launch_gemm_e5m2;
  return slice(p.plan.config, params, p.shape, stream);
}

Status check(const GemmArgs& args) { return check_only<Prepared>(args, prepare); }

Status describe(const GemmArgs& args, std::string* out) {
  Prepared p;
  WARPSPEC_RETURN_IF_ERROR(prepare(args, &p));
  *out = describe_plan(p);
  return Status::Ok();
}

Status gemm_workspace_size(const GemmArgs& args, size_t* bytes) {
  if (bytes == nullptr) return invalid_argument("bytes: must not be null");
  *bytes = 0;
  // Every rule applies except the workspace's size, which is what is asked for.
  GemmArgs sized = args;
  if (sized.workspace != nullptr) sized.workspace_bytes = SIZE_MAX;
  Prepared p;
  WARPSPEC_RETURN_IF_ERROR(prepare(sized, &p));
  *bytes = p.plan.workspace_bytes;
  return Status::Ok();
}

Status gemm(const GemmArgs& args, cudaStream_t stream) {
  return prepare_and_launch<Prepared>(args, stream, prepare,
                                      [&](const Prepared& p, cudaStream_t s) { return launch(p, args, s); });
}

}  // namespace warpspec
