#include "views.hpp"

#include <cuda_runtime_api.h>

#include <string>

#include "format.hpp"

namespace warpspec {

Status view_span(const TensorView& v, const char* name, ByteSpan* out) {
  const uint64_t base = reinterpret_cast<uintptr_t>(v.data);
  unsigned __int128 last = 0;  // byte offset of the last element
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

Status check_disjoint(const TensorView& out, const char* out_name, const TensorView& in, const char* in_name,
                      bool identical_ok) {
  if (identical_ok && same_view(out, in)) return Status::Ok();
  ByteSpan a, b;
  WARPSPEC_RETURN_IF_ERROR(view_span(out, out_name, &a));
  WARPSPEC_RETURN_IF_ERROR(view_span(in, in_name, &b));
  if (a.empty() || b.empty() || a.hi <= b.lo || b.hi <= a.lo) return Status::Ok();
  return invalid_argument(fmt("%s: overlaps %s (bytes [%p, %p) and [%p, %p)); the output must not share memory with "
                              "%s%s",
                              out_name, in_name, reinterpret_cast<void*>(a.lo), reinterpret_cast<void*>(a.hi),
                              reinterpret_cast<void*>(b.lo), reinterpret_cast<void*>(b.hi), in_name,
                              identical_ok ? " unless it is the very same view" : ""));
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
