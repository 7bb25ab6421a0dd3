#pragma once
// FP8 attention's V, transposed before the kernel (bench/NOTES.md v102).
//
// The in-kernel pump (v_transpose.cuh) costs FP8 attention 2-7% at long rows: its
// ldmatrix/stmatrix traffic shares shared memory with the wgmmas, and its warps share the
// issue slots (stop 52's diagnostic, a pump that moves nothing: +4.9% at head dim 256 full
// 16k, +4.3% at 128). A call whose queries are many against V's size pays far less for
// one pass over V before the kernel: it writes Vᵀ to the workspace in exactly the layout
// the pump writes to shared memory, and the loader then TMAs each Vᵀ block straight into
// the consumers' ring. The consumers cannot tell the two apart.
//
// The global Vᵀ (VtLayout): per (batch, KV head) a [head_dim][S_pad] e4m3 matrix, S_pad
// = seqlen_k rounded up to 16, with
//   Vᵀ[n][P] = V[fp8_vt_key(P)][fp8_vt_column(n)]   (fp8_layout.hpp; 0 for keys past seqlen_k)
// key and head-dim permutations that act inside 16-groups; every key block starts on a
// multiple of 16 (block_n is), so a block's slice of this matrix is the pump's tile.
// Keys from S_pad on are TMA's zero fill.
//
// Fp8VPath wraps the pump with that choice, a runtime value (AttentionParams::
// v_pretransposed, one per launch): the loader fills the Vᵀ ring itself (VDirect's load,
// from the Vᵀ map), the pump warps return at once, the Vᵀ ring's full barrier takes the
// loader's one arrival. Same calls as VDirect and VTransposePump, so the mainloop and the
// kernel's roles call one V path whatever runs.
#include <cstdint>

#include "warpspec/attention/fp8_layout.hpp"
#include "warpspec/attention/vt_layout.hpp"
#include "warpspec/attention/params.hpp"
#include "warpspec/attention/v_direct.cuh"
#include "warpspec/hopper/host_device.hpp"
#include "warpspec/hopper/tma.cuh"
#include "warpspec/hopper/wgmma_desc.hpp"

namespace warpspec::attention_impl {

// Vᵀ's TMA boxes for one block: K positions are the contiguous dimension, one swizzle
// span (of fp8_vt_layout) per box, all head_dim rows: kBlockN / span boxes, box c at
// column c of the tile (column_bytes apart).
template <int kBlockN, int kHeadDim>
struct VtBoxes {
  static constexpr hopper::WgmmaOperandLayout kTile = fp8_vt_layout(uint32_t(kBlockN), uint32_t(kHeadDim));
  static constexpr int kSpan = int(hopper::wgmma_row_bytes(kTile.swizzle));  // keys per box
  static constexpr int kBoxes = kBlockN / kSpan;
  static_assert(kBlockN % kSpan == 0 && kTile.rows() == uint32_t(kHeadDim), "whole spans of all head-dim rows");

  // The loader thread: the block of keys [key0, key0 + kBlockN) of (head_kv, batch).
  __device__ __forceinline__ static void load(const CUtensorMap* map, uint64_t* bar, void* dst, int key0, int head_kv,
                                              int batch) {
#pragma unroll
    for (int c = 0; c < kBoxes; ++c)
      hopper::tma_load(static_cast<uint8_t*>(dst) + c * kTile.column_bytes(), map, bar, key0 + c * kSpan, 0, head_kv,
                       batch);
  }
};

// The in-kernel pump (`Pump`: VTransposePump) or, where the host transposed V before the
// launch, the loader's own TMA of Vᵀ into the consumers' ring (kVStages deep).
template <class Pump, int kVStages>
struct Fp8VPath {
  static constexpr uint32_t kBlockBytes = Pump::kBlockBytes;
  using Storage = typename Pump::Storage;
  using Direct = VDirect<kVStages, kBlockBytes>;
  struct LoadState {
    typename Pump::LoadState pump;      // the vload ring (in-kernel transpose)
    typename Direct::LoadState direct;  // the Vᵀ ring (transposed before)
  };

  // The Vᵀ ring's full-barrier arrivals: every pump thread, or the loader's expect_tx.
  __device__ __forceinline__ static uint32_t v_full_arrivals(const AttentionParams& p) {
    return p.v_pretransposed ? Direct::kVFullArrivals : Pump::kVFullArrivals;
  }
  __device__ __forceinline__ static void init(Storage& s) { Pump::init(s); }

  // The loader thread: one V block. `issue_v(dst, bar)` issues V's boxes (for the pump's
  // vload ring), `issue_vt(dst, bar)` Vᵀ's (VtBoxes).
  template <class Ctx, class IssueV, class IssueVt>
  __device__ __forceinline__ static void load(Ctx& c, LoadState& st, IssueV&& issue_v, IssueVt&& issue_vt) {
    if (c.p.v_pretransposed)
      Direct::load(c, st.direct, issue_vt);
    else
      Pump::load(c, st.pump, issue_v);
  }

  template <class Ctx>
  __device__ __forceinline__ static void finish(Ctx& c, LoadState& st) {
    if (!c.p.v_pretransposed) Pump::finish(c, st.pump);  // the pump's end marker
  }

  // Producer warps 1-3: the pump, or nothing (`c.pretransposed`).
  template <class Ctx>
  __device__ __forceinline__ static int pump(Ctx& c, int warp) {
    if (c.pretransposed) return 0;
    return Pump::pump(c, warp);
  }
};

// ------------------------------------------------------------------ the pass before

// One CTA of the pass (vt_layout.hpp: VPretransposeParams).
__device__ __forceinline__ void v_pretranspose_block(const VPretransposeParams& p) {
  // Rows padded by 16 bytes: the 16-byte stores stay aligned, the byte reads of one
  // column spread over banks.
  __shared__ alignas(16) uint8_t tile[kVtPassKeys][kVtPassMaxHeadDim + 16];
  const int64_t key0 = int64_t(blockIdx.x) * kVtPassKeys;
  const int h = int(blockIdx.y), b = int(blockIdx.z);
  const int chunks = p.head_dim / 16;  // 16-byte chunks of a V row
  const uint8_t* src = p.v + b * p.v_stride_b + h * p.v_stride_h;
  for (int i = int(threadIdx.x); i < kVtPassKeys * chunks; i += kVtPassThreads) {
    const int r = i / chunks, c = i % chunks;
    const int64_t key = key0 + r;
    uint4 x = make_uint4(0, 0, 0, 0);
    if (key < p.seqlen_k) x = __ldg(reinterpret_cast<const uint4*>(src + key * p.v_stride_s + 16 * c));
    *reinterpret_cast<uint4*>(&tile[r][16 * c]) = x;
  }
  __syncthreads();
  // Vᵀ row n, K positions 16g .. 16g + 15 of this CTA's 64: one 16-byte store each.
  const int64_t row0 = (int64_t(b) * p.layout.heads_kv + h) * p.head_dim;
  for (int i = int(threadIdx.x); i < p.head_dim * (kVtPassKeys / 16); i += kVtPassThreads) {
    const int n = i / (kVtPassKeys / 16), g = i % (kVtPassKeys / 16);
    if (key0 + 16 * g >= p.layout.keys_padded) continue;
    const int col = fp8_vt_column(n);
    uint32_t w[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      uint32_t word = 0;
#pragma unroll
      for (int j = 0; j < 4; ++j) word |= uint32_t(tile[fp8_vt_key(16 * g + 4 * q + j)][col]) << (8 * j);
      w[q] = word;
    }
    *reinterpret_cast<uint4*>(p.vt + (row0 + n) * p.layout.keys_padded + key0 + 16 * g) = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

}  // namespace warpspec::attention_impl
