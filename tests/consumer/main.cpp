// Prints the library version and what the device guard says; exit 0 either way, so
// the test can run on machines without a GPU. The test compares the version printed.
#include <cstdio>

#include <warpspec/warpspec.hpp>

int main() {
  warpspec::Status s = warpspec::check_device();
  std::printf("warpspec %s\n%s\n", warpspec::version(), s.to_string().c_str());
  return 0;
}
