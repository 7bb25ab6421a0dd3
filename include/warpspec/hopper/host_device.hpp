#pragma once
// The one host/device function macro. Value types that are built on the host and used
// in kernels (schedulers, descriptors, swizzle arithmetic) are compiled by nvcc for
// both sides and by g++ for the host tests, where __host__/__device__ do not exist.
// Device-only code uses WARPSPEC_DEVICE (hopper/arch.cuh).
#if defined(__CUDACC__)
#define WARPSPEC_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define WARPSPEC_HOST_DEVICE inline
#endif
