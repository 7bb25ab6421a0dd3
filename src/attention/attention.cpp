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

const char* const kDimNames[4] = {"batch", "seqlen", "heads", "head_dim"};

// Rank, dtype, pointer, shape and stride rules shared by q, k, v and o.
Status check_bshd(const TensorView& v, const char* name, DType dtype, const int64_t (&shape)[4]) {
  // A default (absent) view: say what is missing rather than that its rank is 0.
  if (v.data == nullptr && v.rank == 0) return invalid_argument(fmt("%s.data: must not be null", name));
  if (v.rank != 4)
    return invalid_argument(fmt("%s.rank: must be 4 (batch, seqlen, heads, head_dim), got %d", name, v.rank));
  if (v.dtype != dtype)
    return invalid_argument(fmt("%s.dtype: must equal q.dtype (%s), got %s", name, dtype_name(dtype), dtype_name(v.dtype)));
  for (int i = 0; i < 4; ++i)
    if (shape[i] >= 0 && v.shape[i] != shape[i])
      return invalid_argument(fmt("%s.shape[%d] (%s): must be %" PRId64 ", got %" PRId64, name, i, kDimNames[i],
                                  shape[i], v.shape[i]));
  bool empty = false;
  for (int i = 0; i < 4; ++i) {
    if (v.shape[i] < 0)
      return invalid_argument(fmt("%s.shape[%d] (%s): must be >= 0, got %" PRId64, name, i, kDimNames[i], v.shape[i]));
    if (v.shape[i] >= kMaxExtent)
      return invalid_argument(fmt("%s.shape[%d] (%s): must be < 2^30, got %" PRId64, name, i, kDimNames[i], v.shape[i]));
    empty = empty || v.shape[i] == 0;
  }
  if (empty) return Status::Ok();  // no element is addressed: pointer and stride rules do not apply
  if (v.data == nullptr) return invalid_argument(fmt("%s.data: must not be null", name));
  if (reinterpret_cast<uintptr_t>(v.data) % 16 != 0)
    return misaligned(fmt("%s.data: must be 16-byte aligned for TMA (got %p)", name, v.data));
  if (v.stride[3] != 1)
    return invalid_argument(fmt("%s.stride[3] (head_dim): the last dimension must be contiguous (stride 1), got %" PRId64,
                                name, v.stride[3]));
  const int64_t e = int64_t(dtype_size(dtype));
  for (int i = 0; i < 3; ++i) {
    if (v.shape[i] == 1) continue;  // never stepped over: any stride
    if (v.stride[i] <= 0)
      return invalid_argument(fmt("%s.stride[%d] (%s): must be positive, got %" PRId64, name, i, kDimNames[i], v.stride[i]));
    // Before any product: a huge stride times the element size would overflow.
    if (v.stride[i] >= (int64_t(1) << 40) / e)
      return invalid_argument(fmt("%s.stride[%d] (%s): %" PRId64 " elements is 2^40 bytes or more (TMA's limit)", name,
                                  i, kDimNames[i], v.stride[i]));
    if ((v.stride[i] * e) % 16 != 0)
      return misaligned(fmt("%s.stride[%d] (%s): %" PRId64 " elements = %" PRId64
                            " bytes; TMA needs a multiple of 16 bytes (8 elements)",
                            name, i, kDimNames[i], v.stride[i], v.stride[i] * e));
  }
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
  int64_t batch = 0, seqlen_q = 0, seqlen_k = 0, heads_q = 0, heads_kv = 0, head_dim = 0;
  int kernel_d = 0;
  float scale = 0;
};

Status make_plan(const AttentionArgs& a, Plan* plan) {
  Plan p;
  if (a.q.data == nullptr && a.q.rank == 0) return invalid_argument("q.data: must not be null");
  if (a.q.rank != 4) return invalid_argument(fmt("q.rank: must be 4 (batch, seqlen, heads, head_dim), got %d", a.q.rank));
  if (a.q.dtype != DType::kBF16 && a.q.dtype != DType::kFP16)
    return unsupported(fmt("q.dtype: must be bf16 or fp16, got %s", dtype_name(a.q.dtype)));
  p.dtype = a.q.dtype;
  p.head_dim = a.q.shape[3];
  p.kernel_d = attention_impl::kernel_head_dim(p.head_dim);
  if (p.kernel_d == 0)
    return unsupported(fmt("q.shape[3] (head_dim): must be a multiple of 8 from 8 to 256 (64, 128, 192 and 256 run "
                           "natively, others padded up to the next), got %" PRId64, p.head_dim));
  WARPSPEC_RETURN_IF_ERROR(check_bshd(a.q, "q", p.dtype, {-1, -1, -1, -1}));
  p.batch = a.q.shape[0];
  p.seqlen_q = a.q.shape[1];
  p.heads_q = a.q.shape[2];
  if (a.k.rank == 4) {
    p.seqlen_k = a.k.shape[1];
    p.heads_kv = a.k.shape[2];
  }
  WARPSPEC_RETURN_IF_ERROR(check_bshd(a.k, "k", p.dtype, {p.batch, -1, -1, p.head_dim}));
  if (p.heads_kv < 1) return invalid_argument("k.shape[2] (heads): must be >= 1, got 0");
  WARPSPEC_RETURN_IF_ERROR(check_bshd(a.v, "v", p.dtype, {p.batch, p.seqlen_k, p.heads_kv, p.head_dim}));
  if (p.heads_q % p.heads_kv != 0)
    return invalid_argument(fmt("k.shape[2] (heads): heads_q (%" PRId64 ") must be a multiple of heads_kv (%" PRId64 ")",
                                p.heads_q, p.heads_kv));
  WARPSPEC_RETURN_IF_ERROR(check_bshd(a.o, "o", p.dtype, {p.batch, p.seqlen_q, p.heads_q, p.head_dim}));
  if (!a.lse.empty()) {
    const TensorView& l = a.lse;
    if (l.rank != 3)
      return invalid_argument(fmt("lse.rank: must be 3 (batch, heads_q, seqlen_q), got %d", l.rank));
    if (l.dtype != DType::kFP32) return invalid_argument(fmt("lse.dtype: must be fp32, got %s", dtype_name(l.dtype)));
    const int64_t want[3] = {p.batch, p.heads_q, p.seqlen_q};
    const char* names[3] = {"batch", "heads_q", "seqlen_q"};
    for (int i = 0; i < 3; ++i) {
      if (l.shape[i] != want[i])
        return invalid_argument(fmt("lse.shape[%d] (%s): must be %" PRId64 ", got %" PRId64, i, names[i], want[i], l.shape[i]));
      if (l.shape[i] > 1 && l.stride[i] <= 0)
        return invalid_argument(fmt("lse.stride[%d] (%s): must be positive, got %" PRId64, i, names[i], l.stride[i]));
    }
    if (reinterpret_cast<uintptr_t>(l.data) % 4 != 0)
      return misaligned(fmt("lse.data: must be 4-byte aligned (got %p)", l.data));
  }
  // o shares no memory with k or v, and with q only as the very same view (in place: a
  // tile reads its own Q rows before it writes the same O rows); lse with none of them.
  WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.o, "o", a.k, "k", false));
  WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.o, "o", a.v, "v", false));
  WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.o, "o", a.q, "q", true));
  if (!a.lse.empty()) {
    const std::pair<const TensorView*, const char*> inputs[] = {{&a.q, "q"}, {&a.k, "k"}, {&a.v, "v"}, {&a.o, "o"}};
    for (const auto& [v, name] : inputs) WARPSPEC_RETURN_IF_ERROR(check_disjoint(a.lse, "lse", *v, name, false));
  }
  if (a.softmax_scale.has_value()) {
    const float sc = *a.softmax_scale;
    if (!std::isfinite(sc) || !(sc > 0.0f))
      return invalid_argument(fmt("softmax_scale: must be positive and finite, got %g", double(sc)));
    // The kernel works in base 2 with scale·log2(e) in fp32: it must stay finite.
    if (!std::isfinite(float(double(sc) * 1.4426950408889634)))
      return invalid_argument(fmt("softmax_scale: %g is too large: scale·log2(e) overflows fp32 (at most %g)", double(sc),
                                  double(3.4028234663852886e38 / 1.4426950408889634)));
    p.scale = sc;
  } else {
    p.scale = float(1.0 / std::sqrt(double(p.head_dim)));
  }
  *plan = p;
  return Status::Ok();
}

using Prepared = PreparedLaunch<Plan, AttentionParams>;

// Pointers are device memory of the current device (empty views are never read).
Status check_pointers(const AttentionArgs& a, int device) {
  const std::pair<const TensorView*, const char*> views[] = {
      {&a.q, "q"}, {&a.k, "k"}, {&a.v, "v"}, {&a.o, "o"}, {&a.lse, "lse"}};
  for (const auto& [v, name] : views) {
    if (v == &a.lse && a.lse.empty()) continue;
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
  if (plan->batch == 0 || plan->seqlen_q == 0 || plan->heads_q == 0) {  // an empty output; every rule was checked
    shape->grid = 0;
    return Status::Ok();
  }

  const Plan& p = *plan;
  const attention_impl::HeadDimConfig cfg = attention_impl::config_for(p.kernel_d);
  AttentionParams& q = *params;
  WARPSPEC_RETURN_IF_ERROR(make_map(&q.map_q, a.q, uint32_t(kBlockM), "q"));
  WARPSPEC_RETURN_IF_ERROR(make_map(&q.map_o, a.o, 64, "o"));
  if (p.seqlen_k > 0) {
    WARPSPEC_RETURN_IF_ERROR(make_map(&q.map_k, a.k, uint32_t(cfg.block_n), "k"));
    WARPSPEC_RETURN_IF_ERROR(make_map(&q.map_v, a.v, uint32_t(cfg.block_n), "v"));
  } else {  // no key: every tile writes O = 0 and LSE = −inf without loading K or V
    q.map_k = q.map_v = q.map_q;
  }

  schedule::AttentionSchedulerArguments sa;
  const int64_t tiles_m = (p.seqlen_q + kBlockM - 1) / kBlockM;
  if (tiles_m * p.heads_q * p.batch >= (int64_t(1) << 30))
    return invalid_argument(fmt("shape: %" PRId64 " query tiles is too many for one launch", tiles_m * p.heads_q * p.batch));
  sa.tiles_m = int(tiles_m);
  sa.heads = int(p.heads_q);
  sa.batch = int(p.batch);
  sa.order = a.causal ? schedule::AttentionOrder::kLongestFirst : schedule::AttentionOrder::kMFastest;
  sa.grid_size = schedule::attention_grid_size(sa.tiles_m, sa.heads, sa.batch, device.sm_count);
  if (const char* why = schedule::AttentionScheduler::check(sa)) return internal_error(fmt("scheduler: %s", why));
  q.sched = schedule::AttentionScheduler(sa);
  q.seqlen_q = int32_t(p.seqlen_q);
  q.seqlen_k = int32_t(p.seqlen_k);
  q.head_dim = int32_t(p.head_dim);
  q.group = int32_t(p.heads_q / p.heads_kv);
  q.causal = a.causal ? 1 : 0;
  q.scale_log2 = float(double(p.scale) * 1.4426950408889634);
  q.o = a.o.data;
  q.o_stride_b = a.o.stride[0];
  q.o_stride_s = a.o.stride[1];
  q.o_stride_h = a.o.stride[2];
  q.lse = static_cast<float*>(a.lse.data);
  q.lse_stride_b = a.lse.empty() ? 0 : a.lse.stride[0];
  q.lse_stride_h = a.lse.empty() ? 0 : a.lse.stride[1];
  q.lse_stride_s = a.lse.empty() ? 0 : a.lse.stride[2];
  shape->grid = sa.grid_size;
  shape->pdl = a.pdl;
  return Status::Ok();
}

// The line describe() returns and WARPSPEC_LOG_CONFIG prints (worded in describe.cpp).
std::string describe_plan(const Prepared& p) {
  const Plan& l = p.plan;
  attention_impl::AttentionChoice c{l.dtype, l.batch, l.seqlen_q, l.seqlen_k, l.heads_q, l.heads_kv, l.head_dim};
  c.window_right = p.params.causal ? 0 : -1;
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
