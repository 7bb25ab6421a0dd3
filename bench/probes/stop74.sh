#!/usr/bin/env bash
# Stop 74's device call (~450 s): v100 (one plain 16-bit cooperative kernel writes D in the
# input's type or fp32; the FP8 units merged). Carry .dev/xz/{v100.tar.xz,v99-lib.xz}.
# Most important first (a call cut short by the device budget keeps what printed):
#   1. scripts/gpu-check --bench: every test, pytest, fuzz, CLI, SASS, the quick GEMM bench;
#   2. the plain cooperative kernels against v99's library (gpu-bench-compare, ABBA): D bf16
#      (tn, the cooperative schedule forced) and D fp32 (nn): predicted within noise (±1%);
#   3. memcheck on D fp32 and 16-bit cases of the plain kernels (the merged epilogue).
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-./gpu-check-out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
rm -rf build && tar xJf .dev/xz/v100.tar.xz
OUT=$out timeout 240 scripts/gpu-check --bench > "$out/gpu-check.txt" 2>&1; echo "gpu-check rc=$?"
sed -n '/==== gpu-check summary/,$p' "$out/gpu-check.txt"
grep -E "FAILED|Failed" "$out/gpu-check.txt" | head -20
S="--shape 8192x8192x8192 --shape 4096x4096x4096 --shape 4096x8192x1024"
timeout 60 scripts/gpu-bench-compare --lib v99=.dev/xz/v99-lib.xz --lib v100=build -- bench gemm $S --schedule cooperative --rounds 3 2>&1 | tail -7 | sed 's/^/[bf16-coop] /'
timeout 60 scripts/gpu-bench-compare --lib v99=.dev/xz/v99-lib.xz --lib v100=build -- bench gemm $S --out-dtype fp32 --layout nn --rounds 3 2>&1 | tail -7 | sed 's/^/[fp32-nn] /'
F='Variants/GemmSweep.MatchesReference/1*:Epilogue/GemmSweep.*:TailRows/*'
for tool in memcheck; do
  timeout 50 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/warpspec_gpu_tests --gtest_filter="$F" --gtest_brief=1 2>&1 | tail -3 | sed "s/^/[$tool] /"
done
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
