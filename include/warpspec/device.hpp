#pragma once
// Device discovery and the Hopper guard every public entry point runs first.
#include <cstddef>
#include <string>
#include <vector>

#include "warpspec/status.hpp"

namespace warpspec {

struct DeviceInfo {
  int ordinal = -1;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  std::size_t memory_bytes = 0;
  std::size_t l2_bytes = 0;
  std::size_t smem_per_block_optin = 0;
  bool supported = false;   // warpspec's kernels can run here (sm_90, sm_90a code)
  std::string reason;       // why not, when !supported
};

// Every CUDA device visible to this process. An empty list with an OK status means
// the runtime works but sees no device; a CUDA error (no driver) is a non-OK status.
Status list_devices(std::vector<DeviceInfo>* out);

// OK when `device` (the current device if negative) is a Hopper GPU the library's
// sm_90a code runs on; kNoDevice naming the device and the rule otherwise. Cached per
// device after the first call, so it is cheap enough for every launch.
Status check_device(int device = -1);

// The library's version, "MAJOR.MINOR.PATCH".
const char* version();

}  // namespace warpspec
