// attention_combine (FlashAttention-3's flash_attn_combine): validation, then the
// combine kernel (combine.cu). Nothing is launched unless every check passes.
#include <cinttypes>

#include "../common/device_props.hpp"
#include "../common/format.hpp"
#include "../common/views.hpp"
#include "combine.hpp"
#include "warpspec/attention/combine_params.hpp"
#include "warpspec/attention_api.hpp"
#include "warpspec/schedule/split_kv.hpp"

namespace warpspec {
namespace {

constexpr int64_t kMaxExtent = int64_t(1) << 30;

// Rank, dtype, extents, non-negative strides (positive where stepped over), the last
// dim contiguous, the others multiples of `stride_mult`, data `align`-byte aligned; an
// empty view (an extent 0, torch's data pointer then null) only its rank and extents.
Status check_view(const TensorView& v, const char* name, int rank, const char* const* names, int64_t stride_mult,
                  uintptr_t align, bool last_contiguous) {
  if (v.rank != rank) return invalid_argument(fmt("%s.rank: must be %d, got %d", name, rank, v.rank));
  for (int i = 0; i < rank; ++i) {
    if (v.shape[i] < 0 || v.shape[i] >= kMaxExtent)
      return invalid_argument(fmt("%s.shape[%d] (%s): must be from 0 to 2^30 - 1, got %" PRId64, name, i, names[i], v.shape[i]));
    if (v.shape[i] > 1 && v.stride[i] < 0)
      return invalid_argument(fmt("%s.stride[%d] (%s): must be >= 0, got %" PRId64, name, i, names[i], v.stride[i]));
  }
  bool empty = false;  // no element is addressed: the stride and pointer rules do not apply
  for (int i = 0; i < rank; ++i) empty = empty || v.shape[i] == 0;
  if (empty) return Status::Ok();
  if (last_contiguous && v.shape[rank - 1] > 1 && v.stride[rank - 1] != 1)
    return invalid_argument(fmt("%s.stride[%d] (%s): the last dimension must be contiguous (stride 1), got %" PRId64, name,
                                rank - 1, names[rank - 1], v.stride[rank - 1]));
  for (int i = 0; i < rank - (last_contiguous ? 1 : 0); ++i)
    if (v.shape[i] > 1 && v.stride[i] % stride_mult != 0)
      return misaligned(fmt("%s.stride[%d] (%s): must be a multiple of %" PRId64 " elements, got %" PRId64, name, i,
                            names[i], stride_mult, v.stride[i]));
  if (v.data == nullptr) return invalid_argument(fmt("%s.data: must not be null", name));
  if (reinterpret_cast<uintptr_t>(v.data) % align != 0)
    return misaligned(fmt("%s.data: must be %zu-byte aligned (got %p)", name, size_t(align), v.data));
  return Status::Ok();
}

// The contiguous element range [data, data + extent) a view of `splits` copies
// `split_stride` apart can touch, as a rank-1 view (for the overlap checks).
// Computed in 128 bits and held at INT64_MAX, so a reach past the address space stays
// past it (view_span then refuses it by name) instead of wrapping to a small range.
TensorView hull(const TensorView& v, int64_t splits, int64_t split_stride) {
  __int128 last = splits > 0 ? __int128(splits - 1) * split_stride : 0;
  bool empty = splits == 0;
  for (int i = 0; i < v.rank; ++i) {
    if (v.shape[i] == 0) empty = true;
    else last += __int128(v.shape[i] - 1) * v.stride[i];
  }
  TensorView h;
  h.data = v.data;
  h.dtype = v.dtype;
  h.rank = 1;
  h.shape[0] = empty ? 0 : last + 1 >= __int128(INT64_MAX) ? INT64_MAX : int64_t(last + 1);
  h.stride[0] = 1;
  return h;
}

}  // namespace

Status attention_combine(const CombineArgs& a, cudaStream_t stream) {
  static const char* const kONames[4] = {"batch", "seqlen", "heads", "head_dim"};
  static const char* const kLNames[3] = {"batch", "seqlen", "heads"};
  static const char* const kLseNames[3] = {"batch", "heads", "seqlen"};
  if (a.num_splits < 1 || a.num_splits > schedule::kMaxKvSplits)
    return invalid_argument(fmt("num_splits: must be from 1 to %d, got %" PRId64, schedule::kMaxKvSplits, a.num_splits));
  if (a.out_partial.dtype != DType::kFP32)
    return invalid_argument(fmt("out_partial.dtype: must be fp32, got %s", dtype_name(a.out_partial.dtype)));
  WARPSPEC_RETURN_IF_ERROR(check_view(a.out_partial, "out_partial", 4, kONames, 4, 16, true));
  const int64_t batch = a.out_partial.shape[0], seqlen = a.out_partial.shape[1], heads = a.out_partial.shape[2],
                head_dim = a.out_partial.shape[3];
  if (head_dim % 4 != 0 || head_dim == 0)
    return unsupported(fmt("out_partial.shape[3] (head_dim): must be a positive multiple of 4 (float4 columns), got %" PRId64,
                           head_dim));
  if (a.num_splits > 1 && (a.out_partial_split_stride < 0 || a.out_partial_split_stride % 4 != 0))
    return misaligned(fmt("out_partial_split_stride: must be a non-negative multiple of 4 elements, got %" PRId64,
                          a.out_partial_split_stride));
  if (a.lse_partial.dtype != DType::kFP32)
    return invalid_argument(fmt("lse_partial.dtype: must be fp32, got %s", dtype_name(a.lse_partial.dtype)));
  WARPSPEC_RETURN_IF_ERROR(check_view(a.lse_partial, "lse_partial", 3, kLNames, 1, 4, false));
  const int64_t want_l[3] = {batch, seqlen, heads};
  for (int i = 0; i < 3; ++i)
    if (a.lse_partial.shape[i] != want_l[i])
      return invalid_argument(fmt("lse_partial.shape[%d] (%s): must be %" PRId64 " (out_partial's), got %" PRId64, i,
                                  kLNames[i], want_l[i], a.lse_partial.shape[i]));
  if (a.num_splits > 1 && a.lse_partial_split_stride < 0)
    return invalid_argument(fmt("lse_partial_split_stride: must be >= 0, got %" PRId64, a.lse_partial_split_stride));
  if (a.out.dtype != DType::kFP32 && a.out.dtype != DType::kBF16 && a.out.dtype != DType::kFP16)
    return unsupported(fmt("out.dtype: must be fp32, bf16 or fp16, got %s", dtype_name(a.out.dtype)));
  WARPSPEC_RETURN_IF_ERROR(check_view(a.out, "out", 4, kONames, 4, 16, true));
  for (int i = 0; i < 4; ++i)
    if (a.out.shape[i] != a.out_partial.shape[i])
      return invalid_argument(fmt("out.shape[%d] (%s): must be %" PRId64 " (out_partial's), got %" PRId64, i, kONames[i],
                                  a.out_partial.shape[i], a.out.shape[i]));
  if (!a.lse.empty()) {
    if (a.lse.dtype != DType::kFP32) return invalid_argument(fmt("lse.dtype: must be fp32, got %s", dtype_name(a.lse.dtype)));
    WARPSPEC_RETURN_IF_ERROR(check_view(a.lse, "lse", 3, kLseNames, 1, 4, false));
    const int64_t want[3] = {batch, heads, seqlen};
    for (int i = 0; i < 3; ++i)
      if (a.lse.shape[i] != want[i])
        return invalid_argument(fmt("lse.shape[%d] (%s): must be %" PRId64 ", got %" PRId64, i, kLseNames[i], want[i],
                                    a.lse.shape[i]));
  }
  const TensorView op = hull(a.out_partial, a.num_splits, a.out_partial_split_stride);
  const TensorView lp = hull(a.lse_partial, a.num_splits, a.lse_partial_split_stride);
  WARPSPEC_RETURN_IF_ERROR(check_no_self_overlap(a.out, "out"));
  if (!a.lse.empty()) WARPSPEC_RETURN_IF_ERROR(check_no_self_overlap(a.lse, "lse"));
  WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.out, "out", op, "out_partial", false));
  WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.out, "out", lp, "lse_partial", false));
  if (!a.lse.empty()) {
    WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.lse, "lse", op, "out_partial", false));
    WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.lse, "lse", lp, "lse_partial", false));
    WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.lse, "lse", a.out, "out", false));
  }
  DeviceProps device;
  WARPSPEC_RETURN_IF_ERROR(current_device_props(&device));
  if (batch == 0 || seqlen == 0 || heads == 0) return Status::Ok();
  const std::pair<const TensorView*, const char*> views[] = {
      {&op, "out_partial"}, {&lp, "lse_partial"}, {&a.out, "out"}, {&a.lse, "lse"}};
  for (const auto& [v, name] : views)
    if (!v->empty()) WARPSPEC_RETURN_IF_ERROR(check_device_memory(v->data, name, device.ordinal));

  attention_impl::CombineParams c{};
  c.o_partial = static_cast<float*>(a.out_partial.data);  // read only
  c.op_stride_split = a.out_partial_split_stride;
  c.op_stride_b = a.out_partial.stride[0];
  c.op_stride_s = a.out_partial.stride[1];
  c.op_stride_h = a.out_partial.stride[2];
  c.lse_partial = static_cast<float*>(a.lse_partial.data);
  c.lp_stride_split = a.lse_partial_split_stride;
  c.lp_stride_b = a.lse_partial.stride[0];
  c.lp_stride_s = a.lse_partial.stride[1];
  c.lp_stride_h = a.lse_partial.stride[2];
  c.out = a.out.data;
  c.out_dtype = a.out.dtype;
  c.o_stride_b = a.out.stride[0];
  c.o_stride_s = a.out.stride[1];
  c.o_stride_h = a.out.stride[2];
  c.lse = static_cast<float*>(a.lse.data);
  c.lse_stride_b = a.lse.empty() ? 0 : a.lse.stride[0];
  c.lse_stride_h = a.lse.empty() ? 0 : a.lse.stride[1];
  c.lse_stride_s = a.lse.empty() ? 0 : a.lse.stride[2];
  c.total_rows = int32_t(seqlen);
  c.splits = int32_t(a.num_splits);
  c.batch = int32_t(batch);
  c.rows = int32_t(seqlen);
  c.heads = int32_t(heads);
  c.head_dim = int32_t(head_dim);
  return attention_impl::launch_combine(c, stream);
}

}  // namespace warpspec
