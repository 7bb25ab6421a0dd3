#!/usr/bin/env bash
# The last device call of stop 68, short: v90 (cta-acquire-run.sh without synccheck and the
# ctapairs rows) and v91 (narrow64-run.sh with one pass of each build).
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-.}
nvidia-smi --query-gpu=name --format=csv,noheader
L="--shape 2048x2048x2048 --shape 4096x4096x4096 --shape 4096x8192x28672"
for b in build cta; do
  rm -rf build && tar xJf .dev/xz/$b.tar.xz
  cuobjdump -sass -fun '_ZN8warpspec9ws_kernelINS_9gemm_impl12GemmInstanceILm54EEEEEvNT_6ParamsE' build/libwarpspec.so > $out/sass-$b.txt 2>&1
  echo "== $b: $(wc -l < $out/sass-$b.txt) SASS lines"; grep -E "MEMBAR|CCTL|FENCE|SYNCS" $out/sass-$b.txt | sed 's/^ *//; s/ *;.*//' | awk '{$1=""; print}' | sort | uniq -c
  if [ $b = cta ]; then
    timeout 60 build/tests/warpspec_gpu_tests --gtest_filter='Cluster/*:GemmCluster*' 2>&1 | grep -E "PASSED|FAILED|tests ran" | head -5
    WARPSPEC_TEST_CPU_REFERENCE=1 timeout 60 compute-sanitizer --tool racecheck --error-exitcode 99 build/tests/warpspec_gpu_tests --gtest_filter='Cluster/GemmSweep.MatchesReference/0_*:Cluster/GemmSweep.MatchesReference/1_*' 2>&1 | grep -E "SUMMARY|PASSED|FAILED" | head -3
  fi
  for c in 2x1 1x2; do
    timeout 60 build/warpspec bench gemm $L --cluster 1x1 --versus-cluster $c --rounds 3 2>&1 | grep -E "^[0-9]" | sed "s/^/$b 1x1 over $c: /"
  done
done
R="--shape 64x8192x8192 --shape 48x8192x8192 --shape 64x28672x8192 --shape 40x8192x28672"
rm -rf build && tar xJf .dev/xz/narrow64.tar.xz
timeout 60 build/tests/warpspec_gpu_tests --gtest_filter='Narrow/*:GemmNarrow*' 2>&1 | grep -E "PASSED|FAILED|tests ran" | head -8
for b in build narrow64; do
  rm -rf build && tar xJf .dev/xz/$b.tar.xz
  timeout 60 build/warpspec bench gemm $R --rounds 3 2>&1 | grep -E "^[0-9]|geometric" | sed "s/^/$b: /"
done
