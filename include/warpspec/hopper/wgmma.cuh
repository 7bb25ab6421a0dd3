#pragma once
// wgmma (warpgroup MMA, sm_90a): fence / commit / wait, and mma_async for
//   m64nNk16  bf16 x bf16, fp16 x fp16 -> f32      (A and B K-major or MN-major)
//   m64nNk32  e4m3 x e4m3, e5m2 x e5m2, and mixed  -> f32  (K-major only: PTX has no trans for 8-bit)
// for every N = 8..256 step 8, with A from shared memory (SS, a descriptor) or from
// registers (RS), B always from shared memory. Rules: HOPPER-FACTS §4.
//
// The asm itself is generated for every shape in hopper/wgmma_asm.cuh.
//
// Everything is __forceinline__: a wgmma in a call that is not inlined is serialized
// (ptxas C7510), which the build's ptxas gate rejects.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>

#include "warpspec/hopper/arch.cuh"
#include "warpspec/hopper/convert.cuh"
#include "warpspec/hopper/fp8_a_fragment.hpp"
#include "warpspec/hopper/wgmma_asm.cuh"
#include "warpspec/hopper/wgmma_desc.hpp"

namespace warpspec::hopper {

// ------------------------------------------------------------------ ordering

// Required before the first wgmma, and again whenever other instructions wrote the
// accumulators or A registers since (PTX "wgmma.fence"). Not needed between
// back-to-back wgmmas on the same accumulators.
WARPSPEC_DEVICE void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }

// Close the group of wgmmas issued since the last commit.
WARPSPEC_DEVICE void wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }

// Wait until at most kPending of this warpgroup's committed groups are unfinished.
// Groups retire in order, so kPending = 0 means every wgmma issued so far is done.
template <int kPending>
WARPSPEC_DEVICE void wgmma_wait_group() {
  static_assert(kPending >= 0 && kPending <= 7, "wgmma.wait_group takes 0..7");
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

// A compiler-only barrier on each register of an operand array: the compiler may not
// move reads or writes of these registers across it. wgmma writes its accumulators
// behind the compiler's back until wait_group, so fence them after the wait (before
// reading) and before the wgmma.fence (after the last write); otherwise ordinary code
// can be scheduled into the async window (ptxas C7514/C7515, or wrong values).
template <class U, int R>
WARPSPEC_DEVICE void wgmma_fence_operands(U (&regs)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) {
    if constexpr (sizeof(U) == 4 && std::is_floating_point_v<U>) {
      asm volatile("" : "+f"(regs[i])::"memory");
    } else {
      static_assert(sizeof(U) == 4, "wgmma operands are 32-bit registers");
      asm volatile("" : "+r"(regs[i])::"memory");
    }
  }
}

// ------------------------------------------------------------------ input types

// Per input type: bytes per element and the instruction K (one instruction always
// consumes 32 bytes of K). Only these four types are wgmma inputs here.
template <class T>
struct WgmmaInput;
template <>
struct WgmmaInput<__nv_bfloat16> {
  static constexpr int kBytes = 2, kK = 16;
};
template <>
struct WgmmaInput<__half> {
  static constexpr int kBytes = 2, kK = 16;
};
template <>
struct WgmmaInput<__nv_fp8_e4m3> {
  static constexpr int kBytes = 1, kK = 32;
};
template <>
struct WgmmaInput<__nv_fp8_e5m2> {
  static constexpr int kBytes = 1, kK = 32;
};

// ------------------------------------------------------------------ public API

template <int N, class T>
WARPSPEC_DEVICE constexpr void wgmma_check_shape() {
  static_assert(N >= 8 && N <= 256 && N % 8 == 0, "wgmma: N must be 8..256 in steps of 8");
  static_assert(WgmmaInput<T>::kBytes > 0, "wgmma: input type must be bf16, fp16, e4m3 or e5m2");
}

// D(64 x N, f32) = A(64 x K) * B(K x N) [+ D], one instruction (K = 16 for 16-bit
// inputs, 32 for 8-bit), A and B from shared memory. `d` is the warpgroup's
// accumulator fragment: thread t holds d[i] at row 16*(t/32) + (t%32)/4 + 8*((i>>1)&1),
// column 8*(i>>2) + 2*(t%4) + (i&1). `accumulate` false overwrites D (runtime
// predicate). kMajorA/kMajorB = Major::kMN set imm-trans (M-major A / N-major B);
// 16-bit inputs only. TB, B's type when it differs from A's: 8-bit only (e4m3 x e5m2
// either way round). All 128 threads of the warpgroup call it with the same
// descriptors (.sync.aligned: never under a lane-divergent branch).
template <int N, class T, Major kMajorA = Major::kK, Major kMajorB = Major::kK, class TB = T>
WARPSPEC_DEVICE void mma_async(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, bool accumulate) {
  wgmma_check_shape<N, T>();
  static_assert(WgmmaInput<T>::kBytes == 2 || (kMajorA == Major::kK && kMajorB == Major::kK),
                "wgmma: MN-major (transposed) operands exist only for bf16/fp16; 8-bit inputs are K-major");
  static_assert(std::is_same_v<T, TB> || (WgmmaInput<T>::kBytes == 1 && WgmmaInput<TB>::kBytes == 1),
                "wgmma: A and B differ only between the two 8-bit formats");
  using Tag = std::conditional_t<std::is_same_v<T, TB>, detail::InputTag<T>, detail::InputTag<detail::Mixed<T, TB>>>;
#if defined(__CUDA_ARCH__)
  detail::WgmmaAsm<N>::template ss<int(kMajorA), int(kMajorB)>(d, desc_a, desc_b, accumulate ? 1u : 0u, Tag{});
#endif
}

// RS form: A from registers, `a` = the thread's A fragment for this k-step (4 x 32-bit:
// for 16-bit, a[r] holds row 16w + g + 8(r&1), k = 8(r>>1) + 2q + {0,1}, low half =
// lower k; for 8-bit, k = 16(r>>1) + 4q + {0..3}, lowest byte = lowest k; w = warp,
// g = lane/4, q = lane%4). Only B has a major-ness here. Do not touch `a` until the
// wgmma's group has been waited on.
template <int N, class T, Major kMajorB = Major::kK>
WARPSPEC_DEVICE void mma_async(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc_b, bool accumulate) {
  wgmma_check_shape<N, T>();
  static_assert(WgmmaInput<T>::kBytes == 2 || kMajorB == Major::kK,
                "wgmma: an N-major B exists only for bf16/fp16; 8-bit inputs are K-major");
#if defined(__CUDA_ARCH__)
  detail::WgmmaAsm<N>::template rs<int(kMajorB)>(d, a, desc_b, accumulate ? 1u : 0u, detail::InputTag<T>{});
#endif
}

// Pack accumulator columns into the A fragment of an RS wgmma (k-step `k_slice`),
// rounding to T: FA3's reuse of S as P in P*V, no shuffles in either width.
// - 16-bit (bf16/fp16, round-to-nearest-even): k-slice s is columns 16s .. 16s+15. The
//   accumulator and A layouts agree thread by thread (HOPPER-FACTS §4 "FA3 P reuse"),
//   so a[r] = pack(d[8s + 2r], d[8s + 2r + 1]) and k position k holds column 16s + k.
// - 8-bit (e4m3/e5m2, round-to-nearest, saturating): k-slice s is columns 32s ..
//   32s+31. Byte b of a[r] is d[fp8_a_source(s, r, b)] (fp8_a_fragment.hpp), so k
//   position 16h + k (h = 0, 1) holds column 32s + 16h + fp8_a_key(k): the keys are
//   permuted inside each group of 16 (σ). The B operand must hold the same
//   permutation along K (the FP8 V transpose writes Vᵀ that way).
// `k_slice` must be a compile-time constant after unrolling (register arrays are
// indexed with it).
template <class T, int R>
WARPSPEC_DEVICE void accum_to_a_fragment(const float (&d)[R], int k_slice, uint32_t (&a)[4]) {
  static_assert(kIs16Bit<T> || kIs8Bit<T>, "accum_to_a_fragment: bf16, fp16, e4m3 or e5m2");
  constexpr int kRegsPerSlice = 2 * WgmmaInput<T>::kK / 4;  // K columns / 4 threads of a row, x 2 rows
  static_assert(R % kRegsPerSlice == 0, "accum_to_a_fragment: the accumulator must cover whole k-slices");
  if constexpr (kIs16Bit<T>) {
#pragma unroll
    for (int r = 0; r < 4; ++r) a[r] = pack2<T>(d[8 * k_slice + 2 * r], d[8 * k_slice + 2 * r + 1]);
  } else {
#pragma unroll
    for (int r = 0; r < 4; ++r)
      a[r] = pack4<T>(d[fp8_a_source(k_slice, r, 0)], d[fp8_a_source(k_slice, r, 1)],
                      d[fp8_a_source(k_slice, r, 2)], d[fp8_a_source(k_slice, r, 3)]);
  }
}

}  // namespace warpspec::hopper
