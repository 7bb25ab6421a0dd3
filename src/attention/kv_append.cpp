// kvcache_append: validation, then the append kernel (kv_append.cu). Nothing is
// launched or written unless every check passes.
#include <cinttypes>

#include "../common/device_props.hpp"
#include "../common/format.hpp"
#include "../common/views.hpp"
#include "kv_append.hpp"
#include "warpspec/attention_api.hpp"

namespace warpspec {
namespace {

constexpr int64_t kMaxExtent = int64_t(1) << 30;
const char* const kNames[4] = {"batch", "seqlen", "heads", "head_dim"};

// The kernel reads and writes whole elements: each view starts on one (an odd address
// would fault the context, not refuse the call).
Status check_element_aligned(const TensorView& v, const char* name) {
  const size_t e = dtype_size(v.dtype);
  if (reinterpret_cast<uintptr_t>(v.data) % e != 0)
    return misaligned(fmt("%s.data: must be %zu-byte aligned (%s), got %p", name, e, dtype_name(v.dtype), v.data));
  return Status::Ok();
}

// Rank 4 of `dtype`, extents < 2^30 matching `want` (-1: any), non-negative strides,
// the last dim contiguous.
Status check4(const TensorView& v, const char* name, DType dtype, const int64_t (&want)[4]) {
  if (v.data == nullptr) return invalid_argument(fmt("%s.data: must not be null", name));
  if (v.rank != 4) return invalid_argument(fmt("%s.rank: must be 4, got %d", name, v.rank));
  if (v.dtype != dtype)
    return invalid_argument(fmt("%s.dtype: must be %s, got %s", name, dtype_name(dtype), dtype_name(v.dtype)));
  for (int i = 0; i < 4; ++i) {
    if (v.shape[i] < 0 || v.shape[i] >= kMaxExtent)
      return invalid_argument(fmt("%s.shape[%d] (%s): must be from 0 to 2^30 - 1, got %" PRId64, name, i, kNames[i], v.shape[i]));
    if (want[i] >= 0 && v.shape[i] != want[i])
      return invalid_argument(fmt("%s.shape[%d] (%s): must be %" PRId64 ", got %" PRId64, name, i, kNames[i], want[i], v.shape[i]));
    if (v.shape[i] > 1 && v.stride[i] < 0)
      return invalid_argument(fmt("%s.stride[%d] (%s): must be >= 0, got %" PRId64, name, i, kNames[i], v.stride[i]));
  }
  if (v.shape[3] > 1 && v.stride[3] != 1)
    return invalid_argument(fmt("%s.stride[3] (head_dim): must be 1 (contiguous), got %" PRId64, name, v.stride[3]));
  return check_element_aligned(v, name);
}

Status check_i32(const TensorView& v, const char* name, int64_t length) {
  if (v.rank != 1 || v.dtype != DType::kI32 || v.shape[0] != length || (length > 1 && v.stride[0] != 1))
    return invalid_argument(fmt("%s: must be a contiguous int32 vector of batch = %" PRId64 " entries", name, length));
  if (reinterpret_cast<uintptr_t>(v.data) % 4 != 0) return misaligned(fmt("%s.data: must be 4-byte aligned", name));
  return Status::Ok();
}

// The kernels count rows (a warp each) in 64 bits and launch a block per few of them: one
// call moves fewer than 2^31 rows of `name` (batch x the named inner dimensions).
Status check_rows_per_call(const char* name, const char* inner, int64_t batch, int64_t seqlen, int64_t heads,
                           const char* verb) {
  if (__int128(batch) * seqlen * heads < (__int128(1) << 31)) return Status::Ok();
  return invalid_argument(fmt("%s.shape: batch x %s = %" PRId64 " x %" PRId64 " x %" PRId64
                              " rows; one call %s fewer than 2^31",
                              name, inner, batch, seqlen, heads, verb));
}

}  // namespace

Status kvcache_append(const KvAppendArgs& a, cudaStream_t stream) {
  const DType dt = a.k_cache.dtype;
  if (dt != DType::kBF16 && dt != DType::kFP16)
    return unsupported(fmt("k_cache.dtype: must be bf16 or fp16, got %s", dtype_name(dt)));
  const int64_t any[4] = {-1, -1, -1, -1};
  WARPSPEC_RETURN_IF_ERROR(check4(a.k_cache, "k_cache", dt, any));
  const int64_t d = a.k_cache.shape[3], heads_kv = a.k_cache.shape[2];
  if (d < 1 || d > 256) return unsupported(fmt("k_cache.shape[3] (head_dim): must be from 1 to 256, got %" PRId64, d));
  const int64_t want_vc[4] = {a.k_cache.shape[0], a.k_cache.shape[1], heads_kv, d};
  WARPSPEC_RETURN_IF_ERROR(check4(a.v_cache, "v_cache", dt, want_vc));
  WARPSPEC_RETURN_IF_ERROR(check4(a.k_new, "k_new", dt, {-1, -1, heads_kv, d}));
  const int64_t batch = a.k_new.shape[0], seqlen_new = a.k_new.shape[1];
  WARPSPEC_RETURN_IF_ERROR(check4(a.v_new, "v_new", dt, {batch, seqlen_new, heads_kv, d}));
  WARPSPEC_RETURN_IF_ERROR(check_rows_per_call("k_new", "seqlen_new x heads_kv", batch, seqlen_new, heads_kv, "appends"));
  // The caches are written: each element at its own address (a stride 0 would keep one row).
  WARPSPEC_RETURN_IF_ERROR(check_no_self_overlap(a.k_cache, "k_cache"));
  WARPSPEC_RETURN_IF_ERROR(check_no_self_overlap(a.v_cache, "v_cache"));
  if (a.cache_seqlens.empty()) return invalid_argument("cache_seqlens: required (where each sequence's new rows go)");
  WARPSPEC_RETURN_IF_ERROR(check_i32(a.cache_seqlens, "cache_seqlens", batch));
  const bool paged = !a.page_table.empty();
  if (!a.cache_batch_idx.empty()) {
    if (paged) return unsupported("cache_batch_idx: not with page_table");
    WARPSPEC_RETURN_IF_ERROR(check_i32(a.cache_batch_idx, "cache_batch_idx", batch));
  } else if (!paged && a.k_cache.shape[0] != batch) {
    return invalid_argument(fmt("k_cache.shape[0] (batch): must be %" PRId64 " (k_new's) without cache_batch_idx, got %" PRId64,
                                batch, a.k_cache.shape[0]));
  }
  if (!a.cache_leftpad.empty()) {
    if (paged) return unsupported("cache_leftpad: not with page_table");
    WARPSPEC_RETURN_IF_ERROR(check_i32(a.cache_leftpad, "cache_leftpad", batch));
  }
  if (paged) {
    const TensorView& t = a.page_table;
    if (t.rank != 2 || t.dtype != DType::kI32 || t.shape[0] != batch || t.shape[1] < 1 ||
        (t.shape[1] > 1 && t.stride[1] != 1) || (t.shape[0] > 1 && t.stride[0] < 0))
      return invalid_argument(fmt("page_table: must be int32 (batch = %" PRId64 ", max_pages >= 1), last dim contiguous",
                                  batch));
    if (reinterpret_cast<uintptr_t>(t.data) % 4 != 0) return misaligned("page_table.data: must be 4-byte aligned");
    // The kernel divides cache rows by the page size, and counts a sequence's rows in 32 bits
    // (attention's rule for a paged cache).
    if (a.k_cache.shape[1] < 1)
      return invalid_argument(fmt("k_cache.shape[1] (page_size): must be at least 1 with page_table, got %" PRId64,
                                  a.k_cache.shape[1]));
    if (__int128(t.shape[1]) * a.k_cache.shape[1] >= kMaxExtent)
      return invalid_argument(fmt("page_table.shape[1] (max_pages): max_pages * page_size must be < 2^30, got %" PRId64
                                  " * %" PRId64, t.shape[1], a.k_cache.shape[1]));
  }
  const bool rotary = !a.rotary_cos.empty() || !a.rotary_sin.empty();
  int64_t rotary_dim = 0;
  if (rotary) {
    const TensorView& c = a.rotary_cos;
    const TensorView& s = a.rotary_sin;
    if (c.empty() || s.empty()) return invalid_argument("rotary_cos, rotary_sin: give both or neither");
    if (c.rank != 2 || s.rank != 2 || c.dtype != dt || s.dtype != dt)
      return invalid_argument(fmt("rotary_cos, rotary_sin: must be rank 2 (seqlen_ro, rotary_dim / 2) of %s", dtype_name(dt)));
    if (c.shape[0] != s.shape[0] || c.shape[1] != s.shape[1])
      return invalid_argument("rotary_sin.shape: must equal rotary_cos.shape");
    if (c.shape[1] < 1 || c.shape[1] > d / 2)  // before 2 * shape[1], which could overflow
      return invalid_argument(fmt("rotary_cos.shape[1] (rotary_dim / 2): must be from 1 to head_dim / 2 (%" PRId64
                                  "), got %" PRId64, d / 2, c.shape[1]));
    rotary_dim = 2 * c.shape[1];
    if (c.shape[0] >= (int64_t(1) << 31))
      return invalid_argument(fmt("rotary_cos.shape[0] (seqlen_ro): must be below 2^31 (positions are 32-bit), got %" PRId64,
                                  c.shape[0]));
    if (c.shape[0] < 1)  // (rotary_dim's range is checked above)
      return invalid_argument(fmt("rotary_cos.shape[0] (seqlen_ro): must be at least 1, got %" PRId64, c.shape[0]));
    if ((c.shape[1] > 1 && c.stride[1] != 1) || (s.shape[1] > 1 && s.stride[1] != 1) || c.stride[0] < 0 || s.stride[0] < 0)
      return invalid_argument("rotary_cos, rotary_sin: the last dim must be contiguous, the first stride >= 0");
    WARPSPEC_RETURN_IF_ERROR(check_element_aligned(c, "rotary_cos"));
    WARPSPEC_RETURN_IF_ERROR(check_element_aligned(s, "rotary_sin"));
    // Positions are cache rows (cache_seqlens + t, counting a left pad as FlashAttention-3
    // does), so the table covers every row a sequence can hold, as FlashAttention-3 asks.
    const int64_t rows = paged ? a.page_table.shape[1] * a.k_cache.shape[1] : a.k_cache.shape[1];
    if (c.shape[0] < rows)
      return invalid_argument(fmt("rotary_cos.shape[0] (seqlen_ro): must be at least the cache's rows per sequence (%" PRId64
                                  "), got %" PRId64, rows, c.shape[0]));
  }
  int64_t seqlen_q = 0, heads_q = 0;
  if (a.q.empty() && !a.q_out.empty()) return invalid_argument("q_out: given without q (q is what is rotated into it)");
  if (!a.q.empty()) {
    if (!rotary) return invalid_argument("q: only with rotary_cos / rotary_sin (q is only rotated)");
    WARPSPEC_RETURN_IF_ERROR(check4(a.q, "q", dt, {batch, -1, -1, d}));
    seqlen_q = a.q.shape[1];
    heads_q = a.q.shape[2];
    WARPSPEC_RETURN_IF_ERROR(check4(a.q_out, "q_out", dt, {batch, seqlen_q, heads_q, d}));
    WARPSPEC_RETURN_IF_ERROR(check_rows_per_call("q", "seqlen_q x heads_q", batch, seqlen_q, heads_q, "rotates"));
    WARPSPEC_RETURN_IF_ERROR(check_no_self_overlap(a.q_out, "q_out"));
    if (!same_view(a.q, a.q_out)) WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.q_out, "q_out", a.q, "q", false));
    // q_out is written too: it shares memory with nothing else the append reads or writes.
    const std::pair<const TensorView*, const char*> others[] = {
        {&a.k_cache, "k_cache"}, {&a.v_cache, "v_cache"}, {&a.k_new, "k_new"}, {&a.v_new, "v_new"},
        {&a.cache_seqlens, "cache_seqlens"}, {&a.cache_batch_idx, "cache_batch_idx"},
        {&a.cache_leftpad, "cache_leftpad"}, {&a.page_table, "page_table"}, {&a.rotary_cos, "rotary_cos"},
        {&a.rotary_sin, "rotary_sin"}};
    for (const auto& [v, name] : others)
      if (!v->empty()) WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.q_out, "q_out", *v, name, false));
  }
  // The cache is written: it must not share memory with what is read.
  const std::pair<const TensorView*, const char*> reads[] = {
      {&a.k_new, "k_new"}, {&a.v_new, "v_new"}, {&a.cache_seqlens, "cache_seqlens"},
      {&a.cache_batch_idx, "cache_batch_idx"}, {&a.cache_leftpad, "cache_leftpad"}, {&a.page_table, "page_table"},
      {&a.rotary_cos, "rotary_cos"}, {&a.rotary_sin, "rotary_sin"}, {&a.q, "q"}};
  for (const auto& [v, name] : reads) {
    if (v->empty()) continue;
    WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.k_cache, "k_cache", *v, name, false));
    WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.v_cache, "v_cache", *v, name, false));
  }
  WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.k_cache, "k_cache", a.v_cache, "v_cache", false));
  DeviceProps device;
  WARPSPEC_RETURN_IF_ERROR(current_device_props(&device));
  const std::pair<const TensorView*, const char*> all[] = {
      {&a.k_cache, "k_cache"}, {&a.v_cache, "v_cache"}, {&a.k_new, "k_new"}, {&a.v_new, "v_new"},
      {&a.cache_seqlens, "cache_seqlens"}, {&a.cache_batch_idx, "cache_batch_idx"},
      {&a.cache_leftpad, "cache_leftpad"}, {&a.page_table, "page_table"}, {&a.rotary_cos, "rotary_cos"},
      {&a.rotary_sin, "rotary_sin"}, {&a.q, "q"}, {&a.q_out, "q_out"}};
  for (const auto& [v, name] : all) {
    if (v->empty()) continue;
    ByteSpan span;
    WARPSPEC_RETURN_IF_ERROR(view_span(*v, name, &span));
    if (!span.empty()) WARPSPEC_RETURN_IF_ERROR(check_device_memory(v->data, name, device.ordinal));
  }

  attention_impl::KvAppendParams p{};
  p.k_cache = a.k_cache.data;
  p.v_cache = a.v_cache.data;
  p.kc_stride_b = a.k_cache.stride[0], p.kc_stride_s = a.k_cache.stride[1], p.kc_stride_h = a.k_cache.stride[2];
  p.vc_stride_b = a.v_cache.stride[0], p.vc_stride_s = a.v_cache.stride[1], p.vc_stride_h = a.v_cache.stride[2];
  p.cache_batch = int32_t(a.k_cache.shape[0]);
  p.cache_rows = int32_t(a.k_cache.shape[1]);
  p.k_new = a.k_new.data;
  p.v_new = a.v_new.data;
  p.kn_stride_b = a.k_new.stride[0], p.kn_stride_s = a.k_new.stride[1], p.kn_stride_h = a.k_new.stride[2];
  p.vn_stride_b = a.v_new.stride[0], p.vn_stride_s = a.v_new.stride[1], p.vn_stride_h = a.v_new.stride[2];
  p.seqlen_new = int32_t(seqlen_new);
  p.heads_kv = int32_t(heads_kv);
  if (!a.q.empty()) {
    p.q = a.q.data;
    p.q_out = a.q_out.data;
    p.q_stride_b = a.q.stride[0], p.q_stride_s = a.q.stride[1], p.q_stride_h = a.q.stride[2];
    p.qo_stride_b = a.q_out.stride[0], p.qo_stride_s = a.q_out.stride[1], p.qo_stride_h = a.q_out.stride[2];
    p.seqlen_q = int32_t(seqlen_q);
    p.heads_q = int32_t(heads_q);
  }
  p.cache_seqlens = static_cast<const int32_t*>(a.cache_seqlens.data);
  p.cache_batch_idx = static_cast<const int32_t*>(a.cache_batch_idx.data);
  p.page_table = static_cast<const int32_t*>(a.page_table.data);
  p.page_table_stride = paged ? a.page_table.stride[0] : 0;
  p.pages_per_seq = paged ? int32_t(a.page_table.shape[1]) : 0;
  if (rotary) {
    p.cos = a.rotary_cos.data;
    p.sin = a.rotary_sin.data;
    p.cos_stride = a.rotary_cos.stride[0];
    p.sin_stride = a.rotary_sin.stride[0];
    p.seqlen_ro = int32_t(a.rotary_cos.shape[0]);
    p.rotary_dim = int32_t(rotary_dim);
  }
  p.interleaved = a.rotary_interleaved;
  p.q_per_token = a.q_per_token;
  p.batch = int32_t(batch);
  p.head_dim = int32_t(d);
  return attention_impl::launch_kv_append(p, dt, stream);
}

}  // namespace warpspec
