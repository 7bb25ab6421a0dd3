// The warpspec program as a user runs it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "warpspec/device.hpp"

// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace cli_test {

std::pair<int, std::string> run_cli(const std::string& args, const std::string& env = "") {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen((env + " " + std::string(WARPSPEC_CLI) + " " + args + " 2>&1").c_str(), "r"),
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

// Without a Hopper GPU: one line saying so. With one: the demo runs, passes its checks
// (GEMM against cuBLAS per element, attention by FlashAttention-3's rule) and says so.
TEST(Cli, DemoRunsOrSaysWhyNotInOneLine) {
  auto [rc, out] = run_cli("demo");
  if (have_hopper()) {
    EXPECT_EQ(rc, 0) << out;
    EXPECT_EQ(out.find("FAILED"), std::string::npos) << out;
    EXPECT_NE(out.find("GEMM 8192x8192x8192"), std::string::npos) << out;
    EXPECT_NE(out.find("cuBLAS"), std::string::npos) << out;
    EXPECT_NE(out.find("attention"), std::string::npos) << out;
    EXPECT_GE(std::count(out.begin(), out.end(), '\n'), 4) << out;
    // Both checks printed their verdict: "...: ok".
    size_t oks = 0;
    for (size_t at = out.find(": ok\n"); at != std::string::npos; at = out.find(": ok\n", at + 1)) ++oks;
    EXPECT_EQ(oks, 2u) << out;
  } else {
    EXPECT_NE(rc, 0) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
    EXPECT_NE(out.find("Hopper"), std::string::npos) << out;
  }
}

// `--check` on both commands: a small GEMM and a small attention, checked, exit 0.
TEST(Cli, CheckPathsPassOnHopper) {
  if (!have_hopper()) GTEST_SKIP() << "needs a Hopper GPU (without one, the demo test covers the refusal)";
  const char* runs[] = {
      "gemm --m 1000 --n 1024 --k 520 --layout nt --beta 0.5 --alpha 2 --check --warmup-s 0.1 --rounds 1 --iters 2",
      // FP8 (e4m3) against cuBLAS on the dequantised inputs, every scaling, beyond one 128-K
      // block and off the tile grid; with the peer (cuBLASLt), which prints a figure or n/a.
      "gemm --dtype e4m3 --m 1000 --n 520 --k 1040 --scaling tensor --beta 0.5 --check --peer --warmup-s 0.1 "
      "--rounds 1 --iters 2",
      "gemm --dtype e4m3 --m 1000 --n 520 --k 1040 --scaling row --out-dtype fp16 --fast-accum --check --peer "
      "--warmup-s 0.1 --rounds 1 --iters 2",
      "gemm --dtype e4m3 --m 1000 --n 520 --k 1040 --scaling block --out-dtype fp32 --alpha 0.5 --check --peer "
      "--warmup-s 0.1 --rounds 1 --iters 2",
      "gemm --m 64 --n 512 --k 4000 --decomposition splitk --splits 5 --beta 0.5 --check --warmup-s 0.1 --rounds 1 "
      "--iters 2",
      // The fused epilogue (bias, activation) against the reference with it applied; the
      // peer's plain D against the plain reference.
      "gemm --m 1000 --n 1032 --k 520 --bias --activation gelu_tanh --alpha 0.5 --check --peer --warmup-s 0.1 "
      "--rounds 1 --iters 2",
      "gemm --dtype e4m3 --m 1000 --n 520 --k 1040 --scaling row --bias --activation silu --check --peer "
      "--warmup-s 0.1 --rounds 1 --iters 2",
      "gemm --dtype e4m3 --m 1000 --n 520 --k 1040 --out-dtype fp32 --activation gelu --check --warmup-s 0.1 "
      "--rounds 1 --iters 2",
      "gemm --m 1000 --n 1300 --k 3000 --decomposition streamk --out-dtype fp32 --check --warmup-s 0.1 --rounds 1 "
      "--iters 2",
      "attention --batch 2 --seqlen-q 700 --seqlen-k 300 --heads 8 --heads-kv 2 --head-dim 64 --causal --check "
      "--warmup-s 0.1 --rounds 1 --iters 2"};
  for (const char* args : runs) {
    auto [rc, out] = run_cli(args);
    EXPECT_EQ(rc, 0) << args << "\n" << out;
    EXPECT_NE(out.find("check against"), std::string::npos) << args << "\n" << out;
    EXPECT_NE(out.find(": ok\n"), std::string::npos) << args << "\n" << out;
  }
}

// Usage errors exit 2 (the convention scripts expect), not CLI11's own 105+ codes, and
// say what was wrong in a short line; "no GPU" has its own code, 3.
TEST(Cli, UsageErrorsExitTwo) {
  for (const char* args : {"frobnicate", "gemm --m abc", "gemm --layout xy", "bench gemm --rounds 0",
                           "gemm --decomposition xk", "bench gemm --decomposition 2", "gemm --splits x",
                           "gemm --cluster 3", "bench gemm --cluster 2x1 --cluster 1x", "gemm --cluster 0x1",
                           // FP8's options: names, and scales or fast accumulation on 16-bit inputs.
                           "gemm --dtype e5m2", "gemm --dtype e4m3 --scaling rows", "bench gemm --scaling block",
                           "gemm --scaling tensor", "gemm --dtype fp16 --fast-accum",
                           "bench gemm --dtype bf16 --fast-accum",
                           "bench gemm --dtype e4m3 --out-dtype e5m2",
                           // An e4m3 D's scale: only with one, and positive.
                           "gemm --scale-result 2", "bench gemm --dtype e4m3 --scale-result 0.5",
                           "gemm --dtype e4m3 --out-dtype e4m3 --scale-result -1",
                           // The tile order of ours and of its second run.
                           "bench gemm --raster x", "bench gemm --versus-raster auto",
                           // The cluster of the second run.
                           "bench gemm --versus-cluster 3", "bench gemm --versus-cluster 0x1",
                           // The L2 grouping of ours and of its second run.
                           "bench gemm --swizzle 3", "bench gemm --swizzle 32", "bench gemm --versus-swizzle 0",
                           "gemm --swizzle 32",
                           // Only the benchmark times on unrotated inputs.
                           "gemm --no-rotate", "bench attention --no-rotate"}) {
    auto [rc, out] = run_cli(args);
    EXPECT_EQ(rc, 2) << args << "\n" << out;
    EXPECT_LT(out.size(), 400u) << args << ": a usage error should be short\n" << out;
  }
}

// Scales and fast accumulation belong to FP8 inputs: asked of a 16-bit GEMM, one line
// saying so and the usage exit code, on any machine (before the GPU is looked for).
TEST(Cli, ScalesOnSixteenBitInputsAreAUsageError) {
  for (const char* args : {"gemm --scaling block", "bench gemm --dtype fp16 --fast-accum --shape 64x64x64"}) {
    auto [rc, out] = run_cli(args);
    EXPECT_EQ(rc, 2) << args << "\n" << out;
    EXPECT_NE(out.find("--scaling and --fast-accum apply to --dtype e4m3 only"), std::string::npos)
        << args << "\n" << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << args << "\n" << out;
  }
}

TEST(Cli, HelpShowsDefaultsAndExitCodes) {
  auto [rc, out] = run_cli("gemm --help");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("4096"), std::string::npos) << "the default --m should show\n" << out;
  for (const char* command : {"gemm --help", "bench gemm --help"}) {
    auto [rc1, help] = run_cli(command);
    EXPECT_EQ(rc1, 0) << help;
    for (const char* shown : {"{bf16,fp16,e4m3}=bf16", "--scaling TEXT:{tensor,row,block}=tensor", "--fast-accum",
                              "--out-dtype TEXT:{bf16,fp16,fp32,e4m3}"})
      EXPECT_NE(help.find(shown), std::string::npos) << command << " should show " << shown << "\n" << help;
  }
  auto [rc2, top] = run_cli("--help");
  EXPECT_EQ(rc2, 0) << top;
  EXPECT_NE(top.find("3 no Hopper GPU"), std::string::npos) << top;
}

// With every GPU hidden (so on any machine), a command that needs one exits 3 with one line.
TEST(Cli, NoGpuExitsThree) {
  auto [rc, out] = run_cli("gemm --m 64 --n 64 --k 64", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(rc, 3) << out;
  EXPECT_NE(out.find("no Hopper GPU"), std::string::npos) << out;
}

TEST(Cli, VersionPrintsLibraryVersion) {
  auto [rc, out] = run_cli("--version");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(warpspec::version()), std::string::npos) << out;
}

}  // namespace cli_test
