#include "config_log.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_set>

namespace warpspec {

ConfigLog parse_config_log(const char* value) {
  if (value == nullptr || value[0] == '\0' || std::strcmp(value, "0") == 0) return ConfigLog::kOff;
  if (std::strcmp(value, "once") == 0) return ConfigLog::kOnce;
  return ConfigLog::kEveryCall;
}

ConfigLog config_log_mode() {
  static const ConfigLog mode = parse_config_log(std::getenv("WARPSPEC_LOG_CONFIG"));
  return mode;
}

void log_config(const std::string& line) {
  if (config_log_mode() == ConfigLog::kOnce) {
    static std::mutex mutex;
    static std::unordered_set<std::string> printed;
    std::lock_guard<std::mutex> lock(mutex);
    if (!printed.insert(line).second) return;
  }
  const std::string text = "warpspec: " + line + "\n";
  // One write(2): stdio may split a long line across buffers shared with other threads.
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n <= 0) return;
    p += n;
    left -= size_t(n);
  }
}

}  // namespace warpspec
