// The C ABI (warpspec.h) as an FFI caller sees it: codes and messages of refusals,
// the thread-local last error, the extensible args struct, version, device check,
// and every symbol exported from the shared library. CPU only: refused arguments
// never reach the GPU, and fake device pointers are only ever checked, never run.
#include "warpspec/warpspec.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "host/test_memory.hpp"
#include "warpspec/warpspec.hpp"

extern "C" int warpspec_test_refusal_from_c(char* message, size_t size);
extern "C" size_t warpspec_test_gemm_args_size_from_c(void);
extern "C" int warpspec_test_attention_refusal_from_c(char* message, size_t size);
extern "C" size_t warpspec_test_attention_args_size_from_c(void);
extern "C" size_t warpspec_test_combine_args_size_from_c(void);
extern "C" size_t warpspec_test_kvcache_append_args_size_from_c(void);
extern "C" int warpspec_test_kvcache_append_interleaved_from_c(void);

// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace c_api_test {

bool have_hopper() { return warpspec::check_device().ok(); }

// The tests' nominal addresses (0x10000000, 0x20000000, ...: 256 MiB regions, low
// bits kept for misalignment cases) as test_pointer memory: real device memory on a
// Hopper machine, where the checks look at what a pointer is.
void* at(uintptr_t address) {
  return warpspec::test::test_pointer(((address >> 28) & 0xF) * (uintptr_t(16) << 20) + (address & 0xFFFFF));
}

std::string last_error() { return warpspec_last_error(); }

// A well-formed bf16 GEMM, (M, K) x (K, N) -> (M, N), all row-major, on fake
// 256-byte-aligned addresses (never dereferenced: only check and refusals use it).
warpspec_tensor matrix(uintptr_t address, int32_t dtype, int64_t rows, int64_t cols) {
  warpspec_tensor t{};
  t.data = at(address);
  t.dtype = dtype;
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.stride[0] = cols;
  t.stride[1] = 1;
  return t;
}

warpspec_gemm_args valid_args(int64_t m = 128, int64_t n = 256, int64_t k = 64) {
  warpspec_gemm_args args = warpspec_gemm_args_default();
  args.a = matrix(0x10000000, WARPSPEC_DTYPE_BF16, m, k);
  args.b = matrix(0x20000000, WARPSPEC_DTYPE_BF16, k, n);
  args.d = matrix(0x30000000, WARPSPEC_DTYPE_BF16, m, n);
  return args;
}

TEST(CApi, StatusCodesAndNamesMatchTheCppApi) {
  for (int code = 0; code <= 6; ++code)
    EXPECT_STREQ(warpspec_status_name(code), warpspec::status_code_name(static_cast<warpspec::StatusCode>(code)));
  EXPECT_STREQ(warpspec_status_name(WARPSPEC_OK), "ok");
  EXPECT_STREQ(warpspec_status_name(WARPSPEC_NO_DEVICE), "no usable device");
  EXPECT_STREQ(warpspec_status_name(-1), "unknown status");
  EXPECT_STREQ(warpspec_status_name(7), "unknown status");
}

TEST(CApi, VersionMatchesTheProjectVersion) {
  // The version in the VERSION file (which CMake, the Python package and the wheel
  // read) is the one the library reports.
  std::ifstream file(std::string(WARPSPEC_SOURCE_DIR) + "/VERSION");
  std::stringstream text;
  text << file.rdbuf();
  // "MAJOR.MINOR.PATCH" and an optional newline, nothing else (parsed by hand: <regex>
  // costs the host tests' build 4 s).
  const std::string s = text.str();
  const std::string body = !s.empty() && s.back() == '\n' ? s.substr(0, s.size() - 1) : s;
  int v[3] = {-1, -1, -1}, used = -1;
  ASSERT_TRUE(!body.empty() && body.find_first_not_of("0123456789.") == std::string::npos &&
              std::sscanf(body.c_str(), "%d.%d.%d%n", &v[0], &v[1], &v[2], &used) == 3 && size_t(used) == body.size())
      << "VERSION: '" << s << "'";
  EXPECT_EQ(warpspec_version_major(), v[0]);
  EXPECT_EQ(warpspec_version_minor(), v[1]);
  EXPECT_EQ(warpspec_version_patch(), v[2]);
  EXPECT_EQ(std::string(warpspec_version()), body);
  EXPECT_STREQ(warpspec_version(), warpspec::version());
  EXPECT_EQ(warpspec_abi_version(), WARPSPEC_ABI_VERSION);
}

TEST(CApi, DeviceCheckSaysWhetherAHopperGpuIsThere) {
  const warpspec_status s = warpspec_check_device(-1);
  if (have_hopper()) {
    EXPECT_EQ(s, WARPSPEC_OK) << last_error();
    EXPECT_EQ(last_error(), "");
  } else {
    EXPECT_EQ(s, WARPSPEC_NO_DEVICE);
    EXPECT_NE(last_error().find("no usable device: "), std::string::npos) << last_error();
    EXPECT_NE(last_error().find("Hopper"), std::string::npos) << last_error();
  }
  // No machine has a device 4096.
  EXPECT_EQ(warpspec_check_device(4096), WARPSPEC_NO_DEVICE);
  EXPECT_NE(last_error().find("device 4096"), std::string::npos) << last_error();
}

TEST(CApi, NullArgsAreRefused) {
  EXPECT_EQ(warpspec_gemm(nullptr, nullptr), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "invalid argument: warpspec_gemm_args: must not be null");
  EXPECT_EQ(warpspec_gemm_check(nullptr), WARPSPEC_INVALID_ARGUMENT);
}

// Each refusal: the code, a part of the message that names the argument and the rule.
struct Refusal {
  const char* what;
  void (*edit)(warpspec_gemm_args&);
  warpspec_status code;
  const char* message;
};

const Refusal kRefusals[] = {
    {"no output", [](warpspec_gemm_args& g) { g.d.data = nullptr; }, WARPSPEC_INVALID_ARGUMENT, "d.data: must not be null"},
    {"fp32 inputs", [](warpspec_gemm_args& g) { g.a.dtype = g.b.dtype = WARPSPEC_DTYPE_FP32; }, WARPSPEC_UNSUPPORTED, "a.dtype: fp32 is not supported"},
    {"mixed inputs", [](warpspec_gemm_args& g) { g.b.dtype = WARPSPEC_DTYPE_FP16; }, WARPSPEC_INVALID_ARGUMENT, "b.dtype: must equal a.dtype"},
    {"unknown dtype", [](warpspec_gemm_args& g) { g.a.dtype = 99; }, WARPSPEC_INVALID_ARGUMENT, "a.dtype: unknown dtype 99"},
    {"K mismatch", [](warpspec_gemm_args& g) { g.b.shape[0] = 72; }, WARPSPEC_INVALID_ARGUMENT, "b.shape"},
    {"rank 1", [](warpspec_gemm_args& g) { g.a.rank = 1; }, WARPSPEC_INVALID_ARGUMENT, "a.rank: must be 2"},
    {"rank 5", [](warpspec_gemm_args& g) { g.b.rank = 5; }, WARPSPEC_INVALID_ARGUMENT, "b.rank: must be 2"},
    {"misaligned pointer", [](warpspec_gemm_args& g) { g.a.data = at(0x10000008); }, WARPSPEC_MISALIGNED, "a.data: must be 16-byte aligned"},
    {"odd leading dimension", [](warpspec_gemm_args& g) { g.b.stride[0] = 260; }, WARPSPEC_MISALIGNED, "b.stride[0]"},
    {"no unit stride", [](warpspec_gemm_args& g) { g.a.stride[1] = 2; }, WARPSPEC_INVALID_ARGUMENT, "a.stride: one of the last two dimensions must be contiguous"},
    {"beta without C", [](warpspec_gemm_args& g) { g.beta = 0.5f; }, WARPSPEC_INVALID_ARGUMENT, "c.data: must not be null"},
    {"infinite alpha", [](warpspec_gemm_args& g) { g.alpha = std::numeric_limits<float>::infinity(); }, WARPSPEC_INVALID_ARGUMENT, "alpha/beta: must be finite"},
    {"unknown raster", [](warpspec_gemm_args& g) { g.raster = 7; }, WARPSPEC_INVALID_ARGUMENT, "raster: unknown value 7"},
    {"bad swizzle", [](warpspec_gemm_args& g) { g.swizzle = 3; }, WARPSPEC_INVALID_ARGUMENT, "swizzle"},
    {"bad tile", [](warpspec_gemm_args& g) { g.tile_n = 96; }, WARPSPEC_INVALID_ARGUMENT, "tile_n"},
    {"unknown flag bits", [](warpspec_gemm_args& g) { g.flags = 2; }, WARPSPEC_UNSUPPORTED, "flags: unknown option bits 0x2"},
    {"old struct", [](warpspec_gemm_args& g) { g.struct_size = 64; }, WARPSPEC_INVALID_ARGUMENT, "struct_size: 64 is smaller"},
    {"size between versions", [](warpspec_gemm_args& g) { g.struct_size = 400; }, WARPSPEC_INVALID_ARGUMENT, "warpspec_gemm_args.struct_size: 400 is not the size of any version (352, 376, 632, 640, 648 or 808 bytes)"},
    {"unknown decomposition", [](warpspec_gemm_args& g) { g.decomposition = 9; }, WARPSPEC_INVALID_ARGUMENT, "decomposition: unknown value 9"},
    {"splits too many", [](warpspec_gemm_args& g) { g.decomposition = WARPSPEC_GEMM_DECOMPOSITION_SPLIT_K; g.splits = 257; }, WARPSPEC_INVALID_ARGUMENT, "splits: must be 0 (automatic) or 1..256"},
    {"splits without split-K", [](warpspec_gemm_args& g) { g.splits = 4; }, WARPSPEC_INVALID_ARGUMENT, "splits: 4 given, but splits apply only with decomposition kSplitK"},
    {"workspace bytes without pointer", [](warpspec_gemm_args& g) { g.workspace_bytes = 1024; }, WARPSPEC_INVALID_ARGUMENT, "workspace: null with workspace_bytes 1024"},
    {"misaligned workspace", [](warpspec_gemm_args& g) { g.workspace = at(0x30000004); g.workspace_bytes = 1024; }, WARPSPEC_MISALIGNED, "workspace: must be 16-byte aligned"},
    {"cluster 3", [](warpspec_gemm_args& g) { g.cluster_m = 3; g.cluster_n = 1; }, WARPSPEC_INVALID_ARGUMENT, "cluster_m, cluster_n: each must be 1 or 2"},
    {"half a cluster", [](warpspec_gemm_args& g) { g.cluster_m = 2; }, WARPSPEC_INVALID_ARGUMENT, "or both 0 (automatic), got 2 x 0"},
    {"cluster 2x2", [](warpspec_gemm_args& g) { g.cluster_m = 2; g.cluster_n = 2; }, WARPSPEC_UNSUPPORTED, "2 x 2 clusters are not built"},
};

TEST(CApi, RefusalsGiveTheCodeAndTheMessage) {
  for (const Refusal& r : kRefusals) {
    SCOPED_TRACE(r.what);
    warpspec_gemm_args args = valid_args();
    r.edit(args);
    // check and run refuse alike; the run launches nothing (the pointers are fake).
    const warpspec_status status = warpspec_gemm_check(&args);
    EXPECT_EQ(status, r.code) << last_error();
    if (status == WARPSPEC_OK) continue;  // never run a case the check accepted
    const std::string checked = last_error();
    EXPECT_EQ(checked.rfind(std::string(warpspec_status_name(r.code)) + ": ", 0), 0u) << checked;
    EXPECT_NE(checked.find(r.message), std::string::npos) << checked;
    EXPECT_EQ(warpspec_gemm(&args, nullptr), r.code) << last_error();
    EXPECT_EQ(last_error(), checked);
  }
}

TEST(CApi, ValidArgumentsPassTheCheckOrNameTheMissingDevice) {
  warpspec_gemm_args args = valid_args();
  const warpspec_status s = warpspec_gemm_check(&args);  // check only: fake pointers
  if (have_hopper()) {
    EXPECT_EQ(s, WARPSPEC_OK) << last_error();
    EXPECT_EQ(last_error(), "");
  } else {
    EXPECT_EQ(s, WARPSPEC_NO_DEVICE) << last_error();
    EXPECT_NE(last_error().find("Hopper"), std::string::npos) << last_error();
  }
}

TEST(CApi, ALargerStructFromANewerCallerIsReadWhenItsTailIsZero) {
  // A newer header appended fields: the library reads what it knows and checks the
  // rest is zero (unset), so it never silently ignores an option it cannot honour.
  struct Newer {
    warpspec_gemm_args v1;
    uint64_t future[2];
  } newer{};
  newer.v1 = valid_args();
  newer.v1.d.data = nullptr;  // a refusal that comes after the struct is read
  newer.v1.struct_size = sizeof(Newer);
  EXPECT_EQ(warpspec_gemm_check(&newer.v1), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("d.data"), std::string::npos) << last_error();

  newer.future[1] = 1;
  EXPECT_EQ(warpspec_gemm_check(&newer.v1), WARPSPEC_UNSUPPORTED);
  EXPECT_NE(last_error().find("knows 808"), std::string::npos) << last_error();
  EXPECT_NE(last_error().find("byte 816"), std::string::npos) << last_error();
}

TEST(CApi, AVersionOneStructGetsTheDefaultDecomposition) {
  // A caller compiled against version 1 (352 bytes) passes no decomposition, splits or
  // workspace: the library reads 352 bytes and defaults the rest, so garbage after them
  // in the caller's memory is never read.
  struct V1 {
    warpspec_gemm_args args;
  } v1{};
  v1.args = valid_args();
  v1.args.struct_size = 352;
  v1.args.splits = 77;  // past byte 352: must be ignored, not refused
  v1.args.decomposition = 9;
  const warpspec_status s = warpspec_gemm_check(&v1.args);
  EXPECT_TRUE(s == WARPSPEC_OK || s == WARPSPEC_NO_DEVICE) << last_error();
  v1.args.struct_size = sizeof(warpspec_gemm_args);  // version 2 reads them
  EXPECT_EQ(warpspec_gemm_check(&v1.args), WARPSPEC_INVALID_ARGUMENT) << last_error();
}

TEST(CApi, AVersionTwoStructGetsNoEpilogue) {
  // A caller compiled against version 2 (376 bytes) passes no scales, bias or
  // activation: whatever follows in its memory is never read.
  struct V2 {
    warpspec_gemm_args args;
  } v2{};
  v2.args = valid_args();
  v2.args.struct_size = 376;
  v2.args.activation = 99;  // past byte 376: ignored
  v2.args.scaling = 5;
  const warpspec_status s = warpspec_gemm_check(&v2.args);
  EXPECT_TRUE(s == WARPSPEC_OK || s == WARPSPEC_NO_DEVICE) << last_error();
  v2.args.struct_size = sizeof(warpspec_gemm_args);  // version 3 reads them
  EXPECT_EQ(warpspec_gemm_check(&v2.args), WARPSPEC_INVALID_ARGUMENT) << last_error();
  EXPECT_NE(last_error().find("scaling: unknown value 5"), std::string::npos) << last_error();
  v2.args.scaling = 0;
  EXPECT_EQ(warpspec_gemm_check(&v2.args), WARPSPEC_INVALID_ARGUMENT) << last_error();
  EXPECT_NE(last_error().find("activation: unknown value 99"), std::string::npos) << last_error();
}

TEST(CApi, AVersionThreeStructGetsTheLibrarysCluster) {
  // A caller compiled against version 3 (632 bytes) passes no cluster: whatever follows
  // in its memory is never read; version 4 reads the fields and the API checks them.
  struct V3 {
    warpspec_gemm_args args;
  } v3{};
  v3.args = valid_args();
  v3.args.struct_size = 632;
  v3.args.cluster_m = 7;  // past byte 632: ignored
  v3.args.cluster_n = -1;
  const warpspec_status s = warpspec_gemm_check(&v3.args);
  EXPECT_TRUE(s == WARPSPEC_OK || s == WARPSPEC_NO_DEVICE) << last_error();
  v3.args.struct_size = sizeof(warpspec_gemm_args);
  EXPECT_EQ(warpspec_gemm_check(&v3.args), WARPSPEC_INVALID_ARGUMENT) << last_error();
  EXPECT_NE(last_error().find("cluster_m, cluster_n"), std::string::npos) << last_error();
}

TEST(CApi, AVersionFiveStructGetsNoFp8Output) {
  // A caller compiled against version 5 (648 bytes) passes no scale_result or amax: the
  // library gives the API empty views, whatever follows in the caller's memory; version
  // 6 reads them (and the API refuses them beside a bf16 D, which shows they arrived).
  warpspec_gemm_args args = valid_args();
  args.struct_size = 648;
  args.scale_result = matrix(0x40000000, WARPSPEC_DTYPE_FP32, 1, 1);  // past byte 648: ignored
  args.amax = matrix(0x40001000, WARPSPEC_DTYPE_FP32, 1, 1);
  const warpspec_status s = warpspec_gemm_check(&args);
  EXPECT_TRUE(s == WARPSPEC_OK || s == WARPSPEC_NO_DEVICE) << last_error();
  args.struct_size = sizeof(warpspec_gemm_args);
  EXPECT_EQ(warpspec_gemm_check(&args), WARPSPEC_INVALID_ARGUMENT) << last_error();
  EXPECT_NE(last_error().find("scale_result: applies to an e4m3 D only"), std::string::npos) << last_error();
  args.scale_result = warpspec_tensor{};
  EXPECT_EQ(warpspec_gemm_check(&args), WARPSPEC_INVALID_ARGUMENT) << last_error();
  EXPECT_NE(last_error().find("amax: applies to an e4m3 D only"), std::string::npos) << last_error();
  // A size between versions 5 and 6 ends inside scale_result: refused, naming the sizes.
  args.struct_size = 700;
  EXPECT_EQ(warpspec_gemm_check(&args), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("700 is not the size of any version (352, 376, 632, 640, 648 or 808 bytes)"),
            std::string::npos)
      << last_error();
}

TEST(CApi, EpilogueFieldsReachTheApi) {
  warpspec_gemm_args args = valid_args();
  args.bias_per_row = 2;
  EXPECT_EQ(warpspec_gemm_check(&args), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("bias_per_row: must be 0 or 1"), std::string::npos) << last_error();
  args = valid_args();
  args.use_fast_accum = 1;  // bf16 inputs: refused by the API, so the field was read
  EXPECT_EQ(warpspec_gemm_check(&args), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("use_fast_accum: applies to FP8 inputs only"), std::string::npos) << last_error();
  args = valid_args();
  args.bias = args.d;  // a 2-D bias
  EXPECT_EQ(warpspec_gemm_check(&args), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("bias.rank: must be 1"), std::string::npos) << last_error();
  args = valid_args();
  args.scale_a = args.d;
  args.scale_a.dtype = WARPSPEC_DTYPE_FP32;
  EXPECT_EQ(warpspec_gemm_check(&args), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("scale_a.shape"), std::string::npos) << last_error();
}

TEST(CApi, WorkspaceSizeRefusesWhatCheckRefuses) {
  warpspec_gemm_args args = valid_args();
  uint64_t bytes = 123;
  EXPECT_EQ(warpspec_gemm_workspace_size(&args, nullptr), WARPSPEC_INVALID_ARGUMENT);
  args.splits = 3;
  EXPECT_EQ(warpspec_gemm_workspace_size(&args, &bytes), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("splits"), std::string::npos) << last_error();
  EXPECT_EQ(bytes, 0u);
  args = valid_args();
  args.decomposition = WARPSPEC_GEMM_DECOMPOSITION_DATA_PARALLEL;
  const warpspec_status s = warpspec_gemm_workspace_size(&args, &bytes);
  if (have_hopper()) {
    EXPECT_EQ(s, WARPSPEC_OK) << last_error();
    EXPECT_EQ(bytes, 0u);  // data-parallel needs none
  } else {
    EXPECT_EQ(s, WARPSPEC_NO_DEVICE) << last_error();
  }
}

TEST(CApi, LastErrorIsThreadLocal) {
  warpspec_gemm_args args = valid_args();
  args.swizzle = 3;
  ASSERT_NE(warpspec_gemm_check(&args), WARPSPEC_OK);
  const std::string mine = last_error();
  ASSERT_NE(mine.find("swizzle"), std::string::npos);

  std::string fresh, theirs;
  std::thread other([&] {
    fresh = warpspec_last_error();  // nothing failed on this thread yet
    warpspec_gemm_args bad = valid_args();
    bad.tile_n = 96;
    (void)warpspec_gemm_check(&bad);
    theirs = warpspec_last_error();
  });
  other.join();
  EXPECT_EQ(fresh, "");
  EXPECT_NE(theirs.find("tile_n"), std::string::npos) << theirs;
  EXPECT_EQ(last_error(), mine);  // the other thread's failure did not touch ours
}

TEST(CApi, EachCallReplacesTheLastError) {
  warpspec_gemm_args args = valid_args();
  args.swizzle = 3;
  ASSERT_NE(warpspec_gemm_check(&args), WARPSPEC_OK);
  args = valid_args();
  const warpspec_status s = warpspec_gemm_check(&args);
  if (s == WARPSPEC_OK) EXPECT_EQ(last_error(), "");  // success clears it
  else EXPECT_EQ(last_error().find("swizzle"), std::string::npos) << last_error();
}

TEST(CApi, HeaderCompilesAsC99AndWorksFromC) {
  char message[512];
  EXPECT_EQ(warpspec_test_refusal_from_c(message, sizeof message), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(message).find("d.data: must not be null"), std::string::npos) << message;
  EXPECT_EQ(warpspec_test_gemm_args_size_from_c(), sizeof(warpspec_gemm_args));
  EXPECT_EQ(sizeof(warpspec_gemm_args), 808u);
  EXPECT_EQ(sizeof(warpspec_tensor), 80u);
}

TEST(CApi, SharedLibraryExportsEverySymbol) {
  // What ctypes does: open the shared library by path and look each name up.
  const std::string path = std::string(WARPSPEC_BINARY_DIR) + "/libwarpspec.so";
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  for (const char* name : {"warpspec_status_name", "warpspec_last_error", "warpspec_version", "warpspec_version_major",
                           "warpspec_version_minor", "warpspec_version_patch", "warpspec_abi_version",
                           "warpspec_check_device", "warpspec_gemm_check", "warpspec_gemm",
                           "warpspec_gemm_workspace_size",
                           "warpspec_attention_check", "warpspec_attention", "warpspec_attention_workspace_size",
                           "warpspec_attention_combine", "warpspec_kvcache_append"})
    EXPECT_NE(dlsym(lib, name), nullptr) << name << ": " << dlerror();
  using VersionFn = const char* (*)();
  auto fn = reinterpret_cast<VersionFn>(dlsym(lib, "warpspec_version"));
  ASSERT_NE(fn, nullptr);
  EXPECT_STREQ(fn(), warpspec_version());
  dlclose(lib);
}

// ------------------------------------------------------------------ attention

// (batch, seqlen, heads, head_dim), contiguous, on a fake 256-byte-aligned address.
warpspec_tensor bshd(uintptr_t address, int64_t b, int64_t s, int64_t h, int64_t d,
                     int32_t dtype = WARPSPEC_DTYPE_BF16) {
  warpspec_tensor t{};
  t.data = at(address);
  t.dtype = dtype;
  t.rank = 4;
  t.shape[0] = b, t.shape[1] = s, t.shape[2] = h, t.shape[3] = d;
  t.stride[3] = 1, t.stride[2] = d, t.stride[1] = h * d, t.stride[0] = s * h * d;
  return t;
}

// GQA 8 query heads over 2 kv heads, seqlen_q != seqlen_k, with the LSE.
warpspec_attention_args valid_attention(int64_t d = 128) {
  warpspec_attention_args args = warpspec_attention_args_default();
  args.q = bshd(0x10000000, 2, 100, 8, d);
  args.k = bshd(0x20000000, 2, 300, 2, d);
  args.v = bshd(0x30000000, 2, 300, 2, d);
  args.o = bshd(0x40000000, 2, 100, 8, d);
  warpspec_tensor& l = args.lse;
  l.data = at(0x50000000);
  l.dtype = WARPSPEC_DTYPE_FP32;
  l.rank = 3;
  l.shape[0] = 2, l.shape[1] = 8, l.shape[2] = 100;
  l.stride[0] = 800, l.stride[1] = 100, l.stride[2] = 1;
  return args;
}

// What the C API says must be what the C++ API says for the same arguments.
warpspec::Status cpp_check(const warpspec_attention_args& c) {
  auto view = [](const warpspec_tensor& t) {
    warpspec::TensorView v;
    v.data = t.data;
    v.dtype = static_cast<warpspec::DType>(t.dtype);
    v.rank = t.rank;
    for (int i = 0; i < 4; ++i) v.shape[i] = t.shape[i], v.stride[i] = t.stride[i];
    return v;
  };
  warpspec::AttentionArgs a;
  a.q = view(c.q), a.k = view(c.k), a.v = view(c.v), a.o = view(c.o);
  if (c.lse.data != nullptr) a.lse = view(c.lse);
  if (c.softmax_scale != 0.0f) a.softmax_scale = c.softmax_scale;
  a.causal = c.causal != 0;
  if (c.flags & WARPSPEC_FLAG_WINDOW) a.window_left = c.window_left, a.window_right = c.window_right;
  a.softcap = c.softcap;
  if (c.sink.data != nullptr) a.sink = view(c.sink);
  if (c.cu_seqlens_q.data != nullptr) a.cu_seqlens_q = view(c.cu_seqlens_q);
  if (c.cu_seqlens_k.data != nullptr) a.cu_seqlens_k = view(c.cu_seqlens_k);
  if (c.seqused_k.data != nullptr) a.seqused_k = view(c.seqused_k);
  a.max_seqlen_q = c.max_seqlen_q;
  a.attention_chunk = c.attention_chunk;
  if (c.flags & WARPSPEC_FLAG_NUM_SPLITS) a.num_splits = c.num_splits;
  a.workspace = c.workspace;
  a.workspace_bytes = size_t(c.workspace_bytes);
  if (c.cache_batch_idx.data != nullptr) a.cache_batch_idx = view(c.cache_batch_idx);
  if (c.cache_leftpad.data != nullptr) a.cache_leftpad = view(c.cache_leftpad);
  if (c.page_table.data != nullptr) a.page_table = view(c.page_table);
  return warpspec::check(a);
}

warpspec_tensor vector(uintptr_t addr, int32_t dtype, int64_t n) {
  warpspec_tensor t{};
  t.data = at(addr);
  t.dtype = dtype;
  t.rank = 1;
  t.shape[0] = n;
  t.stride[0] = 1;
  return t;
}

TEST(CApiAttention, DefaultsAreZeroWithTheSizeSet) {
  const warpspec_attention_args args = warpspec_attention_args_default();
  EXPECT_EQ(args.struct_size, sizeof(warpspec_attention_args));
  EXPECT_EQ(args.softmax_scale, 0.0f);
  EXPECT_EQ(args.causal, 0);
  EXPECT_EQ(args.q.data, nullptr);
  EXPECT_EQ(args.lse.data, nullptr);
  EXPECT_EQ(sizeof(warpspec_attention_args), 1448u);
  // Version 2's fields default to "not used": no window, no softcap, no sink, dense.
  EXPECT_EQ(args.window_left, 0);
  EXPECT_EQ(args.flags & WARPSPEC_FLAG_WINDOW, 0u);
  EXPECT_EQ(args.softcap, 0.0f);
  EXPECT_EQ(args.sink.data, nullptr);
  EXPECT_EQ(args.cu_seqlens_q.data, nullptr);
  // Version 3's: no split (the flag unset), no workspace, no cache indirection.
  EXPECT_EQ(args.num_splits, 0);
  EXPECT_EQ(args.flags & WARPSPEC_FLAG_NUM_SPLITS, 0u);
  EXPECT_EQ(args.workspace, nullptr);
  EXPECT_EQ(args.workspace_bytes, 0u);
  EXPECT_EQ(args.cache_batch_idx.data, nullptr);
  EXPECT_EQ(args.page_table.data, nullptr);
  // Version 4's: no descales (1 each).
  EXPECT_EQ(args.q_descale.data, nullptr);
  EXPECT_EQ(args.k_descale.data, nullptr);
  EXPECT_EQ(args.v_descale.data, nullptr);
}

TEST(CApiAttention, AVersion2StructIsStillRead) {
  // A caller compiled against version 2 (944 bytes) gets version 3's defaults; whatever
  // lies past its struct in memory is never read.
  struct V2 {
    unsigned char bytes[sizeof(warpspec_attention_args)];
  } old{};
  warpspec_attention_args args = valid_attention();
  args.flags = WARPSPEC_FLAG_NUM_SPLITS;  // past byte 944 the fields are garbage to a v2 caller
  args.num_splits = 999;
  args.reserved3 = 5;
  args.workspace_bytes = 12;
  args.page_table = vector(0x60000000, WARPSPEC_DTYPE_FP32, 3);
  std::memcpy(old.bytes, &args, sizeof args);
  auto* v2 = reinterpret_cast<warpspec_attention_args*>(old.bytes);
  v2->struct_size = 944;
  v2->flags = 0;
  const warpspec_status s = warpspec_attention_check(v2);
  EXPECT_TRUE(s == WARPSPEC_OK || s == WARPSPEC_NO_DEVICE) << last_error();
  v2->o.data = nullptr;  // a refusal that comes after the struct is read
  EXPECT_EQ(warpspec_attention_check(v2), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("o.data"), std::string::npos) << last_error();
  // The same bytes read as version 3: the garbage is refused by name.
  v2->o = args.o;
  v2->struct_size = sizeof(warpspec_attention_args);
  EXPECT_EQ(warpspec_attention_check(v2), WARPSPEC_UNSUPPORTED);
  EXPECT_NE(last_error().find("reserved3"), std::string::npos) << last_error();
  v2->reserved3 = 0;
  EXPECT_EQ(warpspec_attention_check(v2), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("num_splits (999)"), std::string::npos) << last_error();
}

TEST(CApiAttention, AVersion3StructIsStillRead) {
  // A caller compiled against version 3 (1208 bytes) gets version 4's defaults (no
  // descales); bytes past its struct are never read. Read as version 4, the same bytes'
  // descale is refused by name (bf16 inputs take none).
  struct V3 {
    unsigned char bytes[sizeof(warpspec_attention_args)];
  } old{};
  warpspec_attention_args args = valid_attention();
  args.q_descale = vector(0x60000000, WARPSPEC_DTYPE_FP32, 1);  // garbage to a v3 caller
  std::memcpy(old.bytes, &args, sizeof args);
  auto* v3 = reinterpret_cast<warpspec_attention_args*>(old.bytes);
  v3->struct_size = 1208;
  v3->o.data = nullptr;  // a refusal that comes after the struct is read
  EXPECT_EQ(warpspec_attention_check(v3), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("o.data"), std::string::npos) << last_error();
  v3->o = args.o;
  const warpspec_status s = warpspec_attention_check(v3);
  EXPECT_TRUE(s == WARPSPEC_OK || s == WARPSPEC_NO_DEVICE) << last_error();
  v3->struct_size = sizeof(warpspec_attention_args);
  EXPECT_EQ(warpspec_attention_check(v3), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("q_descale"), std::string::npos) << last_error();
}

TEST(CApiAttention, WorkspaceSizeRefusesWhatCheckRefuses) {
  warpspec_attention_args args = valid_attention();
  uint64_t bytes = 123;
  EXPECT_EQ(warpspec_attention_workspace_size(&args, nullptr), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("bytes: must not be null"), std::string::npos) << last_error();
  EXPECT_EQ(warpspec_attention_workspace_size(nullptr, &bytes), WARPSPEC_INVALID_ARGUMENT);
  args.flags = WARPSPEC_FLAG_NUM_SPLITS;
  args.num_splits = 200;
  EXPECT_EQ(warpspec_attention_workspace_size(&args, &bytes), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("num_splits"), std::string::npos) << last_error();
  EXPECT_EQ(bytes, 0u);
  args.num_splits = 1;
  const warpspec_status s = warpspec_attention_workspace_size(&args, &bytes);
  if (have_hopper()) {
    EXPECT_EQ(s, WARPSPEC_OK) << last_error();
    EXPECT_EQ(bytes, 0u);  // no split, no workspace
  } else {
    EXPECT_EQ(s, WARPSPEC_NO_DEVICE) << last_error();
  }
}

TEST(CApiAttention, AVersion1StructIsStillRead) {
  // A caller compiled against version 1 (424 bytes) gets version 2's defaults.
  struct V1 {
    unsigned char bytes[424];
  } old{};
  warpspec_attention_args args = valid_attention();
  args.o.data = nullptr;  // a refusal that comes after the struct is read
  std::memcpy(old.bytes, &args, 424);
  reinterpret_cast<warpspec_attention_args*>(old.bytes)->struct_size = 424;
  EXPECT_EQ(warpspec_attention_check(reinterpret_cast<const warpspec_attention_args*>(old.bytes)),
            WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("o.data"), std::string::npos) << last_error();
}

TEST(CApiAttention, NullArgsAreRefused) {
  EXPECT_EQ(warpspec_attention(nullptr, nullptr), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "invalid argument: warpspec_attention_args: must not be null");
  EXPECT_EQ(warpspec_attention_check(nullptr), WARPSPEC_INVALID_ARGUMENT);
}

TEST(CApiAttention, ValidArgumentsPassTheCheckOrNameTheMissingDevice) {
  for (int64_t d : {64, 96, 128, 192, 256}) {
    for (int causal : {0, 1}) {
      SCOPED_TRACE("head_dim " + std::to_string(d) + (causal ? " causal" : ""));
      warpspec_attention_args args = valid_attention(d);
      args.causal = causal;
      if (d == 64) args.lse = warpspec_tensor{};  // no LSE: not computed
      if (d == 192) args.softmax_scale = 0.05f;
      const warpspec_status s = warpspec_attention_check(&args);
      if (have_hopper()) {
        EXPECT_EQ(s, WARPSPEC_OK) << last_error();
        EXPECT_EQ(last_error(), "");
      } else {
        EXPECT_EQ(s, WARPSPEC_NO_DEVICE) << last_error();
        EXPECT_NE(last_error().find("Hopper"), std::string::npos) << last_error();
      }
    }
  }
}

struct AttentionRefusal {
  const char* what;
  void (*edit)(warpspec_attention_args&);
  warpspec_status code;
  const char* message;
};

const AttentionRefusal kAttentionRefusals[] = {
    {"no q", [](warpspec_attention_args& a) { a.q.data = nullptr; }, WARPSPEC_INVALID_ARGUMENT, "q.data: must not be null"},
    {"no output", [](warpspec_attention_args& a) { a.o.data = nullptr; }, WARPSPEC_INVALID_ARGUMENT, "o.data: must not be null"},
    {"fp32", [](warpspec_attention_args& a) { a.q.dtype = a.k.dtype = a.v.dtype = a.o.dtype = WARPSPEC_DTYPE_FP32; }, WARPSPEC_UNSUPPORTED, "q.dtype"},
    {"mixed dtypes", [](warpspec_attention_args& a) { a.k.dtype = WARPSPEC_DTYPE_FP16; }, WARPSPEC_INVALID_ARGUMENT, "k.dtype: must equal q.dtype"},
    {"head dim 100", [](warpspec_attention_args& a) { a.q.shape[3] = a.k.shape[3] = a.v.shape[3] = a.o.shape[3] = 100; }, WARPSPEC_UNSUPPORTED, "head_dim"},
    {"rank 3", [](warpspec_attention_args& a) { a.k.rank = 3; }, WARPSPEC_INVALID_ARGUMENT, "k.rank: must be 4"},
    {"heads not a multiple", [](warpspec_attention_args& a) { a.k.shape[2] = a.v.shape[2] = 3; }, WARPSPEC_INVALID_ARGUMENT, "heads_q (8) must be a multiple of heads_kv (3)"},
    {"v seqlen", [](warpspec_attention_args& a) { a.v.shape[1] = 299; }, WARPSPEC_INVALID_ARGUMENT, "v.shape[1]"},
    {"strided head dim", [](warpspec_attention_args& a) { a.q.stride[3] = 2; }, WARPSPEC_INVALID_ARGUMENT, "q.stride[3]"},
    {"odd stride", [](warpspec_attention_args& a) { a.k.stride[1] = 260; }, WARPSPEC_MISALIGNED, "k.stride[1]"},
    {"misaligned", [](warpspec_attention_args& a) { a.v.data = at(0x30000008); }, WARPSPEC_MISALIGNED, "v.data: must be 16-byte aligned"},
    {"lse shape", [](warpspec_attention_args& a) { a.lse.shape[2] = 101; }, WARPSPEC_INVALID_ARGUMENT, "lse.shape[2]"},
    {"lse dtype", [](warpspec_attention_args& a) { a.lse.dtype = WARPSPEC_DTYPE_BF16; }, WARPSPEC_INVALID_ARGUMENT, "lse.dtype"},
    {"negative scale", [](warpspec_attention_args& a) { a.softmax_scale = -1.0f; }, WARPSPEC_INVALID_ARGUMENT, "softmax_scale: must be positive and finite"},
    {"NaN scale", [](warpspec_attention_args& a) { a.softmax_scale = std::numeric_limits<float>::quiet_NaN(); }, WARPSPEC_INVALID_ARGUMENT, "softmax_scale"},
    {"causal 2", [](warpspec_attention_args& a) { a.causal = 2; }, WARPSPEC_INVALID_ARGUMENT, "causal: must be 0 or 1, got 2"},
    {"flags", [](warpspec_attention_args& a) { a.flags = 32; }, WARPSPEC_UNSUPPORTED, "flags: unknown option bits 0x20"},
    {"pack_gqa both", [](warpspec_attention_args& a) { a.flags = WARPSPEC_FLAG_PACK_GQA | WARPSPEC_FLAG_NO_PACK_GQA; }, WARPSPEC_INVALID_ARGUMENT, "WARPSPEC_FLAG_NO_PACK_GQA (16) together"},
    {"reserved", [](warpspec_attention_args& a) { a.reserved = 1; }, WARPSPEC_UNSUPPORTED, "reserved: must be 0"},
    {"old struct", [](warpspec_attention_args& a) { a.struct_size = 352; }, WARPSPEC_INVALID_ARGUMENT, "warpspec_attention_args.struct_size: 352 is smaller than the first version's 424 bytes"},
    {"size between versions", [](warpspec_attention_args& a) { a.struct_size = 500; }, WARPSPEC_INVALID_ARGUMENT, "warpspec_attention_args.struct_size: 500 is not the size of any version (424, 944, 1208 or 1448 bytes)"},
    {"size inside the last version", [](warpspec_attention_args& a) { a.struct_size = 1200; }, WARPSPEC_INVALID_ARGUMENT, "1200 is not the size of any version"},
    {"window without its flag", [](warpspec_attention_args& a) { a.window_left = 5; }, WARPSPEC_INVALID_ARGUMENT, "set WARPSPEC_FLAG_WINDOW"},
    {"reserved2", [](warpspec_attention_args& a) { a.reserved2 = 3; }, WARPSPEC_UNSUPPORTED, "reserved2: must be 0"},
    {"window -2", [](warpspec_attention_args& a) { a.flags = WARPSPEC_FLAG_WINDOW, a.window_left = -2; }, WARPSPEC_INVALID_ARGUMENT, "window_left: must be -1 (unbounded) or >= 0, got -2"},
    {"window right -5", [](warpspec_attention_args& a) { a.flags = WARPSPEC_FLAG_WINDOW, a.window_left = 3, a.window_right = -5; }, WARPSPEC_INVALID_ARGUMENT, "window_right: must be -1 (unbounded) or >= 0, got -5"},
    {"negative chunk", [](warpspec_attention_args& a) { a.attention_chunk = -5; }, WARPSPEC_INVALID_ARGUMENT, "attention_chunk: must be 0 (off)"},
    {"negative softcap", [](warpspec_attention_args& a) { a.softcap = -30.0f; }, WARPSPEC_INVALID_ARGUMENT, "softcap: must be finite and >= 0"},
    {"infinite softcap", [](warpspec_attention_args& a) { a.softcap = std::numeric_limits<float>::infinity(); }, WARPSPEC_INVALID_ARGUMENT, "softcap: must be finite"},
    {"tiny softcap", [](warpspec_attention_args& a) { a.softcap = 1e-45f; }, WARPSPEC_INVALID_ARGUMENT, "softcap: 1.4013e-45 is too small"},
    {"sink length", [](warpspec_attention_args& a) { a.sink = vector(0x60000000, WARPSPEC_DTYPE_FP32, 7); }, WARPSPEC_INVALID_ARGUMENT, "sink.shape[0]: must be heads_q = 8, got 7"},
    {"sink dtype", [](warpspec_attention_args& a) { a.sink = vector(0x60000000, WARPSPEC_DTYPE_BF16, 8); }, WARPSPEC_INVALID_ARGUMENT, "sink.dtype: must be fp32, got bf16"},
    {"sink strided", [](warpspec_attention_args& a) { a.sink = vector(0x60000000, WARPSPEC_DTYPE_FP32, 8); a.sink.stride[0] = 2; }, WARPSPEC_INVALID_ARGUMENT, "sink.stride[0]: must be 1"},
    {"sink overlaps o", [](warpspec_attention_args& a) { a.sink = vector(0x40000000, WARPSPEC_DTYPE_FP32, 8); }, WARPSPEC_INVALID_ARGUMENT, "sink"},
    {"cu_seqlens_q with dense q", [](warpspec_attention_args& a) { a.cu_seqlens_q = vector(0x60000000, WARPSPEC_DTYPE_I32, 3); a.max_seqlen_q = 50; }, WARPSPEC_INVALID_ARGUMENT, "q.rank: must be 3 (total_q, heads, head_dim) with cu_seqlens_q, got 4"},
    {"cu_seqlens_k with dense k", [](warpspec_attention_args& a) { a.cu_seqlens_k = vector(0x60000000, WARPSPEC_DTYPE_I32, 3); }, WARPSPEC_INVALID_ARGUMENT, "k.rank: must be 3 (total, heads, head_dim) with cu_seqlens, got 4"},
    {"cu_seqlens_k length", [](warpspec_attention_args& a) {
       a.cu_seqlens_k = vector(0x60000000, WARPSPEC_DTYPE_I32, 4);
       for (warpspec_tensor* t : {&a.k, &a.v}) {
         t->rank = 3;
         t->shape[0] = 600, t->shape[1] = 2, t->shape[2] = 128;
         t->stride[0] = 256, t->stride[1] = 128, t->stride[2] = 1;
       }
     }, WARPSPEC_INVALID_ARGUMENT, "cu_seqlens_k.shape[0]: must be batch + 1 = 3, got 4"},
    {"cu_seqlens int64", [](warpspec_attention_args& a) {
       a.cu_seqlens_k = vector(0x60000000, WARPSPEC_DTYPE_FP32, 3);
       for (warpspec_tensor* t : {&a.k, &a.v}) {
         t->rank = 3;
         t->shape[0] = 600, t->shape[1] = 2, t->shape[2] = 128;
         t->stride[0] = 256, t->stride[1] = 128, t->stride[2] = 1;
       }
     }, WARPSPEC_INVALID_ARGUMENT, "cu_seqlens_k.dtype: must be int32, got fp32"},
    // version 3: split-KV and the KV-cache vectors
    {"num_splits without its flag", [](warpspec_attention_args& a) { a.num_splits = 3; }, WARPSPEC_INVALID_ARGUMENT, "set WARPSPEC_FLAG_NUM_SPLITS"},
    {"reserved3", [](warpspec_attention_args& a) { a.reserved3 = 1; }, WARPSPEC_UNSUPPORTED, "reserved3: must be 0"},
    {"num_splits -1", [](warpspec_attention_args& a) { a.flags = WARPSPEC_FLAG_NUM_SPLITS, a.num_splits = -1; }, WARPSPEC_INVALID_ARGUMENT, "num_splits: must be 0 (heuristic) or from 1 to 128, got -1"},
    {"num_splits 129", [](warpspec_attention_args& a) { a.flags = WARPSPEC_FLAG_NUM_SPLITS, a.num_splits = 129; }, WARPSPEC_INVALID_ARGUMENT, "num_splits: must be 0 (heuristic) or from 1 to 128, got 129"},
    {"num_splits at head dim 256", [](warpspec_attention_args& a) {
       for (warpspec_tensor* t : {&a.q, &a.k, &a.v, &a.o}) t->shape[3] = 256, t->stride[2] = 256, t->stride[1] = 256 * t->shape[2], t->stride[0] = t->stride[1] * t->shape[1];
       a.flags = WARPSPEC_FLAG_NUM_SPLITS, a.num_splits = 2;
     }, WARPSPEC_UNSUPPORTED, "num_splits: split-KV is not supported with head_dim > 192"},
    {"workspace bytes without pointer", [](warpspec_attention_args& a) { a.workspace_bytes = 64; }, WARPSPEC_INVALID_ARGUMENT, "workspace: null with workspace_bytes 64"},
    {"misaligned workspace", [](warpspec_attention_args& a) { a.workspace = at(0x60000004), a.workspace_bytes = 4096; }, WARPSPEC_MISALIGNED, "workspace: must be 16-byte aligned"},
    {"cache_batch_idx length", [](warpspec_attention_args& a) { a.cache_batch_idx = vector(0x60000000, WARPSPEC_DTYPE_I32, 3); }, WARPSPEC_INVALID_ARGUMENT, "cache_batch_idx"},
    {"cache_batch_idx dtype", [](warpspec_attention_args& a) { a.cache_batch_idx = vector(0x60000000, WARPSPEC_DTYPE_FP32, 2); }, WARPSPEC_INVALID_ARGUMENT, "cache_batch_idx"},
    {"cache_leftpad length", [](warpspec_attention_args& a) { a.cache_leftpad = vector(0x60000000, WARPSPEC_DTYPE_I32, 1); }, WARPSPEC_INVALID_ARGUMENT, "cache_leftpad"},
    {"page_table without seqused_k", [](warpspec_attention_args& a) {
       a.page_table = vector(0x60000000, WARPSPEC_DTYPE_I32, 2);
       a.page_table.rank = 2, a.page_table.shape[1] = 5, a.page_table.stride[0] = 5, a.page_table.stride[1] = 1;
       for (warpspec_tensor* t : {&a.k, &a.v}) t->shape[0] = 20, t->shape[1] = 64, t->stride[1] = 256, t->stride[0] = 64 * 256;
     }, WARPSPEC_INVALID_ARGUMENT, "seqused_k"},
    {"page_table dtype", [](warpspec_attention_args& a) {
       a.page_table = vector(0x60000000, WARPSPEC_DTYPE_FP32, 2);
       a.page_table.rank = 2, a.page_table.shape[1] = 5, a.page_table.stride[0] = 5, a.page_table.stride[1] = 1;
       a.seqused_k = vector(0x61000000, WARPSPEC_DTYPE_I32, 2);
       for (warpspec_tensor* t : {&a.k, &a.v}) t->shape[0] = 20, t->shape[1] = 64, t->stride[1] = 256, t->stride[0] = 64 * 256;
     }, WARPSPEC_INVALID_ARGUMENT, "page_table.dtype"},
    {"page size 40", [](warpspec_attention_args& a) {
       a.page_table = vector(0x60000000, WARPSPEC_DTYPE_I32, 2);
       a.page_table.rank = 2, a.page_table.shape[1] = 8, a.page_table.stride[0] = 8, a.page_table.stride[1] = 1;
       a.seqused_k = vector(0x61000000, WARPSPEC_DTYPE_I32, 2);
       for (warpspec_tensor* t : {&a.k, &a.v}) t->shape[0] = 20, t->shape[1] = 40, t->stride[1] = 256, t->stride[0] = 40 * 256;
     }, WARPSPEC_UNSUPPORTED, "page_size"},
    {"leftpad with page_table", [](warpspec_attention_args& a) {
       a.page_table = vector(0x60000000, WARPSPEC_DTYPE_I32, 2);
       a.page_table.rank = 2, a.page_table.shape[1] = 5, a.page_table.stride[0] = 5, a.page_table.stride[1] = 1;
       a.seqused_k = vector(0x61000000, WARPSPEC_DTYPE_I32, 2);
       a.cache_leftpad = vector(0x62000000, WARPSPEC_DTYPE_I32, 2);
       for (warpspec_tensor* t : {&a.k, &a.v}) t->shape[0] = 20, t->shape[1] = 64, t->stride[1] = 256, t->stride[0] = 64 * 256;
     }, WARPSPEC_UNSUPPORTED, "cache_leftpad"},
};

TEST(CApiAttention, RefusalsGiveTheCodeAndTheMessage) {
  for (const AttentionRefusal& r : kAttentionRefusals) {
    SCOPED_TRACE(r.what);
    warpspec_attention_args args = valid_attention();
    r.edit(args);
    const warpspec_status status = warpspec_attention_check(&args);
    EXPECT_EQ(status, r.code) << last_error();
    // The pointers are fake: never run a case the check accepted.
    if (status == WARPSPEC_OK) continue;
    const std::string checked = last_error();
    EXPECT_EQ(checked.rfind(std::string(warpspec_status_name(r.code)) + ": ", 0), 0u) << checked;
    EXPECT_NE(checked.find(r.message), std::string::npos) << checked;
    EXPECT_EQ(warpspec_attention(&args, nullptr), r.code) << last_error();  // refused: nothing launched
    EXPECT_EQ(last_error(), checked);
  }
}

TEST(CApiAttention, RefusalsAreTheCppApis) {
  // The C layer adds only its own fields' rules (struct_size, flags, causal): every
  // tensor and scale refusal is the C++ API's, code and message.
  for (const AttentionRefusal& r : kAttentionRefusals) {
    const std::string what = r.what;
    if (what == "causal 2" || what == "flags" || what == "reserved" || what == "old struct" ||
        what == "size between versions" || what == "size inside the last version" || what == "window without its flag" || what == "reserved2" || what == "num_splits without its flag" ||
        what == "reserved3" || what == "pack_gqa both")
      continue;
    SCOPED_TRACE(r.what);
    warpspec_attention_args args = valid_attention();
    r.edit(args);
    const warpspec::Status s = cpp_check(args);
    EXPECT_EQ(warpspec_attention_check(&args), static_cast<int>(s.code()));
    EXPECT_EQ(last_error(), s.to_string());
  }
}

TEST(CApiAttention, ALargerStructFromANewerCallerIsReadWhenItsTailIsZero) {
  struct Newer {
    warpspec_attention_args v1;
    uint64_t future[3];
  } newer{};
  newer.v1 = valid_attention();
  newer.v1.o.data = nullptr;  // a refusal that comes after the struct is read
  newer.v1.struct_size = sizeof(Newer);
  EXPECT_EQ(warpspec_attention_check(&newer.v1), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("o.data"), std::string::npos) << last_error();

  newer.future[2] = 7;
  EXPECT_EQ(warpspec_attention_check(&newer.v1), WARPSPEC_UNSUPPORTED);
  EXPECT_NE(last_error().find("knows 1448"), std::string::npos) << last_error();
  EXPECT_NE(last_error().find("byte 1464"), std::string::npos) << last_error();
}

TEST(CApiAttention, HeaderCompilesAsC99AndWorksFromC) {
  char message[512];
  EXPECT_EQ(warpspec_test_attention_refusal_from_c(message, sizeof message), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(message).find("q.data: must not be null"), std::string::npos) << message;
  EXPECT_EQ(warpspec_test_attention_args_size_from_c(), sizeof(warpspec_attention_args));
  EXPECT_EQ(warpspec_test_combine_args_size_from_c(), sizeof(warpspec_combine_args));
  EXPECT_EQ(warpspec_test_kvcache_append_args_size_from_c(), sizeof(warpspec_kvcache_append_args));
  EXPECT_EQ(warpspec_test_kvcache_append_interleaved_from_c(), 1);
}

// ------------------------------------------------------------------ combine and append

// Two splits of (batch 2, seqlen 1, heads 8, head_dim 128) fp32 partials into bf16.
warpspec_combine_args valid_combine() {
  warpspec_combine_args a = warpspec_combine_args_default();
  a.out_partial = bshd(0x10000000, 2, 1, 8, 128, WARPSPEC_DTYPE_FP32);
  a.num_splits = 2;
  a.out_partial_split_stride = 2 * 8 * 128;
  warpspec_tensor& l = a.lse_partial;
  l.data = at(0x20000000), l.dtype = WARPSPEC_DTYPE_FP32, l.rank = 3;
  l.shape[0] = 2, l.shape[1] = 1, l.shape[2] = 8;
  l.stride[0] = 8, l.stride[1] = 8, l.stride[2] = 1;
  a.lse_partial_split_stride = 16;
  a.out = bshd(0x30000000, 2, 1, 8, 128);
  return a;
}

struct CombineRefusal {
  const char* what;
  void (*edit)(warpspec_combine_args&);
  warpspec_status code;
  const char* message;
};

const CombineRefusal kCombineRefusals[] = {
    {"old struct", [](warpspec_combine_args& a) { a.struct_size = 64; }, WARPSPEC_INVALID_ARGUMENT, "warpspec_combine_args.struct_size: 64 is smaller"},
    {"no splits", [](warpspec_combine_args& a) { a.num_splits = 0; }, WARPSPEC_INVALID_ARGUMENT, "num_splits: must be from 1 to 128, got 0"},
    {"too many splits", [](warpspec_combine_args& a) { a.num_splits = 129; }, WARPSPEC_INVALID_ARGUMENT, "num_splits: must be from 1 to 128"},
    {"bf16 partials", [](warpspec_combine_args& a) { a.out_partial.dtype = WARPSPEC_DTYPE_BF16; }, WARPSPEC_INVALID_ARGUMENT, "out_partial.dtype: must be fp32"},
    {"partial rank", [](warpspec_combine_args& a) { a.out_partial.rank = 3; }, WARPSPEC_INVALID_ARGUMENT, "out_partial.rank: must be 4"},
    {"head_dim 6", [](warpspec_combine_args& a) { a.out_partial.shape[3] = a.out.shape[3] = 6; }, WARPSPEC_UNSUPPORTED, "head_dim): must be a positive multiple of 4"},
    {"split stride", [](warpspec_combine_args& a) { a.out_partial_split_stride = 6; }, WARPSPEC_MISALIGNED, "out_partial_split_stride"},
    {"lse dtype", [](warpspec_combine_args& a) { a.lse_partial.dtype = WARPSPEC_DTYPE_BF16; }, WARPSPEC_INVALID_ARGUMENT, "lse_partial.dtype: must be fp32"},
    {"lse heads", [](warpspec_combine_args& a) { a.lse_partial.shape[2] = 4; }, WARPSPEC_INVALID_ARGUMENT, "lse_partial.shape[2] (heads)"},
    {"lse split stride", [](warpspec_combine_args& a) { a.lse_partial_split_stride = -16; }, WARPSPEC_INVALID_ARGUMENT, "lse_partial_split_stride"},
    {"out dtype", [](warpspec_combine_args& a) { a.out.dtype = WARPSPEC_DTYPE_I32; }, WARPSPEC_UNSUPPORTED, "out.dtype: must be fp32, bf16 or fp16"},
    {"out shape", [](warpspec_combine_args& a) { a.out.shape[2] = 4; }, WARPSPEC_INVALID_ARGUMENT, "out.shape[2] (heads)"},
    {"no out", [](warpspec_combine_args& a) { a.out.data = nullptr; }, WARPSPEC_INVALID_ARGUMENT, "out.data: must not be null"},
    {"misaligned out", [](warpspec_combine_args& a) { a.out.data = at(0x30000008); }, WARPSPEC_MISALIGNED, "out.data: must be 16-byte aligned"},
    {"out overlaps partials", [](warpspec_combine_args& a) { a.out.data = a.out_partial.data; }, WARPSPEC_INVALID_ARGUMENT, "out"},
    {"lse shape", [](warpspec_combine_args& a) {
       warpspec_tensor& l = a.lse;
       l.data = at(0x40000000), l.dtype = WARPSPEC_DTYPE_FP32, l.rank = 3;
       l.shape[0] = 2, l.shape[1] = 8, l.shape[2] = 2;
       l.stride[0] = 16, l.stride[1] = 2, l.stride[2] = 1;
     }, WARPSPEC_INVALID_ARGUMENT, "lse.shape[2] (seqlen)"},
};

TEST(CApiCombine, RefusalsGiveTheCodeAndTheMessage) {
  if (!have_hopper()) {  // the valid call runs on a GPU; without one it names the device
    warpspec_combine_args ok = valid_combine();
    EXPECT_EQ(warpspec_attention_combine(&ok, nullptr), WARPSPEC_NO_DEVICE) << last_error();
  }
  for (const CombineRefusal& r : kCombineRefusals) {
    SCOPED_TRACE(r.what);
    warpspec_combine_args args = valid_combine();
    r.edit(args);
    EXPECT_EQ(warpspec_attention_combine(&args, nullptr), r.code) << last_error();
    const std::string e = last_error();
    EXPECT_EQ(e.rfind(std::string(warpspec_status_name(r.code)) + ": ", 0), 0u) << e;
    EXPECT_NE(e.find(r.message), std::string::npos) << e;
  }
  EXPECT_EQ(warpspec_attention_combine(nullptr, nullptr), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "invalid argument: warpspec_combine_args: must not be null");
}

TEST(CApiCombine, ALargerStructIsReadWhenItsTailIsZero) {
  struct Newer {
    warpspec_combine_args v1;
    uint64_t future[2];
  } newer{};
  newer.v1 = valid_combine();
  newer.v1.num_splits = 0;  // a refusal that comes after the struct is read
  newer.v1.struct_size = sizeof(Newer);
  EXPECT_EQ(warpspec_attention_combine(&newer.v1, nullptr), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("num_splits"), std::string::npos) << last_error();
  newer.future[1] = 1;
  EXPECT_EQ(warpspec_attention_combine(&newer.v1, nullptr), WARPSPEC_UNSUPPORTED);
  EXPECT_NE(last_error().find("knows 352"), std::string::npos) << last_error();
}

// Three new tokens into a (2, 512, 2, 128) bf16 cache.
warpspec_kvcache_append_args valid_append() {
  warpspec_kvcache_append_args a = warpspec_kvcache_append_args_default();
  a.k_cache = bshd(0x10000000, 2, 512, 2, 128);
  a.v_cache = bshd(0x20000000, 2, 512, 2, 128);
  a.k_new = bshd(0x30000000, 2, 3, 2, 128);
  a.v_new = bshd(0x40000000, 2, 3, 2, 128);
  a.cache_seqlens = vector(0x50000000, WARPSPEC_DTYPE_I32, 2);
  return a;
}

struct AppendRefusal {
  const char* what;
  void (*edit)(warpspec_kvcache_append_args&);
  warpspec_status code;
  const char* message;
};

const AppendRefusal kAppendRefusals[] = {
    {"old struct", [](warpspec_kvcache_append_args& a) { a.struct_size = 100; }, WARPSPEC_INVALID_ARGUMENT, "warpspec_kvcache_append_args.struct_size: 100 is smaller"},
    {"interleaved 2", [](warpspec_kvcache_append_args& a) { a.rotary_interleaved = 2; }, WARPSPEC_INVALID_ARGUMENT, "rotary_interleaved: must be 0 or 1, got 2"},
    {"q_per_token -1", [](warpspec_kvcache_append_args& a) { a.q_per_token = -1; }, WARPSPEC_INVALID_ARGUMENT, "q_per_token: must be 0 or 1, got -1"},
    {"fp32 cache", [](warpspec_kvcache_append_args& a) { a.k_cache.dtype = WARPSPEC_DTYPE_FP32; }, WARPSPEC_UNSUPPORTED, "k_cache.dtype: must be bf16 or fp16"},
    {"no cache", [](warpspec_kvcache_append_args& a) { a.v_cache.data = nullptr; }, WARPSPEC_INVALID_ARGUMENT, "v_cache.data: must not be null"},
    {"no cache_seqlens", [](warpspec_kvcache_append_args& a) { a.cache_seqlens.data = nullptr; }, WARPSPEC_INVALID_ARGUMENT, "cache_seqlens: required"},
    {"cache_seqlens length", [](warpspec_kvcache_append_args& a) { a.cache_seqlens.shape[0] = 3; }, WARPSPEC_INVALID_ARGUMENT, "cache_seqlens"},
    {"v_new seqlen", [](warpspec_kvcache_append_args& a) { a.v_new.shape[1] = 4; }, WARPSPEC_INVALID_ARGUMENT, "v_new.shape[1]"},
    {"k_new heads", [](warpspec_kvcache_append_args& a) { a.k_new.shape[2] = 4; }, WARPSPEC_INVALID_ARGUMENT, "k_new.shape[2]"},
    {"k_new dtype", [](warpspec_kvcache_append_args& a) { a.k_new.dtype = WARPSPEC_DTYPE_FP16; }, WARPSPEC_INVALID_ARGUMENT, "k_new.dtype"},
    {"cache batch without index", [](warpspec_kvcache_append_args& a) { a.k_cache.shape[0] = a.v_cache.shape[0] = 5; }, WARPSPEC_INVALID_ARGUMENT, "k_cache.shape[0]"},
    {"batch index with pages", [](warpspec_kvcache_append_args& a) {
       a.page_table = matrix(0x60000000, WARPSPEC_DTYPE_I32, 2, 8);
       a.cache_batch_idx = vector(0x61000000, WARPSPEC_DTYPE_I32, 2);
     }, WARPSPEC_UNSUPPORTED, "cache_batch_idx: not with page_table"},
    {"page table dtype", [](warpspec_kvcache_append_args& a) { a.page_table = matrix(0x60000000, WARPSPEC_DTYPE_FP32, 2, 8); }, WARPSPEC_INVALID_ARGUMENT, "page_table"},
    {"cos without sin", [](warpspec_kvcache_append_args& a) { a.rotary_cos = matrix(0x60000000, WARPSPEC_DTYPE_BF16, 1024, 64); }, WARPSPEC_INVALID_ARGUMENT, "rotary_cos, rotary_sin: give both or neither"},
    {"rotary too wide", [](warpspec_kvcache_append_args& a) {
       a.rotary_cos = matrix(0x60000000, WARPSPEC_DTYPE_BF16, 1024, 72);
       a.rotary_sin = matrix(0x61000000, WARPSPEC_DTYPE_BF16, 1024, 72);
     }, WARPSPEC_INVALID_ARGUMENT, "rotary_cos.shape[1] (rotary_dim / 2): must be from 1 to head_dim / 2 (64), got 72"},
    {"rotary dtype", [](warpspec_kvcache_append_args& a) {
       a.rotary_cos = matrix(0x60000000, WARPSPEC_DTYPE_FP32, 1024, 64);
       a.rotary_sin = matrix(0x61000000, WARPSPEC_DTYPE_FP32, 1024, 64);
     }, WARPSPEC_INVALID_ARGUMENT, "rotary_cos, rotary_sin: must be rank 2"},
    {"q without rotary", [](warpspec_kvcache_append_args& a) { a.q = a.q_out = bshd(0x62000000, 2, 3, 8, 128); }, WARPSPEC_INVALID_ARGUMENT, "q: only with rotary_cos"},
    {"k_new is the cache", [](warpspec_kvcache_append_args& a) { a.k_new.data = a.k_cache.data; }, WARPSPEC_INVALID_ARGUMENT, "k_cache"},
    {"k and v caches overlap", [](warpspec_kvcache_append_args& a) { a.v_cache.data = a.k_cache.data; }, WARPSPEC_INVALID_ARGUMENT, "v_cache"},
};

TEST(CApiAppend, RefusalsGiveTheCodeAndTheMessage) {
  if (!have_hopper()) {  // the valid call runs on a GPU; without one it names the device
    warpspec_kvcache_append_args ok = valid_append();
    EXPECT_EQ(warpspec_kvcache_append(&ok, nullptr), WARPSPEC_NO_DEVICE) << last_error();
  }
  for (const AppendRefusal& r : kAppendRefusals) {
    SCOPED_TRACE(r.what);
    warpspec_kvcache_append_args args = valid_append();
    r.edit(args);
    EXPECT_EQ(warpspec_kvcache_append(&args, nullptr), r.code) << last_error();
    const std::string e = last_error();
    EXPECT_EQ(e.rfind(std::string(warpspec_status_name(r.code)) + ": ", 0), 0u) << e;
    EXPECT_NE(e.find(r.message), std::string::npos) << e;
  }
  EXPECT_EQ(warpspec_kvcache_append(nullptr, nullptr), WARPSPEC_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "invalid argument: warpspec_kvcache_append_args: must not be null");
}

TEST(CApiAppend, DefaultIsInterleavedAndATailMustBeZero) {
  const warpspec_kvcache_append_args d = warpspec_kvcache_append_args_default();
  EXPECT_EQ(d.struct_size, sizeof(warpspec_kvcache_append_args));
  EXPECT_EQ(d.rotary_interleaved, 1);
  EXPECT_EQ(d.q_per_token, 0);
  EXPECT_EQ(d.rotary_cos.data, nullptr);
  struct Newer {
    warpspec_kvcache_append_args v1;
    uint64_t future[1];
  } newer{};
  newer.v1 = valid_append();
  newer.v1.struct_size = sizeof(Newer);
  newer.future[0] = 3;
  EXPECT_EQ(warpspec_kvcache_append(&newer.v1, nullptr), WARPSPEC_UNSUPPORTED);
  EXPECT_NE(last_error().find("knows 976"), std::string::npos) << last_error();
}

}  // namespace c_api_test
