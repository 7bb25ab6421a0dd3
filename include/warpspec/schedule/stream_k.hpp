#pragma once
// KSplitScheduler: the GEMM's persistent scheduler when a work unit may cover only part
// of a tile's K loop. One value type serves three decompositions, chosen at run time
// (the kernel is the same; only the units differ):
//
//   data-parallel  one unit per output tile, k-iterations [0, k_iters): PersistentScheduler's
//                  order and stride exactly.
//   split-K        `splits` units per tile, split s covering [s*K/S, (s+1)*K/S) (floors,
//                  K = k_iters, S = splits). Unit u = tile*S + s; CTA c takes u = c, c+G, ...
//                  With S > K some splits are empty (k_begin == k_end): they still take part
//                  and contribute zeros, so the protocol has no special case.
//   stream-K       the grid shares the k-iterations of the "stream-K tiles" evenly; the other
//                  tiles run data-parallel. As CUTLASS's heuristic: a whole number of tiles per
//                  wave runs data-parallel; only a partial last wave (T mod G tiles) is streamed,
//                  together with one full wave when there is one (so each streaming CTA gets
//                  between one and two tiles of work, not a sliver). The stream-K tiles are the
//                  first sk_tiles tile indices; their k-iterations form one flat range
//                  [0, W = sk_tiles*K) cut into sk_ctas = min(G, W) contiguous pieces, CTA c
//                  taking [floor(c*W/sk_ctas), floor((c+1)*W/sk_ctas)) (never empty). A CTA's
//                  piece is cut at tile boundaries into units, which it runs from the HIGHEST
//                  k down; then it runs data-parallel tiles sk_tiles + c, + G, ...
//
// Fixup (the reduction of partial tiles; gemm/fixup.cuh runs it, this type decides it):
//   * a unit is FINAL when k_end == k_iters: it owns the tile's output and runs the epilogue.
//     Every tile has exactly one final unit. K = 0 is always data-parallel (every split-K
//     unit would otherwise be final).
//   * a non-final unit writes its fp32 partial to workspace slot partial_slot(u) and
//     publishes that slot's flag. Split-K: slot tile*(S-1) + s. Stream-K: slot c (the CTA):
//     a CTA's only possible non-final unit is the first it runs (its highest-k piece, when
//     that piece does not end at its tile's end), so one slot per CTA suffices.
//   * the final unit sums the partials of peer_slots(u) = [begin, begin + count) in
//     ascending slot order onto its own accumulators, a fixed order: results are bitwise
//     identical from run to run. Split-K: the tile's S-1 slots. Stream-K: the CTAs below
//     the final unit's CTA whose pieces overlap the tile (they are contiguous CTA ids).
//   * progress: a final unit waits only for units that come earlier in a fixed global
//     order (split-K: lower unit indices; stream-K: the FIRST unit of lower CTAs, while
//     the final unit is its CTA's LAST stream-K unit, hence the high-to-low walk). The
//     wait graph is acyclic, and with every CTA resident at once (grid <= SMs, one CTA
//     per SM) every wait ends. Stream-K waits point only at lower CTA ids, which the
//     hardware launches first.
//
// All roles of a CTA call first()/next() with the same arguments, so they see the same
// unit sequence; whether a unit is final is a function of the unit alone.
//
// Host side:
//   KSplitArguments a{tiles, k_iters, decomposition, splits};   // tiles: PersistentArguments
//   if (const char* why = KSplitScheduler::check(a)) return invalid_argument(why);
//   KSplitScheduler s(a);   // workspace_slots() partial tiles of fixup workspace
#include <cstdint>

#include "warpspec/schedule/fast_divmod.hpp"
#include "warpspec/schedule/persistent.hpp"

namespace warpspec::schedule {

enum class KDecomposition : uint8_t { kDataParallel = 0, kSplitK = 1, kStreamK = 2 };

inline constexpr int kMaxSplits = 256;

struct KSplitArguments {
  // Tile counts, raster, swizzle and the persistent grid G (grid_size). Clusters only
  // with kDataParallel; the kernel then walks units with ClusterUnits
  // (schedule/cluster_units.hpp), not with first()/next() below.
  PersistentArguments tiles;
  int k_iters = 0;  // K loop length of a whole tile, in block_k steps
  KDecomposition decomposition = KDecomposition::kDataParallel;
  int splits = 1;   // split-K: units per tile, 1..kMaxSplits
};

// One unit of work: part of one tile's K loop.
struct KWorkUnit {
  int32_t m_block = 0, n_block = 0, l = 0;  // the output tile
  int32_t tile = 0;                          // its index: batch-major, raster order
  int32_t k_begin = 0, k_end = 0;            // k-iterations [k_begin, k_end) of the tile
  // Where next() continues. Stream-K units: the flat start of this unit (the next unit
  // of the CTA ends there) and the start of the CTA's piece. Others: the unit index.
  int32_t cursor = 0;
  int32_t sk_stop = 0;
  int32_t cta = 0;
  bool stream_k = false;  // a unit of the stream-K phase
  bool valid = false;     // the loop runs while valid
  bool in_bounds = false; // == valid here; ClusterUnits' padded pair tiles are valid, not in bounds
};

// CTAs for a decomposition: one per unit of parallel work, up to the SMs. Data-parallel:
// tiles; split-K: tiles * splits; stream-K: every SM, unless there are fewer
// k-iterations than SMs in all (then every CTA still gets at least one).
inline int k_split_grid_size(int tiles, int k_iters, KDecomposition d, int splits, int sms) {
  int64_t units = tiles;
  if (d == KDecomposition::kSplitK) units = int64_t{tiles} * splits;
  if (d == KDecomposition::kStreamK && k_iters > 0) units = int64_t{tiles} * k_iters;
  int64_t g = units < sms ? units : sms;
  return int(g < 1 ? 1 : g);
}

class KSplitScheduler {
 public:
  using Arguments = KSplitArguments;

  // nullptr when `args` can be scheduled, else why not (a static string naming the
  // argument and the rule). Keeps every index the kernel forms below 2^31.
  static const char* check(const Arguments& a) {
    if (const char* why = PersistentScheduler::check(a.tiles)) return why;
    if ((a.tiles.cluster_m != 1 || a.tiles.cluster_n != 1) && a.decomposition != KDecomposition::kDataParallel)
      return "cluster: split-K and stream-K run without clusters (a multicast pair must run equal k-ranges in "
             "lock-step, and the fixup makes CTAs wait on others); clusters are data-parallel only";
    if (a.k_iters < 0) return "k_iters: must be >= 0";
    if (a.decomposition != KDecomposition::kDataParallel && a.decomposition != KDecomposition::kSplitK &&
        a.decomposition != KDecomposition::kStreamK)
      return "decomposition: must be data-parallel, split-K or stream-K";
    const int64_t tiles = int64_t{a.tiles.tiles_m} * a.tiles.tiles_n * a.tiles.batch;
    if (a.decomposition == KDecomposition::kSplitK) {
      if (a.splits < 1 || a.splits > kMaxSplits) return "splits: must be 1..256";
      if (tiles * a.splits + a.tiles.grid_size > INT32_MAX) return "splits: tiles * splits must stay below 2^31";
    }
    if (a.decomposition == KDecomposition::kStreamK) {
      const int64_t g = a.tiles.grid_size;
      const int64_t sk_tiles = stream_k_tiles(tiles, g);
      if (sk_tiles * a.k_iters + g >= INT32_MAX)
        return "k_iters: stream-K tiles * k-iterations must stay below 2^31 (use split-K)";
    }
    return nullptr;
  }

  // Tiles streamed for T tiles on G CTAs: none when the waves are whole, else the partial
  // wave plus one full wave when there is one.
  static constexpr int64_t stream_k_tiles(int64_t tiles, int64_t grid) {
    const int64_t rem = tiles % grid;
    if (rem == 0) return 0;
    return tiles >= grid ? rem + grid : rem;
  }

  KSplitScheduler() = default;

  // Precondition: check(args) == nullptr.
  WARPSPEC_HOST_DEVICE explicit KSplitScheduler(const Arguments& a) : tiles_(a.tiles) {
    k_iters_ = a.k_iters;
    grid_ = a.tiles.grid_size;
    total_tiles_ = tiles_.total_tiles();
    mode_ = a.k_iters == 0 ? KDecomposition::kDataParallel : a.decomposition;
    splits_ = mode_ == KDecomposition::kSplitK ? a.splits : 1;
    split_div_ = FastDivmod(uint32_t(splits_));
    k_div_ = FastDivmod(uint32_t(k_iters_ > 0 ? k_iters_ : 1));
    if (mode_ == KDecomposition::kStreamK) {
      sk_tiles_ = int32_t(stream_k_tiles(total_tiles_, grid_));
      sk_work_ = sk_tiles_ * k_iters_;
      sk_ctas_ = sk_work_ < grid_ ? sk_work_ : grid_;
    }
  }

  WARPSPEC_HOST_DEVICE KDecomposition decomposition() const { return mode_; }  // K = 0: data-parallel
  WARPSPEC_HOST_DEVICE int grid_size() const { return grid_; }
  WARPSPEC_HOST_DEVICE int total_tiles() const { return total_tiles_; }
  WARPSPEC_HOST_DEVICE int k_iters() const { return k_iters_; }
  WARPSPEC_HOST_DEVICE int splits() const { return splits_; }
  WARPSPEC_HOST_DEVICE int stream_k_tiles() const { return sk_tiles_; }
  WARPSPEC_HOST_DEVICE int stream_k_ctas() const { return sk_ctas_; }
  WARPSPEC_HOST_DEVICE const PersistentScheduler& tile_order() const { return tiles_; }

  // Partial tiles the fixup needs room for (0: no workspace).
  WARPSPEC_HOST_DEVICE int workspace_slots() const {
    if (mode_ == KDecomposition::kSplitK) return total_tiles_ * (splits_ - 1);
    if (mode_ == KDecomposition::kStreamK) return sk_ctas_;
    return 0;
  }

  WARPSPEC_HOST_DEVICE KWorkUnit first(int cta) const {
    if (mode_ == KDecomposition::kStreamK && cta < sk_ctas_) {
      const int32_t begin = piece_begin(cta), end = piece_begin(cta + 1);
      return stream_k_unit(cta, end, begin);
    }
    return indexed_unit(cta, cta);
  }

  // Call only while u.valid.
  WARPSPEC_HOST_DEVICE KWorkUnit next(const KWorkUnit& u) const {
    if (u.stream_k) {
      if (u.cursor > u.sk_stop) return stream_k_unit(u.cta, u.cursor, u.sk_stop);
      return indexed_unit(u.cta, u.cta);  // the piece is done: data-parallel tiles follow
    }
    return indexed_unit(u.cta, u.cursor + grid_);
  }

  // The unit owns the tile's output (it runs the epilogue).
  WARPSPEC_HOST_DEVICE bool is_final(const KWorkUnit& u) const { return u.k_end == k_iters_; }

  // Non-final units: the workspace slot of their partial.
  WARPSPEC_HOST_DEVICE int partial_slot(const KWorkUnit& u) const {
    if (u.stream_k) return u.cta;
    return u.tile * (splits_ - 1) + (u.cursor - u.tile * splits_);
  }

  // Final units: the partials to add, slots [begin, begin + count), ascending.
  WARPSPEC_HOST_DEVICE void peer_slots(const KWorkUnit& u, int& begin, int& count) const {
    begin = 0, count = 0;
    if (mode_ == KDecomposition::kSplitK) {
      begin = u.tile * (splits_ - 1);
      count = splits_ - 1;
    } else if (u.stream_k && u.k_begin > 0) {
      begin = piece_owner(u.tile * k_iters_);
      count = u.cta - begin;
    }
  }

 private:
  // Start of CTA c's stream-K piece: floor(c * W / sk_ctas), in 64 bits (c*W may pass 2^31).
  WARPSPEC_HOST_DEVICE int32_t piece_begin(int c) const {
    return int32_t(int64_t{c} * sk_work_ / sk_ctas_);
  }
  // The CTA whose piece holds flat k-iteration x: the largest c with piece_begin(c) <= x,
  // i.e. c*W < (x+1)*sk_ctas, c = floor(((x+1)*sk_ctas - 1) / W).
  WARPSPEC_HOST_DEVICE int piece_owner(int32_t x) const {
    return int((int64_t{x + 1} * sk_ctas_ - 1) / sk_work_);
  }

  // The stream-K unit of CTA `cta` ending at flat position `end` (> stop), stop = the
  // start of the CTA's piece: from max(stop, start of end's tile) to end.
  WARPSPEC_HOST_DEVICE KWorkUnit stream_k_unit(int cta, int32_t end, int32_t stop) const {
    uint32_t tile, k_last;
    k_div_.divmod(uint32_t(end - 1), tile, k_last);
    const int32_t tile_start = int32_t(tile) * k_iters_;
    const int32_t begin = stop > tile_start ? stop : tile_start;
    KWorkUnit u = with_tile(int(tile));
    u.k_begin = begin - tile_start;
    u.k_end = int32_t(k_last) + 1;
    u.cursor = begin;
    u.sk_stop = stop;
    u.cta = cta;
    u.stream_k = true;
    return u;
  }

  // Data-parallel and split-K units: unit index `index`, run by CTA `cta`.
  WARPSPEC_HOST_DEVICE KWorkUnit indexed_unit(int cta, int index) const {
    KWorkUnit u;
    int tile = index, k_begin = 0, k_end = k_iters_;
    bool valid;
    if (mode_ == KDecomposition::kSplitK) {
      uint32_t t, s;
      split_div_.divmod(uint32_t(index), t, s);
      tile = int(t);
      // Floors of s*K/S: 64-bit products (K up to 2^25 times S up to 256 fits easily).
      k_begin = int(int64_t(s) * k_iters_ / splits_);
      k_end = int(int64_t(s + 1) * k_iters_ / splits_);
      valid = tile < total_tiles_;
    } else {
      tile = index + sk_tiles_;  // stream-K: data-parallel tiles follow the streamed ones
      valid = tile < total_tiles_;
    }
    if (valid) u = with_tile(tile);
    u.k_begin = k_begin;
    u.k_end = k_end;
    u.cursor = index;
    u.cta = cta;
    u.valid = u.in_bounds = valid;
    return u;
  }

  WARPSPEC_HOST_DEVICE KWorkUnit with_tile(int tile) const {
    const WorkTile t = tiles_.get(tile);
    KWorkUnit u;
    u.m_block = t.m_block;
    u.n_block = t.n_block;
    u.l = t.l;
    u.tile = tile;
    u.valid = u.in_bounds = t.valid;
    return u;
  }

  PersistentScheduler tiles_;  // tile index -> (m, n, l): raster order and swizzle
  FastDivmod split_div_;       // unit index -> (tile, split)
  FastDivmod k_div_;           // flat stream-K position -> (tile, k)
  int32_t k_iters_ = 0;
  int32_t grid_ = 1;
  int32_t total_tiles_ = 1;
  int32_t splits_ = 1;
  int32_t sk_tiles_ = 0;   // tiles 0 .. sk_tiles-1 are streamed
  int32_t sk_work_ = 0;    // their k-iterations: W
  int32_t sk_ctas_ = 0;    // CTAs sharing them: min(G, W)
  KDecomposition mode_ = KDecomposition::kDataParallel;
};

}  // namespace warpspec::schedule
