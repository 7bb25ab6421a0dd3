// Host-side tensor-map encoding: argument checks first, then the driver through the
// runtime's entry-point query (no -lcuda: the library must load on machines without a
// driver, where this returns a Status instead).
#include "warpspec/hopper/tma_map.hpp"

#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000, PFN_cuGetErrorName_v6000

#include <cstdio>
#include <cstring>
#include <string>

namespace warpspec::hopper {
namespace {

// How the arguments are called in messages: the general form says dims[i]; the 2-D
// helper says which of rows/cols/ld/box_rows/box_cols the caller actually passed.
struct ArgNames {
  bool matrix = false;
  uint64_t ld = 0;  // the 2-D helper's ld, quoted in stride messages
  std::string dim(int i) const {
    if (matrix) return i == 0 ? "cols (dims[0])" : "rows (dims[1])";
    return "dims[" + std::to_string(i) + "]";
  }
  std::string stride(int i) const {
    if (matrix) return "ld = " + std::to_string(ld) + " elements (strides[0] = ld * element size)";
    return "strides[" + std::to_string(i - 1) + "] (dimension " + std::to_string(i) + ")";
  }
  std::string box(int i) const {
    if (matrix) return i == 0 ? "box_cols (box[0])" : "box_rows (box[1])";
    return "box[" + std::to_string(i) + "]";
  }
};

std::string hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

const char* swizzle_name(TmaSwizzle s) {
  switch (s) {
    case TmaSwizzle::kNone: return "none";
    case TmaSwizzle::k32B: return "32B";
    case TmaSwizzle::k64B: return "64B";
    case TmaSwizzle::k128B: return "128B";
  }
  return "?";
}

// fp8 goes as UINT8: TMA copies bytes and never interprets them, except for the NaN
// fill, which is why that is refused for fp8 below.
CUtensorMapDataType tma_data_type(DType t) {
  switch (t) {
    case DType::kBF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case DType::kFP16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case DType::kFP32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case DType::kI32: return CU_TENSOR_MAP_DATA_TYPE_INT32;
    case DType::kE4M3:
    case DType::kE5M2: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

bool is_float_encoding(DType t) { return t == DType::kBF16 || t == DType::kFP16 || t == DType::kFP32; }

Status validate(const CUtensorMap* out, DType dtype, const void* base, std::span<const uint64_t> dims,
                std::span<const uint64_t> strides, std::span<const uint32_t> box, TmaSwizzle swizzle,
                TmaL2Promotion l2, TmaOobFill oob, const ArgNames& names) {
  if (out == nullptr) return invalid_argument("out: must not be null (the CUtensorMap to fill)");
  if (reinterpret_cast<uintptr_t>(out) % kTmaMapAlign != 0)
    return misaligned("out: a CUtensorMap must be " + std::to_string(kTmaMapAlign) + "-byte aligned (got " +
                      hex(out) + ")");
  if (!dtype_valid(dtype))
    return invalid_argument("dtype: not a warpspec DType (got " + std::to_string(static_cast<int>(dtype)) +
                            "); TMA encodes bf16, fp16, fp32, e4m3, e5m2");
  const int rank = static_cast<int>(dims.size());
  if (rank < 1 || rank > kTmaMaxRank)
    return invalid_argument("dims: rank must be 1.." + std::to_string(kTmaMaxRank) + " (got " +
                            std::to_string(dims.size()) + " dimensions)");
  if (strides.size() != dims.size() - 1)
    return invalid_argument("strides: need rank-1 = " + std::to_string(rank - 1) +
                            " byte strides for dimensions 1..rank-1 (got " + std::to_string(strides.size()) + ")");
  if (box.size() != dims.size())
    return invalid_argument("box: need rank = " + std::to_string(rank) + " entries (got " +
                            std::to_string(box.size()) + ")");
  if (base == nullptr) return invalid_argument("base: must not be null");
  if (reinterpret_cast<uintptr_t>(base) % kTmaGlobalAlign != 0)
    return misaligned("base: TMA needs a " + std::to_string(kTmaGlobalAlign) + "-byte aligned global address (got " +
                      hex(base) + ")");
  const uint64_t es = dtype_size(dtype);
  for (int i = 0; i < rank; ++i) {
    if (dims[i] < 1 || dims[i] > kTmaMaxGlobalDim)
      return invalid_argument(names.dim(i) + ": must be 1..2^32 elements (got " + std::to_string(dims[i]) + ")");
  }
  for (int i = 1; i < rank; ++i) {
    const uint64_t s = strides[i - 1];
    if (s % kTmaGlobalAlign != 0)
      return misaligned(names.stride(i) + ": TMA strides must be a multiple of " + std::to_string(kTmaGlobalAlign) +
                        " bytes (got " + std::to_string(s) + " bytes)");
    if (s >= kTmaStrideLimit)
      return invalid_argument(names.stride(i) + ": must be < 2^40 bytes (got " + std::to_string(s) + " bytes)");
  }
  for (int i = 0; i < rank; ++i) {
    if (box[i] < 1 || box[i] > kTmaMaxBoxDim)
      return invalid_argument(names.box(i) + ": must be 1.." + std::to_string(kTmaMaxBoxDim) + " elements (got " +
                              std::to_string(box[i]) + ")");
  }
  const uint64_t inner_bytes = box[0] * es;
  if (inner_bytes % kTmaGlobalAlign != 0)
    return invalid_argument(names.box(0) + ": the inner box extent times the element size must be a multiple of " +
                            std::to_string(kTmaGlobalAlign) + " bytes (got " + std::to_string(box[0]) + " * " +
                            std::to_string(es) + " bytes of " + dtype_name(dtype) + " = " +
                            std::to_string(inner_bytes) + " bytes)");
  const int sw = static_cast<int>(swizzle);
  if (sw < 0 || sw > 3)
    return invalid_argument("swizzle: must be TmaSwizzle::kNone, k32B, k64B or k128B (got " + std::to_string(sw) + ")");
  const uint32_t span = swizzle_span_bytes(swizzle);
  if (span != 0 && inner_bytes > span)
    return invalid_argument(names.box(0) + ": with swizzle " + swizzle_name(swizzle) +
                            " the inner box extent times the element size must be <= " + std::to_string(span) +
                            " bytes (got " + std::to_string(box[0]) + " * " + std::to_string(es) + " bytes of " +
                            dtype_name(dtype) + " = " + std::to_string(inner_bytes) + " bytes)");
  const int l2v = static_cast<int>(l2);
  if (l2v < 0 || l2v > 3)
    return invalid_argument("l2_promotion: must be TmaL2Promotion::kNone, k64B, k128B or k256B (got " +
                            std::to_string(l2v) + ")");
  const int oobv = static_cast<int>(oob);
  if (oobv < 0 || oobv > 1)
    return invalid_argument("oob_fill: must be TmaOobFill::kZero or kNaN (got " + std::to_string(oobv) + ")");
  if (oob == TmaOobFill::kNaN && !is_float_encoding(dtype))
    return invalid_argument(std::string("oob_fill: kNaN needs a floating-point TMA type, but ") + dtype_name(dtype) +
                            " is encoded as UINT8; use kZero");
  return Status::Ok();
}

// The driver entry points, looked up once per process (a function-local static is
// initialised exactly once even under concurrent first calls). A failed lookup is
// cached too: a process does not gain a driver later.
struct DriverEntryPoints {
  PFN_cuTensorMapEncodeTiled_v12000 encode_tiled = nullptr;
  PFN_cuGetErrorName_v6000 error_name = nullptr;  // optional: only for messages
  // For threads with no current context (see ThreadContext). Optional: without them
  // the encode is attempted in whatever state the thread is in.
  PFN_cuCtxGetCurrent_v4000 ctx_get_current = nullptr;
  PFN_cuCtxPushCurrent_v4000 ctx_push = nullptr;
  PFN_cuCtxPopCurrent_v4000 ctx_pop = nullptr;
  PFN_cuPointerGetAttribute_v4000 pointer_attribute = nullptr;
  PFN_cuDeviceGet_v2000 device_get = nullptr;
  PFN_cuDevicePrimaryCtxRetain_v7000 primary_retain = nullptr;
  PFN_cuDevicePrimaryCtxRelease_v11000 primary_release = nullptr;
  Status status;

  bool can_bind_context() const {
    return ctx_get_current && ctx_push && ctx_pop && device_get && primary_retain && primary_release;
  }
};

// An optional entry point: null when the driver lacks it (no error left behind).
template <class Fn>
Fn optional_entry_point(const char* name, unsigned version) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &query) != cudaSuccess ||
      query != cudaDriverEntryPointSuccess || fn == nullptr) {
    cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<Fn>(fn);
}

const DriverEntryPoints& driver_entry_points() {
  static const DriverEntryPoints entry = [] {
    DriverEntryPoints e;
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
    // 12000: the ABI version of the signature we cast to (the _v12000 typedef).
    cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &query);
    if (err != cudaSuccess) {
      cudaGetLastError();  // leave no error behind for the caller's next check
      if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice) {
        e.status = no_device(std::string("cannot encode a TMA tensor map: no usable CUDA driver (") +
                             cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ")");
      } else {
        e.status = cuda_error("cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)", err);
      }
      return e;
    }
    if (query != cudaDriverEntryPointSuccess || fn == nullptr) {
      e.status = no_device("cannot encode a TMA tensor map: the CUDA driver has no cuTensorMapEncodeTiled "
                           "(needs a CUDA 12.0 or newer driver; entry-point query result " +
                           std::to_string(static_cast<int>(query)) + ")");
      return e;
    }
    e.encode_tiled = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    // Versions: the ABI of each typedef's signature (cuCtxPushCurrent/PopCurrent at
    // 4000 are the _v2 functions; cuDevicePrimaryCtxRelease at 11000 is its _v2).
    e.error_name = optional_entry_point<PFN_cuGetErrorName_v6000>("cuGetErrorName", 6000);
    e.ctx_get_current = optional_entry_point<PFN_cuCtxGetCurrent_v4000>("cuCtxGetCurrent", 4000);
    e.ctx_push = optional_entry_point<PFN_cuCtxPushCurrent_v4000>("cuCtxPushCurrent", 4000);
    e.ctx_pop = optional_entry_point<PFN_cuCtxPopCurrent_v4000>("cuCtxPopCurrent", 4000);
    e.pointer_attribute = optional_entry_point<PFN_cuPointerGetAttribute_v4000>("cuPointerGetAttribute", 4000);
    e.device_get = optional_entry_point<PFN_cuDeviceGet_v2000>("cuDeviceGet", 2000);
    e.primary_retain = optional_entry_point<PFN_cuDevicePrimaryCtxRetain_v7000>("cuDevicePrimaryCtxRetain", 7000);
    e.primary_release =
        optional_entry_point<PFN_cuDevicePrimaryCtxRelease_v11000>("cuDevicePrimaryCtxRelease", 11000);
    return e;
  }();
  return entry;
}

std::string cu_result_name(const DriverEntryPoints& driver, CUresult res) {
  const char* name = nullptr;
  if (driver.error_name == nullptr || driver.error_name(res, &name) != CUDA_SUCCESS || name == nullptr)
    name = "unknown CUresult";
  return std::string(name) + " (" + std::to_string(static_cast<int>(res)) + ")";
}

// cuTensorMapEncodeTiled needs a CURRENT CONTEXT in the calling thread: without one it
// returns CUDA_ERROR_INVALID_CONTEXT. The runtime makes a device's primary context
// current in a thread lazily, on that thread's first runtime call that needs it; a
// thread that has made none (a fresh std::thread, a pool worker that only encodes)
// has no context, and the driver call through the entry point does not set one up.
// So: a thread with a current context encodes under it, untouched. A thread without
// one gets, for the duration of the call only, the primary context of the device that
// owns `base` (else the thread's runtime device) pushed, and popped again afterwards,
// so the caller's thread state is as it was (no context made current behind its back).
class ThreadContext {
 public:
  explicit ThreadContext(const DriverEntryPoints& driver) : driver_(driver) {}
  ThreadContext(const ThreadContext&) = delete;
  ThreadContext& operator=(const ThreadContext&) = delete;
  ~ThreadContext() {
    if (!pushed_) return;
    CUcontext popped = nullptr;
    driver_.ctx_pop(&popped);
    driver_.primary_release(device_);
  }

  Status ensure_current(const void* base) {
    if (!driver_.can_bind_context()) return Status::Ok();  // try as is; a refusal names its CUresult
    CUcontext current = nullptr;
    if (driver_.ctx_get_current(&current) == CUDA_SUCCESS && current != nullptr) return Status::Ok();
    int ordinal = -1;
    if (driver_.pointer_attribute != nullptr) {
      int owner = -1;
      if (driver_.pointer_attribute(&owner, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                    static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(base))) == CUDA_SUCCESS)
        ordinal = owner;
    }
    if (ordinal < 0) {
      int runtime_device = 0;
      if (cudaGetDevice(&runtime_device) == cudaSuccess) {
        ordinal = runtime_device;
      } else {
        cudaGetLastError();
        ordinal = 0;
      }
    }
    CUdevice device = 0;
    CUresult res = driver_.device_get(&device, ordinal);
    if (res != CUDA_SUCCESS)
      return {StatusCode::kCudaError, "cannot encode a TMA tensor map from a thread with no current CUDA context: "
                                      "cuDeviceGet(" + std::to_string(ordinal) + ") failed: " +
                                          cu_result_name(driver_, res)};
    CUcontext primary = nullptr;
    res = driver_.primary_retain(&primary, device);
    if (res != CUDA_SUCCESS)
      return {StatusCode::kCudaError, "cannot encode a TMA tensor map from a thread with no current CUDA context: "
                                      "cuDevicePrimaryCtxRetain(device " + std::to_string(ordinal) + ") failed: " +
                                          cu_result_name(driver_, res)};
    res = driver_.ctx_push(primary);
    if (res != CUDA_SUCCESS) {
      driver_.primary_release(device);
      return {StatusCode::kCudaError, "cannot encode a TMA tensor map from a thread with no current CUDA context: "
                                      "cuCtxPushCurrent(primary context of device " + std::to_string(ordinal) +
                                          ") failed: " + cu_result_name(driver_, res)};
    }
    pushed_ = true;
    device_ = device;
    return Status::Ok();
  }

 private:
  const DriverEntryPoints& driver_;
  bool pushed_ = false;
  CUdevice device_ = 0;
};

// The arguments have passed validate().
Status encode_validated(CUtensorMap* out, DType dtype, const void* base, std::span<const uint64_t> dims,
                        std::span<const uint64_t> strides, std::span<const uint32_t> box, TmaSwizzle swizzle,
                        TmaL2Promotion l2, TmaOobFill oob) {
  const DriverEntryPoints& driver = driver_entry_points();
  if (!driver.status.ok()) return driver.status;

  const int rank = static_cast<int>(dims.size());
  cuuint64_t gdim[kTmaMaxRank] = {};
  cuuint64_t gstride[kTmaMaxRank] = {};
  cuuint32_t bdim[kTmaMaxRank] = {};
  cuuint32_t estride[kTmaMaxRank] = {};
  for (int i = 0; i < rank; ++i) {
    gdim[i] = dims[i];
    bdim[i] = box[i];
    estride[i] = 1;  // dense boxes: every element of the box is moved
    if (i > 0) gstride[i - 1] = strides[i - 1];
  }
  // Any host thread may call: make sure this one has a context for the call.
  ThreadContext context(driver);
  WARPSPEC_RETURN_IF_ERROR(context.ensure_current(base));
  // Encode into a local map so a driver refusal leaves *out untouched. The driver
  // takes a non-const address; it only records it.
  CUtensorMap map;
  const CUresult res = driver.encode_tiled(
      &map, tma_data_type(dtype), static_cast<cuuint32_t>(rank), const_cast<void*>(base), gdim, gstride, bdim,
      estride, CU_TENSOR_MAP_INTERLEAVE_NONE, static_cast<CUtensorMapSwizzle>(swizzle),
      static_cast<CUtensorMapL2promotion>(l2),
      oob == TmaOobFill::kNaN ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (res != CUDA_SUCCESS) {
    // Every documented argument rule was checked above, so this is a rule we do not
    // know of, or the thread's CUDA state (a context that could not be made current).
    return {StatusCode::kCudaError, "cuTensorMapEncodeTiled refused the map: " + cu_result_name(driver, res) +
                                        " for rank " + std::to_string(rank) + " " + dtype_name(dtype) +
                                        ", swizzle " + swizzle_name(swizzle)};
  }
  // memcpy: `out` is only promised 64-byte alignment, the type claims 128.
  std::memcpy(out, &map, sizeof map);
  return Status::Ok();
}

}  // namespace

Status make_tma_map(CUtensorMap* out, DType dtype, const void* base, std::span<const uint64_t> dims,
                    std::span<const uint64_t> strides, std::span<const uint32_t> box, TmaSwizzle swizzle,
                    TmaL2Promotion l2, TmaOobFill oob) {
  WARPSPEC_RETURN_IF_ERROR(validate(out, dtype, base, dims, strides, box, swizzle, l2, oob, ArgNames{}));
  return encode_validated(out, dtype, base, dims, strides, box, swizzle, l2, oob);
}

Status make_tma_map_2d(CUtensorMap* out, DType dtype, const void* base, uint64_t rows, uint64_t cols, uint64_t ld,
                       uint32_t box_rows, uint32_t box_cols, TmaSwizzle swizzle, TmaL2Promotion l2, TmaOobFill oob) {
  const uint64_t es = dtype_size(dtype) == 0 ? 1 : dtype_size(dtype);  // a bad dtype is reported by validate
  // An ld so large that ld * es wraps would alias a small valid stride: saturate to a
  // multiple of 16 that fails the < 2^40 rule instead (the message quotes ld itself).
  const uint64_t stride = ld > UINT64_MAX / es ? (UINT64_MAX & ~uint64_t{15}) : ld * es;
  const uint64_t dims[2] = {cols, rows};
  const uint64_t strides[1] = {stride};
  const uint32_t box[2] = {box_cols, box_rows};
  WARPSPEC_RETURN_IF_ERROR(
      validate(out, dtype, base, dims, strides, box, swizzle, l2, oob, ArgNames{.matrix = true, .ld = ld}));
  // Rows closer together than a row is long would overlap: not a row-major matrix.
  if (ld < cols)
    return invalid_argument("ld: rows must not overlap, so ld >= cols (got ld " + std::to_string(ld) + " < cols " +
                            std::to_string(cols) + ")");
  return encode_validated(out, dtype, base, dims, strides, box, swizzle, l2, oob);
}

}  // namespace warpspec::hopper
