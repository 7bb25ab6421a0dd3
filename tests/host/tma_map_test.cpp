// Host tests for tensor-map encoding: every rule is refused before the driver is
// touched, with its own code and a message naming the argument and the value; valid
// requests succeed on a Hopper machine and fail cleanly (no crash) without a driver.
#include "warpspec/hopper/tma_map.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "warpspec/device.hpp"

// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace tma_map_test {

using warpspec::DType;
using warpspec::Status;
using warpspec::StatusCode;
using warpspec::hopper::make_tma_map;
using warpspec::hopper::make_tma_map_2d;
using warpspec::hopper::TmaL2Promotion;
using warpspec::hopper::TmaOobFill;
using warpspec::hopper::TmaSwizzle;

// A byte pattern the encoder never writes as a whole map, to see that refusals leave
// the caller's map alone.
constexpr unsigned char kMapPoison = 0xAB;

class TmaMap : public ::testing::Test {
 protected:
  void SetUp() override {
    hopper_ = warpspec::check_device().ok();
    // With a Hopper GPU the driver really encodes, so give it device memory; without
    // one, validation never dereferences the address and an aligned host buffer does.
    if (hopper_) {
      ASSERT_EQ(cudaMalloc(&device_, 1 << 20), cudaSuccess);
      base_ = device_;
    } else {
      base_ = host_;
    }
    std::memset(&map_, kMapPoison, sizeof map_);
  }
  void TearDown() override {
    if (device_) cudaFree(device_);
  }

  // A request that is valid except where a test changes it: bf16 100 (cols) × 64
  // (rows), rows 256 B apart, 64 × 32 boxes (128 B inner = the SW128 span).
  Status encode() {
    return make_tma_map(&map_, dtype_, base_, std::span<const uint64_t>(dims_.data(), rank_),
                        std::span<const uint64_t>(strides_.data(), rank_ > 0 ? rank_ - 1 : 0),
                        std::span<const uint32_t>(box_.data(), box_rank_ < 0 ? rank_ : box_rank_), swizzle_, l2_,
                        oob_);
  }

  bool map_untouched() const {
    const auto* bytes = reinterpret_cast<const unsigned char*>(&map_);
    for (size_t i = 0; i < sizeof map_; ++i)
      if (bytes[i] != kMapPoison) return false;
    return true;
  }

  // A refusal: the code, the argument named, the offending value quoted, the map
  // untouched.
  void expect_refused(const Status& s, StatusCode code, const std::string& argument, const std::string& value) {
    EXPECT_EQ(s.code(), code) << s.to_string();
    EXPECT_NE(s.message().find(argument), std::string::npos) << "message does not name " << argument << ": "
                                                            << s.to_string();
    EXPECT_NE(s.message().find(value), std::string::npos) << "message does not quote " << value << ": "
                                                         << s.to_string();
    EXPECT_TRUE(map_untouched()) << "a refused request wrote the map";
  }

  // Past validation: on Hopper the driver must accept it too; without a driver the
  // refusal must come from the driver lookup, never from argument checks.
  void expect_accepted(const Status& s) {
    if (hopper_) {
      EXPECT_TRUE(s.ok()) << s.to_string();
      EXPECT_FALSE(map_untouched()) << "an accepted request did not write the map";
    } else {
      EXPECT_NE(s.code(), StatusCode::kInvalidArgument) << s.to_string();
      EXPECT_NE(s.code(), StatusCode::kMisaligned) << s.to_string();
    }
  }

  bool hopper_ = false;
  void* device_ = nullptr;
  alignas(256) unsigned char host_[1 << 12] = {};
  const void* base_ = nullptr;
  CUtensorMap map_;
  DType dtype_ = DType::kBF16;
  int rank_ = 2;
  int box_rank_ = -1;  // -1: same as rank_
  std::array<uint64_t, 6> dims_ = {100, 64, 1, 1, 1, 1};
  std::array<uint64_t, 5> strides_ = {256, 256 * 64, 256 * 64, 256 * 64, 256 * 64};
  std::array<uint32_t, 6> box_ = {64, 32, 1, 1, 1, 1};
  TmaSwizzle swizzle_ = TmaSwizzle::k128B;
  TmaL2Promotion l2_ = TmaL2Promotion::k256B;
  TmaOobFill oob_ = TmaOobFill::kZero;
};

// ------------------------------------------------------------------ the valid request

TEST_F(TmaMap, ValidRequestEncodesOnHopperAndFailsCleanlyWithoutDriver) {
  Status s = encode();
  if (hopper_) {
    EXPECT_TRUE(s.ok()) << s.to_string();
    EXPECT_FALSE(map_untouched());
    return;
  }
  std::vector<warpspec::DeviceInfo> devices;
  const bool driver = warpspec::list_devices(&devices).ok();
  if (!driver) {
    // This machine has no driver: the lookup fails, reported as such, map untouched.
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kNoDevice) << s.to_string();
    EXPECT_NE(s.message().find("driver"), std::string::npos) << s.to_string();
    EXPECT_TRUE(map_untouched());
  } else {
    // A driver without a Hopper GPU may or may not encode; it must only not crash and
    // not blame the arguments.
    expect_accepted(s);
  }
}

TEST_F(TmaMap, RepeatedAndConcurrentCallsAgree) {
  // The driver lookup happens once, thread-safely; every caller sees the same outcome.
  // The workers make no CUDA call of their own (like a PyTorch autograd or pool
  // thread): they have no current context, which cuTensorMapEncodeTiled needs, so this
  // also checks that the encoder supplies one for the call, and takes it away again.
  const Status first = encode();
  if (hopper_) ASSERT_TRUE(first.ok()) << first.to_string();
  // cuCtxGetCurrent, to see the workers' thread state before and after (null when
  // there is no driver: then there is no context to compare).
  using CtxGetCurrent = CUresult (*)(CUcontext*);
  CtxGetCurrent ctx_get_current = nullptr;
  if (hopper_) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 4000, cudaEnableDefault, &q) == cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
      ctx_get_current = reinterpret_cast<CtxGetCurrent>(fn);
    cudaGetLastError();
  }
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  std::vector<Status> results(kThreads, Status(StatusCode::kInternal, "thread did not run"));
  std::vector<int> context_before(kThreads, -1), context_after(kThreads, -1);  // 1: a context was current
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      alignas(128) CUtensorMap local;
      const uint64_t dims[2] = {100, 64};
      const uint64_t strides[1] = {256};
      const uint32_t box[2] = {64, 32};
      CUcontext ctx = nullptr;
      if (ctx_get_current && ctx_get_current(&ctx) == CUDA_SUCCESS) context_before[t] = ctx != nullptr;
      results[t] = make_tma_map(&local, DType::kBF16, base_, dims, strides, box, TmaSwizzle::k128B);
      ctx = nullptr;
      if (ctx_get_current && ctx_get_current(&ctx) == CUDA_SUCCESS) context_after[t] = ctx != nullptr;
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(results[t].code(), first.code())
        << "thread " << t << ": " << results[t].to_string() << "; the calling thread got " << first.to_string();
    if (hopper_) EXPECT_TRUE(results[t].ok()) << "thread " << t << ": " << results[t].to_string();
    // The encoder must not leave a context current in a thread that had none.
    if (context_before[t] == 0)
      EXPECT_EQ(context_after[t], 0) << "thread " << t << ": make_tma_map left a CUDA context current";
  }
  const Status again = encode();
  EXPECT_EQ(again.code(), first.code()) << again.to_string() << "; the first call got " << first.to_string();
}

TEST_F(TmaMap, EveryDtypeAndSwizzleAtItsSpanIsAccepted) {
  // Wide enough that no box below exceeds the tensor (that case has its own test).
  dims_[0] = 512;
  strides_[0] = 2048;
  for (DType dt : {DType::kBF16, DType::kFP16, DType::kFP32, DType::kE4M3, DType::kE5M2}) {
    for (TmaSwizzle sw : {TmaSwizzle::kNone, TmaSwizzle::k32B, TmaSwizzle::k64B, TmaSwizzle::k128B}) {
      SCOPED_TRACE(std::string(warpspec::dtype_name(dt)) + " swizzle " + std::to_string(static_cast<int>(sw)));
      dtype_ = dt;
      swizzle_ = sw;
      const uint32_t span = sw == TmaSwizzle::kNone ? 256 : warpspec::hopper::swizzle_span_bytes(sw);
      box_[0] = span / static_cast<uint32_t>(warpspec::dtype_size(dt));
      std::memset(&map_, kMapPoison, sizeof map_);
      expect_accepted(encode());
    }
  }
}

TEST_F(TmaMap, BoxLargerThanTensorIsNotRefused) {
  // TMA fills (load) or clips (store) whatever of the box lies outside the tensor, and
  // the driver documents no box <= dim rule: a 64 × 32 box on an 8 × 4 tensor is legal.
  dims_ = {8, 4, 1, 1, 1, 1};
  strides_[0] = 16;
  box_ = {64, 32, 1, 1, 1, 1};
  expect_accepted(encode());
}

TEST_F(TmaMap, BoundaryValuesAreAccepted) {
  {
    SCOPED_TRACE("dims[0] = 2^32");
    rank_ = 1;
    dims_[0] = 1ull << 32;
    box_[0] = 64;
    expect_accepted(encode());
  }
  {
    SCOPED_TRACE("stride 2^40 - 16, box 256, rank 5");
    rank_ = 5;
    swizzle_ = TmaSwizzle::kNone;
    dims_ = {256, 3, 2, 2, 2, 1};
    strides_ = {512, 1536, 3072, (1ull << 40) - 16, 0};
    box_ = {256, 3, 2, 2, 2, 1};
    std::memset(&map_, kMapPoison, sizeof map_);
    expect_accepted(encode());
  }
}

TEST_F(TmaMap, MapNeedsOnly64ByteAlignment) {
  // CUtensorMap is declared alignas(128), but the driver's rule is 64 bytes.
  alignas(128) unsigned char storage[sizeof(CUtensorMap) + 64];
  auto* out = reinterpret_cast<CUtensorMap*>(storage + 64);
  const uint64_t dims[2] = {100, 64};
  const uint64_t strides[1] = {256};
  const uint32_t box[2] = {64, 32};
  Status s = make_tma_map(out, DType::kBF16, base_, dims, strides, box, TmaSwizzle::k128B);
  EXPECT_NE(s.code(), StatusCode::kMisaligned) << s.to_string();
  if (hopper_) EXPECT_TRUE(s.ok()) << s.to_string();
}

// ------------------------------------------------------------------ refusals

TEST_F(TmaMap, RefusesNullMap) {
  const uint64_t dims[2] = {100, 64};
  const uint64_t strides[1] = {256};
  const uint32_t box[2] = {64, 32};
  Status s = make_tma_map(nullptr, DType::kBF16, base_, dims, strides, box, TmaSwizzle::k128B);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("out"), std::string::npos) << s.to_string();
}

TEST_F(TmaMap, RefusesMisalignedMap) {
  alignas(128) unsigned char storage[sizeof(CUtensorMap) + 128];
  std::memset(storage, kMapPoison, sizeof storage);
  auto* out = reinterpret_cast<CUtensorMap*>(storage + 32);
  const uint64_t dims[2] = {100, 64};
  const uint64_t strides[1] = {256};
  const uint32_t box[2] = {64, 32};
  Status s = make_tma_map(out, DType::kBF16, base_, dims, strides, box, TmaSwizzle::k128B);
  EXPECT_EQ(s.code(), StatusCode::kMisaligned) << s.to_string();
  EXPECT_NE(s.message().find("out"), std::string::npos) << s.to_string();
  EXPECT_NE(s.message().find("64-byte"), std::string::npos) << s.to_string();
  for (unsigned char b : storage) ASSERT_EQ(b, kMapPoison) << "a refused request wrote memory";
}

TEST_F(TmaMap, RefusesRankOutOfRange) {
  rank_ = 0;
  expect_refused(encode(), StatusCode::kInvalidArgument, "rank", "got 0");
  rank_ = 6;
  expect_refused(encode(), StatusCode::kInvalidArgument, "rank", "got 6");
}

TEST_F(TmaMap, RefusesStrideAndBoxCountsThatDisagreeWithRank) {
  {
    const uint64_t dims[2] = {100, 64};
    const uint64_t strides[2] = {256, 256 * 64};
    const uint32_t box[2] = {64, 32};
    expect_refused(make_tma_map(&map_, DType::kBF16, base_, dims, strides, box, TmaSwizzle::k128B),
                   StatusCode::kInvalidArgument, "strides", "got 2");
  }
  box_rank_ = 1;
  expect_refused(encode(), StatusCode::kInvalidArgument, "box", "got 1");
}

TEST_F(TmaMap, RefusesUnknownDtype) {
  dtype_ = static_cast<DType>(9);
  expect_refused(encode(), StatusCode::kInvalidArgument, "dtype", "got 9");
}

TEST_F(TmaMap, RefusesNullOrMisalignedBase) {
  base_ = nullptr;
  expect_refused(encode(), StatusCode::kInvalidArgument, "base", "null");
  base_ = host_ + 8;  // the probe's case: +8 rejected, +16 accepted
  expect_refused(encode(), StatusCode::kMisaligned, "base", "16-byte");
  base_ = host_ + 16;
  std::memset(&map_, kMapPoison, sizeof map_);
  Status s = encode();
  EXPECT_NE(s.code(), StatusCode::kMisaligned) << s.to_string();
  EXPECT_NE(s.code(), StatusCode::kInvalidArgument) << s.to_string();
}

TEST_F(TmaMap, RefusesDimsOutOfRange) {
  dims_[1] = 0;
  expect_refused(encode(), StatusCode::kInvalidArgument, "dims[1]", "got 0");
  dims_[1] = 64;
  dims_[0] = (1ull << 32) + 1;
  expect_refused(encode(), StatusCode::kInvalidArgument, "dims[0]", "got 4294967297");
}

TEST_F(TmaMap, RefusesStridesNotMultipleOf16OrTooLarge) {
  strides_[0] = 200;  // the probe's case
  expect_refused(encode(), StatusCode::kMisaligned, "strides[0]", "got 200");
  strides_[0] = 1ull << 40;
  expect_refused(encode(), StatusCode::kInvalidArgument, "strides[0]", "got 1099511627776");
  // The last stride of a higher-rank tensor is checked too.
  strides_[0] = 256;
  rank_ = 3;
  dims_[2] = 4;
  box_[2] = 2;
  strides_[1] = 256 * 64 + 8;
  expect_refused(encode(), StatusCode::kMisaligned, "strides[1]", "got 16392");
}

TEST_F(TmaMap, RefusesBoxEntriesOutOfRange) {
  box_[1] = 0;
  expect_refused(encode(), StatusCode::kInvalidArgument, "box[1]", "got 0");
  box_[1] = 257;  // the probe's case
  expect_refused(encode(), StatusCode::kInvalidArgument, "box[1]", "got 257");
}

TEST_F(TmaMap, RefusesInnerBoxNotMultipleOf16Bytes) {
  swizzle_ = TmaSwizzle::kNone;
  box_[0] = 4;  // 4 bf16 = 8 B: the probe's case
  expect_refused(encode(), StatusCode::kInvalidArgument, "box[0]", "8 bytes");
  dtype_ = DType::kE4M3;
  box_[0] = 24;
  expect_refused(encode(), StatusCode::kInvalidArgument, "box[0]", "24 bytes");
}

TEST_F(TmaMap, RefusesInnerBoxWiderThanSwizzleSpan) {
  box_[0] = 128;  // 256 B under SW128: the probe's case
  expect_refused(encode(), StatusCode::kInvalidArgument, "box[0]", "256 bytes");
  swizzle_ = TmaSwizzle::k64B;
  box_[0] = 64;  // 128 B under SW64: the probe's case
  expect_refused(encode(), StatusCode::kInvalidArgument, "box[0]", "128 bytes");
  swizzle_ = TmaSwizzle::k32B;
  dtype_ = DType::kFP32;
  box_[0] = 16;  // 64 B under SW32
  expect_refused(encode(), StatusCode::kInvalidArgument, "box[0]", "64 bytes");
  // The message names the swizzle that sets the limit.
  Status s = encode();
  EXPECT_NE(s.message().find("32B"), std::string::npos) << s.to_string();
}

TEST_F(TmaMap, RefusesUnknownEnumValues) {
  swizzle_ = static_cast<TmaSwizzle>(7);
  expect_refused(encode(), StatusCode::kInvalidArgument, "swizzle", "got 7");
  swizzle_ = TmaSwizzle::k128B;
  l2_ = static_cast<TmaL2Promotion>(9);
  expect_refused(encode(), StatusCode::kInvalidArgument, "l2_promotion", "got 9");
  l2_ = TmaL2Promotion::kNone;
  oob_ = static_cast<TmaOobFill>(3);
  expect_refused(encode(), StatusCode::kInvalidArgument, "oob_fill", "got 3");
}

TEST_F(TmaMap, RefusesNanFillForFp8) {
  dims_[0] = 256;  // no box below exceeds the tensor
  for (DType dt : {DType::kE4M3, DType::kE5M2}) {
    dtype_ = dt;
    box_[0] = 128;  // 128 B of fp8: fills the SW128 span
    oob_ = TmaOobFill::kNaN;
    expect_refused(encode(), StatusCode::kInvalidArgument, "oob_fill", warpspec::dtype_name(dt));
    // The same map with zero fill is fine.
    oob_ = TmaOobFill::kZero;
    std::memset(&map_, kMapPoison, sizeof map_);
    expect_accepted(encode());
    std::memset(&map_, kMapPoison, sizeof map_);
  }
  // Floating-point encodings take the NaN fill.
  dtype_ = DType::kBF16;
  box_[0] = 64;
  oob_ = TmaOobFill::kNaN;
  expect_accepted(encode());
}

// ------------------------------------------------------------------ the 2-D helper

TEST_F(TmaMap, Helper2dEncodesRowMajorMatrix) {
  expect_accepted(make_tma_map_2d(&map_, DType::kFP16, base_, /*rows=*/97, /*cols=*/100, /*ld=*/104,
                                  /*box_rows=*/40, /*box_cols=*/64, TmaSwizzle::k128B));
}

TEST_F(TmaMap, Helper2dNamesItsOwnArguments) {
  expect_refused(make_tma_map_2d(&map_, DType::kBF16, base_, 64, 100, 96, 32, 64, TmaSwizzle::k128B),
                 StatusCode::kInvalidArgument, "ld", "got ld 96 < cols 100");
  expect_refused(make_tma_map_2d(&map_, DType::kBF16, base_, 64, 100, 100, 32, 64, TmaSwizzle::k128B),
                 StatusCode::kMisaligned, "ld = 100", "got 200 bytes");
  expect_refused(make_tma_map_2d(&map_, DType::kBF16, base_, 64, 0, 104, 32, 64, TmaSwizzle::k128B),
                 StatusCode::kInvalidArgument, "cols", "got 0");
  expect_refused(make_tma_map_2d(&map_, DType::kBF16, base_, 0, 100, 104, 32, 64, TmaSwizzle::k128B),
                 StatusCode::kInvalidArgument, "rows", "got 0");
  expect_refused(make_tma_map_2d(&map_, DType::kBF16, base_, 64, 100, 104, 300, 64, TmaSwizzle::k128B),
                 StatusCode::kInvalidArgument, "box_rows", "got 300");
  expect_refused(make_tma_map_2d(&map_, DType::kBF16, base_, 64, 100, 104, 32, 72, TmaSwizzle::k128B),
                 StatusCode::kInvalidArgument, "box_cols", "144 bytes");
  // An ld whose byte stride would wrap around 2^64 is refused, not aliased.
  expect_refused(make_tma_map_2d(&map_, DType::kFP32, base_, 64, 100, (1ull << 62) + 8, 32, 32, TmaSwizzle::k128B),
                 StatusCode::kInvalidArgument, "ld = 4611686018427387912", "2^40");
}

}  // namespace tma_map_test
