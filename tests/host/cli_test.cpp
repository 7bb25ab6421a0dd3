// The warpspec program as a user runs it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "warpspec/device.hpp"

namespace {

std::pair<int, std::string> run_cli(const std::string& args) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen((std::string(WARPSPEC_CLI) + " " + args + " 2>&1").c_str(), "r"),
                                             pclose);
  if (!pipe) return {-1, "popen failed"};
  std::array<char, 4096> buf;
  while (fgets(buf.data(), buf.size(), pipe.get())) out += buf.data();
  int status = pclose(pipe.release());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

bool have_hopper() { return warpspec::check_device().ok(); }

TEST(Cli, InfoExitsNonZeroWithOneLineWithoutHopper) {
  auto [rc, out] = run_cli("info");
  if (have_hopper()) {
    EXPECT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("yes"), std::string::npos) << out;
  } else {
    EXPECT_NE(rc, 0) << out;
    EXPECT_NE(out.find("Hopper"), std::string::npos) << out;
    // One clear line, not a wall of text.
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  }
}

TEST(Cli, DemoWithoutHopperSaysSoInOneLine) {
  if (have_hopper()) GTEST_SKIP() << "a Hopper GPU is present: the demo runs instead (covered by gpu-check)";
  auto [rc, out] = run_cli("demo");
  EXPECT_NE(rc, 0) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find("Hopper"), std::string::npos) << out;
}

TEST(Cli, UnknownSubcommandIsRefused) {
  auto [rc, out] = run_cli("frobnicate");
  EXPECT_NE(rc, 0) << out;
}

TEST(Cli, VersionPrintsLibraryVersion) {
  auto [rc, out] = run_cli("--version");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(warpspec::version()), std::string::npos) << out;
}

}  // namespace
