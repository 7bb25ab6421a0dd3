// The FP8 P·V kernel of fp8_pv_test.cpp (which says what it checks), with its
// launcher. No GoogleTest here: the tests are C++.
#include <cuda_fp8.h>

#include <cstdint>

#include "gpu/fp8_pv_test_kernels.hpp"
#include "warpspec/attention/v_transpose_unit.cuh"
#include "warpspec/hopper/tma.cuh"
#include "warpspec/hopper/wgmma.cuh"

namespace fp8_pv_test {  // named: the file is compiled with others in one translation unit

namespace ai = warpspec::attention_impl;
namespace hw = warpspec::hopper;
using e4m3 = __nv_fp8_e4m3;

constexpr int kThreads = 128;

__device__ __forceinline__ int acc_row(int t, int i) { return 16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1); }
__device__ __forceinline__ int acc_col(int t, int i) { return 8 * (i >> 2) + 2 * (t % 4) + (i & 1); }

// p: 64 x kBlockN fp32 (S, row-major). src: kDeviceTranspose ? V row-major (kBlockN x
// kD e4m3 bytes) : the Vᵀ tile image (fp8_vt_layout bytes). out: 64 x kD fp32.
template <int kBlockN, int kD, bool kDeviceTranspose>
__global__ void __launch_bounds__(kThreads, 1) fp8_pv_kernel(const float* p, const uint8_t* src, float* out) {
  constexpr hw::WgmmaOperandLayout lvt = ai::fp8_vt_layout(kBlockN, kD), lv = ai::fp8_v_layout(kBlockN, kD);
  constexpr int kSlices = kBlockN / 32;
  extern __shared__ uint8_t smem_raw[];
  // Swizzle patterns are anchored to absolute address bits: start the tiles on 1024 B.
  uint8_t* svt = smem_raw + ((1024u - (hw::smem_u32(smem_raw) & 1023u)) & 1023u);
  uint8_t* sv = svt + (lvt.bytes() + 1023u) / 1024u * 1024u;
  const int tid = threadIdx.x;

  if constexpr (kDeviceTranspose) {
    for (int i = tid; i < kBlockN * kD; i += kThreads) sv[lv.offset(i / kD, i % kD)] = src[i];
    __syncthreads();  // generic writes, generic (ldmatrix) reads
    const int warp = tid / 32, lane = tid % 32;
    for (int u = warp; u < kSlices * (kD / 16); u += kThreads / 32)  // warp-uniform
      ai::transpose_v_unit(hw::smem_u32(sv), hw::smem_u32(svt), lv, lvt, u / (kD / 16), u % (kD / 16), lane);
  } else {
    for (uint32_t i = tid; i < lvt.bytes() / 16; i += kThreads)
      reinterpret_cast<uint4*>(svt)[i] = reinterpret_cast<const uint4*>(src)[i];
  }
  // Generic-proxy writes (st.shared, stmatrix), async-proxy reader: each writer
  // fences, then the barrier.
  hw::fence_proxy_async_smem();
  __syncthreads();

  float s[kBlockN / 2];
#pragma unroll
  for (int i = 0; i < kBlockN / 2; ++i) s[i] = p[acc_row(tid, i) * kBlockN + acc_col(tid, i)];
  uint32_t a[kSlices][4];
#pragma unroll
  for (int j = 0; j < kSlices; ++j) hw::accum_to_a_fragment<e4m3>(s, j, a[j]);

  float o[kD / 2];
#pragma unroll
  for (int i = 0; i < kD / 2; ++i) o[i] = 0.0f;
  const uint32_t addr_vt = hw::smem_u32(svt);
  hw::wgmma_fence_operands(o);
#pragma unroll
  for (int j = 0; j < kSlices; ++j) hw::wgmma_fence_operands(a[j]);
  hw::wgmma_fence();
#pragma unroll
  for (int j = 0; j < kSlices; ++j) hw::mma_async<kD, e4m3>(o, a[j], lvt.desc(addr_vt, j), j > 0);
  hw::wgmma_commit_group();
  hw::wgmma_wait_group<0>();
  hw::wgmma_fence_operands(o);
#pragma unroll
  for (int i = 0; i < kD / 2; ++i) out[acc_row(tid, i) * kD + ai::fp8_o_column(tid % 4, i)] = o[i];
}

template <int kBlockN, int kD, bool kDeviceTranspose>
cudaError_t launch_pv(const float* p, const uint8_t* src, float* out) {
  constexpr uint32_t kSmem = smem_bytes<kBlockN, kD>();
  auto* kernel = fp8_pv_kernel<kBlockN, kD, kDeviceTranspose>;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmem))) return e;
  kernel<<<1, kThreads, kSmem>>>(p, src, out);
  return cudaGetLastError();
}

#define FP8_PV_INSTANCE(name, block_n, d, device) \
  template cudaError_t launch_pv<block_n, d, device>(const float*, const uint8_t*, float*);
FP8_PV_CASES(FP8_PV_INSTANCE)
#undef FP8_PV_INSTANCE

}  // namespace fp8_pv_test
