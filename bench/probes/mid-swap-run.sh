#!/usr/bin/env bash
# Device call for bench/probes/mid-swap.patch (~5 min): ./build is the probe's build (its
# tests know the new cases), MAIN_LIB main's library (a folder, a .so or its .xz).
#   MAIN_LIB=.dev/main.so.xz bench/probes/mid-swap-run.sh
# The new sweep (Mid/*, GemmMid.*) and the narrow tiles' cases; memcheck, racecheck and
# synccheck on a split-K and a beta case; main's library against the probe's in one
# interleaving (gpu-bench-compare, ABBA) on 129-256-row problems; the probe against cuBLAS.
set -u
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-$PWD/gpu-check-out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
T=build/tests/warpspec_gpu_tests
timeout 120 $T --gtest_filter='Mid/*:GemmMid*:Narrow/*:GemmNarrow*' > "$O/tests.log" 2>&1
echo "tests rc=$?"; grep -E '^\[  (FAILED|PASSED|SKIPPED) ' "$O/tests.log" | head -20
for tool in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $T \
    --gtest_filter='Mid/GemmSweep.MatchesReference/2_*:Mid/GemmSweep.MatchesReference/7_*' > "$O/san-$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$O/san-$tool.log" | tail -1)"
done
timeout 300 scripts/gpu-bench-compare --lib main="${MAIN_LIB:?main\'s library}" --lib mid=build -- bench gemm \
  --shape 129x8192x8192 --shape 160x8192x8192 --shape 192x8192x8192 --shape 256x8192x8192 \
  --shape 192x28672x8192 --shape 256x28672x8192 --shape 200x4096x4096 --shape 192x8192x1024 --rounds 3 --warmup-s 0.5
timeout 60 build/warpspec bench gemm --shape 192x8192x8192 --shape 256x28672x8192 --rounds 3 --warmup-s 0.5
