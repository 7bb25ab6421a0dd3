#!/usr/bin/env bash
# On the device, with .dev/xz/{cta,pairfix}.tar.xz carried: v90 (the pair's producer waits at CTA
# scope: cta) and v90 + v92 (the pair's tile at 4 stages, as cuBLAS's pair) + v93 (one arrival
# per consumer warpgroup and CTA, CUTLASS's count: pairfix). The cluster tests and racecheck on
# pairfix, then each build's pairs against its own 1 x 1 in one interleaving (its 1 x 1 kernels
# are main's), then ncu of pairfix's pairs against 1 x 1 (pair-ncu.sh). QUICK=1: no racecheck,
# no ncu.
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
L="--shape 2048x2048x2048 --shape 4096x4096x4096 --shape 4096x8192x28672"
rm -rf build && tar xJf .dev/xz/pairfix.tar.xz
timeout 120 build/tests/warpspec_gpu_tests --gtest_filter='Cluster/*:GemmCluster*' 2>&1 | grep -E "PASSED|FAILED|tests ran" | head -5
[ -n "$QUICK" ] || WARPSPEC_TEST_CPU_REFERENCE=1 timeout 120 compute-sanitizer --tool racecheck --error-exitcode 99 build/tests/warpspec_gpu_tests --gtest_filter='Cluster/GemmSweep.MatchesReference/0_*:Cluster/GemmSweep.MatchesReference/1_*' 2>&1 | grep -E "SUMMARY|PASSED|FAILED" | head -3
for b in ${BUILDS:-pairfix cta}; do
  rm -rf build && tar xJf .dev/xz/$b.tar.xz
  L="$L" bash bench/probes/pair-versus.sh $b
done
[ -n "$QUICK$NONCU" ] && exit 0
rm -rf build && tar xJf .dev/xz/pairfix.tar.xz
SHAPES=4096x8192x28672 timeout 100 bash bench/probes/pair-ncu.sh
