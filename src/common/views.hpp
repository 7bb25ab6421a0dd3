#pragma once
// Memory rules every family's validation shares: which bytes a view can touch, whether
// an output shares memory with another view, and whether a pointer is device memory
// of the current device. All before any launch: a view that breaks one is refused with
// a Status naming it.
#include <cstddef>
#include <cstdint>

#include "warpspec/status.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec {

// [lo, hi): the bytes a view with non-negative strides can touch. Empty (lo == hi)
// when a dimension has extent 0.
struct ByteSpan {
  uint64_t lo = 0, hi = 0;
  bool empty() const { return lo == hi; }
};

// The span of `v` (rank, shape and strides already checked to be non-negative).
// Refuses a view whose extent does not fit the 64-bit address space.
Status view_span(const TensorView& v, const char* name, ByteSpan* out);

// Same data pointer, dtype, shape and strides on every dimension of extent > 1: the
// same elements at the same addresses.
bool same_view(const TensorView& a, const TensorView& b);

// `out` (written) must not share bytes with `in`; when `identical_ok`, `in` may be the
// very same view (an in-place operation the kernel supports).
Status check_disjoint(const TensorView& out, const char* out_name, const TensorView& in, const char* in_name,
                      bool identical_ok);

// A view that is written must address each element once: two elements at one address
// are written by different threads in an unknown order (PyTorch refuses such outputs too).
// The rule: ordered by stride, each dimension of extent > 1 steps past everything the
// dimensions inside it reach (stride >= 1 + their span). Sufficient for no overlap and
// true of every dense or padded layout; an interleaved one that happens not to overlap is
// refused as well. Rank, shape and strides already checked to be non-negative.
Status check_no_self_overlap(const TensorView& v, const char* name);

// The workspace bytes [workspace, workspace + bytes) share no byte with any of `n` named
// views (the kernels write them while they read or write those), and do not reach past the
// end of the address space. Callers check the caller's whole buffer before planning (no
// device needed) unless its size reaches past the address space (workspace_wraps: a "big
// enough" size such as SIZE_MAX, which the size queries pass), and always the bytes the plan
// writes once it is made.
bool workspace_wraps(const void* workspace, size_t bytes);
Status check_workspace_disjoint(const void* workspace, size_t bytes, const TensorView* const* views,
                                const char* const* names, int n);

// `data` must be memory the current device can address with TMA: device memory of
// `device`, or managed memory. Host memory (pinned or not) and other devices' memory
// are refused: a kernel touching them kills the context.
Status check_device_memory(const void* data, const char* name, int device);

}  // namespace warpspec
