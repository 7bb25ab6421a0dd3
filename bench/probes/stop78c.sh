#!/usr/bin/env bash
# v102's short call (~200 s): built as stop78b.sh says (bench/probes/v102-vt-before.patch),
# carry .dev/xz/v102.tar.xz. The same-bits test, the FP8 GPU tests, the 16k rows with the
# transpose in the kernel and before it (processes kernel before before kernel), then the
# sanitizers on the reference test with V transposed before every call.
export PATH=/usr/local/cuda/bin:$PATH
clk() { nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader; }
clk
rm -rf build && tar xJf .dev/xz/v102.tar.xz
export LD_LIBRARY_PATH=$PWD/build  # a build packed from another tree keeps that tree's rpath
T=build/tests/warpspec_gpu_tests
F='--gtest_filter=AttentionFp8.VTransposedBeforeTheKernelGivesTheSameBits'
timeout 40 $T $F 2>&1 | grep -E "Failure|Expected|Which is|error|differs|FAILED|PASSED|OK \]" | head -30
echo "== the FP8 reference tests with V transposed before the kernel on every call"
WARPSPEC_FP8_V_TRANSPOSE=before timeout 40 $T --gtest_filter='AttentionFp8.*' 2>&1 | tail -2
B="bench attention --dtype e4m3 --head-dims 128 256 --seqlens 16384 --full-only --rounds 2"
for m in kernel before before kernel; do
  echo "== WARPSPEC_FP8_V_TRANSPOSE=$m"
  WARPSPEC_FP8_V_TRANSPOSE=$m timeout 30 build/warpspec $B 2>&1 | grep -vE "^#" | tail -5
done
clk
R='--gtest_filter=AttentionFp8.MatchesTheReferenceOfTheStoredValues'
for tool in racecheck; do
  WARPSPEC_FP8_V_TRANSPOSE=before timeout 45 compute-sanitizer --tool $tool $T $R 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" | tr '\n' ' '; echo " [$tool]"
done
