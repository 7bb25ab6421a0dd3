#!/usr/bin/env bash
# On the device machine, from the repository root, with a build in ./build: the ffma-yield
# probe (bench/NOTES.md stop 53). ffma_yield.py rewrites ./build's library per variant
# (first call: --mode reuse at 9/16 and 1, both 1-2% slower; second: --mode plain, the
# yield bit cleared on every second or every plain FFMA of each run); tests, then the GEMM
# and attention benchmarks of the libraries ABBA.
set -u
out=${OUT:-/tmp}
lib=$(ls build/libwarpspec.so.0.*.* | head -1)
libs=(--lib main=build)
for v in "set:--mode set --fraction 1" "sethalf:--mode set --fraction 1/2"; do
  name=${v%%:*}
  mkdir -p /tmp/ffma-$name
  python3 bench/probes/ffma_yield.py "$lib" /tmp/ffma-$name/libwarpspec.so.0 ${v#*:} --show $([ $name = set ] && echo 1 || echo 0)
  ln -sf libwarpspec.so.0 /tmp/ffma-$name/libwarpspec.so
  cuobjdump -sass /tmp/ffma-$name/libwarpspec.so.0 > /tmp/ffma-$name/sass.txt 2>&1
  echo "$name: disassembles rc=$? FFMA lines $(grep -c FFMA /tmp/ffma-$name/sass.txt) with reuse $(grep -c 'FFMA.*reuse' /tmp/ffma-$name/sass.txt)"
  LD_LIBRARY_PATH=/tmp/ffma-$name timeout 200 build/tests/warpspec_gpu_tests \
    --gtest_filter='*Fp8*:*fp8*:*E4m3*:*e4m3*' > $out/ffma-$name-tests.log 2>&1
  echo "$name FP8 tests rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $out/ffma-$name-tests.log | tr '\n' ' ')"
  libs+=(--lib $name=/tmp/ffma-$name/libwarpspec.so.0)
done
timeout 200 scripts/gpu-bench-compare "${libs[@]}" -- bench gemm --dtype e4m3 --scaling block \
  --shape 8192x8192x8192 --shape 4096x14336x4096 --rounds 3
timeout 150 scripts/gpu-bench-compare "${libs[@]}" -- bench gemm --dtype e4m3 \
  --shape 8192x8192x8192 --rounds 3
timeout 150 scripts/gpu-bench-compare "${libs[@]}" -- bench attention --dtype e4m3 --head-dims 128 \
  --seqlens 2048 8192 --full-only --rounds 3
