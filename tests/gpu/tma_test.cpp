// TMA on the GPU, end to end: maps encoded by make_tma_map, boxes moved by the
// tma.cuh wrappers, shared memory read and written through swizzle_offset. Every
// element is checked against a host model: in-bounds elements equal the tensor,
// out-of-bounds elements are the fill (loads) or untouched poison (stores).
//
// Coordinates: the innermost one is always a multiple of 16 bytes (an odd element
// offset there is an illegal instruction that kills the process's CUDA context; see
// tma.cuh), the others are anything, negative or past the edge.
//
// Each test is a fixture that checks the CUDA context first: after a sticky error
// (illegal instruction, illegal address) every later CUDA call in the process fails,
// so a test that finds the context already broken skips, naming why, and only the
// test that broke it fails.
// The kernels are in tma_test.cu.
#include <cuda.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common/gpu_test.hpp"
#include "gpu/tma_test_kernels.hpp"
#include "warpspec/hopper/swizzle.hpp"
#include "warpspec/hopper/tma_map.hpp"

namespace tma_test {  // named: the file is compiled with others in one translation unit

using warpspec::DType;
using warpspec::dtype_name;
using warpspec::dtype_size;
using warpspec::hopper::TmaOobFill;
using warpspec::hopper::TmaSwizzle;
namespace hw = warpspec::hopper;

// ------------------------------------------------------------------ fixtures

// A test must not depend on an earlier test having left the CUDA context usable.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WARPSPEC_REQUIRE_HOPPER();
    // A non-sticky error an earlier test left in the runtime's last-error slot would
    // be picked up by this test's cudaGetLastError checks: clear it.
    cudaGetLastError();
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      cudaGetLastError();
      GTEST_SKIP() << "the CUDA context is unusable after an earlier failure in this process (" << cudaGetErrorName(e)
                   << ": " << cudaGetErrorString(e) << "); see the first failing test, or run this one alone with "
                   << "--gtest_filter=" << ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name()
                   << "." << ::testing::UnitTest::GetInstance()->current_test_info()->name();
    }
  }
  void TearDown() override {
    if (IsSkipped()) return;
    const cudaError_t e = cudaDeviceSynchronize();
    cudaGetLastError();
    if (e != cudaSuccess)
      ADD_FAILURE() << "this test left the CUDA context unusable (" << cudaGetErrorName(e) << ": "
                    << cudaGetErrorString(e) << "); later GPU tests in this process will skip";
  }
};

class TmaLoad : public GpuTest {};
class TmaStore : public GpuTest {};
class TmaMulticast : public GpuTest {};
class TmaBulkLoad : public GpuTest {};

// ------------------------------------------------------------------ host model

// Random element bits: a random sign, mantissa and a moderate exponent, so never zero,
// never NaN or Inf, and never the all-ones poison byte pattern.
uint32_t random_element(DType t, std::mt19937_64& rng) {
  auto bits = [&](int n) { return static_cast<uint32_t>(rng()) & ((1u << n) - 1u); };
  auto range = [&](uint32_t lo, uint32_t hi) { return lo + static_cast<uint32_t>(rng() % (hi - lo + 1)); };
  switch (t) {
    case DType::kBF16: return bits(1) << 15 | range(120, 134) << 7 | bits(7);
    case DType::kFP16: return bits(1) << 15 | range(10, 20) << 10 | bits(10);
    case DType::kFP32: return bits(1) << 31 | range(120, 134) << 23 | bits(23);
    case DType::kE4M3: return bits(1) << 7 | range(1, 14) << 3 | bits(3);
    case DType::kE5M2: return bits(1) << 7 | range(1, 29) << 2 | bits(2);
  }
  return 1;
}

bool is_nan_bits(DType t, uint32_t b) {
  switch (t) {
    case DType::kBF16: return (b & 0x7F80u) == 0x7F80u && (b & 0x7Fu) != 0;
    case DType::kFP16: return (b & 0x7C00u) == 0x7C00u && (b & 0x3FFu) != 0;
    case DType::kFP32: return (b & 0x7F800000u) == 0x7F800000u && (b & 0x7FFFFFu) != 0;
    default: return false;
  }
}

// A strided host tensor. Rows and higher dimensions are padded (strides larger than
// dense) so a map that ignored the strides would read the wrong bytes.
struct Tensor {
  DType dtype = DType::kBF16;
  int rank = 0;
  uint64_t dims[5] = {};
  uint64_t strides[5] = {};  // bytes; strides[0] = element size
  std::vector<uint8_t> bytes;

  Tensor(DType t, std::vector<uint64_t> d) : dtype(t), rank(static_cast<int>(d.size())) {
    const uint64_t es = dtype_size(t);
    for (int i = 0; i < rank; ++i) dims[i] = d[i];
    strides[0] = es;
    for (int i = 1; i < rank; ++i) {
      const uint64_t dense = strides[i - 1] * dims[i - 1];
      strides[i] = (dense + 15) / 16 * 16 + 16 * i;  // a multiple of 16, never dense
    }
    bytes.resize(strides[rank - 1] * dims[rank - 1] + 16);
  }

  // Random data everywhere, padding included (the padding must never be read).
  void fill_random(std::mt19937_64& rng) {
    const size_t es = dtype_size(dtype);
    for (size_t off = 0; off + es <= bytes.size(); off += es) {
      const uint32_t v = random_element(dtype, rng);
      std::memcpy(&bytes[off], &v, es);
    }
  }

  std::vector<uint64_t> map_strides() const { return {strides + 1, strides + rank}; }
};

uint32_t element_bits(const uint8_t* p, size_t es) {
  uint32_t v = 0;
  std::memcpy(&v, p, es);
  return v;
}

std::string describe(const char* what, DType t, TmaSwizzle sw, const std::vector<int32_t>& coords, uint64_t seed) {
  std::string s = std::string(what) + " " + dtype_name(t) + " swizzle " +
                  std::to_string(hw::swizzle_span_bytes(sw)) + "B coords {";
  for (size_t i = 0; i < coords.size(); ++i) s += (i ? ", " : "") + std::to_string(coords[i]);
  return s + "} seed " + std::to_string(seed);
}

// Load one box of `t` at `coords` and compare every element: in bounds, the tensor's
// bits; out of bounds, zero (kZero) or a NaN (kNaN).
void check_load(const Tensor& t, const std::vector<uint32_t>& box, const std::vector<int32_t>& coords,
                TmaSwizzle sw, TmaOobFill fill) {
  const size_t es = dtype_size(t.dtype);
  const uint32_t box_bytes = hw::tma_box_bytes(t.dtype, box);
  warpspec::test::DeviceBuffer in = warpspec::test::to_device(t.bytes);
  ASSERT_NE(in.get(), nullptr);
  CUtensorMap map;
  warpspec::Status s = hw::make_tma_map(&map, t.dtype, in.get(), std::span<const uint64_t>(t.dims, t.rank),
                                        t.map_strides(), box, sw, hw::TmaL2Promotion::k256B, fill);
  ASSERT_TRUE(s.ok()) << s.to_string();
  warpspec::test::DeviceBuffer out(box_bytes);
  ASSERT_NE(out.get(), nullptr);
  CUDA_ASSERT(warpspec::test::poison(out));
  Coords c{};
  for (int i = 0; i < t.rank; ++i) c.v[i] = coords[i];
  CUDA_ASSERT(launch_load(t.rank, map, c, box_bytes, box_bytes, sw, out.as<uint8_t>()));
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<uint8_t> got = warpspec::test::to_host<uint8_t>(out, box_bytes);

  int failures = 0;
  const size_t elements = box_bytes / es;
  for (size_t e = 0; e < elements && failures < 10; ++e) {
    size_t rest = e;
    bool inside = true;
    uint64_t offset = 0;
    std::string where;
    for (int k = 0; k < t.rank; ++k) {
      const int64_t g = coords[k] + static_cast<int64_t>(rest % box[k]);
      rest /= box[k];
      where += (k ? "," : "") + std::to_string(g);
      if (g < 0 || g >= static_cast<int64_t>(t.dims[k])) inside = false;
      else offset += static_cast<uint64_t>(g) * t.strides[k];
    }
    const uint32_t v = element_bits(&got[e * es], es);
    if (inside) {
      const uint32_t want = element_bits(&t.bytes[offset], es);
      if (v != want) {
        ADD_FAILURE() << "box element " << e << " (tensor {" << where << "}): got 0x" << std::hex << v
                      << ", want 0x" << want << std::dec;
        ++failures;
      }
    } else if (fill == TmaOobFill::kZero ? v != 0 : !is_nan_bits(t.dtype, v)) {
      ADD_FAILURE() << "box element " << e << " (out of bounds at {" << where << "}): got 0x" << std::hex << v
                    << std::dec << ", want " << (fill == TmaOobFill::kZero ? "0" : "NaN");
      ++failures;
    }
  }
}

// ------------------------------------------------------------------ loads

constexpr TmaSwizzle kModes[] = {TmaSwizzle::kNone, TmaSwizzle::k32B, TmaSwizzle::k64B, TmaSwizzle::k128B};

// The inner box extent used for each mode: the full span when swizzled (the layout
// swizzle_offset_2d describes); 48 B (three chunks, not a power of two) unswizzled.
uint32_t inner_bytes_for(TmaSwizzle sw) { return sw == TmaSwizzle::kNone ? 48 : hw::swizzle_span_bytes(sw); }

// Elements per 16 bytes: the innermost coordinate must be a multiple of this.
int32_t granule(DType t) { return static_cast<int32_t>(16 / dtype_size(t)); }

// x rounded down / up to a multiple of g (g > 0), also for negative x.
int32_t align_down(int32_t x, int32_t g) { return (x >= 0 ? x : x - (g - 1)) / g * g; }
int32_t align_up(int32_t x, int32_t g) { return align_down(x + g - 1, g); }

TEST_F(TmaLoad, RoundTrip2dEverySwizzleAndDtype) {
  for (TmaSwizzle sw : kModes) {
    for (DType dt : {DType::kBF16, DType::kFP16, DType::kFP32, DType::kE4M3}) {
      const uint32_t box_cols = inner_bytes_for(sw) / static_cast<uint32_t>(dtype_size(dt));
      const uint32_t box_rows = 40;  // 5 SW128 repeats: crosses repeat boundaries
      // Columns not a multiple of 16 B, so the right edge cuts through a chunk.
      const uint64_t cols = 3 * box_cols + 5, rows = 97;
      const int32_t ic = static_cast<int32_t>(cols), ir = static_cast<int32_t>(rows);
      const int32_t bc = static_cast<int32_t>(box_cols), g = granule(dt);
      const std::vector<std::vector<int32_t>> placements = {
          {g, 5},                          // inside, 16 B in: not aligned to the box or the span
          {align_up(ic - bc + 1, g), ir - 13},  // hangs off the right and bottom edges
          {-g, -17},                       // negative coordinates: hangs off top and left
          {align_up(ic + 10, g), ir + 50},      // wholly outside: all fill, full bytes still counted
          {-2 * bc, 3},                    // wholly left of the tensor
      };
      for (const auto& at : placements) {
        const uint64_t seed = warpspec::test::fresh_seed();
        SCOPED_TRACE(describe("2-D load", dt, sw, at, seed));
        std::mt19937_64 rng(seed);
        Tensor t(dt, {cols, rows});
        t.fill_random(rng);
        check_load(t, {box_cols, box_rows}, at, sw, TmaOobFill::kZero);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST_F(TmaLoad, NanFillOutOfBounds) {
  struct Case {
    DType dt;
    TmaSwizzle sw;
  };
  for (Case k : {Case{DType::kBF16, TmaSwizzle::k128B}, Case{DType::kFP32, TmaSwizzle::k64B},
                 Case{DType::kFP16, TmaSwizzle::kNone}}) {
    const uint32_t box_cols = inner_bytes_for(k.sw) / static_cast<uint32_t>(dtype_size(k.dt));
    // Hangs off the right edge (the tensor is 2 boxes + 3 wide) and the top.
    const std::vector<int32_t> at = {static_cast<int32_t>(2 * box_cols) - granule(k.dt), -7};
    const uint64_t seed = warpspec::test::fresh_seed();
    SCOPED_TRACE(describe("NaN-fill load", k.dt, k.sw, at, seed));
    std::mt19937_64 rng(seed);
    Tensor t(k.dt, {2 * box_cols + 3, 50});
    t.fill_random(rng);
    check_load(t, {box_cols, 24}, at, k.sw, TmaOobFill::kNaN);
    if (HasFatalFailure()) return;
  }
}

// A random tensor of `dt` and `shape` (innermost first), a zero-filled load of `box` at `at`.
void check_random_load(const char* what, DType dt, TmaSwizzle sw, std::vector<uint64_t> shape,
                       const std::vector<uint32_t>& box, const std::vector<int32_t>& at) {
  const uint64_t seed = warpspec::test::fresh_seed();
  SCOPED_TRACE(describe(what, dt, sw, at, seed));
  std::mt19937_64 rng(seed);
  Tensor t(dt, std::move(shape));
  t.fill_random(rng);
  check_load(t, box, at, sw, TmaOobFill::kZero);
}

TEST_F(TmaLoad, RoundTrip3d) {
  // bf16 SW64: 32-element (64 B) rows; hangs off dimension 0 at the low end (-8
  // elements = -16 B) and dimensions 1 and 2 at the high end.
  check_random_load("3-D load", DType::kBF16, TmaSwizzle::k64B, {45, 11, 7}, {32, 6, 5}, {-8, 7, 4});
}

TEST_F(TmaLoad, RoundTrip5d) {
  // fp32 SW128: 32-element (128 B) rows, starting 80 B in; every dimension crosses an
  // edge, one at a negative coordinate.
  check_random_load("5-D load", DType::kFP32, TmaSwizzle::k128B, {40, 5, 3, 4, 3}, {32, 3, 2, 3, 2}, {20, -1, 2, 2, 2});
}

TEST_F(TmaLoad, LargeBoxNeedsSmemOptIn) {
  // 128 × 256 bf16 = 64 KB: above the 48 KB default, so launch_load's
  // cudaFuncSetAttribute must take effect or the launch fails.
  check_random_load("64 KB load", DType::kBF16, TmaSwizzle::kNone, {300, 300}, {128, 256}, {104, 60});
}

TEST_F(TmaLoad, BoxLargerThanTensor) {
  // The encoder does not refuse box > dim; this checks the driver and hardware agree:
  // a 32 × 16 box over a 20 × 5 tensor, starting above and left of it.
  check_random_load("box > tensor load", DType::kBF16, TmaSwizzle::kNone, {20, 5}, {32, 16}, {-8, -2});
}

// ------------------------------------------------------------------ stores

// Store a random box_rows × box_cols box of `dt` at `at` into a poisoned cols × rows
// tensor (rows padded, see Tensor) and compare every byte of its memory with the model:
// the box's bytes where the store writes, poison (0xFF) everywhere else. The store
// writes the box's rows that lie inside the tensor, and of those the elements whose
// innermost index is below `written_cols`: cols for an exact clip, more when the
// tensor's rows end inside a 16-byte chunk (TmaStore.InnermostEdgeIsWrittenInWhole16ByteChunks).
void check_store(DType dt, TmaSwizzle sw, uint64_t cols, uint64_t rows, uint32_t box_cols, uint32_t box_rows,
                 const std::vector<int32_t>& at, uint64_t written_cols, std::mt19937_64& rng) {
  const size_t es = dtype_size(dt);
  Tensor t(dt, {cols, rows});  // only its shape and strides: the output is poison
  ASSERT_GE(t.strides[1], written_cols * es + 16) << "the model needs row padding past the written columns";
  std::vector<uint8_t> box(box_cols * box_rows * es);
  for (size_t off = 0; off < box.size(); off += es) {
    const uint32_t v = random_element(dt, rng);
    std::memcpy(&box[off], &v, es);
  }
  warpspec::test::DeviceBuffer dst(t.bytes.size());
  ASSERT_NE(dst.get(), nullptr);
  CUDA_ASSERT(warpspec::test::poison(dst));
  warpspec::test::DeviceBuffer src = warpspec::test::to_device(box);
  ASSERT_NE(src.get(), nullptr);
  CUtensorMap map;
  warpspec::Status s = hw::make_tma_map_2d(&map, dt, dst.get(), rows, cols, t.strides[1] / es, box_rows, box_cols, sw);
  ASSERT_TRUE(s.ok()) << s.to_string();
  CUDA_ASSERT(launch_store(map, at[0], at[1], static_cast<uint32_t>(box.size()), sw, src.as<uint8_t>()));
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<uint8_t> got = warpspec::test::to_host<uint8_t>(dst, t.bytes.size());

  // Expected: poison everywhere, the box's values on the cells the store writes.
  std::vector<uint8_t> want(t.bytes.size(), 0xFF);
  size_t written = 0;
  for (uint32_t r = 0; r < box_rows; ++r)
    for (uint32_t col = 0; col < box_cols; ++col) {
      const uint64_t gr = at[1] + r, gc = at[0] + col;
      if (gr >= rows || gc >= written_cols) continue;
      std::memcpy(&want[gr * t.strides[1] + gc * es], &box[(r * box_cols + col) * es], es);
      ++written;
    }
  ASSERT_GT(written, 0u);
  const uint64_t row_bytes = cols * es, written_bytes = written_cols * es;
  int failures = 0;
  for (size_t i = 0; i < got.size() && failures < 10; ++i) {
    if (got[i] == want[i]) continue;
    const uint64_t byte = i % t.strides[1];
    const char* zone = i / t.strides[1] >= rows ? "past the last row"
                       : byte < row_bytes       ? "inside the tensor"
                       : byte < written_bytes   ? "past the last column, before the 16-byte boundary"
                                                : "row padding past the 16-byte boundary";
    ADD_FAILURE() << "output byte " << i << " (row " << i / t.strides[1] << ", byte " << byte << ": " << zone
                  << "): got 0x" << std::hex << int(got[i]) << ", want 0x" << int(want[i]) << std::dec
                  << (want[i] == 0xFF ? " (poison: not written by the store)" : " (written by the store)");
    ++failures;
  }
}

TEST_F(TmaStore, ClipsAtTheEdgeEverySwizzle) {
  // Rows a whole number of 16-byte chunks (cols = 2 boxes + one granule), so the clip
  // at the right edge is exact; the bottom edge is clipped exactly in any case.
  for (TmaSwizzle sw : kModes) {
    for (DType dt : {DType::kBF16, DType::kFP32}) {
      const uint32_t box_cols = inner_bytes_for(sw) / static_cast<uint32_t>(dtype_size(dt));
      const uint32_t box_rows = 40;
      const int32_t g = granule(dt), bc = static_cast<int32_t>(box_cols);
      const uint64_t cols = 2 * box_cols + g, rows = 70;
      const int32_t ic = static_cast<int32_t>(cols), ir = static_cast<int32_t>(rows);
      const std::vector<std::vector<int32_t>> placements = {
          {g, 2},                                // inside
          {align_down(ic - bc / 2, g), ir - 17},  // hangs off both edges
      };
      for (const auto& at : placements) {
        const uint64_t seed = warpspec::test::fresh_seed();
        SCOPED_TRACE(describe("2-D store", dt, sw, at, seed));
        std::mt19937_64 rng(seed);
        check_store(dt, sw, cols, rows, box_cols, box_rows, at, cols, rng);
        if (HasFailure()) return;
      }
    }
  }
}

TEST_F(TmaStore, InnermostEdgeIsWrittenInWhole16ByteChunks) {
  // A TMA store writes the innermost dimension in whole 16-byte chunks. Here the rows
  // are cols·elemsize bytes with cols·elemsize not a multiple of 16 (cols = 2 boxes +
  // 3 elements), and the box runs past the right edge and past the next 16-byte
  // boundary: the store writes the box's bytes exactly up to that boundary (into the
  // row padding beyond the tensor) and not one byte further; everything else keeps its
  // poison. Rows past the bottom edge are not written at all. (Loads, by contrast,
  // fill exactly per element: the load tests' tensors end inside a chunk too.)
  for (TmaSwizzle sw : {TmaSwizzle::kNone, TmaSwizzle::k128B}) {
    for (DType dt : {DType::kBF16, DType::kFP32, DType::kE4M3}) {
      const size_t es = dtype_size(dt);
      const uint32_t box_cols = inner_bytes_for(sw) / static_cast<uint32_t>(es);
      const uint32_t box_rows = 24;
      const int32_t g = granule(dt);
      const uint64_t cols = 2 * box_cols + 3, rows = 50;
      ASSERT_NE(cols * es % 16, 0u);
      const uint64_t written_cols = (cols * es + 15) / 16 * 16 / es;  // up to the next 16-byte boundary
      // Starts a granule before the chunk holding the last element, ends past the boundary.
      const std::vector<int32_t> at = {align_down(static_cast<int32_t>(cols) - 1, g) - g,
                                       static_cast<int32_t>(rows) - 10};
      ASSERT_GT(at[0] + static_cast<int64_t>(box_cols), static_cast<int64_t>(written_cols));
      const uint64_t seed = warpspec::test::fresh_seed();
      SCOPED_TRACE(describe("2-D edge store", dt, sw, at, seed) + ", tensor rows " + std::to_string(cols * es) +
                   " B, written up to byte " + std::to_string(written_cols * es));
      std::mt19937_64 rng(seed);
      check_store(dt, sw, cols, rows, box_cols, box_rows, at, written_cols, rng);
      if (HasFailure()) return;
    }
  }
}

// ------------------------------------------------------------------ multicast

TEST_F(TmaMulticast, TwoCtaClusterBothReceiveWholeTile) {
  // bf16 SW128: tiles of 64 rows × 64 columns (128-B rows), each half 32 rows = 4 KB,
  // a multiple of the 1024-B repeat so the halves' swizzle phases line up.
  constexpr uint32_t kCols = 64, kHalfRows = 32, kRowBytes = kCols * 2, kClusters = 2;
  constexpr uint32_t kTileBytes = 2 * kHalfRows * kRowBytes;
  const uint64_t seed = warpspec::test::fresh_seed();
  SCOPED_TRACE("multicast seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  Tensor t(DType::kBF16, {kCols, 2 * kHalfRows * kClusters});
  t.fill_random(rng);
  warpspec::test::DeviceBuffer in = warpspec::test::to_device(t.bytes);
  CUtensorMap map;
  warpspec::Status s = hw::make_tma_map_2d(&map, DType::kBF16, in.get(), t.dims[1], kCols, t.strides[1] / 2,
                                           kHalfRows, kCols, TmaSwizzle::k128B);
  ASSERT_TRUE(s.ok()) << s.to_string();
  const uint32_t blocks = 2 * kClusters;
  warpspec::test::DeviceBuffer out(blocks * kTileBytes);
  CUDA_ASSERT(warpspec::test::poison(out));

  CUDA_ASSERT(launch_multicast(map, kClusters, kHalfRows, kRowBytes, TmaSwizzle::k128B, out.as<uint8_t>()));
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<uint8_t> got = warpspec::test::to_host<uint8_t>(out, blocks * kTileBytes);

  int failures = 0;
  for (uint32_t b = 0; b < blocks && failures < 10; ++b) {
    const uint32_t first_row = (b / 2) * 2 * kHalfRows;  // this block's cluster's tile
    for (uint32_t i = 0; i < kTileBytes && failures < 10; ++i) {
      const uint32_t r = i / kRowBytes, byte = i % kRowBytes;
      const uint8_t want = t.bytes[(first_row + r) * t.strides[1] + byte];
      if (got[b * kTileBytes + i] != want) {
        ADD_FAILURE() << "block " << b << " (cluster rank " << b % 2 << ") tile row " << r << " byte " << byte
                      << ": got 0x" << std::hex << int(got[b * kTileBytes + i]) << ", want 0x" << int(want)
                      << std::dec << (r / kHalfRows == b % 2 ? " (its own half)" : " (the peer's half)");
        ++failures;
      }
    }
  }
}

// ------------------------------------------------------------------ bulk copies

TEST_F(TmaBulkLoad, TwoRunsLandWhereAsked) {
  const uint64_t seed = warpspec::test::fresh_seed();
  SCOPED_TRACE("bulk seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  constexpr uint32_t kSrcBytes = 1 << 20;
  std::vector<uint8_t> host(kSrcBytes);
  for (auto& b : host) b = uint8_t(rng());
  warpspec::test::DeviceBuffer in = warpspec::test::to_device(host);
  // Runs of 16 bytes up to 32 KB (fixup-staged's chunks are 2-16 KB), at 16-byte offsets.
  for (uint32_t run : {16u, 2048u, 16384u, 32768u}) {
    SCOPED_TRACE("run " + std::to_string(run));
    const uint32_t off0 = uint32_t(rng() % ((kSrcBytes - run) / 16)) * 16;
    const uint32_t off1 = uint32_t(rng() % ((kSrcBytes - run) / 16)) * 16;
    warpspec::test::DeviceBuffer out(2 * run);
    CUDA_ASSERT(warpspec::test::poison(out));
    CUDA_ASSERT(launch_bulk_load(in.as<uint8_t>(), off0, off1, run, out.as<uint8_t>()));
    CUDA_ASSERT(cudaDeviceSynchronize());
    const std::vector<uint8_t> got = warpspec::test::to_host<uint8_t>(out, 2 * run);
    int failures = 0;
    for (uint32_t i = 0; i < 2 * run && failures < 10; ++i) {
      const uint8_t want = host[(i < run ? off0 + i : off1 + i - run)];
      if (got[i] != want) {
        ADD_FAILURE() << "byte " << i << ": got 0x" << std::hex << int(got[i]) << ", want 0x" << int(want) << std::dec;
        ++failures;
      }
    }
  }
}

}  // namespace tma_test
