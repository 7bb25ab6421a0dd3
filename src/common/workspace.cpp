#include "workspace.hpp"

#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace warpspec {
namespace {

struct Buffer {
  void* ptr = nullptr;
  size_t bytes = 0;
};

struct Cache {
  std::mutex mutex;
  // Keyed by the stream, and for cudaStreamPerThread by the calling thread too: that one
  // handle names a different stream in each thread, and calls on two of them may overlap.
  std::map<std::tuple<WorkspaceKind, int, cudaStream_t, std::thread::id>, Buffer> live;
  // Outgrown buffers: never freed (a captured graph may refer to one). Growth at least
  // doubles, so they add up to less than the live buffer.
  std::vector<void*> retired;
};

Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: no CUDA call during static destruction
  return *c;
}

}  // namespace

Status cached_workspace(WorkspaceKind kind, int device, cudaStream_t stream, size_t bytes, void** out, bool* capturing) {
  *out = nullptr;
  *capturing = false;
  if (bytes == 0) return Status::Ok();
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  const std::thread::id owner = stream == cudaStreamPerThread ? std::this_thread::get_id() : std::thread::id{};
  Buffer& b = c.live[{kind, device, stream, owner}];
  if (b.bytes >= bytes) {
    *out = b.ptr;
    return Status::Ok();
  }
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  cudaError_t err = cudaStreamIsCapturing(stream, &capture);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return cuda_error("cudaStreamIsCapturing (workspace)", err);
  }
  *capturing = capture != cudaStreamCaptureStatusNone;
  if (*capturing)
    return unsupported("workspace: the call needs " + std::to_string(bytes) +
                       " bytes of workspace and the stream is being captured, where the library cannot "
                       "allocate its own (its cached one for this stream holds " + std::to_string(b.bytes) +
                       "); pass a workspace, or run the same call once on this stream before capturing");
  size_t grown = b.bytes * 2 > bytes ? b.bytes * 2 : bytes;
  grown = (grown + 4095) / 4096 * 4096;
  void* p = nullptr;
  err = cudaMallocAsync(&p, grown, stream);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return cuda_error("cudaMallocAsync (workspace of " + std::to_string(grown) + " bytes)", err);
  }
  err = cudaMemsetAsync(p, 0, grown, stream);
  if (err != cudaSuccess) {
    cudaGetLastError();
    cudaFreeAsync(p, stream);
    return cuda_error("cudaMemsetAsync (workspace)", err);
  }
  if (b.ptr != nullptr) c.retired.push_back(b.ptr);
  b.ptr = p;
  b.bytes = grown;
  *out = p;
  return Status::Ok();
}

}  // namespace warpspec
