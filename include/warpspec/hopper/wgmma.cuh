#pragma once
// wgmma (warpgroup MMA, sm_90a): fence / commit / wait, and mma_async for
//   m64nNk16  bf16 x bf16, fp16 x fp16 -> f32      (A and B K-major or MN-major)
//   m64nNk32  e4m3 x e4m3, e5m2 x e5m2 -> f32      (K-major only: PTX has no trans for 8-bit)
// for every N = 8..256 step 8, with A from shared memory (SS, a descriptor) or from
// registers (RS), B always from shared memory. Rules: HOPPER-FACTS §4.
//
// Inline asm needs a literal string naming exactly N/2 accumulator operands, so the
// shapes are generated: one counting table below gives operand numbers, repetition
// macros turn it into the "%i" text and the "+f"(d[i]) list, and one shape macro
// stamps out the asm for each N. Nothing here is written per shape.
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

// ------------------------------------------------------------------ generated asm
//
// Operand numbering in every asm below: the N/2 accumulators "+f"(d[i]) are %0 ..
// %(N/2 - 1); the inputs follow at t0, t1, ... = N/2, N/2 + 1, ...:
//   SS 16-bit: desc_a t0, desc_b t1, scale_d t2, trans_a t3, trans_b t4
//   SS  8-bit: desc_a t0, desc_b t1, scale_d t2
//   RS 16-bit: a0..a3 t0..t3, desc_b t4, scale_d t5, trans_b t6
//   RS  8-bit: a0..a3 t0..t3, desc_b t4, scale_d t5
// scale-d is a runtime predicate (false: D = A*B, true: D += A*B), set inside the asm
// from a register; imm-scale-a/b are fixed at 1 (no negation is offered).
//
// The counting table. WARPSPEC_WGMMA_Qb is block b of four operand numbers (4b..4b+3).
// An m64nN f32 accumulator is N/2 = 4k registers with k = N/8, so it is blocks
// 0..k-1: WARPSPEC_WGMMA_ACC_k(F, M) applies F to number 0 and M to 1..4k-1 (F and M
// differ only in the leading separator). The inputs' numbers are blocks k and k+1.
#define WARPSPEC_WGMMA_Q0 0, 1, 2, 3
#define WARPSPEC_WGMMA_Q1 4, 5, 6, 7
#define WARPSPEC_WGMMA_Q2 8, 9, 10, 11
#define WARPSPEC_WGMMA_Q3 12, 13, 14, 15
#define WARPSPEC_WGMMA_Q4 16, 17, 18, 19
#define WARPSPEC_WGMMA_Q5 20, 21, 22, 23
#define WARPSPEC_WGMMA_Q6 24, 25, 26, 27
#define WARPSPEC_WGMMA_Q7 28, 29, 30, 31
#define WARPSPEC_WGMMA_Q8 32, 33, 34, 35
#define WARPSPEC_WGMMA_Q9 36, 37, 38, 39
#define WARPSPEC_WGMMA_Q10 40, 41, 42, 43
#define WARPSPEC_WGMMA_Q11 44, 45, 46, 47
#define WARPSPEC_WGMMA_Q12 48, 49, 50, 51
#define WARPSPEC_WGMMA_Q13 52, 53, 54, 55
#define WARPSPEC_WGMMA_Q14 56, 57, 58, 59
#define WARPSPEC_WGMMA_Q15 60, 61, 62, 63
#define WARPSPEC_WGMMA_Q16 64, 65, 66, 67
#define WARPSPEC_WGMMA_Q17 68, 69, 70, 71
#define WARPSPEC_WGMMA_Q18 72, 73, 74, 75
#define WARPSPEC_WGMMA_Q19 76, 77, 78, 79
#define WARPSPEC_WGMMA_Q20 80, 81, 82, 83
#define WARPSPEC_WGMMA_Q21 84, 85, 86, 87
#define WARPSPEC_WGMMA_Q22 88, 89, 90, 91
#define WARPSPEC_WGMMA_Q23 92, 93, 94, 95
#define WARPSPEC_WGMMA_Q24 96, 97, 98, 99
#define WARPSPEC_WGMMA_Q25 100, 101, 102, 103
#define WARPSPEC_WGMMA_Q26 104, 105, 106, 107
#define WARPSPEC_WGMMA_Q27 108, 109, 110, 111
#define WARPSPEC_WGMMA_Q28 112, 113, 114, 115
#define WARPSPEC_WGMMA_Q29 116, 117, 118, 119
#define WARPSPEC_WGMMA_Q30 120, 121, 122, 123
#define WARPSPEC_WGMMA_Q31 124, 125, 126, 127
#define WARPSPEC_WGMMA_Q32 128, 129, 130, 131
#define WARPSPEC_WGMMA_Q33 132, 133, 134, 135
#define WARPSPEC_WGMMA_ACC_1(F, M) F(0) M(1) M(2) M(3)
#define WARPSPEC_WGMMA_ACC_2(F, M) WARPSPEC_WGMMA_ACC_1(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q1)
#define WARPSPEC_WGMMA_ACC_3(F, M) WARPSPEC_WGMMA_ACC_2(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q2)
#define WARPSPEC_WGMMA_ACC_4(F, M) WARPSPEC_WGMMA_ACC_3(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q3)
#define WARPSPEC_WGMMA_ACC_5(F, M) WARPSPEC_WGMMA_ACC_4(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q4)
#define WARPSPEC_WGMMA_ACC_6(F, M) WARPSPEC_WGMMA_ACC_5(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q5)
#define WARPSPEC_WGMMA_ACC_7(F, M) WARPSPEC_WGMMA_ACC_6(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q6)
#define WARPSPEC_WGMMA_ACC_8(F, M) WARPSPEC_WGMMA_ACC_7(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q7)
#define WARPSPEC_WGMMA_ACC_9(F, M) WARPSPEC_WGMMA_ACC_8(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q8)
#define WARPSPEC_WGMMA_ACC_10(F, M) WARPSPEC_WGMMA_ACC_9(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q9)
#define WARPSPEC_WGMMA_ACC_11(F, M) WARPSPEC_WGMMA_ACC_10(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q10)
#define WARPSPEC_WGMMA_ACC_12(F, M) WARPSPEC_WGMMA_ACC_11(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q11)
#define WARPSPEC_WGMMA_ACC_13(F, M) WARPSPEC_WGMMA_ACC_12(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q12)
#define WARPSPEC_WGMMA_ACC_14(F, M) WARPSPEC_WGMMA_ACC_13(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q13)
#define WARPSPEC_WGMMA_ACC_15(F, M) WARPSPEC_WGMMA_ACC_14(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q14)
#define WARPSPEC_WGMMA_ACC_16(F, M) WARPSPEC_WGMMA_ACC_15(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q15)
#define WARPSPEC_WGMMA_ACC_17(F, M) WARPSPEC_WGMMA_ACC_16(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q16)
#define WARPSPEC_WGMMA_ACC_18(F, M) WARPSPEC_WGMMA_ACC_17(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q17)
#define WARPSPEC_WGMMA_ACC_19(F, M) WARPSPEC_WGMMA_ACC_18(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q18)
#define WARPSPEC_WGMMA_ACC_20(F, M) WARPSPEC_WGMMA_ACC_19(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q19)
#define WARPSPEC_WGMMA_ACC_21(F, M) WARPSPEC_WGMMA_ACC_20(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q20)
#define WARPSPEC_WGMMA_ACC_22(F, M) WARPSPEC_WGMMA_ACC_21(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q21)
#define WARPSPEC_WGMMA_ACC_23(F, M) WARPSPEC_WGMMA_ACC_22(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q22)
#define WARPSPEC_WGMMA_ACC_24(F, M) WARPSPEC_WGMMA_ACC_23(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q23)
#define WARPSPEC_WGMMA_ACC_25(F, M) WARPSPEC_WGMMA_ACC_24(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q24)
#define WARPSPEC_WGMMA_ACC_26(F, M) WARPSPEC_WGMMA_ACC_25(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q25)
#define WARPSPEC_WGMMA_ACC_27(F, M) WARPSPEC_WGMMA_ACC_26(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q26)
#define WARPSPEC_WGMMA_ACC_28(F, M) WARPSPEC_WGMMA_ACC_27(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q27)
#define WARPSPEC_WGMMA_ACC_29(F, M) WARPSPEC_WGMMA_ACC_28(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q28)
#define WARPSPEC_WGMMA_ACC_30(F, M) WARPSPEC_WGMMA_ACC_29(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q29)
#define WARPSPEC_WGMMA_ACC_31(F, M) WARPSPEC_WGMMA_ACC_30(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q30)
#define WARPSPEC_WGMMA_ACC_32(F, M) WARPSPEC_WGMMA_ACC_31(F, M) WARPSPEC_WGMMA_EACH(M, WARPSPEC_WGMMA_Q31)
#define WARPSPEC_WGMMA_EACH(M, ...) WARPSPEC_WGMMA_EACH_(M, __VA_ARGS__)
#define WARPSPEC_WGMMA_EACH_(M, a, b, c, d) M(a) M(b) M(c) M(d)

// Accumulator text and operands, first element without the separator.
#define WARPSPEC_WGMMA_STR0(i) "%" #i
#define WARPSPEC_WGMMA_STR(i) ", %" #i
#define WARPSPEC_WGMMA_OP0(i) "+f"(d[i])
#define WARPSPEC_WGMMA_OP(i) , "+f"(d[i])

// The predicate prologue and the instruction head shared by all four forms.
#define WARPSPEC_WGMMA_HEAD(N, K, TY, ACC, tp)                                    \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %" #tp ", 0;\n"                              \
  "wgmma.mma_async.sync.aligned.m64n" #N "k" #K ".f32." TY "." TY " {" ACC(    \
      WARPSPEC_WGMMA_STR0, WARPSPEC_WGMMA_STR) "}, "

#define WARPSPEC_WGMMA_SS16(N, TY, ACC, t0, t1, t2, t3, t4, ...)                                  \
  asm volatile(WARPSPEC_WGMMA_HEAD(N, 16, TY, ACC, t2) "%" #t0 ", %" #t1 ", p, 1, 1, %" #t3       \
               ", %" #t4 ";\n}\n"                                                                 \
               : ACC(WARPSPEC_WGMMA_OP0, WARPSPEC_WGMMA_OP)                                       \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(kTransA), "n"(kTransB))
#define WARPSPEC_WGMMA_SS8(N, TY, ACC, t0, t1, t2, ...)                                           \
  asm volatile(WARPSPEC_WGMMA_HEAD(N, 32, TY, ACC, t2) "%" #t0 ", %" #t1 ", p, 1, 1;\n}\n"         \
               : ACC(WARPSPEC_WGMMA_OP0, WARPSPEC_WGMMA_OP)                                       \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d))
#define WARPSPEC_WGMMA_RS16(N, TY, ACC, t0, t1, t2, t3, t4, t5, t6, ...)                          \
  asm volatile(WARPSPEC_WGMMA_HEAD(N, 16, TY, ACC, t5) "{%" #t0 ", %" #t1 ", %" #t2 ", %" #t3     \
               "}, %" #t4 ", p, 1, 1, %" #t6 ";\n}\n"                                            \
               : ACC(WARPSPEC_WGMMA_OP0, WARPSPEC_WGMMA_OP)                                       \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d), "n"(kTransB))
#define WARPSPEC_WGMMA_RS8(N, TY, ACC, t0, t1, t2, t3, t4, t5, ...)                               \
  asm volatile(WARPSPEC_WGMMA_HEAD(N, 32, TY, ACC, t5) "{%" #t0 ", %" #t1 ", %" #t2 ", %" #t3     \
               "}, %" #t4 ", p, 1, 1;\n}\n"                                                      \
               : ACC(WARPSPEC_WGMMA_OP0, WARPSPEC_WGMMA_OP)                                       \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d))

// One shape: the SS and RS forms for each input type, picked by `if constexpr` so only
// the used asm is instantiated. `...` carries the eight input numbers.
#define WARPSPEC_WGMMA_SHAPE_(N, ACC, ...)                                                        \
  template <>                                                                                     \
  struct WgmmaAsm<N> {                                                                            \
    template <class T, int kTransA, int kTransB>                                                  \
    static WARPSPEC_DEVICE void ss(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b,           \
                                   uint32_t scale_d) {                                            \
      if constexpr (std::is_same_v<T, __nv_bfloat16>) {                                           \
        WARPSPEC_WGMMA_SS16(N, "bf16", ACC, __VA_ARGS__);                                         \
      } else if constexpr (std::is_same_v<T, __half>) {                                           \
        WARPSPEC_WGMMA_SS16(N, "f16", ACC, __VA_ARGS__);                                          \
      } else if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) {                                    \
        WARPSPEC_WGMMA_SS8(N, "e4m3", ACC, __VA_ARGS__);                                          \
      } else {                                                                                    \
        WARPSPEC_WGMMA_SS8(N, "e5m2", ACC, __VA_ARGS__);                                          \
      }                                                                                           \
    }                                                                                             \
    template <class T, int kTransB>                                                               \
    static WARPSPEC_DEVICE void rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc_b,    \
                                   uint32_t scale_d) {                                            \
      if constexpr (std::is_same_v<T, __nv_bfloat16>) {                                           \
        WARPSPEC_WGMMA_RS16(N, "bf16", ACC, __VA_ARGS__);                                         \
      } else if constexpr (std::is_same_v<T, __half>) {                                           \
        WARPSPEC_WGMMA_RS16(N, "f16", ACC, __VA_ARGS__);                                          \
      } else if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) {                                    \
        WARPSPEC_WGMMA_RS8(N, "e4m3", ACC, __VA_ARGS__);                                          \
      } else {                                                                                    \
        WARPSPEC_WGMMA_RS8(N, "e5m2", ACC, __VA_ARGS__);                                          \
      }                                                                                           \
    }                                                                                             \
  };
// N, k = N/8, k + 1: the accumulator blocks and the two blocks of input numbers.
#define WARPSPEC_WGMMA_SHAPE(N, k, k1) \
  WARPSPEC_WGMMA_SHAPE_(N, WARPSPEC_WGMMA_ACC_##k, WARPSPEC_WGMMA_Q##k, WARPSPEC_WGMMA_Q##k1)

namespace detail {
template <int N>
struct WgmmaAsm;  // only the generated shapes exist

// The asm is emitted only for device compilation: the host pass never sees wgmma.
#if defined(__CUDA_ARCH__)
WARPSPEC_WGMMA_SHAPE(8, 1, 2) WARPSPEC_WGMMA_SHAPE(16, 2, 3) WARPSPEC_WGMMA_SHAPE(24, 3, 4)
WARPSPEC_WGMMA_SHAPE(32, 4, 5) WARPSPEC_WGMMA_SHAPE(40, 5, 6) WARPSPEC_WGMMA_SHAPE(48, 6, 7)
WARPSPEC_WGMMA_SHAPE(56, 7, 8) WARPSPEC_WGMMA_SHAPE(64, 8, 9) WARPSPEC_WGMMA_SHAPE(72, 9, 10)
WARPSPEC_WGMMA_SHAPE(80, 10, 11) WARPSPEC_WGMMA_SHAPE(88, 11, 12) WARPSPEC_WGMMA_SHAPE(96, 12, 13)
WARPSPEC_WGMMA_SHAPE(104, 13, 14) WARPSPEC_WGMMA_SHAPE(112, 14, 15) WARPSPEC_WGMMA_SHAPE(120, 15, 16)
WARPSPEC_WGMMA_SHAPE(128, 16, 17) WARPSPEC_WGMMA_SHAPE(136, 17, 18) WARPSPEC_WGMMA_SHAPE(144, 18, 19)
WARPSPEC_WGMMA_SHAPE(152, 19, 20) WARPSPEC_WGMMA_SHAPE(160, 20, 21) WARPSPEC_WGMMA_SHAPE(168, 21, 22)
WARPSPEC_WGMMA_SHAPE(176, 22, 23) WARPSPEC_WGMMA_SHAPE(184, 23, 24) WARPSPEC_WGMMA_SHAPE(192, 24, 25)
WARPSPEC_WGMMA_SHAPE(200, 25, 26) WARPSPEC_WGMMA_SHAPE(208, 26, 27) WARPSPEC_WGMMA_SHAPE(216, 27, 28)
WARPSPEC_WGMMA_SHAPE(224, 28, 29) WARPSPEC_WGMMA_SHAPE(232, 29, 30) WARPSPEC_WGMMA_SHAPE(240, 30, 31)
WARPSPEC_WGMMA_SHAPE(248, 31, 32) WARPSPEC_WGMMA_SHAPE(256, 32, 33)
#endif
}  // namespace detail

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
// 16-bit inputs only. All 128 threads of the warpgroup call it with the same
// descriptors (.sync.aligned: never under a lane-divergent branch).
template <int N, class T, Major kMajorA = Major::kK, Major kMajorB = Major::kK>
WARPSPEC_DEVICE void mma_async(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, bool accumulate) {
  wgmma_check_shape<N, T>();
  static_assert(WgmmaInput<T>::kBytes == 2 || (kMajorA == Major::kK && kMajorB == Major::kK),
                "wgmma: MN-major (transposed) operands exist only for bf16/fp16; 8-bit inputs are K-major");
#if defined(__CUDA_ARCH__)
  detail::WgmmaAsm<N>::template ss<T, int(kMajorA), int(kMajorB)>(d, desc_a, desc_b, accumulate ? 1u : 0u);
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
  detail::WgmmaAsm<N>::template rs<T, int(kMajorB)>(d, a, desc_b, accumulate ? 1u : 0u);
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
