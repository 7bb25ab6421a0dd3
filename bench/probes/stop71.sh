#!/usr/bin/env bash
# Stop 71's first device call (~300 s; .dev/xz/build.tar.xz = 376dbb2's build with line tables):
# the e4m3 D (scale_result, amax) on the GPU: its tests and the FP8 sweep it shares a kernel family
# with, memcheck on three of its cases, the CLI's check against cuBLASLt's e4m3 D, and its speed
# next to the bf16 D; then v96's swizzle 16 against the library's order (cooperative, ping-pong).
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
rm -rf build && tar xJf .dev/xz/build.tar.xz
T=build/tests/warpspec_gpu_tests W=build/warpspec
timeout 150 $T --gtest_filter='*GemmFp8*:*Fp8Out*:*CApi*' 2>&1 | grep -E "FAILED|Failure|tests ran|PASSED|expected|amax" | head -40
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $T \
  --gtest_filter='Fp8Out/GemmFp8Sweep.MatchesFloat64Reference/1_*:Fp8Out/GemmFp8Sweep.MatchesFloat64Reference/3*:GemmFp8.E4m3OutputAmaxScaleAndNan' \
  2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED" | head -5; echo "memcheck rc=${PIPESTATUS[0]}"
for extra in "" "--scale-result 0.0625 --bias --activation gelu_tanh" "--scaling row" "--scaling block"; do
  timeout 40 $W gemm --dtype e4m3 --out-dtype e4m3 --m 2000 --n 3000 --k 4096 --check --peer $extra 2>&1 | grep -E "check|error|refused" | sed "s/^/check [$extra]: /"
done
timeout 90 $W bench gemm --dtype e4m3 --out-dtype e4m3 --shape 8192x8192x8192 --shape 4096x14336x4096 --shape 4096x4096x4096 \
  --rounds 3 2>&1 | grep -E "^#|^[0-9]" | sed "s/^/e4m3 D: /"
timeout 60 $W bench gemm --dtype e4m3 --out-dtype bf16 --shape 8192x8192x8192 --shape 4096x14336x4096 --shape 4096x4096x4096 \
  --rounds 3 2>&1 | grep -E "^[0-9]" | sed "s/^/bf16 D: /"
timeout 70 $W bench gemm --shape 4096x14336x28672 --shape 4096x8192x28672 --shape 8192x8192x8192 \
  --versus-swizzle 16 --rounds 3 2>&1 | grep -E "^#|^[0-9]" | sed "s/^/sw16 coop: /"
timeout 50 $W bench gemm --shape 4096x8192x28672 --shape 4096x14336x4096 \
  --schedule pingpong --versus-swizzle 16 --rounds 3 2>&1 | grep -E "^[0-9]" | sed "s/^/sw16 pingpong: /"
