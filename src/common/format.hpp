#pragma once
// printf-style formatting into a std::string, for Status messages (which name the
// argument, the rule and the value).
#include <cstdio>
#include <string>

namespace warpspec {

template <class... Args>
std::string fmt(const char* format, Args... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

}  // namespace warpspec
