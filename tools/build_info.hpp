#pragma once
// What the program knows about its own build (tools/build_info.cpp.in, filled in by CMake).

namespace warpspec::tools {

// The git commit the tree was at when CMake configured it (12 hex digits, "-dirty" when
// tracked files differed), or "unknown" outside a checkout.
const char* build_commit();

}  // namespace warpspec::tools
