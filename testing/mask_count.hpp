#pragma once
// How many (query, key) pairs attention computes, for FLOP counts: all sq * sk, or under
// the causal mask those it leaves visible. The mask is aligned to the bottom-right corner
// (FlashAttention's convention, and ours): query i sees key j iff j <= i + sk - sq, so
// with sq > sk the first sq - sk queries see nothing and with sq < sk every query sees at
// least sk - sq + 1 keys. "Half of sq * sk" is right only for sq == sk, and then only
// approximately (it is sq * (sq + 1) / 2).
#include <algorithm>
#include <cstdint>

namespace warpspec::testbed {

constexpr double attention_pairs(int64_t sq, int64_t sk, bool causal) {
  if (sq <= 0 || sk <= 0) return 0.0;
  if (!causal) return double(sq) * double(sk);
  // Query i sees v(i) = clamp(i + 1 + sk - sq, 0, sk) keys: none before i0, then one
  // more per query, and all sk at the last query (i1 = sq - 1) only, as v(sq - 1) = sk.
  const int64_t shift = sk - sq;
  const int64_t i0 = std::max<int64_t>(-shift, 0);  // first query that sees a key (<= i1 as sk >= 1)
  const int64_t i1 = sq - 1;
  // Queries i0 .. i1 - 1 see i0 + 1 + shift, ..., i1 + shift keys: an arithmetic series.
  const double first = double(i0 + 1 + shift), last = double(i1 + shift), n = double(i1 - i0);
  return (first + last) * n / 2 + double(sq - i1) * double(sk);
}

// With a sliding window too (window_left / window_right, -1 unbounded; causal sets the
// right edge to 0): query i sees keys max(0, i + sk - sq - left) .. min(sk - 1, i + sk -
// sq + right). Summed row by row (O(sq)): exact for any window.
inline double attention_pairs(int64_t sq, int64_t sk, bool causal, int64_t left, int64_t right) {
  if (sq <= 0 || sk <= 0) return 0.0;
  if (causal) right = 0;
  if (left < 0 && right < 0) return attention_pairs(sq, sk, false);
  double pairs = 0;
  for (int64_t i = 0; i < sq; ++i) {
    const int64_t lo = left < 0 ? 0 : std::max<int64_t>(0, i + sk - sq - left);
    const int64_t hi = right < 0 ? sk - 1 : std::min<int64_t>(sk - 1, i + sk - sq + right);
    if (hi >= lo) pairs += double(hi - lo + 1);
  }
  return pairs;
}

}  // namespace warpspec::testbed
