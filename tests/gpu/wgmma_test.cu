// The wgmma test kernels (wgmma_test.cpp says what the tests check), with their
// launchers. No GoogleTest here: the tests are C++.
#include <cstdint>

#include "gpu/wgmma_test_kernels.hpp"
#include "warpspec/hopper/tma.cuh"
#include "warpspec/hopper/wgmma.cuh"

namespace wgmma_test {  // named: the file is compiled with others in one translation unit

constexpr int kThreads = 128;

// Thread `tid`'s accumulator register i holds (row, col) (PTX Fig. "WGMMA .m64nNk16
// register fragment layout for accumulator matrix D"; HOPPER-FACTS §4).
__device__ __forceinline__ int acc_row(int tid, int i) { return 16 * (tid / 32) + (tid % 32) / 4 + 8 * ((i >> 1) & 1); }
__device__ __forceinline__ int acc_col(int tid, int i) { return 8 * (i >> 2) + 2 * (tid % 4) + (i & 1); }

// Write a row-major rows x k matrix (element (r, k) at src[r * kK + k]) into a tile.
template <class T>
__device__ __forceinline__ void fill_tile(uint8_t* tile, const WgmmaOperandLayout& l, const T* src, int rows, int k_extent) {
  for (int i = threadIdx.x; i < rows * k_extent; i += kThreads)
    *reinterpret_cast<T*>(tile + l.offset(i / k_extent, i % k_extent)) = src[i];
}

// a: 64 x K row-major; b: N x K row-major (b[n][k] = B(k, n)); c: 64 x N; out: 64 x N.
template <class C>
__global__ void __launch_bounds__(kThreads, 1)
    wgmma_case_kernel(const typename C::T* a, const typename C::TB* b, const float* c, float* out, int accumulate) {
  using T = typename C::T;
  constexpr int N = C::N;
  // Local copies: device code reads the layouts as values, never the host statics.
  constexpr WgmmaOperandLayout layout_a = C::kLayoutA, layout_b = C::kLayoutB;
  extern __shared__ uint8_t smem_raw[];
  // Swizzle patterns are anchored to absolute address bits: start the tiles on 1024 B.
  uint8_t* smem = smem_raw + ((1024u - (hw::smem_u32(smem_raw) & 1023u)) & 1023u);
  uint8_t* smem_a = smem;
  uint8_t* smem_b = smem + C::kOffsetB;
  const int tid = threadIdx.x;

  if constexpr (!C::kRs) fill_tile(smem_a, layout_a, a, kM, C::kK);
  fill_tile(smem_b, layout_b, b, N, C::kK);
  // Generic-proxy stores, async-proxy reader: each writer fences, then the barrier.
  hw::fence_proxy_async_smem();
  __syncthreads();

  // RS: the A fragment of k-step j, straight from global. Register r holds row
  // 16w + g + 8(r&1) and the 4 bytes of K starting at byte 32j + 16(r>>1) + 4q (two
  // 16-bit or four 8-bit elements, lowest k in the low bits).
  uint32_t a_frag[kSteps][4];
  if constexpr (C::kRs) {
    const int row0 = 16 * (tid / 32) + (tid % 32) / 4, q = tid % 4;
#pragma unroll
    for (int j = 0; j < kSteps; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int row = row0 + 8 * (r & 1);
        const int kbyte = 32 * j + 16 * (r >> 1) + 4 * q;
        a_frag[j][r] = *reinterpret_cast<const uint32_t*>(reinterpret_cast<const uint8_t*>(a + row * C::kK) + kbyte);
      }
  }

  // Overwrite mode starts from NaN: a scale-d = false wgmma must not read D at all.
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = accumulate ? c[acc_row(tid, i) * N + acc_col(tid, i)] : __int_as_float(0x7fc00000);

  const uint32_t addr_a = hw::smem_u32(smem_a), addr_b = hw::smem_u32(smem_b);
  hw::wgmma_fence_operands(d);
  if constexpr (C::kRs) {
#pragma unroll
    for (int j = 0; j < kSteps; ++j) hw::wgmma_fence_operands(a_frag[j]);
  }
  hw::wgmma_fence();
#pragma unroll
  for (int j = 0; j < kSteps; ++j) {
    const bool acc = accumulate != 0 || j > 0;  // runtime scale-d
    if constexpr (C::kRs) {
      hw::mma_async<N, T, C::kMajorB>(d, a_frag[j], layout_b.desc(addr_b, j), acc);
    } else {
      hw::mma_async<N, T, C::kMajorA, C::kMajorB, typename C::TB>(d, layout_a.desc(addr_a, j), layout_b.desc(addr_b, j), acc);
    }
  }
  hw::wgmma_commit_group();
  hw::wgmma_wait_group<0>();
  hw::wgmma_fence_operands(d);

#pragma unroll
  for (int i = 0; i < N / 2; ++i) out[acc_row(tid, i) * N + acc_col(tid, i)] = d[i];
}

// FA3's P*V: S = A * B1 (SS, 64 x 64), P = T(S) packed from the accumulator into A
// fragments (accum_to_a_fragment), O = P * V (RS) with V N-major in SW128, as FA3 keeps
// bf16 V. a: 64 x 64; b1: 64 x 64 (b1[n][k]); v: 64 x N2 row-major (v[k][n]).
template <class T, int N2>
__global__ void __launch_bounds__(kThreads, 1) pv_kernel(const T* a, const T* b1, const T* v, float* out) {
  constexpr int N1 = 64, K1 = 4 * 16;
  constexpr WgmmaOperandLayout la{Major::kK, WgmmaSwizzle::k128B, sizeof(T), kM, K1};
  constexpr WgmmaOperandLayout lb{Major::kK, WgmmaSwizzle::k128B, sizeof(T), N1, K1};
  constexpr WgmmaOperandLayout lv{Major::kMN, WgmmaSwizzle::k128B, sizeof(T), N2, N1};
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = smem_raw + ((1024u - (hw::smem_u32(smem_raw) & 1023u)) & 1023u);
  uint8_t* sa = smem;
  uint8_t* sb = sa + la.bytes();
  uint8_t* sv = sb + lb.bytes();
  fill_tile(sa, la, a, kM, K1);
  fill_tile(sb, lb, b1, N1, K1);
  // V arrives k-major in memory (v[k][n]); its tile is indexed (n, k).
  for (int i = threadIdx.x; i < N1 * N2; i += kThreads) *reinterpret_cast<T*>(sv + lv.offset(i % N2, i / N2)) = v[i];
  hw::fence_proxy_async_smem();
  __syncthreads();

  float s[N1 / 2];
  float o[N2 / 2];
  const uint32_t addr_a = hw::smem_u32(sa), addr_b = hw::smem_u32(sb), addr_v = hw::smem_u32(sv);
  hw::wgmma_fence_operands(s);
  hw::wgmma_fence();
#pragma unroll
  for (int j = 0; j < 4; ++j) hw::mma_async<N1, T>(s, la.desc(addr_a, j), lb.desc(addr_b, j), j > 0);
  hw::wgmma_commit_group();
  hw::wgmma_wait_group<0>();
  hw::wgmma_fence_operands(s);

  uint32_t p[4][4];
#pragma unroll
  for (int j = 0; j < 4; ++j) hw::accum_to_a_fragment<T>(s, j, p[j]);
#pragma unroll
  for (int i = 0; i < N2 / 2; ++i) o[i] = 0.0f;
  hw::wgmma_fence_operands(o);
#pragma unroll
  for (int j = 0; j < 4; ++j) hw::wgmma_fence_operands(p[j]);
  hw::wgmma_fence();  // P and O were written by ordinary instructions
#pragma unroll
  for (int j = 0; j < 4; ++j) hw::mma_async<N2, T, Major::kMN>(o, p[j], lv.desc(addr_v, j), j > 0);
  hw::wgmma_commit_group();
  hw::wgmma_wait_group<0>();
  hw::wgmma_fence_operands(o);
  const int tid = threadIdx.x;
#pragma unroll
  for (int i = 0; i < N2 / 2; ++i) out[acc_row(tid, i) * N2 + acc_col(tid, i)] = o[i];
}

// ------------------------------------------------------------------ launchers

template <class C>
cudaError_t launch_case(const typename C::T* a, const typename C::TB* b, const float* c, float* out, int accumulate) {
  static_assert(C::kK == kSteps * hw::WgmmaInput<typename C::T>::kK);
  if (cudaError_t e = cudaFuncSetAttribute(wgmma_case_kernel<C>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           int(C::kSmemBytes)))
    return e;
  wgmma_case_kernel<C><<<1, kThreads, C::kSmemBytes>>>(a, b, c, out, accumulate);
  return cudaGetLastError();
}

template <class T, int N2>
cudaError_t launch_pv(const T* a, const T* b1, const T* v, float* out) {
  constexpr uint32_t smem = 8192 + 8192 + (N2 * 2 + 127) / 128 * 64 * 128 + 1024;
  static_assert(smem <= 48 * 1024, "default dynamic shared-memory limit");
  if (cudaError_t e = cudaFuncSetAttribute(pv_kernel<T, N2>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)))
    return e;
  pv_kernel<T, N2><<<1, kThreads, smem>>>(a, b1, v, out);
  return cudaGetLastError();
}

#define WGMMA_INSTANCE(name, ...)                                                                                \
  template cudaError_t launch_case<Case<__VA_ARGS__>>(const Case<__VA_ARGS__>::T*, const Case<__VA_ARGS__>::TB*, \
                                                      const float*, float*, int);
WGMMA_CASES(WGMMA_INSTANCE)
#undef WGMMA_INSTANCE

template cudaError_t launch_pv<bf16, 128>(const bf16*, const bf16*, const bf16*, float*);
template cudaError_t launch_pv<fp16, 64>(const fp16*, const fp16*, const fp16*, float*);

}  // namespace wgmma_test
