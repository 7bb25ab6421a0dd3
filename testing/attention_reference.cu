// The float32 attention reference of attention_reference.hpp: one CTA per query row.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "attention_reference.hpp"

namespace warpspec::testbed {

namespace {

template <class T>
__device__ __forceinline__ float ref_round(float x) {
  return static_cast<float>(T(x));
}

__device__ __forceinline__ float block_reduce(float v, bool is_max, float* red) {
  for (int o = 16; o > 0; o >>= 1) {
    const float u = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, u) : v + u;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  __syncthreads();  // red[] may still be read from the previous reduction
  if (lane == 0) red[warp] = v;
  __syncthreads();
  v = lane < warps ? red[lane] : (is_max ? -INFINITY : 0.0f);
  for (int o = 16; o > 0; o >>= 1) {
    const float u = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, u) : v + u;
  }
  return v;
}

// out: (b, sq, hq, d) fp32 contiguous; lse: (b, hq, sq) fp32 contiguous.
template <class T, bool kLowp>
__global__ void __launch_bounds__(256) attention_reference_kernel(RefProblem p, RefTensor tq, RefTensor tk,
                                                                  RefTensor tv, float* out, float* lse) {
  extern __shared__ float smem[];
  float* qrow = smem;           // d
  float* red = qrow + p.d;      // 32
  float* scores = red + 32;     // sk
  const int i = blockIdx.x % p.sq;
  const int bh = blockIdx.x / p.sq;
  const int h = bh % p.hq, b = bh / p.hq;
  const int hk = h / (p.hq / p.hkv);
  const T* q = static_cast<const T*>(tq.data) + b * tq.sb + int64_t(i) * tq.ss + h * tq.sh;
  const T* k = static_cast<const T*>(tk.data) + b * tk.sb + hk * tk.sh;
  const T* v = static_cast<const T*>(tv.data) + b * tv.sb + hk * tv.sh;
  for (int c = threadIdx.x; c < p.d; c += blockDim.x) {
    const float x = static_cast<float>(q[c]);
    qrow[c] = kLowp ? ref_round<T>(x * p.scale) : x;
  }
  __syncthreads();
  const int diag = p.sk - p.sq;
  const int right = p.causal ? 0 : p.window_right;
  float mx = -INFINITY;
  for (int j = threadIdx.x; j < p.sk; j += blockDim.x) {
    float s = -INFINITY;
    bool visible = (right < 0 || j <= i + diag + right) && (p.window_left < 0 || j >= i + diag - p.window_left);
    if (p.chunk > 0) {
      const int a = i + diag, start = (a >= 0 ? a / p.chunk : -((-a + p.chunk - 1) / p.chunk)) * p.chunk;
      visible = visible && j >= start && j < start + p.chunk;
    }
    if (visible) {
      const T* kr = k + int64_t(j) * tk.ss;
      float acc = 0.0f;
      for (int c = 0; c < p.d; ++c) acc = fmaf(qrow[c], static_cast<float>(kr[c]), acc);
      s = kLowp ? ref_round<T>(acc) : acc * p.scale;
      if (p.softcap > 0) {
        s = p.softcap * tanhf(s / p.softcap);
        if (kLowp) s = ref_round<T>(s);
      }
    }
    scores[j] = s;
    mx = fmaxf(mx, s);
  }
  mx = block_reduce(mx, true, red);
  const float sink = p.sink != nullptr ? p.sink[h] : -INFINITY;
  mx = fmaxf(mx, sink);
  float sum = 0.0f;
  for (int j = threadIdx.x; j < p.sk; j += blockDim.x) {
    const float e = mx == -INFINITY ? 0.0f : expf(scores[j] - mx);
    scores[j] = e;
    sum += e;
  }
  sum = block_reduce(sum, false, red);
  if (sink != -INFINITY) sum += expf(sink - mx);
  const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
  if (kLowp) {
    for (int j = threadIdx.x; j < p.sk; j += blockDim.x) scores[j] = ref_round<T>(scores[j] * inv);
  }
  __syncthreads();
  for (int c = threadIdx.x; c < p.d; c += blockDim.x) {
    float acc = 0.0f;
    for (int j = 0; j < p.sk; ++j) acc = fmaf(scores[j], static_cast<float>(v[int64_t(j) * tv.ss + c]), acc);
    out[((int64_t(b) * p.sq + i) * p.hq + h) * p.d + c] = kLowp ? ref_round<T>(acc) : acc * inv;
  }
  if (threadIdx.x == 0 && lse != nullptr)
    lse[(int64_t(b) * p.hq + h) * p.sq + i] = sum > 0.0f ? mx + logf(sum) : -INFINITY;
}

template <class T, bool kLowp>
cudaError_t launch_reference(const RefProblem& p, RefTensor q, RefTensor k, RefTensor v, float* out, float* lse,
                             cudaStream_t stream) {
  const size_t smem = size_t(p.d + 32 + p.sk) * sizeof(float);
  cudaError_t e = cudaFuncSetAttribute(attention_reference_kernel<T, kLowp>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  if (e != cudaSuccess) return e;
  const int64_t blocks = int64_t(p.b) * p.hq * p.sq;
  attention_reference_kernel<T, kLowp><<<unsigned(blocks), 256, smem, stream>>>(p, q, k, v, out, lse);
  return cudaGetLastError();
}

}  // namespace

cudaError_t attention_reference(const RefProblem& p, RefTensor q, RefTensor k, RefTensor v, float* out, float* lse,
                                bool plain_lowp, cudaStream_t stream) {
  // e4m3 inputs: the float32 reference of the values as stored (descales 1); there is no
  // "plain e4m3" computation to compare with (attention_check.hpp bounds FP8 directly).
  if (p.dtype == DType::kE4M3)
    return plain_lowp ? cudaErrorInvalidValue
                      : launch_reference<__nv_fp8_e4m3, false>(p, q, k, v, out, lse, stream);
  if (p.dtype == DType::kBF16)
    return plain_lowp ? launch_reference<__nv_bfloat16, true>(p, q, k, v, out, lse, stream)
                      : launch_reference<__nv_bfloat16, false>(p, q, k, v, out, lse, stream);
  return plain_lowp ? launch_reference<__half, true>(p, q, k, v, out, lse, stream)
                    : launch_reference<__half, false>(p, q, k, v, out, lse, stream);
}

}  // namespace warpspec::testbed
