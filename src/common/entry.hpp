#pragma once
// The two public entry points every kernel family has, from the family's
// `prepare(args, Prepared*)` (validation and planning: everything that can fail before
// a launch) and `launch(const Prepared&, stream)`: check() prepares only, run()
// prepares and launches. Refusals are therefore the same, and nothing is launched or
// written when prepare refuses.
#include <cuda_runtime_api.h>

#include "launch.hpp"
#include "warpspec/status.hpp"

namespace warpspec {

// Everything a launch needs, derived from validated arguments: the family's plan
// (normalised problem and kernel choice), the kernel parameters and the launch shape.
template <class Plan, class Params>
struct PreparedLaunch {
  Plan plan;
  Params params{};
  LaunchShape shape;
};

template <class Prepared, class Args, class Prepare>
Status check_only(const Args& args, Prepare&& prepare) {
  Prepared p;
  return prepare(args, &p);
}

template <class Prepared, class Args, class Prepare, class Launch>
Status prepare_and_launch(const Args& args, cudaStream_t stream, Prepare&& prepare, Launch&& launch) {
  Prepared p;
  WARPSPEC_RETURN_IF_ERROR(prepare(args, &p));
  return launch(p, stream);
}

}  // namespace warpspec
