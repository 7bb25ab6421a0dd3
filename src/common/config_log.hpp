#pragma once
// WARPSPEC_LOG_CONFIG (include/warpspec/describe.hpp): one line per launch on stderr
// saying which configuration the call picked, as DeepGEMM's DG_PRINT_CONFIGS does.
#include <string>

namespace warpspec {

enum class ConfigLog : int { kOff = 0, kEveryCall = 1, kOnce = 2 };

// The value of the variable as a mode: "1" (or any other non-empty value but "0" and
// "once") every call, "once" each distinct line once, unset/""/"0" off.
ConfigLog parse_config_log(const char* value);

// The process's mode, read from the environment once (the first call).
ConfigLog config_log_mode();

// Prints "warpspec: <line>\n" to stderr as one write (lines from threads do not
// interleave); in kOnce mode only lines not printed before.
void log_config(const std::string& line);

// At a launch: `describe` (a callable returning the line) is called only when logging
// is on, so an off switch costs one load.
template <class Describe>
void log_config_if_enabled(Describe&& describe) {
  if (config_log_mode() != ConfigLog::kOff) log_config(describe());
}

}  // namespace warpspec
