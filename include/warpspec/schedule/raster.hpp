#pragma once
// Raster order and L2 swizzle: the order in which one batch's output tiles are handed
// out. Consecutive work indices run on CTAs that are resident at the same time, so
// this order decides which A and B tiles are live in L2 together.
//
// The grid is split into stripes `swizzle` tiles wide across the *non-raster*
// ("minor") dimension; a stripe is walked along the raster ("major") dimension, each
// step visiting its `swizzle` minor tiles before moving on:
//
//   AlongM, swizzle 2, 5 x 5 tiles (entry = work index, row = m, column = n):
//        n: 0  1 | 2  3 | 4        stripe 0 = columns 0-1, stripe 1 = 2-3,
//   m=0     0  1 |10 11 |20        tail stripe = column 4 (width 5 % 2 = 1)
//   m=1     2  3 |12 13 |21
//   m=2     4  5 |14 15 |22        A wave of W consecutive CTAs touches about W/2
//   m=3     6  7 |16 17 |23        A tiles and 2 B tiles, instead of W A tiles and
//   m=4     8  9 |18 19 |24        1 B tile (swizzle 1) or 1 A tile and W B tiles.
//
// The tail stripe (minor count not a multiple of swizzle) is narrower instead of
// padded: every index maps to an in-range tile, so no CTA burns a mainloop on a
// tile that TMA would zero-fill and clip away.
#include <cstdint>

#include "warpspec/schedule/fast_divmod.hpp"

namespace warpspec::schedule {

// AlongM: consecutive work indices go down M (the stripe is `swizzle` N tiles wide)
// and share B tiles; AlongN: they go along N and share A tiles.
enum class RasterOrder : uint8_t {
  kAlongM = 0,
  kAlongN = 1,
  kHeuristic = 2,  // resolved on the host by resolve_raster()
};

// kHeuristic resolves exactly as CUTLASS's sm90 persistent scheduler does: AlongM when
// the problem has more N tiles than M tiles, AlongN otherwise (ties go AlongN). Tile
// counts are first rounded up to whole clusters, as the scheduler hands them out.
// Why: rastering along the *shorter* dimension finishes a column (or row) of the
// output quickly, so one wave re-reads the few operand tiles of that short side from
// L2 while streaming the long side once; along the long side a wave would touch many
// tiles of both operands. Explicit kAlongM / kAlongN pass through unchanged.
// The stripe widths the walk takes (PersistentScheduler::check, GemmArgs::swizzle).
WARPSPEC_HOST_DEVICE constexpr bool is_valid_swizzle(int s) {
  return s == 1 || s == 2 || s == 4 || s == 8 || s == 16;
}

WARPSPEC_HOST_DEVICE constexpr RasterOrder resolve_raster(RasterOrder order, int tiles_m,
                                                       int tiles_n, int cluster_m = 1,
                                                       int cluster_n = 1) {
  if (order != RasterOrder::kHeuristic) return order;
  const int64_t rounded_m = (int64_t{tiles_m} + cluster_m - 1) / cluster_m * cluster_m;
  const int64_t rounded_n = (int64_t{tiles_n} + cluster_n - 1) / cluster_n * cluster_n;
  return rounded_n > rounded_m ? RasterOrder::kAlongM : RasterOrder::kAlongN;
}

// Maps an index in [0, count_m * count_n) to (m, n) for one batch. Counts are in
// scheduling units (tiles, or clusters of tiles): the caller scales. Everything that
// needs a division is set up at construction; map() is two FastDivmods and selects.
class SwizzledRaster {
 public:
  SwizzledRaster() = default;

  // `order` must already be resolved (not kHeuristic); swizzle is 1, 2, 4, 8 or 16 and
  // counts are >= 1 with count_m * count_n < 2^31 (PersistentScheduler::check).
  WARPSPEC_HOST_DEVICE SwizzledRaster(uint32_t count_m, uint32_t count_n, RasterOrder order,
                                   uint32_t swizzle)
      : along_m_(order == RasterOrder::kAlongM), log_swizzle_(ceil_log2(swizzle)) {
    const uint32_t major = along_m_ ? count_m : count_n;
    const uint32_t minor = along_m_ ? count_n : count_m;
    const uint32_t tail_width = minor & (swizzle - 1);
    full_stripes_ = minor >> log_swizzle_;
    stripe_ = FastDivmod(swizzle * major);
    width_full_ = FastDivmod(swizzle);
    // With no tail stripe this divisor is never selected; keep it a valid divisor.
    width_tail_ = FastDivmod(tail_width != 0 ? tail_width : swizzle);
  }

  WARPSPEC_HOST_DEVICE bool along_m() const { return along_m_; }

  // idx < count_m * count_n. The tail stripe starts at full_stripes * swizzle * major,
  // which is exactly where idx / (swizzle * major) reaches full_stripes, so one
  // stripe divmod serves both full and tail stripes; only the width divisor differs.
  WARPSPEC_HOST_DEVICE void map(uint32_t idx, uint32_t& m, uint32_t& n) const {
    uint32_t stripe, in_stripe;
    stripe_.divmod(idx, stripe, in_stripe);
    // A select, not a branch: the kernel's loop stays straight-line.
    const FastDivmod width = stripe < full_stripes_ ? width_full_ : width_tail_;
    uint32_t major, offset;
    width.divmod(in_stripe, major, offset);
    const uint32_t minor = (stripe << log_swizzle_) + offset;
    m = along_m_ ? major : minor;
    n = along_m_ ? minor : major;
  }

 private:
  FastDivmod stripe_;      // swizzle * major: indices per full stripe
  FastDivmod width_full_;  // swizzle: minor tiles per step in a full stripe
  FastDivmod width_tail_;  // minor % swizzle: minor tiles per step in the tail stripe
  uint32_t full_stripes_ = 1;
  bool along_m_ = true;
  uint32_t log_swizzle_ = 0;
};

}  // namespace warpspec::schedule
