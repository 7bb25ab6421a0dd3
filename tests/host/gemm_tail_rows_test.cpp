// Which rows of A a GEMM tile loads where M ends inside it (gemm/tail_rows.hpp), checked
// exhaustively against what the kernel's producer then issues (gemm/mainloop.cuh's load,
// replayed here with the same decisions): the stage's expected bytes equal the bytes its
// boxes bring (else the stage's barrier never completes: the hang of bench/NOTES.md
// stop 44), every row in bounds is loaded, every box lies inside the tile on an SW128
// repeat (8 rows), and past M at most 7 rows are zero-filled but where the tail is the
// tile's first box.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "warpspec/gemm/tail_rows.hpp"

// A named namespace: the host tests build as one unity translation unit.
namespace gemm_tail_rows_test {

using warpspec::gemm_impl::kRowBox;
using warpspec::gemm_impl::kRowGroup;
using warpspec::gemm_impl::moved_box_row;
using warpspec::gemm_impl::plan_rows_a;
using warpspec::gemm_impl::RowsA;
using warpspec::gemm_impl::tail_in_groups;
using warpspec::gemm_impl::whole_box_rows_a;

struct Box {
  int at, rows;
};

// The producer's A loads for one stage of a tile of `block_m` rows (mainloop.cuh).
std::vector<Box> replay(const RowsA& r, int block_m, bool row_groups, int max_groups) {
  std::vector<Box> boxes;
  for (int row = 0; row < block_m; row += kRowBox) {
    if (row + kRowBox <= r.end) {
      boxes.push_back({row, kRowBox});
    } else if (row_groups && row < r.end) {
      if (tail_in_groups(r, row, max_groups)) {
        for (int g = row; g < r.end; g += kRowGroup) boxes.push_back({g, kRowGroup});
      } else {
        boxes.push_back({moved_box_row(r), kRowBox});
      }
    }
  }
  return boxes;
}

struct Mode {
  const char* name;
  bool trims_whole_boxes;  // 16-bit tiles (tile_rows_a): boxes wholly past M are dropped
  bool row_groups;         // K-major A, no cluster sharing A, 128-row tiles
  int max_groups;          // block_n / 32
};

TEST(GemmTailRows, EveryStageExpectsTheBytesItsBoxesBringAndCoversTheRowsInBounds) {
  const Mode modes[] = {
      {"16-bit, 64 wide", true, true, 2},   {"16-bit, 128 wide", true, true, 4},
      {"16-bit, 256 wide", true, true, 8},  {"16-bit, M-major A", true, false, 0},
      {"FP8, 128 wide", false, true, 4},    {"FP8, 256 wide", false, true, 8},
      {"cluster sharing A", false, false, 0},
  };
  const int block_m = 128;
  int tails = 0, moved = 0, grouped = 0;
  for (const Mode& mode : modes)
    for (int a_rows : {64, 128})  // 64: M <= 64 (GemmParams::a_rows)
      for (int64_t left = -200; left <= 300; ++left) {
        SCOPED_TRACE(::testing::Message() << mode.name << ", a_rows " << a_rows << ", M - m0 = " << left);
        const int rows = mode.trims_whole_boxes ? whole_box_rows_a(left, a_rows, block_m) : a_rows;
        ASSERT_EQ(rows % kRowBox, 0);
        ASSERT_LE(rows, a_rows);
        const RowsA r = plan_rows_a(left, rows, mode.row_groups, mode.max_groups);
        const std::vector<Box> boxes = replay(r, block_m, mode.row_groups, mode.max_groups);

        int tx = 0, groups = 0;
        std::vector<int> loaded(block_m, 0);
        for (const Box& b : boxes) {
          tx += b.rows;
          groups += b.rows == kRowGroup;
          EXPECT_EQ(b.at % kRowGroup, 0) << "a box off an SW128 repeat";
          EXPECT_GE(b.at, 0);
          EXPECT_LE(b.at + b.rows, rows) << "a box past the rows the tile's stages hold";
          for (int i = b.at; i < b.at + b.rows; ++i) ++loaded[i];
        }
        EXPECT_EQ(tx, r.tx_rows) << "the stage's expected bytes differ from what its boxes bring";
        EXPECT_LE(groups, mode.max_groups);

        // Every row in bounds that the tile's warpgroups multiply is loaded.
        const int in_bounds = int(std::clamp<int64_t>(left, 0, rows));
        for (int i = 0; i < in_bounds; ++i) ASSERT_GE(loaded[i], 1) << "row " << i << " in bounds not loaded";

        // Rows loaded past M (zero-filled): a whole tail box only where it is the tile's
        // first (it cannot move back), else at most 7 with 8-row boxes.
        int zero_filled = 0;
        for (int i = std::max(in_bounds, 0); i < block_m; ++i) zero_filled += loaded[i] > 0;
        const bool tail = left >= 0 && left < rows && left % kRowBox != 0;
        if (mode.row_groups && tail) {
          ++tails;
          const int end = int((left + kRowGroup - 1) / kRowGroup * kRowGroup);
          if (end % kRowBox > kRowGroup * mode.max_groups) {
            if (end > kRowBox) {
              ++moved;
              EXPECT_LE(zero_filled, kRowGroup - 1);
            } else {
              EXPECT_LE(zero_filled, kRowBox - 1);  // the first box, whole
            }
          } else {
            ++grouped;
            EXPECT_LE(zero_filled, kRowGroup - 1);
          }
        } else if (!mode.row_groups) {
          EXPECT_EQ(r.end, rows);
          EXPECT_EQ(r.tx_rows, rows);
        }
        // Nothing of a tile past M (a cluster's peer tile) when its whole boxes are trimmed.
        if (left <= 0 && mode.trims_whole_boxes) EXPECT_EQ(tx, 0);
        // A tile M does not end inside: its whole boxes, once each.
        if (left >= rows) {
          EXPECT_EQ(int(boxes.size()), rows / kRowBox);
          for (int i = 0; i < rows; ++i) EXPECT_EQ(loaded[i], 1);
        }
      }
  // Each kind of tail ran.
  EXPECT_GT(tails, 0);
  EXPECT_GT(moved, 0);
  EXPECT_GT(grouped, 0);
}

// The measured cases of bench/NOTES.md v51b-v52 take the paths the comment in
// mainloop.cuh says (block_n / 32 8-row boxes at most).
TEST(GemmTailRows, MeasuredShapesTakeTheirPaths) {
  // 96 rows, 64 wide: the last box holds 32 rows, more than 2 groups: moved back.
  RowsA r = plan_rows_a(96, 128, true, 2);
  EXPECT_EQ(r.end, 96);
  EXPECT_EQ(r.tx_rows, 128);
  EXPECT_EQ(moved_box_row(r), 32);
  // 160 rows, 128 wide, second row tile: 32 rows, 4 groups: 8-row boxes.
  r = plan_rows_a(160 - 128, 64, true, 4);
  EXPECT_EQ(r.end, 32);
  EXPECT_EQ(r.tx_rows, 32);
  // 176 rows, 128 wide: 48 rows, 6 groups, the tile's first box: whole, zero-filled.
  r = plan_rows_a(176 - 128, 64, true, 4);
  EXPECT_EQ(r.tx_rows, 64);
  EXPECT_EQ(moved_box_row(r), 0);
  // 129 rows: one row of the second tile, one 8-row box.
  r = plan_rows_a(1, 64, true, 4);
  EXPECT_EQ(r.end, 8);
  EXPECT_EQ(r.tx_rows, 8);
  // 16-bit whole boxes: 129 rows keep one box of the second tile, a tile 127 rows past M none.
  EXPECT_EQ(whole_box_rows_a(1, 128, 128), 64);
  EXPECT_EQ(whole_box_rows_a(-127, 128, 128), 0);
  EXPECT_EQ(whole_box_rows_a(300, 128, 128), 128);
  EXPECT_EQ(whole_box_rows_a(40, 64, 128), 64);
}

}  // namespace gemm_tail_rows_test
