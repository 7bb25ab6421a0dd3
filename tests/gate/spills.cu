// Must FAIL the ptxas gate: a large array written and read at run-time indices lives
// in local memory (a stack frame), the pattern the gate exists to catch.
__global__ void local_memory_kernel(const int* in, int* out, int n) {
  int scratch[256];
  for (int i = 0; i < n; ++i) scratch[in[i] & 255] = i;
  out[threadIdx.x] = scratch[in[threadIdx.x] & 255];
}
