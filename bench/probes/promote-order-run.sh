#!/usr/bin/env bash
# On the device machine, from the repository root: the promote-order probe (the promotion's
# FFMAs in fragment order, rows r and r + 8 interleaved; bench/NOTES.md stop 53) against main.
#   LIBS="main=PATH NAME=PATH" bench/probes/NAME-run.sh
# PATH: a library file or its .xz (scripts/gpu-bench-compare). ./build holds main's program
# and tests.
set -u
name=${PROBE:-$(basename "$0" -run.sh)}
libs=() probe=""
for l in ${LIBS:?LIBS=\"main=PATH $name=PATH\"}; do
  libs+=(--lib "$l")
  case $l in "$name"=*) probe=${l#*=} ;; esac
done
out=${OUT:-/tmp}
dir=/tmp/probe-$name
lib=$dir/libwarpspec.so.0
mkdir -p $dir
case $probe in *.xz) xz -dc "$probe" > $lib ;; *) cp "$probe" $lib ;; esac
ln -sf libwarpspec.so.0 $dir/libwarpspec.so
main=${LIBS#main=}; main=${main%% *}
case $main in *.xz) xz -dc "$main" > /tmp/main-lib.so; main=/tmp/main-lib.so ;; esac
# What ptxas made of it: the FFMAs of the FP8 kernels (functions with QGMMA) and how many
# carry a reuse flag, and the three-register ones.
for l in "$main" $lib; do
  cuobjdump -sass "$l" 2>/dev/null | awk '/Function :/{if (q) {f+=nf; r+=nr; t+=nt}; q=0; nf=nr=nt=0}
    /QGMMA/{q=1} /FFMA/{nf++} /FFMA.*reuse/{nr++} /FFMA R[0-9]+, R[0-9]+, R[0-9]+, R[0-9]+/{nt++}
    END {if (q) {f+=nf; r+=nr; t+=nt}; print "sass: FP8 kernels FFMA " f ", with reuse " r ", three-register " t}'
done
# main's library at this stop is d283714's with the block-scale readers' start shared (no
# change to the code ptxas sees, checked here): its FP8 tests too.
timeout 150 build/tests/warpspec_gpu_tests --gtest_filter='GemmFp8.*:Fp8/GemmFp8Sweep.*:GemmKSplit.*' > $out/main-tests.log 2>&1
echo "main FP8 tests rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $out/main-tests.log | tr '\n' ' ')"
# Correctness first: the FP8 GEMM tests and racecheck on the block-scaled cases, on the probe.
LD_LIBRARY_PATH=$dir timeout 150 build/tests/warpspec_gpu_tests \
  --gtest_filter='GemmFp8.*:Fp8/GemmFp8Sweep.*:GemmKSplit.*' > $out/$name-tests.log 2>&1
echo "probe FP8 tests rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $out/$name-tests.log | tr '\n' ' ')"
LD_LIBRARY_PATH=$dir WARPSPEC_TEST_CPU_REFERENCE=1 timeout 150 compute-sanitizer --tool racecheck \
  build/tests/warpspec_gpu_tests --gtest_filter='Fp8/GemmFp8Sweep.*_s3_*' 2>&1 | grep -E "RACECHECK SUMMARY|PASSED|FAILED"
timeout 150 scripts/gpu-bench-compare "${libs[@]}" -- bench gemm --dtype e4m3 --scaling block \
  --shape 8192x8192x8192 --shape 4096x14336x4096 --rounds 3
# Through Python, A's scales M-major, ABBA by library.
for l in "$main" $lib $lib "$main"; do
  echo "== $l m-major"
  WARPSPEC_LIBRARY=$l PYTHONPATH=$PWD/python timeout 60 python3 bench/scaled_mm_vs_torch.py \
    --scaling block --a-scales m-major --shapes 8192x8192x8192 --rounds 3 2>&1 | tail -2 | head -1
done
