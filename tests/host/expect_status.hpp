#pragma once
// What the validation tests ask of a Status: accepted (on a machine without a Hopper GPU
// the only refusal left is "no device"), or refused with a given code and a message that
// names the argument. gtest assertions, for the host test files.
#include <gtest/gtest.h>

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

}  // namespace warpspec::test
