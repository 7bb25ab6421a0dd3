#!/usr/bin/env bash
# Stop 71's second device call (~300 s): after the first (bench/NOTES.md stop 71), the fixed tests
# (the amax test's D padded to 16 bytes; Python's e4m3 step from frexp; opcheck without
# test_schema), cuBLASLt's e4m3 D with a C buffer of its own, the quantisation's interior fast
# path; then ours against cuBLASLt with an e4m3 D and with a bf16 D.
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
rm -rf build && tar xJf .dev/xz/build.tar.xz
T=build/tests/warpspec_gpu_tests W=build/warpspec
timeout 120 $T --gtest_filter='*GemmFp8*:*Fp8Out*:*CApi*' 2>&1 | grep -E "^\[  (PASSED|FAILED) |Failure|tests ran" | head -20
WARPSPEC_LIBRARY=$PWD/build/libwarpspec.so PYTHONPATH=$PWD/python timeout 120 python3 -m pytest -q -p no:cacheprovider \
  tests/python/test_scaled_mm.py tests/python/test_library.py 2>&1 | grep -E "^FAILED|^E  |passed|failed" | head -30
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $T \
  --gtest_filter='Fp8Out/GemmFp8Sweep.MatchesFloat64Reference/3_*:Fp8Out/GemmFp8Sweep.MatchesFloat64Reference/*_2100x2100x384_*:GemmFp8.E4m3OutputAmaxScaleAndNan' \
  2>&1 | grep -E "ERROR SUMMARY|PASSED|FAILED" | head -5; echo "memcheck rc=${PIPESTATUS[0]}"
for extra in "" "--scale-result 0.0625 --bias --activation gelu_tanh" "--fast-accum"; do
  timeout 40 $W gemm --dtype e4m3 --out-dtype e4m3 --m 2000 --n 3072 --k 4096 --check --peer $extra 2>&1 | grep -iE "check|error|n/a" | sed "s/^/check [$extra]: /"
done
timeout 70 $W bench gemm --dtype e4m3 --out-dtype e4m3 --shape 8192x8192x8192 --shape 4096x14336x4096 --shape 4096x4096x4096 \
  --rounds 3 2>&1 | grep -E "^#|^[0-9]|error" | sed "s/^/e4m3 D: /"
timeout 60 $W bench gemm --dtype e4m3 --out-dtype bf16 --shape 8192x8192x8192 --shape 4096x14336x4096 --shape 4096x4096x4096 \
  --rounds 3 2>&1 | grep -E "^[0-9]" | sed "s/^/bf16 D: /"
