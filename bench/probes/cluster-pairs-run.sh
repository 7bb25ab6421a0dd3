#!/usr/bin/env bash
# On the device, in a tree with bench/probes/cluster-pairs.patch applied and its build unpacked
# in ./build: the new cases and the clusters' old ones, the three sanitizers on the new families'
# first two cases, then each row: the library's choice (the pair) against cuBLAS and against
# itself without the pair (--versus-cluster 1x1), in one interleaving (bench/NOTES.md v88, v89).
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-.}
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
T=build/tests/warpspec_gpu_tests
timeout 60 build/tests/warpspec_host_tests --gtest_filter='Cluster*:Describe*:GemmSchedule*' 2>&1 | grep -E "FAILED|PASSED|Failure|^/" | head -10
F='ClusterSharedA/GemmSweep.MatchesReference/0_*:ClusterSharedA/GemmSweep.MatchesReference/1_*:NarrowPair/GemmSweep.MatchesReference/0_*:NarrowPair/GemmSweep.MatchesReference/1_*'
for tool in racecheck synccheck memcheck; do
  ( WARPSPEC_TEST_CPU_REFERENCE=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 $T --gtest_filter="$F" > "$out/san-$tool.log" 2>&1; echo "$tool rc=$?" >> "$out/san-$tool.log" ) &
done
timeout 150 $T --gtest_filter='ClusterSharedA/*:NarrowPair/*:Narrow/*:GemmNarrow*:GemmCluster.*:Cluster/*' 2>&1 | grep -E "FAILED|PASSED|tests ran|Failure|^/|Which|bits" | head -30
wait
for tool in racecheck synccheck memcheck; do echo "== $tool"; grep -E "SUMMARY|rc=|PASSED|FAILED|tests ran" "$out/san-$tool.log" | head -6; done
timeout 200 build/warpspec bench gemm --shape 1x8192x8192 --shape 8x8192x8192 --shape 16x8192x28672 --shape 128x8192x8192 --shape 96x8192x8192 --shape 128x28672x8192 --versus-cluster 1x1 --rounds 3 2>&1 | tail -10
