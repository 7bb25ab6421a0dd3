// Brute force of check_disjoint (src/common/views.cpp) against explicit element sets, for
// two views of one shape and strides at random offsets. Built by hand, not by CMake:
//   g++ -std=c++20 -O1 -include functional -Iinclude -I/usr/local/cuda/include bench/probes/disjoint_bruteforce.cpp \
//     src/common/views.cpp src/status.cpp -L/usr/local/cuda/lib64 -lcudart
// Stop 76: 118,903 nested views, 6,617 meeting: 0 disagreements either way.
#include <cstdio>
#include <random>
#include <set>
#include "../../src/common/views.hpp"
using namespace warpspec;
int main() {
  std::mt19937_64 rng(1);
  long checked = 0, meets = 0, wrong = 0;
  for (int t = 0; t < 200000; ++t) {
    TensorView v; v.dtype = DType::kFP32; v.rank = 1 + rng() % 4;
    for (int i = 0; i < v.rank; ++i) { v.shape[i] = 1 + rng() % 4; v.stride[i] = rng() % 40; }
    if (!check_no_self_overlap(v, "v").ok()) continue;
    std::set<long> els; 
    long idx[4] = {0,0,0,0};
    std::function<void(int,long)> rec = [&](int d, long off) { if (d == v.rank) { els.insert(off); return; } for (long i = 0; i < v.shape[d]; ++i) rec(d+1, off + i * v.stride[d]); };
    rec(0, 0);
    long delta = long(rng() % 200) - 100;
    TensorView w = v;
    v.data = reinterpret_cast<void*>(uintptr_t(1) << 32);
    w.data = reinterpret_cast<void*>((uintptr_t(1) << 32) + delta * 4);
    bool truth = false;
    for (long e : els) if (els.count(e - delta)) { truth = true; break; }
    const bool said = !check_disjoint(v, "v", w, "w", false).ok();
    ++checked; meets += truth;
    if (said != truth) { if (!said && truth) { printf("MISSED overlap rank %d delta %ld\n", v.rank, delta); } ++wrong; }
  }
  printf("checked %ld, meet %ld, disagreements %ld\n", checked, meets, wrong);
}
