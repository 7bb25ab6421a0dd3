#pragma once
// Element types and the strided view every tensor crosses the API as.
#include <cstddef>
#include <cstdint>

namespace warpspec {

enum class DType : int {
  kBF16 = 0,
  kFP16 = 1,
  kFP32 = 2,
  kE4M3 = 3,
  kE5M2 = 4,
  kI32 = 5,  // indices and lengths (cu_seqlens, seqused)
};

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::kBF16: return 2;
    case DType::kFP16: return 2;
    case DType::kFP32: return 4;
    case DType::kE4M3: return 1;
    case DType::kE5M2: return 1;
    case DType::kI32: return 4;
  }
  return 0;
}

constexpr const char* dtype_name(DType t) {
  switch (t) {
    case DType::kBF16: return "bf16";
    case DType::kFP16: return "fp16";
    case DType::kFP32: return "fp32";
    case DType::kE4M3: return "e4m3";
    case DType::kE5M2: return "e5m2";
    case DType::kI32: return "int32";
  }
  return "unknown";
}

constexpr bool dtype_valid(DType t) { return dtype_size(t) != 0; }

}  // namespace warpspec

namespace warpspec {

inline constexpr int kMaxTensorRank = 4;

// A strided view of device memory: no ownership. Shape and strides are in elements,
// outermost first (like PyTorch's sizes()/strides()). Strides may be 0 only where an
// API says a dimension broadcasts.
struct TensorView {
  void* data = nullptr;
  DType dtype = DType::kBF16;
  int rank = 0;
  int64_t shape[kMaxTensorRank] = {};
  int64_t stride[kMaxTensorRank] = {};

  bool empty() const { return data == nullptr; }

  // rows×cols matrix with leading dimension ld: row-major (stride ld, 1) or
  // column-major (stride 1, ld).
  static TensorView matrix(const void* data, DType dtype, int64_t rows, int64_t cols, int64_t ld,
                           bool row_major = true) {
    TensorView v;
    v.data = const_cast<void*>(data);
    v.dtype = dtype;
    v.rank = 2;
    v.shape[0] = rows;
    v.shape[1] = cols;
    v.stride[0] = row_major ? ld : 1;
    v.stride[1] = row_major ? 1 : ld;
    return v;
  }
  // A batch of `batch` matrices `batch_stride` elements apart (0 broadcasts one).
  static TensorView batched_matrix(const void* data, DType dtype, int64_t batch, int64_t rows, int64_t cols,
                                   int64_t ld, int64_t batch_stride, bool row_major = true) {
    TensorView m = matrix(data, dtype, rows, cols, ld, row_major);
    TensorView v;
    v.data = m.data;
    v.dtype = dtype;
    v.rank = 3;
    v.shape[0] = batch;
    v.stride[0] = batch_stride;
    v.shape[1] = m.shape[0];
    v.shape[2] = m.shape[1];
    v.stride[1] = m.stride[0];
    v.stride[2] = m.stride[1];
    return v;
  }
};

}  // namespace warpspec
