#pragma once
// Random values from a hash of (seed, index): reproducible, stateless, the same on the
// host and on the device (constexpr functions are callable from device code under
// --expt-relaxed-constexpr, which every CUDA target of the project compiles with), so a
// device fill and a host check agree without copying the data back.
#include <cstdint>

namespace warpspec::testbed {

// SplitMix64's finaliser: every input bit flips about half the output bits.
constexpr uint64_t mix64(uint64_t x) {
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 32;
  return x;
}

// The hash of element i of the stream `seed` (the golden-ratio stride keeps consecutive
// indices far apart before mixing).
constexpr uint64_t hash64(uint64_t seed, uint64_t i) { return mix64(seed ^ (i * 0x9E3779B97F4A7C15ull)); }

// 24 random bits as a float in [-1, 1).
constexpr float bits_to_unit(uint32_t bits) { return float(bits >> 8) * (2.0f / 16777216.0f) - 1.0f; }

// Uniform in [-1, 1): variance 1/3.
constexpr float hash_uniform(uint64_t seed, uint64_t i) { return bits_to_unit(uint32_t(hash64(seed, i))); }

// The sum of two uniforms, scaled to unit variance: a cheap bell shape in
// (-sqrt(6), sqrt(6)), close enough to a normal for attention inputs (scores of the
// size real models see) with no cuRAND state and no transcendental functions.
constexpr float hash_normalish(uint64_t seed, uint64_t i) {
  const uint64_t x = hash64(seed, i);
  return (bits_to_unit(uint32_t(x)) + bits_to_unit(uint32_t(x >> 32))) * 1.2247449f;
}

}  // namespace warpspec::testbed
