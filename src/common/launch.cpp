#include "launch.hpp"

#include <string>

namespace warpspec {
namespace {

cudaError_t opt_in(const void* kernel, int smem_bytes) {
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
}

}  // namespace

Status launch_ws_kernel(const void* kernel, void* param, const LaunchShape& shape, int threads, int smem_bytes,
                        SmemOptIns& opted, cudaStream_t stream, const char* what) {
  const int cluster = shape.cluster_x * shape.cluster_y;
  if (shape.grid < 1 || cluster < 1 || shape.grid % cluster != 0)
    return internal_error(std::string(what) + ": grid " + std::to_string(shape.grid) +
                          " is not a positive multiple of the cluster size " + std::to_string(cluster));
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return cuda_error("cudaGetDevice", err);
  std::atomic<bool>* flag = device < int(opted.size()) ? &opted[device] : nullptr;
  const bool cached = flag != nullptr && flag->load(std::memory_order_acquire);
  if (!cached) {
    err = opt_in(kernel, smem_bytes);
    if (err != cudaSuccess) return cuda_error(std::string("cudaFuncSetAttribute(") + what + " shared memory)", err);
    if (flag != nullptr) flag->store(true, std::memory_order_release);
  }

  cudaLaunchAttribute attrs[2];
  unsigned n = 0;
  if (cluster > 1) {
    attrs[n].id = cudaLaunchAttributeClusterDimension;
    attrs[n].val.clusterDim.x = unsigned(shape.cluster_x);
    attrs[n].val.clusterDim.y = unsigned(shape.cluster_y);
    attrs[n].val.clusterDim.z = 1;
    ++n;
  }
  if (shape.pdl) {
    attrs[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[n].val.programmaticStreamSerializationAllowed = 1;
    ++n;
  }
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(shape.grid));
  config.blockDim = dim3(unsigned(threads));
  config.dynamicSmemBytes = size_t(smem_bytes);
  config.stream = stream;
  config.attrs = attrs;
  config.numAttrs = n;
  void* args[] = {param};
  err = cudaLaunchKernelExC(&config, kernel, args);
  if (err != cudaSuccess && cached) {
    // The cache may be stale (cudaDeviceReset, another context on the device): the
    // error was not sticky if the opt-in can be set again; then retry once.
    cudaGetLastError();
    if (opt_in(kernel, smem_bytes) == cudaSuccess) err = cudaLaunchKernelExC(&config, kernel, args);
  }
  if (err != cudaSuccess) {
    cudaGetLastError();  // a launch error is not sticky: leave the thread's error state clean
    return cuda_error(std::string(what) + " kernel launch", err);
  }
  return Status::Ok();
}

}  // namespace warpspec
