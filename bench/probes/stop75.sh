#!/usr/bin/env bash
# Stop 75's device call. Carry .dev/xz/s75.tar.xz (e652c7f's build: the GPU kernel tests split
# into kernels (.cu) and bodies (.cpp), most GPU test bodies at -O0) and, for part 2,
# .dev/xz/{build,ctapairs,swap128}.tar.xz.
#   1. every GPU test of the split build (the primitives' and mask rules' tests now launch
#      through plain-C++ launchers), then memcheck/racecheck/synccheck on the split suites;
#   2. on an H200 only: stop73c.sh (the small-M L2 question), unchanged.
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv,noheader
rm -rf build && tar xJf .dev/xz/s75.tar.xz
timeout 300 build/tests/warpspec_gpu_tests --gtest_brief=1 > gpu-tests.txt 2>&1; echo "gpu tests rc=$?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran|^\[  FAILED" gpu-tests.txt | head -20
F='Smoke.*:Pipeline.*:Tma*:Wgmma.*:Fp8PV.*:Fp8VTranspose.*:AttentionMaskRules.*'
timeout 30 build/tests/warpspec_gpu_tests --gtest_filter="$F" --gtest_brief=1 2>&1 | grep -E "tests? ran|PASSED|FAILED" | sed 's/^/[split] /'
for t in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $t --error-exitcode 9 build/tests/warpspec_gpu_tests --gtest_filter="$F" --gtest_brief=1 > san-$t.txt 2>&1 &
done
wait
for t in memcheck racecheck synccheck; do tail -2 san-$t.txt | sed "s/^/[$t] /"; done
mkdir -p "${OUT:-.}" && cp gpu-tests.txt "${OUT:-.}/" 2>/dev/null
bash bench/probes/stop73c.sh
