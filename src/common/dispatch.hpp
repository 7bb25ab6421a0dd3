#pragma once
// Runtime configuration -> the built instantiation equal to it. Each family keeps one
// explicit list of the configurations it builds (constexpr array `kList`); a .cu file
// instantiates the slice of it that `Slice::keep(cfg)` selects (so instantiations are
// spread over files that compile in parallel), and `Slice::template launch<I>(...)`
// launches the kernel of kList[I].
//
// Kernels are named by their index I, not by the configuration value: a __global__
// template's name must mangle the same in nvcc's device pass and in the host compiler
// (the runtime pairs them by name), and class-type template arguments do not (g++
// drops members equal to their default, and const qualifiers differ), which leaves
// the launch with an invalid resource handle.
#include <cstddef>
#include <string>
#include <utility>

#include "warpspec/status.hpp"

namespace warpspec {

template <const auto& kList, class Slice, class Config, class... Args, std::size_t... I>
Status launch_built_impl(const Config& cfg, std::index_sequence<I...>, Args&&... args) {
  Status result = internal_error(std::string(Slice::kFamily) + ": no kernel is built for this configuration");
  auto try_one = [&]<std::size_t J>(std::integral_constant<std::size_t, J>) {
    constexpr Config kCfg = kList[J];
    if constexpr (!Slice::keep(kCfg)) {
      return false;
    } else {
      if (!(cfg == kCfg)) return false;
      result = Slice::template launch<J>(std::forward<Args>(args)...);
      return true;
    }
  };
  (void)(try_one(std::integral_constant<std::size_t, I>{}) || ...);
  return result;
}

template <const auto& kList, class Slice, class Config, class... Args>
Status launch_built(const Config& cfg, Args&&... args) {
  return launch_built_impl<kList, Slice>(cfg, std::make_index_sequence<std::size(kList)>{},
                                         std::forward<Args>(args)...);
}

}  // namespace warpspec
