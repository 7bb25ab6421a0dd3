// Attention forward host side: argument validation, tensor maps, scheduler, dispatch.
// Nothing is launched or written unless every check passes.
#include <cuda_runtime_api.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>

#include "../common/config_log.hpp"
#include "../common/device_props.hpp"
#include "../common/entry.hpp"
#include "../common/format.hpp"
#include "../common/views.hpp"
#include "describe.hpp"
#include "launch.hpp"
#include "warpspec/attention/config.hpp"
#include "warpspec/attention_api.hpp"
#include "warpspec/describe.hpp"
#include "warpspec/device.hpp"
#include "warpspec/hopper/tma_map.hpp"
#include "warpspec/schedule/attention.hpp"

namespace warpspec {
namespace {

using attention_impl::AttentionParams;
using attention_impl::kBlockM;

// Sequence lengths and counts stay below 2^30 so the kernel's int32 index sums
// (row + seqlen_k - seqlen_q, block ends) cannot overflow.
constexpr int64_t kMaxExtent = int64_t(1) << 30;

const char* const kDenseNames[4] = {"batch", "seqlen", "heads", "head_dim"};
const char* const kPackedNames[3] = {"total", "heads", "head_dim"};

// Rank, dtype, pointer, shape and stride rules shared by q, k, v and o: dense
// (batch, seqlen, heads, head_dim) or packed (total, heads, head_dim). `want`: the
// required extent of each of the view's dims, -1 for any.
Status check_bshd(const TensorView& v, const char* name, DType dtype, const int64_t* want, bool packed) {
  const int rank = packed ? 3 : 4;
  const char* const* names = packed ? kPackedNames : kDenseNames;
  // A default (absent) view: say what is missing rather than that its rank is 0.
  if (v.data == nullptr && v.rank == 0) return invalid_argument(fmt("%s.data: must not be null", name));
  if (v.rank != rank)
    return invalid_argument(packed ? fmt("%s.rank: must be 3 (total, heads, head_dim) with cu_seqlens, got %d", name,
                                         v.rank)
                                   : fmt("%s.rank: must be 4 (batch, seqlen, heads, head_dim), got %d", name, v.rank));
  if (v.dtype != dtype)
    return invalid_argument(fmt("%s.dtype: must equal q.dtype (%s), got %s", name, dtype_name(dtype), dtype_name(v.dtype)));
  for (int i = 0; i < rank; ++i)
    if (want[i] >= 0 && v.shape[i] != want[i])
      return invalid_argument(fmt("%s.shape[%d] (%s): must be %" PRId64 ", got %" PRId64, name, i, names[i], want[i],
                                  v.shape[i]));
  bool empty = false;
  for (int i = 0; i < rank; ++i) {
    if (v.shape[i] < 0)
      return invalid_argument(fmt("%s.shape[%d] (%s): must be >= 0, got %" PRId64, name, i, names[i], v.shape[i]));
    if (v.shape[i] >= kMaxExtent)
      return invalid_argument(fmt("%s.shape[%d] (%s): must be < 2^30, got %" PRId64, name, i, names[i], v.shape[i]));
    empty = empty || v.shape[i] == 0;
  }
  if (empty) return Status::Ok();  // no element is addressed: pointer and stride rules do not apply
  if (v.data == nullptr) return invalid_argument(fmt("%s.data: must not be null", name));
  if (reinterpret_cast<uintptr_t>(v.data) % 16 != 0)
    return misaligned(fmt("%s.data: must be 16-byte aligned for TMA (got %p)", name, v.data));
  if (v.stride[rank - 1] != 1)
    return invalid_argument(fmt("%s.stride[%d] (head_dim): the last dimension must be contiguous (stride 1), got %" PRId64,
                                name, rank - 1, v.stride[rank - 1]));
  const int64_t e = int64_t(dtype_size(dtype));
  for (int i = 0; i < rank - 1; ++i) {
    if (v.shape[i] == 1) continue;  // never stepped over: any stride
    if (v.stride[i] <= 0)
      return invalid_argument(fmt("%s.stride[%d] (%s): must be positive, got %" PRId64, name, i, names[i], v.stride[i]));
    // Before any product: a huge stride times the element size would overflow.
    if (v.stride[i] >= (int64_t(1) << 40) / e)
      return invalid_argument(fmt("%s.stride[%d] (%s): %" PRId64 " elements is 2^40 bytes or more (TMA's limit)", name,
                                  i, names[i], v.stride[i]));
    if ((v.stride[i] * e) % 16 != 0)
      return misaligned(fmt("%s.stride[%d] (%s): %" PRId64 " elements = %" PRId64
                            " bytes; TMA needs a multiple of 16 bytes (8 elements)",
                            name, i, names[i], v.stride[i], v.stride[i] * e));
  }
  return Status::Ok();
}

// A packed (total, heads, head_dim) view as one batch of a dense one.
TensorView as_bshd(const TensorView& v, bool packed) {
  if (!packed) return v;
  TensorView r = v;
  r.rank = 4;
  for (int i = 3; i >= 1; --i) {
    r.shape[i] = v.shape[i - 1];
    r.stride[i] = v.stride[i - 1];
  }
  r.shape[0] = 1;
  r.stride[0] = 0;
  return r;
}

// An int32 (or fp32 for the sink) vector of `length` elements: rank 1, contiguous,
// 4-byte aligned.
Status check_vector(const TensorView& v, const char* name, DType dtype, int64_t length, const char* what) {
  if (v.rank != 1) return invalid_argument(fmt("%s.rank: must be 1, got %d", name, v.rank));
  if (v.dtype != dtype)
    return invalid_argument(fmt("%s.dtype: must be %s, got %s", name, dtype_name(dtype), dtype_name(v.dtype)));
  if (v.shape[0] != length)
    return invalid_argument(fmt("%s.shape[0]: must be %s = %" PRId64 ", got %" PRId64, name, what, length, v.shape[0]));
  if (length > 1 && v.stride[0] != 1)
    return invalid_argument(fmt("%s.stride[0]: must be 1 (contiguous), got %" PRId64, name, v.stride[0]));
  if (reinterpret_cast<uintptr_t>(v.data) % 4 != 0)
    return misaligned(fmt("%s.data: must be 4-byte aligned (got %p)", name, v.data));
  return Status::Ok();
}

// An edge of the sliding window: -1 (unbounded) or >= 0; anything from the longest
// possible distance on is unbounded too.
Status window_edge(int64_t w, const char* name, int32_t* out) {
  if (w < -1) return invalid_argument(fmt("%s: must be -1 (unbounded) or >= 0, got %" PRId64, name, w));
  *out = (w < 0 || w >= attention_impl::kUnboundedWindow) ? attention_impl::kUnboundedWindow : int32_t(w);
  return Status::Ok();
}

// Strides in bytes for a TMA map over (d, s, h, b): a dimension of extent 1 is never
// stepped over, so it gets a harmless dense stride whatever the view says.
void tma_strides(const TensorView& v, uint64_t (&out)[3]) {
  const uint64_t e = dtype_size(v.dtype);
  uint64_t dense = uint64_t(v.shape[3]) * e;
  dense = (dense + 15) / 16 * 16;
  // seqlen
  out[0] = v.shape[1] > 1 ? uint64_t(v.stride[1]) * e : dense;
  // heads
  out[1] = v.shape[2] > 1 ? uint64_t(v.stride[2]) * e : out[0] * uint64_t(v.shape[1]);
  // batch
  out[2] = v.shape[0] > 1 ? uint64_t(v.stride[0]) * e : out[1] * uint64_t(v.shape[2]);
}

Status make_map(CUtensorMap* map, const TensorView& v, uint32_t box_rows, const char* name) {
  const uint64_t dims[4] = {uint64_t(v.shape[3]), uint64_t(v.shape[1]), uint64_t(v.shape[2]), uint64_t(v.shape[0])};
  uint64_t strides[3];
  tma_strides(v, strides);
  for (uint64_t& st : strides) st = st >= (uint64_t(1) << 40) ? 16 : st;  // only reachable for unit dims
  const uint32_t box[4] = {64, box_rows, 1, 1};
  Status s = hopper::make_tma_map(map, v.dtype, v.data, dims, strides, box, hopper::TmaSwizzle::k128B);
  if (!s.ok()) return Status(s.code(), std::string(name) + ": " + s.message());
  return s;
}

struct Plan {
  DType dtype = DType::kBF16;
  bool packed_q = false, packed_k = false;
  TensorView q, k, v, o, lse;  // rank 4 (3 for lse) whatever the caller's layout
  int64_t batch = 0, seqlen_q = 0, seqlen_k = 0, heads_q = 0, heads_kv = 0, head_dim = 0;
  int64_t tile_rows = 0;  // query rows the grid covers per sequence (max_seqlen_q when packed)
  int kernel_d = 0;
  float scale = 0;
  int32_t window_left = attention_impl::kUnboundedWindow, window_right = attention_impl::kUnboundedWindow;
  int32_t chunk = 0;
  float softcap = 0;
};

Status make_plan(const AttentionArgs& a, Plan* plan) {
  Plan p;
  p.packed_q = !a.cu_seqlens_q.empty();
  p.packed_k = !a.cu_seqlens_k.empty();
  const int qrank = p.packed_q ? 3 : 4, krank = p.packed_k ? 3 : 4;
  if (a.q.data == nullptr && a.q.rank == 0) return invalid_argument("q.data: must not be null");
  if (a.q.rank != qrank)
    return invalid_argument(p.packed_q ? fmt("q.rank: must be 3 (total_q, heads, head_dim) with cu_seqlens_q, got %d",
                                             a.q.rank)
                                       : fmt("q.rank: must be 4 (batch, seqlen, heads, head_dim), got %d", a.q.rank));
  if (a.q.dtype != DType::kBF16 && a.q.dtype != DType::kFP16)
    return unsupported(fmt("q.dtype: must be bf16 or fp16, got %s", dtype_name(a.q.dtype)));
  p.dtype = a.q.dtype;
  p.head_dim = a.q.shape[qrank - 1];
  p.kernel_d = attention_impl::kernel_head_dim(p.head_dim);
  if (p.kernel_d == 0)
    return unsupported(fmt("q.shape[%d] (head_dim): must be a multiple of 8 from 8 to 256 (64, 128, 192 and 256 run "
                           "natively, others padded up to the next), got %" PRId64, qrank - 1, p.head_dim));
  const int64_t any[4] = {-1, -1, -1, -1};
  WARPSPEC_RETURN_IF_ERROR(check_bshd(a.q, "q", p.dtype, any, p.packed_q));
  p.heads_q = a.q.shape[qrank - 2];
  // The batch: cu_seqlens' length - 1, or the dense side's shape[0].
  if (p.packed_q) {
    const TensorView& cu = a.cu_seqlens_q;
    if (cu.rank != 1 || cu.shape[0] < 1)
      return invalid_argument(fmt("cu_seqlens_q: must be rank 1 with batch + 1 >= 1 entries (rank %d, %" PRId64
                                  " entries)", cu.rank, cu.rank >= 1 ? cu.shape[0] : int64_t(0)));
    p.batch = cu.shape[0] - 1;
    if (a.max_seqlen_q < 0)
      return invalid_argument(fmt("max_seqlen_q: must be >= 0 with cu_seqlens_q, got %" PRId64, a.max_seqlen_q));
  } else {
    p.batch = a.q.shape[0];
  }
  if (p.batch >= kMaxExtent) return invalid_argument(fmt("batch: must be < 2^30, got %" PRId64, p.batch));
  if (p.packed_q) WARPSPEC_RETURN_IF_ERROR(check_vector(a.cu_seqlens_q, "cu_seqlens_q", DType::kI32, p.batch + 1, "batch + 1"));
  if (p.packed_k) WARPSPEC_RETURN_IF_ERROR(check_vector(a.cu_seqlens_k, "cu_seqlens_k", DType::kI32, p.batch + 1, "batch + 1"));
  if (!a.seqused_q.empty()) WARPSPEC_RETURN_IF_ERROR(check_vector(a.seqused_q, "seqused_q", DType::kI32, p.batch, "batch"));
  if (!a.seqused_k.empty()) WARPSPEC_RETURN_IF_ERROR(check_vector(a.seqused_k, "seqused_k", DType::kI32, p.batch, "batch"));

  if (a.k.rank == krank) {
    p.seqlen_k = a.k.shape[krank - 3];  // seqlen_k, or total_k when packed
    p.heads_kv = a.k.shape[krank - 2];
  }
  // k: (batch, seqlen_k, heads_kv, head_dim) or (total_k, heads_kv, head_dim).
  const int64_t want_k_dense[4] = {p.batch, -1, -1, p.head_dim};
  const int64_t want_k_packed[3] = {-1, -1, p.head_dim};
  WARPSPEC_RETURN_IF_ERROR(check_bshd(a.k, "k", p.dtype, p.packed_k ? want_k_packed : want_k_dense, p.packed_k));
  if (p.heads_kv < 1) return invalid_argument(fmt("k.shape[%d] (heads): must be >= 1, got 0", krank - 2));
  const int64_t want_v_dense[4] = {p.batch, p.seqlen_k, p.heads_kv, p.head_dim};
  const int64_t want_v_packed[3] = {p.seqlen_k, p.heads_kv, p.head_dim};
  WARPSPEC_RETURN_IF_ERROR(check_bshd(a.v, "v", p.dtype, p.packed_k ? want_v_packed : want_v_dense, p.packed_k));
  if (p.heads_q % p.heads_kv != 0)
    return invalid_argument(fmt("k.shape[%d] (heads): heads_q (%" PRId64 ") must be a multiple of heads_kv (%" PRId64 ")",
                                krank - 2, p.heads_q, p.heads_kv));
  p.seqlen_q = a.q.shape[qrank - 3];
  const int64_t want_o_dense[4] = {p.batch, p.seqlen_q, p.heads_q, p.head_dim};
  const int64_t want_o_packed[3] = {p.seqlen_q, p.heads_q, p.head_dim};
  WARPSPEC_RETURN_IF_ERROR(check_bshd(a.o, "o", p.dtype, p.packed_q ? want_o_packed : want_o_dense, p.packed_q));
  p.tile_rows = p.packed_q ? std::min(a.max_seqlen_q, p.seqlen_q) : p.seqlen_q;
  if (!a.lse.empty()) {
    const TensorView& l = a.lse;
    const int lrank = p.packed_q ? 2 : 3;
    if (l.rank != lrank)
      return invalid_argument(p.packed_q ? fmt("lse.rank: must be 2 (heads_q, total_q) with cu_seqlens_q, got %d", l.rank)
                                         : fmt("lse.rank: must be 3 (batch, heads_q, seqlen_q), got %d", l.rank));
    if (l.dtype != DType::kFP32) return invalid_argument(fmt("lse.dtype: must be fp32, got %s", dtype_name(l.dtype)));
    const int64_t want_dense[3] = {p.batch, p.heads_q, p.seqlen_q};
    const int64_t want_packed[2] = {p.heads_q, p.seqlen_q};
    const char* names_dense[3] = {"batch", "heads_q", "seqlen_q"};
    const char* names_packed[2] = {"heads_q", "total_q"};
    const int64_t* want = p.packed_q ? want_packed : want_dense;
    const char* const* names = p.packed_q ? names_packed : names_dense;
    for (int i = 0; i < lrank; ++i) {
      if (l.shape[i] != want[i])
        return invalid_argument(fmt("lse.shape[%d] (%s): must be %" PRId64 ", got %" PRId64, i, names[i], want[i], l.shape[i]));
      if (l.shape[i] > 1 && l.stride[i] <= 0)
        return invalid_argument(fmt("lse.stride[%d] (%s): must be positive, got %" PRId64, i, names[i], l.stride[i]));
    }
    if (reinterpret_cast<uintptr_t>(l.data) % 4 != 0)
      return misaligned(fmt("lse.data: must be 4-byte aligned (got %p)", l.data));
  }
  if (!a.sink.empty()) WARPSPEC_RETURN_IF_ERROR(check_vector(a.sink, "sink", DType::kFP32, p.heads_q, "heads_q"));
  if (!a.tile_counter.empty())
    WARPSPEC_RETURN_IF_ERROR(check_vector(a.tile_counter, "tile_counter", DType::kI32, 2, "2 ({next, done})"));
  // o shares no memory with k or v, and with q only as the very same view (in place: a
  // tile reads its own Q rows before it writes the same O rows); lse with none of them;
  // neither with what the kernel reads besides (sink, varlen arrays).
  WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.o, "o", a.k, "k", false));
  WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.o, "o", a.v, "v", false));
  WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.o, "o", a.q, "q", true));
  const std::pair<const TensorView*, const char*> side[] = {{&a.sink, "sink"},
                                                            {&a.tile_counter, "tile_counter"},
                                                            {&a.cu_seqlens_q, "cu_seqlens_q"},
                                                            {&a.cu_seqlens_k, "cu_seqlens_k"},
                                                            {&a.seqused_q, "seqused_q"},
                                                            {&a.seqused_k, "seqused_k"}};
  for (const auto& [v, name] : side) {
    if (v->empty()) continue;
    WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.o, "o", *v, name, false));
    if (!a.lse.empty()) WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.lse, "lse", *v, name, false));
  }
  if (!a.lse.empty()) {
    const std::pair<const TensorView*, const char*> inputs[] = {{&a.q, "q"}, {&a.k, "k"}, {&a.v, "v"}, {&a.o, "o"}};
    for (const auto& [v, name] : inputs) WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.lse, "lse", *v, name, false));
  }
  if (!a.tile_counter.empty()) {  // written by the kernel too
    const std::pair<const TensorView*, const char*> read[] = {
        {&a.q, "q"}, {&a.k, "k"}, {&a.v, "v"}, {&a.sink, "sink"}, {&a.cu_seqlens_q, "cu_seqlens_q"},
        {&a.cu_seqlens_k, "cu_seqlens_k"}, {&a.seqused_q, "seqused_q"}, {&a.seqused_k, "seqused_k"}};
    for (const auto& [v, name] : read)
      if (!v->empty()) WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.tile_counter, "tile_counter", *v, name, false));
  }
  if (a.softmax_scale.has_value()) {
    const float sc = *a.softmax_scale;
    if (!std::isfinite(sc) || !(sc > 0.0f))
      return invalid_argument(fmt("softmax_scale: must be positive and finite, got %g", double(sc)));
    p.scale = sc;
  } else {
    p.scale = float(1.0 / std::sqrt(double(p.head_dim)));
  }
  if (!std::isfinite(a.softcap) || a.softcap < 0.0f)
    return invalid_argument(fmt("softcap: must be finite and >= 0 (0: off), got %g", double(a.softcap)));
  p.softcap = a.softcap;
  // The kernel works in base 2 with scale·log2(e) (softcap·log2(e) with a softcap) in
  // fp32, and with a softcap multiplies the raw score by scale / softcap: all finite.
  const double base2 = (p.softcap > 0 ? double(p.softcap) : double(p.scale)) * 1.4426950408889634;
  if (!std::isfinite(float(base2)) || !(float(base2) > 0.0f))
    return invalid_argument(p.softcap > 0
                                ? fmt("softcap: %g is out of range: softcap·log2(e) must be a positive finite fp32",
                                      double(p.softcap))
                                : fmt("softmax_scale: %g is too large: scale·log2(e) overflows fp32 (at most %g)",
                                      double(p.scale), double(3.4028234663852886e38 / 1.4426950408889634)));
  if (p.softcap > 0 && !std::isfinite(float(double(p.scale) / double(p.softcap))))
    return invalid_argument(fmt("softcap: %g is too small for softmax_scale %g: their ratio overflows fp32",
                                double(p.softcap), double(p.scale)));
  WARPSPEC_RETURN_IF_ERROR(window_edge(a.window_left, "window_left", &p.window_left));
  WARPSPEC_RETURN_IF_ERROR(window_edge(a.causal ? 0 : a.window_right, "window_right", &p.window_right));
  if (a.attention_chunk < 0 || a.attention_chunk >= attention_impl::kUnboundedWindow)
    return invalid_argument(fmt("attention_chunk: must be 0 (off) or from 1 to 2^30 - 1, got %" PRId64, a.attention_chunk));
  p.chunk = int32_t(a.attention_chunk);
  if (p.chunk > 1 && !attention_impl::kChunkHeadDim(p.kernel_d))
    return unsupported(fmt("attention_chunk: not supported with head_dim > 192 yet (the head dim 256 kernel has no "
                           "registers left for the chunk mask), got head_dim %" PRId64, p.head_dim));
  if (p.chunk == 1) {  // each query sees the one key on its diagonal: the window (0, 0)
    p.window_left = std::min(p.window_left, 0);
    p.window_right = std::min(p.window_right, 0);
    p.chunk = 0;
  }
  if (a.causal && a.window_right < -1)
    return invalid_argument(fmt("window_right: must be -1 (unbounded) or >= 0, got %" PRId64, a.window_right));
  p.q = as_bshd(a.q, p.packed_q);
  p.o = as_bshd(a.o, p.packed_q);
  p.k = as_bshd(a.k, p.packed_k);
  p.v = as_bshd(a.v, p.packed_k);
  *plan = p;
  return Status::Ok();
}

using Prepared = PreparedLaunch<Plan, AttentionParams>;

// Pointers are device memory of the current device (empty views are never read).
Status check_pointers(const AttentionArgs& a, int device) {
  const std::pair<const TensorView*, const char*> views[] = {
      {&a.q, "q"},       {&a.k, "k"},
      {&a.v, "v"},       {&a.o, "o"},
      {&a.lse, "lse"},   {&a.sink, "sink"},
      {&a.cu_seqlens_q, "cu_seqlens_q"}, {&a.cu_seqlens_k, "cu_seqlens_k"},
      {&a.seqused_q, "seqused_q"},       {&a.seqused_k, "seqused_k"},
      {&a.tile_counter, "tile_counter"}};
  for (const auto& [v, name] : views) {
    if (v->empty() && (v != &a.q && v != &a.k && v != &a.v && v != &a.o)) continue;  // optional, not given
    ByteSpan span;
    WARPSPEC_RETURN_IF_ERROR(view_span(*v, name, &span));
    if (!span.empty()) WARPSPEC_RETURN_IF_ERROR(check_device_memory(v->data, name, device));
  }
  return Status::Ok();
}

Status prepare(const AttentionArgs& a, Prepared* out) {
  WARPSPEC_RETURN_IF_ERROR(make_plan(a, &out->plan));
  DeviceProps device;
  WARPSPEC_RETURN_IF_ERROR(current_device_props(&device));
  const Plan* plan = &out->plan;
  AttentionParams* params = &out->params;
  LaunchShape* shape = &out->shape;
  WARPSPEC_RETURN_IF_ERROR(check_pointers(a, device.ordinal));
  if (plan->batch == 0 || plan->tile_rows == 0 || plan->heads_q == 0) {  // nothing to compute; every rule was checked
    shape->grid = 0;
    return Status::Ok();
  }

  const Plan& p = *plan;
  const attention_impl::HeadDimConfig cfg = attention_impl::config_for(p.kernel_d);
  AttentionParams& q = *params;
  WARPSPEC_RETURN_IF_ERROR(make_map(&q.map_q, p.q, uint32_t(kBlockM), "q"));
  WARPSPEC_RETURN_IF_ERROR(make_map(&q.map_o, p.o, 64, "o"));
  if (p.seqlen_k > 0) {
    WARPSPEC_RETURN_IF_ERROR(make_map(&q.map_k, p.k, uint32_t(cfg.block_n), "k"));
    WARPSPEC_RETURN_IF_ERROR(make_map(&q.map_v, p.v, uint32_t(cfg.block_n), "v"));
  } else {  // no key: every tile writes O = 0 and LSE = −inf without loading K or V
    q.map_k = q.map_v = q.map_q;
  }

  schedule::AttentionSchedulerArguments sa;
  const int64_t tiles_m = (p.tile_rows + kBlockM - 1) / kBlockM;
  if (tiles_m * p.heads_q * p.batch >= (int64_t(1) << 30))
    return invalid_argument(fmt("shape: %" PRId64 " query tiles is too many for one launch", tiles_m * p.heads_q * p.batch));
  sa.tiles_m = int(tiles_m);
  sa.heads = int(p.heads_q);
  sa.batch = int(p.batch);
  // Tiles of unequal cost (causal: by m_block; packed: by the unknown lengths, longer
  // sequences owning the high m_blocks) go longest first.
  const bool unequal = a.causal || p.packed_q || p.packed_k || !a.seqused_q.empty() || !a.seqused_k.empty();
  sa.order = unequal ? schedule::AttentionOrder::kLongestFirst : schedule::AttentionOrder::kMFastest;
  sa.grid_size = schedule::attention_grid_size(sa.tiles_m, sa.heads, sa.batch, device.sm_count);
  if (const char* why = schedule::AttentionScheduler::check(sa)) return internal_error(fmt("scheduler: %s", why));
  q.sched = schedule::AttentionScheduler(sa);
  q.seqlen_q = int32_t(p.seqlen_q);
  q.seqlen_k = int32_t(p.seqlen_k);
  q.head_dim = int32_t(p.head_dim);
  q.group = int32_t(p.heads_q / p.heads_kv);
  q.window_left = p.window_left;
  q.window_right = p.window_right;
  q.chunk = p.chunk;
  const schedule::FastDivmod chunk_div(uint32_t(p.chunk >= 2 ? p.chunk : 2));
  q.chunk_mul = chunk_div.multiplier();
  q.chunk_shift = chunk_div.high_shift();
  q.scale_log2 = float((p.softcap > 0 ? double(p.softcap) : double(p.scale)) * 1.4426950408889634);
  q.softcap_prescale = p.softcap > 0 ? float(double(p.scale) / double(p.softcap)) : 0.0f;
  q.cu_seqlens_q = static_cast<const int32_t*>(a.cu_seqlens_q.data);
  q.cu_seqlens_k = static_cast<const int32_t*>(a.cu_seqlens_k.data);
  q.seqused_q = static_cast<const int32_t*>(a.seqused_q.data);
  q.seqused_k = static_cast<const int32_t*>(a.seqused_k.data);
  q.sink = static_cast<const float*>(a.sink.data);
  // The dynamic schedule for packed batches (tile costs unknown to the host).
  const bool ragged = p.packed_q || p.packed_k || !a.seqused_q.empty() || !a.seqused_k.empty();
  q.tile_counter = ragged ? static_cast<int32_t*>(a.tile_counter.data) : nullptr;
  q.o = p.o.data;
  q.o_stride_b = p.o.stride[0];
  q.o_stride_s = p.o.stride[1];
  q.o_stride_h = p.o.stride[2];
  q.lse = static_cast<float*>(a.lse.data);
  // (batch, heads, seqlen) dense; (heads, total) packed: one batch.
  const bool lse_given = !a.lse.empty();
  q.lse_stride_b = !lse_given || p.packed_q ? 0 : a.lse.stride[0];
  q.lse_stride_h = !lse_given ? 0 : a.lse.stride[p.packed_q ? 0 : 1];
  q.lse_stride_s = !lse_given ? 0 : a.lse.stride[p.packed_q ? 1 : 2];
  shape->grid = sa.grid_size;
  shape->pdl = a.pdl;
  return Status::Ok();
}

// The line describe() returns and WARPSPEC_LOG_CONFIG prints (worded in describe.cpp).
std::string describe_plan(const Prepared& p) {
  const Plan& l = p.plan;
  attention_impl::AttentionChoice c;
  c.dtype = l.dtype;
  c.batch = l.batch, c.seqlen_q = l.seqlen_q, c.seqlen_k = l.seqlen_k;
  c.heads_q = l.heads_q, c.heads_kv = l.heads_kv, c.head_dim = l.head_dim;
  c.window_left = p.params.window_left >= attention_impl::kUnboundedWindow ? -1 : p.params.window_left;
  c.window_right = p.params.window_right >= attention_impl::kUnboundedWindow ? -1 : p.params.window_right;
  c.softcap = l.softcap;
  c.varlen = l.packed_q || l.packed_k || p.params.seqused_q != nullptr || p.params.seqused_k != nullptr;
  c.dynamic = p.params.tile_counter != nullptr;
  c.kernel = attention_impl::config_for(l.kernel_d);
  c.sched = p.params.sched;
  c.shape = p.shape;
  return attention_impl::describe(c);
}

Status launch(const Prepared& p, cudaStream_t stream) {
  log_config_if_enabled([&] { return describe_plan(p); });
  if (p.shape.grid == 0) return Status::Ok();  // an empty output
  const attention_impl::AttentionConfig cfg{attention_impl::config_for(p.plan.kernel_d), p.plan.dtype};
  switch (p.plan.kernel_d) {
    case 64: return attention_impl::launch_attention_hd64(cfg, p.params, p.shape, stream);
    case 128: return attention_impl::launch_attention_hd128(cfg, p.params, p.shape, stream);
    case 192: return attention_impl::launch_attention_hd192(cfg, p.params, p.shape, stream);
    case 256: return attention_impl::launch_attention_hd256(cfg, p.params, p.shape, stream);
    default: return internal_error(fmt("attention: no kernel for head dim %d", p.plan.kernel_d));
  }
}

}  // namespace

Status check(const AttentionArgs& args) { return check_only<Prepared>(args, prepare); }

Status describe(const AttentionArgs& args, std::string* out) {
  Prepared p;
  WARPSPEC_RETURN_IF_ERROR(prepare(args, &p));
  *out = describe_plan(p);
  return Status::Ok();
}

Status attention_forward(const AttentionArgs& args, cudaStream_t stream) {
  return prepare_and_launch<Prepared>(args, stream, prepare, launch);
}

}  // namespace warpspec
