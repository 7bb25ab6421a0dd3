// FP8 attention's P·V layouts on the CPU (design note docs/design/fp8-attention.md §2-3,
// tests §7.4.1): the σ and δ tables, the S -> P packing against the wgmma A fragment,
// the V transpose (an instruction-level model) against Vᵀ = V∘(σ, δ), and the whole
// chain S -> P·V -> output columns against a plain product. The fragment layouts below
// are transcribed here from the PTX ISA, independently of the library's maps.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "testing/fp8_v_transpose_model.hpp"
#include "warpspec/attention/fp8_layout.hpp"
#include "warpspec/hopper/fp8_a_fragment.hpp"

// A named namespace (not an anonymous one): the host tests build as one unity
// translation unit, where every file's helpers must keep to themselves.
namespace fp8_layout_test {

namespace ai = warpspec::attention_impl;
namespace hw = warpspec::hopper;
using warpspec::testbed::Fp8Layout;

// The design note's tables (§2.3 σ, §3.1 δ), typed in by hand.
constexpr int kSigma[16] = {0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15};
constexpr int kDelta[16] = {0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15};

// PTX ISA §9.7.15.5.1.1 (wgmma register fragments), thread t of the warpgroup:
// accumulator D of m64nN f32 (the D figure): register i at
constexpr int acc_row(int t, int i) { return 16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1); }
constexpr int acc_col(int t, int i) { return 8 * (i >> 2) + 2 * (t % 4) + (i & 1); }
// A of m64nNk32 .e4m3/.e5m2 (the k32 A figure; CuTe ALayout_64x32): register r, byte b at
constexpr int a_row(int t, int r) { return 16 * (t / 32) + (t % 32) / 4 + 8 * (r & 1); }
constexpr int a_k(int t, int r, int b) { return 16 * (r >> 1) + 4 * (t % 4) + b; }

TEST(Fp8Layout, SigmaAndDeltaMatchTheDesignTables) {
  for (int k = 0; k < 16; ++k) {
    EXPECT_EQ(hw::fp8_a_key(k), kSigma[k]) << "σ(" << k << ")";
    EXPECT_EQ(ai::fp8_vt_dim(k), kDelta[k]) << "δ(" << k << ")";
  }
}

TEST(Fp8Layout, SigmaAndDeltaArePermutationsWithTheirInverses) {
  std::set<int> sigma_image, delta_image;
  for (int k = 0; k < 16; ++k) {
    sigma_image.insert(hw::fp8_a_key(k));
    delta_image.insert(ai::fp8_vt_dim(k));
    EXPECT_EQ(hw::fp8_a_position(hw::fp8_a_key(k)), k);
    EXPECT_EQ(hw::fp8_a_key(hw::fp8_a_position(k)), k);
    EXPECT_EQ(ai::fp8_vt_dim_inverse(ai::fp8_vt_dim(k)), k);
    EXPECT_EQ(ai::fp8_vt_dim(ai::fp8_vt_dim_inverse(k)), k);
  }
  EXPECT_EQ(sigma_image.size(), 16u);
  EXPECT_EQ(*sigma_image.rbegin(), 15);
  EXPECT_EQ(delta_image.size(), 16u);
  EXPECT_EQ(*delta_image.rbegin(), 15);
}

// Byte b of A register r (k-slice s) comes from accumulator register
// fp8_a_source(s, r, b): it must be the same row, and the column σ-permuted from k.
// `flip` models a packing with the two bytes of each cvt pair swapped (the cvt operand
// order mistake); returns the number of A bytes that disagree.
int packing_mismatches(int slices, int flip) {
  int bad = 0;
  for (int t = 0; t < 128; ++t)
    for (int s = 0; s < slices; ++s)
      for (int r = 0; r < 4; ++r)
        for (int b = 0; b < 4; ++b) {
          const int i = hw::fp8_a_source(s, r, b ^ flip);
          const int k = a_k(t, r, b);
          const bool ok = acc_row(t, i) == a_row(t, r) && acc_col(t, i) == 32 * s + 16 * (k >> 4) + kSigma[k & 15];
          bad += ok ? 0 : 1;
        }
  return bad;
}

TEST(Fp8Layout, PackingGivesEveryAByteItsRowAndSigmaKey) {
  constexpr int kSlices = 8;  // block_n 256: accumulator registers 0..127
  EXPECT_EQ(packing_mismatches(kSlices, 0), 0);
  // Each k-slice reads its own 16 registers, each exactly once.
  for (int s = 0; s < kSlices; ++s) {
    std::set<int> used;
    for (int r = 0; r < 4; ++r)
      for (int b = 0; b < 4; ++b) used.insert(hw::fp8_a_source(s, r, b));
    EXPECT_EQ(used.size(), 16u);
    EXPECT_EQ(*used.begin(), 16 * s);
    EXPECT_EQ(*used.rbegin(), 16 * s + 15);
  }
  // The check is sharp: swapped cvt operands (keys 2q <-> 2q+1) fail every byte.
  EXPECT_EQ(packing_mismatches(kSlices, 1), 128 * kSlices * 16);
}

struct TransposeCase {
  uint32_t block_n, head_dim;
  hw::WgmmaSwizzle v_swizzle, vt_swizzle;  // what the layouts must pick
};
constexpr hw::WgmmaSwizzle kSw128 = hw::WgmmaSwizzle::k128B, kSw64 = hw::WgmmaSwizzle::k64B,
                           kSw32 = hw::WgmmaSwizzle::k32B;
// block_n 128 at the three head dims, then block_n values that give Vᵀ the other two
// swizzles (FlashAttention-3 runs block_n 160 and 224 with SW32).
constexpr TransposeCase kTransposeCases[] = {
    {128, 64, kSw64, kSw128}, {128, 128, kSw128, kSw128}, {128, 256, kSw128, kSw128},
    {192, 64, kSw64, kSw64},  {160, 128, kSw128, kSw32},  {96, 256, kSw128, kSw32},
    {192, 128, kSw128, kSw64},  // the FP8 head dim 128 kernel's block
};

std::vector<uint8_t> random_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> out(n);
  for (auto& x : out) x = uint8_t(rng());
  return out;
}

TEST(Fp8Layout, TransposeModelWritesVtEqualToVThroughSigmaAndDelta) {
  for (const TransposeCase& c : kTransposeCases) {
    SCOPED_TRACE(::testing::Message() << "block_n " << c.block_n << " head_dim " << c.head_dim);
    const Fp8Layout v = ai::fp8_v_layout(c.block_n, c.head_dim), vt = ai::fp8_vt_layout(c.block_n, c.head_dim);
    EXPECT_EQ(v.swizzle, c.v_swizzle);
    EXPECT_EQ(vt.swizzle, c.vt_swizzle);
    const std::vector<uint8_t> rows = random_bytes(size_t(c.block_n) * c.head_dim, 0x5eed + c.block_n * 7 + c.head_dim);
    const std::vector<uint8_t> v_img = warpspec::testbed::v_tile_image(rows, c.block_n, c.head_dim);
    // Two starting fills: a byte the units never write would keep its fill and differ.
    std::vector<uint8_t> vt0(vt.bytes(), 0x00), vt1(vt.bytes(), 0xFF);
    warpspec::testbed::transpose_v_model(v_img, vt0, v, vt);
    warpspec::testbed::transpose_v_model(v_img, vt1, v, vt);
    EXPECT_EQ(vt0, vt1) << "some Vᵀ byte is never written";
    EXPECT_EQ(vt0, warpspec::testbed::vt_tile_image(rows, c.block_n, c.head_dim));
    // Element by element against the hand tables.
    int bad = 0;
    for (uint32_t n = 0; n < c.head_dim; ++n)
      for (uint32_t p = 0; p < c.block_n; ++p) {
        const uint32_t key = 16 * (p / 16) + kSigma[p % 16], col = 16 * (n / 16) + kDelta[n % 16];
        if (vt0[vt.offset(n, p)] != rows[key * c.head_dim + col] && ++bad <= 5)
          ADD_FAILURE() << "Vᵀ(" << n << ", " << p << ") is not V(" << key << ", " << col << ")";
      }
    EXPECT_EQ(bad, 0);
  }
}

// Shared memory has 32 banks of 4 bytes: a 16-byte row of an 8x8 b16 matrix covers
// 4 banks, so a matrix is conflict-free when its 8 rows sit in the 8 distinct 16-byte
// slots of a 128-byte line (address bits 4..6). Checked for every unit and matrix.
TEST(Fp8Layout, TransposeRowsAreBankConflictFree) {
  for (const TransposeCase& c : kTransposeCases) {
    SCOPED_TRACE(::testing::Message() << "block_n " << c.block_n << " head_dim " << c.head_dim);
    const Fp8Layout v = ai::fp8_v_layout(c.block_n, c.head_dim), vt = ai::fp8_vt_layout(c.block_n, c.head_dim);
    int conflicted = 0;
    for (int kc = 0; kc < int(c.block_n) / ai::kVtUnitKeys; ++kc)
      for (int dc = 0; dc < int(c.head_dim) / ai::kVtUnitCols; ++dc)
        for (int m = 0; m < 4; ++m) {
          std::set<uint32_t> load_slots, store_slots;
          for (int j = 0; j < 8; ++j) {
            load_slots.insert((ai::fp8_vt_load_offset(v, kc, dc, 8 * m + j) >> 4) & 7);
            store_slots.insert((ai::fp8_vt_store_offset(vt, kc, dc, 8 * m + j) >> 4) & 7);
          }
          conflicted += (load_slots.size() != 8) + (store_slots.size() != 8);
        }
    EXPECT_EQ(conflicted, 0);
  }
}

// The V pump computes a lane's addresses once per block and adds unit constants
// (fp8_unit_address), and stores each unit as two stmatrix.x2 whose second half is the
// first's address XOR kVtHighKeysXor. Both must agree with the per-unit lane offsets
// above for every unit and lane; and the split is not a plain sum (the XOR matters).
TEST(Fp8Layout, UnitAddressesSplitIntoLanePartAndUnitConstants) {
  for (const TransposeCase& c : kTransposeCases) {
    SCOPED_TRACE(::testing::Message() << "block_n " << c.block_n << " head_dim " << c.head_dim);
    EXPECT_TRUE(ai::fp8_unit_split_holds(c.block_n, c.head_dim));
    const Fp8Layout v = ai::fp8_v_layout(c.block_n, c.head_dim), vt = ai::fp8_vt_layout(c.block_n, c.head_dim);
    int load_sum_wrong = 0, store_sum_wrong = 0;
    for (int kc = 0; kc < int(c.block_n) / ai::kVtUnitKeys; ++kc)
      for (int dc = 0; dc < int(c.head_dim) / ai::kVtUnitCols; ++dc)
        for (int l = 0; l < 32; ++l) {
          const uint32_t load = ai::fp8_vt_load_offset(v, kc, dc, l), store = ai::fp8_vt_store_offset(vt, kc, dc, l);
          EXPECT_EQ(ai::fp8_unit_address(ai::fp8_vt_load_offset(v, 0, 0, l), ai::fp8_v_unit_origin(v, kc, dc)), load);
          EXPECT_EQ(ai::fp8_unit_address(ai::fp8_vt_store_offset(vt, 0, 0, l), ai::fp8_vt_unit_origin(vt, kc, dc)),
                    store);
          if (l < 16) EXPECT_EQ(store ^ ai::kVtHighKeysXor, ai::fp8_vt_store_offset(vt, kc, dc, l + 16));
          load_sum_wrong += ai::fp8_vt_load_offset(v, 0, 0, l) + ai::fp8_v_unit_origin(v, kc, dc) != load;
          store_sum_wrong += ai::fp8_vt_store_offset(vt, 0, 0, l) + ai::fp8_vt_unit_origin(vt, kc, dc) != store;
        }
    EXPECT_GT(load_sum_wrong, 0) << "V's chunk XOR is visible in a plain sum";
    if (vt.swizzle != hw::WgmmaSwizzle::k32B) EXPECT_GT(store_sum_wrong, 0) << "Vᵀ's chunk XOR is visible too";
  }
}

TEST(Fp8Layout, OutputColumnIsTheVtColumnOfTheAccumulatorColumn) {
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 128; ++i)  // head dim 256
      ASSERT_EQ(ai::fp8_o_column(t % 4, i), ai::fp8_vt_column(acc_col(t, i))) << "thread " << t << " register " << i;
  // fp8_o_register finds column 16c + 4q + j in row half h.
  for (int q = 0; q < 4; ++q)
    for (int c = 0; c < 16; ++c)
      for (int h = 0; h < 2; ++h)
        for (int j = 0; j < 4; ++j) {
          const int i = ai::fp8_o_register(c, h, j);
          EXPECT_EQ(ai::fp8_o_column(q, i), 16 * c + 4 * q + j);
          EXPECT_EQ(acc_row(q, i), 8 * h + 0) << "row half";
        }
}

// The whole chain in integers: S (= P) in accumulator registers, packed into A bytes
// by fp8_a_source; B = the transpose model's Vᵀ; the wgmma product over the A and B
// positions; each accumulator register stored at fp8_o_column. Must equal P·V: the
// σ of A cancels the σ of Vᵀ's K, and the epilogue's columns undo δ.
TEST(Fp8Layout, PackTransposeAndEpilogueComposeToPV) {
  constexpr int kM = 64;
  for (const TransposeCase& c : kTransposeCases) {
    const int kN = int(c.block_n), kD = int(c.head_dim);
    SCOPED_TRACE(::testing::Message() << "block_n " << kN << " head_dim " << kD);
    const std::vector<uint8_t> pb = random_bytes(size_t(kM) * kN, 11 + kN), vb = random_bytes(size_t(kN) * kD, 13 + kD);
    auto p = [&](int m, int key) { return int(pb[m * kN + key] % 7) - 3; };  // small signed values
    std::vector<uint8_t> v_rows(vb.size());
    for (size_t i = 0; i < vb.size(); ++i) v_rows[i] = uint8_t(int(vb[i] % 9) - 4);
    const Fp8Layout v = ai::fp8_v_layout(c.block_n, c.head_dim), vt = ai::fp8_vt_layout(c.block_n, c.head_dim);
    std::vector<uint8_t> vt_img(vt.bytes(), 0);
    warpspec::testbed::transpose_v_model(warpspec::testbed::v_tile_image(v_rows, c.block_n, c.head_dim), vt_img, v, vt);

    // A(m, k) as the threads' registers hold it.
    std::vector<int> a(size_t(kM) * kN, 1 << 20);
    for (int t = 0; t < 128; ++t)
      for (int s = 0; s < kN / 32; ++s)
        for (int r = 0; r < 4; ++r)
          for (int b = 0; b < 4; ++b) {
            const int i = hw::fp8_a_source(s, r, b);
            a[a_row(t, r) * kN + 32 * s + a_k(t, r, b)] = p(acc_row(t, i), acc_col(t, i));
          }
    // D(m, n) = sum_k A(m, k) B(k, n), B(k, n) = Vᵀ(n, k); then the epilogue's store.
    std::vector<int> out(size_t(kM) * kD, 1 << 30);
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < kD / 2; ++i) {
        const int m = acc_row(t, i), n = acc_col(t, i);
        int d = 0;
        for (int k = 0; k < kN; ++k) d += a[m * kN + k] * int(int8_t(vt_img[vt.offset(uint32_t(n), uint32_t(k))]));
        out[m * kD + ai::fp8_o_column(t % 4, i)] = d;
      }
    int bad = 0;
    for (int m = 0; m < kM; ++m)
      for (int col = 0; col < kD; ++col) {
        int ref = 0;
        for (int key = 0; key < kN; ++key) ref += p(m, key) * int(int8_t(v_rows[key * kD + col]));
        if (out[m * kD + col] != ref && ++bad <= 5)
          ADD_FAILURE() << "O(" << m << ", " << col << ") = " << out[m * kD + col] << ", P·V = " << ref;
      }
    EXPECT_EQ(bad, 0);
  }
}

}  // namespace fp8_layout_test
