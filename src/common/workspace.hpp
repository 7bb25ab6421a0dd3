#pragma once
// The library's own workspaces, for calls that pass none: one per (device, stream, kind),
// cudaStreamPerThread's per calling thread (each thread's is another stream),
// zeroed when allocated, grown when a call needs more, never shrunk. Thread-safe. The
// kinds never share a buffer: the GEMM fixup's flags must stay zero between calls, and
// split-KV leaves its partials behind.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "warpspec/status.hpp"

namespace warpspec {

// A zeroed-at-allocation workspace of at least `bytes` for kernels on `stream` of the
// current device `device`. Steady state: a lookup under a mutex, no CUDA call. Growing:
// cudaMallocAsync + cudaMemsetAsync on `stream` (stream-ordered: the new buffer is ready
// for the next kernel on it); the old buffer is kept, since a graph captured earlier may
// still use it. A stream being captured cannot allocate: then the call is refused
// (kUnsupported, *capturing set) unless the cached buffer is already large enough.
// kSplitKvCounters: split-KV's share counters (attention/split_combine.cuh), which every
// call leaves zero, kept apart from the partials, which a later call overwrites.
// kAttentionTileCounter: the {next, done} pair of the attention kernel's dynamic schedule
// (attention/tile_stream.cuh), which every call leaves zero.
enum class WorkspaceKind { kGemmFixup, kSplitKv, kSplitKvCounters, kAttentionTileCounter };
Status cached_workspace(WorkspaceKind kind, int device, cudaStream_t stream, size_t bytes, void** out, bool* capturing);

}  // namespace warpspec
