#include "views.hpp"

#include <cuda_runtime_api.h>

#include <cinttypes>
#include <string>
#include <utility>

#include "format.hpp"

namespace warpspec {

Status view_span(const TensorView& v, const char* name, ByteSpan* out) {
  if (v.rank < 0 || v.rank > kMaxTensorRank)
    return invalid_argument(fmt("%s.rank: must be 0 to %d, got %d", name, kMaxTensorRank, v.rank));
  const uint64_t base = reinterpret_cast<uintptr_t>(v.data);
  unsigned __int128 last = 0;  // byte offset of the last element
  for (int i = 0; i < v.rank; ++i) {  // callers' precondition, enforced: this may run before their own checks
    if (v.shape[i] < 0) return invalid_argument(fmt("%s.shape[%d]: must be >= 0, got %" PRId64, name, i, v.shape[i]));
    if (v.shape[i] > 1 && v.stride[i] < 0)
      return invalid_argument(fmt("%s.stride[%d]: must be >= 0, got %" PRId64, name, i, v.stride[i]));
  }
  for (int i = 0; i < v.rank; ++i) {
    if (v.shape[i] == 0) {
      *out = ByteSpan{base, base};
      return Status::Ok();
    }
    last += static_cast<unsigned __int128>(v.shape[i] - 1) * static_cast<uint64_t>(v.stride[i]);
  }
  const unsigned __int128 hi = base + (last + 1) * dtype_size(v.dtype);
  if (hi > static_cast<unsigned __int128>(INT64_MAX))
    return invalid_argument(fmt("%s: shape and strides reach past the 64-bit address space", name));
  *out = ByteSpan{base, static_cast<uint64_t>(hi)};
  return Status::Ok();
}

bool same_view(const TensorView& a, const TensorView& b) {
  if (a.data != b.data || a.dtype != b.dtype || a.rank != b.rank) return false;
  for (int i = 0; i < a.rank; ++i) {
    if (a.shape[i] != b.shape[i]) return false;
    if (a.shape[i] > 1 && a.stride[i] != b.stride[i]) return false;
  }
  return true;
}

namespace {

// The dimensions of extent > 1, narrowest stride first, into dims; their count. -1 when an
// extent is 0 (no element). Rank already checked to be at most kMaxTensorRank.
int dims_by_stride(const TensorView& v, int (&dims)[kMaxTensorRank]) {
  int n = 0;
  for (int i = 0; i < v.rank; ++i) {
    if (v.shape[i] == 0) return -1;
    if (v.shape[i] > 1) dims[n++] = i;
  }
  for (int i = 1; i < n; ++i)  // insertion sort: at most four
    for (int j = i; j > 0 && v.stride[dims[j]] < v.stride[dims[j - 1]]; --j) std::swap(dims[j], dims[j - 1]);
  return n;
}

// Two views of one shape, strides and dtype whose byte ranges intersect, each addressing
// every element once with nested strides (check_no_self_overlap's rule): whether some
// element of one is an element of the other, exactly. Their element offsets differ by
// `delta` = sum over dimensions of (i - j) * stride with |i - j| < extent: taken from the
// widest stride down, each level leaves a remainder the narrower ones must reach, which
// at most two differences allow. False where the views interleave (K and V of one
// (b, s, 2, h, d) cache); true where they cannot be told apart this way.
bool lattices_meet(const TensorView& v, int64_t delta_elems) {
  int dims[kMaxTensorRank];
  const int n = dims_by_stride(v, dims);
  if (n < 0) return false;  // no element
  __int128 reach[kMaxTensorRank + 1] = {};  // reach[j]: what dims[0..j) span
  for (int j = 0; j < n; ++j) reach[j + 1] = reach[j] + __int128(v.shape[dims[j]] - 1) * v.stride[dims[j]];
  // Depth-first from the widest stride: at most 2^rank paths.
  struct Step { int level; __int128 rest; };
  Step stack[2 * kMaxTensorRank + 2];
  int top = 0;
  stack[top++] = {n, delta_elems};
  while (top > 0) {
    const Step st = stack[--top];
    if (st.level == 0) {
      if (st.rest == 0) return true;
      continue;
    }
    const int d = dims[st.level - 1];
    const __int128 stride = v.stride[d], inner = reach[st.level - 1];
    const __int128 lo_c = -(v.shape[d] - 1), hi_c = v.shape[d] - 1;
    // c with |rest - c * stride| <= inner: c in [(rest - inner) / stride, (rest + inner) / stride].
    auto floor_div = [](__int128 a, __int128 b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
    __int128 c0 = floor_div(st.rest - inner + stride - 1, stride), c1 = floor_div(st.rest + inner, stride);
    if (c0 < lo_c) c0 = lo_c;
    if (c1 > hi_c) c1 = hi_c;
    if (c1 - c0 > 1) return true;  // not nested after all: cannot tell, assume they meet
    for (__int128 c = c0; c <= c1; ++c) stack[top++] = {st.level - 1, st.rest - c * stride};
  }
  return false;
}

bool elements_meet(const TensorView& a, const TensorView& b) {
  if (a.dtype != b.dtype || a.rank != b.rank) return true;
  for (int i = 0; i < a.rank; ++i)
    if (a.shape[i] != b.shape[i] || (a.shape[i] > 1 && a.stride[i] != b.stride[i])) return true;
  if (!check_no_self_overlap(a, "").ok()) return true;
  const int64_t bytes = int64_t(reinterpret_cast<uintptr_t>(b.data) - reinterpret_cast<uintptr_t>(a.data));
  const int64_t e = int64_t(dtype_size(a.dtype));
  if (bytes % e != 0) return true;  // elements straddle: the byte ranges decide
  return lattices_meet(a, bytes / e);
}

}  // namespace

Status check_disjoint(const TensorView& out, const char* out_name, const TensorView& in, const char* in_name,
                      bool identical_ok) {
  if (identical_ok && same_view(out, in)) return Status::Ok();
  ByteSpan a, b;
  WARPSPEC_RETURN_IF_ERROR(view_span(out, out_name, &a));
  WARPSPEC_RETURN_IF_ERROR(view_span(in, in_name, &b));
  if (a.empty() || b.empty() || a.hi <= b.lo || b.hi <= a.lo) return Status::Ok();
  if (!elements_meet(out, in)) return Status::Ok();  // interleaved, never the same element
  return invalid_argument(fmt("%s: overlaps %s (bytes [%p, %p) and [%p, %p)); the output must not share memory with "
                              "%s%s",
                              out_name, in_name, reinterpret_cast<void*>(a.lo), reinterpret_cast<void*>(a.hi),
                              reinterpret_cast<void*>(b.lo), reinterpret_cast<void*>(b.hi), in_name,
                              identical_ok ? " unless it is the very same view" : ""));
}

Status check_no_self_overlap(const TensorView& v, const char* name) {
  if (v.rank < 0 || v.rank > kMaxTensorRank)
    return invalid_argument(fmt("%s.rank: must be 0 to %d, got %d", name, kMaxTensorRank, v.rank));
  int dims[kMaxTensorRank];
  const int n = dims_by_stride(v, dims);  // -1 (no element): nothing to overlap
  unsigned __int128 reach = 0;  // the largest element offset the inner dimensions reach
  for (int j = 0; j < n; ++j) {
    const int d = dims[j];
    if (v.stride[d] <= 0 || static_cast<unsigned __int128>(v.stride[d]) <= reach)
      return invalid_argument(
          fmt("%s.stride: elements overlap (dimension %d steps %" PRId64 " elements over extent %" PRId64
              ", but the dimensions of smaller stride reach %" PRId64 "); an output must address each element once",
              name, d, v.stride[d], v.shape[d], static_cast<int64_t>(reach + 1 > INT64_MAX ? INT64_MAX : reach + 1)));
    reach += static_cast<unsigned __int128>(v.shape[d] - 1) * static_cast<uint64_t>(v.stride[d]);
  }
  return Status::Ok();
}

bool workspace_wraps(const void* workspace, size_t bytes) {
  return static_cast<unsigned __int128>(reinterpret_cast<uintptr_t>(workspace)) + bytes >
         static_cast<unsigned __int128>(INT64_MAX);
}

Status check_workspace_disjoint(const void* workspace, size_t bytes, const TensorView* const* views,
                                const char* const* names, int n) {
  if (workspace == nullptr || bytes == 0) return Status::Ok();
  const uint64_t lo = reinterpret_cast<uintptr_t>(workspace);
  const unsigned __int128 end = static_cast<unsigned __int128>(lo) + bytes;
  if (end > static_cast<unsigned __int128>(INT64_MAX))
    return invalid_argument(fmt("workspace_bytes: %p + %zu bytes reaches past the 64-bit address space; pass the "
                                "buffer's size",
                                workspace, bytes));
  const uint64_t hi = static_cast<uint64_t>(end);
  for (int i = 0; i < n; ++i) {
    if (views[i]->empty()) continue;
    ByteSpan span;
    WARPSPEC_RETURN_IF_ERROR(view_span(*views[i], names[i], &span));
    if (!span.empty() && span.lo < hi && lo < span.hi)
      return invalid_argument(fmt("workspace: overlaps %s (bytes [%p, %p) and [%p, %p)); the workspace must not "
                                  "share memory with any view",
                                  names[i], workspace, reinterpret_cast<void*>(hi), reinterpret_cast<void*>(span.lo),
                                  reinterpret_cast<void*>(span.hi)));
  }
  return Status::Ok();
}

Status check_device_memory(const void* data, const char* name, int device) {
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes(&attr, data);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return invalid_argument(fmt("%s.data: %p is not memory CUDA knows (%s); pass device memory of device %d", name, data,
                                cudaGetErrorString(err), device));
  }
  switch (attr.type) {
    case cudaMemoryTypeManaged: return Status::Ok();
    case cudaMemoryTypeDevice:
      if (attr.device == device) return Status::Ok();
      return invalid_argument(fmt("%s.data: %p is memory of device %d, but the current device is %d; switch devices "
                                  "(cudaSetDevice) or copy the tensor",
                                  name, data, attr.device, device));
    case cudaMemoryTypeHost:
      return invalid_argument(fmt("%s.data: %p is pinned host memory; the kernels read and write device memory of "
                                  "device %d only",
                                  name, data, device));
    default:
      return invalid_argument(fmt("%s.data: %p is host memory (not allocated by CUDA); pass device memory of device %d",
                                  name, data, device));
  }
}

}  // namespace warpspec
