#!/usr/bin/env bash
# Stop 73 in one device call (~480 s): bench/probes/stop73.sh (v99 measured, 4096^3 in
# CUTLASS's profiler's conditions), then scripts/gpu-check --bench on the same build, then
# `bench attention --masks` (issue 13's varlen and window rows).
# Both outputs go to $OUT; the summary table and the probe's lines print last.
out=${OUT:-./gpu-check-out}; mkdir -p "$out"
timeout 220 bench/probes/stop73.sh > "$out/stop73.txt" 2>&1
OUT=$out timeout 300 scripts/gpu-check --bench > "$out/gpu-check.txt" 2>&1; echo "gpu-check rc=$?"
timeout 70 build/warpspec bench attention --masks --rounds 3 > "$out/masks.txt" 2>&1; echo "masks rc=$?"
grep -v "^\[" "$out/gpu-check.txt" | tail -45
grep -v "^$" "$out/masks.txt" | tail -14
cat "$out/stop73.txt"
