#!/usr/bin/env bash
# Stop 71's device call (~400 s; .dev/xz/build.tar.xz = the stop's build with line tables): the
# e4m3 D (scale_result, amax) on the GPU: the FP8 GPU tests (its cases and the sweep whose
# kernels share its epilogue), Python against torch._scaled_mm, the CLI's check against
# cuBLASLt's e4m3 D, memcheck on three of its cases, and its speed next to the bf16 D; last,
# if time is left, v96's swizzle 16 against the library's order.
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
rm -rf build && tar xJf .dev/xz/build.tar.xz
T=build/tests/warpspec_gpu_tests W=build/warpspec
timeout 150 $T --gtest_filter='*GemmFp8*:*Fp8Out*:*CApi*' 2>&1 | grep -E "FAILED|Failure|tests ran|PASSED|expected|amax" | head -40
WARPSPEC_LIBRARY=$PWD/build/libwarpspec.so PYTHONPATH=$PWD/python timeout 120 python3 -m pytest -q -p no:cacheprovider \
  tests/python/test_scaled_mm.py 2>&1 | grep -vE "^\.+ *\[|^$" | tail -25
for extra in "" "--scale-result 0.0625 --bias --activation gelu_tanh" "--scaling row" "--scaling block"; do
  timeout 40 $W gemm --dtype e4m3 --out-dtype e4m3 --m 2000 --n 3072 --k 4096 --check --peer $extra 2>&1 | grep -E "check|error|refused|n/a" | sed "s/^/check [$extra]: /"
done
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $T \
  --gtest_filter='Fp8Out/GemmFp8Sweep.MatchesFloat64Reference/1_*:Fp8Out/GemmFp8Sweep.MatchesFloat64Reference/3_*:GemmFp8.E4m3OutputAmaxScaleAndNan' \
  2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED" | head -5; echo "memcheck rc=${PIPESTATUS[0]}"
timeout 60 $W bench gemm --dtype e4m3 --out-dtype e4m3 --shape 8192x8192x8192 --shape 4096x14336x4096 \
  --rounds 3 2>&1 | grep -E "^#|^[0-9]" | sed "s/^/e4m3 D: /"
timeout 45 $W bench gemm --dtype e4m3 --out-dtype bf16 --shape 8192x8192x8192 --shape 4096x14336x4096 \
  --rounds 3 2>&1 | grep -E "^[0-9]" | sed "s/^/bf16 D: /"
timeout 60 $W bench gemm --shape 4096x14336x28672 --shape 4096x8192x28672 \
  --versus-swizzle 16 --rounds 3 2>&1 | grep -E "^#|^[0-9]" | sed "s/^/sw16 coop: /"
