#!/usr/bin/env bash
# The device call for v51-tail-rows.patch (bench/NOTES.md v51): correctness of every GEMM
# path the patch touches, then the tail rows against main in one call.
#   MAIN_LIB=<main's build dir> bench/probes/v51-run.sh     (./build: the patched build)
set -u
cd "$(dirname "$0")/../.."
main=${MAIN_LIB:?MAIN_LIB: a build of main without the patch}
T=build/tests/warpspec_gpu_tests
W=build/warpspec
echo "== GPU tests, every GEMM path (attention untouched by the patch)"
timeout 150 "$T" --gtest_filter='-Attention*:Serving/*:LongContext*:*Attention*' --gtest_brief=1 2>&1 | tail -15
echo "== Python GEMM tests"
WARPSPEC_LIBRARY=$PWD/build/libwarpspec.so PYTHONPATH=$PWD/python timeout 120 \
  python3 -m pytest -q -p no:cacheprovider tests/python/test_gemm.py tests/python/test_scaled_mm.py 2>&1 | tail -2
echo "== memcheck and synccheck on ragged-M cases"
F='KSplit/GemmSweep.MatchesReference/66_*:ManyTiles/GemmSweep.MatchesReference/5_*:Shapes/GemmSweep.MatchesReference/*'
for tool in memcheck synccheck; do
  echo "-- $tool: $(timeout 150 compute-sanitizer --tool $tool --kernel-name-exclude kns=nvjet "$T" --gtest_filter="$F" 2>&1 |
    grep -E 'ERROR SUMMARY|PASSED|FAILED' | tr '\n' ' ')"
done
echo "== tail rows: patched (P) against main (M), twice, ABAB"
S="--shape 96x8192x8192 --shape 129x8192x8192 --shape 160x8192x8192 --shape 192x8192x8192"
S="$S --shape 4096x4096x4096 --shape 8192x8192x8192 --shape 4100x4096x4096 --shape 4096x14336x4096"
for r in 1 2; do
  timeout 60 "$W" bench gemm $S --rounds 3 2>&1 | grep ' tn ' | sed 's/^/P /'
  LD_LIBRARY_PATH=$main timeout 60 "$W" bench gemm $S --rounds 3 2>&1 | grep ' tn ' | sed 's/^/M /'
done
echo "== the same grid, 128 wide data-parallel (v51's table)"
timeout 60 "$W" bench gemm --shape 256x8192x8192 --shape 160x8192x8192 --shape 129x8192x8192 --tile-n 128 \
  --decomposition dp --rounds 3 2>&1 | grep ' tn ' | sed 's/^/P /'
