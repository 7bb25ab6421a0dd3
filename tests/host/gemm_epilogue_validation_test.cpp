// Validation of the GEMM epilogue arguments (scales, bias, activation) and of FP8 inputs:
// every refusal names the argument and comes before the device check, so these run the
// same with or without a GPU. Nothing launches (pointers are test_pointer's).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "host/test_memory.hpp"
#include "warpspec/warpspec.hpp"

// Named, not anonymous: the host tests build as one unity translation unit.
namespace gemm_epilogue_validation_test {

using warpspec::DType;
using warpspec::GemmActivation;
using warpspec::GemmArgs;
using warpspec::StatusCode;
using warpspec::TensorView;

void* fake(uintptr_t offset = 0) { return warpspec::test::test_pointer(offset); }

constexpr int64_t kM = 64, kN = 48, kK = 32;

// 64x32 (row-major A) times 32x48 (column-major B) into 64x48 row-major D.
GemmArgs valid_args(DType in = DType::kBF16, DType out = DType::kBF16) {
  GemmArgs g;
  g.a = TensorView::matrix(fake(), in, kM, kK, kK);
  g.b = TensorView::matrix(fake(0x10000), in, kK, kN, kK, /*row_major=*/false);
  g.d = TensorView::matrix(fake(0x20000), out, kM, kN, kN);
  return g;
}

TensorView vector(uintptr_t offset, DType t, int64_t n, int64_t stride = 1) {
  TensorView v;
  v.data = fake(offset);
  v.dtype = t;
  v.rank = 1;
  v.shape[0] = n;
  v.stride[0] = stride;
  return v;
}

TensorView matrix2(uintptr_t offset, int64_t rows, int64_t cols) {
  return TensorView::matrix(fake(offset), DType::kFP32, rows, cols, cols);
}

TensorView scalar(uintptr_t offset) {
  TensorView v;
  v.data = fake(offset);
  v.dtype = DType::kFP32;
  v.rank = 0;
  return v;
}

bool accepted(const warpspec::Status& s) { return s.ok() || s.code() == StatusCode::kNoDevice; }

void expect_accepted(const GemmArgs& g) {
  const warpspec::Status s = warpspec::check(g);
  EXPECT_TRUE(accepted(s)) << s.to_string();
}

void expect_refused(const GemmArgs& g, StatusCode code, const std::string& names) {
  const warpspec::Status s = warpspec::check(g);
  EXPECT_EQ(s.code(), code) << s.to_string();
  if (s.ok()) return;
  EXPECT_NE(s.message().find(names), std::string::npos) << "message should name '" << names << "': " << s.message();
  const warpspec::Status r = warpspec::gemm(g, nullptr);
  EXPECT_EQ(r.code(), s.code());
  EXPECT_EQ(r.message(), s.message());
}

TEST(GemmEpilogueValidation, AcceptedBiasesAndActivations) {
  for (DType out : {DType::kBF16, DType::kFP16}) {
    for (DType bias : {out, DType::kFP32}) {
      for (bool per_row : {false, true}) {
        GemmArgs g = valid_args(out, out);
        g.bias = vector(0x30000, bias, per_row ? kM : kN);
        g.bias_per_row = per_row;
        for (GemmActivation act : {GemmActivation::kNone, GemmActivation::kReLU, GemmActivation::kGeluTanh,
                                   GemmActivation::kGeluErf, GemmActivation::kSiLU}) {
          g.activation = act;
          expect_accepted(g);
        }
      }
    }
  }
}

// The fused epilogue on 16-bit inputs is built for one layout (K-major A and B, D of the
// input dtype) and one tile; anything else is refused by name, not silently run plain.
TEST(GemmEpilogueValidation, Fused16BitLayoutsAreRefusedByName) {
  GemmArgs g = valid_args(DType::kBF16, DType::kFP32);
  g.activation = GemmActivation::kReLU;
  expect_refused(g, StatusCode::kUnsupported, "d.dtype: scales, bias and activation on bf16 GEMMs are built for D of the input dtype, got fp32");
  g = valid_args();
  g.bias = vector(0x30000, DType::kBF16, kN);
  g.a = TensorView::matrix(fake(), DType::kBF16, kM, kK, kM, /*row_major=*/false);
  expect_refused(g, StatusCode::kUnsupported, "a.stride: scales, bias and activation on bf16 GEMMs are built for row-major A");
  g = valid_args();
  g.bias = vector(0x30000, DType::kBF16, kN);
  g.b = TensorView::matrix(fake(0x10000), DType::kBF16, kK, kN, kN);
  expect_refused(g, StatusCode::kUnsupported, "b.stride: scales, bias and activation on bf16 GEMMs are built for column-major B");
  g = valid_args();
  g.scale_a = scalar(0x40000);
  g.tile_n = 128;
  expect_refused(g, StatusCode::kUnsupported, "tile_n: scales, bias and activation on 16-bit GEMMs are built with one tile width, 256");
  g.tile_n = 256;
  expect_accepted(g);
  g = valid_args();
  g.activation = GemmActivation::kSiLU;
  g.d = TensorView::matrix(fake(0x20000), DType::kBF16, kM, kN, kM, /*row_major=*/false);
  expect_accepted(g);  // column-major D: computed as D^T = B^T A^T, still K-major operands
  // Without scales, bias or activation every layout and fp32 D stay available (plain kernels).
  g = valid_args(DType::kBF16, DType::kFP32);
  g.b = TensorView::matrix(fake(0x10000), DType::kBF16, kK, kN, kN);
  g.tile_n = 64;
  expect_accepted(g);
}

TEST(GemmEpilogueValidation, BadBiasIsRefusedByName) {
  GemmArgs g = valid_args();
  g.bias = vector(0x30000, DType::kBF16, kN + 1);
  expect_refused(g, StatusCode::kInvalidArgument, "bias.shape[0]: must be N");
  g.bias = vector(0x30000, DType::kBF16, kN);
  g.bias_per_row = true;  // now it must have M entries
  expect_refused(g, StatusCode::kInvalidArgument, "bias.shape[0]: must be M");
  g = valid_args();
  g.bias = vector(0x30000, DType::kFP16, kN);  // neither D's dtype nor fp32
  expect_refused(g, StatusCode::kInvalidArgument, "bias.dtype: must be d's dtype (bf16) or fp32");
  g.bias = vector(0x30000, DType::kBF16, kN, 2);
  expect_refused(g, StatusCode::kInvalidArgument, "bias.stride[0]: the bias must be contiguous");
  g.bias = matrix2(0x30000, 1, kN);
  g.bias.dtype = DType::kBF16;
  expect_refused(g, StatusCode::kInvalidArgument, "bias.rank: must be 1");
  g.bias = vector(0x30001, DType::kBF16, kN);
  expect_refused(g, StatusCode::kMisaligned, "bias.data: must be aligned");
  g.bias = vector(0x30000, DType::kBF16, kN);
  g.bias.data = nullptr;
  expect_refused(g, StatusCode::kInvalidArgument, "bias.data: must not be null");
  g = valid_args();
  g.bias_per_row = true;
  expect_refused(g, StatusCode::kInvalidArgument, "bias_per_row: set without a bias");
}

TEST(GemmEpilogueValidation, UnknownActivationIsRefused) {
  GemmArgs g = valid_args();
  g.activation = static_cast<GemmActivation>(9);
  expect_refused(g, StatusCode::kInvalidArgument, "activation: unknown value 9");
}

TEST(GemmEpilogueValidation, AcceptedScales) {
  for (DType in : {DType::kBF16, DType::kE4M3}) {
    GemmArgs g = valid_args(in, DType::kBF16);
    g.scale_a = scalar(0x40000);
    g.scale_b = vector(0x40100, DType::kFP32, 1);
    expect_accepted(g);  // tensor-wise
    g.scale_a = matrix2(0x40000, kM, 1);
    g.scale_b = matrix2(0x40400, 1, kN);
    expect_accepted(g);  // row-wise, torch._scaled_mm's shapes
    g.scale_a = vector(0x40000, DType::kFP32, kM);
    g.scale_b = vector(0x40400, DType::kFP32, kN);
    expect_accepted(g);  // row-wise as vectors
    g.scale_b = scalar(0x40400);
    expect_accepted(g);  // mixed kinds
  }
}

TEST(GemmEpilogueValidation, BadScalesAreRefusedByName) {
  GemmArgs g = valid_args(DType::kE4M3, DType::kBF16);
  g.scale_a = matrix2(0x40000, kM + 1, 1);
  expect_refused(g, StatusCode::kInvalidArgument, "scale_a.shape: must be one element (tensor-wise) or (M, 1) or (M,) with 64");
  g.scale_a = matrix2(0x40000, 1, kM);  // the transpose of the row-wise shape
  expect_refused(g, StatusCode::kInvalidArgument, "scale_a.shape");
  g.scale_a = matrix2(0x40000, 7, 0x6DB6DB6DB6DB6DB7);  // 7 x that wraps to 1 in 64 bits: not one element
  g.scale_a.stride[0] = g.scale_a.stride[1] = 0;
  expect_refused(g, StatusCode::kInvalidArgument, "scale_a.shape: must be one element (tensor-wise)");
  g.scale_a = {};
  g.scale_b = matrix2(0x40000, kN, 1);
  expect_refused(g, StatusCode::kInvalidArgument, "scale_b.shape: must be one element (tensor-wise) or (1, N) or (N,) with 48");
  g.scale_b = vector(0x40000, DType::kBF16, kN);
  expect_refused(g, StatusCode::kInvalidArgument, "scale_b.dtype: scales are fp32, got bf16");
  g.scale_b = vector(0x40000, DType::kFP32, kN, 3);
  expect_refused(g, StatusCode::kInvalidArgument, "scale_b.stride[0]: the scale vector must be contiguous");
  g.scale_b = vector(0x40002, DType::kFP32, kN);
  expect_refused(g, StatusCode::kMisaligned, "scale_b.data: must be 4-byte aligned");
  g.scale_b = vector(0x40000, DType::kFP32, kN);
  g.scale_b.data = nullptr;
  expect_refused(g, StatusCode::kInvalidArgument, "scale_b.data: must not be null");
}

TEST(GemmEpilogueValidation, Fp8LayoutsAndDtypes) {
  for (DType out : {DType::kBF16, DType::kFP16, DType::kFP32}) expect_accepted(valid_args(DType::kE4M3, out));
  // e5m2 x e5m2 is not built (src/gemm/instances.hpp): refused by name. One e5m2 operand
  // with an e4m3 other is (mixed formats), for every output and either D layout.
  expect_refused(valid_args(DType::kE5M2, DType::kBF16), StatusCode::kUnsupported,
                 "a.dtype, b.dtype: e5m2 x e5m2 GEMMs are not built");
  for (DType a : {DType::kE4M3, DType::kE5M2})
    for (DType out : {DType::kBF16, DType::kFP16, DType::kFP32})
      for (bool d_row_major : {true, false}) {
        GemmArgs m = valid_args(a, out);
        m.b.dtype = a == DType::kE4M3 ? DType::kE5M2 : DType::kE4M3;
        if (!d_row_major) m.d = TensorView::matrix(fake(0x20000), out, kM, kN, kM, /*row_major=*/false);
        expect_accepted(m);
        m.tile_n = 256;  // the wide tile is built for e4m3 x e4m3 only
        expect_refused(m, StatusCode::kUnsupported, "tile_n: FP8 GEMMs are built with tile width 128 (or 0), and 256 for e4m3 x e4m3");
      }
  GemmArgs g = valid_args(DType::kE4M3, DType::kBF16);
  g.d = TensorView::matrix(fake(0x20000), DType::kBF16, kM, kN, kM, /*row_major=*/false);
  expect_accepted(g);  // column-major D: computed as D^T = B^T A^T, still K-major operands
  g = valid_args(DType::kE4M3, DType::kBF16);
  g.a = TensorView::matrix(fake(), DType::kE4M3, kM, kK, kM, /*row_major=*/false);
  expect_refused(g, StatusCode::kUnsupported, "a.stride: FP8 A must be row-major");
  g = valid_args(DType::kE4M3, DType::kBF16);
  g.b = TensorView::matrix(fake(0x10000), DType::kE4M3, kK, kN, kN);
  expect_refused(g, StatusCode::kUnsupported, "b.stride: FP8 B must be column-major");
  g = valid_args(DType::kE4M3, DType::kBF16);
  g.b.dtype = DType::kBF16;
  expect_refused(g, StatusCode::kInvalidArgument, "b.dtype: must equal a.dtype (e4m3) or be the other 8-bit format, got bf16");
  g = valid_args(DType::kE4M3, DType::kE5M2);
  expect_refused(g, StatusCode::kUnsupported, "d.dtype: with e4m3 inputs D must be bf16, fp16, fp32 or e4m3, got e5m2");
  g = valid_args(DType::kE4M3, DType::kBF16);
  g.tile_n = 64;
  expect_refused(g, StatusCode::kUnsupported, "tile_n: FP8 GEMMs are built with tile width 128 (or 0), and 256 for e4m3 x e4m3 with D bf16 or fp16; got 64");
  g.tile_n = 256;
  expect_accepted(g);  // the wide FP8 tile: a 16-bit D
  g = valid_args(DType::kE4M3, DType::kFP16);
  g.tile_n = 256;
  expect_accepted(g);  // the same kernel writes fp16 (config.hpp kernel_config)
  g = valid_args(DType::kE4M3, DType::kFP32);
  g.tile_n = 256;
  expect_refused(g, StatusCode::kUnsupported, "tile_n: FP8 GEMMs are built with tile width 128 (or 0), and 256 for e4m3 x e4m3 with D bf16 or fp16; got 256 with e4m3 x e4m3, D fp32");
  g = valid_args(DType::kBF16, DType::kBF16);
  g.use_fast_accum = true;
  expect_refused(g, StatusCode::kInvalidArgument, "use_fast_accum: applies to FP8 inputs only");
  g = valid_args(DType::kE4M3, DType::kBF16);
  g.use_fast_accum = true;
  expect_accepted(g);
  // K-major FP8 rows are 16-byte multiples: K = 24 e4m3 is 24 bytes.
  g = valid_args(DType::kE4M3, DType::kBF16);
  g.a = TensorView::matrix(fake(), DType::kE4M3, kM, 24, 24);
  g.b = TensorView::matrix(fake(0x10000), DType::kE4M3, 24, kN, 24, false);
  expect_refused(g, StatusCode::kMisaligned, "a.stride[0]");
}

// Block scales (GemmScaling::kBlock): scale_a (M, ceil(K/128)), scale_b (ceil(K/128),
// ceil(N/128)), any strides; FP8 only, no fast accumulation, row-major D, no batch.
// An e4m3 D (scale_result, amax): built for e4m3 x e4m3, beta 0, a 16-bit or fp32 bias, one
// fp32 element each for scale_result and amax (any rank <= 2), amax apart from every other
// argument; scale_result and amax with any other D are refused.
TEST(GemmEpilogueValidation, E4m3Output) {
  GemmArgs g = valid_args(DType::kE4M3, DType::kE4M3);
  expect_accepted(g);
  g.scale_result = scalar(0x30000);
  g.amax = vector(0x30010, DType::kFP32, 1);
  expect_accepted(g);
  g.amax = TensorView::matrix(fake(0x30010), DType::kFP32, 1, 1, 1);
  expect_accepted(g);
  for (DType bias : {DType::kBF16, DType::kFP16, DType::kFP32}) {
    GemmArgs b = g;
    b.bias = vector(0x40000, bias, kN);
    b.activation = GemmActivation::kGeluTanh;
    b.use_fast_accum = true;
    expect_accepted(b);
  }
  auto refused = [&](const char* names, StatusCode code, auto&& change) {
    GemmArgs r = g;
    change(r);
    SCOPED_TRACE(names);
    expect_refused(r, code, names);
  };
  refused("d.dtype: an e4m3 D is built for e4m3 A and B only, got e4m3 x e5m2", StatusCode::kUnsupported,
          [](GemmArgs& r) { r.b.dtype = DType::kE5M2; });
  refused("d.dtype: must be a.dtype (bf16) or fp32, got e4m3", StatusCode::kUnsupported,
          [](GemmArgs& r) { r.a.dtype = r.b.dtype = DType::kBF16; });
  refused("beta: an e4m3 D takes no beta", StatusCode::kUnsupported, [](GemmArgs& r) {
    r.beta = 1.0f;
    r.c = TensorView::matrix(fake(0x50000), DType::kE4M3, kM, kN, kN);
  });
  refused("tile_n: FP8 GEMMs are built with tile width 128", StatusCode::kUnsupported, [](GemmArgs& r) { r.tile_n = 256; });
  refused("schedule: ping-pong is built for", StatusCode::kUnsupported, [](GemmArgs& r) {
    r.schedule = warpspec::GemmSchedule::kPingPong;
    r.use_fast_accum = true;
  });
  refused("cluster_m, cluster_n: 2 x 1 clusters are built for one kernel", StatusCode::kUnsupported,
          [](GemmArgs& r) { r.cluster_m = 2, r.cluster_n = 1; });
  refused("bias.dtype: with an e4m3 D must be bf16, fp16 or fp32, got e4m3", StatusCode::kInvalidArgument,
          [](GemmArgs& r) { r.bias = vector(0x40000, DType::kE4M3, kN); });
  refused("amax.dtype: must be fp32, got bf16", StatusCode::kInvalidArgument, [](GemmArgs& r) { r.amax.dtype = DType::kBF16; });
  refused("amax.shape[0]: must be one element", StatusCode::kInvalidArgument, [](GemmArgs& r) { r.amax.shape[0] = 2; });
  refused("amax.rank: must be 0, 1 or 2", StatusCode::kInvalidArgument, [](GemmArgs& r) { r.amax.rank = 3; });
  refused("amax.data: must be 4-byte aligned", StatusCode::kMisaligned,
          [](GemmArgs& r) { r.amax.data = fake(0x30012); });
  refused("scale_result.shape[1]: must be one element", StatusCode::kInvalidArgument,
          [](GemmArgs& r) { r.scale_result = matrix2(0x30000, 1, 2); });
  refused("scale_result.dtype: must be fp32", StatusCode::kInvalidArgument,
          [](GemmArgs& r) { r.scale_result.dtype = DType::kFP16; });
  refused("amax: overlaps scale_result", StatusCode::kInvalidArgument,
          [](GemmArgs& r) { r.amax = vector(0x30000, DType::kFP32, 1); });
  refused("amax: overlaps d", StatusCode::kInvalidArgument, [](GemmArgs& r) { r.amax = vector(0x20004, DType::kFP32, 1); });
  refused("amax: overlaps a", StatusCode::kInvalidArgument, [](GemmArgs& r) { r.amax = vector(0x0, DType::kFP32, 1); });
  refused("amax: applies to an e4m3 D only (D is bf16)", StatusCode::kInvalidArgument,
          [](GemmArgs& r) {
            r.d.dtype = DType::kBF16;
            r.scale_result = TensorView{};
          });
  refused("scale_result: applies to an e4m3 D only (D is fp32)", StatusCode::kInvalidArgument, [](GemmArgs& r) {
    r.d.dtype = DType::kFP32;
    r.amax = TensorView{};
  });
  refused("scale_result: applies to an e4m3 D only (D is bf16)", StatusCode::kInvalidArgument, [](GemmArgs& r) {
    r.a.dtype = r.b.dtype = r.d.dtype = DType::kBF16;
    r.amax = TensorView{};
  });
}

TEST(GemmEpilogueValidation, BlockScales) {
  const int64_t kK2 = 272, kB = 3;  // ceil(272 / 128)
  auto block_args = [&](DType in) {
    GemmArgs g;
    g.a = TensorView::matrix(fake(), in, kM, kK2, kK2);
    g.b = TensorView::matrix(fake(0x10000), in, kK2, kN, kK2, /*row_major=*/false);
    g.d = TensorView::matrix(fake(0x20000), DType::kBF16, kM, kN, kN);
    g.scaling = warpspec::GemmScaling::kBlock;
    g.scale_a = TensorView::matrix(fake(0x30000), DType::kFP32, kM, kB, kM, /*row_major=*/false);  // M contiguous
    g.scale_b = matrix2(0x40000, kB, 1);  // N = 48: one column block
    return g;
  };
  expect_accepted(block_args(DType::kE4M3));
  GemmArgs g = block_args(DType::kE4M3);
  g.scale_a = matrix2(0x30000, kM, kB);  // row-major works too
  g.bias = vector(0x50000, DType::kFP32, kN);
  g.activation = GemmActivation::kGeluTanh;
  expect_accepted(g);
  expect_refused(block_args(DType::kBF16), StatusCode::kUnsupported, "scaling: block scales are built for FP8");
  g = block_args(DType::kE4M3);
  g.use_fast_accum = true;
  expect_refused(g, StatusCode::kInvalidArgument, "use_fast_accum: block scales multiply each 128-K");
  g = block_args(DType::kE4M3);
  g.scale_a = matrix2(0x30000, kM, 1);  // row-wise shape
  expect_refused(g, StatusCode::kInvalidArgument, "scale_a.shape: block scales are (M, ceil(K/128)) = (64, 3), got (64, 1)");
  g = block_args(DType::kE4M3);
  g.scale_b = matrix2(0x40000, kB, 2);
  expect_refused(g, StatusCode::kInvalidArgument, "scale_b.shape: block scales are (ceil(K/128), ceil(N/128)) = (3, 1), got (3, 2)");
  g = block_args(DType::kE4M3);
  g.scale_b = TensorView{};
  expect_refused(g, StatusCode::kInvalidArgument, "scale_b: block scaling needs it");
  g = block_args(DType::kE4M3);
  g.scale_a.dtype = DType::kBF16;
  expect_refused(g, StatusCode::kInvalidArgument, "scale_a.dtype: scales are fp32");
  g = block_args(DType::kE4M3);
  g.scale_a.data = fake(0x30002);
  expect_refused(g, StatusCode::kMisaligned, "scale_a.data: must be 4-byte aligned");
  g = block_args(DType::kE4M3);
  g.d = TensorView::matrix(fake(0x20000), DType::kBF16, kM, kN, kM, /*row_major=*/false);
  expect_refused(g, StatusCode::kUnsupported, "d.stride: block-scaled GEMMs write a row-major D");
  g = block_args(DType::kE4M3);
  g.scaling = static_cast<warpspec::GemmScaling>(7);
  expect_refused(g, StatusCode::kInvalidArgument, "scaling: unknown value 7");
}

// Every tile's epilogue reads the bias and scales while other tiles write D: no shared bytes.
TEST(GemmEpilogueValidation, BiasAndScalesMayNotOverlapD) {
  GemmArgs g = valid_args();
  g.bias = vector(0x30000, DType::kBF16, kN);
  expect_accepted(g);
  g.bias = vector(0x20000 + 200, DType::kBF16, kN);  // inside D
  expect_refused(g, StatusCode::kInvalidArgument, "d: overlaps bias");
  g = valid_args();
  g.scale_a = matrix2(0x20000 + 256, kM, 1);  // row scales inside D
  expect_refused(g, StatusCode::kInvalidArgument, "d: overlaps scale_a");
}

}  // namespace gemm_epilogue_validation_test
