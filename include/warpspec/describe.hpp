#pragma once
// Which kernel configuration a call picks, without launching it. Part of the public API
// (warpspec.hpp).
//
// describe() validates exactly as check() does (the same refusals, a Hopper device
// included) and then writes one line: the problem as the kernel sees it, the kernel
// (tile, pipeline stages, cluster; the head-dim kernel for attention) and the schedule
// (raster order and swizzle or tile order, work tiles, grid). It is the line a launch of
// the same arguments prints when WARPSPEC_LOG_CONFIG is set, on a stream that is not being
// captured (an attention call in L2 sections runs the static schedule without them while
// its stream is captured, and its launch prints that):
//
//   WARPSPEC_LOG_CONFIG=1     every gemm() / attention_forward() call prints its line to
//                             stderr, prefixed "warpspec: "
//   WARPSPEC_LOG_CONFIG=once  each distinct line once per process (decode loops)
//   unset, empty or 0         nothing (the default); read once, at the first call
//
// The line is `family key=value key=value ...` (no spaces inside a value), e.g.
//   gemm m=4096 n=4096 k=4096 l=1 in=bf16 out=bf16 a=k-major b=k-major swapped=0 tile=128x256x64
//   stages=3 epi_stages=4 cluster=1x1 raster=along_n swizzle=8 decomposition=data_parallel
//   splits=1 tiles=512 grid=132 k_tiles=64 pdl=0
// for a script to split; the keys are listed in README.md ("Which kernel ran").
#include <string>

#include "warpspec/attention_api.hpp"
#include "warpspec/gemm_api.hpp"
#include "warpspec/status.hpp"

namespace warpspec {

Status describe(const GemmArgs& args, std::string* out);
Status describe(const AttentionArgs& args, std::string* out);

}  // namespace warpspec
