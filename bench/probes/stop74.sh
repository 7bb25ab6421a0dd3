#!/usr/bin/env bash
# Stop 74's device call (~330 s; trimmed to the device time left): v100 (one plain 16-bit
# cooperative kernel writes D in the input's type or fp32; the FP8 units merged).
# Carry .dev/xz/{v100.tar.xz,v99-lib.xz}. Most important first:
#   1. the GEMM GPU tests (every GEMM suite: D fp32 runs on every tile and layout) and the demo;
#   2. the plain cooperative kernels against v99's library (gpu-bench-compare, ABBA): D fp32
#      (nn) and D bf16 (tn, the cooperative schedule forced): predicted within noise (±1%);
#   3. memcheck on D fp32 and 16-bit cases of the plain kernels (the merged epilogue).
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
rm -rf build && tar xJf .dev/xz/v100.tar.xz
G='Shapes/*:Epilogue/*:BatchAndSchedule/*:Gemm*:Variants/*:ManyTiles/*:KSplit/*:PingPong/*:TailRows/*:Narrow/*:Cluster/*:WaveTile/*:Fp8*:CApi*:Hostile*'
timeout 170 build/tests/warpspec_gpu_tests --gtest_filter="$G" --gtest_brief=1 > gemm-tests.txt 2>&1; echo "gemm tests rc=$?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran|^\[  FAILED" gemm-tests.txt | head -20
timeout 40 build/warpspec demo 2>&1 | tail -6
S="--shape 8192x8192x8192 --shape 4096x4096x4096 --shape 4096x8192x1024"
timeout 60 scripts/gpu-bench-compare --lib v99=.dev/xz/v99-lib.xz --lib v100=build -- bench gemm $S --out-dtype fp32 --layout nn --rounds 3 2>&1 | tail -7 | sed 's/^/[fp32-nn] /'
timeout 60 scripts/gpu-bench-compare --lib v99=.dev/xz/v99-lib.xz --lib v100=build -- bench gemm $S --schedule cooperative --rounds 3 2>&1 | tail -7 | sed 's/^/[bf16-coop] /'
F='Variants/GemmSweep.MatchesReference/1*:Epilogue/GemmSweep.*:TailRows/*'
timeout 50 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/warpspec_gpu_tests --gtest_filter="$F" --gtest_brief=1 2>&1 | tail -3 | sed "s/^/[memcheck] /"
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
