// Host-only (g++ -std=c++20 -Iinclude bench/probes/wave_footprint.cpp): the distinct A and B
// tiles each wave of the persistent walk touches, 1 x 1 against the pairs (bench/NOTES.md stop 69).
// Footprint of each wave: distinct M and N tiles touched by the 132 CTAs' k-th tiles.
#include <cstdio>
#include <set>
#include <tuple>
#include "warpspec/schedule/persistent.hpp"
using namespace warpspec::schedule;
int pick_swizzle(int minor) { int s = 8; while (s > 1 && s > minor) s /= 2; return s; }
void run(const char* name, int tm, int tn, int cm, int cn, RasterOrder r) {
  PersistentArguments a{};
  a.tiles_m = tm; a.tiles_n = tn; a.batch = 1; a.cluster_m = cm; a.cluster_n = cn;
  RasterOrder res = resolve_raster(r, tm, tn, cm, cn);
  int um = (tm + cm - 1) / cm, un = (tn + cn - 1) / cn;
  a.raster = res; a.swizzle = pick_swizzle(res == RasterOrder::kAlongM ? un : um);
  a.grid_size = cm * cn > 1 ? persistent_grid_size(tm, tn, 1, 132, cm, cn) : (tm * tn < 132 ? tm * tn : 132);
  PersistentScheduler s(a);
  std::printf("%s (raster %s swizzle %d grid %d):", name, res == RasterOrder::kAlongM ? "M" : "N", a.swizzle, a.grid_size);
  WorkTile t[132];
  for (int c = 0; c < a.grid_size; ++c) t[c] = s.first(c);
  for (int wave = 0; wave < 4; ++wave) {
    std::set<int> ms, ns;
    for (int c = 0; c < a.grid_size; ++c) if (t[c].valid) { ms.insert(t[c].m_block); ns.insert(t[c].n_block); }
    std::printf("  w%d %zuM x %zuN (A+B tiles %zu)", wave, ms.size(), ns.size(), ms.size() + ns.size());
    for (int c = 0; c < a.grid_size; ++c) if (t[c].valid) t[c] = s.next(t[c]);
  }
  std::printf("\n");
}
int main() {
  for (auto [tm, tn, nm] : {std::tuple{32, 32, "4096x8192 (128x256 tiles)"}, std::tuple{32, 16, "4096x4096"}}) {
    std::printf("== %s\n", nm);
    run("1x1 N", tm, tn, 1, 1, RasterOrder::kAlongN);
    run("2x1 auto", tm, tn, 2, 1, RasterOrder::kHeuristic);
    run("1x2 N", tm, tn, 1, 2, RasterOrder::kAlongN);
    run("1x2 M", tm, tn, 1, 2, RasterOrder::kAlongM);
  }
}
