#!/usr/bin/env bash
# v102 (FP8 attention's V transposed before the kernel), the full call. Build it first:
# `git apply bench/probes/v102-vt-before.patch && scripts/build && scripts/pack-build
# .dev/xz/v102.tar.xz` (branch v102-vt-before here), then carry .dev/xz/v102.tar.xz. In order of value:
#  1. the FP8 attention GPU tests (the new same-bits test first) and the host plan tests;
#  2. bench attention --dtype e4m3 at 8k and 16k, hd128/256, with the transpose forced
#     in the kernel and before it, in separate processes, order kernel before before kernel;
#  3. memcheck / racecheck / synccheck on the same-bits test; the Python FP8 tests.
export PATH=/usr/local/cuda/bin:$PATH
clk() { nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader; }
clk
rm -rf build && tar xJf .dev/xz/v102.tar.xz
export LD_LIBRARY_PATH=$PWD/build  # a build packed from another tree keeps that tree's rpath
T=build/tests/warpspec_gpu_tests
timeout 120 $T --gtest_filter='AttentionFp8.VTransposedBeforeTheKernelGivesTheSameBits' 2>&1 | grep -E "Failure|Expected|Which is|error|differs|FAILED|PASSED|OK \]" | head -30
timeout 120 $T --gtest_filter='AttentionFp8.*:Fp8VTranspose*:Fp8PV*' 2>&1 | tail -3
timeout 60 build/tests/warpspec_host_tests --gtest_filter='KvCache*:Describe*' 2>&1 | tail -2
B="bench attention --dtype e4m3 --head-dims 128 256 --seqlens 8192 16384 --rounds 3"
for m in kernel before before kernel; do
  echo "== WARPSPEC_FP8_V_TRANSPOSE=$m"
  WARPSPEC_FP8_V_TRANSPOSE=$m timeout 100 build/warpspec $B 2>&1 | grep -vE "^#" | tail -9
done
clk
WARPSPEC_LOG_CONFIG=1 timeout 30 build/warpspec attention --dtype e4m3 --head-dim 256 --seqlen-q 16384 --seqlen-k 16384 --batch 1 --heads 8 --check 2>&1 | tail -3 | cut -c1-300
F='--gtest_filter=AttentionFp8.VTransposedBeforeTheKernelGivesTheSameBits'
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool $T $F 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" | tr '\n' ' '; echo " [$tool]"
done
(cd tests/python && WARPSPEC_LIBRARY=$PWD/../../build/libwarpspec.so PYTHONPATH=$PWD/../../python timeout 120 python3 -m pytest -q -x test_attention_fp8.py 2>&1 | tail -3)
clk
# 4. v101 on an H200 only (stop77.sh's rows): the library's small-M choice against --tile-n 64, both orders.
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
S="--shape 128x8192x8192 --shape 96x8192x8192 --shape 64x8192x8192 --shape 128x28672x8192"
case "$name" in
  *H200*)
    timeout 60 build/warpspec bench gemm $S --tile-n 0 --tile-n 64 --rounds 3 2>&1 | grep -E "^[0-9]|geometric"
    timeout 60 build/warpspec bench gemm $S --tile-n 64 --tile-n 0 --rounds 3 2>&1 | grep -E "^[0-9]|geometric"; clk ;;
  *) echo "not an H200 ($name): v101's rows skipped" ;;
esac
