// The wgmma shared-memory descriptor and operand layouts, on the CPU. Descriptor bits
// are checked against values worked out by hand from the PTX ISA field table; layout
// offsets against hand values and against an independent transcription of the PTX
// canonical layouts (CuTe form) driven by the layout's own LBO/SBO.
#include "warpspec/hopper/wgmma_desc.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace wgmma_desc_test {

using warpspec::hopper::Major;
using warpspec::hopper::make_wgmma_desc;
using warpspec::hopper::WgmmaOperandLayout;
using warpspec::hopper::WgmmaSwizzle;
namespace hw = warpspec::hopper;

// Usable in constant expressions: kernels build descriptors from constexpr layouts.
static_assert(make_wgmma_desc(1024, 16, 1024, WgmmaSwizzle::k128B) == 0x4000004000010040ull,
              "SW128 K-major descriptor at 1 KB");
static_assert(WgmmaOperandLayout{Major::kK, WgmmaSwizzle::k128B, 2, 64, 64}.sbo() == 1024, "SW128 SBO");

// Fields, by hand (enc(x) = (x & 0x3FFFF) >> 4):
//   start 1024 -> 0x40 in bits 0-13; LBO 16 -> 1 at bit 16; SBO 1024 -> 0x40 at bit 32;
//   swizzle 1 (128B) -> bit 62.
TEST(WgmmaDesc, FieldsByHand) {
  EXPECT_EQ(make_wgmma_desc(1024, 16, 1024, WgmmaSwizzle::k128B), 0x4000004000010040ull);
  // start 0x3A4F0 -> 0x3A4F; LBO 8192 -> 0x200 << 16 = 0x2000000; SBO 1024 -> 0x40 << 32;
  // base offset 5 -> 5 << 49 = 0x000A000000000000; swizzle 1 -> 0x4000000000000000.
  EXPECT_EQ(make_wgmma_desc(0x3A4F0, 8192, 1024, WgmmaSwizzle::k128B, 5), 0x400A004002003A4Full);
  // 64B is 2 and 32B is 3 in bits 62-63 (CUtensorMap numbers them the other way round).
  EXPECT_EQ(make_wgmma_desc(0, 0, 0, WgmmaSwizzle::k64B), 0x8000000000000000ull);
  EXPECT_EQ(make_wgmma_desc(0, 0, 0, WgmmaSwizzle::k32B), 0xC000000000000000ull);
  EXPECT_EQ(make_wgmma_desc(0, 0, 0, WgmmaSwizzle::kNone), 0ull);
  // No-swizzle K-major: start 0x800 -> 0x80; LBO 1024 -> 0x40 << 16; SBO 128 -> 8 << 32.
  EXPECT_EQ(make_wgmma_desc(0x800, 1024, 128, WgmmaSwizzle::kNone), 0x0000000800400080ull);
}

TEST(WgmmaDesc, EncodingMasksTo18BitsAndDropsLow4) {
  // 0x12345670 & 0x3FFFF = 0x05670 -> 0x567: generic-looking addresses do not leak
  // into the LBO field.
  EXPECT_EQ(make_wgmma_desc(0x12345670, 0, 0, WgmmaSwizzle::kNone), 0x567ull);
  // Offsets below 16 B are not representable; the low 4 bits are dropped.
  EXPECT_EQ(hw::wgmma_desc_encode(15), 0u);
  EXPECT_EQ(hw::wgmma_desc_encode(0x3FFFF), 0x3FFFu);
  // The widest value of each 14-bit field stays inside it.
  const uint64_t d = make_wgmma_desc(0x3FFF0, 0x3FFF0, 0x3FFF0, WgmmaSwizzle::kNone, 7);
  EXPECT_EQ(d, 0x000E3FFF3FFF3FFFull);
  EXPECT_EQ(d & 0xFFF1C000C000C000ull, 0u) << "bits outside the fields must stay 0";
}

TEST(WgmmaDesc, ReadersInvertTheEncoding) {
  const uint64_t d = make_wgmma_desc(0x1C400, 8192, 1024, WgmmaSwizzle::k64B, 3);
  EXPECT_EQ(hw::wgmma_desc_start(d), 0x1C400u);
  EXPECT_EQ(hw::wgmma_desc_lbo(d), 8192u);
  EXPECT_EQ(hw::wgmma_desc_sbo(d), 1024u);
  EXPECT_EQ(hw::wgmma_desc_base_offset(d), 3u);
  EXPECT_EQ(hw::wgmma_desc_swizzle(d), WgmmaSwizzle::k64B);
}

TEST(WgmmaDesc, AdvanceMovesOnlyTheStartAddress) {
  const uint64_t d = make_wgmma_desc(0x8000, 16, 1024, WgmmaSwizzle::k128B);
  // K-major SW128 bf16: k-step j starts 32*j bytes in (HOPPER-FACTS §4): +2 per step.
  EXPECT_EQ(hw::wgmma_desc_advance(d, 32), d + 2);
  EXPECT_EQ(hw::wgmma_desc_advance(d, 96), make_wgmma_desc(0x8000 + 96, 16, 1024, WgmmaSwizzle::k128B));
  EXPECT_EQ(hw::wgmma_desc_start(hw::wgmma_desc_advance(d, 8192)), 0x8000u + 8192u);
  EXPECT_EQ(hw::wgmma_desc_sbo(hw::wgmma_desc_advance(d, 8192)), 1024u);
}

// K-major SW128, bf16, 64 x 64: the GEMM A/B tile (one 128-B TMA box per row).
TEST(WgmmaLayout, KMajorSw128ByHand) {
  constexpr WgmmaOperandLayout l{Major::kK, WgmmaSwizzle::k128B, 2, 64, 64};
  EXPECT_EQ(l.lbo(), 16u);  // unused for swizzled K-major; encodes as 1
  EXPECT_EQ(l.sbo(), 1024u);
  EXPECT_EQ(l.bytes(), 8192u);
  EXPECT_EQ(l.k_steps(), 4u);
  // (m=1, k=0): row 1 at 128, chunk 0 ^ 1 -> 144. (m=3, k=40): 80 B in = chunk 5;
  // 384 + 16*(5^3) = 480. (m=3, k=41): + 2 B = 482.
  EXPECT_EQ(l.offset(1, 0), 144u);
  EXPECT_EQ(l.offset(3, 40), 480u);
  EXPECT_EQ(l.offset(3, 41), 482u);
  // k-step j: +32 B (16 bf16) inside the 128-B span.
  EXPECT_EQ(l.k_step_offset(0), 0u);
  EXPECT_EQ(l.k_step_offset(1), 32u);
  EXPECT_EQ(l.k_step_offset(3), 96u);
  const uint64_t d = l.desc(0x1000, 2);
  EXPECT_EQ(hw::wgmma_desc_start(d), 0x1000u + 64u);
  EXPECT_EQ(hw::wgmma_desc_lbo(d), 16u);
  EXPECT_EQ(hw::wgmma_desc_sbo(d), 1024u);
  EXPECT_EQ(hw::wgmma_desc_swizzle(d), WgmmaSwizzle::k128B);
  EXPECT_EQ(hw::wgmma_desc_base_offset(d), 0u);
}

TEST(WgmmaLayout, KMajorPastOneSpanAndSecondWarpgroup) {
  // 128 x 128 bf16 SW128: two 128-B columns of 128 rows (16 KB each).
  constexpr WgmmaOperandLayout l{Major::kK, WgmmaSwizzle::k128B, 2, 128, 128};
  EXPECT_EQ(l.column_bytes(), 16384u);
  EXPECT_EQ(l.k_step_offset(4), 16384u);       // k = 64: next column
  EXPECT_EQ(l.k_step_offset(5), 16384u + 32u);
  EXPECT_EQ(l.k_step_offset(1, 64), 8192u + 32u);  // consumer WG 1: rows 64.., +64*128 B
  // SW64 bf16 64 x 64: two 64-B columns of 4 KB; SBO = 8 rows * 64 B.
  constexpr WgmmaOperandLayout s64{Major::kK, WgmmaSwizzle::k64B, 2, 64, 64};
  EXPECT_EQ(s64.sbo(), 512u);
  EXPECT_EQ(s64.lbo(), 16u);
  EXPECT_EQ(s64.k_step_offset(1), 32u);
  EXPECT_EQ(s64.k_step_offset(2), 4096u);
  EXPECT_EQ(s64.k_step_offset(3), 4128u);
  // SW32 e4m3 136 x 128: four 32-B columns of 136 rows; every k-step is a new column.
  constexpr WgmmaOperandLayout s32{Major::kK, WgmmaSwizzle::k32B, 1, 136, 128};
  EXPECT_EQ(s32.column_bytes(), 4352u);
  EXPECT_EQ(s32.sbo(), 256u);
  EXPECT_EQ(s32.k_steps(), 4u);
  EXPECT_EQ(s32.k_step_offset(3), 3u * 4352u);
  // SW32 pattern: bit 4 ^= bit 7. (n=4, k=16): 4*32 + 16 = 144, bit 7 set -> 128.
  EXPECT_EQ(s32.offset(4, 16), 128u);
}

TEST(WgmmaLayout, KMajorNoSwizzleByHand) {
  // bf16 64 x 32: four 16-B columns (8 bf16 of K each) of 64 rows = 1 KB each.
  constexpr WgmmaOperandLayout l{Major::kK, WgmmaSwizzle::kNone, 2, 64, 32};
  EXPECT_EQ(l.lbo(), 1024u);  // K-adjacent core matrices: one column apart
  EXPECT_EQ(l.sbo(), 128u);   // 8-row groups: 8 * 16 B
  EXPECT_EQ(l.bytes(), 4096u);
  // (m=9, k=11): column 1, row 9, byte 6 -> 1024 + 144 + 6.
  EXPECT_EQ(l.offset(9, 11), 1174u);
  EXPECT_EQ(l.k_step_offset(1), 2048u);  // k16 = two 16-B columns
  EXPECT_EQ(hw::wgmma_desc_swizzle(l.desc(0)), WgmmaSwizzle::kNone);
}

TEST(WgmmaLayout, MnMajorSw128ByHand) {
  // bf16 V in FA3's P*V: N = 128 as two 64-column (128-B) boxes of K = 64 rows, 8 KB
  // apart. The probe-verified recipe (HOPPER-FACTS §4): LBO 8192, SBO 1024, +2048/k-step.
  constexpr WgmmaOperandLayout l{Major::kMN, WgmmaSwizzle::k128B, 2, 128, 64};
  EXPECT_EQ(l.lbo(), 8192u);
  EXPECT_EQ(l.sbo(), 1024u);
  EXPECT_EQ(l.bytes(), 16384u);
  EXPECT_EQ(l.k_step_offset(1), 2048u);
  EXPECT_EQ(l.k_step_offset(3), 6144u);
  // (n=70, k=3): column 1, row 3, 12 B in -> 8192 + 396; line 3 ^ chunk 0 -> +48 = 8636.
  EXPECT_EQ(l.offset(70, 3), 8636u);
  // N = 8 still takes a whole 64-column span per K row.
  constexpr WgmmaOperandLayout n8{Major::kMN, WgmmaSwizzle::k128B, 2, 8, 64};
  EXPECT_EQ(n8.columns(), 1u);
  EXPECT_EQ(n8.bytes(), 8192u);
}

TEST(WgmmaLayout, MnMajorOtherSwizzlesByHand) {
  // No swizzle, bf16 M = 64, K = 32: eight 16-B columns (8 M each) of 32 K-rows.
  // Roles swap here: LBO = 8-deep K groups (128 B), SBO = next 8 M (one column, 512 B).
  constexpr WgmmaOperandLayout none{Major::kMN, WgmmaSwizzle::kNone, 2, 64, 32};
  EXPECT_EQ(none.lbo(), 128u);
  EXPECT_EQ(none.sbo(), 512u);
  EXPECT_EQ(none.k_step_offset(1), 256u);
  EXPECT_EQ(none.offset(13, 9), 512u + 9u * 16u + 10u);
  // SW64 fp16 N = 8, K = 64: one 64-B column of 64 rows.
  constexpr WgmmaOperandLayout s64{Major::kMN, WgmmaSwizzle::k64B, 2, 8, 64};
  EXPECT_EQ(s64.lbo(), 4096u);
  EXPECT_EQ(s64.sbo(), 512u);
  EXPECT_EQ(s64.k_step_offset(2), 2048u);
  // SW32 bf16 N = 64, K = 32: four 32-B columns of 32 rows (1 KB each).
  constexpr WgmmaOperandLayout s32{Major::kMN, WgmmaSwizzle::k32B, 2, 64, 32};
  EXPECT_EQ(s32.lbo(), 1024u);
  EXPECT_EQ(s32.sbo(), 256u);
  EXPECT_EQ(s32.k_step_offset(1), 512u);
  // (n=17, k=5): column 1, row 5 -> 1024 + 160 + 2; bit 7 (row 4+) set: chunk 0 -> 1.
  EXPECT_EQ(s32.offset(17, 5), 1024u + 160u + 2u + 16u);
}

// Bits [4, 4+B) ^= bits [7, 7+B): CuTe Swizzle<B,4,3>, the pattern wgmma applies to
// absolute addresses (the tile base is 1024-aligned, so offsets suffice).
uint32_t swizzle(WgmmaSwizzle s, uint32_t a) {
  const uint32_t b = s == WgmmaSwizzle::k128B ? 3 : s == WgmmaSwizzle::k64B ? 2 : s == WgmmaSwizzle::k32B ? 1 : 0;
  return a ^ (((a >> 7) & ((1u << b) - 1u)) << 4);
}

// Where wgmma reads element (mn, kk) of the k-step starting at `start` (kk < the
// instruction K), per the PTX canonical layouts in bytes, written out independently
// of WgmmaOperandLayout::offset. T = elements per 16 B, W = swizzle span bytes.
uint32_t canonical(const WgmmaOperandLayout& l, uint32_t start, uint32_t mn, uint32_t kk) {
  const uint32_t e = l.elem_bytes, t = 16 / e, w = l.row_bytes();
  uint32_t a;
  if (l.major == Major::kK) {
    // ((8,m),(T,2k)) : ((W or 16, SBO), (1, LBO or T))
    const uint32_t k_chunk_stride = l.swizzle == WgmmaSwizzle::kNone ? l.lbo() : 16;
    a = (mn % 8) * w + (mn / 8) * l.sbo() + (kk % t) * e + (kk / t) * k_chunk_stride;
  } else if (l.swizzle == WgmmaSwizzle::kNone) {
    // ((T,1,m),(8,k)) : ((1,T,SBO),(1T,LBO))
    a = (mn % t) * e + (mn / t) * l.sbo() + (kk % 8) * 16 + (kk / 8) * l.lbo();
  } else {
    // ((T,s,m),(8,k)) : ((1,T,LBO),(sT,SBO)), s = W / 16
    const uint32_t s = w / 16;
    a = (mn % t) * e + ((mn / t) % s) * 16 + (mn / (t * s)) * l.lbo() + (kk % 8) * w + (kk / 8) * l.sbo();
  }
  return swizzle(l.swizzle, start + a);
}

std::string describe(const WgmmaOperandLayout& l) {
  return std::string(l.major == Major::kK ? "K-major" : "MN-major") + " row_bytes=" + std::to_string(l.row_bytes()) +
         " elem=" + std::to_string(l.elem_bytes) + " mn=" + std::to_string(l.mn) + " k=" + std::to_string(l.k);
}

std::vector<WgmmaOperandLayout> all_layouts() {
  std::vector<WgmmaOperandLayout> out;
  const WgmmaSwizzle modes[] = {WgmmaSwizzle::kNone, WgmmaSwizzle::k32B, WgmmaSwizzle::k64B, WgmmaSwizzle::k128B};
  for (WgmmaSwizzle s : modes) {
    for (uint32_t mn : {8u, 64u, 136u, 256u}) {
      out.push_back({Major::kK, s, 2, mn, 64});
      out.push_back({Major::kK, s, 1, mn, 128});
      out.push_back({Major::kK, s, 2, mn, 128});
      out.push_back({Major::kMN, s, 2, mn, 64});  // MN-major: 16-bit only
      out.push_back({Major::kMN, s, 2, mn, 32});
    }
  }
  return out;
}

// The tile offsets agree, element by element and k-step by k-step, with what the PTX
// canonical layout says wgmma reads given this layout's start address, LBO and SBO.
TEST(WgmmaLayout, MatchesPtxCanonicalLayouts) {
  for (const auto& l : all_layouts()) {
    SCOPED_TRACE(describe(l));
    const uint32_t kin = l.k_per_instr();
    ASSERT_EQ(l.k % kin, 0u);
    for (uint32_t j = 0; j < l.k_steps(); ++j) {
      const uint32_t start = l.k_step_offset(j);
      ASSERT_EQ(start % 16, 0u) << "descriptor start addresses are 16-B aligned";
      for (uint32_t mn = 0; mn < l.mn; ++mn)
        for (uint32_t kk = 0; kk < kin; ++kk)
          ASSERT_EQ(l.offset(mn, j * kin + kk), canonical(l, start, mn, kk)) << "j=" << j << " mn=" << mn << " kk=" << kk;
    }
  }
}

// Every element gets its own aligned slot inside bytes(); and because the layout is one
// TMA box per column, each column is rows x row_bytes of contiguous memory.
TEST(WgmmaLayout, OffsetsAreDistinctAndInside) {
  for (const auto& l : all_layouts()) {
    SCOPED_TRACE(describe(l));
    std::set<uint32_t> seen;
    for (uint32_t mn = 0; mn < l.mn; ++mn)
      for (uint32_t k = 0; k < l.k; ++k) {
        const uint32_t o = l.offset(mn, k);
        ASSERT_LT(o, l.bytes());
        ASSERT_EQ(o % l.elem_bytes, 0u);
        ASSERT_TRUE(seen.insert(o).second) << "mn=" << mn << " k=" << k;
      }
    // Each column starts on a swizzle-pattern boundary (8 rows of the span), so the
    // XOR pattern restarts with it as it does for a separately TMA-loaded box.
    EXPECT_EQ(l.column_bytes() % (8 * l.row_bytes()), 0u);
    EXPECT_EQ(l.bytes(), l.columns() * l.column_bytes());
  }
}

}  // namespace wgmma_desc_test
