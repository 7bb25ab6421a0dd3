#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>
#include <vector>

#include "build_info.hpp"
#include "commands.hpp"
#include "warpspec/warpspec.hpp"

namespace warpspec::tools {

int require_hopper() {
  const int device = common_options().device;
  Status s = check_device(device);
  if (s.ok() && device >= 0) {
    const cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess) s = cuda_error("cudaSetDevice(" + std::to_string(device) + ")", e);
  }
  if (s.ok()) return 0;
  if (device >= 0)
    std::fprintf(stderr, "warpspec: no Hopper GPU (sm_90) available as device %d: %s\n", device, s.message().c_str());
  else
    std::fprintf(stderr, "warpspec: no Hopper GPU (sm_90) available: %s\n", s.message().c_str());
  return kExitNoGpu;
}

RecordContext record_context(const std::string& command, const TimingOptions& timing) {
  RecordContext c;
  c.command = command;
  c.timing = timing;
  c.version = version();
  c.commit = build_commit();
  cudaGetDevice(&c.device);
  std::vector<DeviceInfo> devices;
  if (list_devices(&devices).ok())
    for (const DeviceInfo& d : devices)
      if (d.ordinal == c.device) c.device_name = d.name, c.sm_count = d.sm_count;
  return c;
}

static std::string device_json(const DeviceInfo& d) {
  json::Object o;
  o.num("index", d.ordinal).str("name", d.name).str("cc", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor));
  o.num("sm_count", d.sm_count).num("memory_bytes", double(d.memory_bytes)).num("l2_bytes", double(d.l2_bytes));
  o.boolean("supported", d.supported).str("reason", d.reason);
  return o.text();
}

int run_info() {
  std::vector<DeviceInfo> devices;
  Status s = list_devices(&devices);
  if (!s.ok() || devices.empty()) {
    std::fprintf(stderr, "warpspec: no CUDA device found%s%s; warpspec needs a Hopper GPU (sm_90)\n",
                 s.ok() ? "" : ": ", s.ok() ? "" : s.message().c_str());
    return kExitNoGpu;
  }
  const int only = common_options().device;
  if (only >= 0) {
    std::vector<DeviceInfo> kept;
    for (const DeviceInfo& d : devices)
      if (d.ordinal == only) kept.push_back(d);
    if (kept.empty()) {
      std::fprintf(stderr, "warpspec: no CUDA device %d (%zu visible); warpspec needs a Hopper GPU (sm_90)\n", only,
                   devices.size());
      return kExitNoGpu;
    }
    devices = kept;
  }
  bool any = false;
  for (const DeviceInfo& d : devices) any = any || d.supported;
  if (common_options().json) {
    std::vector<std::string> list;
    for (const DeviceInfo& d : devices) list.push_back(device_json(d));
    json::Object r;
    r.num("schema", kRecordSchema).str("command", "info");
    r.obj("warpspec", json::Object().str("version", version()).str("commit", build_commit()));
    r.raw("devices", json::array(list));
    std::printf("%s\n", r.text().c_str());
  } else {
    std::printf("warpspec %s\n", version());
    std::printf("%-3s %-28s %-5s %5s %10s %8s  %s\n", "id", "name", "cc", "SMs", "memory", "L2", "warpspec");
    for (const DeviceInfo& d : devices) {
      char cc[16];
      std::snprintf(cc, sizeof cc, "%d.%d", d.cc_major, d.cc_minor);
      std::printf("%-3d %-28s %-5s %5d %7.1f GiB %5.0f MiB  %s\n", d.ordinal, d.name.c_str(), cc, d.sm_count,
                  d.memory_bytes / 1073741824.0, d.l2_bytes / 1048576.0,
                  d.supported ? "yes" : ("no: " + d.reason).c_str());
    }
  }
  if (!any) {
    std::fprintf(stderr, "warpspec: none of these devices is a Hopper GPU (sm_90)\n");
    return kExitNoGpu;
  }
  return 0;
}

}  // namespace warpspec::tools
