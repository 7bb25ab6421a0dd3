// GEMM against cuBLAS (fp32 output, fp32 compute) and, for small problems, a float64
// CPU loop. In the manner of CUTLASS's testbed: sizes off the tile edges, every
// layout, alpha/beta (beta = 0 with C poisoned with NaN, C aliasing D), batches with
// strides and broadcast operands, both raster orders, every swizzle. Outputs are
// poisoned first; every element of D is checked, and D's padding must stay poisoned.
#include <cublas_v2.h>

#include <cmath>
#include <cstdlib>
#include <array>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <tuple>
#include <string>
#include <vector>

#include "common/gpu_test.hpp"
#include "testing/convert.hpp"
#include "testing/gemm_check.hpp"
#include "testing/gemm_cublas.hpp"
#include "testing/views.hpp"
#include "warpspec/warpspec.hpp"

namespace gemm_test {  // named: the C++ GPU test files are one unity translation unit

using warpspec::DType;
using warpspec::GemmArgs;
using warpspec::GemmRaster;
using warpspec::TensorView;
namespace test = warpspec::test;
namespace testbed = warpspec::testbed;

struct Case {
  int64_t m, n, k, l = 1;
  bool a_row = true, b_row = true, d_row = true;
  DType in = DType::kBF16, out = DType::kBF16;
  float alpha = 1.0f, beta = 0.0f;
  bool c_is_d = false;
  bool a_broadcast = false, b_broadcast = false;  // batch stride 0
  GemmRaster raster = GemmRaster::kHeuristic;
  int swizzle = 0;
  int tile_n = 0;
  warpspec::GemmDecomposition decomposition = warpspec::GemmDecomposition::kHeuristic;
  int splits = 0;
  bool own_workspace = false;  // pass a caller workspace (zeroed once) instead of the library's
  int cluster_m = 0, cluster_n = 0;  // GemmArgs::cluster_m/n (0 x 0: the library's choice)
  warpspec::GemmSchedule schedule = warpspec::GemmSchedule::kHeuristic;
};

const char* decomposition_name(warpspec::GemmDecomposition d) {
  switch (d) {
    case warpspec::GemmDecomposition::kDataParallel: return "dp";
    case warpspec::GemmDecomposition::kSplitK: return "splitk";
    case warpspec::GemmDecomposition::kStreamK: return "streamk";
    default: return "auto";
  }
}

std::string describe(const Case& c) {
  char buf[360];
  std::snprintf(buf, sizeof buf, "%ldx%ldx%ld L=%ld %c%c->%c %s->%s alpha=%g beta=%g%s%s%s raster=%d swizzle=%d tile_n=%d %s splits=%d%s cluster=%dx%d",
                long(c.m), long(c.n), long(c.k), long(c.l), c.a_row ? 'r' : 'c', c.b_row ? 'r' : 'c',
                c.d_row ? 'r' : 'c', warpspec::dtype_name(c.in), warpspec::dtype_name(c.out), c.alpha, c.beta,
                c.c_is_d ? " C=D" : "", c.a_broadcast ? " bcastA" : "", c.b_broadcast ? " bcastB" : "",
                int(c.raster), c.swizzle, c.tile_n, decomposition_name(c.decomposition), c.splits,
                c.own_workspace ? " own-workspace" : "", c.cluster_m, c.cluster_n);
  return std::string(buf) + (c.schedule == warpspec::GemmSchedule::kPingPong      ? " pingpong"
                             : c.schedule == warpspec::GemmSchedule::kCooperative ? " cooperative"
                                                                                   : "");
}

// Readable names in gtest and ctest output instead of a byte dump.
void PrintTo(const Case& c, std::ostream* os) { *os << describe(c); }

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  char buf[220];
  std::snprintf(buf, sizeof buf, "%ld_%ldx%ldx%ldL%ld_%c%c%c_%s_%s_t%d%s%s_%s%d", long(info.index), long(c.m),
                long(c.n), long(c.k), long(c.l), c.a_row ? 'r' : 'c', c.b_row ? 'r' : 'c', c.d_row ? 'r' : 'c',
                warpspec::dtype_name(c.in), warpspec::dtype_name(c.out), c.tile_n, c.beta != 0.0f ? "_beta" : "",
                c.c_is_d ? "_inplace" : "", decomposition_name(c.decomposition), c.splits);
  std::string name = buf;
  if (c.cluster_m != 0 || c.cluster_n != 0) name += "_c" + std::to_string(c.cluster_m) + "x" + std::to_string(c.cluster_n);
  if (c.schedule == warpspec::GemmSchedule::kPingPong) name += "_pingpong";
  if (c.schedule == warpspec::GemmSchedule::kCooperative) name += "_coop";
  return name;
}

// Host image of one batched matrix in device layout, with its float values.
struct HostMat {
  DType dtype;
  int64_t batch, rows, cols, ld, batch_stride;
  bool row_major;
  std::vector<uint8_t> bytes;  // device image
  size_t elems() const { return bytes.size() / warpspec::dtype_size(dtype); }
  size_t index(int64_t b, int64_t r, int64_t c) const {
    return size_t(b * batch_stride + (row_major ? r * ld + c : c * ld + r));
  }
  float get(int64_t b, int64_t r, int64_t c) const { return testbed::load_float(dtype, bytes.data(), index(b, r, c)); }
  void set(int64_t b, int64_t r, int64_t c, float f) { testbed::store_float(dtype, bytes.data(), index(b, r, c), f); }
};

// Leading dimension: the contiguous extent rounded to 16 bytes, plus a pad of 16 bytes
// so the padding columns exist and can be checked for stray writes.
HostMat make_mat(DType t, int64_t batch, int64_t rows, int64_t cols, bool row_major, bool pad) {
  const int64_t per16 = 16 / int64_t(warpspec::dtype_size(t));
  const int64_t inner = row_major ? cols : rows, outer = row_major ? rows : cols;
  HostMat m{t, batch, rows, cols, (inner + per16 - 1) / per16 * per16 + (pad ? per16 : 0), 0, row_major, {}};
  m.batch_stride = m.ld * outer + (batch > 1 ? per16 : 0);  // a gap between batches too
  m.bytes.assign(size_t(m.batch_stride * (batch - 1) + m.ld * outer) * warpspec::dtype_size(t), 0xFF);
  return m;
}

void fill_random(HostMat& m, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int64_t b = 0; b < m.batch; ++b)
    for (int64_t r = 0; r < m.rows; ++r)
      for (int64_t c = 0; c < m.cols; ++c) m.set(b, r, c, u(rng));
}

TensorView view_of(const HostMat& m, void* dev, bool batched_view) {
  TensorView v = batched_view ? TensorView::batched_matrix(dev, m.dtype, m.batch, m.rows, m.cols, m.ld, m.batch_stride, m.row_major)
                              : TensorView::matrix(dev, m.dtype, m.rows, m.cols, m.ld, m.row_major);
  return v;
}

void run_case(const Case& c) {
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(describe(c) + " " + test::seed_note(seed));
  std::mt19937_64 rng(seed);
  const int64_t la = c.a_broadcast ? 1 : c.l, lb = c.b_broadcast ? 1 : c.l;
  HostMat a = make_mat(c.in, la, c.m, c.k, c.a_row, false);
  HostMat b = make_mat(c.in, lb, c.k, c.n, c.b_row, false);
  HostMat d = make_mat(c.out, c.l, c.m, c.n, c.d_row, true);
  fill_random(a, rng);
  fill_random(b, rng);
  HostMat cm = d;  // C: same layout as D; random when read, NaN-poisoned when not
  if (c.beta != 0.0f) fill_random(cm, rng);

  test::DeviceBuffer da = test::to_device(a.bytes), db = test::to_device(b.bytes);
  test::DeviceBuffer dd = test::to_device(c.c_is_d ? cm.bytes : d.bytes);  // poisoned unless C aliases D
  test::DeviceBuffer dc = test::to_device(cm.bytes);
  ASSERT_TRUE(da.get() && db.get() && dd.get() && dc.get());

  GemmArgs args;
  args.a = view_of(a, da.get(), c.l > 1 && !c.a_broadcast);  // rank 2 broadcasts over L
  args.b = view_of(b, db.get(), c.l > 1);
  if (c.b_broadcast && c.l > 1) {  // rank 3 with batch stride 0
    args.b = TensorView::batched_matrix(db.get(), b.dtype, c.l, b.rows, b.cols, b.ld, 0, b.row_major);
  }
  args.d = view_of(d, dd.get(), c.l > 1);
  args.c = c.c_is_d ? args.d : view_of(cm, dc.get(), c.l > 1);
  if (c.beta == 0.0f) args.c = TensorView{};  // never read
  args.alpha = c.alpha;
  args.beta = c.beta;
  args.raster = c.raster;
  args.swizzle = c.swizzle;
  args.tile_n = c.tile_n;
  args.decomposition = c.decomposition;
  args.splits = c.splits;
  args.cluster_m = c.cluster_m;
  args.schedule = c.schedule;
  args.cluster_n = c.cluster_n;
  std::unique_ptr<test::DeviceBuffer> workspace;
  if (c.own_workspace) {
    size_t bytes = 0;
    ASSERT_TRUE(warpspec::gemm_workspace_size(args, &bytes).ok());
    workspace = std::make_unique<test::DeviceBuffer>(bytes + 16);
    ASSERT_TRUE(workspace->get());
    CUDA_ASSERT(cudaMemset(workspace->get(), 0, bytes + 16));
    args.workspace = workspace->get();
    args.workspace_bytes = bytes + 16;
  }
  ASSERT_TRUE(warpspec::check(args).ok()) << warpspec::check(args).to_string();
  warpspec::Status s = warpspec::gemm(args, nullptr);
  ASSERT_TRUE(s.ok()) << s.to_string();
  CUDA_ASSERT(cudaDeviceSynchronize());
  HostMat got = d;
  CUDA_ASSERT(cudaMemcpy(got.bytes.data(), dd.get(), got.bytes.size(), cudaMemcpyDeviceToHost));

  // Reference A·B in fp32 by cuBLAS: column-major C(N x M) = op(B) op(A), which is
  // the row-major M x N product. Under the sanitizers (WARPSPEC_TEST_CPU_REFERENCE set,
  // scripts/gpu-check --sanitize) the float64 CPU product alone: cuBLAS's fp32-output
  // kernels end racecheck with "Internal Sanitizer Error: failed to handle a hardware
  // exception" (H200, compute-sanitizer 2025.x), and they are not ours to check.
  const bool cpu_reference = std::getenv("WARPSPEC_TEST_CPU_REFERENCE") != nullptr;
  std::vector<float> prod;
  if (!cpu_reference) {
    test::DeviceBuffer ref(size_t(c.l * c.m * c.n) * sizeof(float));
    {
      cublasHandle_t h;
      ASSERT_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
      const testbed::CublasOperand oa{da.get(), a.row_major, a.ld, c.a_broadcast ? 0 : a.batch_stride};
      const testbed::CublasOperand ob{db.get(), b.row_major, b.ld, c.b_broadcast ? 0 : b.batch_stride};
      cublasStatus_t st = testbed::cublas_gemm_row_major(h, c.in, DType::kFP32, c.m, c.n, c.k, c.l, oa, ob, ref.get(),
                                                         1.0f, 0.0f);
      cublasDestroy(h);
      ASSERT_EQ(st, CUBLAS_STATUS_SUCCESS);
    }
    CUDA_ASSERT(cudaDeviceSynchronize());
    prod = test::to_host<float>(ref, size_t(c.l * c.m * c.n));
  }

  // Small problems (every problem with the CPU reference): the product again in float64
  // on the CPU, checked against cuBLAS so the reference itself is verified.
  const bool small = cpu_reference || c.m * c.n * c.k * c.l <= (int64_t(1) << 22);
  int64_t bad = 0, shown = 0;
  double worst = 0;
  for (int64_t l = 0; l < c.l; ++l)
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double p = cpu_reference ? 0.0 : prod[size_t((l * c.m + i) * c.n + j)];
        if (small) {
          double exact = 0;
          for (int64_t k = 0; k < c.k; ++k)
            exact += double(a.get(c.a_broadcast ? 0 : l, i, k)) * double(b.get(c.b_broadcast ? 0 : l, k, j));
          if (!cpu_reference && std::fabs(exact - p) > 1e-5 * (std::fabs(exact) + std::sqrt(double(c.k)))) {
            ADD_FAILURE() << "cuBLAS reference disagrees with float64 at " << l << "," << i << "," << j;
            return;
          }
          p = exact;
        }
        const double cval = c.beta != 0.0f ? double(cm.get(l, i, j)) : 0.0;
        const double expect = double(c.alpha) * p + double(c.beta) * cval;
        const double v = got.get(l, i, j);
        const double err = std::fabs(v - expect);
        const double tol = testbed::gemm_element_tolerance(c.out, c.k, c.alpha, c.beta, expect);
        if (!(err <= tol)) {
          if (shown++ < 5)
            ADD_FAILURE() << "D[" << l << "," << i << "," << j << "] = " << v << ", expected " << expect << " (tol " << tol << ")";
          ++bad;
        }
        worst = std::max(worst, std::isnan(err) ? INFINITY : err);
      }
  EXPECT_EQ(bad, 0) << "of " << c.l * c.m * c.n << " elements; worst error " << worst;

  // Nothing outside D's view was written: padding keeps the poison (0xFF bytes).
  if (!c.c_is_d) {
    std::vector<uint8_t> inside(got.bytes.size(), 0);
    const size_t e = warpspec::dtype_size(c.out);
    for (int64_t l = 0; l < c.l; ++l)
      for (int64_t i = 0; i < c.m; ++i)
        for (int64_t j = 0; j < c.n; ++j) std::memset(&inside[got.index(l, i, j) * e], 1, e);
    int64_t stray = 0;
    for (size_t i = 0; i < got.bytes.size(); ++i)
      if (!inside[i] && got.bytes[i] != 0xFF) ++stray;
    EXPECT_EQ(stray, 0) << "bytes written outside D's view";
  }
}

class GemmSweep : public ::testing::TestWithParam<Case> {};

TEST_P(GemmSweep, MatchesReference) {
  WARPSPEC_REQUIRE_HOPPER();
  run_case(GetParam());
}

std::vector<Case> shape_cases() {
  std::vector<Case> v;
  // Sizes around the 128 x 256 x 64 tile and odd ones, each layout of A and B.
  const int64_t sizes[][3] = {{1, 1, 1},       {8, 8, 8},       {120, 248, 56},  {136, 264, 72},
                              {128, 256, 64},  {1, 4096, 1024}, {1000, 1337, 4104}, {257, 17, 300},
                              {33, 520, 8},    {640, 8, 200}};
  int i = 0;
  for (const auto& s : sizes)
    for (int lay = 0; lay < 4; ++lay) {
      Case c{s[0], s[1], s[2]};
      c.a_row = lay & 1;
      c.b_row = lay & 2;
      c.d_row = (i % 3) != 2;  // a third of them column-major D
      c.tile_n = (i / 4) % 2 ? 0 : (64 << (i % 3));  // every tile width, and the automatic choice
      ++i;
      v.push_back(c);
    }
  return v;
}
INSTANTIATE_TEST_SUITE_P(Shapes, GemmSweep, ::testing::ValuesIn(shape_cases()), case_name);

std::vector<Case> epilogue_cases() {
  std::vector<Case> v;
  for (DType in : {DType::kBF16, DType::kFP16})
    for (DType out : {in, DType::kFP32})
      for (bool d_row : {true, false}) {
        Case c{300, 520, 192};
        c.in = in, c.out = out, c.d_row = d_row;
        c.tile_n = d_row ? 256 : 64;
        c.alpha = 1.0f, c.beta = 0.0f;
        v.push_back(c);
        c.alpha = 0.5f, c.beta = 0.0f;  // C poisoned with NaN, must not be read
        v.push_back(c);
        c.alpha = 1.5f, c.beta = -0.75f;
        v.push_back(c);
        c.c_is_d = true;  // in place
        v.push_back(c);
      }
  return v;
}
INSTANTIATE_TEST_SUITE_P(Epilogue, GemmSweep, ::testing::ValuesIn(epilogue_cases()), case_name);

std::vector<Case> batch_and_schedule_cases() {
  std::vector<Case> v;
  Case c{200, 300, 136, 3};
  v.push_back(c);
  c.b_broadcast = true;
  v.push_back(c);
  c.b_broadcast = false, c.a_broadcast = true, c.d_row = false;
  v.push_back(c);
  c = Case{200, 300, 136, 3};
  c.beta = 0.25f, c.out = DType::kFP32;
  v.push_back(c);
  for (GemmRaster r : {GemmRaster::kAlongM, GemmRaster::kAlongN})
    for (int sw : {1, 2, 4, 8}) {
      Case s{1500, 2100, 128};
      s.raster = r, s.swizzle = sw, s.tile_n = sw == 2 ? 128 : 256;
      v.push_back(s);
    }
  return v;
}
INSTANTIATE_TEST_SUITE_P(BatchAndSchedule, GemmSweep, ::testing::ValuesIn(batch_and_schedule_cases()), case_name);

// The default 128 x 256 tile (and the others) with more tiles than SMs (132 on H200):
// every CTA runs two or three tiles, so one tile's epilogue stores overlap the next
// tile's mainloop, and a C load for the next tile follows a D store of the last.
// Data-parallel by name: the heuristic may split K at these sizes, and then the overlap
// this checks (and racecheck with it) would be a different kernel path (KSplit has its own).
std::vector<Case> many_tiles_cases() {
  std::vector<Case> v;
  Case c{2304, 4352, 192};  // 18 x 17 = 306 tiles of 128 x 256
  c.tile_n = 256;
  for (GemmRaster r : {GemmRaster::kAlongM, GemmRaster::kAlongN}) {
    c.raster = r;
    v.push_back(c);
  }
  c.raster = GemmRaster::kHeuristic;
  c.beta = 0.5f;  // C read per tile
  v.push_back(c);
  c.out = DType::kFP32;
  v.push_back(c);
  c = Case{2304, 4352, 136};
  c.in = c.out = DType::kFP16, c.tile_n = 256, c.d_row = false, c.a_row = false;
  v.push_back(c);
  c = Case{1200, 1300, 72, 4};  // 10 x 6 x 4 = 240 tiles, over the batch
  c.tile_n = 256, c.beta = -1.0f;
  v.push_back(c);
  for (int tile_n : {64, 128}) {  // 18 x 34 = 612 and 18 x 68 = 1224 tiles
    Case t{2304, 4352, 192};
    t.tile_n = tile_n;
    v.push_back(t);
  }
  for (Case& m : v) m.decomposition = warpspec::GemmDecomposition::kDataParallel;
  return v;
}
INSTANTIATE_TEST_SUITE_P(ManyTiles, GemmSweep, ::testing::ValuesIn(many_tiles_cases()), case_name);

// A tile that M ends inside (gemm/mainloop.cuh tile_loaded_rows_a): K-major A's last box
// comes as 8-row boxes (up to block_n / 32 of them), or as one whole box moved back over
// the box before it, or whole and zero-filled when it is the tile's first; a box wholly
// past M is not loaded. M's last box holds 8 (one 8-row box), 16, 32, 48, 56 and 63 rows,
// in the first row tile and in the second, on each tile width; stale rows of older
// stages reach only rows past M (the poison check: nothing past D written). With beta
// (C read for the tile's rows) and split-K (each unit loads the same rows).
std::vector<Case> tail_rows_cases() {
  std::vector<Case> v;
  int i = 0;
  for (int64_t m : {40, 72, 80, 96, 112, 127, 200, 232, 312})
    for (int tile_n : {64, 128, 256}) {
      Case c{m, 520, 200};
      c.tile_n = tile_n;
      c.b_row = i % 2 == 0;
      if (i % 4 == 1) c.beta = 0.5f;
      if (i % 5 == 2) c.decomposition = warpspec::GemmDecomposition::kSplitK, c.splits = 2;
      ++i;
      v.push_back(c);
    }
  Case f{100, 1000, 600};  // fp16 in, fp32 out, 64 rows of the last box and a moved one
  f.in = DType::kFP16, f.out = DType::kFP32, f.tile_n = 128;
  v.push_back(f);
  return v;
}
INSTANTIATE_TEST_SUITE_P(TailRows, GemmSweep, ::testing::ValuesIn(tail_rows_cases()), case_name);

// The ping-pong schedule (gemm/kernel_pingpong.cuh; bf16 / fp16 x @ w.t() and a @ b), asked for by
// name: each consumer warpgroup its own 128 x 128 tile, the CTA's tiles in turns. Tiles
// per CTA from one (warpgroup 1 idle) to several of both parities (the turns between the
// warpgroups, one's epilogue under the other's mainloop), M ending inside a tile's first
// and second 64-row block (a warpgroup multiplies one block or two), the narrow rows a
// skinny call would otherwise run, a column-major D (A and B swapped), batches, rasters.
std::vector<Case> pingpong_cases() {
  std::vector<Case> v;
  const int64_t sizes[][4] = {{1, 1, 1, 1},        {8, 8, 8, 1},         {16, 4096, 1024, 1}, {40, 520, 200, 1},
                              {100, 1000, 600, 1}, {127, 264, 72, 1},    {136, 264, 72, 1},   {232, 520, 200, 1},
                              {1000, 1336, 4104, 1}, {2304, 4352, 192, 1}, {2200, 4200, 136, 1}, {1200, 1300, 72, 4}};
  int i = 0;
  for (const auto& s : sizes) {
    Case c{s[0], s[1], s[2], s[3]};
    c.a_row = true, c.b_row = false;  // K contiguous in both: x @ w.t()
    c.schedule = warpspec::GemmSchedule::kPingPong;
    if (i % 3 == 1) c.alpha = -0.5f;
    if (i % 4 == 2) c.tile_n = 128;
    if (i % 5 == 3) c.decomposition = warpspec::GemmDecomposition::kDataParallel;
    if (i % 3 == 2) c.in = c.out = DType::kFP16;
    ++i;
    v.push_back(c);
  }
  for (GemmRaster r : {GemmRaster::kAlongM, GemmRaster::kAlongN}) {  // 18 x 34 tiles, both orders
    Case c{2304, 4352, 256};
    c.a_row = true, c.b_row = false, c.raster = r, c.swizzle = r == GemmRaster::kAlongM ? 2 : 8;
    c.schedule = warpspec::GemmSchedule::kPingPong;
    v.push_back(c);
  }
  Case d{300, 2600, 192};  // a column-major D: the kernel's A is the caller's B
  d.a_row = true, d.b_row = false, d.d_row = false;
  d.schedule = warpspec::GemmSchedule::kPingPong;
  v.push_back(d);
  Case b{200, 300, 136, 3};  // B broadcast over the batch
  b.a_row = true, b.b_row = false, b.b_broadcast = true;
  b.schedule = warpspec::GemmSchedule::kPingPong;
  v.push_back(b);
  // beta·C: each warpgroup's own ring of 64-row C chunks; in place (C is D), fp16 and fp32
  // C values, a batch with C's batch stride, M ending in either 64-row block, many tiles.
  for (int k = 0; k < 5; ++k) {
    const int64_t shapes[][4] = {{2304, 4352, 192, 1}, {300, 520, 136, 1}, {1000, 1336, 264, 1}, {1200, 1300, 72, 3},
                                 {72, 2600, 200, 1}};
    Case c{shapes[k][0], shapes[k][1], shapes[k][2], shapes[k][3]};
    c.a_row = true, c.b_row = false;
    c.schedule = warpspec::GemmSchedule::kPingPong;
    c.alpha = k % 2 ? 1.5f : 1.0f, c.beta = k % 2 ? -0.75f : 0.5f;
    c.c_is_d = k == 1 || k == 4;
    if (k == 2) c.in = c.out = DType::kFP16;
    if (k == 4) c.d_row = false;  // column-major D and C: the swapped kernel reads C transposed
    v.push_back(c);
  }
  // D's right edge ragged (N % 8 != 0) inside a tile's second chunk: that chunk is copied
  // with plain stores and commits no bulk group, and the warpgroup's next 64 rows reuse the
  // first chunk's buffer at once; with and without C, many tiles.
  for (float beta : {0.0f, 0.5f}) {
    Case r{2304, 1100, 136};
    r.a_row = true, r.b_row = false, r.beta = beta;
    r.schedule = warpspec::GemmSchedule::kPingPong;
    v.push_back(r);
  }
  // a @ b (A and B row-major: B N-major, its boxes 64 columns wide), and A and B
  // column-major (A M-major): tiles of both parities, M ending in either 64-row block,
  // fp16, alpha, beta·C in place and with a batch, B broadcast, both rasters; by name and
  // by the heuristic (two tiles per SM).
  {
    struct NN {
      int64_t m, n, k, l;
      DType in;
      float alpha, beta;
      bool a_row, c_is_d, b_broadcast;
      GemmRaster raster;
      warpspec::GemmSchedule schedule;
    };
    const auto pp = warpspec::GemmSchedule::kPingPong;
    const NN nn[] = {
        {2304, 4352, 192, 1, DType::kBF16, 1.0f, 0.0f, true, false, false, GemmRaster::kHeuristic, pp},
        {1000, 1336, 4104, 1, DType::kFP16, -0.5f, 0.0f, true, false, false, GemmRaster::kHeuristic, pp},
        {127, 264, 72, 1, DType::kBF16, 1.0f, 0.0f, true, false, false, GemmRaster::kHeuristic, pp},
        {136, 264, 72, 1, DType::kFP16, 1.0f, 0.0f, true, false, false, GemmRaster::kHeuristic, pp},
        {300, 520, 136, 1, DType::kBF16, 1.5f, -0.75f, true, true, false, GemmRaster::kHeuristic, pp},
        {1200, 1304, 72, 3, DType::kFP16, 1.0f, 0.5f, true, false, false, GemmRaster::kHeuristic, pp},
        {200, 304, 136, 3, DType::kBF16, 1.0f, 0.0f, true, false, true, GemmRaster::kHeuristic, pp},
        {2304, 4352, 256, 1, DType::kBF16, 1.0f, 0.0f, true, false, false, GemmRaster::kAlongN, pp},
        {2304, 4352, 264, 1, DType::kBF16, 1.0f, 0.0f, true, false, false, GemmRaster::kHeuristic,
         warpspec::GemmSchedule::kHeuristic},
        {2048, 2560, 520, 1, DType::kFP16, 1.0f, 0.25f, true, false, false, GemmRaster::kHeuristic,
         warpspec::GemmSchedule::kHeuristic},
        // A column-major (M-major; M a multiple of 8, TMA's stride rule), B column-major (K-major).
        {2304, 4352, 192, 1, DType::kBF16, 1.0f, 0.0f, false, false, false, GemmRaster::kHeuristic, pp},
        {120, 1000, 136, 2, DType::kFP16, -0.5f, 0.0f, false, false, false, GemmRaster::kHeuristic, pp},
        {296, 520, 136, 1, DType::kBF16, 1.5f, -0.75f, false, true, false, GemmRaster::kHeuristic, pp},
        {2048, 2560, 264, 1, DType::kBF16, 1.0f, 0.0f, false, false, false, GemmRaster::kHeuristic,
         warpspec::GemmSchedule::kHeuristic},
    };
    for (const NN& x : nn) {
      Case c{x.m, x.n, x.k, x.l};
      c.a_row = x.a_row, c.b_row = x.a_row;  // one operand MN-major: B (a @ b) or A
      c.in = c.out = x.in;
      c.alpha = x.alpha, c.beta = x.beta, c.c_is_d = x.c_is_d, c.b_broadcast = x.b_broadcast;
      c.raster = x.raster;
      if (x.raster == GemmRaster::kAlongN) c.swizzle = 8;
      c.schedule = x.schedule;
      v.push_back(c);
    }
    // A column-major D swaps A and B: a @ b runs the M-major-A kernel and A, B column-major
    // the N-major-B one; with C column-major too, by name and by the heuristic.
    for (int j = 0; j < 4; ++j) {
      Case c{j < 2 ? 1000 : 2304, j < 2 ? 1336 : 4352, j < 2 ? 200 : 264};
      c.a_row = c.b_row = j % 2 == 0;
      c.d_row = false;
      if (j == 1 || j == 2) c.beta = 0.5f, c.alpha = -1.25f;
      if (j == 2) c.in = c.out = DType::kFP16;
      c.schedule = j < 2 ? pp : warpspec::GemmSchedule::kHeuristic;
      v.push_back(c);
    }
  }
  Case co{2304, 4352, 192};  // the other schedule asked for by name
  co.a_row = true, co.b_row = false;
  co.schedule = warpspec::GemmSchedule::kCooperative;
  v.push_back(co);
  return v;
}
INSTANTIATE_TEST_SUITE_P(PingPong, GemmSweep, ::testing::ValuesIn(pingpong_cases()), case_name);

// Every kernel the library builds: input dtype x output dtype (the input's or fp32) x
// A K- or M-major x B K- or N-major x tile width = 48 (src/gemm/gemm.cpp: with a
// row-major D, A row-major is K-major A, B column-major is K-major B), each with and
// without C. Small enough for the float64 CPU check.
std::vector<Case> variant_cases() {
  std::vector<Case> v;
  for (DType in : {DType::kBF16, DType::kFP16})
    for (DType out : {in, DType::kFP32})
      for (bool a_row : {true, false})
        for (bool b_row : {true, false})
          for (int tile_n : {64, 128, 256})
            for (float beta : {0.0f, 0.75f}) {
              Case c{136, 264, 72};  // past a tile edge in M, N and K
              c.in = in, c.out = out, c.a_row = a_row, c.b_row = b_row, c.tile_n = tile_n, c.beta = beta;
              c.alpha = beta != 0.0f ? -1.25f : 1.0f;
              v.push_back(c);
            }
  return v;
}
INSTANTIATE_TEST_SUITE_P(Variants, GemmSweep, ::testing::ValuesIn(variant_cases()), case_name);

// Split-K and stream-K (issue 10): the same checks as every case above (poisoned D,
// every element against the reference, padding untouched) with the K loop shared
// between CTAs. Sizes off the tile edges, K not a multiple of 64, every A/B layout and
// tile width, batched and broadcast operands, beta != 0 (and C = D in place, which only
// the final unit may read and write), fp32 and fp16 outputs, more splits than
// k-iterations (empty units), stream-K with fewer tiles than SMs, with a partial last
// wave, and over a batch; the library's cached workspace and a caller's.
std::vector<Case> k_split_cases() {
  using warpspec::GemmDecomposition;
  std::vector<Case> v;
  const int64_t sizes[][3] = {{1, 1, 1},        {8, 8, 8},        {120, 248, 56},  {136, 264, 200},
                              {1, 4096, 1024},  {1000, 1337, 4104}, {257, 17, 300}, {33, 520, 8},
                              {64, 512, 4000},  {16, 4096, 4096}, {300, 520, 2000}, {129, 255, 1023}};
  const int splits[] = {2, 3, 5, 7, 0};
  int i = 0;
  for (const auto& s : sizes)
    for (int lay = 0; lay < 4; ++lay)
      for (GemmDecomposition d : {GemmDecomposition::kSplitK, GemmDecomposition::kStreamK}) {
        Case c{s[0], s[1], s[2]};
        c.a_row = lay & 1;
        c.b_row = lay & 2;
        c.d_row = (i % 3) != 2;
        c.tile_n = (i / 2) % 4 == 3 ? 0 : (64 << ((i / 2) % 3));
        c.decomposition = d;
        if (d == GemmDecomposition::kSplitK) c.splits = splits[i % 5];
        c.own_workspace = (i / 2) % 3 == 1;
        ++i;
        v.push_back(c);
      }
  // Epilogue: beta, in place, fp32 and fp16, alpha.
  for (GemmDecomposition d : {GemmDecomposition::kSplitK, GemmDecomposition::kStreamK})
    for (DType in : {DType::kBF16, DType::kFP16})
      for (DType out : {in, DType::kFP32}) {
        Case c{300, 520, 1000};
        c.in = in, c.out = out, c.decomposition = d, c.splits = d == GemmDecomposition::kSplitK ? 4 : 0;
        c.alpha = 1.5f, c.beta = -0.75f;
        v.push_back(c);
        c.c_is_d = true;
        c.d_row = false;
        v.push_back(c);
        c.c_is_d = false, c.beta = 0.0f, c.alpha = 0.5f;  // C NaN-poisoned, never read
        v.push_back(c);
      }
  // Empty units: more splits than k-iterations (K = 136: 3 k-iterations; K = 64: 1).
  for (int s : {4, 8, 64, 256}) {
    Case c{100, 200, 136};
    c.decomposition = GemmDecomposition::kSplitK, c.splits = s, c.beta = 0.5f;
    v.push_back(c);
    c = Case{64, 64, 64};
    c.decomposition = GemmDecomposition::kSplitK, c.splits = s;
    v.push_back(c);
  }
  // Batched, broadcast operands.
  for (GemmDecomposition d : {GemmDecomposition::kSplitK, GemmDecomposition::kStreamK}) {
    Case c{200, 300, 1000, 3};
    c.decomposition = d, c.splits = d == GemmDecomposition::kSplitK ? 3 : 0;
    v.push_back(c);
    c.b_broadcast = true, c.beta = 0.25f;
    v.push_back(c);
    c.b_broadcast = false, c.a_broadcast = true, c.d_row = false, c.out = DType::kFP32;
    v.push_back(c);
  }
  // Stream-K over more tiles than SMs: 306 tiles of 128 x 256 (a partial last wave), and
  // 240 tiles over a batch; data-parallel waves plus streamed tiles in one launch.
  for (int64_t k : {520, 1000}) {
    Case c{2304, 4352, k};
    c.tile_n = 256, c.decomposition = GemmDecomposition::kStreamK, c.beta = k == 1000 ? 0.5f : 0.0f;
    v.push_back(c);
  }
  Case c{1200, 1300, 720, 4};
  c.tile_n = 256, c.decomposition = GemmDecomposition::kStreamK, c.own_workspace = true;
  v.push_back(c);
  // Raster orders and swizzles carry over (the tile order is the persistent scheduler's).
  for (GemmRaster r : {GemmRaster::kAlongM, GemmRaster::kAlongN}) {
    Case s{1500, 2100, 700};
    s.raster = r, s.swizzle = 4, s.decomposition = GemmDecomposition::kStreamK;
    v.push_back(s);
    s.decomposition = GemmDecomposition::kSplitK, s.splits = 2;
    v.push_back(s);
  }
  // The heuristic on the skinny shapes (whatever it picks must be right); 96 x 8192 x
  // 8192 takes the 128-wide tile split in two where DRAM gives >= 4 TB/s (tile_choice.cpp
  // wide_split_pays: the H200), the 64-wide tile elsewhere.
  for (const auto& s :
       std::vector<std::array<int64_t, 3>>{{16, 4096, 4096}, {1, 8192, 2048}, {128, 8192, 4096}, {96, 8192, 8192}}) {
    Case h{s[0], s[1], s[2]};
    v.push_back(h);
  }
  return v;
}
INSTANTIATE_TEST_SUITE_P(KSplit, GemmSweep, ::testing::ValuesIn(k_split_cases()), case_name);

// Narrow tiles (16 and 32 wide; D computed as D^T = B^T A^T, stored from registers):
// the layout they are built for (A row-major, B column-major), M from 1 to past the
// tile (several column tiles), N and K off every edge, both D layouts (the swap leaves a
// column-major kernel D for a row-major D), beta with C and in place, fp16, batched with
// broadcast operands, and each K decomposition (their fixup runs on 128 x 16 tiles).
std::vector<Case> narrow_cases() {
  using warpspec::GemmDecomposition;
  std::vector<Case> v;
  const int64_t sizes[][3] = {{1, 4096, 1024}, {5, 1000, 72},  {16, 4104, 1000}, {17, 136, 4096},
                              {31, 1001, 520}, {32, 8, 8},     {48, 520, 200},   {200, 264, 136},
                              {1, 1, 1},       {3, 2056, 2056}};
  int i = 0;
  for (const auto& s : sizes)
    for (int tile_n : {0, 16, 32}) {
      Case c{s[0], s[1], s[2]};
      c.a_row = true, c.b_row = false;
      c.d_row = i % 3 != 1;
      c.tile_n = tile_n;
      c.in = c.out = i % 4 == 3 ? DType::kFP16 : DType::kBF16;
      if (i % 5 == 2) c.alpha = 1.5f, c.beta = -0.75f;
      if (i % 7 == 4) c.alpha = 0.5f, c.beta = 0.25f, c.c_is_d = true;
      ++i;
      v.push_back(c);
    }
  for (GemmDecomposition d : {GemmDecomposition::kDataParallel, GemmDecomposition::kSplitK, GemmDecomposition::kStreamK})
    for (int tile_n : {16, 32}) {
      Case c{24, 3000, 3000};
      c.a_row = true, c.b_row = false, c.tile_n = tile_n, c.decomposition = d;
      if (d == GemmDecomposition::kSplitK) c.splits = tile_n == 16 ? 5 : 2;
      c.beta = tile_n == 16 ? 0.5f : 0.0f;
      c.own_workspace = d == GemmDecomposition::kStreamK && tile_n == 32;
      v.push_back(c);
    }
  for (int which = 0; which < 3; ++which) {
    Case c{12, 700, 300, 3};
    c.a_row = true, c.b_row = false;
    c.a_broadcast = which == 1, c.b_broadcast = which == 2;
    c.d_row = which != 2, c.beta = which == 0 ? 0.75f : 0.0f;
    v.push_back(c);
  }
  return v;
}
INSTANTIATE_TEST_SUITE_P(Narrow, GemmSweep, ::testing::ValuesIn(narrow_cases()), case_name);

// The library's choice: M <= 32 in the narrow tiles' layout runs them (16 wide up to 16
// rows), other layouts, out dtypes and larger M do not; an explicit narrow request
// outside their layout is refused by name before anything runs.
TEST(GemmNarrow, ChosenForSkinnyLinearLayers) {
  WARPSPEC_REQUIRE_HOPPER();
  test::DeviceBuffer mem(size_t(96) << 20);  // A at 0, B at 1 MB (64 MB), D at 80 MB: disjoint views
  ASSERT_TRUE(mem.get());
  char* base = static_cast<char*>(mem.get());
  auto config = [&](int64_t m, bool b_row, DType out, int tile_n) {
    GemmArgs g;
    g.a = TensorView::matrix(base, DType::kBF16, m, 4096, 4096, true);
    g.b = TensorView::matrix(base + (size_t(1) << 20), DType::kBF16, 4096, 8192, b_row ? 8192 : 4096, b_row);
    g.d = TensorView::matrix(base + (size_t(80) << 20), out, m, 8192, 8192, true);
    g.tile_n = tile_n;
    std::string line;
    const warpspec::Status s = warpspec::describe(g, &line);
    return s.ok() ? line : s.to_string();
  };
  for (int64_t m : {1, 16}) EXPECT_NE(config(m, false, DType::kBF16, 0).find("swapped=1 tile=64x16x64"), std::string::npos) << m;
  EXPECT_NE(config(32, false, DType::kBF16, 0).find("tile=64x32x64"), std::string::npos);
  EXPECT_EQ(config(33, false, DType::kBF16, 0).find("swapped=1"), std::string::npos);
  EXPECT_EQ(config(16, true, DType::kBF16, 0).find("tile=64x16"), std::string::npos);   // B row-major
  EXPECT_EQ(config(16, false, DType::kFP32, 0).find("tile=64x16"), std::string::npos);  // D fp32
  EXPECT_NE(config(500, false, DType::kBF16, 32).find("tile=64x32x64"), std::string::npos);
  const std::string refused = config(16, true, DType::kBF16, 16);
  EXPECT_NE(refused.find("tile_n: the narrow tiles"), std::string::npos) << refused;
}

// Clusters (issue 10): the 2-CTA kernels, 2x1 (a pair of M tiles shares B by TMA
// multicast) and 1x2 (a pair of N tiles shares A), built for bf16 A row-major and B
// column-major (K contiguous in both), D bf16, the 128 x 256 tile. The same checks as
// every case above. Tile counts odd along the pair's side (the last pair's second tile
// lies past the edge: it loads and multicasts its half and stores nothing), M and N off
// the tile edges, K not a multiple of 64, one pair padded entirely (M = 65 with 2x1),
// batched and broadcast operands, beta != 0 and C = D in place, a column-major D (the
// kernel computes D^T: the caller's 2x1 is the kernel's 1x2), both raster orders and
// swizzles, more tiles than SMs (several pairs per cluster, the epilogue of one pair
// overlapping the next pair's mainloop), and the library's choice on a large problem.
std::vector<Case> cluster_cases() {
  std::vector<Case> v;
  const int64_t sizes[][4] = {
      {300, 520, 100, 1},    // 3 x 3 tiles: odd both ways (the first sanitizer case: keep it first)
      {200, 600, 136, 2},    // 2 x 3 tiles, batched (the second sanitizer case)
      {256, 512, 64, 1},     // exact tiles, one k-iteration
      {136, 264, 72, 1},     // 2 x 2, one past a tile edge in M, N and K
      {65, 520, 200, 1},     // 1 x 3: with 2x1 the pair's second tile is all padding
      {1000, 1337, 4104, 1}, // 8 x 6, long K
      {2200, 4300, 200, 1},  // 18 x 17 = 306 tiles: several units per cluster
      {2176, 4352, 192, 1},  // 17 x 17: odd both ways, several units per cluster
      {1200, 1300, 72, 4},   // 10 x 6 x 4 = 240 tiles over a batch
  };
  int i = 0;
  for (const auto& s : sizes)
    for (int cm : {2, 1}) {
      Case c{s[0], s[1], s[2], s[3]};
      c.a_row = true, c.b_row = false;  // K contiguous in A and B: the layout clusters are built for
      c.cluster_m = cm, c.cluster_n = 3 - cm;
      c.tile_n = i % 2 ? 256 : 0;
      if (i % 3 == 0) c.beta = 0.5f, c.alpha = -1.5f;
      c.decomposition = i % 4 == 1 ? warpspec::GemmDecomposition::kDataParallel : warpspec::GemmDecomposition::kHeuristic;
      ++i;
      v.push_back(c);
    }
  for (int cm : {2, 1}) {
    Case c{300, 520, 192};
    c.a_row = true, c.b_row = false, c.cluster_m = cm, c.cluster_n = 3 - cm;
    c.alpha = 1.5f, c.beta = -0.75f, c.c_is_d = true;  // in place
    v.push_back(c);
    c.c_is_d = false, c.beta = 0.0f, c.d_row = false;  // column-major D: the kernel's pair is the other way
    v.push_back(c);
    c.beta = 0.25f, c.m = 520, c.n = 300;  // column-major D, kernel 3 x 3 tiles
    v.push_back(c);
    c = Case{200, 300, 136, 3};  // batched with broadcast operands
    c.a_row = true, c.b_row = false, c.cluster_m = cm, c.cluster_n = 3 - cm;
    c.b_broadcast = true;
    v.push_back(c);
    c.b_broadcast = false, c.a_broadcast = true, c.beta = 1.0f;
    v.push_back(c);
    for (GemmRaster r : {GemmRaster::kAlongM, GemmRaster::kAlongN})
      for (int sw : {1, 2, 8}) {
        Case s{1500, 2100, 128};
        s.a_row = true, s.b_row = false, s.cluster_m = cm, s.cluster_n = 3 - cm;
        s.raster = r, s.swizzle = sw;
        v.push_back(s);
      }
  }
  // 1x1 named explicitly on the same layout (the plain kernel), and the library's choice
  // on a problem large enough for a pair (GemmCluster.HeuristicPicksAPair checks which).
  Case none{2304, 4352, 192};
  none.a_row = true, none.b_row = false, none.cluster_m = 1, none.cluster_n = 1;
  v.push_back(none);
  Case autoc{4096, 4096, 256};
  autoc.a_row = true, autoc.b_row = false, autoc.beta = 0.5f;
  v.push_back(autoc);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Cluster, GemmSweep, ::testing::ValuesIn(cluster_cases()), case_name);

// The 224-wide tile (tile_n = 224; bf16 x @ w.t(), D bf16, linear): three 64-column epilogue
// chunks by TMA and a 32-column tail by plain stores. N on the tile edge, inside the tail,
// inside a whole chunk and past one tile; beta (and in place), batched, K off the 64 grid,
// column-major D (the swap keeps both operands K-major), split-K and stream-K.
std::vector<Case> wave_tile_cases() {
  using warpspec::GemmDecomposition;
  std::vector<Case> v;
  const int64_t sizes[][3] = {{256, 448, 256}, {300, 500, 200}, {129, 256, 64}, {136, 672, 1000},
                              {1000, 1337, 4104}, {64, 240, 72},  {2048, 2688, 512}};
  for (const auto& s : sizes) {
    Case c{s[0], s[1], s[2]};
    c.a_row = true, c.b_row = false, c.tile_n = 224;
    v.push_back(c);
  }
  Case beta{300, 500, 200};
  beta.a_row = true, beta.b_row = false, beta.tile_n = 224, beta.alpha = -1.25f, beta.beta = 0.5f;
  v.push_back(beta);
  beta.c_is_d = true;
  v.push_back(beta);
  Case batched{200, 460, 136, 3};
  batched.a_row = true, batched.b_row = false, batched.tile_n = 224;
  v.push_back(batched);
  Case col{520, 300, 264};
  col.a_row = true, col.b_row = false, col.d_row = false, col.tile_n = 224;  // runs as D^T: N' = 520
  v.push_back(col);
  for (GemmDecomposition d : {GemmDecomposition::kSplitK, GemmDecomposition::kStreamK}) {
    Case k{1000, 1337, 4104};
    k.a_row = true, k.b_row = false, k.tile_n = 224, k.decomposition = d, k.splits = d == GemmDecomposition::kSplitK ? 3 : 0;
    v.push_back(k);
  }
  // The 160-wide ping-pong tile: two chunks and a 32-column tail, each warpgroup its own
  // tile (several per CTA where the tiles outnumber the SMs), beta through the per-warpgroup
  // C rings.
  const int64_t pp_sizes[][3] = {{256, 320, 256}, {300, 500, 200}, {129, 192, 64}, {2048, 2560, 512}, {64, 170, 1000}};
  for (const auto& s : pp_sizes) {
    Case c{s[0], s[1], s[2]};
    c.a_row = true, c.b_row = false, c.tile_n = 160, c.schedule = warpspec::GemmSchedule::kPingPong;
    v.push_back(c);
  }
  Case ppb{1000, 1337, 264};
  ppb.a_row = true, ppb.b_row = false, ppb.tile_n = 160, ppb.schedule = warpspec::GemmSchedule::kPingPong;
  ppb.alpha = -1.25f, ppb.beta = 0.5f;
  v.push_back(ppb);
  ppb.d_row = false;  // column-major D: runs as D^T
  v.push_back(ppb);
  return v;
}
INSTANTIATE_TEST_SUITE_P(WaveTile, GemmSweep, ::testing::ValuesIn(wave_tile_cases()), case_name);

// tile_n = 224 is built for one layout and dtype: the others are refused by name, and D
// stays untouched.
TEST(GemmWaveTile, OtherLayoutsAndDtypesRefusedByName) {
  WARPSPEC_REQUIRE_HOPPER();
  const int64_t M = 64, N = 64, K = 64;
  test::DeviceBuffer da(M * K * 2), db(N * K * 2), dd(M * N * 4);
  CUDA_ASSERT(test::poison(dd));
  struct Refusal {
    DType in, out;
    bool b_k_major;
  };
  for (const Refusal& r : {Refusal{DType::kFP16, DType::kFP16, true}, Refusal{DType::kBF16, DType::kFP32, true},
                           Refusal{DType::kBF16, DType::kBF16, false}}) {
    GemmArgs g;
    g.a = TensorView::matrix(da.get(), r.in, M, K, K);
    g.b = r.b_k_major ? TensorView::matrix(db.get(), r.in, K, N, K, false) : TensorView::matrix(db.get(), r.in, K, N, N);
    g.d = TensorView::matrix(dd.get(), r.out, M, N, N);
    g.tile_n = 224;
    const warpspec::Status s = warpspec::gemm(g);
    SCOPED_TRACE(std::string(warpspec::dtype_name(r.in)) + " -> " + warpspec::dtype_name(r.out) +
                 (r.b_k_major ? ", B K-major" : ", B N-major"));
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("tile_n"), std::string::npos) << s.to_string();
    EXPECT_NE(s.message().find("224"), std::string::npos) << s.to_string();
  }
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<uint8_t> hd = test::to_host<uint8_t>(dd, dd.bytes());
  for (uint8_t byte : hd) ASSERT_EQ(byte, 0xFF) << "a refused call wrote D";
}

// Runs `args` `runs` times, re-poisoning D before each, and returns D's bytes of each run.
std::vector<std::vector<uint8_t>> run_repeatedly(GemmArgs args, const test::DeviceBuffer& d, int runs,
                                                 cudaStream_t stream = nullptr) {
  std::vector<std::vector<uint8_t>> out;
  for (int r = 0; r < runs; ++r) {
    if (cudaMemsetAsync(d.get(), 0xFF, d.bytes(), stream) != cudaSuccess) return {};
    const warpspec::Status s = warpspec::gemm(args, stream);
    EXPECT_TRUE(s.ok()) << s.to_string();
    if (!s.ok() || cudaDeviceSynchronize() != cudaSuccess) return {};
    std::vector<uint8_t> h(d.bytes());
    cudaMemcpy(h.data(), d.get(), h.size(), cudaMemcpyDeviceToHost);
    out.push_back(std::move(h));
  }
  return out;
}

HostMat filled(HostMat m, std::mt19937_64& rng) {
  fill_random(m, rng);
  return m;
}

// bf16 A (row-major) and B (column-major), fp32 C and D (row-major, D poisoned).
struct KSplitProblem {
  std::mt19937_64 rng;
  HostMat a, b, cm, d;
  test::DeviceBuffer da, db, dc, dd;
  GemmArgs args;
  KSplitProblem(int64_t m, int64_t n, int64_t k, int64_t l, float beta, uint64_t seed)
      : rng(seed),
        a(filled(make_mat(DType::kBF16, l, m, k, true, false), rng)),
        b(filled(make_mat(DType::kBF16, l, k, n, false, false), rng)),
        cm(filled(make_mat(DType::kFP32, l, m, n, true, true), rng)),
        d(make_mat(DType::kFP32, l, m, n, true, true)),
        da(test::to_device(a.bytes)),
        db(test::to_device(b.bytes)),
        dc(test::to_device(cm.bytes)),
        dd(test::to_device(d.bytes)) {
    args.a = view_of(a, da.get(), l > 1);
    args.b = view_of(b, db.get(), l > 1);
    args.c = view_of(cm, dc.get(), l > 1);
    args.d = view_of(d, dd.get(), l > 1);
    args.beta = beta;
    if (beta == 0.0f) args.c = TensorView{};
  }
};

// Bitwise determinism: the fixup sums partials in a fixed order, so repeated runs give
// the same bits, whichever CTA finishes first (timing differs run to run; the sum does
// not). Also the same bits through a caller's workspace as through the cached one.
TEST(GemmKSplit, RepeatedRunsAreBitwiseIdentical) {
  WARPSPEC_REQUIRE_HOPPER();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  using warpspec::GemmDecomposition;
  for (GemmDecomposition d : {GemmDecomposition::kSplitK, GemmDecomposition::kStreamK}) {
    for (const auto& shape : std::vector<std::array<int64_t, 4>>{{1000, 1337, 4104, 1}, {2304, 4352, 1000, 1}, {64, 4096, 8192, 2}}) {
      SCOPED_TRACE(std::string(decomposition_name(d)) + " " + std::to_string(shape[0]) + "x" + std::to_string(shape[1]) +
                   "x" + std::to_string(shape[2]) + " L=" + std::to_string(shape[3]));
      KSplitProblem p(shape[0], shape[1], shape[2], shape[3], 0.5f, seed);
      ASSERT_TRUE(p.da.get() && p.db.get() && p.dc.get() && p.dd.get());
      p.args.decomposition = d;
      p.args.splits = d == GemmDecomposition::kSplitK ? 7 : 0;
      const auto runs = run_repeatedly(p.args, p.dd, 6);
      ASSERT_EQ(runs.size(), 6u);
      for (size_t r = 1; r < runs.size(); ++r) EXPECT_TRUE(runs[r] == runs[0]) << "run " << r << " differs from run 0";
      // The output is not the poison: every element was written (and is finite).
      size_t nan = 0;
      for (int64_t i = 0; i < p.d.rows; ++i)
        for (int64_t j = 0; j < p.d.cols; ++j)
          for (int64_t l = 0; l < p.d.batch; ++l)
            nan += !std::isfinite(testbed::load_float(DType::kFP32, runs[0].data(), p.d.index(l, i, j)));
      EXPECT_EQ(nan, 0u);
      // A caller's workspace, zeroed once and reused: the same bits every time.
      size_t bytes = 0;
      ASSERT_TRUE(warpspec::gemm_workspace_size(p.args, &bytes).ok());
      EXPECT_GT(bytes, 0u);
      test::DeviceBuffer ws(bytes);
      CUDA_ASSERT(cudaMemset(ws.get(), 0, bytes));
      GemmArgs own = p.args;
      own.workspace = ws.get(), own.workspace_bytes = bytes;
      const auto own_runs = run_repeatedly(own, p.dd, 3);
      ASSERT_EQ(own_runs.size(), 3u);
      for (const auto& r : own_runs) EXPECT_TRUE(r == runs[0]) << "a caller's workspace gave other bits";
    }
  }
}

// The workspace's flags are zero again after every call (so it is never memset per
// call). 256 x 512 on 128 x 256 tiles = 4 tiles; 3 splits = 8 partial slots, 16 flags.
TEST(GemmKSplit, WorkspaceSizeAndFlagsLeftZero) {
  WARPSPEC_REQUIRE_HOPPER();
  KSplitProblem p(256, 512, 1024, 1, 0.0f, test::fresh_seed());
  p.args.tile_n = 256;
  p.args.decomposition = warpspec::GemmDecomposition::kSplitK;
  p.args.splits = 3;
  size_t bytes = 0;
  ASSERT_TRUE(warpspec::gemm_workspace_size(p.args, &bytes).ok());
  EXPECT_EQ(bytes, 256u + 8u * 128u * 256u * 4u);
  test::DeviceBuffer ws(bytes);
  CUDA_ASSERT(cudaMemset(ws.get(), 0, bytes));
  p.args.workspace = ws.get();
  p.args.workspace_bytes = bytes;
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(warpspec::gemm(p.args).ok());
    CUDA_ASSERT(cudaDeviceSynchronize());
    std::vector<uint8_t> flags(256);
    CUDA_ASSERT(cudaMemcpy(flags.data(), ws.get(), flags.size(), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < flags.size(); ++i) ASSERT_EQ(flags[i], 0) << "flag byte " << i << " after run " << r;
  }
  // Data-parallel needs none.
  p.args.decomposition = warpspec::GemmDecomposition::kDataParallel;
  p.args.splits = 0;
  ASSERT_TRUE(warpspec::gemm_workspace_size(p.args, &bytes).ok());
  EXPECT_EQ(bytes, 0u);
}

TEST(GemmKSplit, TooSmallWorkspaceIsRefusedBeforeAnyWrite) {
  WARPSPEC_REQUIRE_HOPPER();
  KSplitProblem p(300, 520, 2000, 1, 0.0f, test::fresh_seed());
  p.args.decomposition = warpspec::GemmDecomposition::kStreamK;
  size_t bytes = 0;
  ASSERT_TRUE(warpspec::gemm_workspace_size(p.args, &bytes).ok());
  ASSERT_GT(bytes, 16u);
  test::DeviceBuffer ws(bytes);
  p.args.workspace = ws.get();
  p.args.workspace_bytes = bytes - 16;
  const warpspec::Status s = warpspec::gemm(p.args);
  EXPECT_EQ(s.code(), warpspec::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("workspace_bytes"), std::string::npos) << s.message();
  CUDA_ASSERT(cudaDeviceSynchronize());
  std::vector<uint8_t> d(p.dd.bytes());
  CUDA_ASSERT(cudaMemcpy(d.data(), p.dd.get(), d.size(), cudaMemcpyDeviceToHost));
  EXPECT_TRUE(d == p.d.bytes) << "a refused call wrote D";
}

// The heuristic under capture on a stream with no cached workspace: not refused, it runs
// data-parallel (the same bits as an explicit data-parallel run). Declared before the
// next test: the cache is keyed by stream handle, and a destroyed stream's handle may
// come back for a new stream (with its cached workspace); this test allocates none.
TEST(GemmKSplit, HeuristicUnderCaptureFallsBackToDataParallel) {
  WARPSPEC_REQUIRE_HOPPER();
  KSplitProblem p(64, 4096, 4096, 1, 0.0f, test::fresh_seed());
  size_t bytes = 0;
  ASSERT_TRUE(warpspec::gemm_workspace_size(p.args, &bytes).ok());
  ASSERT_GT(bytes, 0u) << "the heuristic should split this skinny, long-K problem";
  GemmArgs dp = p.args;
  dp.decomposition = warpspec::GemmDecomposition::kDataParallel;
  const auto direct = run_repeatedly(dp, p.dd, 1);
  ASSERT_EQ(direct.size(), 1u);
  cudaStream_t stream;
  CUDA_ASSERT(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t g = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_ASSERT(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const warpspec::Status s = warpspec::gemm(p.args, stream);
  CUDA_ASSERT(cudaStreamEndCapture(stream, &g));
  ASSERT_TRUE(s.ok()) << s.to_string();
  CUDA_ASSERT(cudaGraphInstantiate(&exec, g, 0));
  CUDA_ASSERT(cudaMemsetAsync(p.dd.get(), 0xFF, p.dd.bytes(), stream));
  CUDA_ASSERT(cudaGraphLaunch(exec, stream));
  CUDA_ASSERT(cudaStreamSynchronize(stream));
  std::vector<uint8_t> h(p.dd.bytes());
  CUDA_ASSERT(cudaMemcpy(h.data(), p.dd.get(), h.size(), cudaMemcpyDeviceToHost));
  EXPECT_TRUE(h == direct[0]);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaStreamDestroy(stream);
}

// Graph capture: the library cannot allocate while a stream is captured. A fresh stream
// with no cached workspace is refused during capture (nothing captured, the capture
// still ends cleanly); after one ordinary run on the stream the capture works, and so
// does a capture with a caller's workspace; replays give the ordinary run's bits.
TEST(GemmKSplit, GraphCaptureUsesACachedOrCallersWorkspace) {
  WARPSPEC_REQUIRE_HOPPER();
  KSplitProblem p(64, 4096, 4096, 1, 0.0f, test::fresh_seed());
  p.args.decomposition = warpspec::GemmDecomposition::kSplitK;
  p.args.splits = 4;
  cudaStream_t stream;
  CUDA_ASSERT(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  CUDA_ASSERT(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const warpspec::Status refused = warpspec::gemm(p.args, stream);
  CUDA_ASSERT(cudaStreamEndCapture(stream, &graph));
  EXPECT_EQ(refused.code(), warpspec::StatusCode::kUnsupported) << refused.to_string();
  EXPECT_NE(refused.message().find("captur"), std::string::npos) << refused.message();
  if (graph) cudaGraphDestroy(graph);

  const auto direct = run_repeatedly(p.args, p.dd, 1, stream);  // allocates the stream's workspace
  ASSERT_EQ(direct.size(), 1u);
  auto capture_and_replay = [&](const GemmArgs& args) {
    cudaGraph_t g = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA_ASSERT(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    const warpspec::Status s = warpspec::gemm(args, stream);
    CUDA_ASSERT(cudaStreamEndCapture(stream, &g));
    ASSERT_TRUE(s.ok()) << s.to_string();
    CUDA_ASSERT(cudaGraphInstantiate(&exec, g, 0));
    for (int r = 0; r < 2; ++r) {
      CUDA_ASSERT(cudaMemsetAsync(p.dd.get(), 0xFF, p.dd.bytes(), stream));
      CUDA_ASSERT(cudaGraphLaunch(exec, stream));
      CUDA_ASSERT(cudaStreamSynchronize(stream));
      std::vector<uint8_t> h(p.dd.bytes());
      CUDA_ASSERT(cudaMemcpy(h.data(), p.dd.get(), h.size(), cudaMemcpyDeviceToHost));
      EXPECT_TRUE(h == direct[0]) << "graph replay " << r << " differs from the direct run";
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(g);
  };
  capture_and_replay(p.args);
  size_t bytes = 0;
  ASSERT_TRUE(warpspec::gemm_workspace_size(p.args, &bytes).ok());
  test::DeviceBuffer ws(bytes);
  CUDA_ASSERT(cudaMemset(ws.get(), 0, bytes));
  GemmArgs own = p.args;
  own.workspace = ws.get(), own.workspace_bytes = bytes;
  capture_and_replay(own);
  cudaStreamDestroy(stream);
}

// The library's cached workspaces are per kind: a split-KV attention on the same stream
// (64 MB of partials, more than this GEMM's fixup needs) must not hand the GEMM a buffer
// whose flags hold partials. GEMM, attention, GEMM on one stream: the GEMM's bits again.
TEST(GemmKSplit, SplitKvAttentionOnTheSameStreamLeavesTheFixupWorkspaceAlone) {
  WARPSPEC_REQUIRE_HOPPER();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  KSplitProblem p(64, 4096, 4096, 1, 0.0f, seed);
  p.args.decomposition = warpspec::GemmDecomposition::kSplitK;
  p.args.splits = 4;
  cudaStream_t stream;
  CUDA_ASSERT(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const auto before = run_repeatedly(p.args, p.dd, 1, stream);
  ASSERT_EQ(before.size(), 1u);

  const int64_t sq = 1024, sk = 4096, h = 16, d = 128;
  std::mt19937_64 rng(seed ^ 0x5eed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  auto random_bf16 = [&](size_t n) {
    std::vector<uint16_t> v(n);
    for (auto& x : v) {
      const float f = dist(rng);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      x = uint16_t(u >> 16);
    }
    return test::to_device(v);
  };
  test::DeviceBuffer q = random_bf16(size_t(sq * h * d)), k = random_bf16(size_t(sk * h * d)),
                     v = random_bf16(size_t(sk * h * d)), o(size_t(sq * h * d) * 2), lse(size_t(sq * h) * 4);
  warpspec::AttentionArgs a;
  a.q = testbed::bshd_contiguous(q.get(), DType::kBF16, 1, sq, h, d);
  a.k = testbed::bshd_contiguous(k.get(), DType::kBF16, 1, sk, h, d);
  a.v = testbed::bshd_contiguous(v.get(), DType::kBF16, 1, sk, h, d);
  a.o = testbed::bshd_contiguous(o.get(), DType::kBF16, 1, sq, h, d);
  a.lse = testbed::lse_contiguous(static_cast<float*>(lse.get()), 1, h, sq);
  a.num_splits = 8;
  size_t attention_bytes = 0, gemm_bytes = 0;
  ASSERT_TRUE(warpspec::attention_workspace_size(a, &attention_bytes).ok());
  ASSERT_TRUE(warpspec::gemm_workspace_size(p.args, &gemm_bytes).ok());
  ASSERT_GT(attention_bytes, gemm_bytes);  // else the old shared buffer would not have been replaced
  const warpspec::Status s = warpspec::attention_forward(a, stream);
  ASSERT_TRUE(s.ok()) << s.to_string();

  const auto after = run_repeatedly(p.args, p.dd, 1, stream);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_TRUE(after[0] == before[0]) << "the GEMM after a split-KV attention on its stream gave other bits";
  cudaStreamDestroy(stream);
}

// The same bits whatever the cluster: a tile's sum runs in the same order on the same
// operands, only who loads them differs. 1x1, 2x1, 1x2 and the library's choice on one
// problem, tile counts odd both ways, batched, with C.
TEST(GemmCluster, SameBitsAsNoCluster) {
  WARPSPEC_REQUIRE_HOPPER();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  std::mt19937_64 rng(seed);
  const int64_t m = 2176, n = 1300, k = 1000, l = 2;  // 17 x 6 x 2 tiles of 128 x 256
  HostMat a = filled(make_mat(DType::kBF16, l, m, k, true, false), rng);
  HostMat b = filled(make_mat(DType::kBF16, l, k, n, false, false), rng);
  HostMat cm = filled(make_mat(DType::kBF16, l, m, n, true, true), rng);
  HostMat d = make_mat(DType::kBF16, l, m, n, true, true);
  test::DeviceBuffer da = test::to_device(a.bytes), db = test::to_device(b.bytes), dc = test::to_device(cm.bytes),
                     dd = test::to_device(d.bytes);
  ASSERT_TRUE(da.get() && db.get() && dc.get() && dd.get());
  GemmArgs args;
  args.a = view_of(a, da.get(), true);
  args.b = view_of(b, db.get(), true);
  args.c = view_of(cm, dc.get(), true);
  args.d = view_of(d, dd.get(), true);
  args.alpha = 0.75f, args.beta = -0.5f;
  args.decomposition = warpspec::GemmDecomposition::kDataParallel;
  args.tile_n = 256;  // the cluster kernels' tile, for the 1x1 run too
  args.cluster_m = args.cluster_n = 1;
  const auto plain = run_repeatedly(args, dd, 1);
  ASSERT_EQ(plain.size(), 1u);
  for (const auto& [cm_, cn_] : std::vector<std::pair<int, int>>{{2, 1}, {1, 2}, {0, 0}}) {
    SCOPED_TRACE("cluster " + std::to_string(cm_) + "x" + std::to_string(cn_));
    GemmArgs c = args;
    c.cluster_m = cm_, c.cluster_n = cn_;
    const auto runs = run_repeatedly(c, dd, 2);
    ASSERT_EQ(runs.size(), 2u);
    for (const auto& r : runs) EXPECT_TRUE(r == plain[0]) << "other bits than the 1x1 kernel's";
  }
}

// The library's choice: no cluster (2x1 measured level with 1x1, bench/NOTES.md v13), even
// where the pair kernel could run; a pair the caller asks for runs where it is built and is
// refused by name where it is not.
TEST(GemmCluster, NoneUnlessAsked) {
  WARPSPEC_REQUIRE_HOPPER();
  // describe() checks the pointers are device memory: one buffer serves as every operand
  // (nothing runs, so the overlap never matters; disjointness is checked, so offsets).
  const int64_t big = 8192, k = 1024;
  test::DeviceBuffer mem(size_t(3 * big * k + big * big) * 2);
  ASSERT_TRUE(mem.get());
  auto at = [&](int64_t elems) { return static_cast<void*>(static_cast<uint16_t*>(mem.get()) + elems); };
  auto config = [&](int64_t m, int64_t n, bool b_row, int cm, int cn) {
    GemmArgs g;
    g.a = TensorView::matrix(at(0), DType::kBF16, m, k, k);
    g.b = TensorView::matrix(at(big * k), DType::kBF16, k, n, b_row ? n : k, b_row);
    g.d = TensorView::matrix(at(3 * big * k), DType::kBF16, m, n, n);
    g.cluster_m = cm, g.cluster_n = cn;
    std::string line;
    const warpspec::Status s = warpspec::describe(g, &line);
    return s.ok() ? line : s.to_string();
  };
  const std::string automatic = config(8192, 8192, false, 0, 0);  // 2048 tiles of 128 x 256
  EXPECT_NE(automatic.find("cluster=1x1"), std::string::npos) << automatic;
  const std::string pair = config(8192, 8192, false, 2, 1);
  EXPECT_NE(pair.find("cluster=2x1"), std::string::npos) << pair;
  EXPECT_NE(pair.find("tile=128x256x64"), std::string::npos) << pair;
  const std::string nmajor = config(8192, 8192, true, 2, 1);  // B row-major: no cluster kernel
  EXPECT_NE(nmajor.find("cluster_m, cluster_n"), std::string::npos) << nmajor;
  EXPECT_EQ(nmajor.find("cluster=2x1"), std::string::npos) << nmajor;
}

// The variant list names each compiled kernel (mapped as src/gemm/gemm.cpp maps a case,
// the column-major D swap included). No GPU needed: this checks the list.
TEST(GemmVariantCoverage, EveryCompiledKernelRuns) {
  std::set<std::tuple<int, int, bool, bool, int>> kernels;
  for (const Case& c : variant_cases()) {
    const bool a_k_major = c.d_row ? c.a_row : !c.b_row;  // the kernel's A is B^T when D is column-major
    const bool b_k_major = c.d_row ? !c.b_row : c.a_row;
    kernels.insert({int(c.in), int(c.out), a_k_major, b_k_major, c.tile_n});
  }
  EXPECT_EQ(kernels.size(), 48u);
}

}  // namespace gemm_test
