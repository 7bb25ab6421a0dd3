#pragma once
// GEMM problems for the program: device buffers with random data, our kernel and
// cuBLAS on the same buffers, timing with CUDA events (median, inputs rotated past L2)
// and the error against cuBLAS. Shared by `warpspec gemm`, `bench gemm` and `demo`.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "warpspec/warpspec.hpp"

namespace warpspec::tools {

struct GemmProblem {
  int64_t m = 4096, n = 4096, k = 4096, batch = 1;
  std::string layout = "tn";  // A then B: t = row-major A / K-major B... see layout_help
  DType in = DType::kBF16;
  DType out = DType::kBF16;
  float alpha = 1.0f, beta = 0.0f;
  GemmRaster raster = GemmRaster::kHeuristic;
  int swizzle = 0, tile_n = 0;

  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(batch); }
  std::string describe() const;
};

inline constexpr const char* kLayoutHelp =
    "operand layouts, BLAS style: first letter A, second B; 't' = A row-major (K contiguous) / "
    "B row-major (N contiguous), 'n' = column-major. tn = both K-contiguous (the usual)";

// Parses "bf16"/"fp16"/"fp32"; false if unknown.
bool parse_dtype(const std::string& s, DType* out);

struct Timing {
  double median_ms = 0;
  double tflops = 0;
};

class GemmRunner {
 public:
  // Allocates enough copies of A, B (and C) that cycling through them defeats L2.
  // `status()` says whether that worked.
  explicit GemmRunner(const GemmProblem& p, bool rotate = true);
  ~GemmRunner();
  GemmRunner(const GemmRunner&) = delete;
  GemmRunner& operator=(const GemmRunner&) = delete;

  const Status& status() const { return status_; }
  Status run_ours(int set, cudaStream_t stream);
  Status run_cublas(int set, cudaStream_t stream);
  // Median over `iters` launches after `warmup`, rotating input sets.
  Status time(bool ours, int warmup, int iters, Timing* out);
  // ||ours - cuBLAS(fp32)||_F / ||cuBLAS||_F and the largest absolute difference, with
  // D poisoned before our launch (NaN anywhere shows as an infinite error).
  Status check(double* rel_error, double* max_abs_error);

 private:
  GemmArgs args_for(int set) const;
  GemmProblem p_;
  Status status_;
  int sets_ = 1;
  std::vector<void*> a_, b_, c_;
  void* d_ = nullptr;
  void* ref_ = nullptr;  // fp32 reference
  void* cublas_ = nullptr;
};

// Tolerance for the relative Frobenius error: output rounding dominates.
double gemm_tolerance(DType out);

}  // namespace warpspec::tools
