#!/usr/bin/env bash
# The device call for v51-tail-rows.patch (+ v51b-tail-rows8.patch, v51c-tail-rows8-fp8.patch
# on top, in that order) (bench/NOTES.md v51): correctness of every GEMM path the patches
# touch on ./build (the candidate), then the tail rows against the other libraries in one call.
#   LIBS="main=<main's build dir> [v51=<v51-only build dir>]" bench/probes/v51-run.sh
set -u
cd "$(dirname "$0")/../.."
libs=${LIBS:?LIBS: label=build-dir pairs, e.g. main=/tmp/main/build}
T=build/tests/warpspec_gpu_tests
W=build/warpspec
echo "== GPU tests, every GEMM path (attention untouched by the patches)"
timeout 150 "$T" --gtest_filter='-Attention*:Serving/*:LongContext*:*Attention*' --gtest_brief=1 2>&1 | tail -15
echo "== Python GEMM tests"
WARPSPEC_LIBRARY=$PWD/build/libwarpspec.so PYTHONPATH=$PWD/python timeout 120 \
  python3 -m pytest -q -p no:cacheprovider tests/python/test_gemm.py tests/python/test_scaled_mm.py 2>&1 | tail -2
echo "== memcheck, racecheck and synccheck on ragged-M cases"
F='KSplit/GemmSweep.MatchesReference/66_*:ManyTiles/GemmSweep.MatchesReference/5_*:Shapes/GemmSweep.MatchesReference/*'
for tool in memcheck racecheck synccheck; do
  echo "-- $tool: $(timeout 150 compute-sanitizer --tool $tool --kernel-name-exclude kns=nvjet "$T" --gtest_filter="$F" 2>&1 |
    grep -E 'ERROR SUMMARY|PASSED|FAILED' | tr '\n' ' ')"
done
echo "== tail rows: the candidate (cand) against each library, twice"
S="--shape 96x8192x8192 --shape 129x8192x8192 --shape 160x8192x8192 --shape 192x8192x8192 --shape 16x8192x8192"
S="$S --shape 4096x4096x4096 --shape 8192x8192x8192 --shape 4100x4096x4096 --shape 4096x14336x4096"
for r in 1 2; do
  timeout 60 "$W" bench gemm $S --rounds 3 2>&1 | grep ' tn ' | sed 's/^/cand /'
  for pair in $libs; do
    LD_LIBRARY_PATH=${pair#*=} timeout 60 "$W" bench gemm $S --rounds 3 2>&1 | grep ' tn ' | sed "s/^/${pair%%=*} /"
  done
done
echo "== FP8 (v51c): the candidate against each library"
F8="--dtype e4m3 --shape 129x8192x8192 --shape 160x8192x8192 --shape 4100x4096x4096 --shape 8192x8192x8192"
timeout 60 "$W" bench gemm $F8 --rounds 3 2>&1 | grep ' tn ' | sed 's/^/cand /'
for pair in $libs; do
  LD_LIBRARY_PATH=${pair#*=} timeout 60 "$W" bench gemm $F8 --rounds 3 2>&1 | grep ' tn ' | sed "s/^/${pair%%=*} /"
done
echo "== the same grid, 128 wide data-parallel (v51's table)"
timeout 60 "$W" bench gemm --shape 256x8192x8192 --shape 160x8192x8192 --shape 129x8192x8192 --tile-n 128 \
  --decomposition dp --rounds 3 2>&1 | grep ' tn ' | sed 's/^/cand /'
