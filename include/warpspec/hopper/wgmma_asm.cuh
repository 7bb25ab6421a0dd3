#pragma once
// The inline asm behind hopper/wgmma.cuh's mma_async: every m64nNk16 (bf16, fp16) and
// m64nNk32 (e4m3, e5m2) wgmma with f32 accumulators, SS (A from a descriptor) and RS (A
// from registers), for N = 8..256 step 8. Not for direct use: wgmma.cuh checks shapes
// and types and documents the operands.
//
// Inline asm needs a literal string naming exactly N/2 accumulator operands, so the
// shapes are generated: one counting table below gives operand numbers, repetition
// macros turn it into the "%i" text and the "+f"(d[i]) list, and one shape macro
// stamps out the asm for each N. Nothing here is written per shape.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>

#include "warpspec/hopper/arch.cuh"

namespace warpspec::hopper {

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
#define WARPSPEC_WGMMA_HEAD(N, K, TA, TB, ACC, tp)                                \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %" #tp ", 0;\n"                              \
  "wgmma.mma_async.sync.aligned.m64n" #N "k" #K ".f32." TA "." TB " {" ACC(    \
      WARPSPEC_WGMMA_STR0, WARPSPEC_WGMMA_STR) "}, "

#define WARPSPEC_WGMMA_SS16(N, TY, ACC, t0, t1, t2, t3, t4, ...)                                  \
  asm volatile(WARPSPEC_WGMMA_HEAD(N, 16, TY, TY, ACC, t2) "%" #t0 ", %" #t1 ", p, 1, 1, %" #t3       \
               ", %" #t4 ";\n}\n"                                                                 \
               : ACC(WARPSPEC_WGMMA_OP0, WARPSPEC_WGMMA_OP)                                       \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(kTransA), "n"(kTransB))
#define WARPSPEC_WGMMA_SS8(N, TA, TB, ACC, t0, t1, t2, ...)                                       \
  asm volatile(WARPSPEC_WGMMA_HEAD(N, 32, TA, TB, ACC, t2) "%" #t0 ", %" #t1 ", p, 1, 1;\n}\n"         \
               : ACC(WARPSPEC_WGMMA_OP0, WARPSPEC_WGMMA_OP)                                       \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d))
#define WARPSPEC_WGMMA_RS16(N, TY, ACC, t0, t1, t2, t3, t4, t5, t6, ...)                          \
  asm volatile(WARPSPEC_WGMMA_HEAD(N, 16, TY, TY, ACC, t5) "{%" #t0 ", %" #t1 ", %" #t2 ", %" #t3     \
               "}, %" #t4 ", p, 1, 1, %" #t6 ";\n}\n"                                            \
               : ACC(WARPSPEC_WGMMA_OP0, WARPSPEC_WGMMA_OP)                                       \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d), "n"(kTransB))
#define WARPSPEC_WGMMA_RS8(N, TY, ACC, t0, t1, t2, t3, t4, t5, ...)                               \
  asm volatile(WARPSPEC_WGMMA_HEAD(N, 32, TY, TY, ACC, t5) "{%" #t0 ", %" #t1 ", %" #t2 ", %" #t3     \
               "}, %" #t4 ", p, 1, 1;\n}\n"                                                      \
               : ACC(WARPSPEC_WGMMA_OP0, WARPSPEC_WGMMA_OP)                                       \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d))

// One shape: the SS and RS forms, one overload per input type (the last argument, a
// tag), so only the used asm is instantiated. `...` carries the eight input numbers.
#define WARPSPEC_WGMMA_SHAPE_(N, ACC, ...)                                                        \
  template <>                                                                                     \
  struct WgmmaAsm<N> {                                                                            \
    template <int kTransA, int kTransB>                                                           \
    static WARPSPEC_DEVICE void ss(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b,           \
                                   uint32_t scale_d, InputTag<__nv_bfloat16>) {                   \
      WARPSPEC_WGMMA_SS16(N, "bf16", ACC, __VA_ARGS__);                                           \
    }                                                                                             \
    template <int kTransA, int kTransB>                                                           \
    static WARPSPEC_DEVICE void ss(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b,           \
                                   uint32_t scale_d, InputTag<__half>) {                          \
      WARPSPEC_WGMMA_SS16(N, "f16", ACC, __VA_ARGS__);                                            \
    }                                                                                             \
    template <int kTransA, int kTransB>                                                           \
    static WARPSPEC_DEVICE void ss(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b,           \
                                   uint32_t scale_d, InputTag<__nv_fp8_e4m3>) {                   \
      WARPSPEC_WGMMA_SS8(N, "e4m3", "e4m3", ACC, __VA_ARGS__);                                    \
    }                                                                                             \
    template <int kTransA, int kTransB>                                                           \
    static WARPSPEC_DEVICE void ss(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b,           \
                                   uint32_t scale_d, InputTag<__nv_fp8_e5m2>) {                   \
      WARPSPEC_WGMMA_SS8(N, "e5m2", "e5m2", ACC, __VA_ARGS__);                                    \
    }                                                                                             \
    template <int kTransA, int kTransB>                                                           \
    static WARPSPEC_DEVICE void ss(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b,           \
                                   uint32_t scale_d, InputTag<Mixed<__nv_fp8_e4m3, __nv_fp8_e5m2>>) { \
      WARPSPEC_WGMMA_SS8(N, "e4m3", "e5m2", ACC, __VA_ARGS__);                                    \
    }                                                                                             \
    template <int kTransA, int kTransB>                                                           \
    static WARPSPEC_DEVICE void ss(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b,           \
                                   uint32_t scale_d, InputTag<Mixed<__nv_fp8_e5m2, __nv_fp8_e4m3>>) { \
      WARPSPEC_WGMMA_SS8(N, "e5m2", "e4m3", ACC, __VA_ARGS__);                                    \
    }                                                                                             \
    template <int kTransB>                                                                        \
    static WARPSPEC_DEVICE void rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc_b,    \
                                   uint32_t scale_d, InputTag<__nv_bfloat16>) {                   \
      WARPSPEC_WGMMA_RS16(N, "bf16", ACC, __VA_ARGS__);                                           \
    }                                                                                             \
    template <int kTransB>                                                                        \
    static WARPSPEC_DEVICE void rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc_b,    \
                                   uint32_t scale_d, InputTag<__half>) {                          \
      WARPSPEC_WGMMA_RS16(N, "f16", ACC, __VA_ARGS__);                                            \
    }                                                                                             \
    template <int kTransB>                                                                        \
    static WARPSPEC_DEVICE void rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc_b,    \
                                   uint32_t scale_d, InputTag<__nv_fp8_e4m3>) {                   \
      WARPSPEC_WGMMA_RS8(N, "e4m3", ACC, __VA_ARGS__);                                            \
    }                                                                                             \
    template <int kTransB>                                                                        \
    static WARPSPEC_DEVICE void rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc_b,    \
                                   uint32_t scale_d, InputTag<__nv_fp8_e5m2>) {                   \
      WARPSPEC_WGMMA_RS8(N, "e5m2", ACC, __VA_ARGS__);                                            \
    }                                                                                             \
  };
// N, k = N/8, k + 1: the accumulator blocks and the two blocks of input numbers.
#define WARPSPEC_WGMMA_SHAPE(N, k, k1) \
  WARPSPEC_WGMMA_SHAPE_(N, WARPSPEC_WGMMA_ACC_##k, WARPSPEC_WGMMA_Q##k, WARPSPEC_WGMMA_Q##k1)

namespace detail {
template <class T>
struct InputTag {};  // picks a shape's overload for input type T
template <class TA, class TB>
struct Mixed {};  // InputTag<Mixed<A, B>>: 8-bit A and B of different formats (SS only)
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

}  // namespace warpspec::hopper
