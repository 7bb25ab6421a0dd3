#include "device_props.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>

#include "warpspec/device.hpp"

namespace warpspec {

Status current_device_props(DeviceProps* out) {
  // 0: not read yet. Devices past the table are read every time.
  static std::array<std::atomic<int>, 64> sm_counts{}, l2_sizes{};
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return check_device(-1);  // the same "no usable device" refusal
  }
  WARPSPEC_RETURN_IF_ERROR(check_device(device));
  int sms = device < int(sm_counts.size()) ? sm_counts[device].load(std::memory_order_relaxed) : 0;
  if (sms == 0) {
    err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (err != cudaSuccess) {
      cudaGetLastError();
      return cuda_error("reading the SM count", err);
    }
    if (device < int(sm_counts.size())) sm_counts[device].store(sms, std::memory_order_relaxed);
  }
  int l2 = device < int(l2_sizes.size()) ? l2_sizes[device].load(std::memory_order_relaxed) : 0;
  if (l2 == 0) {
    err = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
    if (err != cudaSuccess) {
      cudaGetLastError();
      return cuda_error("reading the L2 size", err);
    }
    if (device < int(l2_sizes.size())) l2_sizes[device].store(l2, std::memory_order_relaxed);
  }
  out->ordinal = device;
  out->sm_count = sms;
  out->l2_bytes = l2;
  return Status::Ok();
}

}  // namespace warpspec
