// The installed CMake package: install the build tree to a temporary prefix, build a
// separate consumer project against it with find_package(warpspec), run it.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "warpspec/device.hpp"

// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace package_test {

namespace fs = std::filesystem;

// Run a shell command, return (exit status, combined output).
std::pair<int, std::string> run(const std::string& cmd) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen((cmd + " 2>&1").c_str(), "r"), pclose);
  if (!pipe) return {-1, "popen failed"};
  std::array<char, 4096> buf;
  while (fgets(buf.data(), buf.size(), pipe.get())) out += buf.data();
  int status = pclose(pipe.release());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(Package, FindPackageConsumerBuildsAndRuns) {
  const fs::path work = fs::temp_directory_path() / ("warpspec-package-" + std::to_string(getpid()));
  fs::remove_all(work);
  // The cmake that configured this build, or the one on PATH when the build was
  // carried to another machine.
  const std::string cmake = fs::exists(WARPSPEC_CMAKE_COMMAND) ? WARPSPEC_CMAKE_COMMAND : "cmake";
  const std::string prefix = (work / "prefix").string();
  auto [rc1, log1] = run(cmake + " --install " + WARPSPEC_BINARY_DIR + " --prefix " + prefix);
  ASSERT_EQ(rc1, 0) << log1;
  ASSERT_TRUE(fs::exists(work / "prefix/include/warpspec/warpspec.hpp"));
  auto [rc2, log2] = run(cmake + " -S " + WARPSPEC_SOURCE_DIR + "/tests/consumer -B " + (work / "b").string() +
                         " -DCMAKE_PREFIX_PATH=" + prefix + " -DCMAKE_BUILD_TYPE=Release");
  ASSERT_EQ(rc2, 0) << log2;
  auto [rc3, log3] = run(cmake + " --build " + (work / "b").string());
  ASSERT_EQ(rc3, 0) << log3;
  auto [rc4, log4] = run((work / "b/consumer").string());
  ASSERT_EQ(rc4, 0) << log4;
  EXPECT_NE(log4.find(std::string("warpspec ") + warpspec::version()), std::string::npos) << log4;
  fs::remove_all(work);
}

}  // namespace package_test
