#pragma once
// Status: what every public entry point returns. A code for programs, a message for
// people. The message names the argument and the rule it broke.
#include <string>
#include <utility>

namespace warpspec {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,   // a value the API can never accept (shape, dtype, null)
  kMisaligned = 2,        // pointer or stride that TMA cannot address
  kUnsupported = 3,       // valid in principle, not built (head dim, dtype pair)
  kNoDevice = 4,          // no CUDA device, or not a Hopper (sm_90) device
  kCudaError = 5,         // the CUDA runtime or driver reported an error
  kInternal = 6,          // a bug in warpspec
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid argument: a.data: must be 16-byte aligned (got 0x...08)"
  std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

Status invalid_argument(std::string message);
Status misaligned(std::string message);
Status unsupported(std::string message);
Status no_device(std::string message);
Status cuda_error(std::string what, int cuda_status);
Status internal_error(std::string message);

}  // namespace warpspec

// Propagate a non-OK Status to the caller.
#define WARPSPEC_RETURN_IF_ERROR(expr)                    \
  do {                                                    \
    ::warpspec::Status warpspec_status_ = (expr);         \
    if (!warpspec_status_.ok()) return warpspec_status_;  \
  } while (0)
