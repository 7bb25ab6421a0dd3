// A stand-in Hopper GPU for the host tests on machines without one (CI): preloaded
// (LD_PRELOAD) into warpspec_host_tests by the ctest entry host.fake_hopper, it answers
// the CUDA runtime's device queries as an H100 SXM (compute capability 9.0, 132 SMs, 227 KB
// of shared memory a block, 50 MB of L2, HBM3 at 3.35 TB/s), calls every pointer device
// memory of device 0, and encodes every tensor map. So the library's validation runs past
// the device check to the end: planning, workspace sizes, the checks made on the plan.
// A kernel launch does nothing and succeeds: the host tests judge statuses, never results,
// so a call the library should have refused still fails its test (its status is OK).
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstring>

namespace {

CUresult encode_tiled(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*,
                      const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                      CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  return CUDA_SUCCESS;
}

CUresult error_text(CUresult, const char** text) {
  *text = "fake Hopper: driver error";
  return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidDevice; }

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (device != 0) return cudaErrorInvalidDevice;
  switch (attr) {
    case cudaDevAttrComputeCapabilityMajor: *value = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *value = 0; break;
    case cudaDevAttrMultiProcessorCount: *value = 132; break;
    case cudaDevAttrL2CacheSize: *value = 50 << 20; break;
    case cudaDevAttrMemoryClockRate: *value = 2619000; break;  // kHz
    case cudaDevAttrGlobalMemoryBusWidth: *value = 5120; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = 232448; break;
    case cudaDevAttrClockRate: *value = 1980000; break;
    default: *value = 1; break;
  }
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (device != 0) return cudaErrorInvalidDevice;
  std::memset(p, 0, sizeof *p);
  std::strcpy(p->name, "fake Hopper (host tests)");
  p->major = 9, p->minor = 0;
  p->multiProcessorCount = 132;
  p->totalGlobalMem = size_t(80) << 30;
  p->l2CacheSize = 50 << 20;
  p->sharedMemPerBlockOptin = 232448;
  p->memoryBusWidth = 5120;
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* ptr) {
  std::memset(a, 0, sizeof *a);
  a->type = cudaMemoryTypeDevice;
  a->device = 0;
  a->devicePointer = const_cast<void*>(ptr);
  return cudaSuccess;
}

cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned int, unsigned long long,
                                             cudaDriverEntryPointQueryResult* result) {
  if (std::strcmp(symbol, "cuTensorMapEncodeTiled") == 0) *fn = reinterpret_cast<void*>(&encode_tiled);
  else if (std::strcmp(symbol, "cuGetErrorName") == 0 || std::strcmp(symbol, "cuGetErrorString") == 0)
    *fn = reinterpret_cast<void*>(&error_text);
  else *fn = nullptr;
  if (result) *result = *fn ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  return *fn ? cudaSuccess : cudaErrorSymbolNotFound;
}

cudaError_t cudaFuncSetAttribute(const void*, cudaFuncAttribute, int) { return cudaSuccess; }

cudaError_t cudaStreamIsCapturing(cudaStream_t, cudaStreamCaptureStatus* status) {
  *status = cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t*, const void*, void**) { return cudaSuccess; }

cudaError_t cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t) { return cudaSuccess; }

cudaError_t cudaGetLastError() { return cudaSuccess; }

cudaError_t cudaPeekAtLastError() { return cudaSuccess; }

}  // extern "C"
