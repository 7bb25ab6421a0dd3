// GEMM epilogue arguments: scale_a, scale_b (tensor-wise or row-wise fp32), bias (1-D, per
// column or per row) and the activation. See gemm_api.hpp for the rules.
#include "epilogue_args.hpp"

#include <cinttypes>
#include <cstdint>

#include "../common/format.hpp"
#include "../common/views.hpp"

namespace warpspec::gemm_impl {
namespace {

bool present(const TensorView& v) { return v.data != nullptr || v.rank != 0; }

// One element: every extent 1 (a product of extents could wrap to 1).
bool one_element(const TensorView& v) {
  for (int i = 0; i < v.rank; ++i)
    if (v.shape[i] != 1) return false;
  return true;
}

// A scale: fp32, rank 0..2, either one element (tensor-wise) or `extent` elements along
// dimension `vec_dim` of a rank-2 (1 elsewhere) or along the only dimension of a rank-1
// view. `what` words the row-wise shape for messages ("(M, 1) or (M,)").
// A present fp32 view of rank 0..2 (a scale, scale_result, amax): data not null, the
// dtype, the rank, every extent >= 0 (`one`: exactly 1), 4-byte aligned. `dtype_rule` words
// the dtype's rule for the message.
Status check_fp32_small(const TensorView& v, const char* name, const char* dtype_rule, bool one) {
  if (v.data == nullptr) return invalid_argument(fmt("%s.data: must not be null", name));
  if (v.dtype != DType::kFP32)
    return invalid_argument(fmt("%s.dtype: %s, got %s", name, dtype_rule, dtype_valid(v.dtype) ? dtype_name(v.dtype) : "an unknown dtype"));
  if (v.rank < 0 || v.rank > 2) return invalid_argument(fmt("%s.rank: must be 0, 1 or 2, got %d", name, v.rank));
  for (int i = 0; i < v.rank; ++i) {
    if (one && v.shape[i] != 1)
      return invalid_argument(fmt("%s.shape[%d]: must be one element (every extent 1), got %" PRId64, name, i, v.shape[i]));
    if (v.shape[i] < 0) return invalid_argument(fmt("%s.shape[%d]: must be >= 0, got %" PRId64, name, i, v.shape[i]));
  }
  if (reinterpret_cast<uintptr_t>(v.data) % 4 != 0) return misaligned(fmt("%s.data: must be 4-byte aligned (fp32)", name));
  return Status::Ok();
}

Status read_scale(const TensorView& v, const char* name, int64_t extent, int vec_dim, const char* what,
                  ScaleVector* out) {
  *out = ScaleVector{};
  if (!present(v)) return Status::Ok();
  WARPSPEC_RETURN_IF_ERROR(check_fp32_small(v, name, "scales are fp32", false));
  if (one_element(v)) {  // tensor-wise (also a row-wise vector of one element)
    out->data = static_cast<const float*>(v.data);
    out->stride = 0;
    return Status::Ok();
  }
  const int d = v.rank == 1 ? 0 : vec_dim;
  const bool shape_ok = v.rank >= 1 && v.shape[d] == extent && (v.rank == 1 || v.shape[1 - d] == 1);
  if (!shape_ok) {
    char shape[96];
    if (v.rank == 1) std::snprintf(shape, sizeof shape, "(%" PRId64 ",)", v.shape[0]);
    else std::snprintf(shape, sizeof shape, "(%" PRId64 ", %" PRId64 ")", v.shape[0], v.shape[1]);
    return invalid_argument(fmt("%s.shape: must be one element (tensor-wise) or %s with %" PRId64 " (row-wise), got %s",
                                name, what, extent, shape));
  }
  if (v.stride[d] != 1 && extent > 1)
    return invalid_argument(fmt("%s.stride[%d]: the scale vector must be contiguous (stride 1), got %" PRId64, name, d,
                                v.stride[d]));
  out->data = static_cast<const float*>(v.data);
  out->stride = 1;
  return Status::Ok();
}

// One fp32 element (scale_result, amax): any rank <= 2 with every extent 1, 4-byte aligned.
Status read_scalar(const TensorView& v, const char* name, float** out) {
  *out = nullptr;
  if (!present(v)) return Status::Ok();
  WARPSPEC_RETURN_IF_ERROR(check_fp32_small(v, name, "must be fp32", true));
  *out = static_cast<float*>(v.data);
  return Status::Ok();
}

// One block-scale matrix: fp32, rank 2, exactly `rows` x `cols`, 4-byte aligned, strides
// >= 0 (any layout; a dimension of extent 1 may have any stride).
Status read_block_matrix(const TensorView& v, const char* name, int64_t rows, int64_t cols, const char* what) {
  if (!present(v) || v.data == nullptr)
    return invalid_argument(fmt("%s: block scaling needs it: %s fp32, got none", name, what));
  if (v.dtype != DType::kFP32)
    return invalid_argument(fmt("%s.dtype: scales are fp32, got %s", name, dtype_valid(v.dtype) ? dtype_name(v.dtype) : "an unknown dtype"));
  if (v.rank != 2) return invalid_argument(fmt("%s.rank: block scales are %s, rank 2, got rank %d", name, what, v.rank));
  if (v.shape[0] != rows || v.shape[1] != cols)
    return invalid_argument(fmt("%s.shape: block scales are %s = (%" PRId64 ", %" PRId64 "), got (%" PRId64 ", %" PRId64 ")",
                                name, what, rows, cols, v.shape[0], v.shape[1]));
  for (int i = 0; i < 2; ++i)
    if (v.stride[i] < 0) return invalid_argument(fmt("%s.stride[%d]: must be >= 0, got %" PRId64, name, i, v.stride[i]));
  if (reinterpret_cast<uintptr_t>(v.data) % 4 != 0) return misaligned(fmt("%s.data: must be 4-byte aligned (fp32)", name));
  return Status::Ok();
}

}  // namespace

Status read_block_scales(const GemmArgs& args, int64_t m, int64_t n, int64_t k, BlockScaleParams* out) {
  *out = BlockScaleParams{};
  const int64_t kb = (k + 127) / 128, nb = (n + 127) / 128;
  WARPSPEC_RETURN_IF_ERROR(read_block_matrix(args.scale_a, "scale_a", m, kb, "(M, ceil(K/128))"));
  WARPSPEC_RETURN_IF_ERROR(read_block_matrix(args.scale_b, "scale_b", kb, nb, "(ceil(K/128), ceil(N/128))"));
  out->a = static_cast<const float*>(args.scale_a.data);
  out->a_stride_m = args.scale_a.stride[0];
  out->a_stride_k = args.scale_a.stride[1];
  out->b = static_cast<const float*>(args.scale_b.data);
  out->b_stride_k = args.scale_b.stride[0];
  out->b_stride_n = args.scale_b.stride[1];
  out->m_last = int32_t(m > 0 ? m - 1 : 0);
  out->n_block_last = int32_t(nb > 0 ? nb - 1 : 0);
  return Status::Ok();
}

Status read_epilogue_args(const GemmArgs& args, int64_t m, int64_t n, DType d_dtype, bool swapped,
                          EpilogueOpParams* out) {
  EpilogueOpParams e;
  ScaleVector sa, sb;
  // Block scales multiply the product in the mainloop (read_block_scales), not here.
  if (args.scaling != GemmScaling::kBlock) {
    WARPSPEC_RETURN_IF_ERROR(read_scale(args.scale_a, "scale_a", m, 0, "(M, 1) or (M,)", &sa));
    WARPSPEC_RETURN_IF_ERROR(read_scale(args.scale_b, "scale_b", n, 1, "(1, N) or (N,)", &sb));
  }
  const int act = int(args.activation);
  if (act < int(GemmActivation::kNone) || act > int(GemmActivation::kSiLU))
    return invalid_argument(fmt("activation: unknown value %d (none 0, relu 1, gelu_tanh 2, gelu_erf 3, silu 4)", act));
  e.activation = Activation(act);
  const TensorView& b = args.bias;
  if (present(b)) {
    const int64_t want = args.bias_per_row ? m : n;
    const char* along = args.bias_per_row ? "M (bias_per_row: one per row of D)" : "N (one per column of D)";
    if (b.data == nullptr) return invalid_argument("bias.data: must not be null");
    if (d_dtype == DType::kE4M3) {  // an e4m3 D: the bias in a 16-bit type or fp32 (torch's is bf16)
      if (b.dtype != DType::kBF16 && b.dtype != DType::kFP16 && b.dtype != DType::kFP32)
        return invalid_argument(fmt("bias.dtype: with an e4m3 D must be bf16, fp16 or fp32, got %s",
                                    dtype_valid(b.dtype) ? dtype_name(b.dtype) : "an unknown dtype"));
    } else if (b.dtype != d_dtype && b.dtype != DType::kFP32) {
      return invalid_argument(fmt("bias.dtype: must be d's dtype (%s) or fp32, got %s", dtype_name(d_dtype),
                                  dtype_valid(b.dtype) ? dtype_name(b.dtype) : "an unknown dtype"));
    }
    if (b.rank != 1) return invalid_argument(fmt("bias.rank: must be 1 (a vector), got %d", b.rank));
    if (b.shape[0] != want)
      return invalid_argument(fmt("bias.shape[0]: must be %s = %" PRId64 ", got %" PRId64, along, want, b.shape[0]));
    if (b.stride[0] != 1 && want > 1)
      return invalid_argument(fmt("bias.stride[0]: the bias must be contiguous (stride 1), got %" PRId64, b.stride[0]));
    if (reinterpret_cast<uintptr_t>(b.data) % dtype_size(b.dtype) != 0)
      return misaligned(fmt("bias.data: must be aligned to its element size (%zu bytes)", dtype_size(b.dtype)));
    e.bias = b.data;
    e.bias_dtype = b.dtype;
    e.bias_per_row = args.bias_per_row != swapped;
  } else if (args.bias_per_row) {
    return invalid_argument("bias_per_row: set without a bias");
  }
  e.row_scale = swapped ? sb : sa;
  e.col_scale = swapped ? sa : sb;
  // The output's quantisation: an e4m3 D only.
  if (d_dtype != DType::kE4M3) {
    if (present(args.scale_result))
      return invalid_argument(fmt("scale_result: applies to an e4m3 D only (D is %s)", dtype_name(d_dtype)));
    if (present(args.amax)) return invalid_argument(fmt("amax: applies to an e4m3 D only (D is %s)", dtype_name(d_dtype)));
  }
  float* result_scale = nullptr;
  WARPSPEC_RETURN_IF_ERROR(read_scalar(args.scale_result, "scale_result", &result_scale));
  e.result_scale = result_scale;
  WARPSPEC_RETURN_IF_ERROR(read_scalar(args.amax, "amax", &e.amax));
  e.d_fp16 = d_dtype == DType::kFP16;
  *out = e;
  return Status::Ok();
}

bool wants_fused_epilogue(const GemmArgs& args) {
  return present(args.scale_a) || present(args.scale_b) || present(args.bias) ||
         args.activation != GemmActivation::kNone;
}

Status check_epilogue_pointers(const GemmArgs& args, int device) {
  const std::pair<const TensorView*, const char*> views[] = {
      {&args.scale_a, "scale_a"}, {&args.scale_b, "scale_b"}, {&args.bias, "bias"},
      {&args.scale_result, "scale_result"}, {&args.amax, "amax"}};
  for (const auto& [v, name] : views) {
    if (!present(*v)) continue;
    ByteSpan span;
    WARPSPEC_RETURN_IF_ERROR(view_span(*v, name, &span));
    if (!span.empty()) WARPSPEC_RETURN_IF_ERROR(check_device_memory(v->data, name, device));
  }
  return Status::Ok();
}

}  // namespace warpspec::gemm_impl
