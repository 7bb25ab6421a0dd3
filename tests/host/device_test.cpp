// Host tests for Status and the device guard. They run with or without a GPU.
#include <gtest/gtest.h>

#include "warpspec/warpspec.hpp"

// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace device_test {

TEST(Status, OkAndErrorsCarryCodeAndMessage) {
  warpspec::Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.to_string(), "ok");
  warpspec::Status bad = warpspec::misaligned("a.data: must be 16-byte aligned");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.code(), warpspec::StatusCode::kMisaligned);
  EXPECT_EQ(bad.to_string(), "misaligned: a.data: must be 16-byte aligned");
}

TEST(Device, CheckAgreesWithListing) {
  std::vector<warpspec::DeviceInfo> devices;
  warpspec::Status listed = warpspec::list_devices(&devices);
  warpspec::Status current = warpspec::check_device();
  if (!listed.ok() || devices.empty()) {
    // No usable device: the guard must refuse with kNoDevice and say what it needs.
    EXPECT_EQ(current.code(), warpspec::StatusCode::kNoDevice);
    EXPECT_NE(current.message().find("Hopper"), std::string::npos) << current.message();
    return;
  }
  for (const auto& d : devices) {
    warpspec::Status s = warpspec::check_device(d.ordinal);
    EXPECT_EQ(s.ok(), d.supported) << d.name << ": " << s.to_string();
    EXPECT_EQ(d.supported, d.cc_major == 9 && d.cc_minor == 0);
  }
}

TEST(Device, ListDevicesRejectsNull) {
  EXPECT_EQ(warpspec::list_devices(nullptr).code(), warpspec::StatusCode::kInvalidArgument);
}

}  // namespace device_test
