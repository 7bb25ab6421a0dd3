#include "warpspec/device.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <string>

namespace warpspec {
namespace {

// sm_90a code runs on compute capability 9.0 exactly: the "a" features are not
// forward compatible, so a later architecture cannot run it.
bool supported_capability(int major, int minor) { return major == 9 && minor == 0; }

std::string unsupported_reason(const cudaDeviceProp& p) {
  return "compute capability " + std::to_string(p.major) + "." + std::to_string(p.minor) +
         "; warpspec's kernels need 9.0 (Hopper: H100/H200/H20/GH200)";
}

DeviceInfo describe(int ordinal, const cudaDeviceProp& p) {
  DeviceInfo d;
  d.ordinal = ordinal;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.memory_bytes = p.totalGlobalMem;
  d.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
  d.smem_per_block_optin = p.sharedMemPerBlockOptin;
  d.supported = supported_capability(p.major, p.minor);
  if (!d.supported) d.reason = unsupported_reason(p);
  return d;
}

}  // namespace

const char* version() { return WARPSPEC_VERSION; }

Status list_devices(std::vector<DeviceInfo>* out) {
  if (out == nullptr) return invalid_argument("out: must not be null");
  out->clear();
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorNoDevice) {
    cudaGetLastError();
    return Status::Ok();
  }
  if (err != cudaSuccess) {
    cudaGetLastError();
    return cuda_error("cudaGetDeviceCount", err);
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    err = cudaGetDeviceProperties(&p, i);
    if (err != cudaSuccess) return cuda_error("cudaGetDeviceProperties(" + std::to_string(i) + ")", err);
    out->push_back(describe(i, p));
  }
  return Status::Ok();
}

Status check_device(int device) {
  // 0 = unknown, 1 = supported, 2 = not supported. Devices past the table are
  // checked every time (rare: more than 64 GPUs in one process).
  static std::array<std::atomic<int>, 64> cache{};
  if (device < 0) {
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess) {
      cudaGetLastError();
      return no_device(std::string("no CUDA device is usable: ") + cudaGetErrorString(err) +
                       "; warpspec needs a Hopper GPU (compute capability 9.0)");
    }
  }
  if (device < static_cast<int>(cache.size()) && cache[device].load(std::memory_order_relaxed) == 1)
    return Status::Ok();
  int major = 0, minor = 0;
  cudaError_t err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return no_device("device " + std::to_string(device) + " is not usable: " + cudaGetErrorString(err) +
                     "; warpspec needs a Hopper GPU (compute capability 9.0)");
  }
  const bool ok = supported_capability(major, minor);
  if (device < static_cast<int>(cache.size())) cache[device].store(ok ? 1 : 2, std::memory_order_relaxed);
  if (ok) return Status::Ok();
  return no_device("device " + std::to_string(device) + " has compute capability " + std::to_string(major) +
                   "." + std::to_string(minor) +
                   "; warpspec's kernels need 9.0 (Hopper: H100/H200/H20/GH200)");
}

}  // namespace warpspec
