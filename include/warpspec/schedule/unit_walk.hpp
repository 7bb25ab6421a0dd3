#pragma once
// UnitWalk: a CTA's work units in order, each decoded at one place.
//
//   for (UnitWalk w(units, blockIdx.x); w.next();) {
//     const KWorkUnit& t = w.unit();
//     ...                       // `continue` moves on to the next unit
//   }
//
// `units` is a KSplitScheduler or a ClusterUnits view: Cursor, before(cta) (a unit whose
// after() is the CTA's first cursor), at(cursor), after(unit), valid_at(cursor). The loop `for (t = first(cta); t.valid; t = next(t))`
// inlines the decode (the divisions of the raster order and of split-K / stream-K) twice,
// before the loop and at its end; every role of every GEMM kernel walks the units, so that
// second copy was a third of a plain kernel's instructions. Here the loop's one decode is
// at its top; the cursor it decodes is a few adds from the last unit.
#include "warpspec/schedule/stream_k.hpp"

namespace warpspec::schedule {

template <class Units>
class UnitWalk {
 public:
  // `units` must outlive the walk.
  WARPSPEC_HOST_DEVICE UnitWalk(const Units& units, int cta) : units_(units), unit_(units.before(cta)) {}

  // Decodes the next unit (the first on the first call): false once the CTA has none left.
  // Between calls only the unit is live (its cursor fields say where the walk goes on),
  // as in the first()/next() loop: the widest kernels have no register to spare.
  WARPSPEC_HOST_DEVICE bool next() {
    unit_ = units_.at(units_.after(unit_));
    return unit_.valid;
  }
  // The current unit (after next() returned true).
  WARPSPEC_HOST_DEVICE const KWorkUnit& unit() const { return unit_; }
  // Whether another unit follows the current one, without decoding it.
  WARPSPEC_HOST_DEVICE bool has_next() const { return units_.valid_at(units_.after(unit_)); }

 private:
  const Units& units_;
  KWorkUnit unit_;  // before the first next(): units.before(cta), whose after() is the start
};

}  // namespace warpspec::schedule
