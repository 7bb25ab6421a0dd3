#pragma once
// Memory rules every family's validation shares: which bytes a view can touch, whether
// an output shares memory with another view, and whether a pointer is device memory
// of the current device. All before any launch: a view that breaks one is refused with
// a Status naming it.
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

// `data` must be memory the current device can address with TMA: device memory of
// `device`, or managed memory. Host memory (pinned or not) and other devices' memory
// are refused: a kernel touching them kills the context.
Status check_device_memory(const void* data, const char* name, int device);

}  // namespace warpspec
