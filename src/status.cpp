#include "warpspec/status.hpp"

#include <cuda_runtime_api.h>

namespace warpspec {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kMisaligned: return "misaligned";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kNoDevice: return "no usable device";
    case StatusCode::kCudaError: return "CUDA error";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown status";
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  return std::string(status_code_name(code_)) + ": " + message_;
}

Status invalid_argument(std::string message) { return {StatusCode::kInvalidArgument, std::move(message)}; }
Status misaligned(std::string message) { return {StatusCode::kMisaligned, std::move(message)}; }
Status unsupported(std::string message) { return {StatusCode::kUnsupported, std::move(message)}; }
Status no_device(std::string message) { return {StatusCode::kNoDevice, std::move(message)}; }
Status internal_error(std::string message) { return {StatusCode::kInternal, std::move(message)}; }

Status cuda_error(std::string what, int cuda_status) {
  auto err = static_cast<cudaError_t>(cuda_status);
  return {StatusCode::kCudaError,
          what + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")"};
}

}  // namespace warpspec
