#include "device_props.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>

#include "warpspec/device.hpp"

namespace warpspec {
namespace {

// A device attribute, read once per device (0 in the table: not read yet; devices past
// the table are read every time).
using AttributeCache = std::array<std::atomic<int>, 64>;
Status cached_attribute(AttributeCache& cache, cudaDeviceAttr attr, int device, const char* what, int* out) {
  int value = device < int(cache.size()) ? cache[device].load(std::memory_order_relaxed) : 0;
  if (value == 0) {
    const cudaError_t err = cudaDeviceGetAttribute(&value, attr, device);
    if (err != cudaSuccess) {
      cudaGetLastError();
      return cuda_error(what, err);
    }
    if (device < int(cache.size())) cache[device].store(value, std::memory_order_relaxed);
  }
  *out = value;
  return Status::Ok();
}

}  // namespace

Status current_device_props(DeviceProps* out) {
  static AttributeCache sm_counts{}, l2_sizes{};
  int device = 0;
  const cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return check_device(-1);  // the same "no usable device" refusal
  }
  WARPSPEC_RETURN_IF_ERROR(check_device(device));
  int sms = 0, l2 = 0;
  WARPSPEC_RETURN_IF_ERROR(cached_attribute(sm_counts, cudaDevAttrMultiProcessorCount, device, "reading the SM count", &sms));
  WARPSPEC_RETURN_IF_ERROR(cached_attribute(l2_sizes, cudaDevAttrL2CacheSize, device, "reading the L2 size", &l2));
  out->ordinal = device;
  out->sm_count = sms;
  out->l2_bytes = l2;
  // DRAM's bandwidth is advice to a heuristic: a device that does not report it runs
  // without it (0) rather than refusing the call.
  static AttributeCache mem_clocks{}, bus_widths{};
  int mem_khz = 0, bus_bits = 0;
  if (cached_attribute(mem_clocks, cudaDevAttrMemoryClockRate, device, "reading the memory clock", &mem_khz).ok() &&
      cached_attribute(bus_widths, cudaDevAttrGlobalMemoryBusWidth, device, "reading the memory bus width", &bus_bits)
          .ok())
    out->dram_bytes_per_s = 2.0 * 1e3 * double(mem_khz) * double(bus_bits) / 8.0;  // double data rate
  else
    out->dram_bytes_per_s = 0;
  return Status::Ok();
}

}  // namespace warpspec
