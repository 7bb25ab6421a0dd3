#pragma once
// The plain 16-bit cooperative kernels' epilogue (config.hpp writes_fp32_too): D in the
// input's 16-bit type or in fp32, a runtime value (GemmParams::d_fp32). Both are the chunk
// epilogue (gemm/epilogue.cuh) on the same chunk buffers and barriers: a chunk is 128
// bytes a row either way (64 16-bit or 32 fp32 columns), so only the store code and the
// chunk count differ, and the choice is made once per tile, uniformly over the CTA. One
// kernel instead of two per tile, dtype and layout: the build compiles each mainloop once.
#include "warpspec/gemm/epilogue.cuh"
#include "warpspec/gemm/epilogue_direct.cuh"

namespace warpspec::gemm_impl {

template <GemmConfig kCfg>
struct EpilogueD16OrFp32 {
  static constexpr GemmConfig kCfg32 = [] {
    GemmConfig c = kCfg;
    c.out = DType::kFP32;
    return c;
  }();
  using E16 = Epilogue<kCfg>;
  using E32 = Epilogue<kCfg32>;
  static_assert(std::is_same_v<typename E16::Storage, typename E32::Storage>, "one set of chunk buffers");
  using Storage = typename E16::Storage;
  using Pipe = typename E16::Pipe;
  using State = typename E16::State;

  // Epilogue producer: C chunks (C has D's type).
  __device__ __forceinline__ static void load(const GemmParams& p, Pipe& pipe, State& st, Storage& s,
                                              const schedule::KWorkUnit& t) {
    if (p.d_fp32)
      E32::load(p, pipe, st, s, t);
    else
      E16::load(p, pipe, st, s, t);
  }

  // Consumer warpgroup `wg`: its 64 rows of the tile.
  __device__ __forceinline__ static void store(const GemmParams& p, Pipe& pipe, State& st, Storage& s, int wg,
                                               const schedule::KWorkUnit& t, const float (&acc)[kCfg.tile.block_n / 2]) {
    if (p.d_fp32)
      E32::store(p, pipe, st, s, wg, t, acc);
    else
      E16::store(p, pipe, st, s, wg, t, acc);
  }

  __device__ __forceinline__ static void store_tail() { E16::store_tail(); }
};

// The cooperative kernel's epilogue for a configuration: stores from registers (narrow
// tiles, no chunk buffers), either D type at run time (the plain 16-bit tiles), or the
// chunk epilogue of the configuration's D type.
template <GemmConfig kCfg>
using CooperativeEpilogue =
    std::conditional_t<kCfg.tile.epi_stages == 0, DirectEpilogue<kCfg>,
                       std::conditional_t<writes_fp32_too(kCfg), EpilogueD16OrFp32<kCfg>, Epilogue<kCfg>>>;

}  // namespace warpspec::gemm_impl
