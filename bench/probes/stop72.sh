#!/usr/bin/env bash
# Stop 72's device call (~170 s; cut for a small budget): the FP8 16-bit D as one kernel (bf16
# or fp16 at run time, config.hpp kernel_config): the FP8 GPU tests with the new beta·C / fp16
# cases, memcheck on the new cases, then fp16 and bf16 D speed against 3c37a96's library
# (.dev/xz/base-lib.xz) ABBA, and ours against cuBLASLt.
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
rm -rf build && tar xJf .dev/xz/build.tar.xz
T=build/tests/warpspec_gpu_tests W=build/warpspec
timeout 120 $T --gtest_filter='Fp8/*:Fp8PingPong/*:GemmFp8.*' 2>&1 | grep -E "FAILED|Failure|tests ran|PASSED|expected" | head -30
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='Fp8/GemmFp8Sweep.*beta*' \
  2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED" | head -5; echo "memcheck rc=${PIPESTATUS[0]}"
timeout 80 scripts/gpu-bench-compare --lib base=.dev/xz/base-lib.xz --lib new=build -- bench gemm --dtype e4m3 \
  --out-dtype fp16 --shape 8192x8192x8192 --shape 4096x14336x4096 --rounds 2 2>&1 | tail -5 | sed "s/^/fp16 D: /"
for o in fp16 bf16; do
  timeout 30 $W bench gemm --dtype e4m3 --out-dtype $o --shape 8192x8192x8192 --shape 4096x14336x4096 --rounds 3 \
    2>&1 | grep -E "^[0-9]" | sed "s/^/vs cuBLASLt $o D: /"
done
