#!/usr/bin/env bash
# On the device, with .dev/xz/{build,cta,ctapairs}.tar.xz carried: does the pair's producer
# wait at cluster scope (main) cost what our pairs lose against 1 x 1? The probe waits at CTA
# scope (v90-cta-acquire.patch); ctapairs adds cluster-pairs.patch (v88/v89) on it. Each build:
# its pairs against its own 1 x 1 in one interleaving (the 1 x 1 kernels are the same code in
# all three). QUICK=1: racecheck only, and no ctapairs (stop68-slim.sh).
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-.}
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
L="--shape 2048x2048x2048 --shape 4096x4096x4096 --shape 4096x8192x28672"
for b in build cta; do
  rm -rf build && tar xJf .dev/xz/$b.tar.xz
  echo "== $b: SASS of the 2x1 kernel (instance 54): fences"
  cuobjdump -sass -fun '_ZN8warpspec9ws_kernelINS_9gemm_impl12GemmInstanceILm54EEEEEvNT_6ParamsE' build/libwarpspec.so > $out/sass-$b.txt 2>&1
  wc -l < $out/sass-$b.txt; grep -E "MEMBAR|CCTL|FENCE|SYNCS" $out/sass-$b.txt | sed 's/^ *//; s/ *;.*//' | awk '{$1=""; print}' | sort | uniq -c
  if [ $b = cta ]; then
    timeout 120 build/tests/warpspec_gpu_tests --gtest_filter='Cluster/*:GemmCluster*' 2>&1 | grep -E "PASSED|FAILED|tests ran" | head -5
    WARPSPEC_TEST_CPU_REFERENCE=1 timeout 120 compute-sanitizer --tool racecheck --error-exitcode 99 build/tests/warpspec_gpu_tests --gtest_filter='Cluster/GemmSweep.MatchesReference/0_*:Cluster/GemmSweep.MatchesReference/1_*' 2>&1 | grep -E "SUMMARY|PASSED|FAILED" | head -3
    [ -n "$QUICK" ] || WARPSPEC_TEST_CPU_REFERENCE=1 timeout 120 compute-sanitizer --tool synccheck --error-exitcode 99 build/tests/warpspec_gpu_tests --gtest_filter='Cluster/GemmSweep.MatchesReference/0_*:Cluster/GemmSweep.MatchesReference/1_*' 2>&1 | grep -E "SUMMARY|PASSED|FAILED" | head -3
  fi
  L="$L" bash bench/probes/pair-versus.sh $b
done
[ -n "$QUICK" ] && exit 0
rm -rf build && tar xJf .dev/xz/ctapairs.tar.xz
echo "== ctapairs"
timeout 120 build/tests/warpspec_gpu_tests --gtest_filter='ClusterSharedA/*:NarrowPair/*:GemmNarrow*:GemmCluster.*' 2>&1 | grep -E "PASSED|FAILED|tests ran" | head -5
timeout 150 build/warpspec bench gemm --shape 1x8192x8192 --shape 16x8192x28672 --shape 128x8192x8192 --shape 96x8192x8192 --shape 128x28672x8192 --versus-cluster 1x1 --rounds 3 2>&1 | grep -E "^[0-9]"
