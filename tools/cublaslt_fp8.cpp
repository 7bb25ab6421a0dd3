#include "cublaslt_fp8.hpp"

#include <cublasLt.h>

namespace warpspec::tools {
namespace {

cudaDataType lt_type(DType t) {
  return t == DType::kBF16 ? CUDA_R_16BF : t == DType::kFP16 ? CUDA_R_16F : t == DType::kE4M3 ? CUDA_R_8F_E4M3 : CUDA_R_32F;
}

// The scale mode of cuBLASLt's A (our B) or B (our A).
int32_t lt_scale_mode(ScaleMode s, bool lt_a) {
  if (s == ScaleMode::kRow) return CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
  if (s == ScaleMode::kBlock)
    return lt_a ? CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F : CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
  return CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
}

// cuBLAS's advice for Hopper: a 32 MiB workspace.
constexpr size_t kWorkspaceBytes = size_t(32) << 20;

}  // namespace

struct CublasLtFp8::Impl {
  LtFp8Problem p;
  Status status;
  std::string unavailable;
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;  // cuBLASLt's A (our B), B (our A), D (and C)
  cublasLtMatrixLayout_t c = nullptr;  // an e4m3 D's C: bf16 (cuBLASLt's FP8-output rule; beta 0, never read)
  void* c_data = nullptr;              // its buffer: C and D may share one only with one layout
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulAlgo_t algo = {};
  void* workspace = nullptr;

  // An attribute or descriptor call: false (and the reason kept) on failure. `refusal`: a
  // failure means cuBLASLt does not take the combination (n/a), not an error.
  bool ok(cublasStatus_t s, const char* what, bool refusal) {
    if (s == CUBLAS_STATUS_SUCCESS) return true;
    const std::string why = std::string(what) + ": " + cublasGetStatusString(s);
    if (refusal) unavailable = "cuBLASLt refused " + why;
    else status = internal_error("cuBLASLt " + why);
    return false;
  }
  template <class T>
  bool set(cublasLtMatmulDescAttributes_t attr, const T& value, const char* what, bool refusal = false) {
    return ok(cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof value), what, refusal);
  }
  bool layout(cublasLtMatrixLayout_t* l, cudaDataType type, int64_t rows, int64_t cols, int64_t batch_stride) {
    if (!ok(cublasLtMatrixLayoutCreate(l, type, uint64_t(rows), uint64_t(cols), rows), "a layout", false)) return false;
    if (p.batch == 1) return true;
    const int32_t count = int32_t(p.batch);
    return ok(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
              "batch count", false) &&
           ok(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &batch_stride,
                                               sizeof batch_stride),
              "batch stride", false);
  }
  void setup() {
    const cudaError_t e = cudaMalloc(&workspace, kWorkspaceBytes);
    if (e != cudaSuccess) return void(status = cuda_error("cudaMalloc(cuBLASLt workspace)", e));
    if (!ok(cublasLtCreate(&handle), "cublasLtCreate", false)) return;
    if (!ok(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "a matmul descriptor", false)) return;
    const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
    const int8_t fast = p.fast_accum ? 1 : 0;
    if (!set(CUBLASLT_MATMUL_DESC_TRANSA, t, "TRANSA") || !set(CUBLASLT_MATMUL_DESC_TRANSB, n, "TRANSB") ||
        !set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, p.scale_b, "A_SCALE_POINTER") ||
        !set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, p.scale_a, "B_SCALE_POINTER") ||
        !set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, fast, "FAST_ACCUM", true))
      return;
    if (p.scale != ScaleMode::kTensor &&
        (!set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, lt_scale_mode(p.scale, true), "A_SCALE_MODE", true) ||
         !set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, lt_scale_mode(p.scale, false), "B_SCALE_MODE", true)))
      return;
    // Its A: our B, stored K x N column-major (op T: N x K); its B: our A, K x M column-major;
    // its D: N x M column-major, our row-major M x N.
    if (!layout(&a, CUDA_R_8F_E4M3, p.k, p.n, p.k * p.n) || !layout(&b, CUDA_R_8F_E4M3, p.k, p.m, p.m * p.k) ||
        !layout(&d, lt_type(p.out), p.n, p.m, p.m * p.n))
      return;
    if (p.out == DType::kE4M3) {
      if (!layout(&c, CUDA_R_16BF, p.n, p.m, p.m * p.n)) return;
      const cudaError_t ce = cudaMalloc(&c_data, size_t(p.batch * p.m * p.n) * 2);
      if (ce != cudaSuccess) return void(status = cuda_error("cudaMalloc(cuBLASLt's C)", ce));
      if (p.scale_d != nullptr && !set(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, p.scale_d, "D_SCALE_POINTER", true)) return;
      if (p.amax != nullptr && !set(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, p.amax, "AMAX_D_POINTER", true)) return;
    }
    if (!ok(cublasLtMatmulPreferenceCreate(&pref), "a preference", false)) return;
    const uint64_t bytes = kWorkspaceBytes;
    if (!ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof bytes),
            "the workspace size", false))
      return;
    cublasLtMatmulHeuristicResult_t result = {};
    int found = 0;
    const cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(handle, desc, a, b, c ? c : d, d, pref, 1, &result, &found);
    if (!ok(s, "cublasLtMatmulAlgoGetHeuristic", true)) return;
    if (found == 0 || result.state != CUBLAS_STATUS_SUCCESS) {
      unavailable = "cuBLASLt has no algorithm for it (cublasLtMatmulAlgoGetHeuristic found none)";
      return;
    }
    algo = result.algo;
  }
  ~Impl() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    for (cublasLtMatrixLayout_t l : {a, b, c, d})
      if (l) cublasLtMatrixLayoutDestroy(l);
    if (desc) cublasLtMatmulDescDestroy(desc);
    if (handle) cublasLtDestroy(handle);
    cudaFree(workspace);
    cudaFree(c_data);
  }
};

CublasLtFp8::CublasLtFp8(const LtFp8Problem& p) : impl_(std::make_unique<Impl>()) {
  impl_->p = p;
  impl_->setup();
}

CublasLtFp8::~CublasLtFp8() = default;

const Status& CublasLtFp8::status() const { return impl_->status; }

const std::string& CublasLtFp8::unavailable() const { return impl_->unavailable; }

Status CublasLtFp8::run(const void* a, const void* b, void* d, cudaStream_t stream) const {
  const Impl& x = *impl_;
  WARPSPEC_RETURN_IF_ERROR(x.status);
  if (!x.unavailable.empty()) return unsupported(x.unavailable);
  const cublasStatus_t s = cublasLtMatmul(x.handle, x.desc, &x.p.alpha, b, x.a, a, x.b, &x.p.beta, x.c ? x.c_data : d,
                                          x.c ? x.c : x.d, d, x.d, &x.algo, x.workspace, kWorkspaceBytes, stream);
  if (s != CUBLAS_STATUS_SUCCESS) return internal_error(std::string("cublasLtMatmul: ") + cublasGetStatusString(s));
  return Status::Ok();
}

}  // namespace warpspec::tools
