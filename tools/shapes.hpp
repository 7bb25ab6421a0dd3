#pragma once
// Problem shapes given on the command line: `bench gemm --shape MxNxK`, and
// `--cluster MxN`. Header-only
// (no CLI11) so the host tests check the rules directly.
#include <cstdint>
#include <initializer_list>
#include <string>

namespace warpspec::tools {

// Whether a buffer of `extents` (their product, counted in 128 bits) of `element_bytes`
// each is below 2^48 bytes, past any GPU's memory: the runners refuse a larger problem by
// its options before they allocate (a product of extents would wrap 64 bits first).
inline bool fits_in_memory(std::initializer_list<int64_t> extents, int64_t element_bytes) {
  unsigned __int128 n = static_cast<unsigned __int128>(element_bytes);
  for (int64_t e : extents) {
    if (e < 0) return false;
    n *= static_cast<uint64_t>(e);
    if (n >= (static_cast<unsigned __int128>(1) << 48)) return false;
  }
  return true;
}

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
};

// "MxNxK": three positive integers (at most 2^31-1 each, TMA's coordinate range)
// separated by 'x' or 'X'. Returns an empty string and fills `out` when it parses, else
// the reason, for the usage error.
inline std::string parse_gemm_shape(const std::string& text, GemmShape* out) {
  int64_t v[3] = {0, 0, 0};
  size_t at = 0;
  for (int i = 0; i < 3; ++i) {
    if (at >= text.size() || text[at] < '0' || text[at] > '9')
      return "shape '" + text + "': expected MxNxK, three positive integers (e.g. 4096x4096x4096)";
    int64_t x = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      x = x * 10 + (text[at] - '0');
      if (x > INT32_MAX) return "shape '" + text + "': each extent must be at most 2147483647";
      ++at;
    }
    if (x == 0) return "shape '" + text + "': each extent must be positive";
    v[i] = x;
    if (i < 2) {
      if (at >= text.size() || (text[at] != 'x' && text[at] != 'X'))
        return "shape '" + text + "': expected MxNxK, three positive integers (e.g. 4096x4096x4096)";
      ++at;
    }
  }
  if (at != text.size()) return "shape '" + text + "': expected MxNxK, three positive integers (e.g. 4096x4096x4096)";
  out->m = v[0], out->n = v[1], out->k = v[2];
  return "";
}

// A thread-block cluster, `--cluster MxN`: "auto" (0 x 0: the library chooses) or two
// integers 1..8 separated by 'x' (the library refuses what it does not build, by name).
// Returns an empty string and fills `m`, `n` when it parses, else the reason.
inline std::string parse_cluster(const std::string& text, int* m, int* n) {
  if (text == "auto") {
    *m = *n = 0;
    return "";
  }
  const std::string usage = "cluster '" + text + "': expected auto or MxN, CTAs along M and N (1x1, 2x1 or 1x2)";
  if (text.size() != 3 || (text[1] != 'x' && text[1] != 'X') || text[0] < '1' || text[0] > '8' || text[2] < '1' ||
      text[2] > '8')
    return usage;
  *m = text[0] - '0';
  *n = text[2] - '0';
  return "";
}

}  // namespace warpspec::tools
