#include <cstdio>
#include <vector>

#include "commands.hpp"
#include "warpspec/warpspec.hpp"

namespace warpspec::tools {

int require_hopper() {
  Status s = check_device();
  if (s.ok()) return 0;
  std::fprintf(stderr, "warpspec: no Hopper GPU (sm_90) available: %s\n", s.message().c_str());
  return kExitNoGpu;
}

int run_info() {
  std::vector<DeviceInfo> devices;
  Status s = list_devices(&devices);
  if (!s.ok() || devices.empty()) {
    std::fprintf(stderr, "warpspec: no CUDA device found%s%s; warpspec needs a Hopper GPU (sm_90)\n",
                 s.ok() ? "" : ": ", s.ok() ? "" : s.message().c_str());
    return kExitNoGpu;
  }
  std::printf("warpspec %s\n", version());
  std::printf("%-3s %-28s %-5s %5s %10s %8s  %s\n", "id", "name", "cc", "SMs", "memory", "L2", "warpspec");
  bool any = false;
  for (const DeviceInfo& d : devices) {
    char cc[16];
    std::snprintf(cc, sizeof cc, "%d.%d", d.cc_major, d.cc_minor);
    std::printf("%-3d %-28s %-5s %5d %7.1f GiB %5.0f MiB  %s\n", d.ordinal, d.name.c_str(), cc, d.sm_count,
                d.memory_bytes / 1073741824.0, d.l2_bytes / 1048576.0,
                d.supported ? "yes" : ("no: " + d.reason).c_str());
    any = any || d.supported;
  }
  if (!any) {
    std::fprintf(stderr, "warpspec: none of these devices is a Hopper GPU (sm_90)\n");
    return kExitNoGpu;
  }
  return 0;
}

}  // namespace warpspec::tools
