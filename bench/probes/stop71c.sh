#!/usr/bin/env bash
# stop71b.sh cut to ~150 s for a small budget: the fixed tests, the tensor-wise check against
# cuBLASLt's e4m3 D, and the e4m3 D against the bf16 D (ours) and cuBLASLt.
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name --format=csv,noheader
rm -rf build && tar xJf .dev/xz/build.tar.xz
T=build/tests/warpspec_gpu_tests W=build/warpspec
timeout 40 $T --gtest_filter='GemmFp8.E4m3*:Fp8Out/*' 2>&1 | grep -E "^\[  (PASSED|FAILED) |Failure" | head -8
WARPSPEC_LIBRARY=$PWD/build/libwarpspec.so PYTHONPATH=$PWD/python timeout 45 python3 -m pytest -q -p no:cacheprovider \
  tests/python/test_scaled_mm.py -k e4m3 2>&1 | grep -E "^FAILED|^E  |passed|failed" | head -12
timeout 20 $W gemm --dtype e4m3 --out-dtype e4m3 --m 2000 --n 3072 --k 4096 --check --peer 2>&1 | grep -iE "check|error|n/a"
timeout 45 $W bench gemm --dtype e4m3 --out-dtype e4m3 --shape 8192x8192x8192 --shape 4096x14336x4096 --rounds 3 2>&1 | grep -E "^[0-9]|error" | sed "s/^/e4m3 D: /"
timeout 35 $W bench gemm --dtype e4m3 --out-dtype bf16 --shape 8192x8192x8192 --shape 4096x14336x4096 --rounds 3 2>&1 | grep -E "^[0-9]" | sed "s/^/bf16 D: /"
