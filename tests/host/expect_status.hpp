#pragma once
// What the validation tests ask of a Status: accepted (on a machine without a Hopper GPU
// the only refusal left is "no device"), or refused with a given code and a message that
// names the argument. gtest assertions, for the host test files.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "warpspec/warpspec.hpp"

namespace warpspec::test {

inline bool accepted(const Status& s) { return s.ok() || s.code() == StatusCode::kNoDevice; }

// warpspec::check(args) refuses with `code`, its message mentioning `needle`.
template <class Args>
void expect_check_refuses(const Args& args, StatusCode code, const std::string& needle) {
  const Status s = warpspec::check(args);
  EXPECT_EQ(s.code(), code) << s.to_string();
  EXPECT_NE(s.message().find(needle), std::string::npos) << "message should mention '" << needle << "': " << s.message();
}

// A GEMM refused by check() with `code`, the message naming `names`, and by gemm() the
// same way (nothing launches on refusal, so the pointers may be fake).
inline void expect_refused(const GemmArgs& g, StatusCode code, const std::string& names) {
  const Status s = check(g);
  EXPECT_EQ(s.code(), code) << s.to_string();
  if (s.ok()) return;  // never run a case the check accepted
  EXPECT_NE(s.message().find(names), std::string::npos) << "message should name '" << names << "': " << s.message();
  const Status r = gemm(g, nullptr);
  EXPECT_EQ(r.code(), s.code());
  EXPECT_EQ(r.message(), s.message());
}

// key=value words of a described line (warpspec::describe, WARPSPEC_LOG_CONFIG).
inline std::map<std::string, std::string> described_words(const std::string& line) {
  std::map<std::string, std::string> out;
  std::istringstream in(line);
  std::string w;
  while (in >> w)
    if (const size_t eq = w.find('='); eq != std::string::npos) out[w.substr(0, eq)] = w.substr(eq + 1);
  return out;
}

}  // namespace warpspec::test
