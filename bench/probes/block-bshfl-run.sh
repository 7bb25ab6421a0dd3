#!/usr/bin/env bash
# On the device machine, from the repository root: the block-bshfl probe (B's block scale
# from a lane batch by shuffle, bench/NOTES.md stop 52) against main.
#   LIBS="main=PATH block-bshfl=PATH" bench/probes/block-bshfl-run.sh
# PATH: a library file or its .xz (scripts/gpu-bench-compare). ./build holds main's program
# and tests.
set -u
libs=() probe=""
for l in ${LIBS:?LIBS=\"main=PATH block-bshfl=PATH\"}; do
  libs+=(--lib "$l")
  case $l in block-bshfl=*) probe=${l#*=} ;; esac
done
out=${OUT:-/tmp}
lib=/tmp/probe-lib/libwarpspec.so.0
mkdir -p /tmp/probe-lib
case $probe in *.xz) xz -dc "$probe" > $lib ;; *) cp "$probe" $lib ;; esac
ln -sf libwarpspec.so.0 /tmp/probe-lib/libwarpspec.so
# Correctness first: the FP8 GEMM tests and racecheck on the block-scaled cases, on the probe.
LD_LIBRARY_PATH=/tmp/probe-lib timeout 150 build/tests/warpspec_gpu_tests \
  --gtest_filter='GemmFp8.*:Fp8/GemmFp8Sweep.*:GemmKSplit.*' > $out/probe-tests.log 2>&1
echo "probe FP8 tests rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $out/probe-tests.log | tr '\n' ' ')"
LD_LIBRARY_PATH=/tmp/probe-lib WARPSPEC_TEST_CPU_REFERENCE=1 timeout 150 compute-sanitizer --tool racecheck \
  build/tests/warpspec_gpu_tests --gtest_filter='Fp8/GemmFp8Sweep.*_s3_*' 2>&1 | grep -E "RACECHECK SUMMARY|PASSED|FAILED"
timeout 150 scripts/gpu-bench-compare "${libs[@]}" -- bench gemm --dtype e4m3 --scaling block \
  --shape 8192x8192x8192 --shape 4096x14336x4096 --rounds 3
# Through Python, A's scales row-major (torch's layout) and M-major, ABBA by library.
main=${LIBS#main=}; main=${main%% *}
case $main in *.xz) xz -dc "$main" > /tmp/main-lib.so; main=/tmp/main-lib.so ;; esac
for lib in "$main" $lib $lib "$main"; do
  for a in row-major m-major; do
    echo "== $lib $a"
    WARPSPEC_LIBRARY=$lib PYTHONPATH=$PWD/python timeout 60 python3 bench/scaled_mm_vs_torch.py \
      --scaling block --a-scales $a --shapes 8192x8192x8192 --rounds 3 2>&1 | tail -2 | head -1
  done
done
