#!/usr/bin/env bash
# The device call for v54-cluster128.patch (bench/NOTES.md v54): the 128 x 128 tile with a
# 2 x 1 cluster (the pair along M shares B by multicast), asked for by `--tile-n 128
# --cluster 2x1`: correctness through the CLI's --check (pairs whole and split by M's
# end), the sanitizers on one, then its speed against the same tile without a cluster.
#   ./build: main + the patch (a carried build)
set -u
cd "$(dirname "$0")/../.."
ln -sfn "$PWD" /tmp/ci-clone 2>/dev/null
out=${OUT:-/tmp/v54-out}
mkdir -p "$out"
W=build/warpspec T=build/tests/warpspec_gpu_tests
echo "== --check, 128 x 128 tiles in 2 x 1 pairs (M: one, two, three row tiles, ragged)"
for m in 129 160 256 300 1000 2000; do
  timeout 30 "$W" gemm --m $m --n 8192 --k 2048 --tile-n 128 --cluster 2x1 --check --warmup-s 0.1 --rounds 1 \
    --iters 2 > "$out/cli-$m.txt" 2>&1
  echo "-- M=$m rc=$? $(grep -ciE 'mismatch|fail|error' "$out/cli-$m.txt") error lines"
done
echo "== the existing cluster cases (unchanged kernels)"
timeout 90 "$T" --gtest_filter='Cluster/*:GemmCluster*' > "$out/cluster.txt" 2>&1
echo "-- rc=$? $(grep -E '^\[  PASSED|^\[  FAILED  \] [0-9]' "$out/cluster.txt" | tr '\n' ' ')"
echo "== sanitizers on one ragged pair launch"
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 99 --kernel-name-exclude kns=nvjet "$W" gemm --m 300 \
    --n 520 --k 200 --tile-n 128 --cluster 2x1 --warmup-s 0 --rounds 1 --iters 1 > "$out/san-$tool.txt" 2>&1
  echo "-- $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san-$tool.txt" | tr '\n' ' ')"
done
echo "== speed, 128 x 128 tiles, 1 x 1 against 2 x 1, twice"
S="--shape 129x8192x8192 --shape 160x8192x8192 --shape 192x8192x8192 --shape 256x8192x8192 --shape 256x28672x8192"
S="$S --shape 4096x4096x4096 --shape 8192x8192x8192"
for r in 1 2; do
  timeout 120 "$W" bench gemm $S --tile-n 128 --cluster 1x1 --cluster 2x1 --decomposition dp --rounds 3 2>&1 | grep ' tn '
done
