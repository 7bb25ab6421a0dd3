#pragma once
// A small JSON writer for the program's --json records. Written by hand: Debian's
// nlohmann-json is not among the build's dependencies, and the records need only
// objects, arrays, strings and numbers written in order. Header-only so the host tests
// check the exact text the program prints.
//
// Rules kept here: strings are escaped per RFC 8259 (quote, backslash, control
// characters as \uXXXX; bytes >= 0x80 pass through, so UTF-8 stays UTF-8); numbers are
// written with 17 significant digits (a double round-trips) and a NaN or infinity,
// which JSON cannot say, is written as null.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace warpspec::tools::json {

inline std::string quote(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

inline std::string number(double x) {
  if (!std::isfinite(x)) return "null";
  if (x == std::floor(x) && std::fabs(x) < 1e15) {  // integral values without an exponent or ".0"
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", x);
    return buf;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

inline std::string number(int64_t x) { return std::to_string(x); }
inline std::string number(int x) { return std::to_string(x); }

// An object whose members keep the order they were added in.
class Object {
 public:
  Object& str(std::string_view key, std::string_view value) { return raw(key, quote(value)); }
  Object& num(std::string_view key, double value) { return raw(key, number(value)); }
  Object& num(std::string_view key, int64_t value) { return raw(key, number(value)); }
  Object& num(std::string_view key, int value) { return raw(key, number(value)); }
  Object& boolean(std::string_view key, bool value) { return raw(key, value ? "true" : "false"); }
  Object& null(std::string_view key) { return raw(key, "null"); }
  Object& obj(std::string_view key, const Object& value) { return raw(key, value.text()); }
  // `json` must already be one JSON value.
  Object& raw(std::string_view key, std::string_view json) {
    if (!body_.empty()) body_ += ",";
    body_ += quote(key);
    body_ += ":";
    body_ += json;
    return *this;
  }
  std::string text() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

inline std::string array(const std::vector<std::string>& json_values) {
  std::string out = "[";
  for (size_t i = 0; i < json_values.size(); ++i) out += (i ? "," : "") + json_values[i];
  return out + "]";
}

}  // namespace warpspec::tools::json
