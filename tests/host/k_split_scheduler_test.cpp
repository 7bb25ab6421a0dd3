// Host tests for KSplitScheduler (schedule/stream_k.hpp): data-parallel, split-K and
// stream-K over every small problem. For each (tiles_m, tiles_n, batch, k_iters, grid,
// splits) the units of all CTAs are walked and checked: every (m, n, l, k-iteration)
// exactly once; one final unit per tile; partial slots unique and inside the workspace;
// each final unit's peers exactly its tile's partials, ascending in k; and a simulated
// run in which a final unit proceeds only when its peers have published ends with every
// CTA done (no circular wait). Stream-K must also finish when CTAs run one at a time in
// launch order (its waits point only at lower CTAs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "warpspec/schedule/stream_k.hpp"

// A named namespace: the host tests build as one unity translation unit.
namespace k_split_scheduler_test {

using warpspec::schedule::k_split_grid_size;
using warpspec::schedule::KDecomposition;
using warpspec::schedule::KSplitArguments;
using warpspec::schedule::KSplitScheduler;
using warpspec::schedule::KWorkUnit;
using warpspec::schedule::PersistentArguments;
using warpspec::schedule::RasterOrder;

struct Problem {
  int tiles_m, tiles_n, batch, k_iters, grid, splits;
  KDecomposition mode;
  RasterOrder raster = RasterOrder::kAlongN;
  int swizzle = 1;
};

std::string describe(const Problem& p) {
  const char* mode = p.mode == KDecomposition::kSplitK ? "splitk" : p.mode == KDecomposition::kStreamK ? "streamk" : "dp";
  return std::string(mode) + " tiles " + std::to_string(p.tiles_m) + "x" + std::to_string(p.tiles_n) + "x" +
         std::to_string(p.batch) + " k_iters " + std::to_string(p.k_iters) + " grid " + std::to_string(p.grid) +
         " splits " + std::to_string(p.splits) + " swizzle " + std::to_string(p.swizzle);
}

KSplitArguments args_of(const Problem& p) {
  KSplitArguments a;
  a.tiles = PersistentArguments{p.tiles_m, p.tiles_n, p.batch, p.grid, p.raster, p.swizzle};
  a.k_iters = p.k_iters;
  a.decomposition = p.mode;
  a.splits = p.splits;
  return a;
}

struct Walked {
  KWorkUnit u;
  int cta, pos;  // the CTA and the unit's position in its sequence
};

// Every CTA's unit sequence (the same first/next every role calls).
std::vector<std::vector<KWorkUnit>> walk(const KSplitScheduler& s) {
  std::vector<std::vector<KWorkUnit>> seq(size_t(s.grid_size()));
  for (int c = 0; c < s.grid_size(); ++c) {
    int guard = 0;
    for (KWorkUnit u = s.first(c); u.valid; u = s.next(u)) {
      seq[size_t(c)].push_back(u);
      if (++guard > 100000) {
        ADD_FAILURE() << "CTA " << c << " never runs out of units";
        return seq;
      }
    }
  }
  return seq;
}

// Runs the fixup protocol abstractly: a non-final unit publishes its slot; a final unit
// may run only once all its peer slots are published. `resident` CTAs run at once,
// admitted in launch order as earlier ones finish (0 = all at once). Returns whether
// every CTA finished.
bool simulate(const KSplitScheduler& s, const std::vector<std::vector<KWorkUnit>>& seq, int resident) {
  const int g = s.grid_size();
  std::vector<char> published(size_t(std::max(s.workspace_slots(), 1)), 0);
  std::vector<size_t> at(size_t(g), 0);
  int admitted = resident == 0 ? g : std::min(resident, g);
  for (bool progress = true; progress;) {
    progress = false;
    for (int c = 0; c < admitted; ++c) {
      auto& units = seq[size_t(c)];
      while (at[size_t(c)] < units.size()) {
        const KWorkUnit& u = units[at[size_t(c)]];
        if (s.is_final(u)) {
          int b, n;
          s.peer_slots(u, b, n);
          bool ready = true;
          for (int i = b; i < b + n; ++i) ready = ready && published[size_t(i)];
          if (!ready) break;
        } else {
          published[size_t(s.partial_slot(u))] = 1;
        }
        ++at[size_t(c)];
        progress = true;
      }
    }
    // CTAs leave in any order; a new one is admitted per finished one (in id order).
    int done = 0;
    for (int c = 0; c < admitted; ++c) done += at[size_t(c)] == seq[size_t(c)].size();
    while (resident != 0 && admitted < g && admitted - done < resident) {
      ++admitted;
      progress = true;
    }
  }
  for (int c = 0; c < g; ++c)
    if (at[size_t(c)] != seq[size_t(c)].size()) return false;
  return true;
}

void check_problem(const Problem& p) {
  SCOPED_TRACE(describe(p));
  const KSplitArguments a = args_of(p);
  ASSERT_EQ(KSplitScheduler::check(a), nullptr);
  const KSplitScheduler s(a);
  const int T = p.tiles_m * p.tiles_n * p.batch, K = p.k_iters;
  const auto seq = walk(s);
  if (::testing::Test::HasFailure()) return;

  // Decomposition actually used: K = 0 is data-parallel.
  const KDecomposition mode = K == 0 ? KDecomposition::kDataParallel : p.mode;
  ASSERT_EQ(s.decomposition(), mode);

  std::vector<int> cover(size_t(T) * size_t(std::max(K, 1)), 0);
  std::vector<int> finals(size_t(T), 0);
  std::vector<const KWorkUnit*> final_of(size_t(T), nullptr);
  std::map<int, std::vector<const KWorkUnit*>> partials_of;  // tile -> its non-final units
  std::set<int> slots;
  std::set<std::tuple<int, int, int>> coords_seen;
  std::map<int, std::tuple<int, int, int>> coords_of_tile;
  for (int c = 0; c < s.grid_size(); ++c) {
    const auto& units = seq[size_t(c)];
    for (size_t i = 0; i < units.size(); ++i) {
      const KWorkUnit& u = units[i];
      ASSERT_TRUE(u.in_bounds);
      ASSERT_EQ(u.cta, c);
      ASSERT_GE(u.tile, 0);
      ASSERT_LT(u.tile, T);
      ASSERT_GE(u.m_block, 0);
      ASSERT_LT(u.m_block, p.tiles_m);
      ASSERT_GE(u.n_block, 0);
      ASSERT_LT(u.n_block, p.tiles_n);
      ASSERT_GE(u.l, 0);
      ASSERT_LT(u.l, p.batch);
      // The tile index names one (m, n, l), always the same one.
      const auto coords = std::make_tuple(u.m_block, u.n_block, u.l);
      auto it = coords_of_tile.find(u.tile);
      if (it == coords_of_tile.end()) {
        coords_of_tile[u.tile] = coords;
        ASSERT_TRUE(coords_seen.insert(coords).second) << "two tile indices map to one tile";
      } else {
        ASSERT_EQ(it->second, coords);
      }
      ASSERT_LE(0, u.k_begin);
      ASSERT_LE(u.k_begin, u.k_end);
      ASSERT_LE(u.k_end, K);
      // Only split-K with more splits than k-iterations has empty units.
      if (u.k_begin == u.k_end && K > 0) {
        ASSERT_TRUE(mode == KDecomposition::kSplitK && p.splits > K) << "empty unit";
      }
      for (int k = u.k_begin; k < u.k_end; ++k) ++cover[size_t(u.tile) * size_t(K) + size_t(k)];
      if (K == 0) ++cover[size_t(u.tile)];
      if (s.is_final(u)) {
        ++finals[size_t(u.tile)];
        final_of[size_t(u.tile)] = &u;
      } else {
        ASSERT_NE(mode, KDecomposition::kDataParallel);
        const int slot = s.partial_slot(u);
        ASSERT_GE(slot, 0);
        ASSERT_LT(slot, s.workspace_slots());
        ASSERT_TRUE(slots.insert(slot).second) << "slot " << slot << " written twice";
        partials_of[u.tile].push_back(&u);
        // Stream-K: a CTA's only partial is the first unit it runs.
        if (u.stream_k) {
          ASSERT_EQ(i, 0u);
        }
      }
      // Stream-K units come first, then data-parallel whole tiles.
      if (i > 0 && u.stream_k) {
        ASSERT_TRUE(units[i - 1].stream_k);
      }
      if (!u.stream_k && mode != KDecomposition::kSplitK) {
        ASSERT_EQ(u.k_begin, 0);
        ASSERT_EQ(u.k_end, K);
      }
    }
  }
  for (size_t i = 0; i < cover.size(); ++i) ASSERT_EQ(cover[i], 1) << "tile " << i / std::max(K, 1) << " k " << i % std::max(K, 1);
  for (int t = 0; t < T; ++t) ASSERT_EQ(finals[size_t(t)], 1) << "final units of tile " << t;
  if (mode == KDecomposition::kDataParallel) {
    ASSERT_EQ(s.workspace_slots(), 0);
  }

  // Peers: exactly the tile's partials, in ascending slot order = ascending k, and they
  // cover [0, final.k_begin) without gaps.
  int peer_total = 0;
  for (int t = 0; t < T; ++t) {
    const KWorkUnit& f = *final_of[size_t(t)];
    int b, n;
    s.peer_slots(f, b, n);
    ASSERT_GE(n, 0);
    peer_total += n;
    auto parts = partials_of[t];
    ASSERT_EQ(int(parts.size()), n) << "tile " << t;
    std::sort(parts.begin(), parts.end(),
              [&](const KWorkUnit* x, const KWorkUnit* y) { return s.partial_slot(*x) < s.partial_slot(*y); });
    int k = 0;
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(s.partial_slot(*parts[size_t(i)]), b + i) << "tile " << t;
      ASSERT_EQ(parts[size_t(i)]->k_begin, k) << "peer " << i << " of tile " << t;
      k = parts[size_t(i)]->k_end;
    }
    ASSERT_EQ(f.k_begin, k) << "the final unit continues where its peers stop";
    ASSERT_EQ(f.k_end, K);
  }
  ASSERT_EQ(peer_total, int(slots.size()));

  // Roles see the same sequence: walking again gives the same units.
  const auto again = walk(s);
  for (int c = 0; c < s.grid_size(); ++c) {
    ASSERT_EQ(again[size_t(c)].size(), seq[size_t(c)].size());
    for (size_t i = 0; i < seq[size_t(c)].size(); ++i) {
      ASSERT_EQ(again[size_t(c)][i].tile, seq[size_t(c)][i].tile);
      ASSERT_EQ(again[size_t(c)][i].k_begin, seq[size_t(c)][i].k_begin);
      ASSERT_EQ(again[size_t(c)][i].k_end, seq[size_t(c)][i].k_end);
    }
  }

  // Progress with every CTA resident; stream-K also one CTA at a time.
  ASSERT_TRUE(simulate(s, seq, 0)) << "a final unit waits forever";
  if (mode == KDecomposition::kStreamK) {
    ASSERT_TRUE(simulate(s, seq, 1)) << "stream-K needs co-residency";
  }
}

TEST(KSplitScheduler, DataParallelCoversEveryTileOnce) {
  for (int tm = 1; tm <= 4; ++tm)
    for (int tn = 1; tn <= 3; ++tn)
      for (int l = 1; l <= 2; ++l)
        for (int k : {0, 1, 5})
          for (int g = 1; g <= 9; ++g) check_problem({tm, tn, l, k, g, 1, KDecomposition::kDataParallel});
}

TEST(KSplitScheduler, SplitKExhaustive) {
  for (int tm = 1; tm <= 3; ++tm)
    for (int tn = 1; tn <= 3; ++tn)
      for (int l = 1; l <= 2; ++l)
        for (int k = 0; k <= 7; ++k)
          for (int g = 1; g <= 8; ++g)
            for (int s = 1; s <= 9; ++s) {
              check_problem({tm, tn, l, k, g, s, KDecomposition::kSplitK});
              if (::testing::Test::HasFatalFailure()) return;
            }
}

TEST(KSplitScheduler, StreamKExhaustive) {
  for (int tm = 1; tm <= 4; ++tm)
    for (int tn = 1; tn <= 4; ++tn)
      for (int l = 1; l <= 2; ++l)
        for (int k : {0, 1, 2, 3, 4, 5, 7, 8, 13, 64})
          for (int g = 1; g <= 12; ++g) {
            check_problem({tm, tn, l, k, g, 1, KDecomposition::kStreamK});
            if (::testing::Test::HasFatalFailure()) return;
          }
}

TEST(KSplitScheduler, SwizzledRasterKeepsTheProperties) {
  for (RasterOrder r : {RasterOrder::kAlongM, RasterOrder::kAlongN})
    for (int sw : {2, 4})
      for (KDecomposition d : {KDecomposition::kDataParallel, KDecomposition::kSplitK, KDecomposition::kStreamK}) {
        Problem p{5, 7, 2, 9, 11, 3, d, r, sw};
        check_problem(p);
        p.grid = 132, p.tiles_m = 9, p.tiles_n = 16, p.k_iters = 64;  // an H200-sized grid
        check_problem(p);
      }
}

// The stream-K split of tiles: none when waves are whole; the partial wave, plus one
// full wave when there is one.
TEST(KSplitScheduler, StreamKTilesFollowTheWaveRule) {
  EXPECT_EQ(KSplitScheduler::stream_k_tiles(264, 132), 0);
  EXPECT_EQ(KSplitScheduler::stream_k_tiles(100, 132), 100);
  EXPECT_EQ(KSplitScheduler::stream_k_tiles(140, 132), 140);
  EXPECT_EQ(KSplitScheduler::stream_k_tiles(300, 132), 36 + 132);
  const Problem p{10, 30, 1, 16, 132, 1, KDecomposition::kStreamK};  // 300 tiles
  const KSplitScheduler s(args_of(p));
  EXPECT_EQ(s.stream_k_tiles(), 168);
  EXPECT_EQ(s.stream_k_ctas(), 132);
  EXPECT_EQ(s.workspace_slots(), 132);
  // Every CTA's streamed piece is between one and two tiles of k-iterations.
  for (int c = 0; c < 132; ++c) {
    int iters = 0;
    for (KWorkUnit u = s.first(c); u.valid && u.stream_k; u = s.next(u)) iters += u.k_end - u.k_begin;
    EXPECT_GE(iters, 16);
    EXPECT_LE(iters, 32);
  }
}

TEST(KSplitScheduler, WorkspaceSlots) {
  Problem p{3, 2, 2, 10, 8, 4, KDecomposition::kSplitK};
  EXPECT_EQ(KSplitScheduler(args_of(p)).workspace_slots(), 12 * 3);
  p.mode = KDecomposition::kDataParallel;
  EXPECT_EQ(KSplitScheduler(args_of(p)).workspace_slots(), 0);
  p.mode = KDecomposition::kStreamK;  // 12 tiles on 8 CTAs: 4 + 8 streamed, 120 iterations
  EXPECT_EQ(KSplitScheduler(args_of(p)).workspace_slots(), 8);
  p.k_iters = 0;  // K = 0 runs data-parallel, needs nothing
  EXPECT_EQ(KSplitScheduler(args_of(p)).workspace_slots(), 0);
  p.mode = KDecomposition::kSplitK;
  EXPECT_EQ(KSplitScheduler(args_of(p)).workspace_slots(), 0);
}

TEST(KSplitScheduler, GridSize) {
  EXPECT_EQ(k_split_grid_size(10, 64, KDecomposition::kDataParallel, 1, 132), 10);
  EXPECT_EQ(k_split_grid_size(10, 64, KDecomposition::kSplitK, 4, 132), 40);
  EXPECT_EQ(k_split_grid_size(100, 64, KDecomposition::kSplitK, 4, 132), 132);
  EXPECT_EQ(k_split_grid_size(10, 64, KDecomposition::kStreamK, 1, 132), 132);
  EXPECT_EQ(k_split_grid_size(10, 3, KDecomposition::kStreamK, 1, 132), 30);
  EXPECT_EQ(k_split_grid_size(10, 0, KDecomposition::kStreamK, 1, 132), 10);
}

TEST(KSplitScheduler, RefusesWhatItCannotSchedule) {
  KSplitArguments a = args_of({2, 2, 1, 8, 4, 2, KDecomposition::kSplitK});
  EXPECT_EQ(KSplitScheduler::check(a), nullptr);
  a.splits = 0;
  EXPECT_NE(std::string(KSplitScheduler::check(a)).find("splits"), std::string::npos);
  a.splits = 257;
  EXPECT_NE(std::string(KSplitScheduler::check(a)).find("splits"), std::string::npos);
  a.splits = 2;
  a.k_iters = -1;
  EXPECT_NE(std::string(KSplitScheduler::check(a)).find("k_iters"), std::string::npos);
  a.k_iters = 8;
  a.decomposition = KDecomposition(7);
  EXPECT_NE(std::string(KSplitScheduler::check(a)).find("decomposition"), std::string::npos);
  a = args_of({1000, 1000, 1, 8, 132, 256, KDecomposition::kSplitK});  // 2^28 units: fine
  EXPECT_EQ(KSplitScheduler::check(a), nullptr);
  a.tiles.batch = 16;  // 2^32 units
  EXPECT_NE(std::string(KSplitScheduler::check(a)).find("splits"), std::string::npos);
  a = args_of({1, 100, 1, 1 << 25, 132, 1, KDecomposition::kStreamK});  // 100 tiles * 2^25
  EXPECT_NE(std::string(KSplitScheduler::check(a)).find("k_iters"), std::string::npos);
  a.tiles.cluster_m = 2;
  a.tiles.grid_size = 132;
  a.k_iters = 8;
  EXPECT_NE(KSplitScheduler::check(a), nullptr);
}

}  // namespace k_split_scheduler_test
