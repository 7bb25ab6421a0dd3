#pragma once
// The current device as the launch paths need it: checked to be Hopper (check_device),
// with the properties the host heuristics read, queried once per device.
#include <cstdint>

#include "warpspec/status.hpp"

namespace warpspec {

struct DeviceProps {
  int ordinal = 0;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  // DRAM's peak bandwidth, bytes a second (memory clock x bus width x 2); 0 where the
  // device does not say. The GEMM tile model reads it (tile_choice.hpp: pick_tile).
  double dram_bytes_per_s = 0;
};

Status current_device_props(DeviceProps* out);

}  // namespace warpspec
