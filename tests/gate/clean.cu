// Must PASS the ptxas gate: registers only.
__global__ void register_kernel(const float* in, float* out) {
  out[threadIdx.x] = in[threadIdx.x] * 2.0f + 1.0f;
}
