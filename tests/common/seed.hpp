#pragma once
// Seeds of the random test data: fresh per case, so every run draws new data, and
// injectable to replay a failure. Every test reports its seed through
// SCOPED_TRACE(seed_note(seed)), which gtest prints with any failure in scope:
//   "seed 1234 (replay: WARPSPEC_TEST_SEED=1234 --gtest_filter=<the test>)".
// With WARPSPEC_TEST_SEED set, fresh_seed() returns that value on every call, so the
// failing case (and every other case of the test) draws the data it drew then.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

namespace warpspec::test {

inline uint64_t fresh_seed() {
  if (const char* env = std::getenv("WARPSPEC_TEST_SEED"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 0);
    if (end != nullptr && *end == '\0') return uint64_t(v);
    ADD_FAILURE() << "WARPSPEC_TEST_SEED=" << env << " is not a number; drawing a fresh seed";
  }
  static std::random_device rd;
  return (uint64_t(rd()) << 32) ^ rd();
}

inline std::string seed_note(uint64_t seed) {
  const std::string s = std::to_string(seed);
  return "seed " + s + " (replay: WARPSPEC_TEST_SEED=" + s + ")";
}

}  // namespace warpspec::test
