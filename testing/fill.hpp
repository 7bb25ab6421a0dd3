#pragma once
// Device fills for inputs (testing/random.hpp's hashes, so the data is reproducible from
// its seed) and the NaN poison for outputs. For tools/ (whose data lives on the device
// only) and the GPU tests. The kernels are in fill.cu (the warpspec_testbed library), so
// the files that call these compile as plain C++.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "poison.hpp"
#include "warpspec/tensor.hpp"

namespace warpspec::testbed {

// n elements of dtype t (bf16, fp16, fp32, e4m3) at p: uniform in [-1, 1) (GEMM operands:
// products stay O(1)).
cudaError_t fill_uniform(void* p, DType t, size_t n, uint64_t seed, cudaStream_t stream = nullptr);

// n elements of dtype t at p: bell-shaped with unit variance (attention Q, K, V).
cudaError_t fill_normalish(void* p, DType t, size_t n, uint64_t seed, cudaStream_t stream = nullptr);

// FP8 scales: positive, log-uniform in [1/4, 4) (a wrong scale shows; an fp16 D keeps its
// range), over a rows x cols tensor with any strides (elements), by logical index.
cudaError_t fill_scales(float* p, int64_t rows, int64_t cols, int64_t stride_r, int64_t stride_c, uint64_t seed,
                        cudaStream_t stream = nullptr);

// Blocks of 256 threads for a grid-stride loop over n elements: enough to fill any GPU, few
// enough to be cheap to launch.
inline unsigned fill_blocks(size_t n) { return unsigned(n / 256 + 1 < 2048 ? n / 256 + 1 : 2048); }

}  // namespace warpspec::testbed
