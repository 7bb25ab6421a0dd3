#!/usr/bin/env bash
# Stop 74's device call (~500 s): v100 (one plain 16-bit cooperative kernel writes D in the
# input's type or fp32; the FP8 units merged). Carry .dev/xz/{v100.tar.xz,v99-lib.xz}.
#   1. the plain cooperative kernels against v99's library (gpu-bench-compare, ABBA): D bf16
#      (tn, the cooperative schedule forced) and D fp32 (nn): predicted within noise (±1%);
#   2. scripts/gpu-check --bench: every test, pytest, fuzz, CLI, SASS, the quick GEMM bench;
#   3. memcheck and racecheck on D fp32 and 16-bit cases of the plain kernels (the merged epilogue).
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-./gpu-check-out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
rm -rf build && tar xJf .dev/xz/v100.tar.xz
S="--shape 8192x8192x8192 --shape 4096x4096x4096 --shape 2048x2048x2048 --shape 4096x8192x1024"
timeout 80 scripts/gpu-bench-compare --lib v99=.dev/xz/v99-lib.xz --lib v100=build -- bench gemm $S --schedule cooperative --rounds 3 2>&1 | tail -8 | sed 's/^/[bf16-coop] /'
timeout 80 scripts/gpu-bench-compare --lib v99=.dev/xz/v99-lib.xz --lib v100=build -- bench gemm $S --out-dtype fp32 --layout nn --rounds 3 2>&1 | tail -8 | sed 's/^/[fp32-nn] /'
OUT=$out timeout 330 scripts/gpu-check --bench > "$out/gpu-check.txt" 2>&1; echo "gpu-check rc=$?"
F='Variants/GemmSweep.MatchesReference/1*:Epilogue/GemmSweep.*:TailRows/*'
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/warpspec_gpu_tests --gtest_filter="$F" --gtest_brief=1 2>&1 | tail -3 | sed "s/^/[$tool] /"
done
grep -v "^\[" "$out/gpu-check.txt" | tail -45
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
