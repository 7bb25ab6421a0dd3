// The TMA/wgmma shared-memory swizzle as an address function: values worked out by
// hand from PTX's definition, then the properties every kernel relies on.
#include "warpspec/hopper/swizzle.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace swizzle_test {

using warpspec::hopper::swizzle_bits;
using warpspec::hopper::swizzle_offset;
using warpspec::hopper::swizzle_offset_2d;
using warpspec::hopper::swizzle_repeat_bytes;
using warpspec::hopper::swizzle_span_bytes;
using warpspec::hopper::TmaSwizzle;

constexpr TmaSwizzle kAllModes[] = {TmaSwizzle::kNone, TmaSwizzle::k32B, TmaSwizzle::k64B, TmaSwizzle::k128B};
constexpr TmaSwizzle kSwizzled[] = {TmaSwizzle::k32B, TmaSwizzle::k64B, TmaSwizzle::k128B};

// Usable in constant expressions (kernels size tiles with it).
static_assert(swizzle_offset(TmaSwizzle::k128B, 128) == 144, "SW128: row 1, chunk 0 sits in chunk 1");
static_assert(swizzle_repeat_bytes(TmaSwizzle::k128B) == 1024, "SW128 repeats every 1024 B");

TEST(Swizzle, SpanRepeatAndBits) {
  EXPECT_EQ(swizzle_span_bytes(TmaSwizzle::kNone), 0u);
  EXPECT_EQ(swizzle_span_bytes(TmaSwizzle::k32B), 32u);
  EXPECT_EQ(swizzle_span_bytes(TmaSwizzle::k64B), 64u);
  EXPECT_EQ(swizzle_span_bytes(TmaSwizzle::k128B), 128u);
  EXPECT_EQ(swizzle_repeat_bytes(TmaSwizzle::kNone), 16u);
  EXPECT_EQ(swizzle_repeat_bytes(TmaSwizzle::k32B), 256u);
  EXPECT_EQ(swizzle_repeat_bytes(TmaSwizzle::k64B), 512u);
  EXPECT_EQ(swizzle_repeat_bytes(TmaSwizzle::k128B), 1024u);
  EXPECT_EQ(swizzle_bits(TmaSwizzle::k32B), 1u);
  EXPECT_EQ(swizzle_bits(TmaSwizzle::k64B), 2u);
  EXPECT_EQ(swizzle_bits(TmaSwizzle::k128B), 3u);
  // The enum values are the CUtensorMapSwizzle values the map is encoded with.
  EXPECT_EQ(static_cast<int>(TmaSwizzle::k128B), 3);
}

TEST(Swizzle, NoneIsIdentity) {
  for (uint32_t o : {0u, 1u, 15u, 16u, 127u, 128u, 144u, 1023u, 1024u, 4097u, 65535u})
    EXPECT_EQ(swizzle_offset(TmaSwizzle::kNone, o), o);
}

// SW128, 128-B rows: bits [4:6] ^= bits [7:9]. Worked by hand:
//   (r=1, c=0)         128 + 16*(0^1)            = 144
//   (r=3, c=5)         384 + 16*(5^3 = 6)        = 480
//   (r=3, c=5, byte 9) 480 + 9                   = 489
//   (r=7, c=7)         896 + 16*(7^7 = 0)        = 896
//   (r=8, c=2)         1024 + 16*(2^0)           = 1056  (row 8 starts the next repeat)
//   (r=13, c=4)        1664 + 16*(4^5 = 1)       = 1680
TEST(Swizzle, Sw128HandValues) {
  constexpr auto s = TmaSwizzle::k128B;
  EXPECT_EQ(swizzle_offset(s, 0), 0u);
  EXPECT_EQ(swizzle_offset(s, 1 * 128 + 16 * 0), 144u);
  EXPECT_EQ(swizzle_offset(s, 3 * 128 + 16 * 5), 480u);
  EXPECT_EQ(swizzle_offset(s, 3 * 128 + 16 * 5 + 9), 489u);
  EXPECT_EQ(swizzle_offset(s, 7 * 128 + 16 * 7), 896u);
  EXPECT_EQ(swizzle_offset(s, 8 * 128 + 16 * 2), 1056u);
  EXPECT_EQ(swizzle_offset(s, 13 * 128 + 16 * 4), 1680u);
  EXPECT_EQ(swizzle_offset_2d(s, 13, 16 * 4 + 3, 128), 1683u);
}

// The closed form of HOPPER-FACTS §3 for every byte of a 64-row SW128 tile:
// (row r, chunk c, byte b) sits at r*128 + 16*(c ^ (r&7)) + b.
TEST(Swizzle, Sw128MatchesRowChunkFormula) {
  for (uint32_t r = 0; r < 64; ++r)
    for (uint32_t c = 0; c < 8; ++c)
      for (uint32_t b = 0; b < 16; ++b)
        ASSERT_EQ(swizzle_offset_2d(TmaSwizzle::k128B, r, 16 * c + b, 128), r * 128 + 16 * (c ^ (r & 7)) + b)
            << "r=" << r << " c=" << c << " b=" << b;
}

// SW64: bits [4:5] ^= bits [7:8]. With 64-B rows, row r starts at 64r, so the XOR key
// (bits 7..8) is (r >> 1) & 3: rows come in pairs. By hand:
//   (r=1, c=2)   96  -> key 0                    = 96
//   (r=2, c=0)  128  -> key 1, chunk 0^1 = 1     = 144
//   (r=2, c=1)  144  -> key 1, chunk 1^1 = 0     = 128
//   (r=6, c=3)  432  -> key 3, chunk 3^3 = 0     = 384
//   (r=9, c=2)  608  -> key (608>>7)&3 = 0       = 608   (row 8 starts the next repeat)
TEST(Swizzle, Sw64HandValues) {
  constexpr auto s = TmaSwizzle::k64B;
  EXPECT_EQ(swizzle_offset(s, 96), 96u);
  EXPECT_EQ(swizzle_offset(s, 128), 144u);
  EXPECT_EQ(swizzle_offset(s, 144), 128u);
  EXPECT_EQ(swizzle_offset(s, 432), 384u);
  EXPECT_EQ(swizzle_offset(s, 608), 608u);
  EXPECT_EQ(swizzle_offset_2d(s, 6, 3 * 16 + 5, 64), 389u);
  // Bit 9 is not part of the key in SW64 (it is in SW128).
  EXPECT_EQ(swizzle_offset(s, 512 + 16), 512u + 16u);
  EXPECT_NE(swizzle_offset(TmaSwizzle::k128B, 512 + 16), 512u + 16u);
}

// SW32: bit 4 ^= bit 7. With 32-B rows the key is (r >> 2) & 1. By hand:
//   (r=3, c=1)  112 -> key 0  = 112
//   (r=4, c=0)  128 -> key 1  = 144
//   (r=4, c=1)  144 -> key 1  = 128
//   (r=12, c=1) 400 -> key 1  = 384
//   (r=8, c=1)  272 -> key 0  = 272  (row 8 starts the next repeat)
TEST(Swizzle, Sw32HandValues) {
  constexpr auto s = TmaSwizzle::k32B;
  EXPECT_EQ(swizzle_offset(s, 112), 112u);
  EXPECT_EQ(swizzle_offset(s, 128), 144u);
  EXPECT_EQ(swizzle_offset(s, 144), 128u);
  EXPECT_EQ(swizzle_offset(s, 400), 384u);
  EXPECT_EQ(swizzle_offset(s, 272), 272u);
  EXPECT_EQ(swizzle_offset_2d(s, 12, 16 + 7, 32), 391u);
  // Bits 8 and up are not part of the SW32 key.
  EXPECT_EQ(swizzle_offset(s, 256 + 16), 256u + 16u);
}

// Each repeat block maps onto itself one-to-one, so a tile of whole repeats is a
// permutation of its own bytes (nothing lost, nothing written twice).
TEST(Swizzle, BijectionOnEachRepeatBlock) {
  for (TmaSwizzle s : kAllModes) {
    const uint32_t repeat = swizzle_repeat_bytes(s);
    for (uint32_t block = 0; block < 5; ++block) {
      std::vector<bool> hit(repeat, false);
      for (uint32_t o = block * repeat; o < (block + 1) * repeat; ++o) {
        const uint32_t p = swizzle_offset(s, o);
        ASSERT_GE(p, block * repeat) << "mode " << static_cast<int>(s) << " offset " << o;
        ASSERT_LT(p, (block + 1) * repeat) << "mode " << static_cast<int>(s) << " offset " << o;
        ASSERT_FALSE(hit[p - block * repeat]) << "mode " << static_cast<int>(s) << " offset " << o << " collides";
        hit[p - block * repeat] = true;
      }
    }
  }
}

// The map is its own inverse, keeps the byte within a 16-B chunk, and changes only the
// chunk bits [4, 4+B): what lets a kernel un-swizzle with the same function and copy
// whole 16-B vectors.
TEST(Swizzle, InvolutionKeepsChunkBytesAndOuterBits) {
  for (TmaSwizzle s : kAllModes) {
    const uint32_t chunk_mask = ((1u << swizzle_bits(s)) - 1u) << 4;
    for (uint32_t o = 0; o < 8192; ++o) {
      const uint32_t p = swizzle_offset(s, o);
      ASSERT_EQ(swizzle_offset(s, p), o) << "mode " << static_cast<int>(s) << " offset " << o;
      ASSERT_EQ(p & 15u, o & 15u);
      ASSERT_EQ(p & ~chunk_mask, o & ~chunk_mask) << "mode " << static_cast<int>(s) << " offset " << o;
    }
  }
}

// The point of swizzling: the same logical 16-B column of consecutive span-rows lands
// in distinct chunks of the 128-B bank window, so reading a column of 8 rows (SW128),
// 4 row pairs (SW64) or 2 row quads (SW32) is conflict-free.
TEST(Swizzle, ColumnsSpreadOverBankChunks) {
  for (TmaSwizzle s : kSwizzled) {
    const uint32_t span = swizzle_span_bytes(s);
    const uint32_t chunks = span / 16;
    for (uint32_t c = 0; c < chunks; ++c) {
      std::set<uint32_t> bank_chunks;
      // 8 consecutive span-rows = one repeat; each 128-B window holds 128/span rows.
      for (uint32_t r = 0; r < 8; ++r) bank_chunks.insert((swizzle_offset_2d(s, r, 16 * c, span) % 128) / 16);
      EXPECT_EQ(bank_chunks.size(), 8u) << "mode " << static_cast<int>(s) << " column chunk " << c;
    }
  }
}

}  // namespace swizzle_test
