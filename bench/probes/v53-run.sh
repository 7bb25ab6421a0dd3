#!/usr/bin/env bash
# The device call for v53-pingpong.patch (bench/NOTES.md v53): the ping-pong schedule's
# correctness with WARPSPEC_PROBE_PINGPONG=1 (every call it is built for runs it: bf16 in
# and out, A and B K-major, beta = 0, no cluster, data-parallel), then its speed and its
# fused epilogue's cost against the cooperative kernel, in one process each, ABAB.
#   ./build: main + the patch (a carried build; gpu-check's RUNPATH link applies)
#   bench/probes/v53-run.sh
set -u
cd "$(dirname "$0")/../.."
ln -sfn "$PWD" /tmp/ci-clone 2>/dev/null
out=${OUT:-/tmp/v53-out}
mkdir -p "$out"
T=build/tests/warpspec_gpu_tests W=build/warpspec
export WARPSPEC_PROBE_PINGPONG=1
echo "== which kernel runs: one describe line"
WARPSPEC_LOG_CONFIG=once timeout 30 "$W" gemm --m 1000 --n 1337 --k 4104 --check --warmup-s 0.1 --rounds 1 --iters 1 2>&1 |
  grep -E 'schedule|FAIL|ok' | head -3
echo "== several tiles a CTA (the turns between the warpgroups; no GPU test case is K-major bf16 with beta 0 there)"
for shape in "--m 4096 --n 14336 --k 4096 --bias --activation gelu_tanh" "--m 4096 --n 14336 --k 4096" \
             "--m 2000 --n 8192 --k 1000" "--m 1000 --n 8192 --k 4104 --bias --activation relu" "--m 300 --n 30000 --k 200"; do
  timeout 30 "$W" gemm $shape --check --warmup-s 0.1 --rounds 1 --iters 2 > "$out/cli.txt" 2>&1
  echo "-- $shape: rc=$? $(grep -ciE 'mismatch|fail|error' "$out/cli.txt") error lines"
done
echo "== GPU tests, the ping-pong kernel where it is built (per-test output to files: a hang names its test)"
n=0
for g in 'Shapes/*:TailRows/*:ManyTiles/*:Epilogue/*:BatchAndSchedule/*:Variants/*' \
         'Epilogue16Bit/*:KSplit/*:Hostile.Gemm*:GemmKSplit*:Pdl*'; do
  n=$((n + 1)); s=$(date +%s)
  timeout 200 "$T" --gtest_filter="$g" > "$out/pp$n.txt" 2>&1
  rc=$?
  echo "-- group $n rc=$rc $(($(date +%s) - s)) s $(grep -E '^\[  PASSED|^\[  FAILED  \] [0-9]' "$out/pp$n.txt" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \] ' "$out/pp$n.txt" | head -8
  [ $rc = 124 ] && tail -2 "$out/pp$n.txt"
done
echo "== Python GEMM tests"
WARPSPEC_LIBRARY=$PWD/build/libwarpspec.so PYTHONPATH=$PWD/python timeout 120 \
  python3 -m pytest -q -p no:cacheprovider tests/python/test_gemm.py 2>&1 | tail -2
echo "== memcheck, racecheck, synccheck (K-major bf16 cases: ragged M and N, several tiles a CTA, fused)"
F='TailRows/GemmSweep.MatchesReference/3_*:TailRows/GemmSweep.MatchesReference/15_*:TailRows/GemmSweep.MatchesReference/23_*'
F="$F:Shapes/GemmSweep.MatchesReference/13_*:Shapes/GemmSweep.MatchesReference/9_*"
F="$F:Epilogue16Bit/GemmFp8Sweep.MatchesFloat64Reference/14_*:Epilogue16Bit/GemmFp8Sweep.MatchesFloat64Reference/47_*"
for tool in memcheck racecheck synccheck; do
  WARPSPEC_TEST_CPU_REFERENCE=1 timeout 90 compute-sanitizer --tool $tool --error-exitcode 99 \
    --kernel-name-exclude kns=nvjet "$T" --gtest_filter="$F" > "$out/san-$tool.txt" 2>&1
  echo "-- $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  PASSED|^\[  FAILED  \] [0-9]' "$out/san-$tool.txt" | tr '\n' ' ')"
done
echo "== speed: cooperative (pp=0) and ping-pong (pp=1) in turns; --plain gives the fused epilogue's cost"
S="--shape 8192x8192x8192 --shape 4096x14336x4096 --shape 4096x4096x4096"
for pp in 0 1 0 1; do
  WARPSPEC_PROBE_PINGPONG=$pp timeout 90 "$W" bench gemm $S --bias --activation gelu_tanh --plain --rounds 3 2>&1 |
    grep -E ' tn |cost' | sed "s/^/pp=$pp /"
done
echo "== the plain GEMM on the same 128 x 128 tiles: cooperative against ping-pong"
for pp in 0 1 0 1; do
  WARPSPEC_PROBE_PINGPONG=$pp timeout 60 "$W" bench gemm $S --tile-n 128 --decomposition dp --rounds 3 2>&1 |
    grep ' tn ' | sed "s/^/pp=$pp /"
done
