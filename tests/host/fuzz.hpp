#pragma once
// Random choices for the host fuzz tests: one seeded generator per call, so a failing
// call is reproduced by its index alone.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <cstdlib>
#include <random>

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
