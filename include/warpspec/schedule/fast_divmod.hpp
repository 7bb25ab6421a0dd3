#pragma once
// FastDivmod: division by a divisor fixed at construction, as one widening multiply and
// one shift. Schedulers run their index maths once per tile in every CTA; an integer
// `/` on the GPU is a ~20-instruction software routine, this is two.
//
// Header-only and free of CUDA headers so the host tests build it with g++ alone.
#include <cstdint>

// Schedulers are value types used on both sides: built on the host, walked in the
// kernel (WARPSPEC_HOST_DEVICE: hopper/host_device.hpp).
#include "warpspec/hopper/host_device.hpp"

namespace warpspec::schedule {

// ceil(log2(x)) for x >= 1, by a loop: construction-time only, and constexpr-friendly.
WARPSPEC_HOST_DEVICE constexpr uint32_t ceil_log2(uint32_t x) {
  uint32_t s = 0;
  while ((uint64_t{1} << s) < x) ++s;
  return s;
}

// Division of a dividend n in [0, 2^31) by a divisor d in [1, 2^31).
//
// Method (Granlund & Montgomery, "Division by invariant integers using
// multiplication", 1994): with s = ceil(log2 d) and k = 31 + s, take
// m = ceil(2^k / d). Then floor(n * m / 2^k) == floor(n / d) for every n < 2^31:
// write m*d = 2^k + e with 0 <= e < d and n = q*d + r; n*m / 2^k = q + (r + n*e/2^k)/d,
// and n*e/2^k < 2^31 * d / 2^(31+s) <= 1, so the fraction stays below (r+1)/d <= 1.
// m < 2^32 for every d (its largest value, d = 2^(s-1)+1, gives just under 2^32), so
// the multiplier is 32 bits and n*m fits in 63 bits: on the GPU one IMAD.WIDE.U32 and
// one funnel shift, with no special case for d = 1 (m = 2^31, k = 31) or powers of two.
// The 31-bit dividend limit is why schedulers keep their counts in int32 and check
// them against INT32_MAX on the host.
class FastDivmod {
 public:
  FastDivmod() = default;

  // Construction divides once, 64-bit; do it on the host (or once per kernel).
  WARPSPEC_HOST_DEVICE explicit FastDivmod(uint32_t divisor) : divisor_(divisor) {
    const uint32_t s = ceil_log2(divisor);
    shift_ = 31 + s;
    multiplier_ = static_cast<uint32_t>(((uint64_t{1} << shift_) + divisor - 1) / divisor);
  }

  WARPSPEC_HOST_DEVICE uint32_t divisor() const { return divisor_; }
  // For divisors >= 2 the shift is >= 32, so floor(n / d) is also the high word of the
  // 32 x 32 product shifted right by shift - 32: one register less than the 64-bit
  // product where registers are scarce (attention's chunk mask).
  WARPSPEC_HOST_DEVICE uint32_t multiplier() const { return multiplier_; }
  WARPSPEC_HOST_DEVICE uint32_t high_shift() const { return shift_ >= 32 ? shift_ - 32 : 0; }

  // floor(n / d). n must be below 2^31.
  WARPSPEC_HOST_DEVICE uint32_t div(uint32_t n) const {
    return static_cast<uint32_t>((static_cast<uint64_t>(n) * multiplier_) >> shift_);
  }

  // quotient = n / d, remainder = n % d: the remainder costs one more multiply-add.
  WARPSPEC_HOST_DEVICE void divmod(uint32_t n, uint32_t& quotient, uint32_t& remainder) const {
    quotient = div(n);
    remainder = n - quotient * divisor_;
  }

 private:
  uint32_t divisor_ = 1;
  uint32_t multiplier_ = 1u << 31;  // the d = 1 values, so a default object divides by 1
  uint32_t shift_ = 31;
};

}  // namespace warpspec::schedule
