#pragma once
// Which rows of A a GEMM tile loads, as host and kernel both see it (gemm/mainloop.cuh
// calls these; tests/host/gemm_tail_rows_test.cpp checks them exhaustively).
//
// A tile's A rows come in 64-row boxes (a warpgroup's rows). Where M ends inside the tile
// (`left` = M - m0 rows in bounds, fewer than the tile's), TMA's zero fill of rows past M
// runs slower than loading real ones (bench/NOTES.md v51), so:
//   - a box wholly past M is not loaded;
//   - with 8-row boxes available (K-major A, no cluster sharing A, 128-row tiles), the last
//     box in bounds stops at M's last 8-row group (`end`, at most 7 rows zero-filled): as
//     up to `max_groups` 8-row boxes, or else as one whole 64-row box moved back to end at
//     `end`, over rows of the box before it (the same bytes loaded twice); the first box
//     of a tile cannot move, so it is loaded whole and zero-filled instead.
// Rows a stage does not load keep an older stage's bytes; they reach only accumulator
// rows past M, which are never stored.
#include <algorithm>
#include <cstdint>

#include "warpspec/hopper/host_device.hpp"

namespace warpspec::gemm_impl {

inline constexpr int kRowBox = 64;  // rows of a whole A box
inline constexpr int kRowGroup = 8;  // rows of a small A box (one SW128 repeat)

// Rows of A a 16-bit tile's stages hold, whole 64-row boxes: `a_rows` (the tile's, or 64
// where M <= 64), less the boxes wholly past M (`left` = M - m0; negative for a cluster's
// tile past M, run for its peer's sake: none of its rows).
WARPSPEC_HOST_DEVICE constexpr int whole_box_rows_a(int64_t left, int a_rows, int block_m) {
  if (left < 0) left = 0;
  if (left >= block_m) return a_rows;
  return std::min(a_rows, int((left + kRowBox - 1) / kRowBox * kRowBox));
}

// A tile's A loads: boxes whose first row is below `end` are loaded, `tx_rows` rows of
// bytes in all (what the stage's barrier expects). Without a tail, end = tx_rows = rows.
struct RowsA {
  int end;
  int tx_rows;
};

// `rows`: the rows the tile's stages hold (a multiple of 64: tile_rows_a); `left`: M - m0,
// negative for a cluster's tile past M (run for its peer's sake: no rows at all).
WARPSPEC_HOST_DEVICE constexpr RowsA plan_rows_a(int64_t left, int rows, bool row_groups, int max_groups) {
  if (left < 0) left = 0;
  if (!row_groups || left >= rows) return {rows, rows};
  const int end = int((left + kRowGroup - 1) / kRowGroup * kRowGroup);
  const int tail = end % kRowBox;  // rows of the last box in bounds, rounded up to 8 (0: none)
  return {end, tail == 0 || tail > kRowGroup * max_groups ? end - tail + kRowBox * (tail != 0) : end};
}

// The box at tile row `row` (a multiple of 64) under `r`: loaded whole at `row` when
// row + 64 <= r.end, not at all when row >= r.end; otherwise it is the tail box, loaded
// as 8-row boxes from `row` to r.end when tail_in_groups, else as one whole box at
// moved_box_row (gemm/mainloop.cuh's load; tests/host/gemm_tail_rows_test.cpp).
WARPSPEC_HOST_DEVICE constexpr bool tail_in_groups(const RowsA& r, int row, int max_groups) {
  return r.end - row <= kRowGroup * max_groups;
}
// The whole tail box ends at r.end: moved back over the box before it, or, the tile's
// first box, at row 0 and zero-filled past M.
WARPSPEC_HOST_DEVICE constexpr int moved_box_row(const RowsA& r) { return std::max(r.end - kRowBox, 0); }

}  // namespace warpspec::gemm_impl
