#pragma once
// Random choices for the host fuzz tests: one seeded generator per call, so a failing
// call is reproduced by its index alone.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <cstdlib>
#include <limits>
#include <random>

#include "warpspec/tensor.hpp"

namespace warpspec::test {

struct FuzzGen {
  std::mt19937_64 rng;
  explicit FuzzGen(uint64_t seed) : rng(seed) {}
  // One of `values`, uniformly (repeat a value to weight it).
  int64_t pick(std::initializer_list<int64_t> values) {
    std::uniform_int_distribution<size_t> d(0, values.size() - 1);
    return *(values.begin() + d(rng));
  }
  bool coin(double p) { return std::bernoulli_distribution(p)(rng); }
};

// A rank-1 contiguous view of `n` elements at `data`.
inline TensorView fuzz_vector(void* data, int64_t n, DType t = DType::kI32) {
  TensorView v;
  v.data = data, v.dtype = t, v.rank = 1, v.shape[0] = n, v.stride[0] = 1;
  return v;
}

// One stride or extent of `v` replaced by a hostile value.
inline void fuzz_corrupt_extent(FuzzGen& g, TensorView& v) {
  if (v.rank == 0) return;
  const int dim = int(g.pick({0, 1, 2, 3})) % v.rank;
  const int64_t value =
      g.pick({-1, 0, 1, 3, 7, int64_t(1) << 31, int64_t(1) << 40, std::numeric_limits<int64_t>::max()});
  if (g.coin(0.5)) v.stride[dim] = value;
  else v.shape[dim] = value;
}

// Calls a fuzz test makes: `usual`, or WARPSPEC_FUZZ_CALLS for a deeper run by hand.
inline int fuzz_calls(int usual) {
  const char* v = std::getenv("WARPSPEC_FUZZ_CALLS");
  const long n = v != nullptr ? std::strtol(v, nullptr, 10) : 0;
  return n > 0 && n < 100000000 ? int(n) : usual;
}

// An address `offset` bytes past 16-byte-aligned host memory of this process: a data
// pointer that is never dereferenced, which a device check refuses as host memory.
inline void* host_address(uintptr_t offset) {
  alignas(16) static char area[16];
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(area) + offset);
}

}  // namespace warpspec::test
